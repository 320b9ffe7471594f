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
#include "ir/attention.h"
#include "ir/kprog.h"
#include "shape.h"

typedef struct {
    const pt_kprog *kp;
    const pt_graph *g;
    pt_kattn a;                    /* the graph: Q, K, V, O, the log-sum-exp, axes, sizes,
                                      dtypes, mask, tile (ir/attention.h) */
    int buf_q, ring_k, ring_v;     /* Q's, K's and V's buffers */
    int buf_l;                     /* the log-sum-exp's ROWS buffer, -1 */
    int wgs;                       /* consumer warpgroups, 64 query rows each */
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
