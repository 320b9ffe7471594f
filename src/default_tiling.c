/* default_tiling.c — the graph's default tiling made to fit a hardware model (default_tiling.h):
 * a ladder of halved tiles, each judged by the validator on its default sProgram. */
#include "default_tiling.h"

#include "propagate.h"
#include "smem_layout.h"
#include "validate.h"

/* More steps than any graph's tiles can be halved from PT_MAX_TILE down to 32. */
#define LADDER_MAX 64
#define TILE_FLOOR 32

/* The fewest stages any ring of tiling t's default sProgram keeps on hw, or 0 when that
 * program cannot be built or is not valid there. */
static int fitted_stages(const pt_graph *g, const pt_hw *hw, const pt_tiling *t)
{
    pt_stask_graph sg;
    pt_sprogram p;
    pt_error err;
    if (!pt_partition(&sg, g, t, &err))
        return 0;
    int fewest = 0;
    if (pt_sprogram_default(&p, &sg, hw, &err)) {
        if (pt_validate(&p, &sg, hw, NULL, &err)) {
            fewest = 1 << 30;
            for (int i = 0; i < PT_MAX_TENSORS; i++)
                if (p.stages[i] > 0 && p.stages[i] < fewest)
                    fewest = p.stages[i];
        }
        pt_sprogram_free(&p);
    }
    pt_stask_graph_free(&sg);
    return fewest;
}

/* The loop axis and the warpgroup split axis of tiling t (-1 where none or unknown). */
static void loop_and_split(const pt_graph *g, const pt_tiling *t, int *loop, int *split)
{
    pt_stask_graph sg;
    pt_error err;
    *loop = *split = -1;
    if (!pt_partition(&sg, g, t, &err))
        return;
    *loop = sg.loop_axis;
    *split = sg.split_axis;
    pt_stask_graph_free(&sg);
}

static bool can_halve(const pt_tiling *t, int a, int64_t floor)
{
    return a >= 0 && t->tile[a] > 0 && t->tile[a] % 2 == 0 && t->tile[a] / 2 >= floor;
}

/* The axis the next rung halves: the loop axis while it can, then the largest other tile
 * (the lowest axis index among equals); -1 when none can be halved. */
static int next_axis(const pt_graph *g, const pt_tiling *t, int loop, int split, int mma_m)
{
    if (can_halve(t, loop, TILE_FLOOR))
        return loop;
    int best = -1;
    for (int a = 0; a < g->n_axes; a++) {
        int64_t floor = a == split ? (int64_t)mma_m * t->warpgroups : TILE_FLOOR;
        if (a != loop && can_halve(t, a, floor > TILE_FLOOR ? floor : TILE_FLOOR) &&
            (best < 0 || t->tile[a] > t->tile[best]))
            best = a;
    }
    return best;
}

/* A default tile on the axis the warpgroups split that is at least twice that axis's extent
 * holds only empty rows in its second half (GEMM at M <= 64, ChunkScan at L = 64, attention
 * over 64 queries): halve it with the warpgroups, which keep their rows, while it still covers
 * the extent. Other axes keep the graph's tiles. */
static void fit_rows_to_extent(const pt_graph *g, pt_tiling *t)
{
    int loop, split;
    loop_and_split(g, t, &loop, &split);
    if (split < 0)
        return;
    int64_t extent = g->axes[split].extent;
    while (t->warpgroups % 2 == 0 && t->tile[split] % 2 == 0 && t->tile[split] / 2 >= extent) {
        t->tile[split] /= 2;
        t->warpgroups /= 2;
    }
}

/* Is axis a the innermost of a 16-bit input, or of an output, or contracted by a matmul? */
static bool atom_axis(const pt_graph *g, int a)
{
    bool inner16 = false, used = pt_graph_axis_in_output(g, a);
    for (int t = 0; t < g->n_tensors; t++) {
        const pt_tensor *x = &g->tensors[t];
        inner16 |= x->role == PT_ROLE_INPUT && x->rank > 0 && x->axes[x->rank - 1] == a &&
                   pt_dtype_bits(x->dtype) == 16;
    }
    for (int i = 0; i < g->n_ops; i++)
        for (int r = 0; r < g->ops[i].n_reduce; r++)
            used |= g->ops[i].kind == PT_OP_MATMUL && g->ops[i].reduce_axes[r] == a;
    return inner16 && used;
}

/* An axis the graph leaves whole (no default tile) that is shorter than one 128-byte atom of
 * the 16-bit inputs it is the innermost axis of (Mamba2's d_state 16 or head dim 32) is tiled
 * as one atom where the hardware's shared-memory layout has atoms: the tensor-core operands are
 * read in whole atoms, and TMA zero-fills past the axis's end. */
static void fit_short_axes_to_atoms(const pt_graph *g, const pt_hw *hw, pt_tiling *t)
{
    pt_smem_layout lay;
    pt_smem_layout_of(hw, &lay);
    if (!lay.atoms)
        return;
    for (int a = 0; a < g->n_axes; a++)
        if (t->tile[a] == 0 && g->axes[a].extent < 64 && !g->axes[a].batch && atom_axis(g, a))
            t->tile[a] = 64;
}

void pt_tiling_defaults_on(const pt_graph *g, const pt_hw *hw, pt_tiling *out)
{
    pt_tiling_defaults(g, out);
    if (!hw)
        return;
    fit_short_axes_to_atoms(g, hw, out);
    fit_rows_to_extent(g, out);
    int want = g->default_stages > 0 && g->default_stages < 2 ? g->default_stages : 2;
    int first = fitted_stages(g, hw, out);
    if (first >= want)
        return; /* the graph's own defaults fit: every Hopper example on H100 / H200 */
    pt_tiling ladder[LADDER_MAX];
    int fits[LADDER_MAX];
    int n = 0, loop, split;
    ladder[n] = *out;
    fits[n++] = first;
    loop_and_split(g, out, &loop, &split);
    while (n < LADDER_MAX) {
        pt_tiling t = ladder[n - 1];
        int a = next_axis(g, &t, loop, split, hw->mma_m);
        if (a < 0)
            break;
        t.tile[a] /= 2;
        ladder[n] = t;
        fits[n++] = fitted_stages(g, hw, &t);
        if (fits[n - 1] >= want) {
            *out = t;
            return;
        }
    }
    for (int i = 0; i < n; i++)
        if (fits[i] > 0) {
            *out = ladder[i];
            return;
        }
}
