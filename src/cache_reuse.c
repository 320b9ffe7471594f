/* cache_reuse.c — re-read operand tiles served by the last-level cache (cache_reuse.h). */
#include "cache_reuse.h"

int64_t pt_cache_readers(const pt_stask_graph *sg, int tensor)
{
    const pt_graph *g = sg->graph;
    if (!g || tensor < 0 || tensor >= g->n_tensors)
        return 1;
    int64_t readers = 1;
    for (int a = 0; a < g->n_axes && a < PT_MAX_AXES; a++)
        if (sg->tile_grid[a] > 1 && !pt_tensor_has_axis(&g->tensors[tensor], a))
            readers = readers > INT64_MAX / sg->tile_grid[a] ? INT64_MAX
                                                             : readers * sg->tile_grid[a];
    return readers;
}

/* Bytes of the distinct tensors the kernel's load sTasks read (each tensor once). */
static double loaded_bytes(const pt_stask_graph *sg)
{
    const pt_graph *g = sg->graph;
    bool seen[PT_MAX_TENSORS] = {false};
    double bytes = 0;
    for (int s = 0; s < sg->n; s++) {
        int x = sg->tasks[s].tensor;
        if (sg->tasks[s].kind != PT_ST_LOAD || x < 0 || x >= g->n_tensors || seen[x])
            continue;
        seen[x] = true;
        bytes += (double)pt_tensor_elems(g, &g->tensors[x]) * pt_dtype_bits(g->tensors[x].dtype) / 8;
    }
    return bytes;
}

double pt_cache_reuse_scale(const pt_stask_graph *sg, const pt_stask *t, const pt_hw *hw)
{
    if (!(hw->reuse_bytes_per_ns > 0) || t->kind != PT_ST_LOAD || !sg->graph ||
        hw->eu_count < 1 || (unsigned)t->dtype >= PT_DTYPE_COUNT)
        return 1;
    double rate = hw->cost[PT_ST_LOAD][t->dtype].rate;
    double cache = hw->reuse_bytes_per_ns / hw->eu_count; /* every EU streaming at once */
    int64_t readers = pt_cache_readers(sg, t->tensor);
    if (readers > hw->eu_count)
        readers = hw->eu_count;
    if (readers < 2 || !(rate > 0) || !(cache > rate))
        return 1;
    double hit = 1 - 1.0 / (double)readers, fits = 1, u = loaded_bytes(sg);
    if (u > (double)hw->l2_bytes)
        fits = (double)hw->l2_bytes / u; /* the cache keeps that share of the operands */
    hit *= fits;
    return (1 - hit) + hit * rate / cache;
}
