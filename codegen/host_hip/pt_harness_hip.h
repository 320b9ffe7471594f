/* pt_harness_hip.h — what a gfx942 bundle's harness (harness.hip) and its generated table
 * (graph_table.h, the same generator as the CUDA bundles') share: the enums and the tensor
 * table's row type, without CUDA. In PipeThreader's tree this is codegen/host_hip/. */
#ifndef PT_HARNESS_HIP_H
#define PT_HARNESS_HIP_H

#include <stddef.h>

enum { DT_F16, DT_BF16, DT_F32, DT_FP8_E4M3, DT_INT4, DT_FP4_E2M1 };
enum { ROLE_INPUT, ROLE_OUTPUT, ROLE_INTERMEDIATE };
enum { BASELINE_NONE, BASELINE_GEMM };

#define MAX_RANK 6

typedef struct {
    const char *name;
    int dtype;
    int role;
    int view_of;
    int init;  /* default draw (codegen/host/harness.c); this harness draws U[-1, 1) */
    long long elems;
    int rank;
    const char *axis[MAX_RANK];
    long long extent[MAX_RANK];
    double atol, rtol;
} tensor_info;

/* The vendor-library view of the GEMM (graph_table.h writes it for every bundle); the HIP
 * harness has no hipBLASLt baseline yet and does not read it beyond compiling. */
typedef struct {
    int kind;
    const char *why_none;
    long long rows, cols, depth;
    int x_slot, y_slot, d_slot;
    int x_trans, y_trans;
    long long ldx, ldy, ldd;
    int in_dtype, out_dtype;
} baseline_desc;

#endif
