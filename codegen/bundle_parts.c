/* bundle_parts.c — the pieces of a bundle that every target's bundle writer shares (bundle.c:
 * the CUDA targets; bundle_hip.c: a HIP target): graph_table.h (the graph's tensors, launch
 * numbers, tolerances and vendor baseline, read by the harness), tensors.json, the Makefile and
 * README filled from a target's templates, and the writing of the bundle's directory and files. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "bundle_parts.h"
#include "json_util.h"
#include "strbuf.h"
#include "template.h"

#define BUNDLE_PATH_MAX 4096

/* A C string literal (quotes included) holding s. */
static void sb_cstr(strbuf *b, const char *s)
{
    sb_printf(b, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            sb_printf(b, "\\%c", c);
        else if (c < 32 || c >= 127)
            sb_printf(b, "\\%03o", c); /* octal: never swallows the next character */
        else
            sb_printf(b, "%c", c);
    }
    sb_printf(b, "\"");
}

/* ---- tolerances ---- */

/* Coarseness of a float format: the check is as loose as the coarsest format the data passes
 * through (an f32 output of a bf16 matmul carries bf16 input rounding). 4-bit inputs do not
 * count: they are exact and their dequantised tensor (f16/bf16) is what is rounded. */
static int coarseness(pt_dtype d)
{
    switch (d) {
    case PT_F16: return 1;
    case PT_BF16: return 2;
    case PT_FP8_E4M3: return 3;
    default: return 0; /* f32, 4-bit */
    }
}

static void tolerance(const pt_graph *g, double *atol, double *rtol)
{
    static const double tol[4] = {1e-3, 1e-2, 3e-2, 1.25e-1}; /* f32, f16, bf16, fp8 */
    int c = 0;
    for (int t = 0; t < g->n_tensors; t++)
        if (coarseness(g->tensors[t].dtype) > c)
            c = coarseness(g->tensors[t].dtype);
    *atol = *rtol = tol[c];
}

/* ---- harness.c ---- */

static const char *dt_enum(pt_dtype d)
{
    switch (d) {
    case PT_F16: return "DT_F16";
    case PT_BF16: return "DT_BF16";
    case PT_F32: return "DT_F32";
    case PT_FP8_E4M3: return "DT_FP8_E4M3";
    case PT_INT4: return "DT_INT4";
    default: return "DT_FP4_E2M1";
    }
}

static const char *role_enum(pt_role r)
{
    return r == PT_ROLE_INPUT ? "ROLE_INPUT" : r == PT_ROLE_OUTPUT ? "ROLE_OUTPUT"
                                                                   : "ROLE_INTERMEDIATE";
}

/* The graph as cuBLASLt sees it (codegen/host/pt_harness.h): one matmul of two rank-2 f16/bf16
 * inputs into a rank-2 output, in column-major terms; anything else gets the reason there is
 * no vendor GEMM baseline. */
