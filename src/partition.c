/* partition.c — sTask-partition: operator graph + tiling -> the sTask-graph of one EU.
 *
 * One EU computes one output tile. The reduction axis that is tiled (K in GEMM, the keys in
 * attention) becomes the loop: graph inputs that vary along it are loaded in the loop body
 * into a ring of stages, the others once in the prologue; ops run where their inputs live;
 * an op that reduces over the loop axis accumulates across iterations (a dependency on its
 * own previous iteration) and its result is final in the epilogue, where outputs are
 * converted and stored. Online softmax over the loop axis splits into max / exp / sum pieces
 * plus a rescale of the accumulator it feeds and a final normalisation. With several
 * consumer warpgroups, every computed tile that has the split axis is cut between them. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "propagate.h"
#include "stask.h"

#define MAX_WG PT_MAX_WARPGROUPS /* the one limit (graph.h) every loader checks */
#define NONE (-1)
/* Refuse sTask-graphs whose expansion would be too big to simulate interactively. */
#define PT_MAX_ITERATIONS ((int64_t)1 << 22)

typedef struct {
    pt_stask_graph *sg;
    const pt_graph *g;
    pt_error *err;
    int cap;
    int wgs;
    /* producer sTask of each tensor: slot 0 = EU-wide, slot 1+w = warpgroup w */
    int prod[PT_MAX_TENSORS][MAX_WG + 1];
    pt_region region[PT_MAX_TENSORS];  /* where the tensor's final value is available */
    bool per_wg[PT_MAX_TENSORS];
    bool softmax_loop[PT_MAX_TENSORS]; /* P of an online softmax over the loop axis */
    int sm_max[PT_MAX_TENSORS][MAX_WG + 1];
    int sm_sum[PT_MAX_TENSORS][MAX_WG + 1];
} builder;

static int base_of(const pt_graph *g, int t)
{
    return g->tensors[t].view_of >= 0 ? g->tensors[t].view_of : t;
}

