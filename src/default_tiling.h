/* default_tiling.h — the default tiling of a graph on one hardware model.
 *
 * A graph's "defaults" are written for Hopper (228 KB of shared memory per SM); MI300X has 64 KB
 * of LDS per CU. The tiling the explorer and the CLI start from is the graph's own where its
 * default sProgram fits the model, else the first of a fixed ladder of smaller tiles that does. */
#ifndef PT_DEFAULT_TILING_H
#define PT_DEFAULT_TILING_H

#include "hw.h"
#include "stask.h"

/* The graph's defaults (pt_tiling_defaults) when its default sProgram (pt_sprogram_default,
 * which lowers the stages to fit) is valid on hw with at least min(2, default stages) stages.
 * Otherwise the tiles are halved one step at a time — the loop axis first (the reduction tile k,
 * the key block n) down to 32, then the largest other given tile down to 32 (the axis split
 * between warpgroups down to hw's mma_m per warpgroup) — and the first step whose default
 * sProgram is valid with double buffering is taken; failing that, the first valid with single
 * buffering; failing that, the graph's defaults (whose validation then names the limit).
 * Before that, a tile of the axis the warpgroups split that is at least twice the axis's extent
 * is halved with the warpgroups while it still covers the extent (M = 7: m 128 on two
 * warpgroups becomes m 64 on one). Deterministic: it depends on nothing but the graph and the
 * model. */
void pt_tiling_defaults_on(const pt_graph *g, const pt_hw *hw, pt_tiling *out);

#endif
