/* scheduler.h — PipeThreader's two-level automatic scheduler.
 *
 * Intra-EU: greedy list scheduling of one sTask-graph onto the lanes of an EU with the paper's
 * priority (asynchronous sEUs first, then fewest unmet dependencies, then the sTask that
 * unlocks the most downstream work), through the same Append/Wait primitives the GUI uses,
 * plus two pipelining options: look-ahead (a tensor-core sTask fed only by loads is issued one
 * iteration ahead, so softmax of one block overlaps the next block's GEMM) and ping-pong
 * (two consumer warpgroups take turns on the tensor cores).
 * Inter-EU and joint search: output-tile shapes valid for the hardware, the reduction tile,
 * consumer warpgroups, stages, the pipelining options, persistent or one-CTA-per-tile grids,
 * rasterisation and split-K (the loop cut across EUs, where few tiles leave EUs idle), pruned by on-chip memory and by a roofline bound, each candidate scored
 * by the simulator; the top k sPrograms come back with their predicted times.
 * A graph that declares a split (FlashDecoding's SPLITS) has its split count searched too when
 * the caller says where the graph came from (opts.source): one search per count, each scored
 * with the best combine kernel it implies (split_search.c). */
#ifndef PT_SCHEDULER_H
#define PT_SCHEDULER_H

#include "graph_source.h"
#include "sim.h"
#include "sprogram.h"

typedef enum {
    PT_LOOKAHEAD_NONE,
    PT_LOOKAHEAD_ALL,      /* the look-ahead GEMM and every CUDA-core sTask it feeds go ahead */
    PT_LOOKAHEAD_FA3,      /* ... except rescales, which stay in their iteration and go first
                              on their lane (FlashAttention-3's intra-warpgroup order) */
    PT_LOOKAHEAD_CHAIN,    /* the CUDA-core chain that makes a tensor-core sTask's operand from
                              loads goes an iteration ahead of it (Mamba2's decayed fragment of
                              block i+1 made while the tensor cores run block i) */
    PT_LOOKAHEAD_COUNT
} pt_lookahead;

typedef struct {
    pt_lookahead lookahead;
    bool pingpong;
    int stages;            /* for every buffered tensor */
    bool persistent;
    pt_raster raster;
    int group;
    /* stores go on a TMA lane of the last consumer warpgroup (issued after its epilogue),
     * so the producer's lane can load the next tile meanwhile */
    bool store_by_consumer;
    /* partition.split_k (splitk.h): chunks of the reduction loop per output tile; 0 or 1 =
     * no split */
    int split_k;
    /* partition.split_k_reduce cluster: the chunks' partial tiles meet in a thread-block
     * cluster's shared memory instead of the global workspace */
    bool split_cluster;
    /* partition.stream_k (streamk.h): a persistent grid of this many CTAs that splits the
     * remainder wave's loops evenly; 0 = off */
    int stream_k;
    /* partition.run (persistent): runs of this many launch positions a CTA, searched where a
     * ring is then kept across tiles (src/ring_reuse.h); 0 or 1 = one at a time */
    int run;
} pt_intra_opts;

/* Does sg have a tensor-core sTask that look-ahead would issue one iteration early? */
bool pt_schedule_can_look_ahead(const pt_stask_graph *sg);
/* Does sg have a CUDA-core chain that PT_LOOKAHEAD_CHAIN would run one iteration early? */
bool pt_schedule_can_chain_ahead(const pt_stask_graph *sg);

/* Greedy intra-EU schedule of sg (already partitioned) into p (initialised here). */
bool pt_schedule_intra(pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                       const pt_intra_opts *o, pt_error *err);

