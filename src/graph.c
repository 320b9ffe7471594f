/* graph.c — operator-graph vocabulary (op names) and lookups. */
#include "graph.h"

#include <string.h>

static const char *const op_names[PT_OP_KIND_COUNT] = {
    [PT_OP_MATMUL] = "matmul",
    [PT_OP_EXP2] = "exp2", [PT_OP_EXP] = "exp", [PT_OP_SCALE] = "scale", [PT_OP_CAST] = "cast",
    [PT_OP_RELU] = "relu", [PT_OP_GELU] = "gelu", [PT_OP_SILU] = "silu",
    [PT_OP_ADD] = "add", [PT_OP_SUB] = "sub", [PT_OP_MUL] = "mul", [PT_OP_DIV] = "div", [PT_OP_MAX] = "max",
    [PT_OP_REDUCE_MAX] = "reduce_max", [PT_OP_REDUCE_SUM] = "reduce_sum",
    [PT_OP_ONLINE_SOFTMAX] = "online_softmax",
    [PT_OP_DEQUANTIZE] = "dequantize",
    [PT_OP_CUMSUM] = "cumsum",
    [PT_OP_EXP_DECAY] = "exp_decay",
    [PT_OP_FILL] = "fill", [PT_OP_COPY] = "copy",
};

const char *pt_op_kind_name(pt_op_kind k)
{
    return (unsigned)k < PT_OP_KIND_COUNT ? op_names[k] : "?";
}

bool pt_op_kind_parse(const char *s, pt_op_kind *out)
{
    for (int i = 0; i < PT_OP_KIND_COUNT; i++)
        if (strcmp(s, op_names[i]) == 0) {
            *out = (pt_op_kind)i;
            return true;
        }
    return false;
}

const char *pt_op_kind_names(void)
{
    return "matmul, exp2, exp, scale, cast, relu, gelu, silu, add, sub, mul, div, max, reduce_max, "
           "reduce_sum, online_softmax, dequantize, cumsum, exp_decay, fill, copy";
}

bool pt_op_is_unary(pt_op_kind k)
{
    return k >= PT_OP_EXP2 && k <= PT_OP_SILU;
}

bool pt_op_is_binary(pt_op_kind k)
{
    return k >= PT_OP_ADD && k <= PT_OP_MAX;
}

const char *pt_role_name(pt_role r)
{
    switch (r) {
    case PT_ROLE_INPUT: return "input";
    case PT_ROLE_OUTPUT: return "output";
    case PT_ROLE_INTERMEDIATE: return "intermediate";
    }
    return "?";
}

int pt_graph_find_axis(const pt_graph *g, const char *name)
{
    for (int i = 0; i < g->n_axes; i++)
        if (strcmp(g->axes[i].name, name) == 0)
            return i;
    return -1;
}

int pt_graph_find_tensor(const pt_graph *g, const char *name)
{
    for (int i = 0; i < g->n_tensors; i++)
        if (strcmp(g->tensors[i].name, name) == 0)
            return i;
    return -1;
}

int pt_graph_find_param(const pt_graph *g, const char *name)
{
    for (int i = 0; i < g->n_params; i++)
        if (strcmp(g->params[i].name, name) == 0)
            return i;
    return -1;
}

int pt_graph_producer(const pt_graph *g, int t)
{
    for (int i = 0; i < g->n_ops; i++)
        if (g->ops[i].out == t || (g->ops[i].kind == PT_OP_ONLINE_SOFTMAX && g->ops[i].lse == t))
            return i;
    return -1;
}

bool pt_axis_ragged(const pt_graph *g, int a)
{
    const pt_axis *x = &g->axes[a];
    return x->split_by >= 0 && x->split_total > 0 &&
           x->split_total != x->extent * g->axes[x->split_by].extent;
}

int pt_tensor_ragged_pos(const pt_graph *g, const pt_tensor *t)
{
    if (t->role == PT_ROLE_INTERMEDIATE || t->whole_pieces) /* whole pieces (graph.h) */
        return -1;
    for (int i = 1; i < t->rank; i++)
        if (pt_axis_ragged(g, t->axes[i]) && g->axes[t->axes[i]].split_by == t->axes[i - 1])
            return i;
    return -1;
}

int pt_tensor_storage(const pt_graph *g, const pt_tensor *t, int64_t ext[PT_MAX_RANK],
                      int pos[PT_MAX_RANK])
{
    int r = pt_tensor_ragged_pos(g, t), n = 0;
    for (int i = 0; i < t->rank; i++) {
        if (i == r - 1)
            continue; /* the pair is one dimension, at the piece axis */
        const pt_axis *a = &g->axes[t->axes[i]];
        ext[n] = i == r ? a->split_total : a->extent;
        pos[n++] = i;
    }
    return n;
}

int64_t pt_tensor_elems(const pt_graph *g, const pt_tensor *t)
{
    int64_t ext[PT_MAX_RANK], n = 1;
    int pos[PT_MAX_RANK], dims = pt_tensor_storage(g, t, ext, pos);
    for (int d = 0; d < dims; d++)
        n *= ext[d]; /* the loader bounds this by PT_MAX_ELEMS */
    return n;
}

bool pt_tensor_has_axis(const pt_tensor *t, int axis)
{
    for (int i = 0; i < t->rank; i++)
        if (t->axes[i] == axis)
            return true;
    return false;
}

bool pt_graph_axis_in_output(const pt_graph *g, int a)
{
    for (int t = 0; t < g->n_tensors; t++)
        if (g->tensors[t].role == PT_ROLE_OUTPUT && g->tensors[t].view_of < 0 &&
            pt_tensor_has_axis(&g->tensors[t], a))
            return true;
    return false;
}

double pt_op_flops(const pt_graph *g, int op_index)
{
    const pt_op *op = &g->ops[op_index];
    if (op->kind != PT_OP_MATMUL)
        return 0;
    double f = 2.0 * (double)pt_tensor_elems(g, &g->tensors[op->out]);
    for (int r = 0; r < op->n_reduce; r++)
        f *= (double)g->axes[op->reduce_axes[r]].extent;
    return f;
}

int64_t pt_graph_matmul_flops(const pt_graph *g)
{
    int64_t total = 0;
    for (int i = 0; i < g->n_ops; i++) {
        double f = pt_op_flops(g, i);
        total += f > 9e18 ? (int64_t)9e18 : (int64_t)f;
    }
    return total;
}
