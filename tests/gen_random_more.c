/* gen_random_more.c — random draws of Mamba2's ChunkState and ChunkScan and FlashDecoding's
 * split-KV partial and combine, for gen_random_sprogram (gen_random.h). Sizes and tiles are drawn
 * from what the sm90a generator takes (codegen/sm90a/ssd_plan.c, attn_plan.c, combine_plan.c):
 * most draws are accepted, and the few it refuses (shared memory, registers, a tile the
 * instructions cannot take) are drawn again by the caller, never counted as tests. Problems stay
 * small enough for the naive reference of the bundle's harness. */
#include <stdio.h>
#include <string.h>

#include "gen_random.h"
#include "validate.h"

/* An sTask of the whole EU ("sub.diff") or its copy in every consumer warpgroup ("mul.xs.wg1"):
 * run `offset` iterations ahead. */
static void ahead(draw *d, const char *id, int wgs, int offset, pt_error *err)
{
    char one[64];
    if (stask(d, id) >= 0) {
        set_offset(d, id, offset, err);
        return;
    }
    for (int w = 0; w < wgs; w++) {
        snprintf(one, sizeof one, "%s.wg%d", id, w);
        set_offset(d, one, offset, err);
    }
}

/* Persistent or one CTA a tile, a raster and its group: the partitions every generator here
 * takes (split-K and stream-K are GEMM-only). */
static void draw_grid(draw *d, rng *r)
{
    d->p.partition.persistent = chance(r, 40);
    d->p.partition.raster = (pt_raster)uni(r, 0, 2);
    d->p.partition.group = uni(r, 1, 8);
    note(d, "partition %s raster %s group %d", d->p.partition.persistent ? "persistent" : "per-tile",
         pt_raster_name(d->p.partition.raster), d->p.partition.group);
}

static void draw_stages(draw *d, rng *r, const char *const *names, int n, int hi)
{
    char what[128] = "stages";
    for (int i = 0; i < n; i++) {
        int t = pt_graph_find_tensor(&d->g, names[i]);
        if (t < 0)
            continue;
        d->p.stages[t] = uni(r, 1, hi);
        size_t k = strlen(what);
        snprintf(what + k, sizeof what - k, "%s %s %d", i ? " /" : "", names[i], d->p.stages[t]);
    }
    note(d, "%s", what);
}

/* A quarter of the Mamba2 draws use ngroups > 1 (`example`: heads h = g * HG + hg share group
 * g's B, C and CB): the draw's H becomes HG, the heads of one group, and G groups are drawn.
 * Returns G, or 0 for the ngroups-1 example. */
static int grouped(draw *d, rng *r, const char *example)
{
    if (!chance(r, 25))
        return 0;
    snprintf(d->workload, sizeof d->workload, "%s", example);
    return uni(r, 2, 3);
}

/* The graph's sizes; with G groups, H is the heads of one group (HG). A third of the draws
 * whose S is several chunks take a sequence that is not a whole number of them (the last chunk
 * 1 to L - 1 rows short), from the values drawn so that the seeds' other draws stay as they
 * were. */
static void heads_set(draw *d, int Bt, int S, int G, int H, int P, int N, int L)
{
    if (S > L && (S / L + H + Bt) % 3 == 0)
        S -= 1 + (H * 7 + Bt * 13 + P) % (L - 1);
    if (G)
        snprintf(d->set, sizeof d->set, "B=%d,S=%d,G=%d,HG=%d,P=%d,N=%d,L=%d", Bt, S, G, H, P, N, L);
    else
        snprintf(d->set, sizeof d->set, "B=%d,S=%d,H=%d,P=%d,N=%d,L=%d", Bt, S, H, P, N, L);
}

/* ChunkState: states (P x N) of a chunk = x^T, decay-weighted, times B over its L positions.
 * One consumer warpgroup of 64 rows of P (the decay weights, shared by a tile's rows, are made
 * in one warpgroup's registers), N in 64-column wgmma blocks, the loop over l. */