static void gen_baseline(strbuf *b, const pt_graph *g)
{
    const char *why = NULL;
    const pt_op *op = &g->ops[0];
    if (g->n_ops != 1 || op->kind != PT_OP_MATMUL || op->n_in != 2)
        why = "the graph is not a single matmul: no cuBLASLt baseline (bench/fa times torch's "
              "attention backends; low-bit and Mamba2 graphs have their own bench scripts)";
    const pt_tensor *ta = why ? NULL : &g->tensors[op->in[0]];
    const pt_tensor *tb = why ? NULL : &g->tensors[op->in[1]];
    const pt_tensor *tc = why ? NULL : &g->tensors[op->out];
    if (!why && (ta->rank != 2 || tb->rank != 2 || tc->rank != 2 || op->n_reduce != 1))
        why = "the matmul is batched or not 2-D: no cuBLASLt baseline in the harness";
    else if (!why && (ta->view_of >= 0 || tb->view_of >= 0 || tc->view_of >= 0))
        why = "the matmul's operands are views: no cuBLASLt baseline in the harness";
    else if (!why && (ta->dtype != tb->dtype || (ta->dtype != PT_F16 && ta->dtype != PT_BF16) ||
                      (tc->dtype != PT_F16 && tc->dtype != PT_BF16 && tc->dtype != PT_F32)))
        why = "cuBLASLt baseline: f16 or bf16 inputs (both the same) and an f16, bf16 or f32 "
              "output only";
    if (why) {
        sb_printf(b, "static const baseline_desc BASELINE = {.kind = BASELINE_NONE, .why_none = ");
        sb_cstr(b, why);
        /* every field named: clang's -Wextra (the HIP harness) warns of a missing one */
        sb_printf(b, ",\n    .rows = 0, .cols = 0, .depth = 0, .x_slot = -1, .y_slot = -1, "
                     ".d_slot = -1, .x_trans = 0, .y_trans = 0,\n    .ldx = 0, .ldy = 0, .ldd = 0, "
                     ".in_dtype = 0, .out_dtype = 0};\n");
        return;
    }
    /* C's outer axis o0 and inner (contiguous) axis o1: D = C viewed column-major is o1 x o0.
     * X is the operand holding o1 (D's rows), Y the one holding o0 (D's columns). */
    int o0 = tc->axes[0], o1 = tc->axes[1], kax = op->reduce_axes[0];
    const pt_tensor *x = ta, *y = tb;
    int xs = op->in[0], ys = op->in[1];
    if (x->axes[0] != o1 && x->axes[1] != o1) {
        x = tb, y = ta;
        xs = op->in[1], ys = op->in[0];
    }
    /* A row-major (p, q) tensor is column-major q x p with leading dimension extent(q). X must
     * act as rows x depth = o1 x k: stored (k, o1) is exactly that; stored (o1, k) is its
     * transpose. Y must act as depth x cols = k x o0: stored (o0, k) is that; (k, o0) transposed. */
    int x_trans = x->axes[0] == o1, y_trans = y->axes[0] == kax;
    long long ext_o0 = (long long)g->axes[o0].extent, ext_o1 = (long long)g->axes[o1].extent;
    long long ext_k = (long long)g->axes[kax].extent;
    long long ldx = (long long)g->axes[x->axes[1]].extent, ldy = (long long)g->axes[y->axes[1]].extent;
    sb_printf(b,
              "static const baseline_desc BASELINE = {.kind = BASELINE_GEMM, .why_none = NULL,\n"
              "    .rows = %lldLL, .cols = %lldLL, .depth = %lldLL, .x_slot = %d, .y_slot = %d, "
              ".d_slot = %d,\n"
              "    .x_trans = %d, .y_trans = %d, .ldx = %lldLL, .ldy = %lldLL, .ldd = %lldLL,\n"
              "    .in_dtype = %s, .out_dtype = %s};\n",
              ext_o1, ext_o0, ext_k, xs, ys, op->out, x_trans, y_trans, ldx, ldy, ext_o1,
              dt_enum(ta->dtype), dt_enum(tc->dtype));
}

/* tensors.json: the graph's tensors in slot order (what pt_kernel_launch's slots hold), for a
 * driver in another language that launches libkernel.so on its own buffers. */
