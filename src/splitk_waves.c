/* splitk_waves.c — the kernel time of a split-K program (splitk.h). Its tiles x S work items
 * run in launch order (the tiles' raster walk, each tile's chunks adjacent), handed out as
 * waves.c hands out tiles: round-robin over a fixed grid when persistent (and the tiles are
 * equal), else onto the EU that frees first. Each work item is one EU simulation of its chunk
 * of the loop (pt_simulate_chunk), memoised by chunk length and ending; the chunk of a tile
 * whose loop completes last in simulated time does the fix-up, the others store partial
 * tiles. Nobody waits for anybody, so the dispatch needs no synchronisation model. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim_check.h"
#include "splitk.h"
#include "tma_box.h"
#include "validate.h"
#include "waves.h"

/* Above this many work items the kernel time comes from the closed form (as waves.c's). */
#define MAX_DISPATCH_ITEMS 4000000

typedef struct {
    bool done;
    double time_ns;    /* first issue to last completion */
    double arrive_ns;  /* first issue to the completion of the loop's last sTask */
} item_cost;

typedef struct {
    const pt_sprogram *p;
    const pt_stask_graph *sg;
    const pt_hw *hw;
    int64_t max_iters;
    item_cost *memo;   /* [(iters * 2 + fixup) * 2 + edge] */
} cost_memo;

/* When the loop of a simulated work item is done: its last body (else non-epilogue) sTask. */
static double arrival(const pt_timeline *tl, const pt_stask_graph *sg)
{
    double first = 0, body = -1, before = -1;
    for (int64_t i = 0; i < tl->n_spans; i++) {
        const pt_span *s = &tl->spans[i];
        if (i == 0 || s->issue_ns < first)
            first = s->issue_ns;
        if (s->stask < 0 || s->stask >= sg->n)
            continue;
        pt_region r = sg->tasks[s->stask].region;
        if (r == PT_REGION_BODY && s->end_ns > body)
            body = s->end_ns;
        if (r != PT_REGION_EPILOGUE && s->end_ns > before)
            before = s->end_ns;
    }
    double at = body >= 0 ? body : before;
    return at > first ? at - first : 0;
}

/* A work item's cost: `iters` iterations ending in a partial store or the fix-up, of an edge
 * tile (tma_box.h) or not. */
static const item_cost *cost_of(cost_memo *m, int64_t iters, bool fixup, bool edge,
                                pt_error *err)
{
    if (iters < 0 || iters > m->max_iters) {
        pt_fail(err, "simulate: split-K chunk of %lld iterations; expected 0 to %lld",
                (long long)iters, (long long)m->max_iters);
        return NULL;
    }
    item_cost *c = &m->memo[(iters * 2 + (fixup ? 1 : 0)) * 2 + (edge ? 1 : 0)];
    if (c->done)
        return c;
    pt_timeline tl = {0};
    if (!pt_simulate_item(m->p, m->sg, m->hw, iters, fixup ? PT_CHUNK_FIXUP : PT_CHUNK_PARTIAL,
                          pt_sprogram_split_k(m->p) - 1, edge, &tl, err))
        return NULL;
    c->time_ns = tl.eu_time_ns;
    c->arrive_ns = arrival(&tl, m->sg);
    c->done = true;
    pt_timeline_free(&tl);
    return c;
}

/* EU free times with the earliest on top; keys only grow (an EU takes work or its last item
 * turns out to be a fix-up), so updates sift down. */
typedef struct {
    int64_t n;
    double *key;       /* per EU */
    int64_t *heap;     /* EU at each heap position */
    int64_t *pos;      /* heap position of each EU */
} eu_heap;

static bool heap_less(const eu_heap *h, int64_t a, int64_t b)
{
    double x = h->key[h->heap[a]], y = h->key[h->heap[b]];
    return x < y || (x == y && h->heap[a] < h->heap[b]); /* ties: the lower EU, as numbered */
}

