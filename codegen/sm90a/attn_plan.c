/* attn_plan.c — what the Hopper instructions need of an attention kernel program (matmul →
 * online_softmax → matmul): Q, K, V and O as [batch..., rows, head dim] for 3-D TMA boxes, 64
 * query rows per consumer warpgroup (one m64 wgmma block), a head dim of whole 128-byte swizzle
 * atoms, one sTask of each softmax piece per warpgroup (one device call each), and register
 * budgets that hold O, the S tiles and the P fragments. Refuses, in one line, what they cannot
 * do. */
#include <stdio.h>
#include <string.h>

#include "attn.h"
#include "attn_walk.h"

#define REFUSE(...) return pt_fail(err, "codegen sm90a: " __VA_ARGS__)

bool sm90a_attn_matches(const pt_graph *g)
{
    return pt_attn_matches(g);
}

/* Tensor t is [batch axes..., row, d] with the given batch axes, row axis and d innermost. */
static bool shaped(const pt_graph *g, int t, const int *batch, int nb, int row, int d)
{
    const pt_tensor *T = &g->tensors[t];
    if (T->rank != nb + 2 || T->view_of >= 0)
        return false;
    for (int i = 0; i < nb; i++)
        if (T->axes[i] != batch[i])
            return false;
    return T->axes[nb] == row && T->axes[nb + 1] == d;
}

/* Operand t is [batch..., row, d] whose batch axes are the leading ones of O's (nb of them):
 * *share gets how many of O's flattened batch entries read one of t's (the product of O's
 * batch axes t lacks). */
static bool operand(const pt_graph *g, int t, const int *batch, int nb, int row, int d,
                    int64_t *share)
{
    int n = g->tensors[t].rank - 2;
    if (n < 0 || n > nb || !shaped(g, t, batch, n, row, d))
        return false;
    *share = 1;
    for (int i = n; i < nb; i++)
        *share *= g->axes[batch[i]].extent;
    return true;
}

/* The tensors: O [batch..., m, d]; Q, K and V with O's leading batch axes (K/V shared by a
 * group of query heads; Q shared by the KV splits of FlashDecoding); the log-sum-exp, if any,
 * [batch..., m] in f32. */
static bool plan_tensors(sm90a_attn *at, int m, int n, int d, pt_error *err)
{
    const pt_graph *g = at->g;
    const pt_tensor *O = &g->tensors[at->O];
    if (O->rank < 2 || O->axes[O->rank - 1] != d)
        REFUSE("O (\"%s\") must be [batch..., rows, %s]", O->name, g->axes[d].name);
    int nb = O->rank - 2;
    const int *batch = O->axes;
    if (O->axes[nb] != m || !shaped(g, at->O, batch, nb, m, d))
        REFUSE("O (\"%s\") must be [batch..., %s, %s] with Q's rows", O->name, g->axes[m].name,
               g->axes[d].name);
    if (!operand(g, at->Q, batch, nb, m, d, &at->qshare))
        REFUSE("Q (\"%s\") must be [batch..., %s, %s] with O's batch axes, or their leading ones "
               "(FlashDecoding: the KV splits share the query)", g->tensors[at->Q].name,
               g->axes[m].name, g->axes[d].name);
    if (!operand(g, at->K, batch, nb, n, d, &at->group))
        REFUSE("K (\"%s\") must be [batch..., %s, %s] with O's batch axes, or their leading ones "
               "(grouped-query attention)", g->tensors[at->K].name, g->axes[n].name,
               g->axes[d].name);
    int64_t vshare;
    if (!operand(g, at->V, batch, nb, n, d, &vshare) || vshare != at->group)
        REFUSE("V (\"%s\") must be shaped as K: [batch..., %s, %s] with K's batch axes",
               g->tensors[at->V].name, g->axes[n].name, g->axes[d].name);
    at->B = 1;
    for (int i = 0; i < nb; i++)
        at->B *= g->axes[batch[i]].extent;
    at->L = g->ops[at->op_sm].lse;
    if (at->L >= 0) {
        const pt_tensor *L = &g->tensors[at->L];
        bool ok = L->rank == nb + 1 && L->axes[nb] == m && L->dtype == PT_F32;
        for (int i = 0; ok && i < nb; i++)
            ok = L->axes[i] == batch[i];
        if (!ok)
            REFUSE("the log-sum-exp \"%s\" must be f32 [O's batch axes..., %s]", L->name,
                   g->axes[m].name);
    }
    return true;
}

