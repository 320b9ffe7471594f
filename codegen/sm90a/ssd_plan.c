/* ssd_plan.c — what the Hopper instructions need of a matmul whose A operand is made on the
 * consumers' CUDA cores each k block (Mamba2's ChunkState, see ssd.h).
 *
 * The output C[batch..., m, n] is one 64 x n tile per consumer warpgroup at one batch index;
 * A is the product of a loaded tile (stored [k][m] or [m][k]) and a vector along k, built
 * straight into wgmma's register fragment (ldmatrix, scale, pack); the vectors come from
 * pointwise ops of loaded k-vectors and per-tile scalars; B is a loaded tile [k][n] (N-major,
 * the register-A wgmma's form). Tensors are mapped over every axis (shape.h: full_rank), since
 * x[b, c, l, h, p] has its tile's rows (l) outside a unit axis (h). */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "ssd.h"

#define REFUSE(...) return pt_fail(err, "codegen sm90a: " __VA_ARGS__)

static bool pointwise(pt_op_kind k)
{
    return k == PT_OP_ADD || k == PT_OP_SUB || k == PT_OP_MUL || k == PT_OP_DIV || k == PT_OP_EXP;
}

bool sm90a_ssd_matches(const pt_graph *g)
{
    if (g->n_ops < 2 || g->ops[g->n_ops - 1].kind != PT_OP_MATMUL)
        return false;
    for (int o = 0; o + 1 < g->n_ops; o++)
        if (!pointwise(g->ops[o].kind))
            return false;
    return true;
}

static bool plan_graph(sm90a_ssd *sd, pt_error *err)
{
    const pt_graph *g = sd->g;
    sd->op_mm = g->n_ops - 1;
    const pt_op *mm = &g->ops[sd->op_mm];
    if (mm->n_in != 2 || mm->n_reduce != 1)
        REFUSE("matmul \"%s\" must reduce one axis of two operands", mm->name);
    sd->A = mm->in[0];
    sd->B = mm->in[1];
    sd->C = mm->out;
    const pt_tensor *A = &g->tensors[sd->A], *B = &g->tensors[sd->B], *C = &g->tensors[sd->C];
    if (C->rank < 2 || C->rank > 5)
        REFUSE("the output \"%s\" has %d axes; expected 2 to 5 (TMA boxes)", C->name, C->rank);
    sd->ax_k = mm->reduce_axes[0];
    sd->ax_m = C->axes[C->rank - 2];
    sd->ax_n = C->axes[C->rank - 1];
    if (sd->ax_k != sd->kp->sg->loop_axis)
        REFUSE("the loop runs over %s; expected the matmul's reduction axis %s",
               sd->kp->sg->loop_axis >= 0 ? g->axes[sd->kp->sg->loop_axis].name : "nothing",
               g->axes[sd->ax_k].name);
    if (!pt_tensor_has_axis(A, sd->ax_m) || pt_tensor_has_axis(B, sd->ax_m) ||
        !pt_tensor_has_axis(B, sd->ax_n) || pt_tensor_has_axis(A, sd->ax_n) ||
        !pt_tensor_has_axis(A, sd->ax_k) || !pt_tensor_has_axis(B, sd->ax_k))
        REFUSE("matmul \"%s\": expected A with %s and %s, B with %s and %s, and the output's last "
               "two axes %s, %s", mm->name, g->axes[sd->ax_m].name, g->axes[sd->ax_k].name,
               g->axes[sd->ax_k].name, g->axes[sd->ax_n].name, g->axes[sd->ax_m].name,
               g->axes[sd->ax_n].name);
    if (B->rank < 2 || B->axes[B->rank - 1] != sd->ax_n || B->axes[B->rank - 2] != sd->ax_k)
        REFUSE("B (\"%s\") must be [..., %s, %s]: the register-A wgmma reads B N-major", B->name,
               g->axes[sd->ax_k].name, g->axes[sd->ax_n].name);
    sd->in_dt = B->dtype;
    sd->out_dt = C->dtype;
    if ((B->dtype != PT_F16 && B->dtype != PT_BF16) || A->dtype != B->dtype)
        REFUSE("A (\"%s\") and B (\"%s\") must both be f16 or both bf16", A->name, B->name);
    if (C->dtype != PT_F32 && C->dtype != PT_F16 && C->dtype != PT_BF16)
        REFUSE("the output \"%s\" must be f32, f16 or bf16", C->name);
    /* A = src * vector: the tile loaded, the vector along k */
    int wa = pt_graph_producer(g, sd->A);
    if (wa < 0 || g->ops[wa].kind != PT_OP_MUL || g->ops[wa].n_in != 2)
        REFUSE("A (\"%s\") must be a loaded tile times a vector along %s", A->name,
               g->axes[sd->ax_k].name);
    sd->src = -1;
    for (int i = 0; i < 2; i++) {
        const pt_tensor *T = &g->tensors[g->ops[wa].in[i]];
        if (pt_tensor_has_axis(T, sd->ax_m) && T->role == PT_ROLE_INPUT)
            sd->src = g->ops[wa].in[i];
    }
    if (sd->src < 0)
        REFUSE("A (\"%s\") must be made from an input tile with axis %s", A->name,
               g->axes[sd->ax_m].name);
    const pt_tensor *X = &g->tensors[sd->src];
    int inner = X->axes[X->rank - 1];
    if (inner == sd->ax_m)
        sd->src_mn_major = true;
    else if (inner == sd->ax_k)
        sd->src_mn_major = false;
    else
        REFUSE("\"%s\" must have %s or %s innermost (ldmatrix reads rows of 16 bytes)", X->name,
               g->axes[sd->ax_m].name, g->axes[sd->ax_k].name);
    sd->M = g->axes[sd->ax_m].extent;
    sd->N = g->axes[sd->ax_n].extent;
    sd->K = g->axes[sd->ax_k].extent;
    const pt_tiling *t = &sd->kp->sg->tiling;
    sd->BM = t->tile[sd->ax_m];
    sd->BN = t->tile[sd->ax_n];
    sd->BK = t->tile[sd->ax_k];
    return true;
}

