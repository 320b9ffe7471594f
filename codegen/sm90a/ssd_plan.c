/* ssd_plan.c — what the Hopper instructions need of a matmul whose A operand is made on the
 * consumers' CUDA cores each k block (Mamba2's ChunkState and ChunkScan, see ssd.h).
 *
 * The output C[batch..., m, n] is one 64 x n tile per consumer warpgroup at one batch index;
 * A is the product of a loaded tile (stored [k][m] or [m][k]) and a vector along k, built
 * straight into wgmma's register fragment (ldmatrix, scale, pack); the vectors come from
 * pointwise ops of loaded k-vectors and per-tile scalars; B is a loaded tile [k][n] (N-major,
 * the register-A wgmma's form). Tensors are mapped over every axis (shape.h: full_rank), since
 * x[b, c, l, h, p] has its tile's rows (l) outside a unit axis (h). ChunkScan adds a prologue
 * product of two resident tiles read K-major into the same accumulators (the epilogue's sum is
 * then the accumulators themselves), vectors along m (two rows per thread) and f32 m x k tiles
 * in the A fragment's order (the causal decay and the tile it scales). The consumer warpgroups
 * split the tile's rows, or take one index each of a batch axis (wg_axis: a CTA's heads, the
 * operands without that axis loaded once for all; under ChunkScan's causal decay every
 * warpgroup then runs the same k blocks, where split rows leave the later rows' warpgroup one
 * block more). With the sProgram's decay "factored" (src/decay_form.h) the decay is its column
 * factors (SSD_DCOLS), the tile's multiply only reads its fragment and the vector's scales it;
 * plan_factored_steps checks the step program lets a warp rescale its accumulators where the
 * decay starts, or before its next mma where a group may be in flight at the decay. */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "ssd.h"

#define REFUSE(...) return pt_fail(err, "codegen sm90a: " __VA_ARGS__)

static bool pointwise(pt_op_kind k)
{
    return k == PT_OP_ADD || k == PT_OP_SUB || k == PT_OP_MUL || k == PT_OP_DIV || k == PT_OP_EXP;
}

static bool ssd_op(pt_op_kind k)
{
    return pointwise(k) || k == PT_OP_EXP_DECAY;
}

bool sm90a_ssd_matches(const pt_graph *g)
{
    int mm = 0;
    for (int o = 0; o < g->n_ops; o++) {
        if (g->ops[o].kind == PT_OP_MATMUL)
            mm++;
        else if (!ssd_op(g->ops[o].kind))
            return false;
    }
    if (g->n_ops < 2)
        return false;
    pt_op_kind last = g->ops[g->n_ops - 1].kind;
    return (mm == 1 && last == PT_OP_MATMUL) || (mm == 2 && last == PT_OP_ADD);
}

bool sm90a_ssd_check_shape(const pt_graph *g, pt_error *err)
{
    for (int o = 0; o < g->n_ops; o++) {
        const pt_op *d = &g->ops[o];
        if (d->kind != PT_OP_EXP_DECAY || !d->causal)
            continue;
        const pt_axis *r = &g->axes[d->row_axis];
        if (r->extent % 64)
            return pt_fail(err, "codegen sm90a: %s=%lld, the rows of the causal %s \"%s\" "
                                "(ChunkScan's chunk length): expected a multiple of 64 (each "
                                "consumer warpgroup's wgmma takes 64 of them, and the causal walk "
                                "has no partial blocks)",
                           r->name, (long long)r->extent, pt_op_kind_name(d->kind), d->name);
    }
    return true;
}

/* Does op reduce over axis a? */
static bool reduces(const pt_op *op, int a)
{
    return op->n_reduce == 1 && op->reduce_axes[0] == a;
}

static bool plan_src(sm90a_ssd *sd, pt_error *err);

