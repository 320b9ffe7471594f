/* reference.c — the naive reference backend: CUDA kernels that are obviously correct.
 *
 * One kernel per op of the operator graph (ref_op<i>), one thread per output element over a
 * grid-stride loop with 64-bit indices, f32 arithmetic throughout. Every generated kernel of
 * the optimised backends is checked against what these compute, so they trade speed for
 * plainness: index math spelled out from the tensors' axes, f32 sums in plain order. The one
 * exception is matmul, which is tiled through shared memory (gen_matmul_tiled says why) but
 * still sums each output's products one k at a time, in k order.
 *
 * Storage seen by the reference (the contract in codegen.h): graph inputs stay in their graph
 * dtype; every tensor an op writes (intermediate or output) is an f32 buffer of the tensor's
 * element count. A tensor is row-major over its declared axes (last axis contiguous); a view
 * reads its base tensor's slot with the view's own axes. An input is indexed by the
 * coordinates of its own axes, which broadcasts it over the output's other axes.
 *
 * Conventions that the optimised kernels must agree with:
 *   - int4 is signed two's complement (-8..7); int4 and fp4-e2m1 pack two elements per byte,
 *     the even element (along the innermost axis) in the low nibble;
 *   - fp8-e4m3 is the OCP "fn" variant (bias 7, no infinities, S.1111.111 is NaN);
 *   - dequantize multiplies by the group scale: out = value * scale[... , coord / group, ...],
 *     rounded once to the output's dtype (f16/bf16), as the weights a kernel multiplies are;
 *   - any other pointwise result that a matmul multiplies is rounded once to its tensor's
 *     dtype (f16/bf16) in the same way (Mamba2's scaled x);
 *   - gelu is the exact erf form 0.5·x·(1 + erf(x/√2));
 *   - online_softmax is the plain softmax over `axis` of s = x·scale: max m of s over the row,
 *     sum l = Σ exp(s − m) (natural exp via expf), p = exp(s − m)/l. Causal: a column
 *     coordinate greater than the row coordinate is excluded (p = 0); a fully masked row gives
 *     p = 0. lse = m + log(l) in natural-log units (−inf for a fully masked row);
 *   - exp_decay with one input subtracts the same tensor read at the column coordinate;
 *   - for a kernel with the factored decay (pt_codegen_reference_for), the decayed tile that
 *     the matmul multiplies is rounded in the units of its row factor, where that kernel
 *     rounds it (decay_form.h): the values are the same, the rounding points are the kernel's.
 *
 * Two kernels run one thread per row instead of per element: online_softmax (its max and sum
 * are row-wide, and the lse is per row) — re-reducing the row for every element would make the
 * reference quadratic in the row length. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "strbuf.h"

/* Grid cap of the reference launches; the kernels' grid-stride loops cover the rest. */
#define REF_THREADS 256
#define REF_MAX_BLOCKS (65535LL * 16)

/* ---- names and index expressions ---- */

typedef struct {
    const pt_graph *g;
    strbuf *b;
    char coord[PT_MAX_AXES][PT_NAME_MAX + 8]; /* coordinate variable of each axis */
    /* The factored decay (decay_form.h): op pivot_op's output is rounded in row-factor units,
     * read from the exp_decay op pivot_decay's row and column inputs (its kernel's parameters
     * `piv` and `pvc`), over a column walk in blocks of pivot_kblock; -1 for none. */
    int pivot_op, pivot_decay;
    int64_t pivot_kblock;
    /* decay "factored16": the column factor exp(p - y_c) w_c is rounded to 16 bits before it
     * scales the tile T (tensor pivot_tile, the kernel's parameter `pvt`), and the product again;
     * w is the pivot op's input pivot_w (its parameter in<pivot_w>). -1 for the one rounding. */
    int pivot_tile, pivot_w;
} gen;

static bool is_ident(const char *s)
{
    if (!*s)
        return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_'))
            return false;
    return true;
}

/* Coordinate variables read "c_m" for axis m, or "c3" when the axis name is no identifier. */
static void name_coords(gen *G)
{
    for (int a = 0; a < G->g->n_axes; a++) {
        if (is_ident(G->g->axes[a].name))
            snprintf(G->coord[a], sizeof G->coord[a], "c_%s", G->g->axes[a].name);
        else
            snprintf(G->coord[a], sizeof G->coord[a], "c%d", a);
    }
}

static int base_of(const pt_graph *g, int t)
{
    return g->tensors[t].view_of >= 0 ? g->tensors[t].view_of : t;
}

/* The dtype a slot holds while the reference runs. */
static pt_dtype storage_dtype(const pt_graph *g, int t)
{
    const pt_tensor *b = &g->tensors[base_of(g, t)];
    return b->role == PT_ROLE_INPUT ? b->dtype : PT_F32;
}

static const char *ctype(pt_dtype d)
{
    switch (d) {
    case PT_F16: return "__half";
    case PT_BF16: return "__nv_bfloat16";
    case PT_F32: return "float";
    default: return "unsigned char"; /* fp8 bytes, packed 4-bit pairs */
    }
}

static int axis_pos(const pt_tensor *t, int axis)
{
    for (int i = 0; i < t->rank; i++)
        if (t->axes[i] == axis)
            return i;
    return -1;
}

/* Row-major element index of tensor t, in Horner form over its axes. pos_expr[i] (may be
 * NULL, or NULL entries) replaces the coordinate of the tensor's i-th axis. A ragged pair
 * (graph.h: the piece count p just before the piece axis i) is one dimension of the sequence's
 * length, at p * extent(i) + i. */
static void index_expr(const gen *G, int t, const char *const *pos_expr, char *out, size_t cap)
{
    const pt_tensor *x = &G->g->tensors[t];
    if (x->rank == 0) {
        snprintf(out, cap, "0");
        return;
    }
    int r = pt_tensor_ragged_pos(G->g, x), pos[PT_MAX_RANK];
    int64_t e[PT_MAX_RANK];
    int dims = pt_tensor_storage(G->g, x, e, pos);
    char pair[2 * (PT_NAME_MAX + 8) + 40];
    const char *c[PT_MAX_RANK];
    for (int d = 0; d < dims; d++) {
        int i = pos[d];
        c[d] = pos_expr && pos_expr[i] ? pos_expr[i] : G->coord[x->axes[i]];
        if (i == r) { /* the pair: the piece's first element plus the position in it */
            const char *cp = pos_expr && pos_expr[i - 1] ? pos_expr[i - 1] : G->coord[x->axes[i - 1]];
            snprintf(pair, sizeof pair, "(%s * %lldLL + %s)", cp,
                     (long long)G->g->axes[x->axes[i]].extent, c[d]);
            c[d] = pair;
        }
    }
    /* ((c0 * E1 + c1) * E2 + c2) ...: dims - 2 opening parentheses up front */
    size_t n = 0;
    for (int i = 0; i + 2 < dims && n + 1 < cap; i++)
        out[n++] = '(';
    out[n] = 0;
    for (int i = 0; i < dims && n < cap; i++) {
        int w = i == 0 ? snprintf(out + n, cap - n, "%s", c[i])
                       : snprintf(out + n, cap - n, " * %lldLL + %s%s", (long long)e[i], c[i],
                                  i + 1 < dims ? ")" : "");
        if (w < 0)
            break;
        n += (size_t)w;
    }
}

/* "c_s * N + c_n >= TOTAL" for tensor t's ragged piece axis (graph.h): the element does not
 * exist; "" when t holds none. pos_expr as index_expr's. */
