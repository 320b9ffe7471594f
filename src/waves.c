/* waves.c — the kernel-level wave model: a kernel's time from one EU's simulation
 * (pt_simulate_eu, sim.c). Tiles are spread over the EUs in launch order (the raster walk of
 * raster.h and partition.order), either greedily onto the earliest free EU or, for persistent
 * kernels, round-robin over a fixed grid, less what a follow-on tile overlaps; causal tiles
 * interpolate between one and all iterations; an edge tile whose TMA boxes zero-fill rows
 * (tma_box.h) takes its own simulated time; the DRAM floor bounds the result. A split-K
 * program's work items are chunks of tiles with epilogues of their own: splitk_waves.c. */
#include "sim.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "raster.h"
#include "ring_reuse.h"
#include "sim_check.h"
#include "splitk.h"
#include "streamk.h"
#include "staging.h"
#include "tma_box.h"
#include "validate.h"
#include "waves.h"

_Static_assert(PT_RASTER_ROW == 0 && PT_RASTER_COLUMN == 1 && PT_RASTER_GROUPED == 2,
               "raster.h numbers the rasters as pt_raster does");

/* Above this many tiles the wave model uses its closed form instead of dispatching. */
#define PT_SIM_MAX_DISPATCH_TILES 4000000

void pt_launch_order_init(pt_launch_order *ro, const pt_sprogram *p, const pt_stask_graph *sg)
{
    ro->raster = p->partition.raster;
    ro->group = p->partition.group < 1 ? 1 : p->partition.group;
    ro->longest_first = pt_sprogram_longest_first(p, sg);
    ro->n_axes = sg->graph ? sg->graph->n_axes : PT_MAX_AXES;
    if (ro->n_axes < 0 || ro->n_axes > PT_MAX_AXES)
        ro->n_axes = PT_MAX_AXES;
    ro->slow = ro->fast = -1;
    for (int a = 0; a < ro->n_axes; a++) {
        ro->grid[a] = sg->tile_grid[a] < 1 ? 1 : sg->tile_grid[a];
        if (ro->grid[a] > 1)
            ro->slow = ro->fast, ro->fast = a;
    }
    if (ro->slow < 0)
        ro->raster = PT_RASTER_ROW; /* fewer than two tiled axes: every order is the same */
}

/* Row-major tile index of the tile launched at position j. */
static int64_t raster_tile(const pt_launch_order *ro, int64_t j)
{
    if (ro->raster == PT_RASTER_ROW)
        return j;
    int64_t S = ro->grid[ro->slow], F = ro->grid[ro->fast];
    int64_t q = j % (S * F), rest = j / (S * F), s, f;
    pt_raster_walk(q, (int)ro->raster, ro->group, S, F, &s, &f); /* as the kernels walk it */
    /* rest enumerates the other axes row-major; rebuild the full row-major index */
    int64_t coord[PT_MAX_AXES];
    for (int a = ro->n_axes - 1; a >= 0; a--) {
        if (a == ro->slow || a == ro->fast)
            continue;
        coord[a] = rest % ro->grid[a];
        rest /= ro->grid[a];
    }
    coord[ro->slow] = s;
    coord[ro->fast] = f;
    int64_t idx = 0;
    for (int a = 0; a < ro->n_axes; a++)
        idx = idx * ro->grid[a] + coord[a];
    return idx;
}

typedef struct {
    const pt_stask_graph *sg;
    bool interp;
    double t_one, t_full, overhead;
    uint32_t edge_axes;     /* tma_box.h: the last tile along these axes zero-fills rows */
    double e_one, e_full;   /* ... and takes this long (1 and all iterations) */
    double persist_saving;  /* per follow-on tile of a persistent CTA */
    double claim;           /* per tile claimed from a dynamic hand-out (hw dynamic_claim_ns) */
    int64_t iters_full;
} tile_model;

static double tile_time(const tile_model *tm, int64_t tile)
{
    bool edge = pt_box_tile_is_edge(tm->sg, tm->edge_axes, tile);
    double full = edge ? tm->e_full : tm->t_full, one = edge ? tm->e_one : tm->t_one;
    double t = full;
    if (tm->interp) {
        int64_t i = pt_stask_graph_tile_iterations(tm->sg, tile);
        t = one + (double)(i - 1) * (full - one) / (double)(tm->iters_full - 1);
        if (t < 0)
            t = 0;
    }
    return t + tm->overhead;
}

