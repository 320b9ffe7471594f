/* greedy.c — intra-EU scheduling: greedy list scheduling of an sTask-graph onto lanes.
 *
 * Every sTask goes to its natural lane (pt_sprogram_natural_lane: tma; tc.wgN; cuda.wgN). The
 * order inside each lane comes from list scheduling over the same-iteration dependencies: among the
 * sTasks whose producers are all placed, take the one on an asynchronous sEU first (TMA and
 * tensor-core work is issued early so it overlaps), among once-per-tile loads those of the
 * prologue matmul first, then the one with the fewest dependencies
 * still unplaced (loop-carried ones included), then the one that unlocks the most downstream
 * sTasks, then the lowest index (determinism). Every dependency between lanes becomes a Wait.
 * Look-ahead issues tensor-core sTasks fed only by loads one iteration ahead, and with them the
 * CUDA-core sTasks that only consume work issued ahead; in FlashAttention-3's order the
 * rescales stay behind, first on their lane (O is rescaled before this iteration's P.V is
 * issued, and the next block's softmax then overlaps that P.V). Stores can move to a TMA lane
 * of the last consumer warpgroup. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler.h"

/* Descendants through same-iteration dependencies: how much work an sTask unlocks. */
static void count_downstream(const pt_stask_graph *sg, int *down)
{
    int n = sg->n;
    unsigned char *seen = malloc((size_t)n);
    int *stack = malloc((size_t)n * sizeof *stack);
    for (int i = 0; i < n && seen && stack; i++) {
        memset(seen, 0, (size_t)n);
        int top = 0, count = 0;
        stack[top++] = i;
        while (top) {
            int x = stack[--top];
            for (int j = 0; j < n; j++) {
                if (seen[j])
                    continue;
                const pt_stask *t = &sg->tasks[j];
                for (int d = 0; d < t->n_deps; d++)
                    if (t->deps[d].from == x && t->deps[d].distance == 0 && j != x) {
                        seen[j] = 1;
                        count++;
                        stack[top++] = j;
                        break;
                    }
            }
        }
        down[i] = count;
    }
    free(seen);
    free(stack);
}

/* A tensor-core sTask fed only by loads, with nothing carried from its previous iteration,
 * can be issued one iteration ahead (FlashAttention's S = Q.K^T of the next block). */
static bool can_look_ahead(const pt_stask_graph *sg, const pt_stask *s)
{
    if (s->seu != PT_SEU_TENSOR_CORE || s->region != PT_REGION_BODY)
        return false;
    for (int d = 0; d < s->n_deps; d++) {
        const pt_stask *f = &sg->tasks[s->deps[d].from];
        if (s->deps[d].distance != 0 || f->kind != PT_ST_LOAD)
            return false;
    }
    return true;
}

/* A CUDA-core body sTask all of whose same-iteration producers were issued one iteration ahead
 * goes ahead with them (FlashAttention's softmax of block j+1 then runs while the tensor cores
 * do P.V of block j: the intra-warpgroup overlap of FlashAttention-3). */
static bool follows_look_ahead(const pt_sprogram *p, const pt_stask_graph *sg, const pt_stask *s)
{
    if (s->seu != PT_SEU_CUDA_CORE || s->region != PT_REGION_BODY)
        return false;
    int same = 0;
    for (int d = 0; d < s->n_deps; d++) {
        int f = s->deps[d].from, lane, pos;
        if (s->deps[d].distance != 0 || &sg->tasks[f] == s)
            continue;
        if (!pt_sprogram_placement(p, f, &lane, &pos) || p->lanes[lane].entries[pos].offset != 1)
            return false;
        same++;
    }
    return same > 0;
}

/* The once-per-tile loads that feed tensor-core work directly (the prologue matmul's
 * operands: ChunkScan's C and states), flagged in pro_mma. Those go first on the TMA lane: the
 * prologue product is the first work of a tile, the vectors the CUDA cores need come after it. */
static void mark_prologue_mma_loads(const pt_stask_graph *sg, bool *pro_mma)
{
    for (int j = 0; j < sg->n; j++) {
        const pt_stask *t = &sg->tasks[j];
        if (t->seu != PT_SEU_TENSOR_CORE)
            continue;
        for (int d = 0; d < t->n_deps; d++) {
            const pt_stask *f = &sg->tasks[t->deps[d].from];
            if (t->deps[d].distance == 0 && f->kind == PT_ST_LOAD && f->region == PT_REGION_PROLOGUE)
                pro_mma[t->deps[d].from] = true;
        }
    }
}

/* Lexicographic order of priority keys: smaller is scheduled first. */
static bool key_less(const int *a, const int *b)
{
    for (int k = 0; k < 5; k++)
        if (a[k] != b[k])
            return a[k] < b[k];
    return false;
}

/* The chain PT_LOOKAHEAD_CHAIN moves (in_chain[i]): CUDA-core body sTasks every input of which
 * is a load, a once-per-tile (prologue) value or another of the chain, and which feed a
 * tensor-core body sTask (themselves or through the chain) in the same iteration. Anything
 * that reads an mma's result (FlashAttention's softmax of S) is not in it. Returns whether
 * any is. */
