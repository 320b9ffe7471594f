/* attn_walk.h — what every target's attention kernel prints the same way: whether a graph is
 * the attention pattern (matmul -> online_softmax -> matmul), and the tile walk (launch
 * position -> batch·head and query tile, in the sProgram's raster and order, as the simulator
 * walks it; the causal trip count of a query tile). Plain C++ over raster.h, so the sm90a and
 * gfx942 kernels share it. */
#ifndef PT_ATTN_WALK_H
#define PT_ATTN_WALK_H

#include "ir/kprog.h"
#include "strbuf.h"

bool pt_attn_matches(const pt_graph *g);
/* tile_coords(t, bh, mt) and tile_iters(mt); the kernel defines TILES_M, KV_BLOCKS, BM, BN,
 * SEQ and CAUSAL before them. ax_m: the query-row axis. */
void pt_attn_emit_tile_walk(strbuf *sb, const pt_kprog *kp, int ax_m);

#endif