static bool plan_graph(sm90a_ssd *sd, pt_error *err)
{
    const pt_graph *g = sd->g;
    int loop = sd->kp->sg->loop_axis;
    sd->op_mm = sd->op_pro = sd->op_decay = -1;
    for (int o = 0; o < g->n_ops; o++) {
        const pt_op *op = &g->ops[o];
        if (op->kind == PT_OP_EXP_DECAY) {
            if (sd->op_decay >= 0)
                REFUSE("two exp_decay ops (\"%s\" and \"%s\"); one is generated",
                       g->ops[sd->op_decay].name, op->name);
            sd->op_decay = o;
        }
        if (op->kind != PT_OP_MATMUL)
            continue;
        if (loop >= 0 && reduces(op, loop))
            sd->op_mm = o;
        else
            sd->op_pro = o;
    }
    if (sd->op_mm < 0) {
        /* one matmul, not over the loop: name what the loop runs over */
        const pt_op *mm = &g->ops[sd->op_pro];
        REFUSE("the loop runs over %s; expected the matmul's reduction axis %s",
               loop >= 0 ? g->axes[loop].name : "nothing",
               mm->n_reduce > 0 ? g->axes[mm->reduce_axes[0]].name : "(none)");
    }
    sd->scan = sd->op_pro >= 0;
    if (pt_decay_is_factored(sd->kp->p->decay)) {
        if (!pt_decay_chain_find(g, &sd->chain, err))
            return false;
        if (sd->chain.op_decay != sd->op_decay || sd->chain.op_matmul != sd->op_mm)
            REFUSE("decay \"factored\": exp_decay \"%s\" must feed the loop's matmul \"%s\"",
                   g->ops[sd->chain.op_decay].name, g->ops[sd->op_mm].name);
        sd->factored = true;
    }
    /* the prologue product's resident operands (plan_pro checks them), -1 without one */
    sd->res_a = sd->res_b = -1;
    if (sd->scan && g->ops[sd->op_pro].n_in == 2) {
        sd->res_a = pt_kprog_buf_of(sd->kp, g->ops[sd->op_pro].in[0]);
        sd->res_b = pt_kprog_buf_of(sd->kp, g->ops[sd->op_pro].in[1]);
    }
    const pt_op *mm = &g->ops[sd->op_mm];
    if (mm->n_in != 2 || mm->n_reduce != 1)
        REFUSE("matmul \"%s\" must reduce one axis of two operands", mm->name);
    sd->A = mm->in[0];
    sd->B = mm->in[1];
    sd->C = mm->out;
    sd->out = sd->C;
    if (sd->scan) {
        /* the stored tensor is the epilogue's sum of the loop's product and the prologue's */
        const pt_op *last = &g->ops[g->n_ops - 1];
        int other = last->n_in == 2 ? (last->in[0] == sd->C ? last->in[1] : last->in[0]) : -1;
        if (last->kind != PT_OP_ADD || last->n_in != 2 || (last->in[0] != sd->C && last->in[1] != sd->C) ||
            other == sd->C)
            REFUSE("\"%s\": expected the last op to add matmul \"%s\"'s result to the prologue's",
                   last->name, mm->name);
        sd->out = last->out;
    }
    const pt_tensor *A = &g->tensors[sd->A], *B = &g->tensors[sd->B], *C = &g->tensors[sd->C];
    if (C->rank < 2)
        REFUSE("the output \"%s\" has %d axes; expected at least 2", C->name, C->rank);
    sd->ax_k = mm->reduce_axes[0];
    sd->ax_n = C->axes[C->rank - 1];
    /* rows of the product: the axis of C that A has and that is no batch axis */
    sd->ax_m = -1;
    for (int i = 0; i + 1 < C->rank; i++) {
        int a = C->axes[i];
        if (!g->axes[a].batch && pt_tensor_has_axis(A, a)) {
            if (sd->ax_m >= 0)
                REFUSE("matmul \"%s\": A and the output share two axes that are no batch axes (%s "
                       "and %s); expected one row axis", mm->name, g->axes[sd->ax_m].name,
                       g->axes[a].name);
            sd->ax_m = a;
        }
    }
    if (sd->ax_m < 0 || pt_tensor_has_axis(B, sd->ax_m) || !pt_tensor_has_axis(B, sd->ax_n) ||
        pt_tensor_has_axis(A, sd->ax_n) || !pt_tensor_has_axis(A, sd->ax_k) ||
        !pt_tensor_has_axis(B, sd->ax_k))
        REFUSE("matmul \"%s\": expected A with a row axis and %s, B with %s and %s, and the "
               "output's last axis %s", mm->name, g->axes[sd->ax_k].name, g->axes[sd->ax_k].name,
               g->axes[sd->ax_n].name, g->axes[sd->ax_n].name);
    /* [..., k, n], or axes of one element per tile between them (x[b, c, s, h, p]): the box
     * of every axis lays the tile out as k rows of n either way; the axis the warpgroups split
     * may lie between them too (its map puts it outside k: plan_map) */
    int kpos = B->rank - 2;
    while (kpos > 0 && B->axes[kpos] != sd->ax_k &&
           (sd->kp->sg->tiling.tile[B->axes[kpos]] == 1 || B->axes[kpos] == sd->ax_wg))
        kpos--;
    if (B->rank < 2 || B->axes[B->rank - 1] != sd->ax_n || kpos < 0 || B->axes[kpos] != sd->ax_k)
        REFUSE("B (\"%s\") must be [..., %s, %s]: the register-A wgmma reads B N-major", B->name,
               g->axes[sd->ax_k].name, g->axes[sd->ax_n].name);
    sd->in_dt = B->dtype;
    sd->out_dt = g->tensors[sd->out].dtype;
    if ((B->dtype != PT_F16 && B->dtype != PT_BF16) || A->dtype != B->dtype)
        REFUSE("A (\"%s\") and B (\"%s\") must both be f16 or both bf16", A->name, B->name);
    if (sd->out_dt != PT_F32 && sd->out_dt != PT_F16 && sd->out_dt != PT_BF16)
        REFUSE("the output \"%s\" must be f32, f16 or bf16", g->tensors[sd->out].name);
    if (pt_kprog_buf_of(sd->kp, sd->A) >= 0 || pt_graph_producer(g, sd->A) < 0)
        REFUSE("A (\"%s\") must be made on the CUDA cores from a loaded tile", A->name);
    if (!plan_src(sd, err))
        return false;
    sd->M = g->axes[sd->ax_m].extent;
    sd->N = g->axes[sd->ax_n].extent;
    sd->K = g->axes[sd->ax_k].extent;
    const pt_tiling *t = &sd->kp->sg->tiling;
    sd->BM = t->tile[sd->ax_m];
    sd->BN = t->tile[sd->ax_n];
    sd->BK = t->tile[sd->ax_k];
    return true;
}

/* The loaded tile A is made from (the one input with both A's row axis and k), its layout, and
 * the decay's axes. */
