/* attn_plan.c — what gfx942's instructions need of an attention kernel program (matmul →
 * online_softmax → matmul): Q, K, V and O as [batch..., rows, head dim] (K and V may lack Q's
 * innermost batch axes: grouped-query attention), 32 query rows per wave and two waves per
 * consumer role (BM = 64 x roles), key blocks and head dims of whole 32x32x8 MFMA blocks, the
 * K and V rings within the 64 KB of LDS, every step's sTasks at offset 0 in one order for all
 * roles, and the VGPRs that hold O, S, P, Q and the loads in flight. Refuses, in one line
 * naming the field, what they cannot do. */
#include <stdio.h>
#include <string.h>

#include "attn.h"

#define REFUSE(...) return pt_fail(err, "codegen gfx942: " __VA_ARGS__)

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* The graph read by the reading every target shares (ir/attention.c), then what MFMA and
 * LDS need of it: 32 query rows per wave, two waves per role; whole 32x32 MFMA blocks. */
static bool plan_graph(gfx942_attn *at, pt_error *err)
{
    const pt_graph *g = at->g;
    if (!pt_kattn_read(&at->a, g, &at->kp->sg->tiling, "gfx942", err))
        return false;
    int m = at->a.m, n = at->a.n, d = at->a.d;
    /* FlashDecoding's partial (a query shared by QSHARE KV splits, a log-sum-exp per row) is
     * the same kernel: Q read at bh / QSHARE, G query heads padded to the waves' 32 rows (rows
     * past the sequence are zeros and are not stored), m + log l written per row. */
    if (at->a.D % 32 || at->a.D < 32 || at->a.D > 256)
        REFUSE("head dim %s = %lld; expected a multiple of 32 from 32 to 256 (O^T's rows are "
               "32x32 MFMA blocks)", g->axes[d].name, (long long)at->a.D);
    if (at->a.B * at->a.S * at->a.D > INT32_MAX * 64LL || at->a.B * at->a.SK * at->a.D > INT32_MAX * 64LL)
        REFUSE("a tensor has more than 2^37 elements");
    int wgs = at->kp->wgs;
    at->waves = 2 * wgs;
    at->threads = 64 * at->waves;
    if (at->a.BM != 64 * wgs)
        REFUSE("tile %s = %lld with %d warpgroups; gfx942 gives each role two waves of 32 query "
               "rows (expected %s = %d)", g->axes[m].name, (long long)at->a.BM, wgs,
               g->axes[m].name, 64 * wgs);
    if (at->a.BN % 32 || at->a.BN < 32 || at->a.BN > 256)
        REFUSE("tile %s = %lld; expected a multiple of 32 up to 256 (32-key MFMA blocks of S)",
               g->axes[n].name, (long long)at->a.BN);
    return true;
}

