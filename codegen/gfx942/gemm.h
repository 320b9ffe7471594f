/* gemm.h — the gfx942 (MI300X) target's view of a single-matmul kernel program (ir/kprog.h).
 *
 * gemm_plan.c reads what MFMA and LDS need out of the graph and the program (operand layouts,
 * each wave's block of the output tile, the MFMA shape, the LDS rings' depth and size, a VGPR
 * estimate) and refuses in one line what they cannot do; gemm_emit.c prints the HIP kernel and
 * host.c its launcher. On gfx942 every wave both loads and computes: the producer role's loads
 * are issued by the consumer waves themselves, software-pipelined by the rings' stages. */
#ifndef PT_GFX942_GEMM_H
#define PT_GFX942_GEMM_H

#include "codegen.h"
#include "ir/kprog.h"
#include "strbuf.h"

/* How a ring's tile travels global -> registers -> LDS, by its depth (docs/CODEGEN-gfx942.md):
 * SERIAL (1 stage): loaded during the MFMAs, written after a barrier, then another barrier;
 * LATE (2): loaded during the MFMAs, written at the end of the iteration into the other stage;
 * EARLY (3+): written at the start of the next iteration, so the global load is in flight
 * across a whole iteration and its barrier. */
typedef enum { GFX942_RING_SERIAL, GFX942_RING_LATE, GFX942_RING_EARLY } gfx942_ring_mode;

typedef struct {
    int buf;                 /* kp->bufs index */
    int tensor;
    int stages;
    gfx942_ring_mode mode;
    int rows, cols, ld;      /* one stage in LDS: rows x cols elements, rows ld apart */
    int chunks_per_thread;   /* 16-byte global loads each work-item issues per tile */
    int64_t stage_bytes;
    char name;               /* 'a' or 'b' */
} gfx942_ring;

typedef struct {
    const pt_kprog *kp;
    const pt_graph *g;
    int A, B, C;                 /* tensors */
    int64_t M, N, K;
    int64_t BM, BN, BK;
    bool b_kmajor;               /* B stored N x K (else K x N: gathered by frag_kn) */
    pt_dtype in_dt, out_dt;
    int waves, threads;          /* 2 waves per consumer role; the producer role has none */
    int wm, wn;                  /* one wave's block of the output tile */
    int mfma;                    /* 32 (32x32x8) or 16 (16x16x16) */
    int mk;                      /* the MFMA's k */
    gfx942_ring ring[2];         /* A, B in the producer lane's issue order */
    int64_t lds_bytes;
    int vgpr_estimate;
    int64_t tiles_m, tiles_n, k_iters;
} gfx942_gemm;

bool gfx942_gemm_plan(gfx942_gemm *gm, const pt_kprog *kp, pt_error *err);
bool gfx942_gemm_emit(const gfx942_gemm *gm, pt_codegen_result *out, pt_error *err);
/* launch.c: pt_kernel_launch over hipModuleLaunchKernel (host.c), the kernel's parameters being
 * the graph tensors slots[0 .. n_slots). */
void gfx942_emit_host(strbuf *sb, const pt_kprog *kp, const int *slots, int n_slots, int threads,
                      int64_t lds_bytes);

#endif