static void heap_swap(eu_heap *h, int64_t a, int64_t b)
{
    int64_t t = h->heap[a];
    h->heap[a] = h->heap[b];
    h->heap[b] = t;
    h->pos[h->heap[a]] = a;
    h->pos[h->heap[b]] = b;
}

static void heap_raise(eu_heap *h, int64_t eu, double key)
{
    h->key[eu] = key;
    for (int64_t i = h->pos[eu];;) {
        int64_t l = 2 * i + 1, m = i;
        if (l < h->n && heap_less(h, l, m))
            m = l;
        if (l + 1 < h->n && heap_less(h, l + 1, m))
            m = l + 1;
        if (m == i)
            return;
        heap_swap(h, i, m);
        i = m;
    }
}

typedef struct {
    const pt_sprogram *p;
    const pt_stask_graph *sg;
    const pt_hw *hw;
    int S;
    int64_t tiles, items, slots;
    bool round_robin;
    bool cluster;      /* pt_split_k_cluster: a tile's chunks are one cluster, chunk 0 leads */
    bool over_rings;   /* its slots over the leader's rings (pt_sprogram_cluster_slots_over_rings) */
    pt_launch_order order;
    double saving;     /* persistent: per follow-on work item */
    uint32_t edge_axes; /* tma_box.h: the last tile along these axes zero-fills rows */
    cost_memo memo;
    eu_heap h;         /* key: EU free times (round-robin: the heap order is unused) */
    bool *ran;         /* the EU has run a work item before */
} dispatch;

/* A cluster's tile (pt_split_k_cluster): its S chunks start together on the S EUs that free
 * first (a cluster is launched whole), and the leader, chunk 0, adds the others' partial tiles
 * once the last of them has arrived. */
static bool dispatch_cluster(dispatch *d, int64_t iters, bool edge, pt_chunk_info *info,
                             pt_error *err)
{
    const int S = d->S;
    int64_t eu[PT_MAX_SPLIT_K];
    double s0 = 0, last_arrival = 0, lead_tail = 0;
    for (int c = 0; c < S; c++) { /* S distinct EUs: each taken out until the cluster starts */
        eu[c] = d->h.heap[0];
        s0 = d->h.key[eu[c]] > s0 ? d->h.key[eu[c]] : s0;
        heap_raise(&d->h, eu[c], INFINITY);
    }
    const double overhead = d->hw->tile_overhead_ns;
    double lead_arrival = 0;
    for (int c = 0; c < S; c++) {
        int64_t first, count;
        pt_split_k_chunk(iters, S, c, &first, &count);
        const item_cost *k = cost_of(&d->memo, count, c == 0, edge, err);
        if (!k)
            return false;
        double arrive = s0 + overhead + k->arrive_ns, end = s0 + overhead + k->time_ns;
        if (c == 0)
            lead_arrival = arrive;
        else if (d->over_rings && arrive < lead_arrival) {
            /* slots over the leader's rings: this chunk stores once the leader's loop is done */
            end += lead_arrival - arrive;
            arrive = lead_arrival;
        }
        /* over the rings the leader waits for the others' stores, not just their loops */
        double ready = d->over_rings && c > 0 ? end : arrive;
        last_arrival = ready > last_arrival ? ready : last_arrival;
        if (c == 0)
            lead_tail = k->time_ns - k->arrive_ns; /* its adds, convert and store */
        else
            heap_raise(&d->h, eu[c], end);
        if (info)
            info[c] = (pt_chunk_info){.first_iter = first, .iters = count, .eu = eu[c],
                                      .start_ns = s0, .arrive_ns = arrive, .end_ns = end,
                                      .last = c == 0};
    }
    double end = last_arrival + lead_tail;
    heap_raise(&d->h, eu[0], end);
    if (info)
        info[0].end_ns = end;
    return true;
}

