/* streamk_waves.c — the kernel time of a stream-K program (streamk.h). Every CTA of the grid
 * runs its segments in order: its whole data-parallel tiles, then its range of the stream-K
 * (tile, k-iteration) pairs tile by tile. A segment costs its loop (one EU simulation of that
 * many iterations) and its ending: the usual epilogue when the CTA has the tile alone, else a
 * partial f32 tile published to the workspace, or, for the CTA that arrives last (its ticket
 * is the tile's last), the fix-up that reads and adds the others' partial tiles and stores.
 * Tickets go in arrival order, so the CTAs are advanced in the order of their next loop's end
 * (an event simulation of the ticket scheme); a fix-up also waits for the others' publishing.
 * To keep this cheap for the scheduler the loop time of n iterations is simulated exactly for
 * n <= EXACT_ITERS and for the full trip count, and interpolated linearly in between (a
 * pipelined loop's time is affine in its trip count past the fill); each ending's duration
 * comes from one simulation at the full trip count (the fix-up's at one and two partial tiles,
 * linear in their number). */
#include <stdlib.h>
#include <string.h>

#include "sim_check.h"
#include "splitk.h"
#include "streamk.h"
#include "tma_box.h"
#include "waves.h"

#define EXACT_ITERS 4

typedef struct sk_costs {
    const pt_sprogram *p;
    const pt_stask_graph *sg;
    const pt_hw *hw;
    bool edge;                       /* these are an edge tile's costs (tma_box.h) */
    const struct sk_costs *edge_costs; /* the edge tiles' costs; NULL when none is slower */
    uint32_t edge_axes;
    pt_launch_order order;
    pt_stream_k s;
    double arrive[EXACT_ITERS + 1];  /* loop end of n iterations, n <= EXACT_ITERS */
    double arrive_full;              /* ... of the full trip count */
    double epi_whole, epi_part, epi_fix1, epi_fix2; /* each ending, from the loop's end */
    double saving;                   /* what a CTA's follow-on segment overlaps */
} sk_costs;

/* The loop's end and the whole item's time of one simulation. */
static bool sim_item(const sk_costs *k, int64_t iters, pt_chunk_end end, int others,
                     double *arrive, double *time, pt_error *err)
{
    pt_timeline tl = {0};
    if (!pt_simulate_item(k->p, k->sg, k->hw, iters, end, others, k->edge, &tl, err))
        return false;
    double first = 0, body = -1, before = -1;
    for (int64_t i = 0; i < tl.n_spans; i++) {
        const pt_span *sp = &tl.spans[i];
        if (i == 0 || sp->issue_ns < first)
            first = sp->issue_ns;
        if (sp->stask < 0 || sp->stask >= k->sg->n)
            continue;
        pt_region r = k->sg->tasks[sp->stask].region;
        if (r == PT_REGION_BODY && sp->end_ns > body)
            body = sp->end_ns;
        if (r != PT_REGION_EPILOGUE && sp->end_ns > before)
            before = sp->end_ns;
    }
    double at = body >= 0 ? body : before;
    *arrive = at > first ? at - first : 0;
    *time = tl.eu_time_ns;
    pt_timeline_free(&tl);
    return true;
}

static bool costs_init(sk_costs *k, pt_error *err)
{
    const int64_t I = k->s.iters;
    double t, a;
    for (int64_t n = 1; n <= EXACT_ITERS && n <= I; n++)
        if (!sim_item(k, n, PT_CHUNK_WHOLE, 0, &k->arrive[n], &t, err))
            return false;
    if (!sim_item(k, I, PT_CHUNK_WHOLE, 0, &k->arrive_full, &t, err))
        return false;
    k->epi_whole = t - k->arrive_full;
    if (!sim_item(k, I, PT_CHUNK_PARTIAL, 1, &a, &t, err))
        return false;
    k->epi_part = t - a;
    if (!sim_item(k, I, PT_CHUNK_FIXUP, 1, &a, &t, err))
        return false;
    k->epi_fix1 = t - a;
    if (!sim_item(k, I, PT_CHUNK_FIXUP, 2, &a, &t, err))
        return false;
    k->epi_fix2 = t - a;
    pt_timeline tl = {0};
    if (k->p->partition.persistent) {
        if (!pt_simulate_item(k->p, k->sg, k->hw, I, PT_CHUNK_WHOLE, 0, k->edge, &tl, err))
            return false;
        k->saving = pt_waves_persistent_saving(k->p, k->sg, &tl, k->hw);
        pt_timeline_free(&tl);
    }
    return true;
}