static bool plan_graph(sm90a_attn *at, pt_error *err)
{
    const pt_graph *g = at->g;
    at->op_qk = 0;
    at->op_sm = 1;
    at->op_pv = 2;
    const pt_op *qk = &g->ops[0], *sm = &g->ops[1], *pv = &g->ops[2];
    at->Q = qk->in[0];
    at->K = qk->in[1];
    at->V = pv->in[1];
    at->O = pv->out;
    if (qk->n_reduce != 1 || pv->n_reduce != 1)
        REFUSE("attention matmuls must each contract one axis");
    int d = qk->reduce_axes[0], n = pv->reduce_axes[0];
    const pt_tensor *Q = &g->tensors[at->Q];
    if (Q->rank < 2 || Q->axes[Q->rank - 1] != d)
        REFUSE("Q (\"%s\") must be [batch..., rows, head dim] with the contracted head-dim axis "
               "\"%s\" innermost", Q->name, g->axes[d].name);
    int m = Q->axes[Q->rank - 2];
    if (!plan_tensors(at, m, n, d, err))
        return false;
    if (sm->axis != n)
        REFUSE("the softmax must run over the key axis \"%s\"", g->axes[n].name);
    at->S = g->axes[m].extent;
    at->SK = g->axes[n].extent;
    at->D = g->axes[d].extent;
    /* a few query rows against a long key sequence, in one CTA per head, leaves most SMs
     * idle and 63 of 64 wgmma rows empty: decoding splits the keys and combines the partials */
    if (at->L < 0 && at->S <= 16 && at->SK > at->S)
        REFUSE("queries (%s = %lld) against %lld keys (%s) is decoding, not prefill: use the "
               "flash_decoding example (G query heads of a K/V head as the rows, the keys split "
               "over CTAs, each writing its partial output and log-sum-exp) and "
               "flash_decoding_combine", g->axes[m].name, (long long)at->S, (long long)at->SK,
               g->axes[n].name);
    if (at->D % 16 || at->D < 64 || at->D > 256)
        REFUSE("head dim %s = %lld; expected a multiple of 16 from 64 to 256 (k16 steps of Q.K^T, "
               "wgmma N of P.V <= 256, 64-column TMA boxes)", g->axes[d].name, (long long)at->D);
    at->in_dt = Q->dtype;
    at->out_dt = g->tensors[at->O].dtype;
    if ((at->in_dt != PT_F16 && at->in_dt != PT_BF16) || g->tensors[at->K].dtype != at->in_dt ||
        g->tensors[at->V].dtype != at->in_dt)
        REFUSE("Q, K and V must all be f16 or all bf16");
    if (at->out_dt != PT_F16 && at->out_dt != PT_BF16 && at->out_dt != PT_F32)
        REFUSE("O must be f16, bf16 or f32 (it is %s)", pt_dtype_name(at->out_dt));
    if (g->tensors[sm->out].dtype != at->in_dt)
        REFUSE("P (\"%s\") must have V's dtype %s: it feeds the P.V wgmma from registers",
               g->tensors[sm->out].name, pt_dtype_name(at->in_dt));
    if (qk->acc != PT_F32 || pv->acc != PT_F32)
        REFUSE("only f32 accumulation is generated");
    at->causal = sm->causal;
    at->ax_m = m;
    if (at->causal && (sm->row_axis != m || sm->col_axis != n))
        REFUSE("the causal mask must be over (%s, %s)", g->axes[m].name, g->axes[n].name);
    at->scale = sm->scale;
    const pt_tiling *t = &at->kp->sg->tiling;
    at->BM = t->tile[m];
    at->BN = t->tile[n];
    if (t->tile[d] != at->D)
        REFUSE("tile %s = %lld; the head dim is not split (expected %lld)", g->axes[d].name,
               (long long)t->tile[d], (long long)at->D);
    const pt_tensor *O = &g->tensors[at->O];
    for (int i = 0; i < O->rank - 2; i++)
        if (t->tile[O->axes[i]] != 1)
            REFUSE("tile %s = %lld; batch axes are tiled by 1", g->axes[O->axes[i]].name,
                   (long long)t->tile[O->axes[i]]);
    at->wgs = at->kp->wgs;
    if (at->BM != 64 * at->wgs)
        REFUSE("tile %s = %lld with %d warpgroups; the attention generator gives each warpgroup "
               "64 query rows (expected %s = %d)", g->axes[m].name, (long long)at->BM, at->wgs,
               g->axes[m].name, 64 * at->wgs);
    if (at->BN % 16 || at->BN < 16 || at->BN > 256)
        REFUSE("tile %s = %lld; expected a multiple of 16 up to 256 (wgmma N of S, k16 steps of "
               "P.V)", g->axes[n].name, (long long)at->BN);
    if (at->kp->hw->mma_m != 64)
        REFUSE("hardware model %s is not a Hopper-class part", at->kp->hw->name);
    return true;
}


