/* attention.h — an attention graph (matmul → online_softmax → matmul) as every target's
 * attention printer reads it: which tensors and axes play Q, K, V, O and the log-sum-exp, the
 * batch entries each operand serves (grouped-query K/V, a query shared by KV splits), sizes,
 * dtypes, the mask and the tile. The checks every target needs alike are made here once (as
 * matmul.h does for a single matmul); what a target's instructions need beyond that (head dims,
 * row blocks, a log-sum-exp it does not write) its planner adds. */
#ifndef PT_KATTENTION_H
#define PT_KATTENTION_H

#include "graph.h"
#include "pt_error.h"
#include "stask.h"

typedef struct {
    int op_qk, op_sm, op_pv;
    int Q, K, V, O;              /* tensors */
    int L;                       /* the softmax's log-sum-exp output, -1 */
    int m, n, d;                 /* axes: query rows, keys, head dim */
    int64_t B, S, SK, D;         /* O's batch entries (batch·heads), queries, keys, head dim */
    int64_t qshare;              /* O's batch entries per Q entry (KV splits sharing a query) */
    int64_t group;               /* O's batch entries per K/V entry (grouped-query attention) */
    /* A ragged key axis (graph.h: FlashDecoding's pieces where SPLITS does not divide S): K and
     * V store the whole sequence of `total` keys per entry of their batch axes but the last,
     * which counts the `pieces` (each SK keys long, the last shorter); 0 and 0 otherwise */
    int64_t pieces, total;
    bool causal;
    double scale;
    pt_dtype in_dt, out_dt;
    int64_t BM, BN;              /* the tile's query rows and keys */
} pt_kattn;

/* Reads graph g (pt_attn_matches) under tiling t; false with "codegen <who>: ..." naming the
 * tensor or axis at fault. */
bool pt_kattn_read(pt_kattn *a, const pt_graph *g, const pt_tiling *t, const char *who,
                   pt_error *err);

#endif