/* Longest first (partition.order, pt_sprogram_longest_first; the generated kernels read the
 * same answer): the causal row axis of the tile at launch position j is walked backwards. */
int64_t pt_launch_order_tile(const pt_launch_order *ro, const pt_stask_graph *sg, int64_t j)
{
    int64_t idx = raster_tile(ro, j);
    if (!ro->longest_first || sg->causal_op < 0 || !sg->graph)
        return idx;
    int row = sg->graph->ops[sg->causal_op].row_axis;
    int64_t coord[PT_MAX_AXES], rest = idx;
    for (int a = ro->n_axes - 1; a >= 0; a--) {
        coord[a] = rest % ro->grid[a];
        rest /= ro->grid[a];
    }
    if (row >= 0 && row < ro->n_axes)
        coord[row] = ro->grid[row] - 1 - coord[row];
    idx = 0;
    for (int a = 0; a < ro->n_axes; a++)
        idx = idx * ro->grid[a] + coord[a];
    return idx;
}

static void heap_sift_down(double *h, int64_t n, int64_t i)
{
    for (;;) {
        int64_t l = 2 * i + 1, m = i;
        if (l < n && h[l] < h[m])
            m = l;
        if (l + 1 < n && h[l + 1] < h[m])
            m = l + 1;
        if (m == i)
            return;
        double t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* Makespan of the whole grid; false only when out of memory. */
static bool makespan(const pt_sprogram *p, const pt_stask_graph *sg, const tile_model *tm,
                     int64_t tiles, int64_t eus, double *out)
{
    pt_launch_order ro;
    pt_launch_order_init(&ro, p, sg);
    int64_t slots = tiles < eus ? tiles : eus;
    double *h = calloc((size_t)slots + 1, sizeof *h), best = 0;
    if (!h)
        return false;
    if (p->partition.persistent && (!tm->interp || pt_sprogram_run(p) > 1)) {
        /* CTA c owns launch positions c, c + grid, ... (a static schedule, whatever an edge
         * tile costs), or with runs of R positions runs c, c + grid, ... (causal tiles too:
         * runs are not handed out): its time is their sum, less what a follow-on tile overlaps
         * with the one before it */
        int64_t R = pt_sprogram_run(p);
        for (int64_t j = 0; j < tiles; j++) {
            int64_t c = (j / R) % slots;
            h[c] += tile_time(tm, pt_launch_order_tile(&ro, sg, j)) - (h[c] > 0 ? tm->persist_saving : 0);
        }
        for (int64_t c = 0; c < slots; c++)
            best = h[c] > best ? h[c] : best;
    } else {
        /* each tile goes to the EU that frees first (a min-heap of EU free times): the
         * hardware's block scheduler, or a persistent kernel's dynamic hand-out of unequal
         * (causal) tiles, whose follow-on tiles overlap the one before, each claimed with an
         * atomic before its loads (dynamic_claim_ns) */
        bool claims = p->partition.persistent;
        for (int64_t j = 0; j < tiles; j++) {
            h[0] += tile_time(tm, pt_launch_order_tile(&ro, sg, j)) -
                    (claims && j >= slots ? tm->persist_saving - tm->claim : 0);
            best = h[0] > best ? h[0] : best;
            heap_sift_down(h, slots, 0);
        }
    }
    free(h);
    *out = best;
    return true;
}

double pt_waves_launch_ns(const pt_hw *hw, double floor)
{
    if (hw->launch_ramp_floor_ns <= 0 || floor >= hw->launch_ramp_floor_ns)
        return hw->launch_ns;
    double f = floor > 0 ? floor / hw->launch_ramp_floor_ns : 0;
    return hw->launch_base_ns + (hw->launch_ns - hw->launch_base_ns) * f;
}

double pt_waves_kernel_ns(const pt_hw *hw, double span, double floor)
{
    double t = span > floor ? span : floor;
    double p = hw->dram_blend_p;
    if (p > 0 && floor > 0 && span > 0) {
        /* scaled by the larger term so the powers cannot overflow */
        double a = span / t, b = floor / t;
        t *= pow(pow(a, p) + pow(b, p), 1 / p);
    }
    return t + pt_waves_launch_ns(hw, floor);
}

/* The bytes tensor t moves to or from global memory once: 0 for an intermediate, and for a
 * view, which shares storage with the tensor it re-indexes (that one counts). */
static double compulsory_bytes(const pt_graph *g, int t)
{
    const pt_tensor *tn = &g->tensors[t];
    if (tn->view_of >= 0 || tn->role == PT_ROLE_INTERMEDIATE)
        return 0;
    int64_t bits = pt_tensor_elems(g, tn) * (int64_t)pt_dtype_bits(tn->dtype);
    return (double)((bits + 7) / 8);
}

double pt_waves_dram_bytes(const pt_stask_graph *sg)
{
    const pt_graph *g = sg->graph;
    double bytes = 0;
    for (int t = 0; g && t < g->n_tensors && t < PT_MAX_TENSORS; t++)
        bytes += compulsory_bytes(g, t);
    return bytes;
}

int64_t pt_waves_load_run_bytes(const pt_stask_graph *sg, int t)
{
    const pt_graph *g = sg->graph;
    if (!g || t < 0 || t >= g->n_tensors || !sg->tasks)
        return 0;
    const pt_tensor *tn = &g->tensors[t];
    for (int s = 0; s < sg->n; s++) {
        const pt_stask *st = &sg->tasks[s];
        if (st->kind != PT_ST_LOAD || st->tensor != t || st->rank != tn->rank || tn->rank < 1)
            continue;
        int64_t bits = pt_dtype_bits(tn->dtype), run = 0;
        for (int i = tn->rank - 1; i >= 0; i--) {
            int64_t ext = g->axes[tn->axes[i]].extent;
            int64_t tile = st->tile[i] > 0 && st->tile[i] < ext ? st->tile[i] : ext;
            if (i == tn->rank - 1)
                run = (tile * bits + 7) / 8;
            else
                run *= tile;
            if (tile < ext) /* the rows are not read whole: the run ends here */
                break;
        }
        return run;
    }
    return 0;
}

/* hbm_write_gbps, or hbm_gbps where the model has no write rate */
static double write_rate(const pt_hw *hw)
{
    return hw->hbm_write_bytes_per_ns > 0 ? hw->hbm_write_bytes_per_ns : hw->hbm_bytes_per_ns;
}

double pt_waves_workspace_ns(const pt_hw *hw, double written, double read)
{
    return hw->hbm_bytes_per_ns > 0 ? read / hw->hbm_bytes_per_ns + written / write_rate(hw) : 0;
}

/* Under 256 bytes a run streams at dram_short_run of the rate (round 125,
 * bench/tma/promotion_probe.cu: one 128-byte atom of each 8-KB row per stage streamed 4.23 TB/s
 * where longer runs streamed 4.42), and slower again under 128: bench/tma/run_probe.cu on an
 * H100 (112 CTAs streaming 2-KB weight rows, 256-byte L2 promotion) read 64-byte runs 4-9%
 * slower than 128-byte runs with as many rows a stage and bytes in flight, and low-bit GEMMs
 * with k tiles of 128 (64-byte runs of 4-bit weights) ran 7-17% slower than with k 256, where
 * the model had them equal: dram_run_halving per halving, fitted on those kernels
 * (BENCHMARKS.md, session 39). */
double pt_waves_run_rate(const pt_hw *hw, int64_t run)
{
    if (run <= 0 || run >= 256)
        return 1;
    double f = hw->dram_short_run > 0 ? hw->dram_short_run : 1;
    for (int64_t r = run; hw->dram_run_halving > 0 && r < 128; r *= 2)
        f *= hw->dram_run_halving;
    return f;
}

double pt_waves_ring_inflight_bytes(const pt_sprogram *p, const pt_stask_graph *sg)
{
    if (!p || !sg || !sg->tasks || !sg->graph)
        return 0;
    int64_t depth = 0;
    double step = 0;
    for (int s = 0; s < sg->n; s++) {
        const pt_stask *t = &sg->tasks[s];
        if (t->kind != PT_ST_LOAD || !t->buffered || t->region != PT_REGION_BODY ||
            t->tensor < 0 || t->tensor >= PT_MAX_TENSORS)
            continue;
        int64_t st = p->stages[t->tensor] > 0 ? p->stages[t->tensor] : 1;
        depth = depth == 0 || st < depth ? st : depth;
        step += (double)t->bytes;
    }
    return (double)depth * step;
}

/* Reading further ahead costs a kernel that also writes. Measured on an H100: ChunkState (reads
 * x, writes as many bytes of f32 states) ran 8-11% longer with its rings 3 or 4 stages ahead
 * than 2 (ncu: the same DRAM bytes; the instrumented build: each load 2.7 -> 3.9 us from issue
 * to arrival), and bench/tma/rw_probe.cu, its traffic with no arithmetic, 2-4% longer with the
 * store and 4-9% shorter without it (BENCHMARKS.md, session 40). So the loss grows with the
 * written share of the bytes, none with none written; the rate is fitted on the kernels. */
double pt_waves_overfill_rate(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                              int64_t ctas, int64_t items)
{
    if (!sg || !sg->graph || hw->dram_overfill_ns <= 0 || hw->dram_overfill_doubling <= 0 ||
        hw->hbm_bytes_per_ns <= 0 || ctas < 1)
        return 1;
    const pt_graph *g = sg->graph;
    double all = pt_waves_dram_bytes(sg), written = 0;
    for (int t = 0; t < g->n_tensors && t < PT_MAX_TENSORS; t++)
        if (g->tensors[t].role == PT_ROLE_OUTPUT)
            written += compulsory_bytes(g, t);
    double share = all > 0 ? 2 * written / all : 0;
    if (share > 1)
        share = 1;
    if (ctas > hw->eu_count)
        ctas = hw->eu_count;
    /* a CTA's first work item reads with nothing written beside it */
    double per_cta = (double)items / (double)ctas;
    if (per_cta > 1)
        share *= (per_cta - 1) / per_cta;
    else
        share = 0;
    double chip = pt_waves_ring_inflight_bytes(p, sg) * (double)ctas;
    double cap = hw->hbm_bytes_per_ns * hw->dram_overfill_ns;
    return chip > cap && share > 0 ? pow(hw->dram_overfill_doubling, share * log2(chip / cap)) : 1;
}

double pt_waves_kernel_floor_ns(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                                int64_t ctas, int64_t items, double written, double read)
{
    return (pt_waves_dram_floor_ns(sg, hw) + pt_waves_workspace_ns(hw, written, read)) /
           pt_waves_overfill_rate(p, sg, hw, ctas, items);
}

double pt_waves_dram_floor_ns(const pt_stask_graph *sg, const pt_hw *hw)
{
    const pt_graph *g = sg->graph;
    if (!g || hw->hbm_bytes_per_ns <= 0)
        return 0;
    double ns = 0;
    for (int t = 0; t < g->n_tensors && t < PT_MAX_TENSORS; t++) {
        const pt_tensor *tn = &g->tensors[t];
        double bytes = compulsory_bytes(g, t);
        if (bytes <= 0)
            continue;
        /* only along the loop: the next stage reads the rest of the row, as in the probe;
         * a row cut across an output axis ([k][n] B at n 64) is read by the next tile */
        bool along_loop = tn->rank > 0 && tn->axes[tn->rank - 1] == sg->loop_axis;
        int64_t run = tn->role == PT_ROLE_INPUT && along_loop ? pt_waves_load_run_bytes(sg, t) : 0;
        /* an output's bytes are written, at their own rate where the model has one */
        double rate = tn->role == PT_ROLE_OUTPUT ? write_rate(hw) : hw->hbm_bytes_per_ns;
        ns += bytes / (rate * pt_waves_run_rate(hw, run));
    }
    return ns;
}

/* Each consumer warpgroup storing its own rows (tiling wg_stores) needs no barrier among the
 * warpgroups at the tile's end: the one that finishes its epilogue first starts the next tile
 * at once, where a joint store holds it until the last one is done (the staging buffer is
 * free again only after the store that reads it all). The simulated tile starts its warpgroups
 * together, so the stagger a joint store realigns every tile (the last warpgroup's last
 * compute end less the first's) is what the follow-on tile can win; hw.wg_store_stagger says
 * how much of it does (the warpgroups still meet on the shared tensor and CUDA cores).
 * role_end: each role's last compute end (0: none), last: the latest of them. */
static double wg_store_stagger(const double *role_end, int n_roles, double last,
                               const pt_stask_graph *sg, const pt_hw *hw)
{
    if (!sg->tiling.wg_stores || sg->tiling.warpgroups < 2 || !(hw->wg_store_stagger > 0))
        return 0;
    double first = last;
    for (int r = 0; r < n_roles; r++)
        if (role_end[r] > 0 && role_end[r] < first)
            first = role_end[r];
    return hw->wg_store_stagger * (last - first);
}

/* A persistent CTA runs its tiles back to back and pays no block launch (tile_overhead_ns).
 * When the loads' lane is free to run ahead, the producer also loads the next tile while the
 * consumers finish the current one, so a follow-on tile hides the final store and part of the
 * pipeline fill (everything before the first compute sTask starts: the first loads' latency):
 * all of it when every load streams through a ring, but only as much as this tile's epilogue
 * lasts when a resident tile (attention's Q) must wait for the loop to finish with it. When the
 * store sits on the loads' lane, nothing is hidden: the next tile's first loads wait behind the
 * store, as in a new CTA. Measured (BENCHMARKS.md, FlashAttention): store on the producer lane
 * 25-74% slower than the fill-hiding model; hiding the whole fill despite a resident Q put the
 * model's error at -18% (median, causal) against -6% for one-tile-per-CTA programs. */
double pt_waves_persistent_saving(const pt_sprogram *p, const pt_stask_graph *sg,
                                  const pt_timeline *tl, const pt_hw *hw)
{
    /* with O staged over the resident Q, the next Q waits for the store to read it */
    if (pt_sprogram_store_lane_loads(p, sg) >= 0 || !pt_sprogram_staging_apart(p, sg, hw))
        return hw->tile_overhead_ns;
    double first_compute = -1, last_compute = 0, last_body = 0, role_end[PT_MAX_ROLES] = {0};
    for (int64_t i = 0; i < tl->n_spans; i++) {
        const pt_span *s = &tl->spans[i];
        if (s->lane < 0 || s->lane >= p->n_lanes || p->lanes[s->lane].seu == PT_SEU_TMA)
            continue;
        if (first_compute < 0 || s->start_ns < first_compute)
            first_compute = s->start_ns;
        if (s->end_ns > last_compute)
            last_compute = s->end_ns;
        int r = p->lanes[s->lane].role;
        if (r >= 0 && r < PT_MAX_ROLES && s->end_ns > role_end[r])
            role_end[r] = s->end_ns;
        if (s->stask >= 0 && s->stask < sg->n && sg->tasks[s->stask].region == PT_REGION_BODY &&
            s->end_ns > last_body)
            last_body = s->end_ns;
    }
    if (first_compute < 0)
        return hw->tile_overhead_ns;
    double tail = tl->eu_time_ns - last_compute;
    /* A resident tile (attention's Q) is reloaded only once the loop is done with it, so the
     * next tile's fill overlaps no more than this tile's epilogue (normalize). A second copy
     * (stages 2: the next tile's loaded during this one) is credited nothing more: measured, it
     * saved 0-6% where hiding the whole fill predicted 5-17% (BENCHMARKS.md, session 16), so
     * what the consumers pay per tile is not the fill this model would hide. */
    double fill = first_compute, epilogue = last_compute - last_body;
    if (pt_stask_graph_has_resident_load(sg) && epilogue < fill)
        fill = epilogue > 0 ? epilogue : 0;
    /* A prologue product issued a tile ahead (offset 1, ChunkScan's C . statesᵀ) runs during
     * the tile before's epilogue: the follow-on tile's chain starts without it, as much of it
     * as that epilogue lasts. Measured on the H100 (BENCHMARKS.md, session 43): 1-1.5% of the
     * ChunkScan pick at 8 x 2048-4096. */
    double ahead = 0;
    for (int64_t i = 0; i < tl->n_spans; i++) {
        const pt_span *sp = &tl->spans[i];
        int lane, pos;
        if (!pt_stask_prologue_product(sg, sp->stask) ||
            !pt_sprogram_placement(p, sp->stask, &lane, &pos) || p->lanes[lane].entries[pos].offset != 1)
            continue;
        if (sp->end_ns - sp->start_ns > ahead)
            ahead = sp->end_ns - sp->start_ns;
    }
    if (ahead > epilogue)
        ahead = epilogue > 0 ? epilogue : 0;
    int n_roles = p->n_roles < PT_MAX_ROLES ? p->n_roles : PT_MAX_ROLES;
    return fill + ahead + wg_store_stagger(role_end, n_roles, last_compute, sg, hw) +
           (tail > 0 ? tail : 0) + hw->tile_overhead_ns;
}

/* The load rates of the hardware model are per EU with every EU streaming: the whole chip's
 * L2 bandwidth shared eu_count ways (l2_gbps / eu_count). A grid of fewer CTAs than EUs
 * leaves that bandwidth to fewer EUs, each up to its own L2 port (l2_sm_gbps): small-M
 * GEMMs of 64-96 tiles load faster per SM than a full wave does. (The stores are left at
 * their calibrated rate: given the write rate's share the same way, the model's picks for
 * 8B.o at M 64 moved to n 128 with three K splits, measured 10% slower on an H100,
 * BENCHMARKS.md session 34.) Returns the model to simulate one EU with (hw itself when
 * nothing changes). */
const pt_hw *pt_waves_few_ctas(const pt_hw *hw, int64_t active, pt_hw *local)
{
    if (active < 1 || active >= hw->eu_count ||
        (!(hw->l2_sm_bytes_per_ns > 0) && !(hw->cuda_core_power > 0)))
        return hw;
    *local = *hw;
    /* The clock drop at the power cap (cuda_core_power, sim.c) is the whole chip's: fitted on
     * full grids, it falls with the share of SMs busy. The profiled 16-CTA FlashDecoding
     * partial ran its softmax pieces at the calibrated rates, no slower (BENCHMARKS.md,
     * session 34). */
    local->cuda_core_power = hw->cuda_core_power * (double)active / (double)hw->eu_count;
    if (!(hw->l2_sm_bytes_per_ns > 0))
        return local;
    double share = hw->l2_bytes_per_ns / (double)active;
    double cap = share < hw->l2_sm_bytes_per_ns ? share : hw->l2_sm_bytes_per_ns;
    for (int d = 0; d < PT_DTYPE_COUNT; d++) {
        pt_cost *c = &local->cost[PT_ST_LOAD][d];
        if (c->rate > 0 && cap > c->rate)
            c->rate = cap;
    }
    return local;
}

/* A last wave of `tail` CTAs after full ones: they share the L2 fewer ways (pt_waves_few_ctas),
 * so each loads faster than in a full wave. Measured (round 133): 160 tiles of n 64 with 6
 * stages (one CTA per SM) ran 52.7 us where two full-length waves would take 69.5. */
bool pt_waves_tail_time(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                        int64_t tail, double *t, pt_error *err)
{
    pt_hw local;
    const pt_hw *th = pt_waves_few_ctas(hw, tail, &local);
    if (th == hw)
        return true;
    pt_timeline x;
    if (!pt_simulate_eu(p, sg, th, sg->iterations, &x, err))
        return false;
    /* the tail's CTAs also share DRAM: no faster than their compulsory bytes at hbm_gbps */
    double dram = sg->tiles > 0 ? pt_waves_dram_floor_ns(sg, hw) * (double)tail / (double)sg->tiles
                                : 0;
    double tt = x.eu_time_ns > dram ? x.eu_time_ns : dram;
    if (tt < *t)
        *t = tt;
    pt_timeline_free(&x);
    return true;
}

/* The edge tile's time (tma_box.h), at 1 and all iterations as the interior tile's. */
static bool edge_times(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                       tile_model *tm, pt_error *err)
{
    pt_timeline e = {0};
    if (!pt_simulate_item(p, sg, hw, sg->iterations, PT_CHUNK_WHOLE, 0, true, &e, err))
        return false;
    tm->e_full = tm->e_one = e.eu_time_ns;
    pt_timeline_free(&e);
    if (tm->interp) {
        if (!pt_simulate_item(p, sg, hw, 1, PT_CHUNK_WHOLE, 0, true, &e, err))
            return false;
        tm->e_one = e.eu_time_ns;
        pt_timeline_free(&e);
    }
    return true;
}

/* Runs of launch positions that keep rings across tiles (ring_reuse.h): the tiles that find
 * them kept run without those loads, so a tile's time is the mean of the two by how many do.
 * What the order does to DRAM (which tiles run at once) is not modelled. */
static bool kept_rings(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                       int64_t grid, tile_model *tm, pt_error *err)
{
    double f = 0;
    uint32_t kept = pt_ring_reuse_best(p, sg, hw, grid, &f);
    if (!kept || !(f > 0))
        return true;
    pt_timeline k;
    if (!pt_simulate_kept(p, sg, hw, sg->iterations, PT_CHUNK_WHOLE, pt_sprogram_split_k(p) - 1,
                          false, kept, &k, err))
        return false;
    double t = k.eu_time_ns;
    pt_timeline_free(&k);
    if (t < tm->t_full && tm->t_full > 0) {
        /* under a causal mask the fraction is of the full tiles, whose time this is */
        double mean = tm->t_full - f * (tm->t_full - t), r = mean / tm->t_full;
        tm->e_full *= r;
        tm->t_full = mean;
        if (!tm->interp) {
            tm->e_one *= r;
            tm->t_one = mean;
        }
    }
    return true;
}

/* The kernel alone (pt_simulate adds the staging copies around it). */
static bool simulate_kernel(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw_in,
                            pt_timeline *tl, pt_error *err)
{
    memset(tl, 0, sizeof *tl);
    if (!p || !sg || !hw_in)
        return pt_fail(err, "simulate: missing program, sTask-graph or hardware model");
    if (hw_in->eu_count < 1)
        return pt_fail(err, "simulate: hardware %s has %d EUs; expected at least 1",
                       hw_in->name, hw_in->eu_count);
    pt_hw local;
    if (pt_sprogram_split_k(p) > 1) /* its own work items and epilogues: splitk_waves.c */
        return pt_waves_split_k(p, sg, hw_in, tl, err);
    if (pt_sprogram_stream_k(p) > 1) /* a fixed grid walking (tile, k) ranges: streamk_waves.c */
        return pt_waves_stream_k(p, sg, hw_in, tl, err);
    const pt_hw *hw = pt_waves_few_ctas(hw_in, sg->tiles, &local);
    tile_model tm = {.sg = sg, .iters_full = sg->iterations, .overhead = hw->tile_overhead_ns,
                     .claim = hw->dynamic_claim_ns};
    if (!pt_simulate_eu(p, sg, hw, sg->iterations, tl, err))
        return false;
    tm.t_full = tm.t_one = tl->eu_time_ns;
    tm.interp = sg->causal_op >= 0 && tm.iters_full > 1;
    if (tm.interp) {
        /* causal tiles run fewer iterations: interpolate between 1 and the full count */
        pt_timeline one;
        if (!pt_simulate_eu(p, sg, hw, 1, &one, err)) {
            pt_timeline_free(tl);
            return false;
        }
        tm.t_one = one.eu_time_ns;
        pt_timeline_free(&one);
    }
    tm.e_full = tm.t_full;
    tm.e_one = tm.t_one;
    tm.edge_axes = pt_box_edge_axes(sg, hw);
    if (tm.edge_axes && !edge_times(p, sg, hw, &tm, err)) {
        pt_timeline_free(tl);
        return false;
    }
    int64_t tiles = sg->tiles > 0 ? sg->tiles : 0, eus = hw->eu_count;
    if (p->partition.persistent)
        tm.persist_saving = pt_waves_persistent_saving(p, sg, tl, hw);
    /* runs of R launch positions are dealt round-robin (R = 1: positions) */
    int64_t R = pt_sprogram_run(p), runs = (tiles + R - 1) / R;
    if (!kept_rings(p, sg, hw, runs < eus ? runs : eus, &tm, err)) {
        pt_timeline_free(tl);
        return false;
    }
    double span = 0;
    /* equal tiles (no causal mask, no slower edge tile) fill whole waves: the dispatch would
     * give exactly this */
    bool equal = !tm.interp && !tm.edge_axes;
    if ((tiles > PT_SIM_MAX_DISPATCH_TILES || equal) && p->partition.persistent) {
        int64_t per_cta = (runs + eus - 1) / eus * R; /* the busiest CTA's tiles */
        if (per_cta > tiles)
            per_cta = tiles;
        span = per_cta > 0 ? (double)per_cta * (tm.t_full + tm.overhead) -
                                 (double)(per_cta - 1) * tm.persist_saving
                           : 0;
    } else if (tiles > PT_SIM_MAX_DISPATCH_TILES || equal) {
        int64_t full = tiles / eus, tail = tiles % eus;
        double t_tail = tm.t_full;
        if (full > 0 && tail > 0 && !pt_waves_tail_time(p, sg, hw_in, tail, &t_tail, err)) {
            pt_timeline_free(tl);
            return false;
        }
        span = (double)full * (tm.t_full + tm.overhead) + (tail > 0 ? t_tail + tm.overhead : 0);
    } else if (tiles > 0 && !makespan(p, sg, &tm, tiles, eus, &span)) {
        pt_timeline_free(tl);
        return pt_fail(err, "simulate: out of memory for %lld tiles", (long long)tiles);
    }
    tl->tiles = tiles;
    tl->split_k = 1;
    tl->work_items = tiles;
    tl->grid = p->partition.persistent ? (tiles < eus ? tiles : eus) : tiles;
    tl->waves = (tiles + eus - 1) / eus;
    tl->dram_bytes = pt_waves_dram_bytes(sg);
    tl->dram_floor_ns = pt_waves_kernel_floor_ns(p, sg, hw, tl->grid, tiles, 0, 0);
    tl->kernel_time_ns = pt_waves_kernel_ns(hw, span, tl->dram_floor_ns);
    tl->flops = pt_stask_graph_total_flops(sg);
    tl->tflops = tl->kernel_time_ns > 0 ? tl->flops / tl->kernel_time_ns / 1e3 : 0;
    if (!pt_sim_timeline_finite(tl)) {
        pt_timeline_free(tl);
        return pt_sim_not_finite(hw, err);
    }
    return true;
}


/* The kernel and, for a graph with unaligned rows, the launcher's staging copies around it
 * (src/staging.h): they run before and after the kernel on the same stream, so their time adds. */
bool pt_simulate(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw_in,
                 pt_timeline *tl, pt_error *err)
{
    if (!simulate_kernel(p, sg, hw_in, tl, err))
        return false;
    pt_staging_cost c = pt_staging_cost_of(sg->graph, hw_in);
    if (c.copies == 0)
        return true;
    tl->staged = c.copies;
    tl->staging_bytes = c.bytes;
    tl->staging_ns = c.ns;
    tl->kernel_time_ns += c.ns;
    tl->tflops = tl->kernel_time_ns > 0 ? tl->flops / tl->kernel_time_ns / 1e3 : 0;
    if (!pt_sim_timeline_finite(tl)) {
        pt_timeline_free(tl);
        return pt_sim_not_finite(hw_in, err);
    }
    return true;
}

void pt_waves_take_eu(pt_timeline *tl, const pt_timeline *rep)
{
    tl->spans = rep->spans;
    tl->n_spans = rep->n_spans;
    tl->n_lanes = rep->n_lanes;
    memcpy(tl->lane_busy_ns, rep->lane_busy_ns, sizeof tl->lane_busy_ns);
    memcpy(tl->lane_occupied_ns, rep->lane_occupied_ns, sizeof tl->lane_occupied_ns);
    tl->eu_time_ns = rep->eu_time_ns;
    tl->eu_iterations = rep->eu_iterations;
}