/* Q resident, K and V in rings; each warpgroup's step has one task of each piece. */
static bool plan_program(sm90a_attn *at, pt_error *err)
{
    const pt_kprog *kp = at->kp;
    at->buf_q = pt_kprog_buf_of(kp, at->Q);
    at->ring_k = pt_kprog_buf_of(kp, at->K);
    at->ring_v = pt_kprog_buf_of(kp, at->V);
    if (at->buf_q < 0 || at->ring_k < 0 || at->ring_v < 0 ||
        kp->bufs[at->buf_q].kind != PT_KBUF_RESIDENT || kp->bufs[at->ring_k].kind != PT_KBUF_RING ||
        kp->bufs[at->ring_v].kind != PT_KBUF_RING)
        REFUSE("expected Q loaded once per tile and K, V per key block");
    for (int r = 0; r < 2; r++) {
        int st = kp->bufs[r ? at->ring_v : at->ring_k].stages;
        if (st > 8)
            REFUSE("stages of %s = %d; expected 1 to 8", r ? "V" : "K", st);
    }
    for (int w = 0; w < kp->wgs; w++) {
        const pt_krole *R = &kp->consumer[w];
        int have[PT_KB_KINDS + 1] = {0};
        for (int i = 0; i < R->n_tasks; i++) {
            const pt_ktask *t = &R->tasks[i];
            int k = t->body == PT_KB_MMA && t->op == at->op_pv ? PT_KB_KINDS : (int)t->body;
            if (have[k]++)
                REFUSE("warpgroup %d has two sTasks of one kind", w);
        }
        for (int k = 0; k <= PT_KB_RESCALE; k++)
            if (k != PT_KB_CONVERT && !have[k])
                REFUSE("warpgroup %d lacks one of mma S, softmax max/exp/sum, rescale, mma O", w);
        if (!have[PT_KB_KINDS] || R->epilogue.body != PT_KB_NORMALIZE)
            REFUSE("warpgroup %d lacks its mma O or its normalize sTask", w);
    }
    at->s_bufs = at->m_bufs = at->p_bufs = 1;
    for (int v = 0; v < kp->n_vals; v++) {
        const pt_kval *V = &kp->vals[v];
        if (V->kind != PT_KVAL_ITER)
            continue;
        if (V->tensor == kp->g->ops[at->op_qk].out)
            at->s_bufs = V->slots;
        else if (V->tensor == kp->g->ops[at->op_sm].out)
            at->p_bufs = V->slots;
        else
            at->m_bufs = V->slots;
    }
    at->buf_l = kp->rows;
    if ((at->L >= 0) != (at->buf_l >= 0))
        REFUSE("the log-sum-exp \"%s\" must be stored by the kernel (an output of the graph)",
               at->g->tensors[at->L >= 0 ? at->L : kp->bufs[at->buf_l].tensor].name);
    at->tiles_m = kp->sg->tile_grid[at->ax_m];
    at->kv_blocks = kp->sg->iterations; /* a full tile's key blocks */
    return true;
}