/* Q resident (read into registers), K and V in rings loaded at offset 0. */
static bool plan_rings(gfx942_attn *at, pt_error *err)
{
    const pt_kprog *kp = at->kp;
    int bq = pt_kprog_buf_of(kp, at->a.Q);
    if (bq < 0 || kp->bufs[bq].kind != PT_KBUF_RESIDENT)
        REFUSE("expected Q loaded once per tile (a prologue load)");
    if (kp->n_loads != 2)
        REFUSE("the producer lane has %d body loads; expected load.%s and load.%s", kp->n_loads,
               at->g->tensors[at->a.K].name, at->g->tensors[at->a.V].name);
    at->lds_bytes = 0;
    for (int e = 0; e < 2; e++) {
        const pt_kbuf *b = &kp->bufs[kp->load_buf[e]];
        gfx942_ring *r = &at->ring[e];
        if (b->kind != PT_KBUF_RING || (b->tensor != at->a.K && b->tensor != at->a.V))
            REFUSE("load %d of the producer lane must fill the ring of K or V", e);
        if (kp->load_offset[e] != 0)
            REFUSE("load.%s has iteration offset %d; on gfx942 the ring's stages set how far ahead "
                   "it is loaded, so offsets must be 0", at->g->tensors[b->tensor].name,
                   kp->load_offset[e]);
        r->buf = kp->load_buf[e];
        r->tensor = b->tensor;
        r->name = b->tensor == at->a.K ? 'k' : 'v';
        r->stages = b->stages;
        if (r->stages > 8)
            REFUSE("stages of %s = %d; expected 1 to 8", at->g->tensors[b->tensor].name, r->stages);
        r->mode = r->stages >= 3 ? GFX942_RING_EARLY : r->stages == 2 ? GFX942_RING_LATE
                                                                       : GFX942_RING_SERIAL;
        r->rows = (int)at->a.BN;
        r->cols = (int)at->a.D;
        r->ld = r->cols + 8;
        r->stage_bytes = (int64_t)r->rows * r->ld * 2;
        r->chunks_per_thread = (int)ceil_div((int64_t)r->rows * r->cols / 8, at->threads);
        if (r->chunks_per_thread > 32)
            REFUSE("a %lld x %lld tile of %s is %d 16-byte loads per work-item; expected at most 32 "
                   "(use more warpgroups or a smaller key tile)", (long long)at->a.BN,
                   (long long)at->a.D, at->g->tensors[b->tensor].name, r->chunks_per_thread);
        at->lds_bytes += r->stage_bytes * r->stages;
    }
    if (at->ring[0].name == at->ring[1].name)
        REFUSE("the producer lane loads %s twice; expected load.%s and load.%s",
               at->g->tensors[at->ring[0].tensor].name, at->g->tensors[at->a.K].name,
               at->g->tensors[at->a.V].name);
    /* the kernel program and the validator count LDS by the same rule (src/smem_layout.h) */
    if (at->lds_bytes != kp->smem_dynamic)
        REFUSE("the K/V rings take %lld bytes of LDS but the kernel program counted %lld "
               "(src/smem_layout.h and this plan disagree)", (long long)at->lds_bytes,
               (long long)kp->smem_dynamic);
    if (at->lds_bytes > kp->hw->smem_per_block)
        REFUSE("stages K %d, V %d of %lld-key blocks (head dim %lld) need %lld bytes of LDS; %s "
               "has %lld per workgroup: use fewer stages or a smaller key tile",
               at->ring[at->ring[0].name == 'k' ? 0 : 1].stages,
               at->ring[at->ring[0].name == 'v' ? 0 : 1].stages, (long long)at->a.BN,
               (long long)at->a.D, (long long)at->lds_bytes, kp->hw->name,
               (long long)kp->hw->smem_per_block);
    return true;
}

/* Body kinds in a role's step, mma O told apart from mma S; -1 for what is not attention's. */
static int step_kind(const gfx942_attn *at, const pt_ktask *t)
{
    if (t->body == PT_KB_MMA)
        return t->op == at->a.op_pv ? PT_KB_KINDS : PT_KB_MMA;
    return t->body <= PT_KB_RESCALE && t->body != PT_KB_CONVERT ? (int)t->body : -1;
}