bool draw_ssd_state(draw *d, rng *r, pt_error *err)
{
    /* one consumer warpgroup, or two or three on the heads (one head each, B shared; H need not
     * be a multiple: the last tile's extra heads are loaded as zeros and not stored) */
    int wgs = chance(r, 30) ? uni(r, 2, 3) : 1;
    int L = pick(r, (const int[]){64, 128, 128, 256}, 4), C = uni(r, 1, 4);
    int Bt = uni(r, 1, 2), H = uni(r, 1, 6);
    int G = grouped(d, r, "mamba2_chunk_state_grouped");
    int P = pick(r, (const int[]){64, 64, 128}, 3), N = pick(r, (const int[]){64, 128, 256}, 3);
    if (wgs == 3 && N == 256)  /* three warpgroups' registers hold 64 x 128 accumulators */
        N = 128;
    if (H < wgs)
        H = wgs;
    int bn = N == 64 ? 64 : pick(r, (const int[]){64, 128, 256}, N == 128 ? 2 : 3);
    int bk = L == 64 ? 64 : pick(r, (const int[]){64, 128}, 2);
    if (small_sizes) {
        Bt = 1;
        C = C > 2 ? 2 : C;
        H = H > 2 ? 2 : H;
        G = G > 2 ? 2 : G;
        L = L > 128 ? 128 : L;
        bk = bk > L ? L : bk;
    }
    heads_set(d, Bt, L * C, G, H, P, N, L);
    const char *hx = G ? "hg" : "h";
    /* a third of the several-warpgroup draws store each warpgroup's head itself (from the
     * values drawn, so that the seeds' other draws stay as they were) */
    bool own = wgs > 1 && (C + Bt + H) % 3 == 0;
    if (wgs > 1)
        snprintf(d->tile, sizeof d->tile, "p=64,n=%d,l=%d,%s=%d,wg=%d,wg_axis=%s%s", bn, bk, hx, wgs,
                 wgs, hx, own ? ",wg_stores=1" : "");
    else
        snprintf(d->tile, sizeof d->tile, "p=64,n=%d,l=%d,wg=1", bn, bk);
    if (!load_graph(d, err) || !partition_default(d, err))
        return false;
    static const char *const rings[] = {"x", "Bm", "dt", "dA_cs"};
    draw_stages(d, r, rings, 4, 4);
    if (chance(r, 35)) { /* the CUDA cores' weights of the next block while this one multiplies */
        static const char *const prep[] = {"sub.diff", "exp.decay", "mul.w", "mul.xs"};
        for (int i = 0; i < 4; i++)
            ahead(d, prep[i], wgs, 1, err);
    }
    if (chance(r, 25))
        set_offset(d, "load.x", pick(r, (const int[]){1, 2}, 2), err);
    if (!own)
        store_role(d, r, wgs, err);
    draw_grid(d, r);
    return true;
}

/* ChunkScan: out (L x P) = (C . states) scaled + the causal decay-weighted CB times x. 64 rows
 * of l a consumer warpgroup, p in 64-column blocks, the causal loop over s in 64-wide blocks
 * (l and s tiles divide L), N whole (the prologue product). A fifth of the one-row-block draws
 * take chunks of 64 (the walk one diagonal block), a seventh a state size of 16 or 32 (one
 * 64-column atom, zero-filled past N); both from values drawn, so that the seeds' other draws
 * stay as they were. */
