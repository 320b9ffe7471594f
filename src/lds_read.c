/* lds_read.c — LDS operand reads of an mma sTask (lds_read.h). */
#include "lds_read.h"
#include "smem_layout.h"

/* Does operand tensor x of an mma live in shared memory / LDS (else in registers)? */
static bool in_lds(const pt_stask_graph *sg, int x, const pt_hw *hw)
{
    pt_smem_layout L;
    pt_smem_layout_of(hw, &L);
    for (int s = 0; s < sg->n; s++) {
        const pt_stask *t = &sg->tasks[s];
        if (t->tensor != x)
            continue;
        if (t->kind == PT_ST_LOAD)
            return t->region != PT_REGION_PROLOGUE || L.resident_in_smem;
        if (pt_stask_writes_ring(sg, s))
            return true;
    }
    return false;
}

/* The extent of axis a in the mma's instance: its tile over the output, else the tiling's. */
static int64_t extent(const pt_stask_graph *sg, const pt_stask *t, int a)
{
    for (int i = 0; i < t->rank; i++)
        if (t->axes[i] == a)
            return t->tile[i] > 0 ? t->tile[i] : 1;
    return sg->tiling.tile[a] > 0 ? sg->tiling.tile[a] : 1;
}

static bool on_output(const pt_stask *t, int a)
{
    for (int i = 0; i < t->rank; i++)
        if (t->axes[i] == a)
            return true;
    return false;
}

/* The output axis the role's waves split (lds_read.h). */
static int wave_axis(const pt_stask_graph *sg, const pt_stask *t, const pt_op *op, const pt_hw *hw)
{
    const pt_graph *g = sg->graph;
    for (int i = 0; i < op->n_in; i++) {
        const pt_tensor *X = &g->tensors[op->in[i]];
        if (in_lds(sg, op->in[i], hw))
            continue;
        int best = -1;
        for (int k = 0; k < X->rank; k++)
            if (on_output(t, X->axes[k]) &&
                (best < 0 || extent(sg, t, X->axes[k]) > extent(sg, t, best)))
                best = X->axes[k];
        if (best >= 0)
            return best;
    }
    return t->rank > 0 ? t->axes[t->rank - 1] : -1;
}

double pt_lds_read_bytes(const pt_stask_graph *sg, int s, const pt_hw *hw)
{
    if (!(hw->lds_read_bytes_per_clk > 0) || s < 0 || s >= sg->n || !sg->graph)
        return 0;
    const pt_stask *t = &sg->tasks[s];
    const pt_graph *g = sg->graph;
    if (t->kind != PT_ST_MMA || t->op < 0 || t->op >= g->n_ops)
        return 0;
    const pt_op *op = &g->ops[t->op];
    int waves = hw->warp_size > 0 && hw->warp_size < 128 ? 128 / hw->warp_size : 1;
    int split = wave_axis(sg, t, op, hw);
    double bytes = 0;
    for (int i = 0; i < op->n_in; i++) {
        int x = op->in[i];
        if (x < 0 || x >= g->n_tensors || !in_lds(sg, x, hw))
            continue;
        const pt_tensor *X = &g->tensors[x];
        double elems = 1, eb = pt_dtype_bits(X->dtype) / 8.0;
        bool has_split = false, contiguous = false;
        for (int k = 0; k < X->rank; k++) {
            elems *= (double)extent(sg, t, X->axes[k]);
            has_split = has_split || X->axes[k] == split;
        }
        for (int r = 0; r < op->n_reduce && X->rank > 0; r++)
            contiguous = contiguous || op->reduce_axes[r] == X->axes[X->rank - 1];
        double slot = contiguous ? eb : (eb > 4 ? eb : 4); /* a gathered element: one bank slot */
        bytes += elems * slot * (has_split ? 1 : waves);
    }
    return bytes;
}

double pt_lds_read_ns(const pt_stask_graph *sg, int s, const pt_hw *hw)
{
    double bytes = pt_lds_read_bytes(sg, s, hw);
    return bytes > 0 ? bytes / (hw->lds_read_bytes_per_clk * hw->clock_ghz) : 0;
}