static bool plan_tiles(sm90a_ssd *sd, pt_error *err)
{
    const pt_graph *g = sd->g;
    sd->wgs = sd->kp->wgs;
    if (sd->BM != 64 * sd->wgs)
        REFUSE("tile %s=%lld with %d consumer warpgroup(s); expected 64 rows per warpgroup (one "
               "m64 wgmma block)", g->axes[sd->ax_m].name, (long long)sd->BM, sd->wgs);
    if (sd->BN % 64 || sd->BN > 256)
        REFUSE("tile %s=%lld; expected a multiple of 64 up to 256 (wgmma N, 128-byte atoms of B)",
               g->axes[sd->ax_n].name, (long long)sd->BN);
    if (sd->BK % 16 || sd->BK > 256)
        REFUSE("tile %s=%lld; expected a multiple of 16 up to 256 (k16 steps)",
               g->axes[sd->ax_k].name, (long long)sd->BK);
    if (sd->out_dt == PT_F32 ? sd->BN % 32 : sd->BN % 64)
        REFUSE("tile %s=%lld: the output is stored in 128-byte boxes", g->axes[sd->ax_n].name,
               (long long)sd->BN);
    const pt_tensor *C = &g->tensors[sd->C];
    for (int i = 0; i + 2 < C->rank; i++)
        if (sd->kp->sg->tiling.tile[C->axes[i]] != 1)
            REFUSE("the output's batch axis %s has tile %lld; expected 1 (one batch index per "
                   "tile)", g->axes[C->axes[i]].name,
                   (long long)sd->kp->sg->tiling.tile[C->axes[i]]);
    if (sd->kp->bufs[sd->kp->staging].over >= 0)
        REFUSE("the output tile is staged over a resident tile; stage it apart "
               "(partition.staging)");
    if (sd->kp->split_k > 1)
        REFUSE("split-K is not generated for this workload (partition.split_k = %d)",
               sd->kp->split_k);
    int acc = (int)sd->BN / 2;
    for (int w = 0; w < sd->wgs; w++)
        if (sd->kp->consumer[w].regs < acc + 56)
            REFUSE("consumer warpgroup %d has %d registers per thread; its %d accumulators and "
                   "fragments need at least %d", w, sd->kp->consumer[w].regs, acc, acc + 56);
    return true;
}

/* Every buffer mapped over its axes: at most 5, global strides of whole 16 bytes; a tile of one
 * element is flat, vectors along k unswizzled. */
