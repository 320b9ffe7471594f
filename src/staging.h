/* staging.h — unaligned tensors: which of a graph's tensors the kernel's launcher copies into a
 * 16-byte-aligned staging buffer, and what that costs. Decided once here and read by the
 * simulator (the extra time), the scheduler (through the simulator) and the code generators
 * (which buffers' tensor maps point at a staging copy).
 *
 * Why staging (issue 14, "Unaligned M, N, K"): TMA tensor maps need every global stride to be a
 * multiple of 16 bytes, so a GEMM whose rows are not (N = 1001, a vocabulary of 50257, K = 999
 * in f16) cannot be mapped as it lies. The options were (a) stage: copy the tensor once into a
 * buffer whose rows are padded to 16 bytes and map that (an output is stored there and copied
 * back), (b) a cp.async load path and predicated plain stores in the kernel for such operands.
 * (a) keeps the kernel itself unchanged — the same TMA boxes, swizzle, wgmma and epilogue as the
 * aligned case, whose kernels stay byte-identical — and is correct for every M, N, K >= 1 by
 * construction: the tensor map's dims are still the true extents, so TMA's out-of-bounds zero
 * fill and clipped stores behave exactly as for an aligned tensor. Its cost is one extra pass
 * over each staged tensor (read it once, write the padded copy once; for the output the
 * reverse) plus one small copy-kernel launch per staged tensor, paid only by unaligned shapes
 * and charged by the simulator (pt_staging_cost), so predictions stay honest. (b) would save
 * that pass but needs a second producer (generic-proxy smem writes in the swizzled layout, a
 * fence per stage) and a second epilogue for every GEMM variant; a later issue can add it for
 * the shapes where the pass matters (a large unaligned B [k, n] of weights is better padded once
 * by its owner).
 *
 * A tensor is staged when it lives in global memory (a graph input or output, not a view or an
 * intermediate), is read or written by a matmul or is the group scales of weights dequantised
 * into one (what the generators move with TMA boxes: K = 11008 in groups of 128 gives rows of
 * 86 scales), has at least two axes, and its rows (innermost axis x element bits) are not a
 * multiple of 16 bytes. Other tensors keep their generator's own rule (packed 4-bit weights,
 * whose rows K / 2 bytes are whole 16 bytes for every group size of 32 or more; a
 * log-sum-exp's rows stored with plain stores). */
#ifndef PT_STAGING_H
#define PT_STAGING_H

#include <stdbool.h>
#include <stdint.h>

#include "graph.h"
#include "hw.h"

#define PT_STAGING_ALIGN 16 /* bytes: TMA's global stride granule */

/* Bytes of one row of tensor t as it lies in global memory (innermost axis x element bits). */
int64_t pt_tensor_row_bytes(const pt_graph *g, int t);
/* Rows of tensor t: the product of every axis but the innermost. */
int64_t pt_tensor_rows(const pt_graph *g, int t);
/* Is tensor t copied to (input) or from (output) a staging buffer by the launcher? */
bool pt_tensor_staged(const pt_graph *g, int t);
/* The staging buffer's row pitch in bytes: the row rounded up to PT_STAGING_ALIGN. */
int64_t pt_staged_pitch(const pt_graph *g, int t);

typedef struct {
    int copies;     /* staged tensors: one copy kernel each */
    double bytes;   /* global traffic of the copies: each row read once and written once */
    double ns;      /* their time: a launch each plus bytes at the chip's HBM bandwidth */
} pt_staging_cost;

/* The staging copies a kernel of graph g runs around it (all zero for an aligned graph). */
pt_staging_cost pt_staging_cost_of(const pt_graph *g, const pt_hw *hw);

#endif