char *pt_bundle_tensors_json(const pt_stask_graph *sg, const pt_codegen_result *k)
{
    const pt_graph *g = sg->graph;
    strbuf b = {0};
    sb_printf(&b, "{\"graph\": ");
    sb_cstr(&b, g->name);
    sb_printf(&b, ", \"kernel\": ");
    sb_cstr(&b, k->kernel_name);
    sb_printf(&b, ", \"useful_flops\": %.17g, \"grid\": %lld, \"block\": %d, \"smem\": %lld,\n"
                  " \"tensors\": [\n",
              pt_stask_graph_total_flops(sg), (long long)k->grid, k->block_threads,
              (long long)k->smem_bytes);
    for (int t = 0; t < g->n_tensors; t++) {
        const pt_tensor *x = &g->tensors[t];
        sb_printf(&b, "  {\"name\": ");
        sb_cstr(&b, x->name);
        sb_printf(&b, ", \"dtype\": \"%s\", \"role\": \"%s\", \"view_of\": %d, \"shape\": [",
                  pt_dtype_name(x->dtype),
                  x->role == PT_ROLE_INPUT ? "input" : x->role == PT_ROLE_OUTPUT ? "output" : "intermediate",
                  x->view_of);
        /* the shape as stored: a ragged pair of axes (graph.h) is the one dimension of its
         * sequence, which "pieces" describes */
        int64_t ext[PT_MAX_RANK];
        int pos[PT_MAX_RANK], dims = pt_tensor_storage(g, x, ext, pos), r = pt_tensor_ragged_pos(g, x);
        for (int d = 0; d < dims; d++)
            sb_printf(&b, "%s%lld", d ? ", " : "", (long long)ext[d]);
        sb_printf(&b, "], \"axes\": [");
        for (int i = 0; i < x->rank; i++) {
            sb_printf(&b, "%s", i ? ", " : "");
            sb_cstr(&b, g->axes[x->axes[i]].name);
        }
        sb_printf(&b, "]");
        if (r > 0) {
            const pt_axis *a = &g->axes[x->axes[r]];
            sb_printf(&b, ", \"pieces\": {\"axis\": ");
            sb_cstr(&b, a->name);
            sb_printf(&b, ", \"by\": ");
            sb_cstr(&b, g->axes[a->split_by].name);
            sb_printf(&b, ", \"count\": %lld, \"length\": %lld, \"of\": %lld}",
                      (long long)g->axes[a->split_by].extent, (long long)a->extent,
                      (long long)a->split_total);
        }
        if (pt_dtype_is_4bit(x->dtype) && x->packing != PT_PACK_ROWS)  /* src/packing.h */
            sb_printf(&b, ", \"packing\": \"%s\"", pt_packing_name(x->packing));
        /* the group length: the scales' row may be padded past extent / group (graph_load.c) */
        if (x->scales >= 0 && x->group_size > 0)
            sb_printf(&b, ", \"group\": %lld", (long long)x->group_size);
        sb_printf(&b, "}%s\n", t + 1 < g->n_tensors ? "," : "");
    }
    sb_printf(&b, "],\n \"ops\": [\n");
    for (int i = 0; i < g->n_ops; i++) {
        const pt_op *op = &g->ops[i];
        sb_printf(&b, "  {\"name\": ");
        sb_cstr(&b, op->name);
        sb_printf(&b, ", \"op\": \"%s\", \"scale\": %.17g, \"causal\": %s}%s\n",
                  pt_op_kind_name(op->kind), op->scale, op->causal ? "true" : "false",
                  i + 1 < g->n_ops ? "," : "");
    }
    sb_printf(&b, "]}\n");
    return sb_take(&b);
}

/* Tensor t (or the tensor it is a view of) is an input of an exp_decay op: a decay's exponent,
 * which the harness draws as a model makes it (a falling running sum), not uniformly. */
static bool decay_exponent(const pt_graph *g, int t)
{
    for (int o = 0; o < g->n_ops; o++) {
        if (g->ops[o].kind != PT_OP_EXP_DECAY)
            continue;
        for (int i = 0; i < g->ops[o].n_in; i++) {
            const int in = g->ops[o].in[i];
            if (in == t || (in >= 0 && g->tensors[in].view_of == t))
                return true;
        }
    }
    return false;
}

