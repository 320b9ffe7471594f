/* simd_serve.h — a role's tensor-core and CUDA-core work on the SIMDs its waves sit on.
 *
 * On a part whose EU is split into SIMDs (hw->simds_per_eu > 0; AMD CDNA3: 4 per CU), each SIMD
 * has its own matrix core and vector ALU at 1 / simds of the EU's rate, and a wave runs on one
 * SIMD. So a role's mma or softmax piece is not served by one EU-wide unit: each of the role's
 * waves does its share on its own SIMD, and while one role runs its softmax the other role's
 * MFMAs go on only at the rate of the SIMDs its own waves hold.
 *
 * The waves are laid out as the gfx942 printers lay them out (docs/CODEGEN-gfx942.md): consumer
 * role wgN is ceil(threads / warp_size) waves numbered after those of wg0 .. wgN-1 (128 threads:
 * waves 2N and 2N+1); the producer role has no waves of its own (every wave issues its share of
 * each load), so its work is spread over all the consumer waves. Wave w sits on SIMD
 * w mod simds: the dispatcher deals a workgroup's waves over the CU's SIMDs, and a wave of more
 * than half a SIMD's 512 registers per lane (every gfx942 attention and GEMM kernel the
 * scheduler picks) leaves no room for a second on the same SIMD. */
#ifndef PT_SIMD_SERVE_H
#define PT_SIMD_SERVE_H

#include "hw.h"
#include "sprogram.h"

/* The most SIMDs an EU may have (hw.c's bound on simds_per_eu). */
#define PT_MAX_SIMDS 64

/* The waves role R of p occupies: *first and the count (at least 1). */
int pt_simd_role_waves(const pt_sprogram *p, int R, const pt_hw *hw, int *first);

/* Serves `work_ns` of EU-rate work (amount / the EU's rate) split evenly over waves
 * [first, first + n), wave w on SIMD w mod simds, none before `ready`: each wave's share takes
 * work_ns x simds / n on its SIMD, after what that SIMD already holds (free[], updated).
 * Returns when the last share ends; *start is when the first began. */
double pt_simd_serve(double *free, int simds, int first, int n, double ready, double work_ns,
                     double *start);

#endif
