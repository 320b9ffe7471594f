/* regfile.h — how much of one EU's register file a workgroup running an sProgram takes, by its
 * vendor's rule, for the validator (and through it the scheduler and the explorer).
 *
 * NVIDIA (Hopper, setmaxnreg): each warp role has its own per-thread budget, so the budgets times
 *   the roles' threads add up.
 * AMD (CDNA3, gfx942): there is no setmaxnreg. A kernel has one VGPR budget for all its waves —
 *   the largest role's — and a workgroup's waves are dealt over the CU's SIMDs, each of which
 *   holds max_regs_per_thread registers per lane (512 on MI300X: 256 arch VGPRs + 256
 *   AccVGPRs). The SIMD with the most waves decides: the workgroup takes budget x those waves on
 *   every SIMD, i.e. budget x waves_per_simd x warp_size x simds registers of the CU.
 * Either way the workgroup fits when `claim` is at most regs_per_eu. */
#ifndef PT_REGFILE_H
#define PT_REGFILE_H

#include "hw.h"
#include "sprogram.h"

typedef struct {
    int64_t claim;       /* registers of the EU's file the workgroup takes */
    bool per_kernel;     /* the AMD rule: one budget for every wave */
    int budget;          /* per_kernel: the kernel's budget per lane (the largest role's) */
    int waves;           /* per_kernel: waves of the workgroup (roles rounded up to warp_size) */
    int simds;           /* per_kernel: SIMDs of the EU (regs_per_eu / (max_regs x warp_size)) */
    int waves_per_simd;  /* per_kernel: waves on the busiest SIMD */
    int64_t pool;        /* NVIDIA: the registers the CTA is launched with, which setmaxnreg
                            only moves between warps: every thread gets the launch bound's
                            per-thread count (regs_per_eu / threads, a multiple of 8, at most
                            the ISA's maximum), so the budgets must add up to at most that */
    int launch_regs;     /* NVIDIA: that per-thread count */
} pt_regfile_use;

/* Does this hardware give one register budget to every wave of a kernel (AMD)? */
bool pt_regfile_per_kernel(const pt_hw *hw);
/* The register file the roles of p take on hw (hw NULL: the NVIDIA sum). */
void pt_regfile_use_of(const pt_sprogram *p, const pt_hw *hw, pt_regfile_use *u);
/* NVIDIA: registers per thread a CTA of `threads` is launched with (__launch_bounds__(threads,
 * 1)): regs_per_eu / threads rounded down to a multiple of 8, at most the ISA's maximum. */
int pt_regfile_launch_regs(const pt_hw *hw, int64_t threads);

#endif
