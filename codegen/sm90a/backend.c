/* backend.c — the Hopper sm_90a target as a pt_backend: the kernel program (codegen/ir/) printed
 * as a TMA producer warp and wgmma consumer warpgroups over mbarrier rings. Four printers walk
 * the program: a single matmul (gemm_*.c), attention (attn_*.c), FlashDecoding's combine
 * (combine_*.c) and a matmul whose A is made on the CUDA cores (ssd_*.c: Mamba2's ChunkState and
 * ChunkScan). */
#include <stdlib.h>

#include "attn.h"
#include "backend.h"
#include "combine.h"
#include "common.h"
#include "gemm.h"
#include "ssd.h"

/* Lower, check what the instructions need, and (out non-NULL) print. */
static bool generate(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                     pt_codegen_result *out, pt_error *err)
{
    if (!sm90a_check_target(p, sg, hw, err))
        return false;
    const pt_graph *g = sg->graph;
    bool attn = sm90a_attn_matches(g), comb = sm90a_combine_matches(g);
    bool gemm = (g->n_ops == 1 && g->ops[0].kind == PT_OP_MATMUL) ||
                (g->n_ops == 2 && g->ops[0].kind == PT_OP_DEQUANTIZE &&
                 g->ops[1].kind == PT_OP_MATMUL);
    bool ssd = !attn && !comb && !gemm && sm90a_ssd_matches(g);
    if (!attn && !comb && !gemm && !ssd)
        return pt_fail(err, "codegen sm90a: graph \"%s\" has %d ops; this backend generates single "
                            "matmuls (optionally of dequantised weights), attention (matmul, "
                            "online_softmax, matmul), FlashDecoding's combine and a matmul whose A "
                            "is made by pointwise ops (Mamba2's ChunkState, and ChunkScan with its "
                            "prologue product and epilogue sum)",
                       g->name, g->n_ops);
    if (ssd && !sm90a_ssd_check_shape(g, err))
        return false;
    if (!ssd && sg->tiling.wg_stores)
        return pt_fail(err, "codegen sm90a: wg_stores=1: each warpgroup storing its own rows is "
                            "generated for Mamba2's ChunkState and ChunkScan only; expected "
                            "wg_stores=0 for graph \"%s\"", g->name);
    int rows = pt_default_rows_axis(g, &sg->tiling);
    if (!gemm && sg->rows_axis != rows)
        return pt_fail(err, "codegen sm90a: wg_axis \"%s\": only a single matmul's tensor-core "
                            "rows run along another axis than the output's first (\"%s\")",
                       g->axes[sg->rows_axis].name, rows >= 0 ? g->axes[rows].name : "none");
    pt_kprog *kp = malloc(sizeof *kp);
    bool ok = kp ? pt_kprog_build(kp, p, sg, hw, "sm90a", err)
                 : pt_fail(err, "codegen sm90a: out of memory");
    if (ok && attn) {
        sm90a_attn *at = malloc(sizeof *at);
        ok = at ? sm90a_attn_plan(at, kp, err) && (!out || sm90a_attn_emit(at, out, err))
                : pt_fail(err, "codegen sm90a: out of memory");
        free(at);
    } else if (ok && comb) {
        sm90a_combine *cb = malloc(sizeof *cb);
        ok = cb ? sm90a_combine_plan(cb, kp, err) && (!out || sm90a_combine_emit(cb, out, err))
                : pt_fail(err, "codegen sm90a: out of memory");
        free(cb);
    } else if (ok && ssd) {
        sm90a_ssd *sd = malloc(sizeof *sd);
        ok = sd ? sm90a_ssd_plan(sd, kp, err) && (!out || sm90a_ssd_emit(sd, out, err))
                : pt_fail(err, "codegen sm90a: out of memory");
        free(sd);
    } else if (ok) {
        sm90a_gemm *gm = malloc(sizeof *gm);
        ok = gm ? sm90a_gemm_plan(gm, kp, err) && (!out || sm90a_gemm_emit(gm, out, err))
                : pt_fail(err, "codegen sm90a: out of memory");
        free(gm);
    }
    free(kp);
    return ok;
}

bool pt_codegen_sm90a(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                      pt_codegen_result *out, pt_error *err)
{
    return generate(p, sg, hw, out, err);
}

bool pt_codegen_sm90a_check(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                            pt_error *err)
{
    return generate(p, sg, hw, NULL, err);
}

const pt_backend pt_backend_sm90a = {
    .name = "sm90a",
    .arch = "sm_90a",
    .gpus = "H100/H200",
    .nvcc_arch_flags = "-gencode=arch=compute_90a,code=sm_90a",
    .accepts = pt_codegen_sm90a_check,
    .generate = pt_codegen_sm90a,
};
