/* attn.h — the Hopper target's view of an attention kernel program (matmul → online_softmax →
 * matmul, FlashAttention forward; codegen/ir/kprog.h).
 *
 * attn_plan.c reads the shapes the instructions need (batch·heads, sequence, head dim, query
 * rows per warpgroup) and refuses what they cannot do; attn_emit.c prints the program: the
 * producer's loads and each consumer role's step program (pass_step) as fill copies, peeled
 * steps, a steady loop and drain copies, one device-library call per task. */
#ifndef PT_SM90A_ATTN_H
#define PT_SM90A_ATTN_H

#include "codegen.h"
#include "ir/kprog.h"
#include "shape.h"

typedef struct {
    const pt_kprog *kp;
    const pt_graph *g;
    int Q, K, V, O;                /* tensors */
    int buf_q, ring_k, ring_v;     /* their buffers */
    int op_qk, op_sm, op_pv;
    int ax_m;                      /* the query-row axis */
    int L, buf_l;                  /* the softmax's log-sum-exp output and its ROWS buffer, -1 */
    int64_t B, S, SK, D;           /* O's batch entries (batch·heads), queries, keys, head dim */
    int64_t group;                 /* O's batch entries per K/V entry (grouped-query attention:
                                      query heads per K/V head), 1 */
    int64_t qshare;                /* O's batch entries per Q entry (FlashDecoding: the KV splits
                                      of one sequence read its one query), 1 */
    int64_t BM, BN;                /* query rows and key columns per tile */
    int wgs;                       /* consumer warpgroups, 64 query rows each */
    bool causal;
    double scale;                  /* softmax scale from the graph */
    pt_dtype in_dt, out_dt;
    int s_bufs, m_bufs, p_bufs;    /* register slots of S, the softmax state and P (pass_step) */
    int64_t tiles_m, kv_blocks;
    sm90a_shape sh;                /* the tile walk and buffer names the shared printers use */
} sm90a_attn;

/* Whether graph g is the attention pattern this printer handles (matmul, online_softmax,
 * matmul). */
bool sm90a_attn_matches(const pt_graph *g);
bool sm90a_attn_plan(sm90a_attn *at, const pt_kprog *kp, pt_error *err);
bool sm90a_attn_emit(const sm90a_attn *at, pt_codegen_result *out, pt_error *err);

#endif