/* One tile's S chunks, launched at positions q*S .. q*S+S-1; fills info for the first tile. */
static bool dispatch_tile(dispatch *d, int64_t q, pt_chunk_info *info, pt_error *err)
{
    const int S = d->S;
    int64_t tile = pt_launch_order_tile(&d->order, d->sg, q);
    bool edge = pt_box_tile_is_edge(d->sg, d->edge_axes, tile);
    int64_t iters = d->sg->causal_op >= 0 ? pt_stask_graph_tile_iterations(d->sg, tile)
                                          : d->sg->iterations;
    if (d->cluster)
        return dispatch_cluster(d, iters, edge, info, err);
    int64_t eu[PT_MAX_SPLIT_K];
    double start[PT_MAX_SPLIT_K], arrive[PT_MAX_SPLIT_K];
    bool may_be_last[PT_MAX_SPLIT_K];
    const double overhead = d->hw->tile_overhead_ns;
    for (int c = 0; c < S; c++) {
        int64_t j = q * S + c, first, count;
        eu[c] = d->round_robin ? j % d->slots : d->h.heap[0];
        double s0 = d->h.key[eu[c]] - (d->p->partition.persistent && d->ran[eu[c]] ? d->saving : 0);
        d->ran[eu[c]] = true;
        pt_split_k_chunk(iters, S, c, &first, &count);
        const item_cost *part = cost_of(&d->memo, count, false, edge, err);
        if (!part)
            return false;
        start[c] = s0;
        arrive[c] = s0 + overhead + part->arrive_ns;
        /* an EU that takes a later chunk of the same tile finished this one first: this one
         * arrived before that one began, so it is not the last */
        may_be_last[c] = true;
        for (int k = 0; k < c; k++)
            if (eu[k] == eu[c])
                may_be_last[k] = false;
        heap_raise(&d->h, eu[c], s0 + overhead + part->time_ns);
        if (info)
            info[c] = (pt_chunk_info){.first_iter = first, .iters = count, .eu = eu[c],
                                      .start_ns = s0, .arrive_ns = arrive[c],
                                      .end_ns = s0 + overhead + part->time_ns};
    }
    int last = -1;
    for (int c = 0; c < S; c++) /* ties: the later chunk (it began no earlier) */
        if (may_be_last[c] && (last < 0 || arrive[c] >= arrive[last]))
            last = c;
    int64_t first, count;
    pt_split_k_chunk(iters, S, last, &first, &count);
    const item_cost *part = cost_of(&d->memo, count, false, edge, err);
    const item_cost *fix = part ? cost_of(&d->memo, count, true, edge, err) : NULL;
    if (!fix)
        return false;
    /* that EU's free time is still this chunk's end: nothing of this tile came after it */
    double end = start[last] + overhead + fix->time_ns;
    heap_raise(&d->h, eu[last], end);
    if (info) {
        info[last].last = true;
        info[last].end_ns = end;
    }
    return true;
}

/* Every work item dispatched (EU free times in d->h.key); the first tile's chunks in tl. */
static bool run_dispatch(dispatch *d, pt_timeline *tl, pt_error *err)
{
    d->h.n = d->slots;
    d->h.key = calloc((size_t)d->slots + 1, sizeof *d->h.key);
    d->h.heap = malloc(((size_t)d->slots + 1) * sizeof *d->h.heap);
    d->h.pos = malloc(((size_t)d->slots + 1) * sizeof *d->h.pos);
    d->ran = calloc((size_t)d->slots + 1, sizeof *d->ran);
    if (!d->h.key || !d->h.heap || !d->h.pos || !d->ran)
        return pt_fail(err, "simulate: out of memory for %lld split-K work items",
                       (long long)d->items);
    for (int64_t e = 0; e < d->slots; e++)
        d->h.heap[e] = d->h.pos[e] = e;
    for (int64_t q = 0; q < d->tiles; q++)
        if (!dispatch_tile(d, q, q == 0 ? tl->chunks : NULL, err))
            return false;
    if (d->tiles > 0)
        tl->n_chunks = d->S;
    return true;
}

