/* ring_reuse.h — tiles that a CTA's next tile finds still in shared memory.
 *
 * With partition.run = R a persistent CTA takes runs of R consecutive launch positions (run u
 * on CTA u mod grid). Two kinds of buffer can then keep what the last tile loaded:
 * - a ring whose stages hold every iteration of a full tile's loop: when a full tile ends,
 *   each iteration's block sits in the stage that iteration lands in again;
 * - a resident tile (loaded once per tile) of one copy that the output is not staged over.
 * Where the tensor's tile coordinates did not change (it lacks the axes the walk moved along:
 * Mamba2's B and C have no head axis), the producer hands those stages or that tile over again
 * without a transfer. Under a causal mask a ring is kept only after a full tile (a shorter one
 * leaves the ring's stages shifted). The simulator charges such a tile nothing for those loads; the
 * generator emits the comparison (codegen/sm90a/producer.c). */
#ifndef PT_RING_REUSE_H
#define PT_RING_REUSE_H

#include <stdint.h>

#include "hw.h"
#include "sprogram.h"
#include "stask.h"

/* partition.run, at least 1. */
int pt_sprogram_run(const pt_sprogram *p);

/* The tensors (bit t for tensor t) whose rings or resident tiles the program keeps across
 * its tiles; 0 unless persistent with runs of more than one position, not split-K or
 * stream-K. A tensor qualifies when it is TMA-loaded into a ring of exactly one stage per
 * iteration of a full tile, or resident in one copy with the output staged apart from it (hw
 * decides an automatic staging; NULL: only an explicit "apart" counts), and its tile does not
 * move with every tiled axis. */
uint32_t pt_ring_reuse_tensors(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw);

/* Of the tiles run by a persistent grid of `grid` CTAs in runs of partition.run positions (of
 * the full ones, where a ring is in `mask`), the fraction that find every tensor in `mask`
 * kept: the tile before it on the same CTA had the same coordinates along each of their axes
 * (and was full, where a ring is in `mask`).
 * Counted exactly over the launch order (over 16 windows of 512 positions beyond 8K). */
double pt_ring_reuse_fraction(const pt_sprogram *p, const pt_stask_graph *sg, int64_t grid,
                              uint32_t mask);

/* The tensors that keep their tiles most often together: of those pt_ring_reuse_tensors
 * names, the ones whose own fraction (pt_ring_reuse_fraction of that tensor alone) is the
 * largest, and in *f the fraction of tiles that find all of them kept (0 and no tensor when
 * none is ever kept). Tensors that lack
 * different axes keep at different times (ChunkScan's C and CB lack the head axis, x and
 * states the row tile's): the model credits the commonest group only. */
uint32_t pt_ring_reuse_best(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                            int64_t grid, double *f);

#endif