static bool plan_src(sm90a_ssd *sd, pt_error *err)
{
    const pt_graph *g = sd->g;
    const pt_tensor *A = &g->tensors[sd->A];
    sd->src = -1;
    for (int t = 0; t < g->n_tensors; t++) {
        const pt_tensor *T = &g->tensors[t];
        if (T->role != PT_ROLE_INPUT || t == sd->B || !pt_tensor_has_axis(T, sd->ax_m) ||
            !pt_tensor_has_axis(T, sd->ax_k))
            continue;
        if (sd->src >= 0)
            REFUSE("two inputs with axes %s and %s (\"%s\", \"%s\"); A is made from one loaded tile",
                   g->axes[sd->ax_m].name, g->axes[sd->ax_k].name, g->tensors[sd->src].name, T->name);
        sd->src = t;
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
    if (sd->op_decay >= 0) {
        const pt_op *d = &g->ops[sd->op_decay];
        if (d->n_in != 2 || d->row_axis != sd->ax_m || d->col_axis != sd->ax_k)
            REFUSE("exp_decay \"%s\": expected rows %s and columns %s of two vectors", d->name,
                   g->axes[sd->ax_m].name, g->axes[sd->ax_k].name);
    }
    return true;
}

/* ChunkScan's prologue product: two resident tiles read K-major over an axis loaded whole. */
static bool plan_pro(sm90a_ssd *sd, pt_error *err)
{
    const pt_graph *g = sd->g;
    const pt_op *op = &g->ops[sd->op_pro];
    if (op->n_in != 2 || op->n_reduce != 1)
        REFUSE("matmul \"%s\" must reduce one axis of two operands", op->name);
    sd->ax_pk = op->reduce_axes[0];
    const pt_tensor *PA = &g->tensors[op->in[0]], *PB = &g->tensors[op->in[1]];
    const pt_tensor *Y = &g->tensors[op->out];
    if (!pt_tensor_has_axis(Y, sd->ax_m) || !pt_tensor_has_axis(Y, sd->ax_n) ||
        !pt_tensor_has_axis(PA, sd->ax_m) || !pt_tensor_has_axis(PB, sd->ax_n) ||
        PA->axes[PA->rank - 1] != sd->ax_pk || PB->axes[PB->rank - 1] != sd->ax_pk)
        REFUSE("prologue matmul \"%s\": expected [..., %s, %s] . [..., %s, %s] -> %s x %s (both "
               "operands K-major)", op->name, g->axes[sd->ax_m].name, g->axes[sd->ax_pk].name,
               g->axes[sd->ax_n].name, g->axes[sd->ax_pk].name, g->axes[sd->ax_m].name,
               g->axes[sd->ax_n].name);
    if (PA->dtype != sd->in_dt || PB->dtype != sd->in_dt)
        REFUSE("prologue matmul \"%s\": \"%s\" and \"%s\" must be %s like the loop's operands",
               op->name, PA->name, PB->name, pt_dtype_name(sd->in_dt));
    /* a state size under 64 (d_state 16 or 32) is read as one 64-column atom: TMA fills the
     * columns past its end with zeros, which add nothing to the sum */
    int64_t ext = g->axes[sd->ax_pk].extent;
    sd->PK = sd->kp->sg->tiling.tile[sd->ax_pk];
    if (sd->PK != ext && !(ext < 64 && sd->PK == 64))
        REFUSE("prologue matmul \"%s\": tile %s=%lld; expected the whole axis (%lld%s), loaded "
               "once per tile", op->name, g->axes[sd->ax_pk].name, (long long)sd->PK,
               (long long)ext, ext < 64 ? ", or 64 holding it" : "");
    if (sd->PK % 64)
        REFUSE("prologue matmul \"%s\": %s = %lld; expected a multiple of 64 (128-byte swizzle "
               "atoms of K-major operands)", op->name, g->axes[sd->ax_pk].name, (long long)sd->PK);
    /* every warpgroup's product a tile ahead, or none (src/validate.c checks the rest) */
    const pt_kprog *kp = sd->kp;
    int ahead = 0, on = 0;
    for (int w = 0; w < kp->wgs; w++)
        for (int i = 0; i < kp->consumer[w].n_pro; i++)
            if (kp->consumer[w].pro[i].op == sd->op_pro) {
                on++;
                ahead += kp->consumer[w].pro[i].offset == 1;
            }
    if (ahead > 0 && ahead != on)
        REFUSE("prologue matmul \"%s\": %d of its %d warpgroups' sTasks are issued a tile ahead "
               "(offset 1); expected every one or none", op->name, ahead, on);
    if (ahead > 0 && (!kp->persistent || kp->dynamic || kp->stream_k || kp->split_k > 1))
        REFUSE("prologue matmul \"%s\" issued a tile ahead (offset 1): expected a persistent CTA "
               "walking its tiles in a fixed order (not %s)", op->name,
               !kp->persistent ? "one tile a CTA" : kp->dynamic ? "tiles handed out by an atomic"
               : kp->stream_k ? "stream-K" : "split-K");
    sd->pro_ahead = ahead > 0;
    if (sd->res_a < 0 || sd->res_b < 0 || sd->kp->bufs[sd->res_a].kind != PT_KBUF_RESIDENT ||
        sd->kp->bufs[sd->res_b].kind != PT_KBUF_RESIDENT)
        REFUSE("prologue matmul \"%s\": \"%s\" and \"%s\" must be loaded once per tile (prologue "
               "loads)", op->name, PA->name, PB->name);
    for (int i = 0; i < 2; i++) {
        int b = i ? sd->res_b : sd->res_a;
        const pt_tensor *T = &g->tensors[sd->kp->bufs[b].tensor];
        int64_t rows = (i ? sd->BN : sd->BM) *
                       (sd->ax_wg >= 0 && pt_tensor_has_axis(T, sd->ax_wg) ? sd->wgs : 1), one = 1;
        const pt_stask *st = &sd->kp->sg->tasks[sd->kp->bufs[b].stask];
        for (int k = 0; k < T->rank; k++)
            one *= st->tile[k];
        if (one != rows * sd->PK)
            REFUSE("prologue matmul \"%s\": the tile of \"%s\" has %lld elements; expected %lld rows "
                   "of %lld (every other axis a unit)", op->name, T->name, (long long)one,
                   (long long)rows, (long long)sd->PK);
    }
    return true;
}

/* Buffer b's map (shape.h dims, span): the tensor's axes innermost first, except that
 * (reorder) the batch axis the warpgroups split moves outside the tile's other rows where wgmma
 * reads b with descriptors or b stages the output, so each warpgroup's batch index is a block
 * of whole rows (wg_rows of them) rather than rows interleaved with the other warpgroups'; and
 * that a tensor of more than TMA's 5 axes has adjacent axes of one element per tile merged,
 * outermost first (Mamba2 with ngroups: x[b, c, l, g, hg, p] maps (b, c) as one). */
static bool plan_map(sm90a_ssd *sd, int b, bool reorder, pt_error *err)
{
    const pt_kprog *kp = sd->kp;
    const pt_tensor *T = &sd->g->tensors[kp->bufs[b].tensor];
    const pt_stask *st = &kp->sg->tasks[kp->bufs[b].stask];
    const int64_t *tile = kp->sg->tiling.tile;
    int wpos = -1, outer = -1;
    for (int i = 0; i < T->rank; i++) {
        if (T->axes[i] == sd->ax_wg)
            wpos = i;
        else if (outer < 0 && tile[T->axes[i]] > 1 && i < T->rank - 1)
            outer = i;  /* the outermost of the tile's other rows */
    }
    bool move = reorder && wpos >= 0 && outer >= 0 && wpos > outer;
    int L[PT_MAX_RANK + 1], span[PT_MAX_RANK + 1], n = 0;
    for (int i = T->rank - 1; i >= 0; i--) {
        if (move && i == wpos)
            continue;
        L[n] = i, span[n++] = 1;
        if (move && i == outer)
            L[n] = wpos, span[n++] = 1;
    }
    bool merged = false;
    /* a tensor storing a sequence cut into ragged pieces (graph.h: S not a multiple of L, the
     * last chunk shorter): the pair (c, l) is one map dimension of the sequence's S rows, at
     * c * L + l, where it stands in the map's order; TMA zero-fills the rows past the end and
     * drops stores there */
    int r = pt_tensor_ragged_pos(sd->g, T);
    if (r > 0) {
        int j = -1, k = -1;
        for (int d = 0; d < n; d++) {
            if (L[d] == r)
                j = d;
            if (L[d] == r - 1)
                k = d;
        }
        if (j < 0 || k < 0 || k < j)
            REFUSE("\"%s\": its pieces (%s, %s) cannot be mapped as one dimension of the sequence",
                   T->name, sd->g->axes[T->axes[r - 1]].name, sd->g->axes[T->axes[r]].name);
        span[j] = 2;
        for (int d = k; d + 1 < n; d++)
            L[d] = L[d + 1], span[d] = span[d + 1];
        n--;
        merged = true;
    }
    while (n > 5) {
        int j = n - 2;  /* the outermost pair of neighbours in storage, unit tiles, not split */
        for (; j >= 1; j--) {
            bool ok = L[j + 1] == L[j] - span[j];
            for (int k = 0; k < span[j] + span[j + 1] && ok; k++) {
                int i = L[j] - k;
                ok = st->tile[i] == 1 && T->axes[i] != sd->ax_wg;
            }
            if (ok)
                break;
        }
        if (j < 1)
            REFUSE("\"%s\" has %d axes and no neighbouring axes of one element per tile to map as "
                   "one; TMA maps at most 5", T->name, T->rank);
        span[j] += span[j + 1];
        for (int k = j + 1; k + 1 < n; k++)
            L[k] = L[k + 1], span[k] = span[k + 1];
        n--;
        merged = true;
    }
    if (move || merged) {
        sd->sh.n_dims[b] = n;
        for (int d = 0; d < n; d++)
            sd->sh.dims[b][d] = L[d], sd->sh.span[b][d] = span[d];
    }
    if (wpos >= 0 && reorder) {
        int64_t rows = 1;
        for (int d = 1; d < n && L[d] != wpos; d++)
            rows *= tile[T->axes[L[d]]];
        sd->wg_rows[b] = rows;
    }
    return true;
}

static bool plan_tiles(sm90a_ssd *sd, pt_error *err)
{
    const pt_graph *g = sd->g;
    sd->wgs = sd->kp->wgs;
    if (sd->ax_wg >= 0) {
        const char *bn = g->axes[sd->ax_wg].name;
        if (pt_tensor_has_axis(&g->tensors[sd->src], sd->ax_wg) && (sd->scan || sd->op_decay >= 0))
            REFUSE("warpgroups on batch axis %s: \"%s\", which the CUDA cores read as an f32 tile, "
                   "has that axis; expected it shared by the warpgroups (as Mamba2's CB)", bn,
                   g->tensors[sd->src].name);
        if (sd->BM != 64)
            REFUSE("warpgroups on batch axis %s: tile %s=%lld; expected 64 rows (each warpgroup one "
                   "m64 wgmma block of its own batch index)", bn, g->axes[sd->ax_m].name,
                   (long long)sd->BM);
        if (sd->kp->sg->tiling.tile[sd->ax_wg] != sd->wgs)
            REFUSE("warpgroups on batch axis %s: tile %s=%lld with %d consumer warpgroups; expected "
                   "one batch index per warpgroup", bn, bn,
                   (long long)sd->kp->sg->tiling.tile[sd->ax_wg], sd->wgs);
    } else if (sd->BM != 64 * sd->wgs)
        REFUSE("tile %s=%lld with %d consumer warpgroup(s); expected 64 rows per warpgroup (one "
               "m64 wgmma block)", g->axes[sd->ax_m].name, (long long)sd->BM, sd->wgs);
    if (sd->BN % 64 || sd->BN > 256)
        REFUSE("tile %s=%lld; expected a multiple of 64 up to 256 (wgmma N, 128-byte atoms of B)",
               g->axes[sd->ax_n].name, (long long)sd->BN);
    if (sd->BK % 16 || sd->BK > 256)
        REFUSE("tile %s=%lld; expected a multiple of 16 up to 256 (k16 steps)",
               g->axes[sd->ax_k].name, (long long)sd->BK);
    if (!sd->src_mn_major && sd->BK % 64)
        REFUSE("tile %s=%lld: \"%s\" is read with %s innermost in 128-byte swizzled rows; expected "
               "a multiple of 64", g->axes[sd->ax_k].name, (long long)sd->BK,
               g->tensors[sd->src].name, g->axes[sd->ax_k].name);
    if (sd->out_dt == PT_F32 ? sd->BN % 32 : sd->BN % 64)
        REFUSE("tile %s=%lld: the output is stored in 128-byte boxes", g->axes[sd->ax_n].name,
               (long long)sd->BN);
    const pt_tensor *C = &g->tensors[sd->out];
    if (!pt_tensor_has_axis(C, sd->ax_m) || C->axes[C->rank - 1] != sd->ax_n)
        REFUSE("the output \"%s\" must have %s and end in %s", C->name,
               g->axes[sd->ax_m].name, g->axes[sd->ax_n].name);
    for (int i = 0; i < C->rank; i++)
        if (C->axes[i] != sd->ax_m && C->axes[i] != sd->ax_n && C->axes[i] != sd->ax_wg &&
            sd->kp->sg->tiling.tile[C->axes[i]] != 1)
            REFUSE("the output's batch axis %s has tile %lld; expected 1 (one batch index per "
                   "tile)", g->axes[C->axes[i]].name,
                   (long long)sd->kp->sg->tiling.tile[C->axes[i]]);
    if (sd->ax_wg >= 0) {
        /* the staging tile's rows are (batch index, m) in the map's order (plan_map): each
         * warpgroup stages 64 whole rows */
        int st = sd->kp->staging, pos[5], nd = sm90a_map_dims(&sd->sh, st, pos);
        int64_t between = 1;
        bool found = false, m_next = false;
        for (int d = 1; d < nd && !found; d++) {
            int a = C->axes[pos[d]];
            if (a == sd->ax_wg)
                found = true;
            else
                between *= sd->kp->sg->tiling.tile[a];
            if (a == sd->ax_m)
                m_next = between == sd->BM;
        }
        if (!found || between != sd->BM || !m_next)
            REFUSE("warpgroups on batch axis %s: the output \"%s\" must have %s outside %s and %s "
                   "with the axes between them of one element per tile (each warpgroup stages 64 "
                   "whole rows)", g->axes[sd->ax_wg].name, C->name, g->axes[sd->ax_wg].name,
                   g->axes[sd->ax_m].name, g->axes[sd->ax_n].name);
    }
    if (sd->scan && (sd->M % sd->BM || sd->K % sd->BK))
        REFUSE("tiles %s=%lld, %s=%lld must divide %s=%lld and %s=%lld (the causal walk has no "
               "partial blocks)", g->axes[sd->ax_m].name, (long long)sd->BM,
               g->axes[sd->ax_k].name, (long long)sd->BK, g->axes[sd->ax_m].name,
               (long long)sd->M, g->axes[sd->ax_k].name, (long long)sd->K);
    /* Staged over a resident tile of the prologue product, each warpgroup's output rows must
     * fall in rows of it that only that warpgroup reads: the row operand's rows of its own
     * (warpgroups on the rows), or its batch index's rows of the other operand (warpgroups on
     * a batch axis: out[h][l][p] over states[h][p][n] when the tile has as many l as p rows). */
    int over = sd->kp->bufs[sd->kp->staging].over;
    if (over >= 0) {
        bool own = sd->ax_wg < 0 ? over == sd->res_a
                                 : over == sd->res_b && sd->wg_rows[over] == sd->BN && sd->BM == sd->BN;
        if (!own)
            REFUSE("the output tile is staged over \"%s\"%s; stage it apart (partition.staging)%s",
                   g->tensors[sd->kp->bufs[over].tensor].name,
                   sd->ax_wg >= 0 ? ", which the warpgroups' rows do not split" : "",
                   !sd->scan ? "" : sd->ax_wg < 0 ? " or over the prologue product's row operand"
                                                  : " or over its other operand with tiles "
                                                    "of as many rows as columns");
    }
    if (sd->kp->split_k > 1)
        REFUSE("split-K is not generated for this workload (partition.split_k = %d)",
               sd->kp->split_k);
    if (sd->kp->stream_k)
        REFUSE("stream-K is not generated for this workload (partition.stream_k = %d)",
               sd->kp->stream_k);
    /* the accumulators, and for f32 tiles in fragment order (ChunkScan) one such tile and the
     * A fragment live at once (the pointwise ops are fused as the compiler goes) */
    int acc = (int)sd->BN / 2;
    int need = sd->op_decay >= 0 || sd->scan ? acc + (int)(sd->BK / 16) * 12 + 48 : acc + 56;
    for (int w = 0; w < sd->wgs; w++)
        if (sd->kp->consumer[w].regs < need)
            REFUSE("consumer warpgroup %d has %d registers per thread; its %d accumulators and "
                   "fragments need at least %d", w, sd->kp->consumer[w].regs, acc, need);
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
        if (B->staged)
            REFUSE("rows of \"%s\" are not a multiple of 16 bytes (%s = %lld); TMA needs 16-byte "
                   "strides and this workload is not staged through aligned copies", T->name,
                   g->axes[T->axes[T->rank - 1]].name,
                   (long long)g->axes[T->axes[T->rank - 1]].extent);
        int64_t one = 1, stride = B->elem_bytes;
        for (int i = 0; i < T->rank; i++)
            one *= st->tile[i];
        /* one f32 per warpgroup's batch index: a 1-D map, 16-byte boxes around each */
        bool per_wg = sd->ax_wg >= 0 && pt_tensor_has_axis(T, sd->ax_wg);
        bool flat_wg = per_wg && one == sd->wgs && B->kind == PT_KBUF_RESIDENT;
        for (int i = T->rank - 1; i >= 0; i--)  /* TMA: strides below 2^40 bytes */
            if (__builtin_mul_overflow(stride, g->axes[T->axes[i]].extent, &stride) ||
                stride >= (1LL << 40))
                REFUSE("\"%s\" spans %s bytes or more; TMA strides must stay below 2^40",
                       T->name, "2^40");
        stride = B->elem_bytes;
        for (int i = T->rank - 1; i > 0; i--) {
            stride *= g->axes[T->axes[i]].extent;
            if (one > 1 && !flat_wg && stride % 16)
                REFUSE("\"%s\": the stride of axis %s is %lld bytes; TMA needs a multiple of 16",
                       T->name, g->axes[T->axes[i - 1]].name, (long long)stride);
        }
        /* elements between the batch indices of the warpgroups in this buffer's box */
        if (per_wg) {  /* along the map's dimensions (plan_map) */
            int pos[5], nd = sm90a_map_dims(&sd->sh, b, pos);
            int64_t e = 1;
            for (int d = 0; d < nd && T->axes[pos[d]] != sd->ax_wg; d++)
                e *= st->tile[pos[d]];
            sd->wg_off[b] = e;
        }
        if (one == 1 || flat_wg) {
            if (B->kind != PT_KBUF_RESIDENT || B->elem_bytes != 4)
                REFUSE("\"%s\": a single element per tile is generated for f32 prologue loads "
                       "only", T->name);
            if (flat_wg && B->pitch < 128 * sd->wgs)
                REFUSE("\"%s\": %lld bytes of shared memory for %d warpgroups' boxes (128-byte "
                       "aligned each)",
                       T->name, (long long)B->pitch, sd->wgs);
            char *f = sd->origin_flat[b];
            int64_t s = 1;
            snprintf(f, sizeof sd->origin_flat[b], "0");
            for (int i = T->rank - 1; i >= 0; i--) {
                int a = T->axes[i];
                int64_t per_tile = a == sd->ax_wg && per_wg ? sd->wgs : 1;
                if (a == sd->ax_wg && per_wg)
                    sd->sh.flat_stride[b] = s;
                if (sd->kp->sg->tile_grid[a] > 1) {
                    size_t n = strlen(f);
                    snprintf(f + n, sizeof sd->origin_flat[b] - n, " + (int64_t)g%d * %lld", a,
                             (long long)(s * per_tile));
                }
                s *= g->axes[a].extent;
            }
            sd->sh.flat[b] = f;
            sd->sh.flat_count[b] = per_wg ? sd->wgs : 1;
        } else if (sd->scan && B->kind == PT_KBUF_RESIDENT && T->dtype == PT_F32 &&
                   T->axes[T->rank - 1] == sd->ax_m && one == sd->BM * (per_wg ? sd->wgs : 1)) {
            /* a vector along m: each thread reads its two rows into registers */
            sd->mvec_buf[b] = true;
            sd->sh.plain_buf[b] = true;
        } else if (b != sd->ring_src && b != sd->ring_b && b != kp->staging &&
                   !(sd->scan && (b == sd->res_a || b == sd->res_b))) {
            /* a vector along k for the CUDA cores: f32, every other axis a unit */
            if (T->dtype != PT_F32 || T->axes[T->rank - 1] != sd->ax_k ||
                one != sd->BK * (per_wg ? sd->wgs : 1) || B->kind != PT_KBUF_RING)
                REFUSE("\"%s\": besides A's tile and B, loads must be f32 vectors along %s (one "
                       "per %s block)%s or one f32 per tile", T->name, g->axes[sd->ax_k].name,
                       g->axes[sd->ax_k].name, sd->scan ? ", f32 vectors along the rows (once per tile)" : "");
            sd->sh.plain_buf[b] = true;
        }
        if (b == sd->ring_src) {
            /* 128-byte rows of the box per step of the row coordinate and per batch index: the
             * tile's axes between its innermost and each (units when one batch index) */
            int row_ax = sd->src_mn_major ? sd->ax_k : sd->ax_m;
            int64_t e = 1;
            sd->x_rows = sd->x_wg_rows = 0;
            for (int i = T->rank - 2; i >= 0; i--) {
                if (T->axes[i] == row_ax)
                    sd->x_rows = e;
                if (T->axes[i] == sd->ax_wg)
                    sd->x_wg_rows = e;
                e *= st->tile[i];
            }
        }
    }
    return true;
}