/* Beyond MAX_DISPATCH_ITEMS: every EU runs its share of an average tile's chunks (equal
 * tiles, an edge tile's zero-filled rows left out; chunk S-1, the longest, does the
 * fix-up). */
static bool closed_form(dispatch *d, double *span, pt_error *err)
{
    double tile_sum = 0;
    for (int c = 0; c < d->S; c++) {
        int64_t first, count;
        pt_split_k_chunk(d->sg->iterations, d->S, c, &first, &count);
        const item_cost *k = cost_of(&d->memo, count, c == d->S - 1, false, err);
        if (!k)
            return false;
        tile_sum += k->time_ns + d->hw->tile_overhead_ns;
    }
    int64_t per_eu = (d->items + d->slots - 1) / d->slots;
    *span = (double)per_eu * tile_sum / d->S -
            (d->p->partition.persistent ? (double)(per_eu - 1) * d->saving : 0);
    return true;
}

static void dispatch_free(dispatch *d)
{
    free(d->memo.memo);
    free(d->h.key);
    free(d->h.heap);
    free(d->h.pos);
    free(d->ran);
}

/* The kernel fields of tl from the span of the dispatch. */
static void kernel_fields(const dispatch *d, double span, pt_timeline *tl)
{
    const pt_hw *hw = d->hw;
    int64_t eus = hw->eu_count;
    tl->tiles = d->tiles;
    tl->split_k = d->S;
    tl->split_cluster = d->cluster;
    tl->work_items = d->items;
    tl->grid = d->p->partition.persistent ? d->slots : d->items;
    tl->waves = (d->items + eus - 1) / eus;
    if (d->cluster && hw->cluster_capacity[d->S] > 0) /* whole clusters resident at once */
        tl->waves = (d->tiles + hw->cluster_capacity[d->S] - 1) / hw->cluster_capacity[d->S];
    tl->dram_bytes = pt_waves_dram_bytes(d->sg);
    /* each tile: S - 1 partial tiles read back by the fix-up, written by the other chunks, and
     * where every chunk publishes first (pt_split_k_publish_first) by the last one too */
    int64_t elems = pt_split_k_tile_elems(d->sg);
    double written = d->cluster ? 0 : (double)d->tiles * pt_split_k_ws_slots(d->S, elems) * elems * 4;
    double read = d->cluster ? 0 : (double)d->tiles * (d->S - 1) * elems * 4;
    tl->workspace_bytes = written + read;
    tl->dram_floor_ns = pt_waves_kernel_floor_ns(d->p, d->sg, hw, tl->grid, d->items, written, read);
    tl->kernel_time_ns = pt_waves_kernel_ns(hw, span, tl->dram_floor_ns);
    tl->flops = pt_stask_graph_total_flops(d->sg);
    tl->tflops = tl->kernel_time_ns > 0 ? tl->flops / tl->kernel_time_ns / 1e3 : 0;
}

/* The representative EU: the first tile's fix-up (the chunk that arrived last), or with no
 * tile at all its last chunk's. */
static bool representative(const dispatch *d, pt_timeline *tl, pt_error *err)
{
    int64_t first, count;
    pt_split_k_chunk(d->sg->iterations, d->S, d->S - 1, &first, &count);
    for (int c = 0; c < tl->n_chunks; c++)
        if (tl->chunks[c].last)
            count = tl->chunks[c].iters;
    pt_timeline rep = {0};
    if (!pt_simulate_chunk(d->p, d->sg, d->hw, count, PT_CHUNK_FIXUP, &rep, err))
        return false;
    pt_waves_take_eu(tl, &rep);
    return true;
}

