/* matmul.h — a single-matmul graph as every target's GEMM printer reads it: which tensors and
 * axes play A, B and C, the operands' layouts and dtypes. The checks every target needs alike
 * (two dimensions, no views, f16/bf16 in, f32 accumulate) are made here once; what a target's
 * instructions need beyond that (row alignment, a layout it does not load) its planner adds. */
#ifndef PT_KMATMUL_H
#define PT_KMATMUL_H

#include "graph.h"
#include "pt_error.h"

typedef struct {
    int A, B, C;                 /* tensors */
    int m, n, k;                 /* axes */
    int64_t M, N, K;
    bool a_kmajor;               /* A stored M x K (else K x M) */
    bool b_kmajor;               /* B stored N x K (else K x N) */
    pt_dtype in_dt, out_dt;
    int op;                      /* the matmul */
    /* B dequantised in the kernel (a dequantize op before the matmul): its packed tensor, the
     * group scales, the group length along k; deq -1 when B is loaded as it is */
    int deq, Bq, Bs;
    int64_t group;
    pt_dtype q_dt;
} pt_kmatmul;

/* Reads graph g's one matmul (optionally after the dequantize op that makes its B); false with "codegen <who>: ..." naming the tensor at fault. */
bool pt_kmatmul_read(pt_kmatmul *mm, const pt_graph *g, const char *who, pt_error *err);

#endif