static bool plan_buffers(sm90a_ssd *sd, pt_error *err)
{
    const pt_kprog *kp = sd->kp;
    const pt_graph *g = sd->g;
    sd->ring_src = pt_kprog_buf_of(kp, sd->src);
    sd->ring_b = pt_kprog_buf_of(kp, sd->B);
    if (sd->ring_src < 0 || sd->ring_b < 0 || kp->bufs[sd->ring_src].kind != PT_KBUF_RING ||
        kp->bufs[sd->ring_b].kind != PT_KBUF_RING)
        REFUSE("\"%s\" and \"%s\" must be loaded per %s block into rings of stages",
               g->tensors[sd->src].name, g->tensors[sd->B].name, g->axes[sd->ax_k].name);
    for (int b = 0; b < kp->n_bufs; b++) {
        const pt_kbuf *B = &kp->bufs[b];
        const pt_tensor *T = &g->tensors[B->tensor];
        const pt_stask *st = &kp->sg->tasks[B->stask];
        if (B->kind == PT_KBUF_ROWS || B->written)
            REFUSE("buffer of \"%s\": only loads and one stored output are generated here", T->name);
        if (T->rank > 5)
            REFUSE("\"%s\" has %d axes; TMA maps at most 5", T->name, T->rank);
        if (B->staged)
            REFUSE("rows of \"%s\" are not a multiple of 16 bytes (%s = %lld); TMA needs 16-byte "
                   "strides and this workload is not staged through aligned copies", T->name,
                   g->axes[T->axes[T->rank - 1]].name,
                   (long long)g->axes[T->axes[T->rank - 1]].extent);
        int64_t one = 1, stride = B->elem_bytes;
        for (int i = 0; i < T->rank; i++)
            one *= st->tile[i];
        for (int i = T->rank - 1; i >= 0; i--)  /* TMA: strides below 2^40 bytes */
            if (__builtin_mul_overflow(stride, g->axes[T->axes[i]].extent, &stride) ||
                stride >= (1LL << 40))
                REFUSE("\"%s\" spans %s bytes or more; TMA strides must stay below 2^40",
                       T->name, "2^40");
        stride = B->elem_bytes;
        for (int i = T->rank - 1; i > 0; i--) {
            stride *= g->axes[T->axes[i]].extent;
            if (one > 1 && stride % 16)
                REFUSE("\"%s\": the stride of axis %s is %lld bytes; TMA needs a multiple of 16",
                       T->name, g->axes[T->axes[i - 1]].name, (long long)stride);
        }
        if (one == 1) {
            if (B->kind != PT_KBUF_RESIDENT || B->elem_bytes != 4)
                REFUSE("\"%s\": a single element per tile is generated for f32 prologue loads "
                       "only", T->name);
            char *f = sd->origin_flat[b];
            int64_t s = 1;
            snprintf(f, sizeof sd->origin_flat[b], "0");
            for (int i = T->rank - 1; i >= 0; i--) {
                int a = T->axes[i];
                if (sd->kp->sg->tile_grid[a] > 1) {
                    size_t n = strlen(f);
                    snprintf(f + n, sizeof sd->origin_flat[b] - n, " + (int64_t)g%d * %lld", a,
                             (long long)s);
                }
                s *= g->axes[a].extent;
            }
            sd->sh.flat[b] = f;
        } else if (b != sd->ring_src && b != sd->ring_b && b != kp->staging) {
            /* a vector along k for the CUDA cores: f32, every other axis a unit */
            if (T->dtype != PT_F32 || T->axes[T->rank - 1] != sd->ax_k || one != sd->BK ||
                B->kind != PT_KBUF_RING)
                REFUSE("\"%s\": besides A's tile and B, loads must be f32 vectors along %s (one "
                       "per %s block) or one f32 per tile", T->name, g->axes[sd->ax_k].name,
                       g->axes[sd->ax_k].name);
            sd->sh.plain_buf[b] = true;
        }
    }
    return true;
}

