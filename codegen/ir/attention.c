/* attention.c — an attention graph read into Q, K, V, O and their axes (see attention.h). */
#include "attention.h"

#define KREFUSE(...) return pt_fail(err, "codegen " __VA_ARGS__)

/* Tensor t is [batch axes..., row, d] with the given batch axes, row axis and d innermost. */
static bool shaped(const pt_graph *g, int t, const int *batch, int nb, int row, int d)
{
    const pt_tensor *T = &g->tensors[t];
    if (T->rank != nb + 2 || T->view_of >= 0)
        return false;
    for (int i = 0; i < nb; i++)
        if (T->axes[i] != batch[i])
            return false;
    return T->axes[nb] == row && T->axes[nb + 1] == d;
}

/* Operand t is [batch..., row, d] whose batch axes are the leading ones of O's (nb of them):
 * *share gets how many of O's flattened batch entries read one of t's (the product of O's
 * batch axes t lacks). */
static bool operand(const pt_graph *g, int t, const int *batch, int nb, int row, int d,
                    int64_t *share)
{
    int n = g->tensors[t].rank - 2;
    if (n < 0 || n > nb || !shaped(g, t, batch, n, row, d))
        return false;
    *share = 1;
    for (int i = n; i < nb; i++)
        *share *= g->axes[batch[i]].extent;
    return true;
}

/* O [batch..., m, d]; Q, K and V with O's leading batch axes; the log-sum-exp, if any,
 * [batch..., m] in f32. */
static bool tensors(pt_kattn *a, const pt_graph *g, const char *who, pt_error *err)
{
    int m = a->m, n = a->n, d = a->d;
    const pt_tensor *O = &g->tensors[a->O];
    if (O->rank < 2 || O->axes[O->rank - 1] != d)
        KREFUSE("%s: O (\"%s\") must be [batch..., rows, %s]", who, O->name, g->axes[d].name);
    int nb = O->rank - 2;
    const int *batch = O->axes;
    if (O->axes[nb] != m || !shaped(g, a->O, batch, nb, m, d))
        KREFUSE("%s: O (\"%s\") must be [batch..., %s, %s] with Q's rows", who, O->name,
                g->axes[m].name, g->axes[d].name);
    if (!operand(g, a->Q, batch, nb, m, d, &a->qshare))
        KREFUSE("%s: Q (\"%s\") must be [batch..., %s, %s] with O's batch axes, or their leading "
                "ones (FlashDecoding: the KV splits share the query)", who,
                g->tensors[a->Q].name, g->axes[m].name, g->axes[d].name);
    if (!operand(g, a->K, batch, nb, n, d, &a->group))
        KREFUSE("%s: K (\"%s\") must be [batch..., %s, %s] with O's batch axes, or their leading "
                "ones (grouped-query attention)", who, g->tensors[a->K].name, g->axes[n].name,
                g->axes[d].name);
    int64_t vshare;
    if (!operand(g, a->V, batch, nb, n, d, &vshare) || vshare != a->group)
        KREFUSE("%s: V (\"%s\") must be shaped as K: [batch..., %s, %s] with K's batch axes", who,
                g->tensors[a->V].name, g->axes[n].name, g->axes[d].name);
    a->B = 1;
    for (int i = 0; i < nb; i++)
        a->B *= g->axes[batch[i]].extent;
    a->L = g->ops[a->op_sm].lse;
    if (a->L >= 0) {
        const pt_tensor *L = &g->tensors[a->L];
        bool ok = L->rank == nb + 1 && L->axes[nb] == m && L->dtype == PT_F32;
        for (int i = 0; ok && i < nb; i++)
            ok = L->axes[i] == batch[i];
        if (!ok)
            KREFUSE("%s: the log-sum-exp \"%s\" must be f32 [O's batch axes..., %s]", who,
                    L->name, g->axes[m].name);
    }
    return true;
}