/* Registers: O, the S tiles and P fragments live, plus indices, pointers, softmax state and
 * descriptors: 24 registers for a one-slot loop; a two-slot loop (two steps per turn) keeps
 * more live: measured under a 240 budget, 176 array registers compile without spills and 192
 * spill. */
static bool plan_registers(const sm90a_attn *at, pt_error *err)
{
    const pt_kprog *kp = at->kp;
    int need = (int)(at->D / 2 + at->s_bufs * at->BN / 2 + at->p_bufs * at->BN / 4) +
               (kp->unroll == 2 ? 56 : 24);
    for (int w = 0; w < kp->wgs; w++)
        if (kp->consumer[w].regs < need)
            REFUSE("consumer warpgroup %d has %d registers per thread; O (%lld), %d S tile%s "
                   "(%lld each) and %d P fragment%s (%lld each) need at least %d", w,
                   kp->consumer[w].regs, (long long)(at->D / 2), at->s_bufs,
                   at->s_bufs > 1 ? "s" : "", (long long)(at->BN / 2), at->p_bufs,
                   at->p_bufs > 1 ? "s" : "", (long long)(at->BN / 4), need);
    int64_t regs = 128LL * kp->producer.regs;
    for (int w = 0; w < kp->wgs; w++)
        regs += 128LL * kp->consumer[w].regs;
    if (regs > 65536)
        REFUSE("register budgets sum to %lld per CTA; the SM has 65536", (long long)regs);
    return true;
}

/* The tile walk (tile_coords gives the flattened batch·head bh and query tile mt) and the
 * buffers' names. */
static void plan_shape(sm90a_attn *at)
{
    const pt_graph *g = at->g;
    sm90a_shape *sh = &at->sh;
    int d = g->ops[at->op_qk].reduce_axes[0], n = g->ops[at->op_pv].reduce_axes[0];
    sh->kp = at->kp;
    snprintf(sh->origin[at->ax_m], sizeof sh->origin[0], "mt * BM");
    snprintf(sh->size[at->ax_m], sizeof sh->size[0], "BM");
    snprintf(sh->size[n], sizeof sh->size[0], "BN");
    snprintf(sh->size[d], sizeof sh->size[0], "D");
    sh->batch = "bh";
    if (at->group > 1) /* K and V: the group's shared head */
        sh->batch_buf[at->ring_k] = sh->batch_buf[at->ring_v] = "bh / GROUP";
    if (at->qshare > 1) /* Q: the sequence's one query, read by each of its KV splits */
        sh->batch_buf[at->buf_q] = "bh / QSHARE";
    if (at->buf_l >= 0) {
        snprintf(sh->name[at->buf_l], sizeof sh->name[0], "l");
        sh->rows_store = "pt::store_rows_global(lse_out + (size_t)bh * SEQ + mt * BM, smem + OFF_L, "
                         "SEQ - mt * BM < BM ? SEQ - mt * BM : BM);";
    }
    sh->coord_decl = "int bh, mt;";
    sh->coord_args = "bh, mt";
    sh->iters = "tile_iters(mt)";
    const int bufs[4] = {at->buf_q, at->ring_k, at->ring_v, at->kp->staging};
    for (int i = 0; i < 4; i++)
        snprintf(sh->name[bufs[i]], sizeof sh->name[0], "%c", "qkvo"[i]);
}

bool sm90a_attn_plan(sm90a_attn *at, const pt_kprog *kp, pt_error *err)
{
    memset(at, 0, sizeof *at);
    at->kp = kp;
    at->g = kp->g;
    if (!plan_graph(at, err) || !plan_program(at, err) || !plan_registers(at, err))
        return false;
    plan_shape(at);
    return true;
}