static void missing_expr(const gen *G, int t, const char *const *pos_expr, char *out, size_t cap)
{
    const pt_tensor *x = &G->g->tensors[t];
    out[0] = 0;
    for (int i = 0; i < x->rank; i++) {
        const pt_axis *a = &G->g->axes[x->axes[i]];
        if (!pt_axis_ragged(G->g, x->axes[i]))
            continue;
        int p = axis_pos(x, a->split_by);
        const char *ci = pos_expr && pos_expr[i] ? pos_expr[i] : G->coord[x->axes[i]];
        const char *cp = pos_expr && pos_expr[p] ? pos_expr[p] : G->coord[a->split_by];
        snprintf(out, cap, "%s * %lldLL + %s >= %lldLL", cp, (long long)a->extent, ci,
                 (long long)a->split_total);
        return;
    }
}

/* Expression reading element `idx` of tensor t through kernel parameter `param`, as float. */
static void load_expr(const gen *G, int t, const char *param, const char *idx, char *out,
                      size_t cap)
{
    const pt_tensor *b = &G->g->tensors[base_of(G->g, t)];
    char nib[1300];
    if (pt_dtype_is_4bit(b->dtype) && b->packing == PT_PACK_FRAGMENTS) {
        /* the element's nibble in the "fragments" order (src/packing.h) */
        snprintf(nib, sizeof nib, "pt_frag_nibble(%s, %lldLL)", idx,
                 (long long)G->g->axes[b->axes[b->rank - 1]].extent);
        idx = nib;
    }
    switch (storage_dtype(G->g, t)) {
    case PT_F16: snprintf(out, cap, "__half2float(%s[%s])", param, idx); break;
    case PT_BF16: snprintf(out, cap, "__bfloat162float(%s[%s])", param, idx); break;
    case PT_F32: snprintf(out, cap, "%s[%s]", param, idx); break;
    case PT_FP8_E4M3: snprintf(out, cap, "pt_fp8e4m3_to_float(%s[%s])", param, idx); break;
    case PT_INT4: snprintf(out, cap, "pt_int4_at(%s, %s)", param, idx); break;
    case PT_FP4_E2M1: snprintf(out, cap, "pt_fp4e2m1_at(%s, %s)", param, idx); break;
    default: snprintf(out, cap, "0.0f"); break;
    }
}

/* Read tensor t at the current coordinates (with optional per-position replacements). */
static void read_at(const gen *G, int t, const char *param, const char *const *pos_expr,
                    char *out, size_t cap)
{
    char idx[1000], miss[200], v[1100];
    index_expr(G, t, pos_expr, idx, sizeof idx);
    missing_expr(G, t, pos_expr, miss, sizeof miss);
    if (!miss[0]) {
        load_expr(G, t, param, idx, out, cap);
        return;
    }
    load_expr(G, t, param, idx, v, sizeof v); /* an element past the sequence reads 0 */
    snprintf(out, cap, "(%s ? 0.0f : %s)", miss, v);
}

/* Splits the linear work index `i` into the coordinates of `axes` (row-major, last fastest),
 * declaring only the coordinates in `used` (unused ones would be compiler warnings). */
static void decompose(const gen *G, const int *axes, int rank, const bool *used, const char *ind)
{
    int first = -1; /* outermost position whose coordinate is needed */
    for (int i = 0; i < rank && first < 0; i++)
        if (used[axes[i]])
            first = i;
    if (first < 0)
        return;
    sb_printf(G->b, "%slong long r = i;\n", ind);
    for (int i = rank - 1; i >= first; i--) {
        const char *c = G->coord[axes[i]];
        long long e = (long long)G->g->axes[axes[i]].extent;
        if (i == 0)
            sb_printf(G->b, "%sconst long long %s = r;\n", ind, c);
        else if (i == first)
            sb_printf(G->b, "%sconst long long %s = r %% %lldLL;\n", ind, c, e);
        else {
            if (used[axes[i]])
                sb_printf(G->b, "%sconst long long %s = r %% %lldLL;\n", ind, c, e);
            sb_printf(G->b, "%sr /= %lldLL;\n", ind, e);
        }
    }
}

static void mark_tensor_axes(const pt_graph *g, int t, bool *used)
{
    for (int i = 0; i < g->tensors[t].rank; i++)
        used[g->tensors[t].axes[i]] = true;
}

/* "(float)<value>" with every digit of the double, so the literal says what the graph says. */
static void float_lit(double v, char *out, size_t cap)
{
    snprintf(out, cap, "(float)%.17g", v);
}

/* ---- kernel bodies ---- */

static void kernel_open(const gen *G, int i, const char *params)
{
    sb_printf(G->b,
              "extern \"C\" __global__ void __launch_bounds__(%d) ref_op%d(%slong long n)\n"
              "{\n"
              "    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;\n"
              "         i += (long long)gridDim.x * blockDim.x) {\n",
              REF_THREADS, i, params);
}

static void kernel_close(const gen *G)
{
    sb_printf(G->b, "    }\n}\n\n");
}

/* Kernel parameter list: one pointer per input, then out (and lse). */
static void param_list(const gen *G, const pt_op *op, char *out, size_t cap)
{
    const pt_graph *g = G->g;
    size_t o = 0;
    out[0] = 0;
    for (int k = 0; k < op->n_in; k++)
        o += (size_t)snprintf(out + o, cap - o, "const %s *__restrict__ in%d, ",
                              ctype(storage_dtype(g, op->in[k])), k);
    if (op->kind == PT_OP_DEQUANTIZE) {
        int s = g->tensors[op->in[0]].scales;
        o += (size_t)snprintf(out + o, cap - o, "const %s *__restrict__ scales, ",
                              ctype(storage_dtype(g, s)));
    }
    if (G->pivot_op >= 0 && op == &g->ops[G->pivot_op]) {
        const pt_op *d = &g->ops[G->pivot_decay];
        o += (size_t)snprintf(out + o, cap - o,
                              "const %s *__restrict__ piv, const %s *__restrict__ pvc, ",
                              ctype(storage_dtype(g, d->in[0])),
                              ctype(storage_dtype(g, d->in[d->n_in - 1])));
        if (G->pivot_tile >= 0)
            o += (size_t)snprintf(out + o, cap - o, "const %s *__restrict__ pvt, ",
                                  ctype(storage_dtype(g, G->pivot_tile)));
    }
    /* an output storing a ragged sequence (graph.h): the kernel's `out` is a local that puts
     * element i at its place in the sequence (gen_per_element) */
    bool seq = pt_tensor_ragged_pos(g, &g->tensors[op->out]) > 0;
    o += (size_t)snprintf(out + o, cap - o, "float *__restrict__ %s, ", seq ? "out_seq" : "out");
    if (op->kind == PT_OP_ONLINE_SOFTMAX && op->lse >= 0)
        snprintf(out + o, cap - o, "float *__restrict__ lse, ");
}

static const char *unary_fmt(pt_op_kind k)
{
    switch (k) {
    case PT_OP_EXP2: return "exp2f(x)";
    case PT_OP_EXP: return "expf(x)";
    case PT_OP_RELU: return "(x > 0.0f ? x : 0.0f)";
    case PT_OP_GELU: return "0.5f * x * (1.0f + erff(x * 0.70710678118654752f))";
    case PT_OP_SILU: return "x / (1.0f + expf(-x))";
    default: return "x"; /* cast, copy: identity in f32 */
    }
}

