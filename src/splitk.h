/* splitk.h — split-K (partition.split_k): the arithmetic every layer shares.
 *
 * A program with split_k = S > 1 runs tiles x S work items. Work item w computes output tile
 * w / S (in launch order) over chunk c = w % S of its reduction loop: iterations
 * [c*I/S, (c+1)*I/S) with integer division (I = that tile's trip count), so the chunks of one
 * tile are adjacent in launch order and differ in length by at most one iteration. Every chunk
 * ends with a partial f32 output tile. A chunk that is not the last of its tile to finish
 * writes it to a global workspace (tile elements x 4 bytes); the chunk that arrives last (the
 * tile's arrival counter tells it) reads the other S - 1 partial tiles, adds them into its
 * accumulators, then converts and stores the output as usual. Small partial tiles
 * (pt_split_k_publish_first) are written by every chunk before it counts itself, so the last
 * one never waits on another's write. Nobody waits for a chunk that has not finished its loop,
 * so no launch order can deadlock. The validator, the simulator, the scheduler and the code
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

/* Does every chunk publish its partial tile before it takes its ticket (one workspace slot per
 * chunk), rather than take the ticket first so that the last chunk skips its own write (S - 1
 * slots)? Publishing first takes a round trip off the last chunk's path but adds its write:
 * measured faster for 4 KB partial tiles (2-8% at M = 1), slower for 16 and 32 KB ones (0.5%,
 * 1.4%; bench/lowbit/results-2026-12-03-s19), so up to 8 KB. */
#define PT_SPLIT_K_PUBLISH_FIRST_BYTES 8192
bool pt_split_k_publish_first(int64_t tile_elems);
/* Partial tiles a tile's chunks write to the workspace: S or S - 1. */
int pt_split_k_ws_slots(int split_k, int64_t tile_elems);

/* partition.split_k_reduce cluster: the S chunks of a tile are one thread-block cluster (S CTAs
 * adjacent in launch order, chunk c the cluster's CTA c). After its loop chunk c > 0 stores its
 * partial tile into slot c - 1 of the leading CTA's shared memory (distributed shared memory)
 * and arrives on the leader's barrier; the leader (chunk 0) waits for the S - 1 arrivals, adds
 * the slots into its accumulators, then converts and stores. No global workspace, no ticket.
 * Needs a grid of one work item per CTA (a persistent CTA would need the slots free again) and
 * a hardware model that lists the cluster size's capacity (pt_hw.cluster_capacity). */
bool pt_split_k_cluster(const pt_sprogram *p);
/* The leader's shared memory for the other chunks' partial tiles and its barrier (0 unless
 * pt_split_k_cluster). */
int64_t pt_split_k_cluster_smem(const pt_sprogram *p, const pt_stask_graph *sg);

#endif
