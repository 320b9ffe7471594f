/* stage_hold.h — the contract on ring stages, decided once for an sProgram and read by the
 * validator, the simulator and the code generators (docs/CONTRACT.md).
 *
 * A buffered load of iteration i fills slot i mod S of its tensor's ring (S = stages). The
 * slot is *held* from that load until every reader of the tile (a loop-body sTask that reads
 * the load at distance 0, e.g. mma.C.wg0 and mma.C.wg1) has released it; the load of
 * iteration i + S waits for that release. A reader of iteration j releases its slot:
 *
 *   lag 0: when its own instance (reader, j) has completed — the consumer waits for the wgmma
 *          group (wait_group<0>, or attention's in-step wait_group N) and arrives on `empty`;
 *   lag 1: only once the consumer has issued (reader, j + 1) — it keeps one wgmma group in
 *          flight (wait_group<1> after issuing iteration j + 1), so the slot of j is handed back
 *          one iteration late. The last iteration's slot is released when the loop ends.
 *
 * A stage is therefore held for 1 + lag iterations of its reader. Lag 1 is chosen only where
 * it is possible (the consumer's loop body is wgmma only: GEMM) and the rings still make
 * progress with it (no cycle through lane orders, Waits, data dependencies and the late
 * release); otherwise the kernel waits for every group before releasing (lag 0). An sProgram
 * whose rings do not progress even with lag 0 is refused by the validator with the stage count
 * it would need. */
#ifndef PT_STAGE_HOLD_H
#define PT_STAGE_HOLD_H

#include "hw.h"
#include "sprogram.h"

typedef struct {
    bool ring[PT_MAX_TENSORS];   /* the tensor is loaded into a ring of stages */
    int lag[PT_MAX_TENSORS];     /* 0 or 1, as above (0 where ring is false) */
    int mma_in_flight;           /* wgmma groups a consumer keeps in flight across a step */
    bool in_flight_possible;     /* the loop body is wgmma only (lag 1 could be generated) */
    bool progress;               /* the rings make progress under these lags */
    bool defer_reads;            /* a CUDA-core reader's stages go back with a wgmma group
                                    (pt_stage_release_group) rather than behind a fence once
                                    read: taken where the sProgram's release is "group" and
                                    the rings still progress so */
} pt_stage_hold;

/* Decide the contract for (p, sg). Never fails: an sProgram the validator refuses still gets
 * an answer (lag 0, progress false where its rings cannot progress). */
void pt_stage_hold_decide(const pt_sprogram *p, const pt_stask_graph *sg, pt_stage_hold *h);

/* The same decision without the final progress proof (h->progress is left false unless the
 * lag-1 proof succeeded): for the simulator, which finds a stuck ring by itself. */
void pt_stage_hold_lags(const pt_sprogram *p, const pt_stask_graph *sg, pt_stage_hold *h);

/* Iterations a stage of `tensor` is held (1 + lag): in loop steps of its reader. */
int pt_stage_hold_iterations(const pt_stage_hold *h, int tensor);

/* The reader iteration whose completion (lag 0) or issue (lag 1) releases the slot filled at
 * iteration `iter`, in a loop of `iters` iterations: iter + lag, clamped to the last one. */
int64_t pt_stage_release_iter(const pt_stage_hold *h, int tensor, int64_t iter, int64_t iters);

/* The instances whose completion releases, at the latest, the slot filled at iteration i:
 * (stask, i + delta) for each entry. For a reader R of `load` (on the lanes of warp role r, at
 * iteration offset o_R) these are the body entries e of role r's lanes in the loop step that
 * issues R at iteration i + lag (iteration i + lag - o_R + o_e): the consumer releases the
 * slot at a wgmma wait inside that step, never later than its end. `clamp` marks R itself at
 * i + lag, taken at the last iteration when past the end (the loop's final wait releases it);
 * other entries past either end of the loop are not part of that step. A reader whose stages
 * go back with a group M (pt_stage_release_group; lag 0) counts from the step that issues M at
 * iteration i instead, and M there is the clamped entry. For GEMM (the body of the consumer is
 * its mma alone) the set is exactly {R at i + lag}. Returns the count (may exceed cap). */
typedef struct {
    int stask;
    int delta;
    bool clamp;
} pt_stage_release;
int pt_stage_release_set(const pt_sprogram *p, const pt_stask_graph *sg, const pt_stage_hold *h,
                         int load, pt_stage_release *out, int cap);

/* The tensor-core sTask whose wgmma group's completion hands back the stages a CUDA-core
 * reader holds, or -1 where they go back once read. A warp's arrival on a stage's `empty`
 * barrier does not wait for its shared-memory loads to return, so a stage read into registers
 * on the CUDA cores goes back either behind a proxy fence right after the reads, or (this
 * function's choice, which costs nothing) when a group that consumed registers made from them
 * has completed: the first mma, in lane order, of the reader's role that reads its output at
 * distance 0 (directly or through that role's CUDA-core sTasks) and whose step of the same
 * iteration comes before the ring would need the stage again (stages > o_reader - o_mma).
 * Where the reader runs ahead of that mma (o_reader > o_mma) the stage is held into a later
 * step than the reader's; the release set below, the simulator and the generators all take
 * this one decision. The contract takes these deferrals all together (h->defer_reads) where
 * the rings still progress with them — a stage held into a later step can close a cycle through
 * the producer's lane order, where the fence's early release would not — else none (h NULL:
 * none). Never for a dequantisation into registers along the tensor-core rows
 * (its generator hands the stages back after a fence inside the step) nor where the matrix
 * unit is synchronous (hw: NULL reads as Hopper's asynchronous wgmma). Where a CUDA-core
 * sTask reads a ring no group outlives its step (lag 0), so the group's step is the one its
 * offset names. */
int pt_stage_release_group(const pt_sprogram *p, const pt_stask_graph *sg,
                           const pt_stage_hold *h, const pt_hw *hw, int reader);

/* Is sTask `s` a reader that holds the stage of buffered load `load` (a loop-body sTask that
 * reads it at distance 0)? */
bool pt_stage_reader(const pt_stask_graph *sg, int load, int s);

#endif