static const char *binary_fmt(pt_op_kind k)
{
    switch (k) {
    case PT_OP_ADD: return "a + b";
    case PT_OP_SUB: return "a - b";
    case PT_OP_MUL: return "a * b";
    case PT_OP_DIV: return "a / b";
    default: return "fmaxf(a, b)";
    }
}

/* The axes of a per-element kernel: `used` (all false on entry) gets the axes whose coordinates
 * the body reads, decomposed from the element index; `loops` gets the axes it sums over, which
 * only matmul and reduce_* may have. False (with the reason) for a graph the kernel cannot
 * compute. */
static bool per_element_axes(const gen *G, const pt_op *op, bool *used, int *loops, int *n_loops,
                             pt_error *err)
{
    const pt_graph *g = G->g;
    const pt_tensor *out = &g->tensors[op->out];
    bool in_out[PT_MAX_AXES] = {false};
    for (int i = 0; i < out->rank; i++)
        in_out[out->axes[i]] = true;
    for (int k = 0; k < op->n_in; k++)
        mark_tensor_axes(g, op->in[k], used);
    /* Axes summed over: an input's axes that the output lacks (matmul, reduce_*). */
    *n_loops = 0;
    for (int a = 0; a < g->n_axes; a++)
        if (used[a] && !in_out[a])
            loops[(*n_loops)++] = a;
    bool reduction = op->kind == PT_OP_MATMUL || op->kind == PT_OP_REDUCE_MAX ||
                     op->kind == PT_OP_REDUCE_SUM;
    if (*n_loops && !reduction)
        return pt_fail(err, "reference: op \"%s\" (%s) reads an axis its output lacks", op->name,
                       pt_op_kind_name(op->kind));
    if (op->kind == PT_OP_EXP_DECAY) {
        used[op->row_axis] = used[op->col_axis] = true;
        if (op->n_in == 1) {
            const pt_tensor *x = &g->tensors[op->in[0]];
            if (axis_pos(x, op->row_axis) < 0 || axis_pos(x, op->col_axis) >= 0)
                return pt_fail(err, "reference: exp_decay \"%s\" with one input needs \"%s\" to "
                                    "have the rows axis and not the cols axis", op->name,
                               x->name);
        }
    }
    if (op->kind == PT_OP_CUMSUM)
        used[op->axis] = true;
    if (op->kind == PT_OP_DEQUANTIZE)
        mark_tensor_axes(g, op->in[0], used);
    for (int l = 0; l < *n_loops; l++)
        used[loops[l]] = false; /* loop variables, not decomposed */
    return true;
}

/* Dequantize: the 4-bit value times the scale of its group. */
static bool gen_dequantize_body(const gen *G, const pt_op *op, const char *ind, pt_error *err)
{
    const pt_graph *g = G->g;
    char a[1400], b[1400];
    const pt_tensor *q = &g->tensors[op->in[0]];
    const char *pos[PT_MAX_RANK] = {0};
    char grp[PT_NAME_MAX + 40];
    int gp = axis_pos(q, q->group_axis);
    if (gp < 0 || q->group_size <= 0 || q->scales < 0)
        return pt_fail(err, "reference: dequantize \"%s\": \"%s\" has no usable group scales",
                       op->name, q->name);
    snprintf(grp, sizeof grp, "%s / %lldLL", G->coord[q->group_axis],
             (long long)q->group_size);
    pos[gp] = grp;
    read_at(G, op->in[0], "in0", NULL, a, sizeof a);
    read_at(G, q->scales, "scales", pos, b, sizeof b);
    sb_printf(G->b, "%s/* 4-bit value times the scale of its group of %lld along %s */\n",
              ind, (long long)q->group_size, G->coord[q->group_axis]);
    /* The dequantised weights are a tensor of the output's dtype: a kernel multiplies them as
     * f16/bf16, so the reference rounds the product once to that type as well (it is exact
     * in f32: a 4-bit value times an f16/bf16 scale). */
    pt_dtype od = g->tensors[op->out].dtype;
    if (od == PT_F16)
        sb_printf(G->b, "%sout[i] = __half2float(__float2half_rn(%s * %s));\n", ind, a, b);
    else if (od == PT_BF16)
        sb_printf(G->b, "%sout[i] = __bfloat162float(__float2bfloat16_rn(%s * %s));\n", ind, a, b);
    else
        sb_printf(G->b, "%sout[i] = %s * %s;\n", ind, a, b);
    return true;
}

/* Matmul and reduce_*: the sum (or max) over the loop axes, one nested loop per axis. */
static void gen_reduction_body(const gen *G, const pt_op *op, const int *loops, int n_loops,
                               const char *ind)
{
    const pt_graph *g = G->g;
    char a[1400], b[1400], c[1400];
    sb_printf(G->b, "%sfloat acc = %s;\n", ind,
              op->kind == PT_OP_REDUCE_MAX ? "-INFINITY" : "0.0f");
    char deeper[64];
    snprintf(deeper, sizeof deeper, "%s", ind);
    for (int l = 0; l < n_loops; l++) {
        const char *v = G->coord[loops[l]];
        sb_printf(G->b, "%sfor (long long %s = 0; %s < %lldLL; %s++) /* over %s */\n",
                  deeper, v, v, (long long)g->axes[loops[l]].extent, v,
                  pt_codegen_comment_safe(g->axes[loops[l]].name, c, sizeof c));
        size_t dl = strlen(deeper);
        if (dl + 4 < sizeof deeper)
            memcpy(deeper + dl, "    ", 5);
    }
    read_at(G, op->in[0], "in0", NULL, a, sizeof a);
    if (op->kind == PT_OP_MATMUL) {
        read_at(G, op->in[1], "in1", NULL, b, sizeof b);
        sb_printf(G->b, "%sacc += %s * %s;\n", deeper, a, b);
    } else if (op->kind == PT_OP_REDUCE_MAX)
        sb_printf(G->b, "%sacc = fmaxf(acc, %s);\n", deeper, a);
    else
        sb_printf(G->b, "%sacc += %s;\n", deeper, a);
    sb_printf(G->b, "%sout[i] = acc;\n", ind);
}

/* Is tensor t an operand of a matmul (what a tensor core multiplies)? */
static bool mma_operand(const pt_graph *g, int t)
{
    for (int o = 0; o < g->n_ops; o++)
        if (g->ops[o].kind == PT_OP_MATMUL && (g->ops[o].in[0] == t || g->ops[o].in[1] == t))
            return true;
    return false;
}

/* A pointwise result a matmul multiplies is rounded once to its tensor's dtype (f16/bf16), as
 * a kernel's operand in that type is (Mamba2's xs, and dequantize's output above). */
static void round_to_dtype(const gen *G, pt_dtype d, const char *ind)
{
    if (d == PT_F16)
        sb_printf(G->b, "%sout[i] = __half2float(__float2half_rn(out[i]));\n", ind);
    else if (d == PT_BF16)
        sb_printf(G->b, "%sout[i] = __bfloat162float(__float2bfloat16_rn(out[i]));\n", ind);
}

/* The factored decay's rounding of the tile the matmul multiplies (decay_form.h), as its kernel
 * does it: the element's pivot group is PT_DECAY_PIVOT_ROWS rows aligned along the decay's
 * rows, its pivot p the row input at the first. While every row of the group is within the
 * range of p, and the column walk (blocks of pivot_kblock from column 0) has not reached a
 * block with an unmasked column y where p - y leaves it: round(v / rf) * rf with rf =
 * exp(x_r - p); else round(v). */
