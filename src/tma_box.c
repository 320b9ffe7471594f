/* tma_box.c — the rows a load's TMA box brings and what they cost (tma_box.h). */
#include "tma_box.h"

#include "dtype.h"
#include "graph.h"

static bool output_axis(const pt_graph *g, int a)
{
    for (int t = 0; t < g->n_tensors; t++)
        if (g->tensors[t].role == PT_ROLE_OUTPUT && g->tensors[t].view_of < 0 &&
            pt_tensor_has_axis(&g->tensors[t], a))
            return true;
    return false;
}

/* A TMA copy whose box the generator fits to the tensor: a load, or a store, which writes only
 * the rows and atoms inside the tensor (the unit clips the box there). */
static bool boxed(const pt_stask_graph *sg, const pt_stask *t, const pt_hw *hw)
{
    return hw && hw->tma_oob_row_ns > 0 && sg->graph &&
           (t->kind == PT_ST_LOAD || t->kind == PT_ST_STORE) && t->tensor >= 0 &&
           t->tensor < sg->graph->n_tensors;
}

/* The axis copy t's box rows run along when the generator may clamp or zero-fill them there
 * (an output axis other than the loop's), else -1. */
static int row_axis(const pt_stask_graph *sg, const pt_stask *t, const pt_hw *hw)
{
    const pt_graph *g = sg->graph;
    if (!boxed(sg, t, hw))
        return -1;
    const pt_tensor *T = &g->tensors[t->tensor];
    if (T->rank < 2)
        return -1;
    int a = T->axes[T->rank - 2];
    if (a < 0 || a >= g->n_axes || a == sg->loop_axis || !output_axis(g, a) ||
        sg->tiling.tile[a] < 1)
        return -1;
    return a;
}

/* Rows of the box past the end on the edge tile: 0 unless the tile does not divide a longer
 * axis. */
static int64_t rows_past_end(const pt_stask_graph *sg, int a)
{
    int64_t extent = sg->graph->axes[a].extent, tile = sg->tiling.tile[a];
    if (extent <= tile || extent % tile == 0)
        return 0;
    return tile - extent % tile;
}

/* The box's inner axis (its atoms run along it) when the edge tile may have whole atoms past
 * its end there (an output axis other than the loop's, as the rows' axis), else -1. */
static int atom_axis(const pt_stask_graph *sg, const pt_stask *t, const pt_hw *hw)
{
    const pt_graph *g = sg->graph;
    if (!boxed(sg, t, hw) || t->rank < 2)
        return -1;
    const pt_tensor *T = &g->tensors[t->tensor];
    int a = T->axes[T->rank - 1];
    if (a < 0 || a >= g->n_axes || a == sg->loop_axis || !output_axis(g, a) ||
        sg->tiling.tile[a] < 1)
        return -1;
    return a;
}

/* Elements of one 128-byte swizzle atom of tensor T (at least 1). */
static int64_t atom_elems(const pt_tensor *T)
{
    int bits = pt_dtype_bits(T->dtype);
    return bits > 0 && 1024 / bits > 0 ? 1024 / bits : 1;
}

double pt_box_bytes_fraction(const pt_stask_graph *sg, const pt_stask *t, const pt_hw *hw,
                             bool edge)
{
    double f = 1;
    int a = row_axis(sg, t, hw);
    if (a >= 0) {
        int64_t extent = sg->graph->axes[a].extent, tile = sg->tiling.tile[a];
        if (extent < tile) /* clamped: every tile brings the rows that exist */
            f = (double)extent / (double)tile;
        else if (edge)
            f = (double)(tile - rows_past_end(sg, a)) / (double)tile;
    }
    int b = atom_axis(sg, t, hw);
    if (b >= 0 && edge) {
        int64_t tile = sg->tiling.tile[b];
        f *= (double)(tile - rows_past_end(sg, b)) / (double)tile;
    }
    return f;
}

double pt_box_oob_ns(const pt_stask_graph *sg, const pt_stask *t, const pt_hw *hw)
{
    if (t->kind != PT_ST_LOAD || (row_axis(sg, t, hw) < 0 && atom_axis(sg, t, hw) < 0))
        return 0;
    const pt_tensor *T = &sg->graph->tensors[t->tensor];
    /* the box is cut into atoms of at most 128 bytes along the inner dimension, each a copy
     * of the box's rows */
    int64_t per_atom = atom_elems(T), inner = t->tile[t->rank - 1];
    int64_t atoms = (inner + per_atom - 1) / per_atom;
    int64_t rows = t->tile[t->rank - 2], zero_rows = 0;
    int a = row_axis(sg, t, hw), b = atom_axis(sg, t, hw);
    int64_t past_rows = a >= 0 ? rows_past_end(sg, a) : 0;
    /* atoms wholly past the end of the inner axis: every row zero-filled (a partly filled
     * atom counts as loaded) */
    int64_t past_atoms = b >= 0 ? rows_past_end(sg, b) / per_atom : 0;
    if (past_atoms > atoms)
        past_atoms = atoms;
    zero_rows = past_atoms * rows + (atoms - past_atoms) * past_rows;
    return (double)zero_rows * hw->tma_oob_row_ns;
}

uint32_t pt_box_edge_axes(const pt_stask_graph *sg, const pt_hw *hw)
{
    uint32_t axes = 0;
    for (int s = 0; s < sg->n; s++) {
        const pt_stask *t = &sg->tasks[s];
        if (!(pt_box_oob_ns(sg, t, hw) > 0))
            continue;
        int a = row_axis(sg, t, hw), b = atom_axis(sg, t, hw);
        if (a >= 0 && a < 32 && rows_past_end(sg, a) > 0)
            axes |= 1u << a;
        if (b >= 0 && b < 32 && rows_past_end(sg, b) >= atom_elems(&sg->graph->tensors[t->tensor]))
            axes |= 1u << b;
    }
    return axes;
}

bool pt_box_tile_is_edge(const pt_stask_graph *sg, uint32_t axes, int64_t tile)
{
    if (!axes || !sg->graph || tile < 0)
        return false;
    /* row-major over tile_grid: the last axis varies fastest */
    int64_t idx = tile;
    for (int a = sg->graph->n_axes - 1; a >= 0; a--) {
        int64_t n = sg->tile_grid[a] > 0 ? sg->tile_grid[a] : 1, c = idx % n;
        idx /= n;
        if (a < 32 && (axes >> a & 1u) && c == n - 1)
            return true;
    }
    return false;
}
