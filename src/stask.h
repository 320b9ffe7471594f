/* stask.h — sTasks and the sTask-graph produced by sTask-partition.
 *
 * An sTask is one piece of work on one tile, executed on one sEU of an EU. The sTask-graph
 * is what one EU (one CTA / one output tile) does: a prologue, a loop body over the
 * reduction axis (the "loop axis": K in GEMM, the key sequence in attention, ...) whose
 * dependencies may cross iterations (distance 1 = the previous iteration), and an epilogue.
 * pt_stask_graph_instances() expands it into (sTask, iteration) instances. */
#ifndef PT_STASK_H
#define PT_STASK_H

#include "graph.h"

typedef enum { PT_SEU_TMA, PT_SEU_TENSOR_CORE, PT_SEU_CUDA_CORE, PT_SEU_COUNT } pt_seu_kind;

typedef enum {
    PT_ST_LOAD,         /* global -> shared (TMA / AMD buffer load to LDS) */
    PT_ST_STORE,        /* registers/shared -> global */
    PT_ST_MMA,          /* tensor-core matrix multiply-accumulate */
    PT_ST_SOFTMAX_MAX,  /* online softmax: row max (with causal mask) */
    PT_ST_SOFTMAX_EXP,  /* online softmax: exp2((s - m) * scale) */
    PT_ST_SOFTMAX_SUM,  /* online softmax: row sum */
    PT_ST_RESCALE,      /* online softmax: O *= exp2(m_old - m_new) */
    PT_ST_NORMALIZE,    /* online softmax: O /= l, at the end */
    PT_ST_ELEMENTWISE,  /* unary / binary pointwise */
    PT_ST_REDUCE,       /* max / sum over an axis */
    PT_ST_DEQUANT,      /* 4-bit + group scale -> f16/bf16 */
    PT_ST_CUMSUM,       /* prefix sum along an axis (Mamba2) */
    PT_ST_EXP_DECAY,    /* exp(a_i - a_j), masked (Mamba2 segment decay) */
    PT_ST_FILL,         /* set a tile to a constant */
    PT_ST_CONVERT,      /* f32 accumulator -> output dtype */
    PT_ST_KIND_COUNT
} pt_stask_kind;

typedef enum { PT_REGION_PROLOGUE, PT_REGION_BODY, PT_REGION_EPILOGUE } pt_region;

typedef struct {
    int from;           /* sTask index */
    int distance;       /* 0: same iteration; 1: the previous iteration (loop-carried) */
} pt_dep;

#define PT_MAX_DEPS 8
#define PT_STASK_ID_MAX 64

typedef struct {
    char id[PT_STASK_ID_MAX];   /* stable name used by sProgram files: "load.A", "mma.C.wg0" */
    pt_stask_kind kind;
    pt_seu_kind seu;
    pt_region region;
    int op;             /* source op index, -1 for loads/stores */
    int tensor;         /* tensor loaded, stored or produced */
    int wg;             /* consumer warpgroup this belongs to, -1 = whole EU */
    int rank;           /* tile shape over the tensor's axes (the tile this sTask touches) */
    int axes[PT_MAX_RANK];
    int64_t tile[PT_MAX_RANK];
    pt_dtype dtype;     /* operand type (mma: input type) */
    int64_t bytes;      /* bytes moved to/from global memory */
    int64_t flops;      /* floating-point work (mma: 2·m·n·k) */
    int64_t elems;      /* elements processed (cuda-core pieces) */
    bool buffered;      /* a body load whose tile lives in a ring of stages */
    char expr[160];     /* the tensor expression it computes, for people */
    int n_deps;
    pt_dep deps[PT_MAX_DEPS];
} pt_stask;

/* The tiling: one tile size per graph axis (0 = untiled, i.e. the whole extent) plus the
 * number of consumer warpgroups and the output axis they split between them. That axis is
 * also the one a matmul's tensor-core rows run along (wgmma's M, in multiples of 64 per
 * warpgroup); the other output axis is the instruction's N, in multiples of 8. Putting the rows
 * on N (a GEMM with few rows of M: "swap A and B") lets a small M be cut into tiles of any
 * multiple of 8 instead of 64. */
typedef struct {
    int64_t tile[PT_MAX_AXES];
    int warpgroups;
    int wg_axis;        /* 1 + that axis; 0 = the default, the output's first non-batch axis */
    bool wg_stores;     /* each consumer warpgroup stores its own rows of an output (one store
                           sTask per warpgroup, store.X.wgN, on its TMA lane tma.wgN) instead of
                           one store of the whole tile after every warpgroup's epilogue */
} pt_tiling;