static void round_in_pivot_units(const gen *G, pt_dtype d, const char *ind)
{
    if (d != PT_F16 && d != PT_BF16)
        return;
    const pt_graph *g = G->g;
    const pt_op *dec = &g->ops[G->pivot_decay];
    const int t = dec->in[0], tc = dec->in[dec->n_in - 1], ra = dec->row_axis;
    const int ap = axis_pos(&g->tensors[t], ra);
    /* a one-input exp_decay reads its input at the column coordinate along the row axis */
    const int cp = dec->n_in == 2 ? axis_pos(&g->tensors[tc], dec->col_axis) : ap;
    const char *rc = G->coord[ra];
    const long long ext = (long long)g->axes[ra].extent;
    const long long kb = G->pivot_kblock > 0 ? (long long)G->pivot_kblock : ext;
    const char *pos[PT_MAX_RANK] = {0}, *cpos[PT_MAX_RANK] = {0};
    char x0[1400], xr[1400], xp[1400], yc[1400], range[64];
    pos[ap] = "pv_r0";
    read_at(G, t, "piv", pos, x0, sizeof x0);
    pos[ap] = "pv_r";
    read_at(G, t, "piv", pos, xr, sizeof xr);
    read_at(G, t, "piv", NULL, xp, sizeof xp);
    cpos[cp] = "pv_c";
    read_at(G, tc, "pvc", cpos, yc, sizeof yc);
    float_lit(d == PT_F16 ? PT_DECAY_FACTORED_RANGE_F16 : PT_DECAY_FACTORED_RANGE_BF16, range,
              sizeof range);
    const char *cvt = d == PT_F16 ? "__half2float(__float2half_rn"
                                  : "__bfloat162float(__float2bfloat16_rn";
    sb_printf(G->b,
              "%s{   /* the factored decay rounds in units of the row factor of its pivot row */\n"
              "%s    const long long pv_r0 = %s - %s %% %d;\n"
              "%s    const float pv = %s;\n"
              "%s    bool pv_on = true;\n"
              "%s    for (long long pv_r = pv_r0; pv_r < pv_r0 + %d && pv_r < %lldLL; pv_r++)\n"
              "%s        pv_on = pv_on && fabsf(%s - pv) <= %s;\n"
              "%s    for (long long pv_c = 0; pv_on && pv_c <= pv_r0 + %d && pv_c < %lldLL; pv_c++)\n"
              "%s        if (pv - %s > %s) {  /* the walk leaves at this column's block */\n"
              "%s            pv_on = %s < pv_c - pv_c %% %lldLL;\n"
              "%s            break;\n"
              "%s        }\n"
              "%s    const float rf = pv_on ? expf(%s - pv) : 1.0f;\n",
              ind, ind, rc, rc, PT_DECAY_PIVOT_ROWS, ind, x0, ind, ind, PT_DECAY_PIVOT_ROWS, ext,
              ind, xr, range, ind, PT_DECAY_PIVOT_ROWS - 1, ext, ind, yc, range, ind,
              G->coord[dec->col_axis], kb, ind, ind, ind, xp);
    if (G->pivot_tile >= 0) {  /* factored16: the factor rounded, then the product (0 stays 0) */
        char tv[1400], wv[1400], wp[8], yv[1400];
        read_at(G, G->pivot_tile, "pvt", NULL, tv, sizeof tv);
        snprintf(wp, sizeof wp, "in%d", G->pivot_w);
        read_at(G, g->ops[G->pivot_op].in[G->pivot_w], wp, NULL, wv, sizeof wv);
        cpos[cp] = G->coord[dec->col_axis];
        read_at(G, tc, "pvc", cpos, yv, sizeof yv);
        sb_printf(G->b,
                  "%s    if (pv_on && out[i] != 0.0f) {\n"
                  "%s        const float fct = %s(expf(pv - %s) * %s));\n"
                  "%s        out[i] = %s(%s * fct)) * rf;\n"
                  "%s    } else {\n"
                  "%s        out[i] = %s(out[i] / rf)) * rf;\n"
                  "%s    }\n"
                  "%s}\n",
                  ind, ind, cvt, yv, wv, ind, cvt, tv, ind, ind, cvt, ind, ind);
        return;
    }
    sb_printf(G->b, "%s    out[i] = %s(out[i] / rf)) * rf;\n"
                    "%s}\n", ind, cvt, ind);
}

/* Elementwise ops, dequantize, fill, exp_decay, cumsum and reductions: one thread per output
 * element. Matmul and the reductions loop over the axes they sum. */
static bool gen_per_element(const gen *G, int oi, pt_error *err)
{
    const pt_graph *g = G->g;
    const pt_op *op = &g->ops[oi];
    const pt_tensor *out = &g->tensors[op->out];
    bool used[PT_MAX_AXES] = {false};
    int loops[PT_MAX_AXES], n_loops = 0;
    if (!per_element_axes(G, op, used, loops, &n_loops, err))
        return false;
    if (pt_tensor_ragged_pos(g, out) > 0) /* its place in the sequence reads every coordinate */
        mark_tensor_axes(g, op->out, used);
    if (oi == G->pivot_op && G->pivot_tile >= 0)  /* factored16 reads the tile itself */
        mark_tensor_axes(g, G->pivot_tile, used);

    char params[1024];
    param_list(G, op, params, sizeof params);
    kernel_open(G, oi, params);
    const char *ind = "        ";
    decompose(G, out->axes, out->rank, used, ind);
    if (pt_tensor_ragged_pos(g, out) > 0) {
        /* i runs over whole pieces; the output stores the sequence: an element past its end is
         * not stored, the others at their place in it */
        char miss[200], oidx[1000];
        missing_expr(G, op->out, NULL, miss, sizeof miss);
        index_expr(G, op->out, NULL, oidx, sizeof oidx);
        sb_printf(G->b, "%sif (%s)\n%s    continue;\n%sfloat *const out = out_seq + (%s) - i;\n",
                  ind, miss, ind, ind, oidx);
    }

    char a[1400], b[1400];
    switch (op->kind) {
    case PT_OP_FILL:
        float_lit(op->scale, a, sizeof a);
        sb_printf(G->b, "%sout[i] = %s;\n", ind, a);
        break;
    case PT_OP_SCALE:
        read_at(G, op->in[0], "in0", NULL, a, sizeof a);
        float_lit(op->scale, b, sizeof b);
        sb_printf(G->b, "%sout[i] = %s * %s;\n", ind, a, b);
        break;
    case PT_OP_EXP2: case PT_OP_EXP: case PT_OP_CAST: case PT_OP_RELU: case PT_OP_GELU:
    case PT_OP_SILU: case PT_OP_COPY:
        read_at(G, op->in[0], "in0", NULL, a, sizeof a);
        sb_printf(G->b, "%sconst float x = %s;\n%sout[i] = %s;\n", ind, a, ind,
                  unary_fmt(op->kind));
        break;
    case PT_OP_ADD: case PT_OP_SUB: case PT_OP_MUL: case PT_OP_DIV: case PT_OP_MAX:
        read_at(G, op->in[0], "in0", NULL, a, sizeof a);
        read_at(G, op->in[1], "in1", NULL, b, sizeof b);
        sb_printf(G->b, "%sconst float a = %s;\n%sconst float b = %s;\n%sout[i] = %s;\n", ind, a,
                  ind, b, ind, binary_fmt(op->kind));
        break;
    case PT_OP_DEQUANTIZE:
        if (!gen_dequantize_body(G, op, ind, err))
            return false;
        break;
    case PT_OP_EXP_DECAY: {
        read_at(G, op->in[0], "in0", NULL, a, sizeof a);
        if (op->n_in == 2)
            read_at(G, op->in[1], "in1", NULL, b, sizeof b);
        else {
            const char *pos[PT_MAX_RANK] = {0};
            pos[axis_pos(&g->tensors[op->in[0]], op->row_axis)] = G->coord[op->col_axis];
            read_at(G, op->in[0], "in0", pos, b, sizeof b);
        }
        if (op->causal)
            sb_printf(G->b, "%sout[i] = %s > %s ? 0.0f : expf(%s - %s);\n", ind,
                      G->coord[op->col_axis], G->coord[op->row_axis], a, b);
        else
            sb_printf(G->b, "%sout[i] = expf(%s - %s);\n", ind, a, b);
        break;
    }
    case PT_OP_CUMSUM: {
        /* Inclusive prefix: O(extent) per element, which keeps it one thread per element. */
        const char *pos[PT_MAX_RANK] = {0};
        pos[axis_pos(&g->tensors[op->in[0]], op->axis)] = "j";
        read_at(G, op->in[0], "in0", pos, a, sizeof a);
        sb_printf(G->b, "%sfloat acc = 0.0f;\n%sfor (long long j = 0; j <= %s; j++)\n"
                        "%s    acc += %s;\n%sout[i] = acc;\n",
                  ind, ind, G->coord[op->axis], ind, a, ind);
        break;
    }
    case PT_OP_MATMUL: case PT_OP_REDUCE_MAX: case PT_OP_REDUCE_SUM:
        gen_reduction_body(G, op, loops, n_loops, ind);
        break;
    default:
        return pt_fail(err, "reference: op \"%s\": kind %s is not handled", op->name,
                       pt_op_kind_name(op->kind));
    }
    if (oi == G->pivot_op)
        round_in_pivot_units(G, out->dtype, ind);
    else if (op->kind != PT_OP_DEQUANTIZE && mma_operand(g, op->out))
        round_to_dtype(G, out->dtype, ind);
    kernel_close(G);
    return true;
}

