/* tma_box.h — the rows a load's TMA box brings and a store's writes, as the sm90a generator
 * sets the boxes (codegen/ir/pass_buffers.c), and what the simulator charges for them.
 *
 * A load's box is its tile, cut along the inner dimension into swizzle atoms of at most 128
 * bytes; its rows run along the tensor's outer axis (axes[rank - 2]). When that axis is an
 * output axis other than the loop's:
 *   - shorter than the tile (M = 1 with 64-row tiles): the generator clamps the box to the rows
 *     that exist, so every tile loads only those bytes;
 *   - longer than the tile but not a multiple of it (M = 257 with 192-row tiles): the box keeps
 *     its rows, and on the last tile along the axis (the edge tile) the TMA unit zero-fills the
 *     rows past the end. Measured on the H200, a zero-filled row costs the TMA unit more than a
 *     loaded one (hw tma_oob_row_ns, per row of each atom), so the edge tile is the slow one.
 * A store's box is clipped by the unit at the tensor's end: it writes the rows (and atoms) that
 * exist, clamped or on the edge tile alike, and zero-fills nothing (FlashDecoding's partial
 * output: 4 query rows of a 64-row tile; the profiled store took 22 ns where the whole tile's
 * bytes were charged 1.7 us, BENCHMARKS.md session 34).
 * Only for hardware models with tma_oob_row_ns > 0 (the TMA's boxes; elsewhere every copy is
 * charged its whole tile). */
#ifndef PT_TMA_BOX_H
#define PT_TMA_BOX_H

#include <stdbool.h>
#include <stdint.h>

#include "hw.h"
#include "stask.h"

/* Fraction of load or store sTask t's tile bytes its box moves (the clamped rows, or on an edge
 * tile the rows before the end); 1 for every other sTask or model. */
double pt_box_bytes_fraction(const pt_stask_graph *sg, const pt_stask *t, const pt_hw *hw,
                             bool edge);
/* TMA time (ns) of the rows load sTask t's box zero-fills on an edge tile: rows past the end
 * x atoms x tma_oob_row_ns. 0 when it fills none. */
double pt_box_oob_ns(const pt_stask_graph *sg, const pt_stask *t, const pt_hw *hw);
/* The axes (bit a for axis a) on whose last tile some load zero-fills rows; 0: no edge tile
 * takes longer than the others. */
uint32_t pt_box_edge_axes(const pt_stask_graph *sg, const pt_hw *hw);
/* Is output tile `tile` (row-major over tile_grid) the last one along an axis of `axes`
 * (pt_box_edge_axes)? */
bool pt_box_tile_is_edge(const pt_stask_graph *sg, uint32_t axes, int64_t tile);

#endif
