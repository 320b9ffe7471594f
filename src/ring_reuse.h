/* ring_reuse.h — rings that keep their blocks from one of a CTA's tiles to its next.
 *
 * With partition.run = R a persistent CTA takes runs of R consecutive launch positions (run u
 * on CTA u mod grid). A ring whose stages hold every iteration of a tile's loop still has,
 * when the CTA's next tile starts, each iteration's block in the stage that iteration lands in
 * again. Where the tensor's tile coordinates did not change (it lacks the axes the walk moved
 * along: Mamba2's B has no head axis, attention's K and V no query axis), the producer hands
 * those stages over again without a transfer. The simulator charges such a tile nothing for
 * them; the generator emits the comparison (codegen/sm90a/producer.c). */
#ifndef PT_RING_REUSE_H
#define PT_RING_REUSE_H

#include <stdint.h>

#include "sprogram.h"
#include "stask.h"

/* partition.run, at least 1. */
int pt_sprogram_run(const pt_sprogram *p);

/* The tensors (bit t for tensor t) whose rings the program keeps across its tiles; 0 unless
 * persistent with runs of more than one position, not split-K or stream-K, with the same trip
 * count in every tile (no causal mask). A tensor qualifies when its TMA-filled ring has
 * exactly one stage per iteration and its tile does not move with every tiled axis. */
uint32_t pt_ring_reuse_tensors(const pt_sprogram *p, const pt_stask_graph *sg);

/* Of the tiles run by a persistent grid of `grid` CTAs in runs of partition.run positions, the
 * fraction that find the rings of every tensor in `mask` kept: the tile before it on the same
 * CTA had the same coordinates along each of their axes. Counted exactly over the launch
 * order (one position in every few beyond 4M tiles). */
double pt_ring_reuse_fraction(const pt_sprogram *p, const pt_stask_graph *sg, int64_t grid,
                              uint32_t mask);

#endif