/* One step for every role: each sTask once, at offset 0, in one order; rescale before mma O. */
static bool plan_steps(const gfx942_attn *at, pt_error *err)
{
    const pt_kprog *kp = at->kp;
    if (kp->split_k > 1)
        REFUSE("partition.split_k = %d; attention is not split (expected 1)", kp->split_k);
    if (kp->n_xwaits > 0)
        REFUSE("a Wait between sTasks of two roles (ping-pong) needs named barriers; gfx942 has "
               "one s_barrier per workgroup (generated for sm90a only)");
    const pt_krole *R0 = &kp->consumer[0];
    for (int w = 0; w < kp->wgs; w++) {
        const pt_krole *R = &kp->consumer[w];
        int have[PT_KB_KINDS + 1] = {0}, rescale_at = -1, pv_at = -1;
        if (R->n_tasks != 6)
            REFUSE("role %d has %d sTasks per step; expected mma S, softmax max, exp and sum, "
                   "rescale, mma O", w, R->n_tasks);
        for (int i = 0; i < R->n_tasks; i++) {
            const pt_ktask *t = &R->tasks[i];
            int k = step_kind(at, t);
            if (k < 0 || have[k]++)
                REFUSE("role %d: %s is not one of attention's six step sTasks, or repeats one", w,
                       kp->sg->tasks[t->stask].id);
            if (t->offset != 0)
                REFUSE("%s has iteration offset %d; expected 0 (look-ahead offsets are generated "
                       "for sm90a only)", kp->sg->tasks[t->stask].id, t->offset);
            if (step_kind(at, &R0->tasks[i]) != k)
                REFUSE("role %d orders its step unlike role 0 (%s at %d); all waves of a gfx942 "
                       "workgroup run one step", w, kp->sg->tasks[t->stask].id, i);
            rescale_at = k == PT_KB_RESCALE ? i : rescale_at;
            pv_at = k == PT_KB_KINDS ? i : pv_at;
        }
        if (rescale_at > pv_at)
            REFUSE("role %d rescales O after its mma O of the same step (the new block would be "
                   "rescaled too): Wait mma O on rescale", w);
        if (R->epilogue.body != PT_KB_NORMALIZE)
            REFUSE("role %d's epilogue must be the normalize (and the log-sum-exp)", w);
        if (R->rows_task.stask >= 0 && (R->rows_task.body != PT_KB_LSE || at->a.L < 0))
            REFUSE("role %d: %s: the only per-row epilogue sTask generated is the softmax's "
                   "log-sum-exp", w, kp->sg->tasks[R->rows_task.stask].id);
    }
    return true;
}

/* VGPRs per lane: O^T (D/2 f32), one S tile (BN/2), P (BN/4), Q's fragments (D/4), the K/V
 * loads in flight (4 per 16-byte chunk) and about 40 for addresses, indices and the softmax
 * state. A wave has at most 512 (256 arch + 256 AccVGPRs); the budget is the largest role's. */
static bool plan_registers(gfx942_attn *at, pt_error *err)
{
    const pt_kprog *kp = at->kp;
    int o = (int)(at->a.D / 2), s = (int)(at->a.BN / 2), p = (int)(at->a.BN / 4), q = (int)(at->a.D / 4);
    int loads = 4 * (at->ring[0].chunks_per_thread + at->ring[1].chunks_per_thread);
    at->vgpr_estimate = o + s + p + q + loads + 40;
    int budget = 0;
    for (int w = 0; w < kp->wgs; w++)
        budget = kp->consumer[w].regs > budget ? kp->consumer[w].regs : budget;
    if (at->vgpr_estimate > kp->hw->max_regs_per_thread || at->vgpr_estimate > budget)
        REFUSE("roles[].regs: a wave needs about %d VGPRs per lane (O %d, S %d, P %d, Q %d, %d for "
               "K/V loads in flight, 40 for addresses); the program grants %d and %s has %d: use a "
               "smaller key tile", at->vgpr_estimate, o, s, p, q, loads, budget, kp->hw->name,
               kp->hw->max_regs_per_thread);
    return true;
}

bool gfx942_attn_plan(gfx942_attn *at, const pt_kprog *kp, pt_error *err)
{
    memset(at, 0, sizeof *at);
    at->kp = kp;
    at->g = kp->g;
    if (!plan_graph(at, err) || !plan_rings(at, err) || !plan_steps(at, err) ||
        !plan_registers(at, err))
        return false;
    at->tiles_m = kp->sg->tile_grid[at->a.m];
    at->kv_blocks = ceil_div(at->a.SK, at->a.BN);
    return true;
}