/* What a value holds, from its tensor's axes (ssd.h). */
static bool classify(sm90a_ssd *sd, int v, pt_error *err)
{
    const pt_kprog *kp = sd->kp;
    const pt_graph *g = sd->g;
    const pt_kval *V = &kp->vals[v];
    if (V->kind == PT_KVAL_CARRIED) {
        if (V->tensor != sd->C)
            REFUSE("a value carried over the loop that is not the output (\"%s\")",
                   V->tensor >= 0 ? g->tensors[V->tensor].name : "an op's state");
        sd->vkind[v] = SSD_ACC;
        snprintf(sd->vname[v], sizeof sd->vname[v], "acc");
        return true;
    }
    if (V->tensor < 0)
        REFUSE("a register value that holds no tensor (an op's internal state) in a pointwise "
               "matmul kernel");
    const pt_tensor *T = &g->tensors[V->tensor];
    bool m = false, k = false, n = false;
    for (int i = 0; i < T->rank; i++) {
        int a = T->axes[i];
        m |= a == sd->ax_m;
        k |= a == sd->ax_k;
        n |= a == sd->ax_n;
        /* a warpgroup holds one batch index of the axis the warpgroups split */
        if (a != sd->ax_m && a != sd->ax_k && a != sd->ax_n && a != sd->ax_wg &&
            kp->sg->tiling.tile[a] != 1)
            REFUSE("\"%s\" varies along %s inside a tile; pointwise values before the matmul are "
                   "vectors along %s", T->name, g->axes[a].name, g->axes[sd->ax_k].name);
    }
    snprintf(sd->vname[v], sizeof sd->vname[v], "v%d_", v);
    if (sd->factored && V->tensor == g->ops[sd->chain.op_decay].out)
        sd->vkind[v] = SSD_DCOLS;
    else if (sd->factored && V->tensor == g->ops[sd->chain.op_tile].out)
        sd->vkind[v] = SSD_AFRAG;  /* the tile's fragment as stored */
    else if (V->tensor == sd->A)
        sd->vkind[v] = SSD_AFRAG;
    else if (sd->scan && m && n && !k) {
        sd->vkind[v] = SSD_ACC;  /* the prologue's product and what scales it */
        snprintf(sd->vname[v], sizeof sd->vname[v], "acc");
    } else if (m && k && !n && (sd->scan || sd->op_decay >= 0))
        sd->vkind[v] = SSD_ATILE;
    else if (k && !m && !n)
        sd->vkind[v] = SSD_KVEC;
    else if (m && !k && !n && sd->scan)
        sd->vkind[v] = SSD_MVEC;
    else
        REFUSE("\"%s\" varies along %s%s%s inside a tile; pointwise values before the matmul are "
               "vectors along %s", T->name, m ? g->axes[sd->ax_m].name : "",
               m && (k || n) ? " and " : "", n ? g->axes[sd->ax_n].name : k ? g->axes[sd->ax_k].name : "",
               g->axes[sd->ax_k].name);
    return true;
}

