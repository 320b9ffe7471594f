/* sim.h — the discrete-event simulator: the predicted timeline.
 *
 * One EU runs its sProgram for one output tile: each lane issues its entries in order; an
 * instance starts when its lane has issued the one before (async sEUs) or finished it (sync
 * sEUs), its warp role is free to issue, every data dependency and Wait has completed (plus
 * a barrier hand-off when it crosses warp roles), its buffer stage is free, and its physical
 * unit has room: TMA copies share the EU's bandwidth with a bounded number in flight, one
 * tensor-core stream per EU is shared by all warpgroups, CUDA cores are per warpgroup (on a
 * model with simds_per_eu, both are per SIMD, served on the SIMDs of the issuing role's waves:
 * simd_serve.h). A synchronous sEU (the model's "async": false) holds its role until the
 * instance completes.
 * The kernel time spreads the output tiles over the EUs in raster order (waves and tail),
 * with per-tile trip counts for causal masks; a split-K program spreads tiles x split_k work
 * items, each a chunk of its tile's loop ending in a partial store or the fix-up (splitk.h).
 * No progress while work remains = deadlock. */
#ifndef PT_SIM_H
#define PT_SIM_H

#include "splitk.h"
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
    double fence_ns;       /* of the issue's delay, what the warp role paid at the barrier of
                              another role beyond the data's arrival (hw barrier_wait_ns); 0 for
                              measured spans and where it paid none */
} pt_span;

/* One work item of a split-K program (splitk.h): a chunk of the first tile launched, as the
 * wave model dispatched it. Times from the kernel's first work item, launch not included. */
typedef struct {
    int64_t first_iter, iters;     /* its part of the tile's loop */
    int64_t eu;                    /* the EU (persistent: CTA) it ran on */
    double start_ns;               /* the EU began it */
    double arrive_ns;              /* its loop's last sTask completed */
    double end_ns;                 /* its epilogue (partial store or fix-up) completed */
    bool last;                     /* the last to arrive: it did the fix-up */
} pt_chunk_info;

typedef struct {
    int64_t n_spans;
    pt_span *spans;                /* the representative EU, sorted by start (split-K: the
                                      work item that does the first tile's fix-up) */
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
    double dram_floor_ns;          /* dram_bytes at HBM bandwidth (pt_waves_dram_floor_ns) */
    int split_k;                   /* partition.split_k (1: no split) */
    bool split_cluster;            /* partition.split_k_reduce cluster: chunk 0 leads the fix-up
                                      (chunks[0].last), the partial tiles go to its shared
                                      memory */
    int stream_k;                  /* partition.stream_k (0: off; streamk.h) */
    int64_t work_items;            /* tiles x split_k: what the EUs run (grid and waves count
                                      these) */
    double workspace_bytes;        /* split-K: f32 partial tiles written to the workspace and
                                      read back by the fix-ups, over the whole kernel */
    int staged;                    /* tensors the launcher copies to or from a 16-byte-aligned
                                      staging buffer (src/staging.h); 0: none */
    double staging_bytes;          /* their copies' global traffic */
    double staging_ns;             /* their copies' time, included in kernel_time_ns */
    int n_chunks;                  /* split-K: the chunks of the first tile launched; stream-K:
                                      the CTAs' segments of the first tile they share */
    pt_chunk_info chunks[PT_MAX_SPLIT_K];
} pt_timeline;

/* Simulate one EU for `iters` loop iterations (spans into tl; kernel fields untouched). */
bool pt_simulate_eu(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                    int64_t iters, pt_timeline *tl, pt_error *err);

/* How a work item of a split-K program (splitk.h) ends its tile. */
typedef enum {
    PT_CHUNK_WHOLE,   /* no split: the epilogue as the sTask-graph has it */
    PT_CHUNK_PARTIAL, /* not the last chunk of its tile to arrive: no convert (0 ns), and the
                         store writes the f32 partial tile (its elements x 4 bytes, at the
                         store rate) to the workspace */
    PT_CHUNK_FIXUP,   /* the last to arrive: each convert first reads the other S - 1 partial
                         tiles of its elements (x 4 bytes, at the load rate, plus its latency)
                         and adds them (elements x (S - 1) at the CUDA cores' elementwise f32
                         rate), then converts; the store is the usual one */
} pt_chunk_end;

/* pt_simulate_eu for one work item: `iters` iterations (its chunk's) ending as `end` says,
 * with S = the program's split_k. PT_CHUNK_WHOLE is exactly pt_simulate_eu. */
bool pt_simulate_chunk(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                       int64_t iters, pt_chunk_end end, pt_timeline *tl, pt_error *err);
/* The same with the number of partial tiles a fix-up adds given (stream-K: the CTAs sharing
 * the tile less one). */
bool pt_simulate_chunk_of(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                          int64_t iters, pt_chunk_end end, int others, pt_timeline *tl,
                          pt_error *err);
/* The same for an edge tile (tma_box.h: its loads bring the rows before the axis' end and
 * zero-fill the others) when `edge`. */
bool pt_simulate_item(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                      int64_t iters, pt_chunk_end end, int others, bool edge, pt_timeline *tl,
                      pt_error *err);
/* The same where the loads of the tensors in `kept` (bit t for tensor t) find their ring
 * stages filled by the CTA's last tile (ring_reuse.h): they take no time. */
bool pt_simulate_kept(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                      int64_t iters, pt_chunk_end end, int others, bool edge, uint32_t kept,
                      pt_timeline *tl, pt_error *err);
/* Chunk `chunk` of the first tile of a split-K kernel (stream-K: of the first tile its CTAs
 * share) as `kernel` (its pt_simulate) dispatched it: its iterations, ending with a partial store or the fix-up, on the hardware model as
 * shared by the kernel's work items. Spans from 0 (add kernel->chunks[chunk].start_ns). */
bool pt_simulate_split_k_chunk(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                               const pt_timeline *kernel, int chunk, pt_timeline *out,
                               pt_error *err);
/* Whole kernel: the representative EU (full trip count) + waves, and the staging copies of a
 * graph with unaligned rows (src/staging.h) before and after it. */
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
