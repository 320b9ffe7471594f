/* splitk.h — split-K (partition.split_k): the arithmetic every layer shares.
 *
 * A program with split_k = S > 1 runs tiles x S work items. Work item w computes output tile
 * w / S (in launch order) over chunk c = w % S of its reduction loop: iterations
 * [c*I/S, (c+1)*I/S) with integer division (I = that tile's trip count), so the chunks of one
 * tile are adjacent in launch order and differ in length by at most one iteration. Every chunk
 * ends with a partial f32 output tile. Every chunk writes it to its slot of a global workspace
 * (tile elements x 4 bytes) and then bumps the tile's arrival counter; the chunk that arrives
 * last reads the other S - 1 partial tiles, adds them into its accumulators, then converts and
 * stores the output as usual. Nobody waits for anybody, so no launch order can deadlock. The validator, the simulator, the scheduler and the code
 * generators all read these same definitions (docs/FORMAT-sprogram.md, partition.split_k). */
#ifndef PT_SPLITK_H
#define PT_SPLITK_H

#include <stddef.h>

#include "sprogram.h"

#define PT_MAX_SPLIT_K 16

/* The program's split_k, 1 when unset (0) or not above 1. */
int pt_sprogram_split_k(const pt_sprogram *p);

/* Chunk `chunk` of a loop of `iters` iterations split `split_k` ways: its first iteration
 * and how many it runs. */
void pt_split_k_chunk(int64_t iters, int split_k, int chunk, int64_t *first, int64_t *count);

/* Can sg's loop be split across EUs with the adds of the fix-up? It needs a reduction loop
 * whose only loop-carried state is tensor-core accumulators (a sum over the loop: a running
 * softmax's max and rescale are not) and an epilogue that only converts and stores them
 * (anything else, attention's normalize or Mamba2's add of the prologue's term, would be
 * applied once per chunk). false with the reason (one phrase naming the sTask) in why. */
bool pt_split_k_possible(const pt_stask_graph *sg, char *why, size_t cap);

/* Elements of the output tile(s) one work item stores: the partial tile is this many f32. */
int64_t pt_split_k_tile_elems(const pt_stask_graph *sg);

#endif