/* The form of operand k of task t: a value's kind, or what a buffer holds. */
static int operand_kind(const sm90a_ssd *sd, const pt_ktask *t, int k)
{
    const pt_ksrc *s = &t->in[k];
    if (s->kind == PT_KSRC_VAL)
        return sd->vkind[s->index];
    const pt_kbuf *B = &sd->kp->bufs[s->index];
    if (sd->mvec_buf[s->index] || (B->kind == PT_KBUF_RESIDENT && sd->sh.flat[s->index]))
        return SSD_MVEC;  /* in registers; a scalar broadcasts like a vector along m */
    if (s->index == sd->ring_src)
        return -1;        /* the loaded tile */
    if (B->kind == PT_KBUF_RING && sd->sh.plain_buf[s->index])
        return SSD_KVEC;
    return -2;            /* a tile no CUDA-core op reads */
}

/* A task of the factored decay's chain (ssd.h): exp_decay from the rows in registers (the
 * pivot reads them before the loop) and a vector along k; the tile's fragment; the fragment
 * scaled by the column factors and a vector along k. */
static bool plan_factored_task(const sm90a_ssd *sd, const pt_ktask *t, pt_error *err)
{
    const pt_graph *g = sd->g;
    const char *id = sd->kp->sg->tasks[t->stask].id;
    const char *m = g->axes[sd->ax_m].name, *k = g->axes[sd->ax_k].name;
    bool ok = t->out >= 0 && t->n_in == 2;
    if (t->op == sd->chain.op_decay)
        ok = ok && sd->vkind[t->out] == SSD_DCOLS && operand_kind(sd, t, 0) == SSD_MVEC &&
             t->in[0].kind == PT_KSRC_BUF && sd->mvec_buf[t->in[0].index] &&
             operand_kind(sd, t, 1) == SSD_KVEC;
    else if (t->op == sd->chain.op_tile)
        ok = ok && sd->vkind[t->out] == SSD_AFRAG &&
             ((operand_kind(sd, t, 0) == -1 && operand_kind(sd, t, 1) == SSD_DCOLS) ||
              (operand_kind(sd, t, 1) == -1 && operand_kind(sd, t, 0) == SSD_DCOLS));
    else
        ok = ok && g->ops[t->op].out == sd->A &&
             ((operand_kind(sd, t, 0) == SSD_AFRAG && operand_kind(sd, t, 1) == SSD_KVEC) ||
              (operand_kind(sd, t, 1) == SSD_AFRAG && operand_kind(sd, t, 0) == SSD_KVEC));
    if (!ok)
        REFUSE("%s: the factored decay is generated from a vector along %s loaded once per tile "
               "and one along %s (exp_decay), the loaded \"%s\" times it, then that times a "
               "vector along %s into the A fragment", id, m, k, g->tensors[sd->src].name, k);
    return true;
}