/* Each consumer task's body in the forms ssd_emit.c prints; values named by their form. */
static bool plan_tasks(sm90a_ssd *sd, pt_error *err)
{
    const pt_kprog *kp = sd->kp;
    const pt_graph *g = sd->g;
    for (int v = 0; v < kp->n_vals; v++) {
        const pt_kval *V = &kp->vals[v];
        if (V->kind == PT_KVAL_CARRIED) {
            if (V->tensor != sd->C)
                REFUSE("a value carried over the loop that is not the output (\"%s\")",
                       V->tensor >= 0 ? g->tensors[V->tensor].name : "an op's state");
            sd->vkind[v] = SSD_ACC;
            snprintf(sd->vname[v], sizeof sd->vname[v], "acc");
        } else {
            if (V->tensor < 0)
                REFUSE("a register value that holds no tensor (an op's internal state) in a "
                       "pointwise matmul kernel");
            sd->vkind[v] = V->tensor == sd->A ? SSD_AFRAG : SSD_KVEC;
            snprintf(sd->vname[v], sizeof sd->vname[v], "v%d_", v);
            if (V->tensor != sd->A) {
                const pt_tensor *T = &g->tensors[V->tensor];
                for (int i = 0; i < T->rank; i++)
                    if (T->axes[i] != sd->ax_k && sd->kp->sg->tiling.tile[T->axes[i]] != 1)
                        REFUSE("\"%s\" varies along %s inside a tile; pointwise values before "
                               "the matmul are vectors along %s", T->name,
                               g->axes[T->axes[i]].name, g->axes[sd->ax_k].name);
            }
        }
    }
    for (int w = 0; w < kp->wgs; w++) {
        const pt_krole *R = &kp->consumer[w];
        for (int i = 0; i < R->n_tasks; i++) {
            const pt_ktask *t = &R->tasks[i];
            const char *id = kp->sg->tasks[t->stask].id;
            if (t->body == PT_KB_MMA) {
                if (t->op != sd->op_mm)
                    REFUSE("%s: one matmul is generated", id);
                continue;
            }
            if (t->body != PT_KB_EWISE || !pointwise(g->ops[t->op].kind))
                REFUSE("%s (%s) has no generated body in this workload", id,
                       pt_kbody_name(t->body));
            if (g->ops[t->op].out == sd->A) {
                bool from_src = false;
                for (int k = 0; k < t->n_in; k++)
                    from_src |= t->in[k].kind == PT_KSRC_BUF && t->in[k].index == sd->ring_src;
                if (!from_src)
                    REFUSE("%s must read \"%s\" from its ring", id, g->tensors[sd->src].name);
            }
        }
        if (R->epilogue.body != PT_KB_CONVERT)
            REFUSE("warpgroup %d's epilogue must convert the accumulators", w);
    }
    return true;
}

/* Tile coordinates: one variable g<axis> per axis with more than one tile; origins. */
static void plan_shape(sm90a_ssd *sd)
{
    const pt_graph *g = sd->g;
    sm90a_shape *sh = &sd->sh;
    char *decl = sd->coord_decl, *args = sd->coord_args;
    decl[0] = args[0] = 0;
    sh->kp = sd->kp;
    sh->full_rank = true;
    sd->n_tiled = 0;
    for (int a = 0; a < g->n_axes; a++) {
        int64_t tile = sd->kp->sg->tiling.tile[a];
        snprintf(sh->size[a], sizeof sh->size[a], "%lld", (long long)tile);
        if (a == sd->ax_k) {
            snprintf(sh->size[a], sizeof sh->size[a], "BK");
            continue;
        }
        if (sd->kp->sg->tile_grid[a] <= 1)
            continue;
        sd->tiled[sd->n_tiled++] = a;
        if (tile == 1)
            snprintf(sh->origin[a], sizeof sh->origin[a], "g%d", a);
        else
            snprintf(sh->origin[a], sizeof sh->origin[a], "g%d * %lld", a, (long long)tile);
        size_t n = strlen(decl);
        snprintf(decl + n, sizeof sd->coord_decl - n, "%sg%d", n ? ", " : "int ", a);
        n = strlen(args);
        snprintf(args + n, sizeof sd->coord_args - n, "%sg%d", n ? ", " : "", a);
    }
    size_t n = strlen(decl);
    snprintf(decl + n, sizeof sd->coord_decl - n, "%s;", n ? "" : "int g_unused");
    if (!args[0])
        snprintf(args, sizeof sd->coord_args, "g_unused");
    sh->coord_decl = decl;
    sh->coord_args = args;
    sh->iters = "K_ITERS";
    for (int b = 0; b < sd->kp->n_bufs; b++) {
        int t = sd->kp->bufs[b].tensor;
        if (b == sd->ring_src)
            snprintf(sh->name[b], sizeof sh->name[b], "x");
        else if (b == sd->ring_b)
            snprintf(sh->name[b], sizeof sh->name[b], "b");
        else if (b == sd->kp->staging)
            snprintf(sh->name[b], sizeof sh->name[b], "c");
        else
            snprintf(sh->name[b], sizeof sh->name[b], "u%d", t);
    }
}

bool sm90a_ssd_plan(sm90a_ssd *sd, const pt_kprog *kp, pt_error *err)
{
    memset(sd, 0, sizeof *sd);
    sd->kp = kp;
    sd->g = kp->g;
    if (!plan_graph(sd, err) || !plan_tiles(sd, err) || !plan_buffers(sd, err) ||
        !plan_tasks(sd, err))
        return false;
    plan_shape(sd);
    return true;
}
