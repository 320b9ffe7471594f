/* splitk.c — split-K's shared arithmetic: chunk ranges and which sTask-graphs can be split
 * (splitk.h). */
#include "splitk.h"

#include <stdio.h>

int pt_sprogram_split_k(const pt_sprogram *p)
{
    return p && p->partition.split_k > 1 ? p->partition.split_k : 1;
}

void pt_split_k_chunk(int64_t iters, int split_k, int chunk, int64_t *first, int64_t *count)
{
    if (split_k < 1)
        split_k = 1;
    if (iters < 0)
        iters = 0;
    /* floor(c*I/S): the same integer division the generated kernels do */
    int64_t lo = iters * chunk / split_k, hi = iters * (chunk + 1) / split_k;
    *first = lo;
    *count = hi > lo ? hi - lo : 0;
}

bool pt_split_k_possible(const pt_stask_graph *sg, char *why, size_t cap)
{
    if (!sg || sg->loop_axis < 0 || !sg->tasks) {
        snprintf(why, cap, "the sTask-graph has no reduction loop to split");
        return false;
    }
    for (int s = 0; s < sg->n; s++) {
        const pt_stask *t = &sg->tasks[s];
        if (t->region == PT_REGION_EPILOGUE && t->kind != PT_ST_CONVERT && t->kind != PT_ST_STORE) {
            snprintf(why, cap, "epilogue sTask %s (%s) would run on each chunk's partial tile; "
                               "split-K sums chunks and allows only convert and store after "
                               "the loop", t->id, pt_stask_kind_name(t->kind));
            return false;
        }
        if (t->region != PT_REGION_BODY)
            continue;
        for (int d = 0; d < t->n_deps; d++)
            if (t->deps[d].distance > 0 && t->kind != PT_ST_MMA) {
                snprintf(why, cap, "sTask %s (%s) carries state across loop iterations that "
                                   "chunks cannot add up; split-K needs a loop whose only "
                                   "carried state is mma accumulators", t->id,
                         pt_stask_kind_name(t->kind));
                return false;
            }
    }
    return true;
}

int64_t pt_split_k_tile_elems(const pt_stask_graph *sg)
{
    int64_t elems = 0;
    for (int s = 0; sg && sg->tasks && s < sg->n; s++)
        if (sg->tasks[s].kind == PT_ST_STORE && sg->tasks[s].region == PT_REGION_EPILOGUE)
            elems += sg->tasks[s].elems;
    return elems;
}

bool pt_split_k_publish_first(int64_t tile_elems)
{
    return tile_elems > 0 && tile_elems * 4 <= PT_SPLIT_K_PUBLISH_FIRST_BYTES;
}

int pt_split_k_ws_slots(int split_k, int64_t tile_elems)
{
    return pt_split_k_publish_first(tile_elems) ? split_k : split_k - 1;
}

bool pt_split_k_cluster(const pt_sprogram *p)
{
    return pt_sprogram_split_k(p) > 1 && p->partition.split_reduce == PT_SPLIT_REDUCE_CLUSTER;
}

int64_t pt_split_k_cluster_smem(const pt_sprogram *p, const pt_stask_graph *sg)
{
    if (!pt_split_k_cluster(p))
        return 0;
    /* slots at 16 bytes (float4 stores), the barrier after them */
    return (int64_t)(pt_sprogram_split_k(p) - 1) * pt_split_k_tile_elems(sg) * 4 + 16;
}
