/* pt_harness.h — what the bundle's harness (harness.c), its generated table (graph_table.h)
 * and the optional vendor baseline (baseline_cublaslt.c) share. In PipeThreader's tree this is
 * codegen/host/pt_harness.h, embedded into the library and written into every bundle. */
#ifndef PT_HARNESS_H
#define PT_HARNESS_H

#include <cuda.h>
#include <stddef.h>

enum { DT_F16, DT_BF16, DT_F32, DT_FP8_E4M3, DT_INT4, DT_FP4_E2M1 };
enum { ROLE_INPUT, ROLE_OUTPUT, ROLE_INTERMEDIATE };
enum { BASELINE_NONE, BASELINE_GEMM };

/* The graph as a vendor library sees it. A GEMM is given in the column-major terms of BLAS:
 * D (rows x cols, leading dimension ldd) = op(X) (rows x depth) . op(Y) (depth x cols), where
 * X, Y, D are the graph tensors in slots x_slot, y_slot, d_slot and op transposes when
 * x_trans / y_trans is set. A row-major C[m][n] = A[m][k] . B is D = C^T, so X comes from B
 * and Y from A. */
typedef struct {
    int kind;                     /* BASELINE_NONE: why_none says why there is none */
    const char *why_none;
    long long rows, cols, depth;
    int x_slot, y_slot, d_slot;
    int x_trans, y_trans;
    long long ldx, ldy, ldd;
    int in_dtype, out_dtype;      /* DT_*: X and Y share in_dtype; D is out_dtype */
} baseline_desc;

/* The vendor baseline (baseline_cublaslt.c, linked by 'make BASELINE=1'). Weak: the plain
 * harness links without it and --baseline then says how to get it.
 * init: choose the algorithm on the inputs in `slots` (timing the library's top candidates);
 * 0 on success, else `why` says what failed. launch: one run on `slots` (capturable). */
int pt_baseline_init(const baseline_desc *d, const CUdeviceptr *slots, CUstream stream, char *why,
                     size_t why_cap) __attribute__((weak));
int pt_baseline_launch(const CUdeviceptr *slots, CUstream stream) __attribute__((weak));
const char *pt_baseline_describe(void) __attribute__((weak));
void pt_baseline_fini(void) __attribute__((weak));

#endif