/* The factored decay's chain on each consumer: its three tasks in one step (one offset, in
 * data order), so the column factors exp_decay writes are those the last one reads. A warp whose
 * k block leaves the factored range multiplies its accumulators back (pt::decay_cols): at once
 * where no wgmma group is in flight when exp_decay starts; where one may be (the chain an
 * iteration ahead of the mma), just before the warpgroup's next mma, which must then find every
 * group complete (a wait for all of them between the two), since the multiply writes the
 * accumulators the groups in flight add to. */
static bool plan_factored_steps(sm90a_ssd *sd, pt_error *err)
{
    const pt_kprog *kp = sd->kp;
    for (int w = 0; w < kp->wgs; w++) {
        const pt_krole *R = &kp->consumer[w];
        int pos[3] = {-1, -1, -1}, ops[3] = {sd->chain.op_decay, sd->chain.op_tile, sd->chain.op_vec};
        for (int i = 0; i < R->n_tasks; i++)
            for (int c = 0; c < 3; c++)
                if (R->tasks[i].op == ops[c] && R->tasks[i].body != PT_KB_MMA)
                    pos[c] = i;
        if (pos[0] < 0 || pos[1] < 0 || pos[2] < 0)
            REFUSE("warpgroup %d: the factored decay needs exp_decay and both multiplies in its "
                   "loop", w);
        const pt_ktask *d = &R->tasks[pos[0]];
        /* one k block's three in one step, or the last of them (the fragment) one iteration
         * behind and first in the step: it still reads the decay state of its own block */
        int off = d->offset, vec = R->tasks[pos[2]].offset;
        bool same = vec == off && pos[1] < pos[2], behind = vec == off - 1 && pos[2] < pos[0];
        if (!(pos[0] < pos[1]) || R->tasks[pos[1]].offset != off || !(same || behind))
            REFUSE("%s, %s and %s: the factored decay runs them for one k block in one step (the "
                   "same offset, in this order), or the last one iteration behind and first in "
                   "the step", kp->sg->tasks[d->stask].id,
                   kp->sg->tasks[R->tasks[pos[1]].stask].id,
                   kp->sg->tasks[R->tasks[pos[2]].stask].id);
        /* groups in flight where the step program issues exp_decay */
        int pending = R->n_steady, at = -1;
        for (int o = 0; o < R->n_ops && at < 0; o++) {
            const pt_kop *op = &R->ops[o];
            if (op->kind == PT_KOP_WAIT && op->arg < pending)
                pending = op->arg;
            else if (op->kind == PT_KOP_TASK && op->arg == pos[0])
                at = o;
            else if (op->kind == PT_KOP_TASK && R->tasks[op->arg].async)
                pending++;
        }
        if (pending == 0)
            continue;
        /* the step's next mma after exp_decay, the step read round from exp_decay on */
        int left = pending, mma = -1;
        for (int k = 1; k <= R->n_ops && mma < 0; k++) {
            const pt_kop *op = &R->ops[(at + k) % R->n_ops];
            if (op->kind == PT_KOP_WAIT && op->arg < left)
                left = op->arg;
            else if (op->kind == PT_KOP_TASK && R->tasks[op->arg].async)
                mma = op->arg;
        }
        if (mma >= 0 && left > 0)
            REFUSE("%s: %d wgmma group(s) may be in flight when the factored decay leaves its "
                   "range, and still %d when %s is issued, so the accumulators cannot be "
                   "multiplied back before it; wait for every group before the next mma",
                   kp->sg->tasks[d->stask].id, pending, left, kp->sg->tasks[R->tasks[mma].stask].id);
        sd->decay_defer = true;
    }
    return true;
}