bool pt_waves_split_k(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw_in,
                      pt_timeline *tl, pt_error *err)
{
    dispatch d = {.p = p, .sg = sg, .S = pt_sprogram_split_k(p)};
    d.tiles = sg->tiles > 0 ? sg->tiles : 0;
    d.items = d.tiles * d.S;
    d.slots = d.items < hw_in->eu_count ? d.items : hw_in->eu_count;
    d.cluster = pt_split_k_cluster(p);
    d.over_rings = d.cluster && pt_sprogram_cluster_slots_over_rings(p, sg, hw_in);
    if (d.cluster) { /* the EUs whole clusters can take at once */
        int64_t cap = hw_in->cluster_capacity[d.S] > 0 ? (int64_t)hw_in->cluster_capacity[d.S] * d.S
                                                       : d.S;
        d.slots = d.items < cap ? d.items : cap;
    }
    pt_hw local;
    /* more work items stream at once than tiles would: the L2 shared more ways */
    d.hw = pt_waves_few_ctas(hw_in, d.items, &local);
    d.round_robin = p->partition.persistent && sg->causal_op < 0;
    pt_launch_order_init(&d.order, p, sg);
    int64_t iters = sg->iterations > 0 ? sg->iterations : 0;
    d.memo = (cost_memo){.p = p, .sg = sg, .hw = d.hw, .max_iters = (iters + d.S - 1) / d.S};
    d.memo.memo = calloc((size_t)(d.memo.max_iters + 1) * 4, sizeof *d.memo.memo);
    d.edge_axes = pt_box_edge_axes(sg, d.hw);
    bool ok = d.memo.memo != NULL;
    if (!ok)
        pt_fail(err, "simulate: out of memory");
    if (ok && p->partition.persistent) {
        /* what a follow-on item overlaps, from the item that ends with a fix-up */
        pt_timeline guess = {0};
        int64_t first, count;
        pt_split_k_chunk(iters, d.S, d.S - 1, &first, &count);
        ok = pt_simulate_chunk(p, sg, d.hw, count, PT_CHUNK_FIXUP, &guess, err);
        if (ok)
            d.saving = pt_waves_persistent_saving(p, sg, &guess, d.hw);
        pt_timeline_free(&guess);
    }
    double span = 0;
    if (ok && d.items > MAX_DISPATCH_ITEMS && d.slots > 0)
        ok = closed_form(&d, &span, err);
    else if (ok && d.items > 0) {
        ok = run_dispatch(&d, tl, err);
        for (int64_t e = 0; ok && e < d.slots; e++)
            span = d.h.key[e] > span ? d.h.key[e] : span;
    }
    ok = ok && representative(&d, tl, err);
    if (ok)
        kernel_fields(&d, span, tl);
    dispatch_free(&d);
    if (ok && !pt_sim_timeline_finite(tl))
        ok = pt_sim_not_finite(hw_in, err);
    if (!ok)
        pt_timeline_free(tl);
    return ok;
}

bool pt_simulate_split_k_chunk(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                               const pt_timeline *kernel, int chunk, pt_timeline *out,
                               pt_error *err)
{
    memset(out, 0, sizeof *out);
    if (!kernel || chunk < 0 || chunk >= kernel->n_chunks)
        return pt_fail(err, "simulate: split-K chunk %d of the first tile; the prediction has "
                       "%d", chunk, kernel ? kernel->n_chunks : 0);
    pt_hw local;
    const pt_hw *shared = pt_waves_few_ctas(hw, kernel->work_items, &local);
    const pt_chunk_info *c = &kernel->chunks[chunk];
    /* a stream-K tile's fix-up adds the partial tiles of the other CTAs sharing it */
    int others = kernel->stream_k > 1 ? kernel->n_chunks - 1 : pt_sprogram_split_k(p) - 1;
    return pt_simulate_chunk_of(p, sg, shared, c->iters,
                                c->last ? PT_CHUNK_FIXUP : PT_CHUNK_PARTIAL, others, out, err);
}
