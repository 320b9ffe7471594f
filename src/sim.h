/* sim.h — the discrete-event simulator: the predicted timeline.
 *
 * One EU runs its sProgram for one output tile: each lane issues its entries in order; an
 * instance starts when its lane has issued the one before (async sEUs) or finished it (sync
 * sEUs), its warp role is free to issue, every data dependency and Wait has completed (plus
 * a barrier hand-off when it crosses warp roles), its buffer stage is free, and its physical
 * unit has room: TMA copies share the EU's bandwidth with a bounded number in flight, one
 * tensor-core stream per EU is shared by all warpgroups, CUDA cores are per warpgroup.
 * The kernel time spreads the output tiles over the EUs in raster order (waves and tail),
 * with per-tile trip counts for causal masks. No progress while work remains = deadlock. */
#ifndef PT_SIM_H
#define PT_SIM_H

#include "sprogram.h"

typedef struct {
    int stask;
    int lane;
    int64_t iter;          /* loop iteration (0 for prologue/epilogue) */
    double issue_ns;       /* the warp role issued it */
    double start_ns;       /* the physical unit began it (after queueing behind others) */
    double end_ns;         /* completion (data available to dependants) */
    double unit_end_ns;    /* the unit itself is busy from start_ns to here (its occupancy;
                              busy.h); an asynchronous unit's span issue_ns..end_ns is longer.
                              0 where unknown (measured spans): read with pt_span_unit_end() */
} pt_span;

typedef struct {
    int64_t n_spans;
    pt_span *spans;                /* the representative EU, sorted by start */
    int n_lanes;
    double lane_busy_ns[PT_MAX_LANES];  /* union of the lane's spans, issue -> completion */
    double lane_occupied_ns[PT_MAX_LANES]; /* union of its unit occupancy, start -> unit_end */
    double eu_time_ns;             /* representative EU: first issue to last end */
    int64_t eu_iterations;         /* its loop trip count */
    double kernel_time_ns;         /* predicted kernel time, launch included */
    double flops;                  /* useful flops of the whole kernel */
    double tflops;
    int64_t tiles;                 /* output tiles */
    int64_t grid;                  /* CTAs launched */
    int64_t waves;                 /* ceil(tiles / EUs) (persistent: tiles per CTA) */
    double dram_bytes;             /* compulsory global traffic estimate */
    double dram_floor_ns;          /* dram_bytes / HBM bandwidth */
} pt_timeline;

/* Simulate one EU for `iters` loop iterations (spans into tl; kernel fields untouched). */
bool pt_simulate_eu(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                    int64_t iters, pt_timeline *tl, pt_error *err);
/* Whole kernel: the representative EU (full trip count) + waves. */
bool pt_simulate(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                 pt_timeline *tl, pt_error *err);
void pt_timeline_free(pt_timeline *tl);

/* The dependency instances of (stask, iter) in a loop of `iters` iterations, mapped across
 * regions exactly as the simulator does: sTask-graph data dependencies, then the program's
 * Waits (p may be NULL); buffer-stage reuse is not included. Writes up to cap pairs and
 * returns how many there are (which may exceed cap). Used by exports and the GUI. */
int pt_instance_deps(const pt_sprogram *p, const pt_stask_graph *sg, int stask, int64_t iter,
                     int64_t iters, int *dep_stask, int64_t *dep_iter, int cap);

#endif