/* A pointwise or exp_decay task of the loop or the prologue: its output's form must follow
 * from its operands' (ssd_emit.c prints one device call per form). */
static bool plan_cuda_task(const sm90a_ssd *sd, const pt_ktask *t, bool prologue, pt_error *err)
{
    const pt_kprog *kp = sd->kp;
    const pt_graph *g = sd->g;
    const char *id = kp->sg->tasks[t->stask].id;
    if (sd->factored && !prologue &&
        (t->op == sd->chain.op_decay || t->op == sd->chain.op_tile || t->op == sd->chain.op_vec))
        return plan_factored_task(sd, t, err);
    if (t->body == PT_KB_EXP_DECAY) {
        if (prologue || t->out < 0 || sd->vkind[t->out] != SSD_ATILE ||
            operand_kind(sd, t, 0) != SSD_MVEC || operand_kind(sd, t, 1) != SSD_KVEC)
            REFUSE("%s: exp_decay is generated in the loop from a vector along %s and one along %s",
                   id, g->axes[sd->ax_m].name, g->axes[sd->ax_k].name);
        return true;
    }
    if (t->body != PT_KB_EWISE || !pointwise(g->ops[t->op].kind))
        REFUSE("%s (%s) has no generated body in this workload", id, pt_kbody_name(t->body));
    if (t->out < 0)
        REFUSE("%s writes the output tile; only the epilogue does", id);
    int out = sd->vkind[t->out], n_acc = 0, n_src = 0;
    for (int k = 0; k < t->n_in; k++) {
        int f = operand_kind(sd, t, k);
        n_acc += f == SSD_ACC;
        n_src += f == -1;
        if (f == -2)
            REFUSE("%s reads \"%s\", a tile the CUDA cores do not read in this workload", id,
                   g->tensors[kp->bufs[t->in[k].index].tensor].name);
        if (f == SSD_ACC && !prologue)
            REFUSE("%s reads the accumulators inside the loop", id);
        if (out == SSD_MVEC && f != SSD_MVEC)
            REFUSE("%s makes a vector along %s from operands that are not", id,
                   g->axes[sd->ax_m].name);
        if (out == SSD_KVEC && f != SSD_KVEC && f != SSD_MVEC)
            REFUSE("%s makes a vector along %s from a tile", id, g->axes[sd->ax_k].name);
        if (out == SSD_KVEC && f == SSD_MVEC && !(t->in[k].kind == PT_KSRC_BUF &&
                                                   sd->sh.flat[t->in[k].index]))
            REFUSE("%s makes a vector along %s from a vector along %s", id,
                   g->axes[sd->ax_k].name, g->axes[sd->ax_m].name);
    }
    if (out == SSD_ACC) {
        if (!prologue || n_acc != 1 || t->n_in != 2)
            REFUSE("%s: the accumulators are scaled before the loop by a vector along %s", id,
                   g->axes[sd->ax_m].name);
        for (int k = 0; k < 2; k++)
            if (operand_kind(sd, t, k) != SSD_ACC && operand_kind(sd, t, k) != SSD_MVEC)
                REFUSE("%s: the accumulators are scaled by a vector along %s", id,
                       g->axes[sd->ax_m].name);
        if (g->ops[t->op].kind == PT_OP_EXP || (g->ops[t->op].kind != PT_OP_MUL &&
                                                 g->ops[t->op].kind != PT_OP_ADD &&
                                                 operand_kind(sd, t, 0) != SSD_ACC))
            REFUSE("%s: a vector is added to, subtracted from, multiplied with or divides the "
                   "accumulators in place", id);
    } else if (n_src) {
        if (prologue || t->n_in != 2 || (out != SSD_ATILE && out != SSD_AFRAG))
            REFUSE("%s reads \"%s\" from its ring; expected a tile of %s x %s made from it", id,
                   g->tensors[sd->src].name, g->axes[sd->ax_m].name, g->axes[sd->ax_k].name);
        if (operand_kind(sd, t, 0) != -1 && g->ops[t->op].kind != PT_OP_MUL &&
            g->ops[t->op].kind != PT_OP_ADD)
            REFUSE("%s: \"%s\" must be the first operand of %s", id, g->tensors[sd->src].name,
                   pt_op_kind_name(g->ops[t->op].kind));
        if (out == SSD_AFRAG && g->ops[t->op].kind != PT_OP_MUL)
            REFUSE("%s: the A fragment is made from \"%s\" by a multiply", id,
                   g->tensors[sd->src].name);
    } else if (out == SSD_ATILE || out == SSD_AFRAG) {
        if (prologue)
            REFUSE("%s makes a tile of %s x %s before the loop", id, g->axes[sd->ax_m].name,
                   g->axes[sd->ax_k].name);
    } else if (out == SSD_MVEC && !prologue && !sd->scan) {
        REFUSE("%s makes a vector along %s", id, g->axes[sd->ax_m].name);
    }
    if (g->ops[t->op].out == sd->A && out != SSD_AFRAG)
        REFUSE("%s: A must be made as the wgmma's fragment", id);
    return true;
}