static bool is_graph_input(const pt_graph *g, int t)
{
    return g->tensors[base_of(g, t)].role == PT_ROLE_INPUT;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* Tile of tensor t as seen by warpgroup slot (0 = whole EU, 1+w = warpgroup w). */
static void tensor_tile(const builder *b, int t, int slot, int *rank, int *axes, int64_t *tile)
{
    const pt_tensor *x = &b->g->tensors[t];
    *rank = x->rank;
    for (int i = 0; i < x->rank; i++) {
        axes[i] = x->axes[i];
        tile[i] = b->sg->tiling.tile[x->axes[i]];
        if (slot > 0 && x->axes[i] == b->sg->split_axis)
            tile[i] /= b->wgs;
    }
}

static int64_t tile_elems(const pt_stask *s)
{
    int64_t n = 1;
    for (int i = 0; i < s->rank; i++)
        n *= s->tile[i];
    return n;
}

static int add_task(builder *b, pt_stask_kind kind, pt_region region, int op, int tensor,
                    int slot, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static int add_task(builder *b, pt_stask_kind kind, pt_region region, int op, int tensor,
                    int slot, const char *fmt, ...)
{
    pt_stask_graph *sg = b->sg;
    if (sg->n == b->cap) {
        int ncap = b->cap ? b->cap * 2 : 32;
        pt_stask *nt = realloc(sg->tasks, (size_t)ncap * sizeof *nt);
        if (!nt) {
            pt_fail(b->err, "%s: out of memory while partitioning", b->g->file);
            return NONE;
        }
        sg->tasks = nt;
        b->cap = ncap;
    }
    pt_stask *s = &sg->tasks[sg->n];
    memset(s, 0, sizeof *s);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->id, sizeof s->id, fmt, ap);
    va_end(ap);
    if (slot > 0 && b->wgs > 1) {
        size_t n = strlen(s->id);
        snprintf(s->id + n, sizeof s->id - n, ".wg%d", slot - 1);
    }
    s->kind = kind;
    s->seu = pt_stask_kind_seu(kind);
    s->region = region;
    s->op = op;
    s->tensor = tensor;
    /* With one consumer warpgroup every computed sTask belongs to it. */
    s->wg = s->seu == PT_SEU_TMA ? -1 : b->wgs == 1 ? 0 : slot - 1;
    tensor_tile(b, tensor, slot, &s->rank, s->axes, s->tile);
    s->dtype = b->g->tensors[tensor].dtype;
    s->elems = tile_elems(s);
    return sg->n++;
}

static bool add_dep(builder *b, int task, int from, int distance)
{
    if (task < 0 || from < 0)
        return true;
    pt_stask *s = &b->sg->tasks[task];
    for (int i = 0; i < s->n_deps; i++)
        if (s->deps[i].from == from && s->deps[i].distance == distance)
            return true;
    if (s->n_deps == PT_MAX_DEPS)
        return pt_fail(b->err, "%s: sTask %s would depend on more than %d sTasks; expected a "
                               "simpler op", b->g->file, s->id, PT_MAX_DEPS);
    s->deps[s->n_deps++] = (pt_dep){from, distance};
    return true;
}

/* Truncation of these descriptions is harmless: they are for people. */
static void set_expr(pt_stask *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_expr(pt_stask *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->expr, sizeof s->expr, fmt, ap);
    va_end(ap);
}

static const char *tname(const builder *b, int t)
{
    return b->g->tensors[t].name;
}

/* "128x64" */
static void shape_str(const pt_stask *s, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = 0;
    for (int i = 0; i < s->rank && n < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "%s%lld", i ? "x" : "", (long long)s->tile[i]);
}

/* ---- loads ---- */

static int ensure_loaded(builder *b, int t);

static int load_task(builder *b, int t, pt_region region)
{
    const pt_tensor *x = &b->g->tensors[t];
    int s = add_task(b, PT_ST_LOAD, region, NONE, t, 0, "load.%s", x->name);
    if (s < 0)
        return NONE;
    pt_stask *st = &b->sg->tasks[s];
    st->buffered = region == PT_REGION_BODY;
    st->bytes = (st->elems * pt_dtype_bits(x->dtype) + 7) / 8;
    char shape[64];
    shape_str(st, shape, sizeof shape);
    set_expr(st, "smem <- %s[%s] %s", x->name, shape,
             pt_dtype_name(x->dtype));
    return s;
}

/* Group scales ride along with their 4-bit tensor: one scale per group of the tile. */
static int load_scales(builder *b, int t, pt_region region)
{
    const pt_tensor *q = &b->g->tensors[t];
    const pt_tensor *sc = &b->g->tensors[q->scales];
    if (b->prod[q->scales][0] != NONE)
        return b->prod[q->scales][0];
    int s = load_task(b, q->scales, region);
    if (s < 0)
        return NONE;
    pt_stask *st = &b->sg->tasks[s];
    for (int i = 0; i < q->rank; i++)
        st->tile[i] = q->axes[i] == q->group_axis
                          ? ceil_div(b->sg->tiling.tile[q->axes[i]], q->group_size)
                          : b->sg->tiling.tile[q->axes[i]];
    st->elems = tile_elems(st);
    st->bytes = (st->elems * pt_dtype_bits(sc->dtype) + 7) / 8;
    char shape[64];
    shape_str(st, shape, sizeof shape);
    set_expr(st, "smem <- %s[%s] %s (group scales of %s)", sc->name, shape,
             pt_dtype_name(sc->dtype), q->name);
    b->prod[q->scales][0] = s;
    return s;
}

static int ensure_loaded(builder *b, int t)
{
    if (b->prod[t][0] != NONE)
        return b->prod[t][0];
    const pt_tensor *x = &b->g->tensors[t];
    pt_region r = b->sg->loop_axis >= 0 && pt_tensor_has_axis(x, b->sg->loop_axis)
                      ? PT_REGION_BODY
                      : PT_REGION_PROLOGUE;
    int s = load_task(b, t, r);
    b->prod[t][0] = s;
    b->region[t] = r;
    if (s >= 0 && b->g->tensors[base_of(b->g, t)].scales >= 0 && load_scales(b, base_of(b->g, t), r) < 0)
        return NONE;
    return s;
}

/* ---- dependencies on tensors ---- */

/* sTask `task` (in warpgroup slot `slot`) reads tensor t. */
static bool read_tensor(builder *b, int task, int slot, int t)
{
    if (is_graph_input(b->g, t)) {
        int s = ensure_loaded(b, t);
        if (s < 0)
            return false;
        if (!add_dep(b, task, s, 0))
            return false;
        int q = base_of(b->g, t);
        if (b->g->tensors[q].scales >= 0)
            return add_dep(b, task, b->prod[b->g->tensors[q].scales][0], 0);
        return true;
    }
    if (!b->per_wg[t])
        return add_dep(b, task, b->prod[t][0], 0);
    if (slot > 0)
        return add_dep(b, task, b->prod[t][slot], 0);
    for (int w = 1; w <= b->wgs; w++)
        if (!add_dep(b, task, b->prod[t][w], 0))
            return false;
    return true;
}

static pt_region input_region(builder *b, const pt_op *op)
{
    pt_region r = PT_REGION_PROLOGUE;
    for (int i = 0; i < op->n_in; i++) {
        int t = op->in[i];
        if (is_graph_input(b->g, t) && b->prod[t][0] == NONE && ensure_loaded(b, t) < 0)
            return PT_REGION_PROLOGUE;
        if (b->region[t] > r)
            r = b->region[t];
    }
    return r;
}

static bool has_axis(const int *axes, int n, int a)
{
    for (int i = 0; i < n; i++)
        if (axes[i] == a)
            return true;
    return false;
}

/* Warpgroup slots an op's output is computed in: 1..wgs if split, else just 0. */
static void slots_for(const builder *b, int t, int *first, int *last)
{
    if (b->per_wg[t]) {
        *first = 1;
        *last = b->wgs;
    } else {
        *first = *last = 0;
    }
}

/* ---- ops ---- */

static bool emit_matmul(builder *b, int oi)
{
    const pt_op *op = &b->g->ops[oi];
    const int A = op->in[0], B = op->in[1], C = op->out;
    for (int k = 0; k < 2; k++)
        if (pt_dtype_is_4bit(b->g->tensors[op->in[k]].dtype))
            return pt_fail(b->err, "%s: $.ops[%d]: tensor cores cannot read %s tensor \"%s\"; "
                                   "expected a dequantize op before the matmul", b->g->file, oi,
                           pt_dtype_name(b->g->tensors[op->in[k]].dtype), tname(b, op->in[k]));
    pt_region r = input_region(b, op);
    bool acc = has_axis(op->reduce_axes, op->n_reduce, b->sg->loop_axis);
    int P = NONE;
    for (int k = 0; k < 2; k++)
        if (b->softmax_loop[op->in[k]] && acc)
            P = op->in[k];
    int first, last;
    slots_for(b, C, &first, &last);
    for (int slot = first; slot <= last; slot++) {
        int s = add_task(b, PT_ST_MMA, acc ? PT_REGION_BODY : r, oi, C, slot, "mma.%s", tname(b, C));
        if (s < 0 || !read_tensor(b, s, slot, A) || !read_tensor(b, s, slot, B))
            return false;
        pt_stask *st = &b->sg->tasks[s];
        double k = 1;
        for (int i = 0; i < op->n_reduce; i++)
            k *= (double)b->sg->tiling.tile[op->reduce_axes[i]];
        st->flops = (int64_t)(2.0 * (double)st->elems * k);
        st->dtype = b->g->tensors[A].dtype;
        char shape[64];
        shape_str(st, shape, sizeof shape);
        set_expr(st, "%s[%s] %s= %s . %s (K tile %.0f, %s in, %s acc)",
                 tname(b, C), shape, acc ? "+" : "", tname(b, A), tname(b, B), k,
                 pt_dtype_name(st->dtype), pt_dtype_name(op->acc));
        if (acc && !add_dep(b, s, s, 1))
            return false;
        b->prod[C][slot] = s;
        if (P != NONE) {
            /* O *= exp2(m_old - m_new) before this iteration's P.V accumulates. */
            int rs = add_task(b, PT_ST_RESCALE, PT_REGION_BODY, oi, C, slot, "rescale.%s", tname(b, C));
            if (rs < 0)
                return false;
            int pslot = b->per_wg[P] ? slot : 0;
            set_expr(&b->sg->tasks[rs],
                     "%s *= exp2(m_old - m_new) (online softmax of %s)", tname(b, C), tname(b, P));
            b->sg->tasks[rs].dtype = PT_F32;
            if (!add_dep(b, rs, b->sm_max[P][pslot], 0) || !add_dep(b, rs, s, 1) ||
                !add_dep(b, s, rs, 0))
                return false;
            int nz = add_task(b, PT_ST_NORMALIZE, PT_REGION_EPILOGUE, oi, C, slot, "normalize.%s",
                              tname(b, C));
            if (nz < 0)
                return false;
            set_expr(&b->sg->tasks[nz], "%s /= l (row sums of %s)",
                     tname(b, C), tname(b, P));
            if (!add_dep(b, nz, s, 0) || !add_dep(b, nz, b->sm_sum[P][pslot], 0))
                return false;
            b->prod[C][slot] = nz;
        }
    }
    b->region[C] = acc ? PT_REGION_EPILOGUE : r;
    return true;
}

static bool emit_online_softmax(builder *b, int oi)
{
    const pt_op *op = &b->g->ops[oi];
    const int S = op->in[0], P = op->out;
    pt_region r = input_region(b, op);
    bool loop = op->axis == b->sg->loop_axis;
    int first, last;
    slots_for(b, P, &first, &last);
    for (int slot = first; slot <= last; slot++) {
        int mx = add_task(b, PT_ST_SOFTMAX_MAX, r, oi, S, slot, "softmax_max.%s", tname(b, P));
        if (mx < 0 || !read_tensor(b, mx, slot, S) || (loop && !add_dep(b, mx, mx, 1)))
            return false;
        set_expr(&b->sg->tasks[mx],
                 "m = max(m, rowmax(%s * %g))%s", tname(b, S), op->scale,
                 op->causal ? " with causal mask" : "");
        b->sg->tasks[mx].dtype = PT_F32;
        int ex = add_task(b, PT_ST_SOFTMAX_EXP, r, oi, P, slot, "softmax_exp.%s", tname(b, P));
        if (ex < 0 || !read_tensor(b, ex, slot, S) || !add_dep(b, ex, mx, 0))
            return false;
        set_expr(&b->sg->tasks[ex],
                 "%s = exp2(%s * %g * log2e - m)", tname(b, P), tname(b, S), op->scale);
        int sm = add_task(b, PT_ST_SOFTMAX_SUM, r, oi, S, slot, "softmax_sum.%s", tname(b, P));
        if (sm < 0 || !add_dep(b, sm, ex, 0) || (loop && !add_dep(b, sm, sm, 1)))
            return false;
        set_expr(&b->sg->tasks[sm],
                 "l = l * exp2(m_old - m) + rowsum(%s)", tname(b, P));
        b->sg->tasks[sm].dtype = PT_F32;
        b->sm_max[P][slot] = mx;
        b->sm_sum[P][slot] = sm;
        b->prod[P][slot] = ex;
        if (!loop) {
            /* Whole rows are in the tile: an ordinary softmax, normalised at once. */
            int nz = add_task(b, PT_ST_NORMALIZE, r, oi, P, slot, "normalize.%s", tname(b, P));
            if (nz < 0 || !add_dep(b, nz, ex, 0) || !add_dep(b, nz, sm, 0))
                return false;
            set_expr(&b->sg->tasks[nz], "%s /= l", tname(b, P));
            b->prod[P][slot] = nz;
        }
        if (op->lse >= 0) {
            int L = op->lse;
            int ls = add_task(b, PT_ST_ELEMENTWISE, loop ? PT_REGION_EPILOGUE : r, oi, L,
                              b->per_wg[L] ? slot : 0, "lse.%s", tname(b, L));
            if (ls < 0 || !add_dep(b, ls, mx, 0) || !add_dep(b, ls, sm, 0))
                return false;
            set_expr(&b->sg->tasks[ls],
                     "%s = m + log(l) (log-sum-exp of %s)", tname(b, L), tname(b, S));
            b->prod[L][b->per_wg[L] ? slot : 0] = ls;
            b->region[L] = loop ? PT_REGION_EPILOGUE : r;
        }
    }
    b->region[P] = r;
    b->softmax_loop[P] = loop;
    return true;
}

static pt_stask_kind generic_kind(pt_op_kind k)
{
    switch (k) {
    case PT_OP_REDUCE_MAX:
    case PT_OP_REDUCE_SUM: return PT_ST_REDUCE;
    case PT_OP_DEQUANTIZE: return PT_ST_DEQUANT;
    case PT_OP_CUMSUM: return PT_ST_CUMSUM;
    case PT_OP_EXP_DECAY: return PT_ST_EXP_DECAY;
    case PT_OP_FILL: return PT_ST_FILL;
    default: return PT_ST_ELEMENTWISE;
    }
}

static bool emit_generic(builder *b, int oi)
{
    const pt_op *op = &b->g->ops[oi];
    const int out = op->out;
    pt_region r = input_region(b, op);
    pt_stask_kind kind = generic_kind(op->kind);
    bool acc = (kind == PT_ST_REDUCE && op->axis == b->sg->loop_axis && op->axis >= 0);
    bool carry = acc || (kind == PT_ST_CUMSUM && op->axis == b->sg->loop_axis && op->axis >= 0);
    int first, last;
    slots_for(b, out, &first, &last);
    for (int slot = first; slot <= last; slot++) {
        int s = add_task(b, kind, acc ? PT_REGION_BODY : r, oi, out, slot, "%s.%s",
                         kind == PT_ST_ELEMENTWISE ? pt_op_kind_name(op->kind)
                                                   : pt_stask_kind_name(kind),
                         tname(b, out));
        if (s < 0)
            return false;
        for (int i = 0; i < op->n_in; i++)
            if (!read_tensor(b, s, slot, op->in[i]))
                return false;
        if (carry && !add_dep(b, s, s, 1))
            return false;
        pt_stask *st = &b->sg->tasks[s];
        /* a reduction's work is its input tile: the output's elements times the reduced
         * axis's extent in the tile (per iteration where that is the loop axis) */
        if (kind == PT_ST_REDUCE && op->axis >= 0)
            st->elems *= b->sg->tiling.tile[op->axis];
        if (kind == PT_ST_DEQUANT) {
            /* costed on the packed input type */
            st->dtype = b->g->tensors[op->in[0]].dtype;
        }
        char ins[3 * PT_NAME_MAX] = "";
        for (int i = 0; i < op->n_in; i++) {
            strncat(ins, i ? ", " : "", sizeof ins - strlen(ins) - 1);
            strncat(ins, tname(b, op->in[i]), sizeof ins - strlen(ins) - 1);
        }
        if (op->kind == PT_OP_FILL)
            set_expr(st, "%s = %g", tname(b, out), op->scale);
        else if (kind == PT_ST_REDUCE || kind == PT_ST_CUMSUM)
            set_expr(st, "%s %s= %s(%s) over %s", tname(b, out),
                     acc ? "(accumulate) " : "", pt_op_kind_name(op->kind), ins,
                     b->g->axes[op->axis].name);
        else if (kind == PT_ST_EXP_DECAY)
            set_expr(st, "%s[%s,%s] = exp(%s[%s] - %s[%s])%s",
                     tname(b, out), b->g->axes[op->row_axis].name, b->g->axes[op->col_axis].name,
                     tname(b, op->in[0]), b->g->axes[op->row_axis].name,
                     tname(b, op->in[op->n_in - 1]), b->g->axes[op->col_axis].name,
                     op->causal ? ", 0 where col > row" : "");
        else
            set_expr(st, "%s = %s(%s)", tname(b, out),
                     pt_op_kind_name(op->kind), ins);
        b->prod[out][slot] = s;
    }
    b->region[out] = acc ? PT_REGION_EPILOGUE : r;
    return true;
}

/* ---- outputs ---- */

static bool emit_store(builder *b, int t)
{
    int first, last;
    slots_for(b, t, &first, &last);
    const pt_tensor *x = &b->g->tensors[t];
    int producers[MAX_WG + 1], n = 0;
    for (int slot = first; slot <= last; slot++) {
        int p = b->prod[t][slot];
        if (p < 0)
            continue;
        if (b->sg->tasks[p].kind == PT_ST_MMA) {
            /* Accumulators are f32 registers: convert (and stage) before the store. */
            int cv = add_task(b, PT_ST_CONVERT, b->region[t], b->sg->tasks[p].op, t, slot,
                              "convert.%s", x->name);
            if (cv < 0 || !add_dep(b, cv, p, 0))
                return false;
            set_expr(&b->sg->tasks[cv], "%s: f32 -> %s",
                     x->name, pt_dtype_name(x->dtype));
            p = cv;
        }
        producers[n++] = p;
    }
    if (b->sg->tiling.wg_stores && first == 0)
        return pt_fail(b->err, "%s: tiling: wg_stores=1 but output \"%s\" is not split between "
                               "warpgroups (%d warpgroup%s); expected wg_stores=0 or 2+ warpgroups "
                               "that each compute their own rows of it", b->g->file, x->name,
                       b->wgs, b->wgs == 1 ? "" : "s");
    /* one store of the whole tile after every warpgroup's part, or (wg_stores) one store of
     * each warpgroup's rows, after that warpgroup's part only */
    int parts = b->sg->tiling.wg_stores ? n : 1;
    for (int k = 0; k < parts; k++) {
        int st = parts > 1 ? add_task(b, PT_ST_STORE, b->region[t], NONE, t, first + k, "store.%s", x->name)
                           : add_task(b, PT_ST_STORE, b->region[t], NONE, t, 0, "store.%s", x->name);
        if (st < 0)
            return false;
        for (int i = 0; i < n; i++)
            if ((parts == 1 || i == k) && !add_dep(b, st, producers[i], 0))
                return false;
        pt_stask *s = &b->sg->tasks[st];
        if (parts > 1)
            s->wg = k; /* whose rows: the store goes on that warpgroup's TMA lane */
        s->bytes = (s->elems * pt_dtype_bits(x->dtype) + 7) / 8;
        char shape[64];
        shape_str(s, shape, sizeof shape);
        set_expr(s, "%s[%s] %s -> global", x->name, shape, pt_dtype_name(x->dtype));
    }
    return true;
}

/* ---- loop axis, grid, warpgroup split ---- */

static bool op_reduces(const pt_op *op, int a)
{
    if (op->kind == PT_OP_ONLINE_SOFTMAX || op->kind == PT_OP_CUMSUM)
        return op->axis == a;
    return has_axis(op->reduce_axes, op->n_reduce, a);
}

static bool find_loop_axis(builder *b)
{
    const pt_graph *g = b->g;
    pt_stask_graph *sg = b->sg;
    sg->loop_axis = NONE;
    for (int a = 0; a < g->n_axes; a++) {
        if (pt_graph_axis_in_output(g, a) || sg->tiling.tile[a] >= g->axes[a].extent)
            continue;
        bool reduced = false;
        for (int i = 0; i < g->n_ops; i++)
            reduced |= op_reduces(&g->ops[i], a);
        if (!reduced)
            return pt_fail(b->err, "%s: tiling: axis \"%s\" is tiled (%lld of %lld) but no output "
                                   "has it and no op reduces over it; expected its whole extent",
                           g->file, g->axes[a].name, (long long)sg->tiling.tile[a],
                           (long long)g->axes[a].extent);
        if (sg->loop_axis != NONE)
            return pt_fail(b->err, "%s: tiling: both \"%s\" and \"%s\" are reduction axes tiled "
                                   "smaller than their extent; expected at most one loop axis "
                                   "(tile the other whole)", g->file,
                           g->axes[sg->loop_axis].name, g->axes[a].name);
        sg->loop_axis = a;
    }
    /* A reduction no longer than one tile (GEMM with K <= BK, attention with S <= the key
     * tile) is still a loop, of one iteration: the same sTasks, stages and lane programs as
     * for a long one, so a program written for the general case applies unchanged. This
     * holds for an axis a matmul contracts or an online softmax runs along that no output
     * has; reductions of other ops over a whole axis stay in the prologue. Where several
     * axes qualify (Mamba2 ChunkScan at L = 64: the intra-chunk product sums over s, the
     * inter-chunk one over n), the loop is the axis the most ops carry, the one a longer
     * extent would have made the loop (s, which seven ops carry, not n, which one matmul
     * contracts in the prologue); a tie leaves no loop. */
    if (sg->loop_axis == NONE) {
        int cand = NONE, best = 0, n_best = 0;
        for (int a = 0; a < g->n_axes; a++) {
            if (pt_graph_axis_in_output(g, a))
                continue;
            bool loopable = false;
            int carried = 0;
            for (int i = 0; i < g->n_ops; i++) {
                const pt_op *op = &g->ops[i];
                loopable |= (op->kind == PT_OP_MATMUL && has_axis(op->reduce_axes, op->n_reduce, a)) ||
                            (op->kind == PT_OP_ONLINE_SOFTMAX && op->axis == a);
                bool carries = pt_tensor_has_axis(&g->tensors[op->out], a);
                for (int k = 0; k < op->n_in; k++)
                    carries |= pt_tensor_has_axis(&g->tensors[op->in[k]], a);
                carried += carries;
            }
            if (!loopable)
                continue;
            if (carried > best) {
                cand = a;
                best = carried;
                n_best = 1;
            } else if (carried == best) {
                n_best++;
            }
        }
        if (n_best == 1)
            sg->loop_axis = cand;
    }
    /* An axis an op contracts must be whole inside a tile unless it is the loop: a partial
     * sum (FlashAttention's head dim, tiled in O but contracted in Q.K^T) would be wrong. */
    for (int i = 0; i < g->n_ops; i++) {
        const pt_op *op = &g->ops[i];
        for (int r = 0; r < op->n_reduce; r++) {
            int a = op->reduce_axes[r];
            if (a != sg->loop_axis && sg->tiling.tile[a] < g->axes[a].extent)
                return pt_fail(b->err, "%s: tiling: axis \"%s\" is tiled (%lld of %lld) but op "
                                       "\"%s\" sums over it; expected its whole extent or the "
                                       "loop over it", g->file, g->axes[a].name,
                               (long long)sg->tiling.tile[a], (long long)g->axes[a].extent,
                               op->name);
        }
    }
    return true;
}

int pt_default_rows_axis(const pt_graph *g, const pt_tiling *t)
{
    /* weights packed as wgmma's A fragments (packing.h) are read only with the tensor-core
     * rows on their rows: those rows, where they are an output axis */
    for (int i = 0; i < g->n_tensors; i++) {
        const pt_tensor *x = &g->tensors[i];
        if (pt_dtype_is_4bit(x->dtype) && x->packing == PT_PACK_FRAGMENTS &&
            pt_graph_axis_in_output(g, x->axes[0]) && t->tile[x->axes[0]] > 1)
            return x->axes[0];
    }
    /* the first non-batch axis of the first output, as FA3 and GEMM split rows (M) */
    for (int i = 0; i < g->n_tensors; i++) {
        const pt_tensor *x = &g->tensors[i];
        if (x->role != PT_ROLE_OUTPUT || x->view_of >= 0)
            continue;
        for (int k = 0; k < x->rank; k++)
            if (!g->axes[x->axes[k]].batch && t->tile[x->axes[k]] > 1)
                return x->axes[k];
    }
    return NONE;
}

static bool setup_grid(builder *b)
{
    const pt_graph *g = b->g;
    pt_stask_graph *sg = b->sg;
    double tiles = 1;
    for (int a = 0; a < g->n_axes; a++) {
        sg->tile_grid[a] =
            pt_graph_axis_in_output(g, a) ? ceil_div(g->axes[a].extent, sg->tiling.tile[a]) : 1;
        tiles *= (double)sg->tile_grid[a];
    }
    if (tiles > 1e15)
        return pt_fail(b->err, "%s: tiling: %.3g output tiles; expected at most 1e15", g->file, tiles);
    sg->tiles = (int64_t)tiles;
    sg->iterations = sg->loop_axis >= 0
                         ? ceil_div(g->axes[sg->loop_axis].extent, sg->tiling.tile[sg->loop_axis])
                         : 1;
    if (sg->iterations > PT_MAX_ITERATIONS)
        return pt_fail(b->err, "%s: tiling: the loop over \"%s\" has %lld iterations; expected at "
                               "most %lld (use a larger tile)", g->file, g->axes[sg->loop_axis].name,
                       (long long)sg->iterations, (long long)PT_MAX_ITERATIONS);
    sg->split_axis = sg->rows_axis = NONE;
    int batch_split = NONE;
    if (sg->tiling.wg_axis > 0) {
        /* chosen: any axis of an output (a GEMM's N: "swap A and B"; a batch axis: one batch
         * index per warpgroup, as Mamba2 ChunkState's heads share B) */
        int a = sg->tiling.wg_axis - 1;
        if (a >= g->n_axes || !pt_graph_axis_in_output(g, a)) {
            char names[PT_MAX_AXES * (PT_NAME_MAX + 2)] = "";
            for (int i = 0; i < g->n_axes; i++)
                if (pt_graph_axis_in_output(g, i)) {
                    strcat(names, names[0] ? ", " : "");
                    strcat(names, g->axes[i].name);
                }
            return pt_fail(b->err, "%s: tiling: wg_axis \"%s\" is not an output axis the "
                                   "warpgroups can split; expected one of: %s", g->file,
                           a < g->n_axes ? g->axes[a].name : "?", names);
        }
        if (!g->axes[a].batch)
            sg->rows_axis = a;
        else
            batch_split = a; /* the tensor-core rows stay where they were */
    }
    if (sg->rows_axis == NONE)
        sg->rows_axis = pt_default_rows_axis(g, &sg->tiling);
    if (b->wgs == 1)
        return true;
    sg->split_axis = batch_split != NONE ? batch_split : sg->rows_axis;
    if (sg->split_axis == NONE)
        return pt_fail(b->err, "%s: tiling: %d warpgroups but the output tile has no axis to split "
                               "between them; expected wg=1", g->file, b->wgs);
    int64_t t = sg->tiling.tile[sg->split_axis];
    /* one batch index per warpgroup: a warpgroup past the axis's end would have nothing to
     * compute, and its TMA boxes would be wider than the tensor (such kernels hang on the H200:
     * round 156) */
    const pt_axis *ax = &g->axes[sg->split_axis];
    if (batch_split != NONE && t > ax->extent)
        return pt_fail(b->err, "%s: tiling: tile %s=%lld gives each of %d warpgroups its own \"%s\" "
                               "index, but \"%s\" has %lld; expected %s <= %lld (and as many "
                               "warpgroups)", g->file, ax->name, (long long)t, b->wgs, ax->name,
                       ax->name, (long long)ax->extent, ax->name, (long long)ax->extent);
    if (t % b->wgs != 0)
        return pt_fail(b->err, "%s: tiling: tile %s=%lld does not split evenly between %d "
                               "warpgroups", g->file, g->axes[sg->split_axis].name, (long long)t,
                       b->wgs);
    return true;
}

static void find_causal(builder *b)
{
    b->sg->causal_op = NONE;
    for (int i = 0; i < b->g->n_ops; i++) {
        const pt_op *op = &b->g->ops[i];
        if (op->causal && op->col_axis >= 0 && op->col_axis == b->sg->loop_axis && op->row_axis >= 0)
            b->sg->causal_op = i;
    }
}

bool pt_partition(pt_stask_graph *sg, const pt_graph *g, const pt_tiling *tiling, pt_error *err)
{
    memset(sg, 0, sizeof *sg);
    sg->graph = g;
    if (!pt_propagate(g, tiling, &sg->tiling, err))
        return false;
    builder *b = calloc(1, sizeof *b);
    if (!b)
        return pt_fail(err, "%s: out of memory", g->file);
    b->sg = sg;
    b->g = g;
    b->err = err;
    b->wgs = sg->tiling.warpgroups;
    memset(b->prod, 0xff, sizeof b->prod); /* all NONE */
    memset(b->sm_max, 0xff, sizeof b->sm_max);
    memset(b->sm_sum, 0xff, sizeof b->sm_sum);
    bool ok = find_loop_axis(b) && setup_grid(b);
    if (ok) {
        find_causal(b);
        for (int t = 0; t < g->n_tensors; t++)
            b->per_wg[t] = b->wgs > 1 && !is_graph_input(g, t) &&
                           pt_tensor_has_axis(&g->tensors[t], sg->split_axis);
    }
    for (int i = 0; ok && i < g->n_ops; i++) {
        switch (g->ops[i].kind) {
        case PT_OP_MATMUL: ok = emit_matmul(b, i); break;
        case PT_OP_ONLINE_SOFTMAX: ok = emit_online_softmax(b, i); break;
        default: ok = emit_generic(b, i); break;
        }
    }
    for (int t = 0; ok && t < g->n_tensors; t++)
        if (g->tensors[t].role == PT_ROLE_OUTPUT && g->tensors[t].view_of < 0)
            ok = emit_store(b, t);
    free(b);
    if (!ok) {
        pt_stask_graph_free(sg);
        return false;
    }
    return true;
}

void pt_stask_graph_free(pt_stask_graph *sg)
{
    free(sg->tasks);
    sg->tasks = NULL;
    sg->n = 0;
}

int pt_stask_find(const pt_stask_graph *sg, const char *id)
{
    for (int i = 0; i < sg->n; i++)
        if (strcmp(sg->tasks[i].id, id) == 0)
            return i;
    return -1;
}

int64_t pt_stask_graph_tile_iterations(const pt_stask_graph *sg, int64_t tile_index)
{
    if (sg->causal_op < 0 || tile_index < 0)
        return sg->iterations;
    const pt_graph *g = sg->graph;
    const pt_op *op = &g->ops[sg->causal_op];
    /* Row-major over axes: the last axis varies fastest. */
    int64_t idx = tile_index, row_coord = 0;
    for (int a = g->n_axes - 1; a >= 0; a--) {
        int64_t c = idx % sg->tile_grid[a];
        idx /= sg->tile_grid[a];
        if (a == op->row_axis)
            row_coord = c;
    }
    int64_t tr = sg->tiling.tile[op->row_axis], tc = sg->tiling.tile[op->col_axis];
    int64_t last_row = (row_coord + 1) * tr;
    if (last_row > g->axes[op->row_axis].extent)
        last_row = g->axes[op->row_axis].extent;
    int64_t it = (last_row - 1) / tc + 1; /* top-left aligned: key j visible to row i if j <= i */
    return it < sg->iterations ? it : sg->iterations;
}

int64_t pt_stask_graph_wg_iterations(const pt_stask_graph *sg, int wg, int64_t iters)
{
    if (sg->causal_op < 0 || wg < 0 || sg->tiling.warpgroups < 2 || iters < 1 || !sg->graph)
        return iters;
    const pt_op *op = &sg->graph->ops[sg->causal_op];
    if (op->kind != PT_OP_EXP_DECAY || sg->split_axis != op->row_axis)
        return iters;
    int64_t tr = sg->tiling.tile[op->row_axis], tc = sg->tiling.tile[op->col_axis];
    if (tr < 1 || tc < 1)
        return iters;
    /* the tile whose rows end where its last k block ends */
    int64_t last_row = iters * tc - tr + (int64_t)(wg + 1) * (tr / sg->tiling.warpgroups);
    int64_t it = last_row > 0 ? (last_row - 1) / tc + 1 : 1;
    return it < iters ? it : iters;
}

bool pt_stask_graph_has_resident_load(const pt_stask_graph *sg)
{
    for (int i = 0; i < sg->n; i++)
        if (sg->tasks[i].kind == PT_ST_LOAD && !sg->tasks[i].buffered)
            return true;
    return false;
}

int64_t pt_stask_graph_instances(const pt_stask_graph *sg, int64_t iters)
{
    int64_t n = 0;
    for (int i = 0; i < sg->n; i++)
        n += sg->tasks[i].region == PT_REGION_BODY ? iters : 1;
    return n;
}

double pt_stask_graph_total_flops(const pt_stask_graph *sg)
{
    const pt_graph *g = sg->graph;
    double total = 0;
    for (int i = 0; i < g->n_ops; i++) {
        double f = pt_op_flops(g, i);
        if (f == 0)
            continue;
        /* A causal mask over the loop skips half of the loop's work (FLOP convention). */
        bool in_loop = false;
        for (int s = 0; s < sg->n; s++)
            if (sg->tasks[s].op == i && sg->tasks[s].kind == PT_ST_MMA)
                in_loop = sg->tasks[s].region == PT_REGION_BODY;
        total += sg->causal_op >= 0 && in_loop ? f / 2 : f;
    }
    return total;
}