static double loop_time(const sk_costs *k, int64_t n)
{
    if (n <= EXACT_ITERS)
        return n >= 1 ? k->arrive[n] : 0;
    const int64_t I = k->s.iters, a = EXACT_ITERS;
    if (n >= I)
        return k->arrive_full;
    return k->arrive[a] + (k->arrive_full - k->arrive[a]) * (double)(n - a) / (double)(I - a);
}

/* The costs of the tile at launch position `pos`: an edge tile's where it zero-fills rows. */
static const sk_costs *costs_of(const sk_costs *k, int64_t pos)
{
    if (!k->edge_costs || !pt_box_tile_is_edge(k->sg, k->edge_axes,
                                               pt_launch_order_tile(&k->order, k->sg, pos)))
        return k;
    return k->edge_costs;
}

static double fix_epilogue(const sk_costs *k, int others)
{
    double e = k->epi_fix1 + (k->epi_fix2 - k->epi_fix1) * (double)(others - 1);
    return e > 0 ? e : 0;
}

typedef struct {
    double *clock;     /* per CTA: when it is free */
    double *key;       /* per CTA: its next segment's loop end (heap key) */
    int64_t *next;     /* per CTA: its next segment */
    int64_t *heap, *pos;
    int64_t n;
    int *tickets;      /* per stream-K tile */
    double *published; /* per stream-K tile: the last partial tile's publish end */
} sk_run;

static bool less(const sk_run *r, int64_t a, int64_t b)
{
    double x = r->key[r->heap[a]], y = r->key[r->heap[b]];
    return x < y || (x == y && r->heap[a] < r->heap[b]);
}

static void sift_down(sk_run *r, int64_t i)
{
    for (;;) {
        int64_t l = 2 * i + 1, m = i;
        if (l < r->n && less(r, l, m))
            m = l;
        if (l + 1 < r->n && less(r, l + 1, m))
            m = l + 1;
        if (m == i)
            return;
        int64_t t = r->heap[i];
        r->heap[i] = r->heap[m];
        r->heap[m] = t;
        r->pos[r->heap[i]] = i;
        r->pos[r->heap[m]] = m;
        i = m;
    }
}

/* The key of CTA g's next segment: when its loop ends (no segment left: never). */
static void set_key(sk_run *r, const sk_costs *k, int64_t g)
{
    pt_sk_segment seg;
    if (r->next[g] >= pt_stream_k_segments(&k->s, g)) {
        r->key[g] = 1e300;
        return;
    }
    pt_stream_k_segment(&k->s, g, r->next[g], &seg);
    k = costs_of(k, seg.tile);
    double start = r->clock[g] - (r->next[g] > 0 ? k->saving : 0);
    r->key[g] = start + k->hw->tile_overhead_ns + loop_time(k, seg.iters);
}

/* One segment of CTA g, the CTA with the earliest loop end: its ending, its new clock. */
static void step(sk_run *r, const sk_costs *k, int64_t g, pt_timeline *tl, int64_t *want,
                 double *ws)
{
    const double elems = (double)pt_split_k_tile_elems(k->sg);
    const double arrive = r->key[g];
    pt_sk_segment seg;
    pt_stream_k_segment(&k->s, g, r->next[g], &seg);
    const sk_costs *c = costs_of(k, seg.tile);
    double start = r->clock[g] - (r->next[g] > 0 ? c->saving : 0), end;
    bool fixer = false;
    if (seg.parts == 1) {
        end = arrive + c->epi_whole;
    } else if (r->tickets[seg.sk]++ < seg.parts - 1) {
        end = arrive + c->epi_part;
        if (end > r->published[seg.sk])
            r->published[seg.sk] = end;
        *ws += 2 * elems * 4; /* written, and read back by the fix-up */
    } else {
        fixer = true;
        double e = fix_epilogue(c, seg.parts - 1);
        end = arrive + e;
        if (r->published[seg.sk] + e > end)
            end = r->published[seg.sk] + e;
    }
    if (seg.parts > 1 && seg.parts <= PT_MAX_SPLIT_K && (*want < 0 || *want == seg.sk)) {
        *want = seg.sk;
        tl->chunks[tl->n_chunks++] = (pt_chunk_info){
            .first_iter = seg.first_iter, .iters = seg.iters, .eu = g, .start_ns = start,
            .arrive_ns = arrive, .end_ns = end, .last = fixer};
    }
    r->clock[g] = end;
    r->next[g]++;
    set_key(r, k, g);
    sift_down(r, r->pos[g]);
}

