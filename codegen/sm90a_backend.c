/* sm90a_backend.c — the Hopper sm_90a target as a pt_backend: TMA producer warp, wgmma
 * consumer warpgroups, mbarrier rings (sm90a_plan.c / sm90a_emit.c for GEMM-like graphs,
 * sm90a_attn_*.c for attention). */
#include "backend.h"

const pt_backend pt_backend_sm90a = {
    .name = "sm90a",
    .arch = "sm_90a",
    .gpus = "H100/H200",
    .nvcc_arch_flags = "-gencode=arch=compute_90a,code=sm_90a",
    .accepts = pt_codegen_sm90a_check,
    .generate = pt_codegen_sm90a,
};