static bool chain_tasks(const pt_stask_graph *sg, bool *in_chain)
{
    int n = sg->n;
    for (int i = 0; i < n; i++)
        in_chain[i] = sg->tasks[i].seu == PT_SEU_CUDA_CORE && sg->tasks[i].region == PT_REGION_BODY;
    /* drop, until nothing changes, those with an input from outside loads, the prologue and
     * the chain */
    for (bool changed = true; changed;) {
        changed = false;
        for (int i = 0; i < n; i++) {
            if (!in_chain[i])
                continue;
            const pt_stask *s = &sg->tasks[i];
            for (int d = 0; d < s->n_deps; d++) {
                const pt_stask *f = &sg->tasks[s->deps[d].from];
                if (s->deps[d].from == i || f->kind == PT_ST_LOAD || f->region == PT_REGION_PROLOGUE ||
                    (in_chain[s->deps[d].from] && s->deps[d].distance == 0))
                    continue;
                in_chain[i] = false;
                changed = true;
                break;
            }
        }
    }
    /* keep those that reach a tensor-core body sTask */
    bool *feeds = calloc((size_t)n + 1, sizeof *feeds);
    if (!feeds)
        return false;
    for (bool changed = true; changed;) {
        changed = false;
        for (int j = 0; j < n; j++) {
            const pt_stask *t = &sg->tasks[j];
            bool sink = t->seu == PT_SEU_TENSOR_CORE && t->region == PT_REGION_BODY;
            if (!sink && !(in_chain[j] && feeds[j]))
                continue;
            for (int d = 0; d < t->n_deps; d++) {
                int f = t->deps[d].from;
                if (f != j && in_chain[f] && t->deps[d].distance == 0 && !feeds[f]) {
                    feeds[f] = true;
                    changed = true;
                }
            }
        }
    }
    bool any = false;
    for (int i = 0; i < n; i++) {
        in_chain[i] = in_chain[i] && feeds[i];
        any |= in_chain[i];
    }
    free(feeds);
    return any;
}

/* Does sTask i feed a tensor-core body sTask in the same iteration? */
static bool feeds_mma(const pt_stask_graph *sg, int i)
{
    for (int j = 0; j < sg->n; j++) {
        const pt_stask *t = &sg->tasks[j];
        if (t->seu != PT_SEU_TENSOR_CORE || t->region != PT_REGION_BODY)
            continue;
        for (int d = 0; d < t->n_deps; d++)
            if (t->deps[d].from == i && t->deps[d].distance == 0)
                return true;
    }
    return false;
}

/* The position of the lane's first entry an iteration ahead; -1 (the end) when none is. */
static int first_ahead(const pt_sprogram *p, int lane)
{
    for (int k = 0; k < p->lanes[lane].n; k++)
        if (p->lanes[lane].entries[k].offset > 0)
            return k;
    return -1;
}

bool pt_schedule_can_chain_ahead(const pt_stask_graph *sg)
{
    bool *in_chain = calloc((size_t)sg->n + 1, sizeof *in_chain);
    bool any = in_chain && chain_tasks(sg, in_chain);
    free(in_chain);
    return any;
}

bool pt_schedule_can_look_ahead(const pt_stask_graph *sg)
{
    for (int i = 0; i < sg->n; i++)
        if (can_look_ahead(sg, &sg->tasks[i]))
            return true;
    return false;
}