/* Runs every segment; the span in *span, the first shared tile's segments in tl->chunks. */
static void run(sk_run *r, const sk_costs *k, pt_timeline *tl, double *span, double *ws)
{
    int64_t want = -1;
    for (int64_t g = 0; g < r->n; g++) {
        r->heap[g] = r->pos[g] = g;
        set_key(r, k, g);
    }
    for (int64_t i = r->n / 2; i >= 0; i--)
        sift_down(r, i);
    *span = *ws = 0;
    while (r->n > 0 && r->key[r->heap[0]] < 1e300)
        step(r, k, r->heap[0], tl, &want, ws);
    for (int64_t g = 0; g < r->n; g++)
        *span = r->clock[g] > *span ? r->clock[g] : *span;
}

/* The representative EU: the fix-up of the first shared tile, else a whole tile. */
static bool representative(const sk_costs *k, pt_timeline *tl, pt_error *err)
{
    int64_t iters = k->s.iters;
    pt_chunk_end end = PT_CHUNK_WHOLE;
    for (int c = 0; c < tl->n_chunks; c++)
        if (tl->chunks[c].last) {
            iters = tl->chunks[c].iters;
            end = PT_CHUNK_FIXUP;
        }
    pt_timeline rep = {0};
    if (!pt_simulate_chunk_of(k->p, k->sg, k->hw, iters, end, tl->n_chunks - 1, &rep, err))
        return false;
    pt_waves_take_eu(tl, &rep);
    return true;
}

/* The stream-K tiles' HBM bytes. Their CTAs stand at unrelated k positions of different tiles,
 * so a tile's panel of a tensor that the L2 cannot hold (more than half of it) is fetched from
 * HBM by that tile alone, where whole tiles in a raster share it at the same k (the EU model's
 * calibrated load rate has those L2 hits in it). On 1024 x 8192 x 28672 with 128 x 256 tiles,
 * 124 stream-K tiles fetch 2.7 GB: about 630 us of HBM, after the data-parallel wave. A tensor
 * the L2 holds is fetched once (pt_waves_dram_bytes). */
static double sk_panel_bytes(const sk_costs *k)
{
    const pt_stask_graph *sg = k->sg;
    const pt_graph *g = sg->graph;
    if (!g || k->s.sk_tiles <= 0 || !(k->hw->l2_bytes > 0))
        return 0;
    double per_tile = 0;
    for (int i = 0; i < sg->n; i++) {
        const pt_stask *t = &sg->tasks[i];
        if (t->kind != PT_ST_LOAD || t->region != PT_REGION_BODY || t->tensor < 0)
            continue;
        const pt_tensor *x = &g->tensors[t->tensor];
        double bytes = (double)((pt_tensor_elems(g, x) * pt_dtype_bits(x->dtype) + 7) / 8);
        if (bytes > 0.5 * (double)k->hw->l2_bytes)
            per_tile += (double)t->bytes * (double)sg->iterations;
    }
    return per_tile * (double)k->s.sk_tiles;
}

