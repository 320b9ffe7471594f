/* ring_reuse.c — rings kept across a CTA's tiles in runs of launch positions (ring_reuse.h). */
#include "ring_reuse.h"

#include <math.h>

#include "graph.h"
#include "splitk.h"
#include "streamk.h"
#include "validate.h"
#include "waves.h"

int pt_sprogram_run(const pt_sprogram *p)
{
    return p && p->partition.run > 1 ? p->partition.run : 1;
}

/* Does tensor x's tile move with every tiled axis? */
static bool moves_with_all(const pt_stask_graph *sg, int x)
{
    const pt_graph *g = sg->graph;
    for (int a = 0; a < g->n_axes && a < PT_MAX_AXES; a++)
        if (sg->tile_grid[a] > 1 && !pt_tensor_has_axis(&g->tensors[x], a))
            return false;
    return true;
}

uint32_t pt_ring_reuse_tensors(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw)
{
    if (!p || !sg || !sg->tasks || !sg->graph || !p->partition.persistent ||
        pt_sprogram_run(p) < 2 || pt_sprogram_split_k(p) > 1 || pt_sprogram_stream_k(p) > 1)
        return 0;
    const pt_graph *g = sg->graph;
    int over = pt_sprogram_staged_over(p, sg, hw); /* overwritten by the output each tile */
    uint32_t mask = 0;
    for (int s = 0; s < sg->n; s++) {
        const pt_stask *t = &sg->tasks[s];
        if (t->kind != PT_ST_LOAD || t->tensor < 0 || t->tensor >= g->n_tensors ||
            t->tensor >= 32 || moves_with_all(sg, t->tensor))
            continue;
        bool ok;
        if (pt_stask_fills_ring(sg, s))
            ok = sg->loop_axis >= 0 && sg->iterations >= 1 &&
                 (int64_t)p->stages[t->tensor] == sg->iterations;
        else
            ok = t->region == PT_REGION_PROLOGUE && p->stages[t->tensor] <= 1 && s != over;
        if (ok)
            mask |= 1u << t->tensor;
    }
    return mask;
}

/* Tile coordinates of row-major tile index `idx`, only along the axes in `use`. */
static void coords(const pt_stask_graph *sg, int n_axes, int64_t idx, const bool *use,
                   int64_t *c)
{
    for (int a = n_axes - 1; a >= 0; a--) {
        int64_t n = sg->tile_grid[a] < 1 ? 1 : sg->tile_grid[a];
        c[a] = use[a] ? idx % n : 0;
        idx /= n;
    }
}

double pt_ring_reuse_fraction(const pt_sprogram *p, const pt_stask_graph *sg, int64_t grid,
                              uint32_t mask)
{
    int64_t tiles = sg ? sg->tiles : 0;
    if (!p || !sg || !sg->graph || !mask || tiles < 2 || grid < 1)
        return 0;
    const pt_graph *g = sg->graph;
    int n_axes = g->n_axes < PT_MAX_AXES ? g->n_axes : PT_MAX_AXES;
    /* the axes any kept tensor has: a tile keeps its rings when none of them moved; a ring
     * only in a full tile */
    bool use[PT_MAX_AXES] = {0}, ring = false;
    for (int s = 0; s < sg->n; s++)
        if (sg->tasks[s].tensor >= 0 && sg->tasks[s].tensor < 32 &&
            (mask >> sg->tasks[s].tensor & 1u) && pt_stask_fills_ring(sg, s))
            ring = true;
    for (int x = 0; x < g->n_tensors && x < 32; x++)
        if (mask >> x & 1u)
            for (int k = 0; k < g->tensors[x].rank; k++)
                if (g->tensors[x].axes[k] >= 0 && g->tensors[x].axes[k] < n_axes)
                    use[g->tensors[x].axes[k]] = true;
    pt_launch_order ro;
    pt_launch_order_init(&ro, p, sg);
    if (grid > tiles)
        grid = tiles;
    /* beyond 8K positions, 16 evenly spaced windows of 512 consecutive ones (a window keeps
     * the runs' pattern that a stride could alias; the scheduler asks this of every run
     * candidate) */
    int64_t R = pt_sprogram_run(p), win = tiles > 8192 ? 512 : tiles;
    int64_t n_win = tiles > 8192 ? 16 : 1;
    int64_t seen = 0, kept = 0;
    for (int64_t w = 0; w < n_win; w++)
    for (int64_t j = w * (tiles / n_win), end = j + win; j < end && j < tiles; j++) {
        /* the position the same CTA ran before j: j - 1 within a run, else the last of its
         * previous run (run u is CTA u mod grid's) */
        int64_t u = j / R, prev = j % R ? j - 1 : u >= grid ? (u - grid) * R + R - 1 : -1;
        int64_t a0[PT_MAX_AXES], a1[PT_MAX_AXES], tile = pt_launch_order_tile(&ro, sg, j);
        if (ring && pt_stask_graph_tile_iterations(sg, tile) < sg->iterations)
            continue; /* counted among neither */
        seen++;
        if (prev < 0)
            continue;
        int64_t prev_tile = pt_launch_order_tile(&ro, sg, prev);
        /* a shorter tile before it moved the ring's stages */
        if (ring && pt_stask_graph_tile_iterations(sg, prev_tile) < sg->iterations)
            continue;
        coords(sg, n_axes, prev_tile, use, a0);
        coords(sg, n_axes, tile, use, a1);
        bool same = true;
        for (int a = 0; a < n_axes; a++)
            same &= a0[a] == a1[a];
        kept += same;
    }
    return seen > 0 ? (double)kept / (double)seen : 0;
}

uint32_t pt_ring_reuse_best(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                            int64_t grid, double *f)
{
    uint32_t all = pt_ring_reuse_tensors(p, sg, hw), best = 0;
    double fb = 0, fx[32] = {0};
    for (int x = 0; x < 32; x++)
        if (all >> x & 1u) {
            fx[x] = pt_ring_reuse_fraction(p, sg, grid, 1u << x);
            fb = fx[x] > fb ? fx[x] : fb;
        }
    int n = 0;
    for (int x = 0; x < 32 && fb > 0; x++)
        if ((all >> x & 1u) && fabs(fx[x] - fb) < 1e-12)
            best |= 1u << x, n++;
    /* several tensors: kept together only where the axes of all of them stand still */
    *f = n > 1 ? pt_ring_reuse_fraction(p, sg, grid, best) : fb;
    return best;
}