/* graph_table.h: what the fixed harness needs to know about this graph and kernel. */
char *pt_bundle_graph_table(const pt_stask_graph *sg, const pt_codegen_result *k, const char *target)
{
    const pt_graph *g = sg->graph;
    strbuf b = {0};
    char name[PT_NAME_MAX + 8];
    sb_printf(&b,
              "/* graph_table.h — generated by PipeThreader for graph \"%s\", target %s: the "
              "graph's\n * tensors, launch numbers, tolerances and vendor baseline, read by "
              "harness.c. */\n",
              pt_codegen_comment_safe(g->name, name, sizeof name), target);

    double atol, rtol;
    tolerance(g, &atol, &rtol);
    sb_printf(&b, "static const char GRAPH_NAME[] = ");
    sb_cstr(&b, g->name);
    sb_printf(&b, ";\nstatic const char TARGET[] = ");
    sb_cstr(&b, target);
    sb_printf(&b, ";\n/* The kernel's entry point (CUPTI records are matched by it). */\n"
                  "static const char KERNEL_NAME[] = ");
    sb_cstr(&b, k->kernel_name);
    sb_printf(&b, ";\n/* Useful flops of the graph (matmuls; causal masks halve the masked loop). */\n"
                  "static const double USEFUL_FLOPS = %.17g;\n",
              pt_stask_graph_total_flops(sg));
    sb_printf(&b,
              "static const long long GRID = %lldLL;\n"
              "static const int BLOCK = %d;\n"
              "static const long long SMEM = %lldLL;\n",
              (long long)k->grid, k->block_threads, (long long)k->smem_bytes);
    sb_printf(&b, "#define N_TENSORS %d\n", g->n_tensors);
    sb_printf(&b, "/* name, dtype, role, view_of, init, elements, rank, axes, extents, "
                  "atol, rtol */\n");
    sb_printf(&b, "static const tensor_info TENSORS[N_TENSORS] = {\n");
    for (int t = 0; t < g->n_tensors; t++) {
        const pt_tensor *x = &g->tensors[t];
        int init = 0; /* the harness's default draw (codegen/host/harness.c, tensor_info) */
        for (int u = 0; u < g->n_tensors; u++)
            if (g->tensors[u].scales == t)
                init = 1;
        if (x->role == PT_ROLE_INPUT && decay_exponent(g, t) &&
            (x->dtype == PT_F32 || x->dtype == PT_F16 || x->dtype == PT_BF16))
            init = 2;
        sb_printf(&b, "    {");
        sb_cstr(&b, x->name);
        /* as stored: a ragged pair of axes (graph.h) is one dimension, the sequence ("c*l") */
        int64_t ext[PT_MAX_RANK];
        int pos[PT_MAX_RANK], dims = pt_tensor_storage(g, x, ext, pos), r = pt_tensor_ragged_pos(g, x);
        sb_printf(&b, ", %s, %s, %d, %d, %lldLL, %d, {", dt_enum(x->dtype), role_enum(x->role),
                  x->view_of, init, (long long)pt_tensor_elems(g, x), dims);
        for (int d = 0; d < dims; d++) {
            int i = pos[d];
            char pair[2 * PT_NAME_MAX + 2];
            snprintf(pair, sizeof pair, "%s%s%s", i == r ? g->axes[x->axes[i - 1]].name : "",
                     i == r ? "*" : "", g->axes[x->axes[i]].name);
            sb_printf(&b, "%s", d ? ", " : "");
            sb_cstr(&b, pair);
        }
        if (x->rank == 0)
            sb_printf(&b, "NULL");
        sb_printf(&b, "}, {");
        for (int d = 0; d < dims; d++)
            sb_printf(&b, "%s%lldLL", d ? ", " : "", (long long)ext[d]);
        if (x->rank == 0)
            sb_printf(&b, "0");
        sb_printf(&b, "}, %g, %g},\n", atol, rtol);
    }
    sb_printf(&b, "};\n\n");
    gen_baseline(&b, g);
    return sb_take(&b); /* NULL when out of memory */
}

/* ---- Makefile and README.md: codegen/host/Makefile.in and README.md.in filled in ---- */

char *pt_bundle_makefile(const pt_graph *g, const pt_backend *be, const char *tmpl_name,
                         const char *tmpl, pt_error *err)
{
    char name[PT_NAME_MAX + 8];
    const pt_template_var vars[] = {
        {"NAME", pt_codegen_comment_safe(g->name, name, sizeof name)},
        {"TARGET", be->name},
        {"ARCH", be->arch},
        {"GPUS", be->gpus},
        {"ARCH_FLAGS", be->nvcc_arch_flags},
    };
    return pt_template_fill(tmpl_name, tmpl, vars, (int)(sizeof vars / sizeof vars[0]), err);
}