/* Matmul over one summed axis k, tiled: a block computes a 64×64 tile of the output's last two
 * axes (m from in0 only, n from in1 only), staging 16-deep k slices of both inputs in shared
 * memory. The naive form reads in1 once per output element — O(M·N·K) bytes through L2, which
 * for an 8192³ product takes minutes; the tile reads it M/64 times. Each output still sums its
 * products one k at a time in f32, in k order, exactly as the per-element loop does. Returns
 * false (nothing emitted) for a matmul of another form; the per-element kernel takes it. */
#define REF_TILE 64
#define REF_TILE_K 16
static bool matmul_tiled_form(const gen *G, const pt_op *op, int *am, int *an, int *ak)
{
    const pt_graph *g = G->g;
    const pt_tensor *out = &g->tensors[op->out], *x = &g->tensors[op->in[0]],
                    *y = &g->tensors[op->in[1]];
    if (op->kind != PT_OP_MATMUL || op->n_in != 2 || out->rank < 2)
        return false;
    *am = out->axes[out->rank - 2];
    *an = out->axes[out->rank - 1];
    *ak = -1;
    for (int i = 0; i < x->rank; i++) {
        int a = x->axes[i];
        if (axis_pos(out, a) >= 0)
            continue;
        if (*ak >= 0 || axis_pos(y, a) < 0)
            return false; /* two summed axes, or one only in0 has */
        *ak = a;
    }
    for (int i = 0; i < y->rank; i++)
        if (axis_pos(out, y->axes[i]) < 0 && y->axes[i] != *ak)
            return false;
    if (*ak < 0 || axis_pos(x, *am) < 0 || axis_pos(y, *am) >= 0 || axis_pos(y, *an) < 0 ||
        axis_pos(x, *an) >= 0)
        return false;
    for (int i = 0; i + 2 < out->rank; i++) /* batch axes come from the inputs */
        if (axis_pos(x, out->axes[i]) < 0 && axis_pos(y, out->axes[i]) < 0)
            return false;
    return true;
}

/* Tiles of the output (the count the host launches over). */
static long long matmul_tiles(const pt_graph *g, const pt_op *op)
{
    const pt_tensor *out = &g->tensors[op->out];
    long long n = 1;
    for (int i = 0; i + 2 < out->rank; i++)
        n *= (long long)g->axes[out->axes[i]].extent;
    long long m = (long long)g->axes[out->axes[out->rank - 2]].extent,
              nn = (long long)g->axes[out->axes[out->rank - 1]].extent;
    return n * ((m + REF_TILE - 1) / REF_TILE) * ((nn + REF_TILE - 1) / REF_TILE);
}

/* Loads one 64×16 slice of tensor t (axes `row` and k) into sh[k][row], the loop order
 * following t's innermost axis so that neighbouring threads read neighbouring elements. */
static void tile_load(const gen *G, int t, const char *param, int row, int ak, const char *row0,
                      const char *sh)
{
    const pt_graph *g = G->g;
    const pt_tensor *x = &g->tensors[t];
    bool k_inner = x->axes[x->rank - 1] == ak;
    char v[1400];
    read_at(G, t, param, NULL, v, sizeof v);
    sb_printf(G->b,
              "            for (int e = threadIdx.x; e < %d; e += blockDim.x) {\n"
              "                const int rr = %s, kk = %s;\n"
              "                const long long %s = %s + rr, %s = k0 + kk;\n"
              "                %s[kk][rr] = %s < %lldLL && %s < %lldLL ? %s : 0.0f;\n"
              "            }\n",
              REF_TILE * REF_TILE_K, k_inner ? "e / 16" : "e % 64", k_inner ? "e % 16" : "e / 64",
              G->coord[row], row0, G->coord[ak], sh, G->coord[row],
              (long long)g->axes[row].extent, G->coord[ak], (long long)g->axes[ak].extent, v);
}

