/* graph.h — the operator graph: parameters, named axes, tensors and ops.
 *
 * Loaded from JSON (docs/FORMATS.md §1). Axes are global names ("m", "n", "k"); a tensor
 * lists the axes it is stored over, outermost first, innermost contiguous. Because axes are
 * shared, a tile size per axis fixes every tensor's tile (see propagate.h). Limits below are
 * generous for every workload of the paper; the loader reports any excess by name. */
#ifndef PT_GRAPH_H
#define PT_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "packing.h"
#include "pt_error.h"

#define PT_NAME_MAX 48
#define PT_MAX_PARAMS 32
#define PT_MAX_AXES 16
#define PT_MAX_TENSORS 32
#define PT_MAX_OPS 32
#define PT_MAX_RANK 6
#define PT_MAX_OP_IN 4
/* Largest extent of one axis and of one tensor (elements): keeps every product in int64. */
#define PT_MAX_EXTENT ((int64_t)1 << 31)
#define PT_MAX_ELEMS ((int64_t)1 << 46)
/* Consumer warpgroups of one CTA: with the producer, 8 warpgroups of 128 threads fill the
 * 1024-thread block. The one limit for graph defaults, --tile wg=, sProgram files, Propagate
 * and the validator (docs/FORMAT-*.md "Input limits"). */
#define PT_MAX_WARPGROUPS 7
/* Largest tile of one axis in a tiling (--tile, "defaults.tile"). */
#define PT_MAX_TILE 4096

/* Parameters hold whole numbers in [-2^40, 2^40]; a graph may narrow that range ("min",
 * "max"), and a parameter given as true/false is a flag: 0 or 1. */
#define PT_PARAM_LIMIT ((int64_t)1 << 40)

typedef struct {
    char name[PT_NAME_MAX];
    int64_t value;
    int64_t min, max;      /* allowed range, checked after --set overrides */
    bool flag;             /* declared as true/false: the range is 0..1 */
} pt_param;

typedef struct {
    char name[PT_NAME_MAX];
    int64_t extent;
    bool batch;           /* batch axis: tiled by 1 unless the tiling says otherwise */
    /* A piece of a sequence cut by another axis ("split": {"of": "S", "by": "s"}): split_by is
     * the axis counting the pieces, split_total the sequence's length (0: not a piece axis);
     * extent = ceil(split_total / pieces). Where the pieces do not divide the length, the last
     * is shorter (ragged): an input or output with split_by just before this axis stores
     * split_total elements along the pair (piece p's element i at p * extent + i; an
     * intermediate, or an input marked whole_pieces, keeps whole pieces), and elements at or
     * past split_total do not exist (reads give 0, softmax and matmul sums leave them out). */
    int split_by;
    int64_t split_total;
} pt_axis;

typedef enum { PT_ROLE_INPUT, PT_ROLE_OUTPUT, PT_ROLE_INTERMEDIATE } pt_role;

typedef struct {
    char name[PT_NAME_MAX];
    int rank;
    int axes[PT_MAX_RANK]; /* indices into graph->axes; outermost first */
    pt_dtype dtype;
    pt_role role;
    int view_of;           /* tensor index whose storage this re-indexes, or -1 */
    int scales;            /* 4-bit types: tensor index of the group scales, else -1 */
    int group_axis;        /* axis index the scale groups run along, or -1 */
    int64_t group_size;    /* elements per scale group along group_axis, or 0 */
    pt_packing packing;    /* 4-bit types: the nibble order (packing.h) */
    /* over a ragged piece axis: an input storing every piece whole (padded past the sequence's
     * end) rather than the sequence */
    bool whole_pieces;
} pt_tensor;

typedef enum {
    PT_OP_MATMUL,
    /* unary elementwise */
    PT_OP_EXP2, PT_OP_EXP, PT_OP_SCALE, PT_OP_CAST, PT_OP_RELU, PT_OP_GELU, PT_OP_SILU,
    /* binary elementwise */
    PT_OP_ADD, PT_OP_SUB, PT_OP_MUL, PT_OP_DIV, PT_OP_MAX,
    /* reductions */
    PT_OP_REDUCE_MAX, PT_OP_REDUCE_SUM,
    PT_OP_ONLINE_SOFTMAX,
    PT_OP_DEQUANTIZE,
    PT_OP_CUMSUM,
    PT_OP_EXP_DECAY,
    PT_OP_FILL, PT_OP_COPY,
    PT_OP_KIND_COUNT
} pt_op_kind;

