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

/* The graph read by the reading every target shares (ir/attention.c), then what wgmma and
 * TMA need of it. */
static bool plan_graph(sm90a_attn *at, pt_error *err)
{
    const pt_graph *g = at->g;
    if (!pt_kattn_read(&at->a, g, &at->kp->sg->tiling, "sm90a", err))
        return false;
    int m = at->a.m, n = at->a.n, d = at->a.d;
    /* a few query rows against a long key sequence, in one CTA per head, leaves SMs idle
     * when there are few heads: decoding then splits the keys and combines the partials. Where
     * the heads (or groups of query heads) occupy more than half the SMs, one pass with no
     * partials is what flash_decoding_unsplit does, and is allowed: the scheduler weighs it
     * against the split counts (B 16 x HKV 8 = 128 CTAs: one pass, or one split and a combine
     * on the same 128 CTAs). */
    int64_t tiles = at->kp->sg->tiles;
    if (at->a.L < 0 && at->a.S <= 16 && at->a.SK > at->a.S && 2 * tiles <= at->kp->hw->eu_count)
        REFUSE("queries (%s = %lld) against %lld keys (%s) in %lld CTAs for %d SMs is decoding, "
               "not prefill: use the flash_decoding example (G query heads of a K/V head as the "
               "rows, the keys split over CTAs, each writing its partial output and log-sum-exp) "
               "and flash_decoding_combine", g->axes[m].name, (long long)at->a.S,
               (long long)at->a.SK, g->axes[n].name, (long long)tiles, at->kp->hw->eu_count);
    if (at->a.D % 16 || at->a.D < 64 || at->a.D > 256)
        REFUSE("head dim %s = %lld; expected a multiple of 16 from 64 to 256 (k16 steps of Q.K^T, "
               "wgmma N of P.V <= 256, 64-column TMA boxes)", g->axes[d].name, (long long)at->a.D);
    at->wgs = at->kp->wgs;
    if (at->a.BM != 64 * at->wgs)
        REFUSE("tile %s = %lld with %d warpgroups; the attention generator gives each warpgroup "
               "64 query rows (expected %s = %d)", g->axes[m].name, (long long)at->a.BM, at->wgs,
               g->axes[m].name, 64 * at->wgs);
    if (at->a.BN % 16 || at->a.BN < 16 || at->a.BN > 256)
        REFUSE("tile %s = %lld; expected a multiple of 16 up to 256 (wgmma N of S, k16 steps of "
               "P.V)", g->axes[n].name, (long long)at->a.BN);
    if (at->kp->hw->mma_m != 64)
        REFUSE("hardware model %s is not a Hopper-class part", at->kp->hw->name);
    return true;
}


/* Q resident, K and V in rings; each warpgroup's step has one task of each piece. */
static bool plan_program(sm90a_attn *at, pt_error *err)
{
    const pt_kprog *kp = at->kp;
    at->buf_q = pt_kprog_buf_of(kp, at->a.Q);
    at->ring_k = pt_kprog_buf_of(kp, at->a.K);
    at->ring_v = pt_kprog_buf_of(kp, at->a.V);
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
            int k = t->body == PT_KB_MMA && t->op == at->a.op_pv ? PT_KB_KINDS : (int)t->body;
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
        if (V->tensor == kp->g->ops[at->a.op_qk].out)
            at->s_bufs = V->slots;
        else if (V->tensor == kp->g->ops[at->a.op_sm].out)
            at->p_bufs = V->slots;
        else
            at->m_bufs = V->slots;
    }
    at->buf_l = kp->rows;
    if ((at->a.L >= 0) != (at->buf_l >= 0))
        REFUSE("the log-sum-exp \"%s\" must be stored by the kernel (an output of the graph)",
               at->g->tensors[at->a.L >= 0 ? at->a.L : kp->bufs[at->buf_l].tensor].name);
    at->tiles_m = kp->sg->tile_grid[at->a.m];
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
    int need = (int)(at->a.D / 2 + at->s_bufs * at->a.BN / 2 + at->p_bufs * at->a.BN / 4) +
               (kp->unroll == 2 ? 56 : 24);
    for (int w = 0; w < kp->wgs; w++)
        if (kp->consumer[w].regs < need)
            REFUSE("consumer warpgroup %d has %d registers per thread; O (%lld), %d S tile%s "
                   "(%lld each) and %d P fragment%s (%lld each) need at least %d", w,
                   kp->consumer[w].regs, (long long)(at->a.D / 2), at->s_bufs,
                   at->s_bufs > 1 ? "s" : "", (long long)(at->a.BN / 2), at->p_bufs,
                   at->p_bufs > 1 ? "s" : "", (long long)(at->a.BN / 4), need);
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
    int d = g->ops[at->a.op_qk].reduce_axes[0], n = g->ops[at->a.op_pv].reduce_axes[0];
    sh->kp = at->kp;
    snprintf(sh->origin[at->a.m], sizeof sh->origin[0], "mt * BM");
    snprintf(sh->size[at->a.m], sizeof sh->size[0], "BM");
    snprintf(sh->size[n], sizeof sh->size[0], "BN");
    snprintf(sh->size[d], sizeof sh->size[0], "D");
    sh->batch = "bh";
    if (at->a.group > 1) /* K and V: the group's shared head */
        sh->batch_buf[at->ring_k] = sh->batch_buf[at->ring_v] = "bh / GROUP";
    if (at->a.pieces > 0) { /* K and V: the sequence's entry, and the piece's first key in it */
        for (int i = 0; i < 2; i++) {
            int b = i ? at->ring_v : at->ring_k;
            sh->ragged_rows[b] = at->a.total;
            sh->ragged_pieces[b] = at->a.pieces;
            sh->batch_buf[b] = at->a.group > 1 ? "bh / GROUP / PIECES" : "bh / PIECES";
            sh->row_base[b] = "piece_key0(bh)";
        }
    }
    if (at->a.qshare > 1) /* Q: the sequence's one query, read by each of its KV splits */
        sh->batch_buf[at->buf_q] = "bh / QSHARE";
    if (at->buf_l >= 0)
        snprintf(sh->name[at->buf_l], sizeof sh->name[0], "l");
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