static void kernel_fields(const sk_costs *k, const sk_run *r, double span, double ws,
                          pt_timeline *tl)
{
    const pt_hw *hw = k->hw;
    tl->tiles = k->s.tiles;
    tl->split_k = 1;
    tl->stream_k = pt_sprogram_stream_k(k->p);
    tl->work_items = 0;
    for (int64_t g = 0; g < r->n; g++)
        tl->work_items += r->next[g];
    tl->grid = k->s.grid;
    tl->waves = k->s.dp_per_cta + (k->s.sk_tiles > 0 ? 1 : 0);
    tl->dram_bytes = pt_waves_dram_bytes(k->sg);
    tl->workspace_bytes = ws;
    /* ws counts each partial tile twice: written, and read back by the fix-up */
    tl->dram_floor_ns = pt_waves_kernel_floor_ns(k->p, k->sg, hw, tl->grid, tl->work_items, ws / 2, ws / 2);
    /* the stream-K phase starts after the CTAs' whole tiles and cannot fetch its panels
     * faster than HBM gives them (sk_panel_bytes) */
    double sk_bytes = sk_panel_bytes(k);
    if (sk_bytes > 0 && hw->hbm_bytes_per_ns > 0) {
        double dp = (double)k->s.dp_per_cta *
                    (k->arrive_full + k->epi_whole + hw->tile_overhead_ns);
        double sk_floor = dp + sk_bytes / hw->hbm_bytes_per_ns;
        tl->dram_bytes += sk_bytes;
        if (sk_floor > tl->dram_floor_ns)
            tl->dram_floor_ns = sk_floor;
    }
    tl->kernel_time_ns = pt_waves_kernel_ns(hw, span, tl->dram_floor_ns);
    tl->flops = pt_stask_graph_total_flops(k->sg);
    tl->tflops = tl->kernel_time_ns > 0 ? tl->flops / tl->kernel_time_ns / 1e3 : 0;
}

static void run_free(sk_run *r)
{
    free(r->clock);
    free(r->key);
    free(r->next);
    free(r->heap);
    free(r->pos);
    free(r->tickets);
    free(r->published);
}

bool pt_waves_stream_k(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw_in,
                       pt_timeline *tl, pt_error *err)
{
    sk_costs k = {.p = p, .sg = sg};
    if (!pt_stream_k_init(&k.s, sg->tiles, sg->iterations, pt_sprogram_stream_k(p)))
        return pt_fail(err, "simulate: partition.stream_k = %d over %lld tiles of %lld "
                       "iterations; expected a loop and at least one tile",
                       pt_sprogram_stream_k(p), (long long)sg->tiles,
                       (long long)sg->iterations);
    pt_hw local;
    /* the grid's CTAs stream at once: the L2 shared that many ways */
    k.hw = pt_waves_few_ctas(hw_in, k.s.grid, &local);
    size_t n = (size_t)k.s.grid, t = (size_t)(k.s.sk_tiles > 0 ? k.s.sk_tiles : 1);
    sk_run r = {.n = k.s.grid, .clock = calloc(n, sizeof(double)),
                .key = calloc(n, sizeof(double)), .next = calloc(n, sizeof(int64_t)),
                .heap = calloc(n, sizeof(int64_t)), .pos = calloc(n, sizeof(int64_t)),
                .tickets = calloc(t, sizeof(int)), .published = calloc(t, sizeof(double))};
    bool ok = r.clock && r.key && r.next && r.heap && r.pos && r.tickets && r.published;
    if (!ok)
        pt_fail(err, "simulate: out of memory for a stream-K grid of %lld", (long long)r.n);
    ok = ok && costs_init(&k, err);
    /* the edge tiles (tma_box.h) zero-fill rows: their own loop and ending costs */
    sk_costs ke = k;
    k.edge_axes = pt_box_edge_axes(sg, k.hw);
    if (ok && k.edge_axes) {
        ke.edge = true;
        ok = costs_init(&ke, err);
        pt_launch_order_init(&k.order, p, sg);
        k.edge_costs = &ke;
    }
    double span = 0, ws = 0;
    if (ok) {
        tl->n_chunks = 0;
        run(&r, &k, tl, &span, &ws);
        ok = representative(&k, tl, err);
    }
    if (ok)
        kernel_fields(&k, &r, span, ws, tl);
    run_free(&r);
    if (ok && !pt_sim_timeline_finite(tl))
        ok = pt_sim_not_finite(hw_in, err);
    if (!ok)
        pt_timeline_free(tl);
    return ok;
}
