/* decay_form.c — the exp_decay chain the factored form applies to (decay_form.h). */
#include "decay_form.h"

#include <string.h>

const char *pt_decay_form_name(pt_decay_form f)
{
    return f == PT_DECAY_FACTORED16 ? "factored16" : f == PT_DECAY_FACTORED ? "factored" : "tile";
}

bool pt_decay_form_parse(const char *s, pt_decay_form *out)
{
    if (!s)
        return false;
    if (strcmp(s, "tile") == 0)
        *out = PT_DECAY_TILE;
    else if (strcmp(s, "factored") == 0)
        *out = PT_DECAY_FACTORED;
    else if (strcmp(s, "factored16") == 0)
        *out = PT_DECAY_FACTORED16;
    else
        return false;
    return true;
}

/* The one op reading tensor t, -1 when none or several do. */
static int sole_reader(const pt_graph *g, int t)
{
    int r = -1;
    for (int o = 0; o < g->n_ops; o++)
        for (int i = 0; i < g->ops[o].n_in; i++)
            if (g->ops[o].in[i] == t) {
                if (r >= 0 && r != o)
                    return -1;
                r = o;
            }
    return r;
}

/* Does tensor t vary only along axis a among the axes that are no batch axes? */
static bool vector_along(const pt_graph *g, const pt_tensor *t, int a)
{
    bool has = false;
    for (int i = 0; i < t->rank; i++) {
        if (t->axes[i] == a)
            has = true;
        else if (!g->axes[t->axes[i]].batch)
            return false;
    }
    return has;
}

/* The operand of binary op o other than tensor t. */
static int other_in(const pt_op *o, int t)
{
    return o->in[0] == t ? o->in[1] : o->in[0];
}

bool pt_decay_chain_find(const pt_graph *g, pt_decay_chain *c, pt_error *err)
{
    c->op_decay = c->op_tile = c->op_vec = c->op_matmul = -1;
    for (int o = 0; o < g->n_ops; o++)
        if (g->ops[o].kind == PT_OP_EXP_DECAY) {
            if (c->op_decay >= 0)
                return pt_fail(err, "decay \"factored\": graph %s has two exp_decay ops; expected one",
                               g->name);
            c->op_decay = o;
        }
    if (c->op_decay < 0)
        return pt_fail(err, "decay \"factored\": graph %s has no exp_decay op", g->name);
    const pt_op *d = &g->ops[c->op_decay];
    const char *dn = g->tensors[d->out].name;
    int m1 = sole_reader(g, d->out);
    if (m1 < 0 || g->ops[m1].kind != PT_OP_MUL || g->ops[m1].n_in != 2 ||
        g->ops[m1].in[0] == g->ops[m1].in[1])
        return pt_fail(err, "decay \"factored\": \"%s\" must be read by one op, a multiply with a "
                            "tile", dn);
    const pt_tensor *T = &g->tensors[other_in(&g->ops[m1], d->out)];
    if (T->role != PT_ROLE_INPUT || !pt_tensor_has_axis(T, d->row_axis) ||
        !pt_tensor_has_axis(T, d->col_axis))
        return pt_fail(err, "decay \"factored\": op %s multiplies \"%s\" by \"%s\"; expected an "
                            "input with axes %s and %s", g->ops[m1].name, dn, T->name,
                       g->axes[d->row_axis].name, g->axes[d->col_axis].name);
    int pw = g->ops[m1].out, m2 = sole_reader(g, pw);
    if (m2 < 0 || g->ops[m2].kind != PT_OP_MUL || g->ops[m2].n_in != 2 ||
        g->ops[m2].in[0] == g->ops[m2].in[1])
        return pt_fail(err, "decay \"factored\": \"%s\" must be read by one op, a multiply with a "
                            "vector along %s", g->tensors[pw].name, g->axes[d->col_axis].name);
    const pt_tensor *W = &g->tensors[other_in(&g->ops[m2], pw)];
    if (!vector_along(g, W, d->col_axis))
        return pt_fail(err, "decay \"factored\": op %s multiplies \"%s\" by \"%s\"; expected a "
                            "vector along %s", g->ops[m2].name, g->tensors[pw].name, W->name,
                       g->axes[d->col_axis].name);
    int mm = sole_reader(g, g->ops[m2].out);
    if (mm < 0 || g->ops[mm].kind != PT_OP_MATMUL || g->ops[mm].n_reduce != 1 ||
        g->ops[mm].reduce_axes[0] != d->col_axis)
        return pt_fail(err, "decay \"factored\": \"%s\" must feed one matmul over %s (the row "
                            "factor then scales its result)", g->tensors[g->ops[m2].out].name,
                       g->axes[d->col_axis].name);
    c->op_tile = m1;
    c->op_vec = m2;
    c->op_matmul = mm;
    return true;
}
