/* waves.h — what the wave model's two halves share: waves.c (one work item per output tile)
 * and splitk_waves.c (split-K: tiles x split_k work items, splitk.h). Internal to src/. */
#ifndef PT_WAVES_H
#define PT_WAVES_H

#include "sim.h"

/* The launch order of the tiles: raster walk (raster.h) and partition.order. */
typedef struct {
    pt_raster raster;
    int64_t group;
    bool longest_first;
    int n_axes;
    int64_t grid[PT_MAX_AXES];
    int slow, fast;          /* the two fastest tile-grid axes with more than one tile */
} pt_launch_order;

void pt_launch_order_init(pt_launch_order *ro, const pt_sprogram *p, const pt_stask_graph *sg);
/* Row-major index of the tile launched at position j. */
int64_t pt_launch_order_tile(const pt_launch_order *ro, const pt_stask_graph *sg, int64_t j);

/* What a persistent CTA's follow-on work item overlaps with the one before it (and the block
 * launch it does not pay), from the representative EU's timeline tl. */
double pt_waves_persistent_saving(const pt_sprogram *p, const pt_stask_graph *sg,
                                  const pt_timeline *tl, const pt_hw *hw);
/* Compulsory global traffic: every input read and output written once. */
double pt_waves_dram_bytes(const pt_stask_graph *sg);
/* The DRAM floor: each input's bytes at hbm_gbps, or at pt_waves_run_rate of it where its
 * innermost axis is the loop's and its loads read runs of fewer than 256 contiguous bytes
 * (pt_waves_load_run_bytes); each output's at hbm_write_gbps where the model has it. */
double pt_waves_dram_floor_ns(const pt_stask_graph *sg, const pt_hw *hw);
/* The DRAM time of a split-K or stream-K workspace: its partial tiles written at hbm_write_gbps
 * (hbm_gbps where the model has none), then read back by the fix-up at hbm_gbps. Added to the
 * operands' floor: measured (rounds 133, 159), M = 64 GEMMs split through the workspace ran
 * 10-13% slower than a floor of their operands alone. */
double pt_waves_workspace_ns(const pt_hw *hw, double written, double read);
/* The longest run of contiguous global memory one load of tensor t reads: its tile's extent
 * along the innermost axis, times the next axes' tiles while the rows are read whole; 0 when
 * no sTask loads t. */
int64_t pt_waves_load_run_bytes(const pt_stask_graph *sg, int t);
/* The fraction of hbm_gbps runs of `run` bytes are read at (dram_short_run under 256 bytes,
 * dram_run_halving for each halving under 128); 1 for 0 (unknown) or 256 and more. */
double pt_waves_run_rate(const pt_hw *hw, int64_t run);
/* The bytes one CTA's body rings hold in flight: the producer issues an iteration's loads in
 * order and stops at the first ring with no free stage, so it runs ahead by the shallowest
 * ring's depth. 0 without body rings. */
double pt_waves_ring_inflight_bytes(const pt_sprogram *p, const pt_stask_graph *sg);
/* The fraction of its rates the DRAM floor of p moves its bytes at on `ctas` resident CTAs: 1
 * while their rings hold at most dram_overfill_ns of hbm_gbps in flight, else
 * dram_overfill_doubling per doubling beyond, in full where half the bytes are written and
 * not at all where none are. */
double pt_waves_overfill_rate(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                              int64_t ctas, int64_t items);
/* A kernel's DRAM floor as its timeline reports it: the compulsory bytes' floor plus a
 * workspace's (written, read: 0 without one), at pt_waves_overfill_rate of the rates for `items`
 * work items on `ctas` CTAs. */
double pt_waves_kernel_floor_ns(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                                int64_t ctas, int64_t items, double written, double read);
/* The tile time of a last wave of `tail` one-CTA-per-EU tiles after full waves, given the full
 * wave's in *t: simulated with the L2 shared `tail` ways (pt_waves_few_ctas), but no shorter
 * than the tail's share of the DRAM floor; *t is lowered only. */
bool pt_waves_tail_time(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                        int64_t tail, double *t, pt_error *err);

/* The kernel time of an SM-pipeline span next to a DRAM floor (both ns), launch included:
 * max(span, floor), or their p-norm where the model has dram_blend_p. */
double pt_waves_kernel_ns(const pt_hw *hw, double span, double floor);

/* The launch overhead of a kernel with this DRAM floor: launch_ns, or where the model has
 * launch_ramp_floor_ns, from launch_base_ns (nothing moved) up to launch_ns at that floor. A
 * kernel in a CUDA graph costs about 0.65 us empty; one that moves megabytes pays about 2 us
 * more, which the simulator does not model itself (every CTA's first loads at once take about
 * twice their modelled time), and a combine of a few kilobytes does not. */
double pt_waves_launch_ns(const pt_hw *hw, double floor);
/* The model to simulate one EU with when only `active` EUs are busy (the L2 bandwidth shared
 * fewer ways, the power-capped clock drop scaled down); hw itself when nothing changes, else
 * *local filled in. */
const pt_hw *pt_waves_few_ctas(const pt_hw *hw, int64_t active, pt_hw *local);

/* pt_simulate for a program with split_k > 1 (splitk_waves.c). */
/* The representative EU's timeline (its spans, owned by tl from now on, lanes and busy
 * figures) as the kernel timeline's one-EU view, after a split- or stream-K simulation. */
void pt_waves_take_eu(pt_timeline *tl, const pt_timeline *rep);
bool pt_waves_split_k(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                      pt_timeline *tl, pt_error *err);

/* pt_simulate for a program with stream_k > 1 (streamk_waves.c). */
bool pt_waves_stream_k(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                       pt_timeline *tl, pt_error *err);

#endif
