/* backend.c — the gfx942 (AMD MI300X, CDNA3) target as a pt_backend: the kernel program
 * (codegen/ir/) printed as HIP C++ — MFMA for the tensor-core lane, global -> LDS copies into
 * rings of stages for the producer lane (issued by the same waves), the Waits as s_waitcnt and
 * s_barrier. Single matmuls (gemm_*.c), attention, FlashAttention forward (attn_*.c), and
 * FlashDecoding's combine (combine_*.c). */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "attn.h"
#include "attn_walk.h"
#include "combine.h"
#include "gemm.h"
#include "validate.h"

/* Plan and (out non-NULL) print the program of the printer that reads this graph. */
static bool print(const pt_kprog *kp, bool attn, bool comb, pt_codegen_result *out, pt_error *err)
{
    union {
        gfx942_gemm gm;
        gfx942_attn at;
        gfx942_combine cb;
    } *u = malloc(sizeof *u);
    if (!u)
        return pt_fail(err, "codegen gfx942: out of memory");
    bool ok;
    if (attn)
        ok = gfx942_attn_plan(&u->at, kp, err) && (!out || gfx942_attn_emit(&u->at, out, err));
    else if (comb)
        ok = gfx942_combine_plan(&u->cb, kp, err) && (!out || gfx942_combine_emit(&u->cb, out, err));
    else
        ok = gfx942_gemm_plan(&u->gm, kp, err) && (!out || gfx942_gemm_emit(&u->gm, out, err));
    free(u);
    return ok;
}

/* Lower, check what the instructions need, and (out non-NULL) print. */
static bool generate(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                     pt_codegen_result *out, pt_error *err)
{
    pt_validation v;
    pt_error verr;
    if (!pt_validate(p, sg, hw, &v, &verr))
        return pt_fail(err, "codegen gfx942: the sProgram is not valid: %s", verr.msg);
    if (strcmp(hw->arch, "gfx942") != 0)
        return pt_fail(err, "codegen gfx942: hardware model %s is %s; expected a gfx942 part "
                            "(MI300X)", hw->name, hw->arch);
    const pt_graph *g = sg->graph;
    bool attn = pt_attn_matches(g), comb = !attn && pt_kcombine_matches(g);
    if (!attn && !comb && (g->n_ops != 1 || g->ops[0].kind != PT_OP_MATMUL))
        return pt_fail(err, "codegen gfx942: graph \"%s\" has %d ops; this backend generates "
                            "single matmuls, attention (matmul -> online_softmax -> matmul) and "
                            "FlashDecoding's combine", g->name, g->n_ops);
    if (sg->tiling.wg_stores)
        return pt_fail(err, "codegen gfx942: wg_stores=1: each warpgroup storing its own rows is "
                            "generated for sm90a only; expected wg_stores=0");
    if (sg->rows_axis != pt_default_rows_axis(g, &sg->tiling))
        return pt_fail(err, "codegen gfx942: wg_axis \"%s\": the MFMA rows run along the "
                            "output's first axis only (A and B are not swapped on this target)",
                       g->axes[sg->rows_axis].name);
    if (p->partition.run > 1)
        return pt_fail(err, "codegen gfx942: partition.run = %d: runs of launch positions (and "
                            "the tiles they keep in shared memory) are generated for sm90a only; "
                            "expected 1", p->partition.run);
    pt_kprog *kp = malloc(sizeof *kp);
    if (!kp)
        return pt_fail(err, "codegen gfx942: out of memory");
    /* MI300X's model marks the MFMA synchronous: the kernel program then keeps no group in
     * flight and releases a ring stage in its reader's own step (pass_step.c). */
    bool ok = pt_kprog_build(kp, p, sg, hw, "gfx942", err) && print(kp, attn, comb, out, err);
    free(kp);
    return ok;
}

static bool accepts(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                    pt_error *why)
{
    return generate(p, sg, hw, NULL, why);
}

const pt_backend pt_backend_gfx942 = {
    .name = "gfx942",
    .arch = "gfx942",
    .gpus = "MI300X",
    .nvcc_arch_flags = "--offload-arch=gfx942",
    .hip = true,
    .accepts = accepts,
    .generate = generate,
};
