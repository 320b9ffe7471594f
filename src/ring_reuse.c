/* ring_reuse.c — rings kept across a CTA's tiles in runs of launch positions (ring_reuse.h). */
#include "ring_reuse.h"

#include "graph.h"
#include "splitk.h"
#include "streamk.h"
#include "waves.h"

int pt_sprogram_run(const pt_sprogram *p)
{
    return p && p->partition.run > 1 ? p->partition.run : 1;
}

uint32_t pt_ring_reuse_tensors(const pt_sprogram *p, const pt_stask_graph *sg)
{
    if (!p || !sg || !sg->tasks || !sg->graph || !p->partition.persistent ||
        pt_sprogram_run(p) < 2 || pt_sprogram_split_k(p) > 1 || pt_sprogram_stream_k(p) > 1 ||
        sg->causal_op >= 0 || sg->loop_axis < 0 || sg->iterations < 1)
        return 0;
    const pt_graph *g = sg->graph;
    uint32_t mask = 0;
    for (int s = 0; s < sg->n; s++) {
        const pt_stask *t = &sg->tasks[s];
        if (t->kind != PT_ST_LOAD || !pt_stask_fills_ring(sg, s) || t->tensor < 0 ||
            t->tensor >= g->n_tensors || t->tensor >= 32 ||
            (int64_t)p->stages[t->tensor] != sg->iterations)
            continue;
        /* it must lack a tiled axis: else every next tile moves it */
        const pt_tensor *T = &g->tensors[t->tensor];
        bool lacks = false;
        for (int a = 0; a < g->n_axes && a < PT_MAX_AXES; a++) {
            if (sg->tile_grid[a] <= 1)
                continue;
            bool has = false;
            for (int k = 0; k < T->rank; k++)
                has |= T->axes[k] == a;
            lacks |= !has;
        }
        if (lacks)
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
    /* the axes any kept tensor has: a tile keeps its rings when none of them moved */
    bool use[PT_MAX_AXES] = {0};
    for (int x = 0; x < g->n_tensors && x < 32; x++)
        if (mask >> x & 1u)
            for (int k = 0; k < g->tensors[x].rank; k++)
                if (g->tensors[x].axes[k] >= 0 && g->tensors[x].axes[k] < n_axes)
                    use[g->tensors[x].axes[k]] = true;
    pt_launch_order ro;
    pt_launch_order_init(&ro, p, sg);
    if (grid > tiles)
        grid = tiles;
    int64_t R = pt_sprogram_run(p), step = tiles > 4000000 ? tiles / 1000000 : 1;
    int64_t seen = 0, kept = 0;
    for (int64_t j = 0; j < tiles; j += step) {
        /* the position the same CTA ran before j: j - 1 within a run, else the last of its
         * previous run (run u is CTA u mod grid's) */
        int64_t u = j / R, prev = j % R ? j - 1 : u >= grid ? (u - grid) * R + R - 1 : -1;
        seen++;
        if (prev < 0)
            continue;
        int64_t a0[PT_MAX_AXES], a1[PT_MAX_AXES];
        coords(sg, n_axes, pt_launch_order_tile(&ro, sg, prev), use, a0);
        coords(sg, n_axes, pt_launch_order_tile(&ro, sg, j), use, a1);
        bool same = true;
        for (int a = 0; a < n_axes; a++)
            same &= a0[a] == a1[a];
        kept += same;
    }
    return seen > 0 ? (double)kept / (double)seen : 0;
}
