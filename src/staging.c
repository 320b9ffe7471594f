/* staging.c — which tensors are staged into 16-byte-aligned copies, and the copies' cost
 * (the design and its why: staging.h). */
#include "staging.h"

#include <stdint.h>

#include "dtype.h"

static bool tensor_ok(const pt_graph *g, int t)
{
    return g && t >= 0 && t < g->n_tensors && t < PT_MAX_TENSORS;
}

int64_t pt_tensor_row_bytes(const pt_graph *g, int t)
{
    if (!tensor_ok(g, t) || g->tensors[t].rank < 1)
        return 0;
    const pt_tensor *T = &g->tensors[t];
    int inner = T->axes[T->rank - 1];
    if (inner < 0 || inner >= g->n_axes)
        return 0;
    return (g->axes[inner].extent * (int64_t)pt_dtype_bits(T->dtype) + 7) / 8;
}

int64_t pt_tensor_rows(const pt_graph *g, int t)
{
    if (!tensor_ok(g, t))
        return 0;
    const pt_tensor *T = &g->tensors[t];
    int64_t rows = 1;
    for (int i = 0; i + 1 < T->rank; i++) {
        if (T->axes[i] < 0 || T->axes[i] >= g->n_axes)
            continue;
        int64_t e = g->axes[T->axes[i]].extent;
        if (e > 0 && rows > INT64_MAX / e) /* saturate: a loader's fuzzed extents multiply */
            return INT64_MAX;
        rows *= e > 0 ? e : 1;
    }
    return rows;
}

/* Read or written by a matmul: the tensors the generators move with TMA boxes. */
static bool matmul_operand(const pt_graph *g, int t)
{
    for (int o = 0; o < g->n_ops && o < PT_MAX_OPS; o++) {
        const pt_op *op = &g->ops[o];
        if (op->kind != PT_OP_MATMUL)
            continue;
        if (op->out == t)
            return true;
        for (int i = 0; i < op->n_in && i < PT_MAX_OP_IN; i++)
            if (op->in[i] == t)
                return true;
    }
    return false;
}

/* The group scales of a 4-bit tensor that is dequantised into a matmul's operand: loaded by
 * TMA boxes beside the packed weights (a K of 11008 in groups of 128 gives rows of 86 scales,
 * 172 bytes). */
static bool dequant_scales(const pt_graph *g, int t)
{
    for (int o = 0; o < g->n_ops && o < PT_MAX_OPS; o++) {
        const pt_op *op = &g->ops[o];
        if (op->kind != PT_OP_DEQUANTIZE || op->n_in < 1 || !tensor_ok(g, op->in[0]) ||
            !matmul_operand(g, op->out))
            continue;
        if (g->tensors[op->in[0]].scales == t)
            return true;
    }
    return false;
}

bool pt_tensor_staged(const pt_graph *g, int t)
{
    if (!tensor_ok(g, t))
        return false;
    const pt_tensor *T = &g->tensors[t];
    if (T->role == PT_ROLE_INTERMEDIATE || T->view_of >= 0 || T->rank < 2)
        return false;
    return pt_tensor_row_bytes(g, t) % PT_STAGING_ALIGN != 0 &&
           (matmul_operand(g, t) || dequant_scales(g, t));
}

int64_t pt_staged_pitch(const pt_graph *g, int t)
{
    int64_t row = pt_tensor_row_bytes(g, t);
    return (row + PT_STAGING_ALIGN - 1) / PT_STAGING_ALIGN * PT_STAGING_ALIGN;
}

pt_staging_cost pt_staging_cost_of(const pt_graph *g, const pt_hw *hw)
{
    pt_staging_cost c = {0, 0, 0};
    if (!g)
        return c;
    for (int t = 0; t < g->n_tensors && t < PT_MAX_TENSORS; t++) {
        if (!pt_tensor_staged(g, t))
            continue;
        /* an input: its rows read, the padded rows written; an output the other way round */
        double rows = (double)pt_tensor_rows(g, t);
        c.bytes += rows * (double)(pt_tensor_row_bytes(g, t) + pt_staged_pitch(g, t));
        c.copies++;
    }
    if (hw && c.copies > 0)
        c.ns = c.copies * hw->launch_ns +
               (hw->hbm_bytes_per_ns > 0 ? c.bytes / hw->hbm_bytes_per_ns : 0);
    return c;
}
