/* cache_reuse.h — what a load costs when other EUs have already read the same tile.
 *
 * A GEMM tile of A is read by every CTA of its tile row: on 8192^3 with 128 x 128 tiles, 64 CTAs
 * read each A tile and 64 each B tile, so 98% of the bytes the CTAs load are re-reads. A model
 * whose load rate is one EU's share of HBM charges them all at HBM speed. A model that describes
 * a last-level cache serving re-reads (`reuse_gbps`: MI300X's Infinity Cache) has them served
 * there instead. H100 and H200 leave it out: their load rates are calibrated on measured GEMMs,
 * L2 hits included. */
#ifndef PT_CACHE_REUSE_H
#define PT_CACHE_REUSE_H

#include "hw.h"
#include "stask.h"

/* How many work items read each tile of tensor `tensor`: the tile-grid extents of the output
 * axes the tensor lacks (A[m, k] of a GEMM: the tiles along n). 1 for a tensor no two tiles
 * share. */
int64_t pt_cache_readers(const pt_stask_graph *sg, int tensor);

/* The factor on load sTask t's time (bytes / the model's load rate): 1 where the model has no
 * reuse_gbps or nothing is re-read; else the HBM fraction d plus the re-read fraction 1 - d at
 * the cache's per-EU share (reuse_gbps / eu_count), relative to the load rate. d = 1 / readers
 * (at most eu_count readers run at once), raised to 1 - (1 - 1/readers) * l2_bytes / U when the
 * loaded tensors' U bytes do not all fit in the cache. Never above 1. */
double pt_cache_reuse_scale(const pt_stask_graph *sg, const pt_stask *t, const pt_hw *hw);

#endif
