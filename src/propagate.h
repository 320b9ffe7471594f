/* propagate.h — Propagate(graph, tileShape) and tilings.
 *
 * From the output tile (tiles of the output tensor's axes) and the reduction tile, infer the
 * tile of every tensor by walking the graph backwards from its outputs: an op's inputs take
 * the tiles of the axes they share with its output, contracted/reduced axes take the
 * reduction tile, and an axis reached by no rule keeps its whole extent (batch axes: 1). */
#ifndef PT_PROPAGATE_H
#define PT_PROPAGATE_H

#include "stask.h"

/* `in` holds the tiles the user gave (0 = not given); `out` gets a tile for every axis,
 * clamped to the extent. Fails when a given tile is not positive or exceeds limits. */
bool pt_propagate(const pt_graph *g, const pt_tiling *in, pt_tiling *out, pt_error *err);

/* The graph's defaults ("defaults" in its JSON), as an unpropagated tiling. */
void pt_tiling_defaults(const pt_graph *g, pt_tiling *out);
/* Apply "m=128,n=256,k=64,wg=2" over `t`. `what` names the source in messages ("--tile"). */
bool pt_tiling_parse(const pt_graph *g, const char *spec, const char *what, pt_tiling *t,
                     pt_error *err);
/* Tile of tensor `tensor` under a propagated tiling, into shape[rank]. */
void pt_tiling_tensor_tile(const pt_graph *g, const pt_tiling *t, int tensor, int64_t *shape);

#endif
