/* pass_grid.c — the tile grid: how many output tiles, how many CTAs run them and in which
 * order, and how many trace records a CTA's role may write.
 *
 * One CTA per output tile, or (persistent) one per EU looping over tiles; under a causal mask
 * a persistent kernel hands tiles out one by one in launch order (longest first), since
 * round-robin would leave the CTAs that drew the long tiles running alone at the end. The
 * order is the sProgram's partition (raster, group, order), read the way the simulator reads
 * it (src/raster.h, pt_sprogram_longest_first). */
#include "codegen.h"
#include "passes.h"
#include "ring_reuse.h"
#include "splitk.h"
#include "streamk.h"
#include "trace_abi.h"
#include "validate.h"

/* An upper bound on one (CTA, role)'s records: a start and an end record for every sTask
 * instance of every work item the CTA runs (each role records only some of them). */
static unsigned trace_cap(const pt_stask_graph *sg, int64_t tiles, int64_t grid)
{
    int64_t per_tile = 0, iters = sg->iterations > 0 ? sg->iterations : 1;
    for (int s = 0; s < sg->n; s++)
        per_tile += sg->tasks[s].region == PT_REGION_BODY ? iters : 1;
    int64_t per_cta = grid > 0 ? (tiles + grid - 1) / grid : 1;
    /* a dynamic hand-out may give one CTA twice its share of the (shorter) tiles */
    if (sg->causal_op >= 0 && per_cta > 1)
        per_cta *= 2;
    int64_t n = 2 * per_tile * (per_cta > 0 ? per_cta : 1) + 16;
    if (n < 64)
        n = 64;
    return n > (int64_t)PT_TRACE_CAP ? PT_TRACE_CAP : (unsigned)n;
}

/* Stream-K (src/streamk.h): the grid is the partition's, every CTA persistent; a CTA runs at
 * most its DP tiles and two stream-K segments (its range is shorter than one tile's loop). */
static bool stream_k_grid(pt_kprog *kp, const char *who, pt_error *err)
{
    kp->stream_k = pt_sprogram_stream_k(kp->p);
    if (!kp->stream_k)
        return true;
    char why[160];
    if (!pt_split_k_possible(kp->sg, why, sizeof why))
        KREFUSE("%s: partition.stream_k = %d: %s", who, kp->stream_k, why);
    if (kp->split_k > 1)
        KREFUSE("%s: partition.stream_k = %d with partition.split_k = %d; expected one of them",
                who, kp->stream_k, kp->split_k);
    if (!pt_stream_k_init(&kp->sk, kp->tiles, kp->iters, kp->stream_k))
        KREFUSE("%s: partition.stream_k = %d over %lld tiles of %lld iterations; expected a "
                "reduction loop", who, kp->stream_k, (long long)kp->tiles, (long long)kp->iters);
    kp->workspace_bytes = pt_stream_k_ws_tiles(&kp->sk) * pt_split_k_tile_elems(kp->sg) * 4;
    if (kp->workspace_bytes > (256LL << 20))
        KREFUSE("%s: partition.stream_k = %d needs %lld MB of workspace for the partial tiles; "
                "at most 256 MB are generated (use a smaller grid or tile)", who, kp->stream_k,
                (long long)(kp->workspace_bytes >> 20));
    kp->persistent = true;
    kp->grid = kp->sk.grid;
    kp->items = kp->grid * (kp->sk.dp_per_cta + 2);
    return true;
}

bool pt_kpass_grid(pt_kprog *kp, const char *who, pt_error *err)
{
    const pt_sprogram *p = kp->p;
    kp->tiles = kp->sg->tiles;
    kp->iters = kp->sg->iterations;
    if (kp->tiles < 1 || kp->tiles > (1LL << 31) - 1)
        KREFUSE("%s: %lld output tiles; expected 1 to 2^31 - 1", who, (long long)kp->tiles);
    kp->persistent = p->partition.persistent;
    kp->raster = p->partition.raster;
    kp->group = p->partition.group > 0 ? p->partition.group : 1;
    kp->causal = kp->sg->causal_op >= 0;
    kp->longest_first = pt_sprogram_longest_first(p, kp->sg);
    kp->split_k = pt_sprogram_split_k(p);
    kp->items = kp->tiles * kp->split_k;
    if (kp->split_k > 1) {
        char why[160];
        if (!pt_split_k_possible(kp->sg, why, sizeof why))
            KREFUSE("%s: partition.split_k = %d: %s", who, kp->split_k, why);
        int64_t elems = pt_split_k_tile_elems(kp->sg);
        kp->cluster = pt_split_k_cluster(p);
        if (kp->cluster && kp->persistent)
            KREFUSE("%s: partition.split_k_reduce cluster needs one tile per CTA (persistent "
                    "false)", who);
        kp->workspace_bytes = kp->cluster ? 0
                                          : kp->tiles * pt_split_k_ws_slots(kp->split_k, elems) * elems * 4;
        if (kp->workspace_bytes > (256LL << 20))
            KREFUSE("%s: partition.split_k = %d over %lld tiles needs %lld MB of workspace for the "
                    "partial tiles; at most 256 MB are generated (split fewer ways or only where "
                    "tiles are few)", who, kp->split_k, (long long)kp->tiles,
                    (long long)(kp->workspace_bytes >> 20));
    }
    kp->grid = kp->persistent && kp->items > kp->hw->eu_count ? kp->hw->eu_count : kp->items;
    if (!stream_k_grid(kp, who, err))
        return false;
    kp->run = pt_sprogram_run(p);
    /* causal tiles are handed out one by one, except in runs (a static walk) */
    kp->dynamic = kp->persistent && kp->causal && kp->grid < kp->tiles && kp->run == 1;
    if (kp->run > 1 && (!kp->persistent || kp->split_k > 1 || kp->stream_k))
        KREFUSE("%s: partition.run = %d needs a persistent grid of whole tiles (no split-K or "
                "stream-K)", who, kp->run);
    if (kp->run > 1) { /* a CTA per run at most */
        int64_t runs = (kp->tiles + kp->run - 1) / kp->run;
        kp->grid = runs < kp->grid ? runs : kp->grid;
    }
    kp->kept = pt_ring_reuse_tensors(p, kp->sg, kp->hw);
    kp->trace_cap = trace_cap(kp->sg, kp->items, kp->grid);
    kp->threads = 128 * (1 + kp->wgs); /* a role is one warpgroup */
    pt_codegen_c_ident("pt_", kp->g->name, kp->kernel_name, sizeof kp->kernel_name);
    return true;
}