bool draw_ssd_scan(draw *d, rng *r, pt_error *err)
{
    int wgs = uni(r, 1, 2), bm = 64 * wgs;
    int L = pick(r, (const int[]){128, 256}, 2);
    int bk = L == 128 ? 64 : pick(r, (const int[]){64, 128}, 2);
    int C = uni(r, 1, 3), Bt = uni(r, 1, 2), H = uni(r, 1, 4);
    int P = pick(r, (const int[]){64, 64, 128}, 3), N = pick(r, (const int[]){64, 128, 128, 256}, 4);
    int bn = P == 64 ? 64 : pick(r, (const int[]){64, 128}, 2);
    /* a third of the draws put the warpgroups on the heads (one head's 64 rows each, CB and C
     * shared), two or three of them; three warpgroups' accumulators fit with N 64 or 128 */
    bool on_heads = chance(r, 35);
    if (on_heads) {
        wgs = chance(r, 75) ? 2 : 3;
        bm = 64;
        if (wgs == 3 && N == 256)
            N = 128;
        if (H < wgs)
            H = wgs + uni(r, 0, 2);
    }
    /* a third of the several-warpgroup draws: each warpgroup stores its own rows (from the
     * values drawn, so that the seeds' other draws stay as they were) */
    bool own = wgs > 1 && (C + Bt + H + L / 128) % 3 == 0;
    int G = grouped(d, r, "mamba2_chunk_scan_grouped");
    if (small_sizes) {
        Bt = 1;
        C = C > 2 ? 2 : C;
        H = H > 2 && !on_heads ? 2 : H;
        G = G > 2 ? 2 : G;
    }
    if (bm == 64 && (C + H + Bt) % 5 == 0)
        L = bk = 64;
    int bnn = N;
    if ((P + H + C) % 7 == 0) {
        N = C % 2 ? 16 : 32;
        bnn = 64;
    }
    heads_set(d, Bt, L * C, G, H, P, N, L);
    const char *hx = G ? "hg" : "h";
    if (on_heads)
        snprintf(d->tile, sizeof d->tile, "l=64,s=%d,p=%d,n=%d,%s=%d,wg=%d,wg_axis=%s%s", bk, bn,
                 bnn, hx, wgs, wgs, hx, own ? ",wg_stores=1" : "");
    else
        snprintf(d->tile, sizeof d->tile, "l=%d,s=%d,p=%d,n=%d,wg=%d%s", bm, bk, bn, bnn, wgs,
                 own ? ",wg_stores=1" : "");
    if (!load_graph(d, err) || !partition_default(d, err))
        return false;
    static const char *const rings[] = {"CB", "x", "dt", "dA_s"};
    draw_stages(d, r, rings, 4, 3);
    bool early = chance(r, 35);
    if (early) { /* the next block's decay-weighted CB made while this one multiplies */
        static const char *const prep[] = {"exp_decay.decay", "mul.Pw", "mul.Pdt"};
        for (int i = 0; i < 3; i++)
            ahead(d, prep[i], wgs, 1, err);
        /* or split (the scheduler's chain-ahead): Pdt with its mma, first in its lane */
        for (int w = 0; w < wgs && chance(r, 50); w++) {
            char id[64], dec[64];
            snprintf(id, sizeof id, "mul.Pdt.wg%d", w);
            snprintf(dec, sizeof dec, "exp_decay.decay.wg%d", w);
            int s = stask(d, id), dl, dp;
            if (s >= 0 && pt_sprogram_placement(&d->p, stask(d, dec), &dl, &dp) &&
                move_to(d, s, dp, 0, err) && w == wgs - 1)
                note(d, "Pdt with its mma");
        }
    }
    if (chance(r, 20))
        set_offset(d, "load.CB", 1, err);
    if (!own)
        store_role(d, r, wgs, err);
    draw_grid(d, r);
    /* a persistent CTA may issue the next tile's prologue product (C statesT) a tile ahead: the
     * validator asks for the store off the loads' lane and the output staged apart */
    if (d->p.partition.persistent && chance(r, 35)) {
        if (pt_sprogram_store_lane_loads(&d->p, &d->sg) >= 0 && !own)
            store_role_on(d, uni(r, 0, wgs - 1), err);
        d->p.partition.staging = PT_STAGING_APART;
        for (int w = 0; w < wgs; w++) {
            char id[64];
            snprintf(id, sizeof id, "mma.y_off.wg%d", w);
            set_offset(d, id, 1, err);
        }
    } else if (d->p.partition.persistent && chance(r, 50)) {
        d->p.partition.staging = chance(r, 50) ? PT_STAGING_APART : PT_STAGING_OVER_RESIDENT;
        note(d, "output staged %s", pt_staging_name(d->p.partition.staging));
    }
    /* the decay factored (decay_form.h), also an iteration ahead (a warp leaving the range
     * while the mma before it is in flight settles before its next mma) */
    if (chance(r, 40)) {
        d->p.decay = chance(r, 50) ? PT_DECAY_FACTORED16 : PT_DECAY_FACTORED;
        note(d, "decay %s", pt_decay_form_name(d->p.decay));
    }
    return true;
}

/* FlashDecoding's partial: one query token per sequence, the G query heads of a K/V head the
 * rows of a tile (64 a warpgroup), the keys cut into SPLITS pieces of n each (the last shorter
 * in a third of the draws), any n. Unsplit
 * (flash_decoding_unsplit): the keys whole, O stored in f16, and more than half the SMs
 * occupied (B x HKV of 67 to 600, as the generator requires). */