typedef struct {
    int top_k;             /* how many sPrograms to return (>= 1) */
    double budget_s;       /* stop searching after this many seconds (<= 0: no limit) */
    /* called about every 1000 candidates and at the end; may be NULL */
    void (*progress)(void *ctx, int64_t seen, int64_t total, double best_ns);
    /* extra acceptance test of a valid candidate (e.g. "a code generator can emit it"):
     * false with the reason in why (counted: a search that finds nothing names the most
     * common one); may be NULL */
    bool (*accept)(void *ctx, const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                   pt_error *why);
    /* what accept stands for, in the failure message ("the sm90a code generator"); NULL:
     * "the acceptance test" */
    const char *accept_what;
    /* asked after every candidate; true ends the search as the budget does (the best found so
     * far come back, budget_hit is set): a candidate budget, or a UI's Cancel; may be NULL */
    bool (*stop)(void *ctx, int64_t seen);
    void *ctx;
    /* where the graph came from. With it, a graph that declares a split (graph.h split_param:
     * FlashDecoding's SPLITS) has its split count chosen too — unless the source's overrides
     * fix it: every count tried is a fresh instance of the graph, scheduled, and scored with the
     * best schedule of the combine kernel it implies (split_search.c). NULL: the graph is
     * scheduled as loaded. */
    const pt_graph_source *source;
    /* the decay form every candidate takes (sProgram "decay", decay_form.h); the default (0)
     * is the tile form. With decay_any, where the graph has the factored form's chain, every
     * candidate is also tried with each factored decay, "factored" and "factored16" (their
     * model fitted to measured kernels: hw.h decay_factored_*_work). */
    pt_decay_form decay;
    bool decay_any;
    /* also try warpgroup counts on a batch axis that do not divide it (three on 64 heads: the
     * last tile ragged). Off by default until such a pick is timed (BENCHMARKS.md, session 45). */
    bool ragged_batch;
} pt_schedule_opts;

typedef struct {
    pt_sprogram prog;
    pt_stask_graph sg;     /* the partition the program refers to */
    double predicted_ns;
    double tflops;
    /* what was chosen, as data: the tiling (tile shape, warpgroups) is sg.tiling; opts the
     * intra-EU options (stages, look-ahead, ping-pong, grid, raster, who stores) */
    pt_intra_opts opts;    /* opts.split_k: the split of the loop (1: none) */
    char desc[200];        /* for people: "m=128 n=256 k=64 wg=2 stages=3 look-ahead persistent
                              grouped", " split-k=4" appended when split, " SPLITS=16" when
                              the split count was searched */
    /* the split count search: this candidate's count (0: not searched) and the predicted time
     * of the best combine kernel for it; the ranking is by total_ns = predicted_ns + combine_ns
     * (predicted_ns alone without a split search) */
    int64_t split;
    double combine_ns;
    double total_ns;
    /* the graph's unsplit form (graph.h split_unsplit): one kernel, no combine (split 1,
     * combine_ns 0); prog and sg are of that graph */
    bool unsplit;
    /* the prologue product issued a tile ahead (offsets 1 in prog: search.c) */
    bool pro_ahead;
} pt_schedule_candidate;

/* One split count the search tried. */
#define PT_MAX_SPLIT_TRIES 12
typedef struct {
    int64_t value;
    double partial_ns;     /* the best predicted time of the graph's own kernel; INFINITY: none */
    double combine_ns;     /* the best predicted combine kernel; INFINITY: none */
    char why[PT_ERROR_MAX]; /* when either is INFINITY: why */
} pt_split_try;

typedef struct {
    int n;                           /* candidates returned, best first */
    pt_schedule_candidate *best;
    int64_t total;                   /* candidates in the space */
    int64_t seen;                    /* candidates looked at */
    int64_t pruned_invalid;          /* partition or validation refused (memory, registers, shape) */
    int64_t pruned_bound;            /* roofline bound already worse than the k-th best */
    int64_t pruned_split_k;          /* split-K or stream-K where it cannot pay (enough tiles
                                        for the EUs, or whole waves) */
    int64_t refused;                 /* valid, but refused by the acceptance test */
    int64_t simulated;
    double elapsed_s;
    bool budget_hit;
    /* the split count search (opts.source given and the graph declares a split): the parameter,
     * the combine graph, each count tried in increasing order and the chosen one (the best
     * candidate's); n_splits is 0 when the graph was scheduled as loaded */
    char split_param[PT_NAME_MAX];
    char split_combine[PT_NAME_MAX];
    /* the unsplit graph weighed against a count of 1 ("" when the graph names none, or the
     * count is fixed), its best predicted kernel (INFINITY: none, with why) */
    char split_unsplit[PT_NAME_MAX];
    double unsplit_ns;
    char unsplit_why[PT_ERROR_MAX];
    int n_splits;
    pt_split_try splits[PT_MAX_SPLIT_TRIES];
    int64_t split_chosen;
    bool split_fixed;      /* the source's overrides set the count: only it was tried */
    /* the graph instances (one per count, then the unsplit graph's) the candidates' sg.graph
     * point to; owned */
    pt_graph *graphs;
} pt_schedule_result;

bool pt_schedule(const pt_graph *g, const pt_hw *hw, const pt_schedule_opts *o,
                 pt_schedule_result *r, pt_error *err);
void pt_schedule_result_free(pt_schedule_result *r);

#endif