static bool dtypes(pt_kattn *a, const pt_graph *g, const char *who, pt_error *err)
{
    const pt_op *qk = &g->ops[a->op_qk], *sm = &g->ops[a->op_sm], *pv = &g->ops[a->op_pv];
    a->in_dt = g->tensors[a->Q].dtype;
    a->out_dt = g->tensors[a->O].dtype;
    if ((a->in_dt != PT_F16 && a->in_dt != PT_BF16) || g->tensors[a->K].dtype != a->in_dt ||
        g->tensors[a->V].dtype != a->in_dt)
        KREFUSE("%s: Q, K and V must all be f16 or all bf16 (the matrix-core operands)", who);
    if (a->out_dt != PT_F16 && a->out_dt != PT_BF16 && a->out_dt != PT_F32)
        KREFUSE("%s: O must be f16, bf16 or f32 (it is %s)", who, pt_dtype_name(a->out_dt));
    if (g->tensors[sm->out].dtype != a->in_dt)
        KREFUSE("%s: P (\"%s\") must have V's dtype %s: it is an operand of the P.V product",
                who, g->tensors[sm->out].name, pt_dtype_name(a->in_dt));
    if (qk->acc != PT_F32 || pv->acc != PT_F32)
        KREFUSE("%s: only f32 accumulation is generated", who);
    return true;
}

bool pt_kattn_read(pt_kattn *a, const pt_graph *g, const pt_tiling *t, const char *who,
                   pt_error *err)
{
    a->op_qk = 0;
    a->op_sm = 1;
    a->op_pv = 2;
    const pt_op *qk = &g->ops[0], *sm = &g->ops[1], *pv = &g->ops[2];
    a->Q = qk->in[0];
    a->K = qk->in[1];
    a->V = pv->in[1];
    a->O = pv->out;
    if (qk->n_reduce != 1 || pv->n_reduce != 1)
        KREFUSE("%s: attention matmuls must each contract one axis", who);
    a->d = qk->reduce_axes[0];
    a->n = pv->reduce_axes[0];
    const pt_tensor *Q = &g->tensors[a->Q];
    if (Q->rank < 2 || Q->axes[Q->rank - 1] != a->d)
        KREFUSE("%s: Q (\"%s\") must be [batch..., rows, head dim] with the contracted head-dim "
                "axis \"%s\" innermost", who, Q->name, g->axes[a->d].name);
    a->m = Q->axes[Q->rank - 2];
    if (!tensors(a, g, who, err))
        return false;
    if (sm->axis != a->n)
        KREFUSE("%s: the softmax must run over the key axis \"%s\"", who, g->axes[a->n].name);
    a->S = g->axes[a->m].extent;
    a->SK = g->axes[a->n].extent;
    if (pt_axis_ragged(g, a->n)) {
        /* the loader keeps the piece count just before the key axis in every input */
        const pt_tensor *K = &g->tensors[a->K];
        if (K->rank < 3 || K->axes[K->rank - 3] != g->axes[a->n].split_by)
            KREFUSE("%s: K (\"%s\") must hold the pieces of its ragged key axis \"%s\" as its "
                    "last batch axis", who, K->name, g->axes[a->n].name);
        a->pieces = g->axes[g->axes[a->n].split_by].extent;
        a->total = g->axes[a->n].split_total;
    }
    a->D = g->axes[a->d].extent;
    if (!dtypes(a, g, who, err))
        return false;
    a->causal = sm->causal;
    if (a->causal && (sm->row_axis != a->m || sm->col_axis != a->n))
        KREFUSE("%s: the causal mask must be over (%s, %s)", who, g->axes[a->m].name,
                g->axes[a->n].name);
    a->scale = sm->scale;
    a->BM = t->tile[a->m];
    a->BN = t->tile[a->n];
    if (t->tile[a->d] != a->D)
        KREFUSE("%s: tile %s = %lld; the head dim is not split (expected %lld)", who,
                g->axes[a->d].name, (long long)t->tile[a->d], (long long)a->D);
    const pt_tensor *O = &g->tensors[a->O];
    for (int i = 0; i < O->rank - 2; i++)
        if (t->tile[O->axes[i]] != 1)
            KREFUSE("%s: tile %s = %lld; batch axes are tiled by 1", who,
                    g->axes[O->axes[i]].name, (long long)t->tile[O->axes[i]]);
    return true;
}