/* Each consumer task's body in the forms ssd_emit.c prints; values named by their form. */
static bool plan_tasks(sm90a_ssd *sd, pt_error *err)
{
    const pt_kprog *kp = sd->kp;
    const pt_graph *g = sd->g;
    for (int v = 0; v < kp->n_vals; v++)
        if (!classify(sd, v, err))
            return false;
    for (int w = 0; w < kp->wgs; w++) {
        const pt_krole *R = &kp->consumer[w];
        if (R->n_pro && !sd->scan)
            REFUSE("%s runs before the loop; only a matmul with a prologue product (ChunkScan) "
                   "has prologue sTasks here", kp->sg->tasks[R->pro[0].stask].id);
        bool mma_done = false;
        for (int i = 0; i < R->n_pro; i++) {
            const pt_ktask *t = &R->pro[i];
            const char *id = kp->sg->tasks[t->stask].id;
            if (t->body == PT_KB_MMA) {
                if (t->op != sd->op_pro || mma_done)
                    REFUSE("%s: one prologue matmul (\"%s\") is generated", id,
                           g->ops[sd->op_pro].name);
                mma_done = true;
                continue;
            }
            if (!plan_cuda_task(sd, t, true, err))
                return false;
            if (sd->vkind[t->out] == SSD_ACC && !mma_done)
                REFUSE("%s scales the accumulators before the prologue matmul made them", id);
        }
        if (sd->scan && !mma_done)
            REFUSE("warpgroup %d has no prologue matmul (\"%s\")", w, g->ops[sd->op_pro].name);
        for (int i = 0; i < R->n_tasks; i++) {
            const pt_ktask *t = &R->tasks[i];
            const char *id = kp->sg->tasks[t->stask].id;
            if (t->body == PT_KB_MMA) {
                if (t->op != sd->op_mm)
                    REFUSE("%s: one matmul is generated", id);
                continue;
            }
            if (!plan_cuda_task(sd, t, false, err))
                return false;
        }
        const pt_ktask *e = &R->epilogue;
        if (sd->scan) {
            if (e->body != PT_KB_EWISE || g->ops[e->op].kind != PT_OP_ADD || e->n_in != 2 ||
                operand_kind(sd, e, 0) != SSD_ACC || operand_kind(sd, e, 1) != SSD_ACC)
                REFUSE("warpgroup %d's epilogue must add the prologue's product to the loop's "
                       "(one register tile)", w);
        } else if (e->body != PT_KB_CONVERT) {
            REFUSE("warpgroup %d's epilogue must convert the accumulators", w);
        }
    }
    return !sd->factored || plan_factored_steps(sd, err);
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
    for (int b = 0; b < sd->kp->n_bufs; b++)
        sh->warp_release[b] = sd->kp->bufs[b].kind == PT_KBUF_RESIDENT &&
                              sd->kp->bufs[sd->kp->staging].over != b;
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
    if (sd->kp->sg->tile_grid[sd->ax_m] > 1)
        snprintf(sd->row_tile, sizeof sd->row_tile, "g%d", sd->ax_m);
    else
        snprintf(sd->row_tile, sizeof sd->row_tile, "0");
    if (sd->kp->causal) {
        /* a causal mask over the loop: a tile runs the k blocks up to its last row */
        snprintf(sd->iters, sizeof sd->iters, "tile_iters(%s)", sd->row_tile);
        sh->iters = sd->iters;
    }
    for (int b = 0; b < sd->kp->n_bufs; b++) {
        int t = sd->kp->bufs[b].tensor;
        if (b == sd->ring_src)
            snprintf(sh->name[b], sizeof sh->name[b], "x");
        else if (b == sd->ring_b)
            snprintf(sh->name[b], sizeof sh->name[b], "b");
        else if (b == sd->kp->staging)
            snprintf(sh->name[b], sizeof sh->name[b], "c");
        else if (sd->scan && b == sd->res_a)
            snprintf(sh->name[b], sizeof sh->name[b], "pa");
        else if (sd->scan && b == sd->res_b)
            snprintf(sh->name[b], sizeof sh->name[b], "pb");
        else
            snprintf(sh->name[b], sizeof sh->name[b], "u%d", t);
    }
}

bool sm90a_ssd_plan(sm90a_ssd *sd, const pt_kprog *kp, pt_error *err)
{
    memset(sd, 0, sizeof *sd);
    sd->kp = kp;
    sd->sh.kp = kp;  /* plan_map reads the maps' order before plan_shape */
    sd->g = kp->g;
    int split = kp->sg->split_axis;
    sd->ax_wg = kp->wgs > 1 && split >= 0 && kp->g->axes[split].batch ? split : -1;
    if (!sm90a_one_resident_copy(kp, "Mamba2", err) || !plan_graph(sd, err))
        return false;
    /* wgmma reads B and the prologue's operands with descriptors; the output is staged */
    int ring_b = pt_kprog_buf_of(kp, sd->B);
    for (int b = 0; b < kp->n_bufs; b++) {
        bool reorder = sd->ax_wg >= 0 && (b == ring_b || b == kp->staging || b == sd->res_a ||
                                          b == sd->res_b);
        if (!plan_map(sd, b, reorder, err))
            return false;
    }
    if (!plan_tiles(sd, err) ||
        (sd->scan && !plan_pro(sd, err)) ||
        !plan_buffers(sd, err) || !plan_tasks(sd, err))
        return false;
    plan_shape(sd);
    return true;
}
