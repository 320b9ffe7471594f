/* gemm.h — the Hopper target's view of a single-matmul kernel program (codegen/ir/kprog.h).
 *
 * gemm_plan.c reads what the wgmma/TMA instructions need out of the graph and the program
 * (operand layouts, the warpgroups' row blocks, register caps) and refuses what they cannot
 * do; gemm_emit.c prints the program: the producer's loads and the consumers' guarded loop. */
#ifndef PT_SM90A_GEMM_H
#define PT_SM90A_GEMM_H

#include "codegen.h"
#include "ir/kprog.h"
#include "shape.h"

typedef struct {
    const pt_kprog *kp;
    const pt_graph *g;
    int A, B, C;                 /* tensors */
    int ring_a, ring_b;          /* their buffers (kp->bufs) */
    int64_t M, N, K;
    int64_t BM, BN, BK;
    int wgs;                     /* consumer warpgroups */
    int m_wg;                    /* rows per consumer warpgroup (64 or 128) */
    int mrep;                    /* m64 instructions per k16 step per warpgroup */
    /* The tensor-core rows on N (the tiling's wg_axis: "A and B swapped"): each warpgroup
     * computes C^T's rows, B's tile is wgmma's A operand and A's tile its B operand, and the
     * accumulators are stored transposed. acc_n is wgmma's N: BM when swapped, else BN. */
    bool swap;
    int64_t acc_n;
    bool rows_kmajor, cols_kmajor; /* the instruction's A (rows) and B (columns) operand tiles
                                      stored K-major (else the transposed form) */
    bool a_kmajor;               /* A stored M x K (else K x M: M-major, transposed wgmma) */
    bool b_kmajor;               /* B stored N x K (else K x N: N-major, transposed wgmma) */
    pt_dtype in_dt, out_dt;
    int in_bytes, out_bytes;
    int c_chunk_cols;            /* output columns per 128-byte swizzled store box */
    int64_t tiles_m, tiles_n, k_iters;
    sm90a_shape sh;              /* the tile walk and buffer names the shared printers use */
    /* B dequantised in the kernel (by the producer's CUDA cores into B's ring, or see deq_regs):
     * its packed tensor and group scales, their rings, the group length, the scale columns of
     * a stage */
    bool deq;
    /* ... and with the tensor-core rows on N (swap), dequantised by each consumer warpgroup
     * into wgmma's A fragments (pt_stask_dequant_rows): no ring of B, A's the only wgmma
     * operand in shared memory. mma_i, deq_i: the consumer tasks (the same in every role). */
    bool deq_regs;
    int mma_i, deq_i;
    bool a_late;                 /* deq_regs: A's stage handed back during the next k block */
    bool frag;                   /* deq_regs with Wq in the "fragments" packing (src/packing.h) */
    int Bq, Bs, ring_q, ring_s, deq_task;
    int64_t group, s_cols;
    pt_dtype q_dt;
    char coord_q[64], coord_s[64];
} sm90a_gemm;

bool sm90a_gemm_plan(sm90a_gemm *gm, const pt_kprog *kp, pt_error *err);
int sm90a_gemm_trace_roles(const sm90a_gemm *gm);
bool sm90a_gemm_emit(const sm90a_gemm *gm, pt_codegen_result *out, pt_error *err);
/* Dequantised B (gemm_dequant.c): what its instructions need, and the producer's dequantising
 * warps. */
bool sm90a_gemm_plan_dequant(sm90a_gemm *gm, pt_error *err);
void sm90a_gemm_emit_dequant(strbuf *sb, const void *gemm);
void sm90a_gemm_emit_dequant_constants(strbuf *sb, const sm90a_gemm *gm);
/* The consumers' k loop when they dequantise their own rows (deq_regs), and the descriptor of
 * wgmma's B operand for step kk that it shares with the shared-memory form (gemm_desc.c). */
void sm90a_gemm_emit_dequant_rows_loop(strbuf *sb, const sm90a_gemm *gm);
void sm90a_gemm_emit_cols_desc(strbuf *sb, const sm90a_gemm *gm, const char *indent);
/* Split-K (gemm_splitk.c): the counters and workspace before the kernel, the epilogue that
 * publishes or adds the partial tiles after the loop. */
void sm90a_gemm_emit_splitk_globals(strbuf *sb, const sm90a_gemm *gm);
void sm90a_gemm_emit_splitk_fixup(strbuf *sb, const sm90a_gemm *gm);
/* Stream-K (gemm_streamk.c): the partition's constants, the segment walk, the counters and
 * workspace before the kernel, the epilogue that publishes or fixes up a shared tile. */
void sm90a_gemm_emit_streamk_constants(strbuf *sb, const sm90a_gemm *gm);
void sm90a_gemm_emit_streamk_globals(strbuf *sb, const sm90a_gemm *gm);
void sm90a_gemm_emit_streamk_fixup(strbuf *sb, const sm90a_gemm *gm);

#endif