static bool place_all(pt_sprogram *p, const pt_stask_graph *sg, const pt_intra_opts *o,
                      pt_error *err)
{
    int n = sg->n;
    int *down = calloc((size_t)n, sizeof *down);
    bool *placed = calloc((size_t)n, sizeof *placed);
    bool *pro_mma = calloc((size_t)n, sizeof *pro_mma);
    bool *chain = calloc((size_t)n + 1, sizeof *chain);
    bool ok = down && placed && pro_mma && chain;
    if (!ok)
        pt_fail(err, "scheduler: out of memory");
    else {
        count_downstream(sg, down);
        mark_prologue_mma_loads(sg, pro_mma);
        if (o->lookahead == PT_LOOKAHEAD_CHAIN)
            chain_tasks(sg, chain);
    }
    for (int step = 0; ok && step < n; step++) {
        int best = -1, best_key[5] = {0};
        for (int i = 0; i < n; i++) {
            if (placed[i])
                continue;
            const pt_stask *s = &sg->tasks[i];
            bool ready = true;
            int unmet = 0;
            for (int d = 0; d < s->n_deps; d++) {
                int f = s->deps[d].from;
                if (f == i || placed[f])
                    continue;
                unmet++;
                if (s->deps[d].distance == 0)
                    ready = false;
            }
            if (!ready)
                continue;
            int key[5] = {s->seu == PT_SEU_CUDA_CORE ? 1 : 0, pro_mma[i] ? 0 : 1,
                          unmet, -down[i], i};
            if (best < 0 || key_less(key, best_key)) {
                best = i;
                memcpy(best_key, key, sizeof key);
            }
        }
        if (best < 0) {
            ok = pt_fail(err, "scheduler: the sTask-graph of %s has a cycle of same-iteration "
                              "dependencies", sg->graph->name);
            break;
        }
        const pt_stask *s = &sg->tasks[best];
        int lane = pt_sprogram_natural_lane(p, s);
        if (lane < 0) {
            ok = pt_fail(err, "scheduler: no lane for sTask %s", s->id);
            break;
        }
        int offset = o->lookahead == PT_LOOKAHEAD_CHAIN ? (chain[best] ? 1 : 0)
                     : o->lookahead && (can_look_ahead(sg, s) || follows_look_ahead(p, sg, s)) ? 1 : 0;
        int position = -1;
        /* chain-ahead: the sTask handing its result to the mma (the operand fragment) stays
         * with that mma, first in its lane, so its step reads the chain of its own iteration
         * before the chain of the next one overwrites it (one register copy, no second slot) */
        if (o->lookahead == PT_LOOKAHEAD_CHAIN && chain[best] && feeds_mma(sg, best)) {
            offset = 0;
            position = first_ahead(p, lane);
        }
        if (o->lookahead == PT_LOOKAHEAD_FA3 && s->kind == PT_ST_RESCALE) {
            offset = 0;
            position = 0;
        }
        /* a warpgroup's own store (tiling wg_stores) stays on that warpgroup's lane */
        if (o->store_by_consumer && s->kind == PT_ST_STORE && s->wg < 0) {
            char name[PT_LANE_NAME_MAX];
            int last = p->n_roles - 1;
            snprintf(name, sizeof name, "tma.%s", p->roles[last].name);
            lane = pt_sprogram_find_lane(p, name);
            if (lane < 0)
                lane = pt_sprogram_add_lane(p, name, PT_SEU_TMA, last);
            if (lane < 0) {
                ok = pt_fail(err, "scheduler: no room for lane %s", name);
                break;
            }
        }
        ok = pt_append(p, sg, best, lane, position, offset, err);
        placed[best] = true;
    }
    free(down);
    free(placed);
    free(pro_mma);
    free(chain);
    return ok;
}

static int placed_lane(const pt_sprogram *p, int s)
{
    int lane, pos;
    return pt_sprogram_placement(p, s, &lane, &pos) ? lane : -1;
}

static bool add_waits(pt_sprogram *p, const pt_stask_graph *sg, const pt_intra_opts *o,
                      pt_error *err)
{
    for (int i = 0; i < sg->n; i++) {
        const pt_stask *s = &sg->tasks[i];
        for (int d = 0; d < s->n_deps; d++) {
            int f = s->deps[d].from;
            if (placed_lane(p, f) != placed_lane(p, i) &&
                !pt_wait(p, sg, i, &f, &s->deps[d].distance, 1, err))
                return false;
        }
    }
    if (!o->pingpong || sg->tiling.warpgroups < 2)
        return true;
    /* Ping-pong: the warpgroups take turns on the tensor cores, each body mma after the
     * previous warpgroup's, and warpgroup 0's next one after the last warpgroup's. */
    int wgs = sg->tiling.warpgroups;
    for (int i = 0; i < sg->n; i++) {
        const pt_stask *s = &sg->tasks[i];
        if (s->kind != PT_ST_MMA || s->region != PT_REGION_BODY || s->wg < 0)
            continue;
        for (int j = 0; j < sg->n; j++) {
            const pt_stask *t = &sg->tasks[j];
            if (t->kind != PT_ST_MMA || t->op != s->op || t->region != PT_REGION_BODY)
                continue;
            int dist = -1;
            if (t->wg == s->wg - 1)
                dist = 0;
            else if (s->wg == 0 && t->wg == wgs - 1)
                dist = 1;
            if (dist >= 0 && !pt_wait(p, sg, i, &j, &dist, 1, err))
                return false;
        }
    }
    return true;
}

bool pt_schedule_intra(pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                       const pt_intra_opts *o, pt_error *err)
{
    pt_sprogram_init(p, sg, hw);
    for (int t = 0; t < PT_MAX_TENSORS; t++)
        if (p->stages[t] > 0)
            p->stages[t] = o->stages > 0 ? o->stages : 2;
    p->partition.persistent = o->persistent;
    p->partition.raster = o->raster;
    p->partition.group = o->group > 0 ? o->group : 8;
    p->partition.split_k = o->split_k > 1 ? o->split_k : 1;
    p->partition.split_reduce = o->split_k > 1 && o->split_cluster ? PT_SPLIT_REDUCE_CLUSTER
                                                                   : PT_SPLIT_REDUCE_WORKSPACE;
    p->partition.stream_k = o->stream_k > 1 ? o->stream_k : 0;
    p->partition.run = o->run > 1 ? o->run : 1;
    if (!place_all(p, sg, o, err) || !add_waits(p, sg, o, err)) {
        pt_sprogram_free(p);
        return false;
    }
    return true;
}