static bool decoding(draw *d, rng *r, bool unsplit, pt_error *err)
{
    int wgs = chance(r, 80) ? 1 : 2;
    int G = pick(r, (const int[]){1, 2, 4, 4, 8, 8, 16, 32}, 8);
    int D = pick(r, (const int[]){64, 128, 128, 256}, 4);
    /* K and V blocks of bn x D in bf16/f16 rings: the wide head dim with short blocks */
    int bn = D == 256 ? pick(r, (const int[]){32, 64, 96}, 3)
                      : pick(r, (const int[]){32, 64, 96, 128, 128, 176, 192, 256}, 8);
    int splits = pick(r, (const int[]){1, 2, 3, 4, 8, 16, 5, 7}, 8);
    int keys = draw_extent(r, 1, 2000); /* per split */
    int Bt = uni(r, 1, 3), HKV = uni(r, 1, 4);
    /* one sequence of one K/V head (MQA at batch 1) in 100 or 128 pieces, as the split search
     * picks for it, from values drawn */
    if (!unsplit && Bt == 1 && HKV == 1 && keys % 2 == 0) {
        splits = keys % 4 ? 100 : 128;
        keys = 1 + keys % 700;
    }
    if (small_sizes) {
        Bt = HKV = 1;
        keys = keys > 200 ? 1 + keys % 200 : keys;
        splits = splits > 4 ? 4 : splits;
        D = D > 128 ? 128 : D;
    }
    if (unsplit) { /* every CTA one K/V head's whole sequence: fewer keys, more heads */
        HKV = pick(r, (const int[]){1, 2, 4, 8}, 4);
        Bt = uni(r, (67 + HKV - 1) / HKV, 600 / HKV);
        keys = 1 + (keys * splits) % (small_sizes ? 200 : 3000);
        snprintf(d->set, sizeof d->set, "B=%d,HKV=%d,G=%d,S=%d,D=%d", Bt, HKV, G, keys, D);
    } else {
        /* a third of the multi-piece draws ragged: the last piece up to SPLITS - 1 keys short
         * (from the values drawn, so that the seeds' other draws stay as they were) */
        int short_by = splits > 1 && keys % 3 == 0 ? 1 + keys % (splits - 1) : 0;
        if (short_by >= keys)
            short_by = 0;
        snprintf(d->set, sizeof d->set, "B=%d,HKV=%d,G=%d,S=%d,SPLITS=%d,D=%d", Bt, HKV, G,
                 keys * splits - short_by, splits, D);
    }
    snprintf(d->tile, sizeof d->tile, "g=%d,n=%d,d=%d,wg=%d", 64 * wgs, bn, D, wgs);
    if (!load_graph(d, err) || !partition_default(d, err))
        return false;
    static const char *const rings[] = {"K", "V"};
    int hi = 150 * 1024 / (2 * 2 * bn * D); /* both rings of 16-bit blocks in ~150 KB */
    draw_stages(d, r, rings, 2, hi < 1 ? 1 : hi > 4 ? 4 : hi);
    /* plain; S of the next block issued before this block's softmax (the mma alone, or with the
     * softmax and rescale it feeds: look-ahead); FlashAttention-3's order (the rescale first on
     * its lane, in its own iteration) */
    const char *rescale = unsplit ? "rescale.O" : "rescale.Opart";
    const char *const next[] = {"mma.Sc", "softmax_max.P", "softmax_exp.P", "softmax_sum.P",
                                rescale};
    int sched = uni(r, 0, 3), n = sched == 1 ? 1 : sched == 2 ? 5 : sched == 3 ? 4 : 0;
    for (int i = 0; i < n; i++)
        ahead(d, next[i], wgs, 1, err);
    for (int w = 0; sched == 3 && w < wgs; w++) {
        char id[64];
        if (wgs > 1)
            snprintf(id, sizeof id, "%s.wg%d", rescale, w);
        else
            snprintf(id, sizeof id, "%s", rescale);
        int s = stask(d, id);
        if (s >= 0 && move_to(d, s, 0, entry_offset(d, s), err))
            note(d, "%s first on its CUDA-core lane", id);
    }
    if (chance(r, 25))
        set_offset(d, "load.K", pick(r, (const int[]){1, 2}, 2), err);
    store_role(d, r, wgs, err);
    draw_grid(d, r);
    return true;
}

bool draw_decoding(draw *d, rng *r, pt_error *err)
{
    return decoding(d, r, false, err);
}

bool draw_unsplit(draw *d, rng *r, pt_error *err)
{
    return decoding(d, r, true, err);
}

/* FlashDecoding's combine: any group count, any split count up to 128, tiles of any rows (a
 * multiple of 4 where X comes by TMA, G % 4 == 0) and 32-column multiples. */
bool draw_combine(draw *d, rng *r, pt_error *err)
{
    int G = chance(r, 50) ? uni(r, 1, 9) : pick(r, (const int[]){12, 16, 32, 64}, 4);
    int splits = chance(r, 70) ? uni(r, 1, 16) : pick(r, (const int[]){32, 50, 64, 128}, 4);
    int D = pick(r, (const int[]){32, 64, 96, 128, 128, 256}, 6);
    int Bt = uni(r, 1, 4), HKV = uni(r, 1, 8);
    int gt = G % 4 ? uni(r, 1, G) : 4 * uni(r, 1, G / 4);
    int dt = 32 * uni(r, 1, (D > 256 ? 256 : D) / 32);
    if (small_sizes) {
        Bt = HKV = 1;
        splits = splits > 16 ? 16 : splits;
    }
    /* Y's tile (every split of gt rows x dt columns, f32) stays in shared memory */
    while ((int64_t)splits * gt * dt * 4 > 160 * 1024 && dt > 32)
        dt -= 32;
    snprintf(d->set, sizeof d->set, "B=%d,HKV=%d,G=%d,SPLITS=%d,D=%d", Bt, HKV, G, splits, D);
    snprintf(d->tile, sizeof d->tile, "g=%d,d=%d,s=%d", gt, dt, splits);
    if (!load_graph(d, err) || !partition_default(d, err))
        return false;
    draw_grid(d, r);
    if (d->p.partition.persistent && chance(r, 50)) {
        d->p.partition.staging = PT_STAGING_APART;
        note(d, "output staged apart");
    }
    return true;
}