static void gen_matmul_tiled(const gen *G, int oi, int am, int an, int ak)
{
    const pt_graph *g = G->g;
    const pt_op *op = &g->ops[oi];
    const pt_tensor *out = &g->tensors[op->out];
    long long M = (long long)g->axes[am].extent, N = (long long)g->axes[an].extent,
              K = (long long)g->axes[ak].extent;
    char params[1024], oidx[1200];
    param_list(G, op, params, sizeof params);
    sb_printf(G->b,
              "extern \"C\" __global__ void __launch_bounds__(%d) ref_op%d(%slong long n)\n"
              "{\n"
              "    /* n: output tiles of %d x %d; thread (ty, tx) owns a 4 x 4 patch of one */\n"
              "    __shared__ float sa[%d][%d + 1], sb[%d][%d + 1];\n"
              "    const int tx = threadIdx.x %% 16, ty = threadIdx.x / 16;\n"
              "    for (long long tile = blockIdx.x; tile < n; tile += gridDim.x) {\n"
              "        long long r = tile;\n"
              "        const long long n0 = r %% %lldLL * %d;\n"
              "        r /= %lldLL;\n"
              "        const long long m0 = r %% %lldLL * %d;\n"
              "        r /= %lldLL;\n",
              REF_THREADS, oi, params, REF_TILE, REF_TILE, REF_TILE_K, REF_TILE, REF_TILE_K,
              REF_TILE, (N + REF_TILE - 1) / REF_TILE, REF_TILE, (N + REF_TILE - 1) / REF_TILE,
              (M + REF_TILE - 1) / REF_TILE, REF_TILE, (M + REF_TILE - 1) / REF_TILE);
    for (int i = out->rank - 3; i >= 0; i--) {
        long long e = (long long)g->axes[out->axes[i]].extent;
        sb_printf(G->b, "        const long long %s = r %% %lldLL;\n", G->coord[out->axes[i]], e);
        if (i > 0)
            sb_printf(G->b, "        r /= %lldLL;\n", e);
    }
    if (out->rank == 2)
        sb_printf(G->b, "        (void)r;\n");
    sb_printf(G->b,
              "        float acc[4][4] = {{0.0f}};\n"
              "        for (long long k0 = 0; k0 < %lldLL; k0 += %d) {\n"
              "            __syncthreads(); /* the previous slice is consumed */\n",
              K, REF_TILE_K);
    tile_load(G, op->in[0], "in0", am, ak, "m0", "sa");
    tile_load(G, op->in[1], "in1", an, ak, "n0", "sb");
    index_expr(G, op->out, NULL, oidx, sizeof oidx);
    sb_printf(G->b,
              "            __syncthreads();\n"
              "            for (int kk = 0; kk < %d; kk++)\n"
              "                for (int i = 0; i < 4; i++)\n"
              "                    for (int j = 0; j < 4; j++)\n"
              "                        acc[i][j] += sa[kk][ty * 4 + i] * sb[kk][tx * 4 + j];\n"
              "        }\n"
              "        for (int i = 0; i < 4; i++)\n"
              "            for (int j = 0; j < 4; j++) {\n"
              "                const long long %s = m0 + ty * 4 + i, %s = n0 + tx * 4 + j;\n"
              "                if (%s < %lldLL && %s < %lldLL)\n"
              "                    out[%s] = acc[i][j];\n"
              "            }\n"
              "    }\n"
              "}\n\n",
              REF_TILE_K, G->coord[am], G->coord[an], G->coord[am], M, G->coord[an], N, oidx);
}

/* online_softmax: one thread per row (all output coordinates but `axis`), three passes. */
static bool gen_softmax(const gen *G, int oi, pt_error *err)
{
    const pt_graph *g = G->g;
    const pt_op *op = &g->ops[oi];
    const pt_tensor *out = &g->tensors[op->out];
    int row_axes[PT_MAX_RANK], nr = 0;
    for (int i = 0; i < out->rank; i++)
        if (out->axes[i] != op->axis)
            row_axes[nr++] = out->axes[i];
    if (nr == out->rank)
        return pt_fail(err, "reference: online_softmax \"%s\": output lacks the softmax axis",
                       op->name);
    bool used[PT_MAX_AXES] = {false};
    for (int i = 0; i < nr; i++)
        used[row_axes[i]] = true;

    char params[1024];
    param_list(G, op, params, sizeof params);
    kernel_open(G, oi, params);
    const char *ind = "        ";
    decompose(G, row_axes, nr, used, ind);

    const char *v = G->coord[op->axis];
    long long ext = (long long)g->axes[op->axis].extent;
    char x[1400], oidx[1200], lidx[1200], sc[64], mask[400] = "";
    read_at(G, op->in[0], "in0", NULL, x, sizeof x);
    index_expr(G, op->out, NULL, oidx, sizeof oidx);
    float_lit(op->scale, sc, sizeof sc);
    char miss[200];
    missing_expr(G, op->out, NULL, miss, sizeof miss);
    bool masked = op->causal || miss[0];
    if (op->causal && miss[0])
        snprintf(mask, sizeof mask, "%s > %s || %s", v, G->coord[op->row_axis], miss);
    else if (op->causal)
        snprintf(mask, sizeof mask, "%s > %s", v, G->coord[op->row_axis]);
    else
        snprintf(mask, sizeof mask, "%s", miss);
    /* Under the causal mask (and past a ragged sequence's end) the loops skip masked columns;
     * the last pass writes them as 0. */
    const char *skip = masked ? "    if (" : "";
    sb_printf(G->b, "%sconst float scale = %s;\n", ind, sc);
    sb_printf(G->b, "%sfloat mx = -INFINITY; /* row max of x * scale over unmasked columns */\n",
              ind);
    sb_printf(G->b, "%sfor (long long %s = 0; %s < %lldLL; %s++)\n", ind, v, v, ext, v);
    if (masked)
        sb_printf(G->b, "%s%s!(%s))\n    ", ind, skip, mask);
    sb_printf(G->b, "%s    mx = fmaxf(mx, %s * scale);\n", ind, x);
    sb_printf(G->b, "%sfloat sum = 0.0f; /* sum of exp(x * scale - mx) */\n", ind);
    sb_printf(G->b, "%sfor (long long %s = 0; %s < %lldLL; %s++)\n", ind, v, v, ext, v);
    if (masked)
        sb_printf(G->b, "%s%s!(%s))\n    ", ind, skip, mask);
    sb_printf(G->b, "%s    sum += expf(%s * scale - mx);\n", ind, x);
    sb_printf(G->b, "%sfor (long long %s = 0; %s < %lldLL; %s++)\n", ind, v, v, ext, v);
    if (masked)
        sb_printf(G->b, "%s    out[%s] = (%s || !(sum > 0.0f)) ? 0.0f : expf(%s * scale - mx) / sum;\n",
                  ind, oidx, mask, x);
    else
        sb_printf(G->b, "%s    out[%s] = sum > 0.0f ? expf(%s * scale - mx) / sum : 0.0f;\n", ind,
                  oidx, x);
    if (op->lse >= 0) {
        index_expr(G, op->lse, NULL, lidx, sizeof lidx);
        sb_printf(G->b, "%s/* log-sum-exp of the row in natural-log units */\n", ind);
        sb_printf(G->b, "%slse[%s] = sum > 0.0f ? mx + logf(sum) : -INFINITY;\n", ind, lidx);
    }
    kernel_close(G);
    return true;
}

/* ---- device helpers, emitted only when a kernel needs them ---- */

