/* combine.c — FlashDecoding's combine graph read into X, Y, O and their axes (see combine.h). */
#include "combine.h"

#define KREFUSE(...) return pt_fail(err, "codegen " __VA_ARGS__)

static bool reads(const pt_op *o, int a, int b)
{
    return o->n_in == 2 && ((o->in[0] == a && o->in[1] == b) || (o->in[0] == b && o->in[1] == a));
}

bool pt_kcombine_matches(const pt_graph *g)
{
    static const pt_op_kind kinds[7] = {PT_OP_REDUCE_MAX, PT_OP_SUB, PT_OP_EXP, PT_OP_REDUCE_SUM,
                                        PT_OP_MUL, PT_OP_REDUCE_SUM, PT_OP_DIV};
    if (g->n_ops != 7)
        return false;
    for (int i = 0; i < 7; i++)
        if (g->ops[i].kind != kinds[i])
            return false;
    const pt_op *o = g->ops;
    int x = o[0].in[0], y = o[4].in[0] == o[2].out ? o[4].in[1] : o[4].in[0];
    return o[1].n_in == 2 && o[1].in[0] == x && o[1].in[1] == o[0].out &&
           o[2].in[0] == o[1].out && o[3].in[0] == o[2].out && reads(&o[4], y, o[2].out) &&
           o[5].in[0] == o[4].out && o[6].n_in == 2 && o[6].in[0] == o[5].out &&
           o[6].in[1] == o[3].out && o[0].axis == o[3].axis && o[0].axis == o[5].axis;
}

/* T's axes are `batch` (nb of them) followed by the axes in `rest` (nr). */
static bool shaped(const pt_tensor *T, const int *batch, int nb, const int *rest, int nr)
{
    if (T->rank != nb + nr || T->view_of >= 0)
        return false;
    for (int i = 0; i < nb; i++)
        if (T->axes[i] != batch[i])
            return false;
    for (int i = 0; i < nr; i++)
        if (T->axes[nb + i] != rest[i])
            return false;
    return true;
}

bool pt_kcombine_read(pt_kcombine *c, const pt_graph *g, const char *who, pt_error *err)
{
    const pt_op *o = g->ops;
    c->X = o[0].in[0];
    c->Y = o[4].in[0] == o[2].out ? o[4].in[1] : o[4].in[0];
    c->O = o[6].out;
    c->ax_s = o[0].axis;
    const pt_tensor *O = &g->tensors[c->O], *X = &g->tensors[c->X], *Y = &g->tensors[c->Y];
    if (O->rank < 2)
        KREFUSE("%s: the combined output \"%s\" must be [batch..., rows, head dim]", who, O->name);
    int nb = O->rank - 2;
    c->ax_g = O->axes[nb];
    c->ax_d = O->axes[nb + 1];
    const int xs[2] = {c->ax_s, c->ax_g}, ys[3] = {c->ax_s, c->ax_g, c->ax_d};
    if (!shaped(X, O->axes, nb, xs, 2) || X->dtype != PT_F32)
        KREFUSE("%s: the log-sum-exps \"%s\" must be f32 [%s's batch axes..., %s, %s]", who,
                X->name, O->name, g->axes[c->ax_s].name, g->axes[c->ax_g].name);
    if (!shaped(Y, O->axes, nb, ys, 3) || Y->dtype != PT_F32)
        KREFUSE("%s: the partial outputs \"%s\" must be f32 [%s's batch axes..., %s, %s, %s]", who,
                Y->name, O->name, g->axes[c->ax_s].name, g->axes[c->ax_g].name,
                g->axes[c->ax_d].name);
    c->out_dt = O->dtype;
    if (c->out_dt != PT_F16 && c->out_dt != PT_BF16 && c->out_dt != PT_F32)
        KREFUSE("%s: \"%s\" must be f16, bf16 or f32 (it is %s)", who, O->name,
                pt_dtype_name(c->out_dt));
    c->B = 1;
    for (int i = 0; i < nb; i++)
        c->B *= g->axes[O->axes[i]].extent;
    c->S = g->axes[c->ax_s].extent;
    c->G = g->axes[c->ax_g].extent;
    c->D = g->axes[c->ax_d].extent;
    return true;
}

bool pt_kcombine_check_role(const pt_kprog *kp, int O, const char *who, const char *role,
                            pt_error *err)
{
    const pt_krole *R = &kp->consumer[0];
    bool seen[6] = {false};
    for (int i = 0; i < R->n_tasks; i++) {
        int op = R->tasks[i].op;
        if (op < 0 || op > 5 || seen[op])
            KREFUSE("%s: %s: expected one sTask of each combine op before the output's", who,
                    kp->sg->tasks[R->tasks[i].stask].id);
        seen[op] = true;
    }
    if (R->n_tasks != 6 || R->epilogue.op != 6)
        KREFUSE("%s: %s must run the six combine sTasks, then the one writing \"%s\"", who, role,
                kp->g->tensors[O].name);
    return true;
}