typedef struct {
    const pt_graph *graph;
    pt_tiling tiling;           /* after Propagate: every axis has a tile > 0 */
    int n;
    pt_stask *tasks;            /* owned */
    int loop_axis;              /* -1 when there is no reduction loop */
    int64_t iterations;         /* trip count of the loop body for a full (unmasked) tile */
    int64_t tiles;              /* output tiles = EU work items */
    int64_t tile_grid[PT_MAX_AXES]; /* tiles along each axis (1 for reduced/untiled axes) */
    int split_axis;             /* axis split between consumer warpgroups, -1 if one wg */
    int rows_axis;              /* the output axis of the tensor-core rows (the split axis
                                   with several warpgroups), -1 where no output has one */
    int causal_op;              /* op index whose causal mask shortens loops, or -1 */
} pt_stask_graph;

/* The output axis the warpgroups split (and a matmul's tensor-core rows run along) when the
 * tiling does not choose one: the first non-batch axis of the first output whose tile under
 * the propagated tiling t is more than 1; -1 if none. */
int pt_default_rows_axis(const pt_graph *g, const pt_tiling *t);

const char *pt_seu_name(pt_seu_kind k);          /* "tma", "tensor_core", "cuda_core" */
bool pt_seu_parse(const char *s, pt_seu_kind *out);
const char *pt_stask_kind_name(pt_stask_kind k); /* "load", "mma", "softmax_max", ... */
bool pt_stask_kind_parse(const char *s, pt_stask_kind *out);
pt_seu_kind pt_stask_kind_seu(pt_stask_kind k);  /* the sEU kind an sTask kind runs on */
const char *pt_region_name(pt_region r);
/* Does sTask s write its tile into a shared-memory ring that a tensor-core sTask reads (a
 * dequantised weight tile on the mma's column side: the tensor cores take that operand from
 * shared memory)? Such a ring has stages like a load's, is written on the CUDA cores of the
 * role that issues s, and is released by its mma readers. A dequantised tile along the
 * tensor-core rows (the tiling's rows axis is one of its axes) is not: it is the mma's row
 * operand, which each warpgroup dequantises into its own registers (pt_stask_dequant_rows). */
bool pt_stask_writes_ring(const pt_stask_graph *sg, int s);
/* Is sTask s a dequantisation whose tile runs along the tensor-core rows, so a warpgroup
 * dequantises its own rows into the registers its mma reads (no shared-memory stage)? */
bool pt_stask_dequant_rows(const pt_stask_graph *sg, int s);
/* Does sTask s fill a ring of stages: a buffered load, or a tile written into a ring
 * (pt_stask_writes_ring)? Such a tensor has stages in the sProgram. */
bool pt_stask_fills_ring(const pt_stask_graph *sg, int s);
/* Is sTask s a prologue product (a tensor-core sTask run once per tile before the loop:
 * ChunkScan's C . statesᵀ)? The one kind of sTask that may be issued a tile ahead (offset 1). */
bool pt_stask_prologue_product(const pt_stask_graph *sg, int s);

/* sTask-partition: graph + tiling -> sTask-graph (Propagate is applied first). */
bool pt_partition(pt_stask_graph *sg, const pt_graph *g, const pt_tiling *tiling, pt_error *err);
void pt_stask_graph_free(pt_stask_graph *sg);
int pt_stask_find(const pt_stask_graph *sg, const char *id);

/* Loop trip count of output tile `tile_index` (row-major over tile_grid): shorter than
 * `iterations` for tiles that a causal mask cuts. */
int64_t pt_stask_graph_tile_iterations(const pt_stask_graph *sg, int64_t tile_index);
/* Loop trip count of consumer warpgroup `wg` in a causal tile of `iters` iterations (its rows
 * ending with its last k block): the k blocks wholly past the warpgroup's own rows are all zero
 * under an exp_decay mask, and the generated kernel skips them per warpgroup (an attention
 * kernel runs the tile's count on every warpgroup). `iters` when nothing is skipped. */
int64_t pt_stask_graph_wg_iterations(const pt_stask_graph *sg, int wg, int64_t iters);
/* Instances of a graph for `iters` iterations: prologue + body*iters + epilogue. */
int64_t pt_stask_graph_instances(const pt_stask_graph *sg, int64_t iters);
/* Does sg load a tile once per output tile rather than through a ring (attention's Q)? */
bool pt_stask_graph_has_resident_load(const pt_stask_graph *sg);
/* Total flops over all tiles (masked iterations skipped). */
double pt_stask_graph_total_flops(const pt_stask_graph *sg);

#endif