static void emit_helpers(strbuf *b, const bool *dtype_used, bool frag_used)
{
    if (dtype_used[PT_FP8_E4M3])
        sb_printf(b,
                  "/* fp8 e4m3 (OCP \"fn\": bias 7, no infinities, S.1111.111 is NaN), decoded by "
                  "hand. */\n"
                  "__device__ __forceinline__ float pt_fp8e4m3_to_float(unsigned char v)\n"
                  "{\n"
                  "    const int e = (v >> 3) & 15, m = v & 7;\n"
                  "    float mag;\n"
                  "    if (e == 15 && m == 7)\n"
                  "        return __int_as_float(0x7fc00000);\n"
                  "    if (e == 0)\n"
                  "        mag = ldexpf((float)m, -9);          /* subnormal: m/8 * 2^-6 */\n"
                  "    else\n"
                  "        mag = ldexpf((float)(8 + m), e - 10); /* (1 + m/8) * 2^(e-7) */\n"
                  "    return (v & 0x80) ? -mag : mag;\n"
                  "}\n\n");
    if (frag_used)
        sb_printf(b,
                  "/* The nibble of element i of a [rows, K] 4-bit tensor packed as \"fragments\"\n"
                  " * (src/packing.h: blocks of 16 rows by 64 k in the order a warp holds wgmma's A\n"
                  " * fragments). */\n"
                  "__device__ __forceinline__ long long pt_frag_nibble(long long i, long long K)\n"
                  "{\n"
                  "    const long long n = i / K, k = i %% K;\n"
                  "    const int rr = (int)(n %% 16), kk = (int)(k %% 64), kc = kk %% 32, kt = kc %% 16;\n"
                  "    const int lane = 4 * (rr %% 8) + (kt %% 8) / 2;\n"
                  "    const int word = 2 * (kk / 32) + rr / 8, nib = 2 * (kc / 16) + kt / 8 + 4 * (kt %% 2);\n"
                  "    const long long byte = ((n / 16) * 16 + lane %% 16) * (K / 2) + (k / 64) * 32 +\n"
                  "                           16 * (lane / 16) + 4 * word + nib / 2;\n"
                  "    return byte * 2 + nib %% 2;\n"
                  "}\n\n");
    if (dtype_used[PT_INT4])
        sb_printf(b,
                  "/* int4: signed (-8..7), two per byte, even element in the low nibble. */\n"
                  "__device__ __forceinline__ float pt_int4_at(const unsigned char *p, long long i)\n"
                  "{\n"
                  "    const int v = (p[i >> 1] >> ((i & 1) * 4)) & 15;\n"
                  "    return (float)(v >= 8 ? v - 16 : v);\n"
                  "}\n\n");
    if (dtype_used[PT_FP4_E2M1])
        sb_printf(b,
                  "/* fp4 e2m1: S.EE.M, bias 1, no inf/NaN (0, 0.5, 1, 1.5, 2, 3, 4, 6); two per "
                  "byte,\n"
                  " * even element in the low nibble. */\n"
                  "__device__ __forceinline__ float pt_fp4e2m1_at(const unsigned char *p, long long "
                  "i)\n"
                  "{\n"
                  "    const int v = (p[i >> 1] >> ((i & 1) * 4)) & 15;\n"
                  "    const int e = (v >> 1) & 3, m = v & 1;\n"
                  "    const float mag = e == 0 ? 0.5f * (float)m : ldexpf((float)(2 + m), e - 2);\n"
                  "    return (v & 8) ? -mag : mag;\n"
                  "}\n\n");
}

/* One line saying what op i computes, for the comment above its kernel. */
static void describe_op(const pt_graph *g, int oi, char *out, size_t cap)
{
    const pt_op *op = &g->ops[oi];
    char nm[PT_NAME_MAX + 8], t[4][PT_NAME_MAX + 8], o[PT_NAME_MAX + 8];
    pt_codegen_comment_safe(op->name, nm, sizeof nm);
    pt_codegen_comment_safe(g->tensors[op->out].name, o, sizeof o);
    for (int k = 0; k < op->n_in && k < 4; k++)
        pt_codegen_comment_safe(g->tensors[op->in[k]].name, t[k], sizeof t[k]);
    size_t n = (size_t)snprintf(out, cap, "op %d \"%s\": %s = %s(", oi, nm, o,
                                pt_op_kind_name(op->kind));
    for (int k = 0; k < op->n_in && n < cap; k++)
        n += (size_t)snprintf(out + n, cap - n, "%s%s", k ? ", " : "", t[k]);
    if (n < cap)
        n += (size_t)snprintf(out + n, cap - n, ")");
    if (n < cap && op->axis >= 0) {
        char ax[PT_NAME_MAX + 8];
        n += (size_t)snprintf(out + n, cap - n, " over %s",
                              pt_codegen_comment_safe(g->axes[op->axis].name, ax, sizeof ax));
    }
    if (n < cap && (op->kind == PT_OP_SCALE || op->kind == PT_OP_ONLINE_SOFTMAX))
        n += (size_t)snprintf(out + n, cap - n, ", scale %.9g", op->scale);
    if (n < cap && op->kind == PT_OP_FILL)
        n += (size_t)snprintf(out + n, cap - n, " = %.9g", op->scale);
    if (n < cap && op->causal)
        n += (size_t)snprintf(out + n, cap - n, ", causal");
    if (n < cap && op->lse >= 0) {
        char l[PT_NAME_MAX + 8];
        snprintf(out + n, cap - n, ", lse -> %s",
                 pt_codegen_comment_safe(g->tensors[op->lse].name, l, sizeof l));
    }
}

static long long work_items(const pt_graph *g, const pt_op *op)
{
    const pt_tensor *t = &g->tensors[op->out];
    long long n = (long long)pt_tensor_elems(g, t);
    if (pt_tensor_ragged_pos(g, t) > 0) { /* every piece whole: those past the end skipped */
        n = 1;
        for (int i = 0; i < t->rank; i++)
            n *= (long long)g->axes[t->axes[i]].extent;
    }
    if (op->kind == PT_OP_ONLINE_SOFTMAX)
        n /= (long long)g->axes[op->axis].extent; /* rows */
    return n;
}

/* reference.cu's head: what it is, the includes and the element-type helpers it needs. */
static void emit_device_head(strbuf *dev, const char *gname, const bool *dtype_used,
                             bool frag_used)
{
    sb_printf(dev,
              "/* reference.cu — generated by PipeThreader: the f32 reference of graph \"%s\".\n"
              " *\n"
              " * One kernel per op (ref_op<i>), one thread per output element (online_softmax: "
              "per row),\n"
              " * grid-stride loops over 64-bit indices. Graph inputs are read in their dtype; "
              "every tensor\n"
              " * an op writes is an f32 buffer, row-major over its axes. See codegen/reference.c "
              "for the\n"
              " * conventions (4-bit packing, fp8 variant, gelu form, softmax and lse). */\n"
              "#include <cuda_bf16.h>\n"
              "#include <cuda_fp16.h>\n"
              "#include <math.h>\n\n",
              gname);
    emit_helpers(dev, dtype_used, frag_used);
}

/* reference_host.c's head: pt_ref_launch, then the opening of pt_reference_run. */
static void emit_host_head(strbuf *host, const char *gname)
{
    sb_printf(host,
              "/* reference_host.c — generated by PipeThreader: launches the reference kernels of "
              "graph\n"
              " * \"%s\" in op order (CUDA driver API). Slot i is graph tensor i; views use their "
              "base\n"
              " * tensor's slot. */\n"
              "#include <cuda.h>\n\n"
              "int pt_reference_run(CUmodule mod, const CUdeviceptr *slots, CUstream stream);\n\n"
              "/* %d threads per block, one block per per_block work items (an element, a row or a\n"
              " * matmul tile), at most %lld blocks: the kernels loop over the rest. */\n"
              "static CUresult pt_ref_launch(CUmodule mod, const char *name, void **args, "
              "long long n,\n"
              "                              int per_block, CUstream stream)\n"
              "{\n"
              "    CUfunction f;\n"
              "    CUresult rc = cuModuleGetFunction(&f, mod, name);\n"
              "    if (rc != CUDA_SUCCESS)\n"
              "        return rc;\n"
              "    long long blocks = (n + per_block - 1) / per_block;\n"
              "    if (blocks > %lldLL)\n"
              "        blocks = %lldLL;\n"
              "    if (blocks < 1)\n"
              "        blocks = 1;\n"
              "    return cuLaunchKernel(f, (unsigned)blocks, 1, 1, %d, 1, 1, 0, stream, args, "
              "NULL);\n"
              "}\n\n"
              "int pt_reference_run(CUmodule mod, const CUdeviceptr *slots, CUstream stream)\n"
              "{\n"
              "    CUresult rc;\n",
              gname, REF_THREADS, REF_MAX_BLOCKS, REF_MAX_BLOCKS, REF_MAX_BLOCKS, REF_THREADS);
}