typedef struct {
    char name[PT_NAME_MAX];
    pt_op_kind kind;
    int n_in;
    int in[PT_MAX_OP_IN];  /* tensor indices */
    int out;               /* tensor index */
    /* matmul: the operand views of the einsum spec "a b, b c -> a c" (axis indices) */
    int spec_rank[3];
    int spec_axes[3][PT_MAX_RANK];
    int n_reduce;          /* matmul: contracted axes; reduce: the reduced axis */
    int reduce_axes[PT_MAX_RANK];
    pt_dtype acc;          /* matmul accumulation type (f32 unless said) */
    int axis;              /* reduce / online_softmax / cumsum: the axis; else -1 */
    double scale;          /* scale, online_softmax scale (1 if absent), fill value */
    bool causal;           /* online_softmax / exp_decay: mask col > row */
    int row_axis;          /* causal row axis (e.g. m), -1 when not causal */
    int col_axis;          /* causal column axis (e.g. n), -1 when not causal */
    int lse;               /* online_softmax: optional log-sum-exp output tensor, or -1 */
} pt_op;

typedef struct {
    char name[PT_NAME_MAX];
    char file[256];        /* where it was loaded from, for messages */
    int n_params;
    pt_param params[PT_MAX_PARAMS];
    int n_axes;
    pt_axis axes[PT_MAX_AXES];
    int n_tensors;
    pt_tensor tensors[PT_MAX_TENSORS];
    int n_ops;
    pt_op ops[PT_MAX_OPS];
    /* "defaults": the tiling to use when none is given (0 = not given) */
    int64_t default_tile[PT_MAX_AXES];
    int default_warpgroups;
    int default_stages;
    /* "split" (docs/FORMAT-graph.md): the parameter counting the pieces this kernel cuts the
     * computation into (FlashDecoding's SPLITS), a choice of the scheduler's, and the graph of
     * the kernel that combines the pieces (an example name, or NAME.json beside this file);
     * both "" when the graph declares none. split_unsplit, optional ("" when not given): the
     * graph that computes the same result in one kernel with no pieces (no partial outputs, no
     * combine), which the scheduler weighs against a count of 1 */
    char split_param[PT_NAME_MAX];
    char split_combine[PT_NAME_MAX];
    char split_unsplit[PT_NAME_MAX];
} pt_graph;

const char *pt_op_kind_name(pt_op_kind k);
bool pt_op_kind_parse(const char *s, pt_op_kind *out);
const char *pt_op_kind_names(void);
bool pt_op_is_unary(pt_op_kind k);
bool pt_op_is_binary(pt_op_kind k);
const char *pt_role_name(pt_role r);

int pt_graph_find_axis(const pt_graph *g, const char *name);
int pt_graph_find_tensor(const pt_graph *g, const char *name);
int pt_graph_find_param(const pt_graph *g, const char *name);
/* Index of the op producing tensor t (as its output or its lse), or -1 (graph inputs). */
int pt_graph_producer(const pt_graph *g, int t);
/* Elements of a whole tensor (a ragged pair of axes counts its sequence's length). */
int64_t pt_tensor_elems(const pt_graph *g, const pt_tensor *t);
/* Is axis a a piece axis whose pieces do not divide the sequence (the last one shorter)? */
bool pt_axis_ragged(const pt_graph *g, int a);
/* Tensor t's storage dimensions, outermost first: one per axis, but a pair of axes storing a
 * ragged sequence (pt_tensor_ragged_pos) is one dimension of the sequence's length. ext[d] is its
 * extent and pos[d] the position in t's axes of its (innermost) axis. Returns the count. */
int pt_tensor_storage(const pt_graph *g, const pt_tensor *t, int64_t ext[PT_MAX_RANK],
                      int pos[PT_MAX_RANK]);
/* The position in t's axes of a ragged piece axis stored right after the axis counting its
 * pieces, where the pair holds the sequence (split_total elements: an input or output not
 * marked whole_pieces), or -1. */
int pt_tensor_ragged_pos(const pt_graph *g, const pt_tensor *t);
bool pt_tensor_has_axis(const pt_tensor *t, int axis);
/* Does axis a index some output tensor (not a view of another)? */
bool pt_graph_axis_in_output(const pt_graph *g, int a);

/* Load from a file, or from text (name is used in messages). On failure returns false with
 * err filled as "<file>: <json path>: <reason>". `overrides` is "P=V,Q=W" or NULL: replaces
 * parameter values before sizes are evaluated. */
bool pt_graph_load_file(pt_graph *g, const char *path, const char *overrides, pt_error *err);
bool pt_graph_load_text(pt_graph *g, const char *name, const char *text, size_t len,
                        const char *overrides, pt_error *err);

/* Useful flops of op i over the whole graph: 2·M·N·K for a matmul, 0 otherwise (the
 * convention of TFLOP/s figures). */
double pt_op_flops(const pt_graph *g, int op_index);
/* Sum of pt_op_flops over the graph. */
int64_t pt_graph_matmul_flops(const pt_graph *g);

#endif
