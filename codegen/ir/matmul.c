/* matmul.c — a single-matmul graph read into A, B, C and their layouts (see matmul.h). */
#include "matmul.h"

#define KREFUSE(...) return pt_fail(err, "codegen " __VA_ARGS__)

bool pt_kmatmul_read(pt_kmatmul *mm, const pt_graph *g, const char *who, pt_error *err)
{
    mm->deq = mm->Bq = mm->Bs = -1;
    mm->group = 0;
    mm->op = g->n_ops - 1;
    const pt_op *op = &g->ops[mm->op];
    if (op->kind != PT_OP_MATMUL || op->n_in != 2 || g->n_ops > 2)
        KREFUSE("%s: graph \"%s\": expected one matmul, optionally after the dequantize op that "
                "makes its B", who, g->name);
    if (g->n_ops == 2) {
        const pt_op *d = &g->ops[0];
        if (d->kind != PT_OP_DEQUANTIZE || d->out != op->in[1])
            KREFUSE("%s: graph \"%s\": op \"%s\" must be the dequantize that makes the "
                    "matmul's B (\"%s\")", who, g->name, d->name, g->tensors[op->in[1]].name);
        const pt_tensor *q = &g->tensors[d->in[0]];
        mm->deq = 0;
        mm->Bq = d->in[0];
        mm->Bs = q->scales;
        mm->group = q->group_size;
        mm->q_dt = q->dtype;
        if (mm->Bs < 0 || mm->group <= 0)
            KREFUSE("%s: \"%s\" has no group scales", who, q->name);
    }
    mm->A = op->in[0];
    mm->B = op->in[1];
    mm->C = op->out;
    const pt_tensor *A = &g->tensors[mm->A], *B = &g->tensors[mm->B], *C = &g->tensors[mm->C];
    if (A->rank != 2 || B->rank != 2 || C->rank != 2 || op->n_reduce != 1)
        KREFUSE("%s: matmul \"%s\" must be two-dimensional (A[m,k] . B -> C[m,n]); batch axes "
                "are not generated yet", who, op->name);
    if (A->view_of >= 0 || B->view_of >= 0 || C->view_of >= 0)
        KREFUSE("%s: matmul \"%s\": operands that are views are not generated", who, op->name);
    int k = op->reduce_axes[0], m = C->axes[0], n = C->axes[1];
    mm->m = m;
    mm->n = n;
    mm->k = k;
    if (A->axes[0] == m && A->axes[1] == k)
        mm->a_kmajor = true;
    else if (A->axes[0] == k && A->axes[1] == m)
        mm->a_kmajor = false;
    else
        KREFUSE("%s: A (\"%s\") must be [%s, %s] or [%s, %s]", who, A->name, g->axes[m].name,
                g->axes[k].name, g->axes[k].name, g->axes[m].name);
    if (B->axes[0] == n && B->axes[1] == k)
        mm->b_kmajor = true;
    else if (B->axes[0] == k && B->axes[1] == n)
        mm->b_kmajor = false;
    else
        KREFUSE("%s: B (\"%s\") must be [%s, %s] or [%s, %s]", who, B->name, g->axes[k].name,
                g->axes[n].name, g->axes[n].name, g->axes[k].name);
    mm->in_dt = A->dtype;
    mm->out_dt = C->dtype;
    if ((A->dtype != PT_F16 && A->dtype != PT_BF16) || B->dtype != A->dtype)
        KREFUSE("%s: A and B must both be f16 or both bf16 (they are %s and %s)", who,
                pt_dtype_name(A->dtype), pt_dtype_name(B->dtype));
    if (C->dtype != PT_F16 && C->dtype != PT_BF16 && C->dtype != PT_F32)
        KREFUSE("%s: the output must be f16, bf16 or f32 (it is %s)", who,
                pt_dtype_name(C->dtype));
    if (op->acc != PT_F32)
        KREFUSE("%s: only f32 accumulation is generated (the op asks for %s)", who,
                pt_dtype_name(op->acc));
    mm->M = g->axes[m].extent;
    mm->N = g->axes[n].extent;
    mm->K = g->axes[k].extent;
    return true;
}
