/* validate.h — is an sProgram executable on the hardware model, and if not, why.
 *
 * Checks: every sTask placed exactly once; each sTask on a lane of its sEU kind; offsets
 * only on body sTasks; every cross-lane data dependency covered by a Wait; no cycle through
 * Waits, data dependencies, lane orders and the reuse of ring stages, released where the stage
 * contract says (stage_hold.h; a deadlock: the cycle is named, and a ring too shallow for how
 * long its stages are held is said as such, with the stages it needs); shared memory
 * (stages x tiles + resident tiles + barriers) and registers (accumulators per warpgroup;
 * the role budgets within the register file by the vendor's rule, regfile.h) within the model. */
#ifndef PT_VALIDATE_H
#define PT_VALIDATE_H

#include "sprogram.h"
#include "stage_hold.h"

#define PT_MAX_PROBLEMS 32

typedef struct {
    int n_problems;
    char problems[PT_MAX_PROBLEMS][320];
    int64_t smem_bytes;            /* needed per EU */
    int64_t smem_limit;
    int regs_needed[PT_MAX_ROLES]; /* per thread, per role */
    int64_t regs_total;            /* the register file the roles take (regfile.h): NVIDIA
                                      budgets x threads summed over roles; AMD the largest
                                      budget x the busiest SIMD's waves x 64 lanes x SIMDs */
    int64_t regs_limit;
} pt_validation;

/* Returns true when valid. `report` (may be NULL) receives every problem found; `err` the
 * first one as a single line. */
bool pt_validate(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                 pt_validation *report, pt_error *err);
/* Do the rings make progress with these stages and this release contract (stage_hold.h:
 * its lags and deferred releases; NULL = lag 0, no deferral)? No cycle through lane orders,
 * data dependencies, Waits and stage reuse. On a cycle, msg (may be NULL) receives it. Used by
 * pt_stage_hold_decide and the validator. */
bool pt_validate_ring_progress(const pt_sprogram *p, const pt_stask_graph *sg,
                               const int *stages, const pt_stage_hold *hold, char *msg,
                               size_t cap);
/* Bytes sTask t's tile takes in shared memory (before a buffer's 1024-byte alignment): rows of
 * the innermost axis longer than one 128-byte swizzle atom are stored as whole atoms (a head
 * dim of 96 f16 takes 128 columns: TMA boxes and wgmma descriptors step by atoms, and the pad
 * is never read). The validator and the generators size buffers by this one rule. */
int64_t pt_stask_smem_tile_bytes(const pt_stask_graph *sg, const pt_stask *t);
/* The same under hw's layout rules (smem_layout.h; NULL: NVIDIA's, as above). AMD: rows
 * padded by 16 bytes, no atoms. */
int64_t pt_stask_smem_tile_bytes_on(const pt_stask_graph *sg, const pt_stask *t, const pt_hw *hw);
/* Shared memory one EU needs under this program (bytes): rings, resident tiles, the output
 * staging tile (the largest store's), and a buffer of its own for any other store. */
int64_t pt_sprogram_smem_bytes(const pt_sprogram *p, const pt_stask_graph *sg);
/* The same under hw's layout rules (smem_layout.h): on AMD no staging tile, no resident tiles,
 * no barrier memory, padded rows. The validator checks this one against the model. */
int64_t pt_sprogram_smem_bytes_on(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw);
/* partition.split_k_reduce cluster: do the leader's slots for the other chunks' partial tiles
 * lie over its rings' stages (they do not fit beside the buffers; the rings are as large), so
 * the other chunks wait for the leader's loop to end before they write? */
bool pt_sprogram_cluster_slots_over_rings(const pt_sprogram *p, const pt_stask_graph *sg,
                                          const pt_hw *hw);
/* The lane that issues both loads and a store (the store then holds the next tile's loads
 * until this tile's epilogue is done), or -1. */
int pt_sprogram_store_lane_loads(const pt_sprogram *p, const pt_stask_graph *sg);
/* Does the output staging tile get a buffer of its own? A resident tile (attention's Q) takes
 * it once the loop is done, unless the program is persistent and both still fit (then the
 * next tile's resident load need not wait for this tile's store). No staging: true. */
bool pt_sprogram_staging_apart(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw);
/* The resident load whose tile the output is staged over (the largest, the first of equals, as
 * the generators choose it), -1 when the output is staged apart. */
int pt_sprogram_staged_over(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw);
/* Are the tiles launched longest first (partition.order; auto: under a causal mask)? The one
 * answer the simulator's launch order and the generators' tile walk both read. */
bool pt_sprogram_longest_first(const pt_sprogram *p, const pt_stask_graph *sg);
/* Spells out what "auto" resolves to for this program on this hardware (order under a causal
 * mask, staging where a resident tile could take it; an unset split_k is 1): the same kernel
 * and prediction, and a saved program that says so. */
void pt_sprogram_resolve_choices(pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw);
/* Registers per thread the accumulators/fragments of consumer warpgroup `wg` need. */
int pt_sprogram_regs_needed(const pt_sprogram *p, const pt_stask_graph *sg, int wg);

#endif