/* pt_reference_run's launch of op oi (`line` describes it): its slots, its n work items
 * (elements, rows or tiles) and its per_block items per block. */
static void emit_host_launch(strbuf *host, const gen *G, int oi, const char *line,
                             long long n, bool tiled, int per_block)
{
    const pt_graph *g = G->g;
    const pt_op *op = &g->ops[oi];
    const bool piv = oi == G->pivot_op;
    sb_printf(host, "    { /* %s */\n", line);
    for (int k = 0; k < op->n_in; k++)
        sb_printf(host, "        CUdeviceptr in%d = slots[%d];\n", k, base_of(g, op->in[k]));
    if (op->kind == PT_OP_DEQUANTIZE)
        sb_printf(host, "        CUdeviceptr scales = slots[%d];\n",
                  base_of(g, g->tensors[op->in[0]].scales));
    if (piv) {
        const pt_op *d = &g->ops[G->pivot_decay];
        sb_printf(host, "        CUdeviceptr piv = slots[%d], pvc = slots[%d];\n",
                  base_of(g, d->in[0]), base_of(g, d->in[d->n_in - 1]));
        if (G->pivot_tile >= 0)
            sb_printf(host, "        CUdeviceptr pvt = slots[%d];\n", base_of(g, G->pivot_tile));
    }
    sb_printf(host, "        CUdeviceptr out = slots[%d];\n", op->out);
    if (op->kind == PT_OP_ONLINE_SOFTMAX && op->lse >= 0)
        sb_printf(host, "        CUdeviceptr lse = slots[%d];\n", op->lse);
    sb_printf(host, "        long long n = %lldLL;%s\n", n,
              tiled ? " /* tiles */" : op->kind == PT_OP_ONLINE_SOFTMAX ? " /* rows */" : "");
    sb_printf(host, "        void *args[] = {");
    for (int k = 0; k < op->n_in; k++)
        sb_printf(host, "&in%d, ", k);
    if (op->kind == PT_OP_DEQUANTIZE)
        sb_printf(host, "&scales, ");
    if (piv)
        sb_printf(host, G->pivot_tile >= 0 ? "&piv, &pvc, &pvt, " : "&piv, &pvc, ");
    sb_printf(host, "&out, ");
    if (op->kind == PT_OP_ONLINE_SOFTMAX && op->lse >= 0)
        sb_printf(host, "&lse, ");
    sb_printf(host, "&n};\n");
    sb_printf(host,
              "        if ((rc = pt_ref_launch(mod, \"ref_op%d\", args, n, %d, stream)) != "
              "CUDA_SUCCESS)\n"
              "            return (int)rc;\n"
              "    }\n",
              oi, per_block);
}

bool pt_codegen_reference(const pt_graph *g, pt_codegen_result *out, pt_error *err)
{
    return pt_codegen_reference_for(g, PT_DECAY_TILE, NULL, out, err);
}

bool pt_codegen_reference_for(const pt_graph *g, pt_decay_form decay, const pt_tiling *tiling,
                              pt_codegen_result *out, pt_error *err)
{
    memset(out, 0, sizeof *out);
    gen G = {.g = g, .pivot_op = -1, .pivot_decay = -1, .pivot_tile = -1, .pivot_w = -1};
    if (pt_decay_is_factored(decay)) {
        pt_decay_chain c;
        if (!pt_decay_chain_find(g, &c, err))
            return false;
        G.pivot_op = c.op_vec;
        G.pivot_decay = c.op_decay;
        G.pivot_kblock = tiling ? tiling->tile[g->ops[c.op_decay].col_axis] : 0;
        if (decay == PT_DECAY_FACTORED16) {
            const pt_op *mt = &g->ops[c.op_tile], *mv = &g->ops[c.op_vec];
            int dec = g->ops[c.op_decay].out;
            G.pivot_tile = mt->in[0] == dec ? mt->in[1] : mt->in[0];
            G.pivot_w = mv->in[0] == mt->out ? 1 : 0;
        }
    }
    strbuf dev = {0}, host = {0};
    G.b = &dev;
    name_coords(&G);
    char gname[PT_NAME_MAX + 8], line[1024];
    pt_codegen_comment_safe(g->name, gname, sizeof gname);

    bool dtype_used[PT_DTYPE_COUNT] = {false};
    for (int t = 0; t < g->n_tensors; t++)
        dtype_used[storage_dtype(g, t)] = true;
    bool frag_used = false;
    for (int t = 0; t < g->n_tensors; t++)
        frag_used |= pt_dtype_is_4bit(g->tensors[t].dtype) && g->tensors[t].packing == PT_PACK_FRAGMENTS;

    emit_device_head(&dev, gname, dtype_used, frag_used);
    emit_host_head(&host, gname);

    long long max_blocks = 0;
    for (int oi = 0; oi < g->n_ops; oi++) {
        const pt_op *op = &g->ops[oi];
        describe_op(g, oi, line, sizeof line);
        sb_printf(&dev, "/* %s */\n", line);
        int am, an, ak;
        /* an output storing a ragged sequence is written element by element (gen_per_element
         * puts each at its place in it) */
        bool seq = pt_tensor_ragged_pos(g, &g->tensors[op->out]) > 0;
        if (seq && op->kind == PT_OP_ONLINE_SOFTMAX) {
            sb_free(&dev);
            sb_free(&host);
            return pt_fail(err, "reference: online_softmax \"%s\" writes output \"%s\", which "
                                "stores a ragged sequence; only elementwise ops and matmuls may",
                           op->name, g->tensors[op->out].name);
        }
        bool tiled = !seq && matmul_tiled_form(&G, op, &am, &an, &ak), ok = true;
        if (tiled)
            gen_matmul_tiled(&G, oi, am, an, ak);
        else
            ok = op->kind == PT_OP_ONLINE_SOFTMAX ? gen_softmax(&G, oi, err)
                                                  : gen_per_element(&G, oi, err);
        if (!ok) {
            sb_free(&dev);
            sb_free(&host);
            return false;
        }
        long long n = tiled ? matmul_tiles(g, op) : work_items(g, op);
        int per_block = tiled ? 1 : REF_THREADS;
        long long blocks = (n + per_block - 1) / per_block;
        if (blocks > REF_MAX_BLOCKS)
            blocks = REF_MAX_BLOCKS;
        if (blocks > max_blocks)
            max_blocks = blocks;
        emit_host_launch(&host, &G, oi, line, n, tiled, per_block);
    }
    sb_printf(&host, "    return 0;\n}\n");

    out->kernel_cu = sb_take(&dev);
    out->host_c = sb_take(&host);
    if (!out->kernel_cu || !out->host_c) {
        pt_codegen_result_free(out);
        return pt_fail(err, "reference: out of memory generating code for \"%s\"", g->name);
    }
    snprintf(out->kernel_name, sizeof out->kernel_name, "ref_op0");
    out->grid = max_blocks;
    out->block_threads = REF_THREADS;
    out->smem_bytes = 0;
    snprintf(out->summary, sizeof out->summary,
             "Reference of %s: %d plain f32 kernel%s (ref_op0..ref_op%d), one thread per output "
             "element (matmul: one block per 64x64 tile), %d threads per block, up to %lld "
             "blocks each.",
             gname, g->n_ops, g->n_ops == 1 ? "" : "s", g->n_ops - 1, REF_THREADS, max_blocks);
    return true;
}