char *pt_bundle_readme(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                       const pt_codegen_result *k, const pt_backend *be, const char *tmpl_name,
                       const char *tmpl, pt_error *err)
{
    const pt_graph *g = sg->graph;
    char name[PT_NAME_MAX + 8];
    pt_codegen_comment_safe(g->name, name, sizeof name);
    double atol, rtol;
    tolerance(g, &atol, &rtol);
    strbuf tile = {0}, stages = {0};
    for (int a = 0; a < g->n_axes; a++)
        sb_printf(&tile, "%s %s=%lld", a ? "," : "", g->axes[a].name,
                  (long long)sg->tiling.tile[a]);
    for (int t = 0; t < g->n_tensors; t++)
        if (p->stages[t] > 0)
            sb_printf(&stages, "%s %s: %d", stages.len ? "," : "", g->tensors[t].name,
                      p->stages[t]);
    if (!stages.len)
        sb_puts(&stages, " none");
    char *tile_s = sb_take(&tile), *stages_s = sb_take(&stages);
    char wgs[48], grid[32], block[16], smem[32], group[16], gflop[32], at[32], rt[32];
    snprintf(wgs, sizeof wgs, "%d consumer warpgroup%s", sg->tiling.warpgroups,
             sg->tiling.warpgroups == 1 ? "" : "s");
    snprintf(grid, sizeof grid, "%lld", (long long)k->grid);
    snprintf(block, sizeof block, "%d", k->block_threads);
    snprintf(smem, sizeof smem, "%lld", (long long)k->smem_bytes);
    snprintf(group, sizeof group, "%d", p->partition.group);
    snprintf(gflop, sizeof gflop, "%.4g", pt_stask_graph_total_flops(sg) / 1e9);
    snprintf(at, sizeof at, "%g", atol);
    snprintf(rt, sizeof rt, "%g", rtol);
    const pt_template_var vars[] = {
        {"NAME", name},
        {"TARGET", be->name},
        {"HW", hw->name},
        {"SUMMARY", k->summary},
        {"TILE", tile_s ? tile_s : ""},
        {"WARPGROUPS", wgs},
        {"STAGES", stages_s ? stages_s : ""},
        {"GRID", grid},
        {"BLOCK", block},
        {"SMEM", smem},
        {"KERNEL", k->kernel_name},
        {"RASTER", pt_raster_name(p->partition.raster)},
        {"GROUP", group},
        {"GRID_KIND", p->partition.persistent ? "persistent" : "one CTA per tile"},
        {"GFLOP", gflop},
        {"ATOL", at},
        {"RTOL", rt},
    };
    char *text = tile_s && stages_s
                     ? pt_template_fill(tmpl_name, tmpl, vars,
                                        (int)(sizeof vars / sizeof vars[0]), err)
                     : NULL;
    if (!tile_s || !stages_s)
        pt_fail(err, "codegen: out of memory writing README.md");
    free(tile_s);
    free(stages_s);
    return text;
}

/* ---- writing ---- */

/* mkdir -p: each missing component is created; an existing non-directory is an error. */
bool pt_bundle_make_dirs(const char *dir, pt_error *err)
{
    char path[BUNDLE_PATH_MAX];
    size_t n = strlen(dir);
    if (n == 0)
        return pt_fail(err, "bundle: the output directory name is empty");
    if (n >= sizeof path)
        return pt_fail(err, "%.80s...: directory name too long", dir);
    memcpy(path, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != 0)
            continue;
        char keep = path[i];
        path[i] = 0;
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return pt_fail(err, "%s: cannot create directory: %s", path, strerror(errno));
        path[i] = keep;
    }
    struct stat st;
    if (stat(dir, &st) != 0)
        return pt_fail(err, "%s: cannot create directory: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return pt_fail(err, "%s: exists and is not a directory", dir);
    return true;
}

bool pt_bundle_write(const char *dir, const char *file, const char *text, pt_error *err)
{
    char path[BUNDLE_PATH_MAX];
    if (!text)
        return pt_fail(err, "%s/%s: out of memory generating it", dir, file);
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, file) >= sizeof path)
        return pt_fail(err, "%.80s...: path too long", dir);
    return pt_write_file(path, text, err);
}
