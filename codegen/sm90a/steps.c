/* steps.c — a consumer role's step program printed as its loop (see steps.h). */
#include <stdio.h>
#include <string.h>

#include "steps.h"

typedef sm90a_step_ctx step_ctx;

int sm90a_step_slot(const step_ctx *c, int offset, int slots)
{
    if (slots == 1)
        return 0;
    int first = -c->st->sh->kp->c_off_max; /* the loop's first v; this copy has v = first + parity (mod 2) */
    return (((first + c->parity + offset) % 2) + 2) % 2;
}

/* pt::keep_all of a register array: pins its registers at this point (after a wgmma wait,
 * before a fence) so the compiler moves no register code across. */
static void emit_keep(strbuf *sb, const char *ind, const char *array, int slot)
{
    if (slot >= 0)
        sb_printf(sb, "%spt::keep_all(%s%d);\n", ind, array, slot);
    else
        sb_printf(sb, "%spt::keep_all(%s);\n", ind, array);
}

/* What a completed group wrote: its value's registers pinned (the slot of the group's
 * iteration where the value has slots). */
static void keep_done(strbuf *sb, const step_ctx *c, const pt_kgroup *g)
{
    const pt_kprog *kp = c->st->sh->kp;
    const pt_ktask *e = &kp->consumer[c->w].tasks[g->task];
    if (e->out < 0 || !c->st->val_name[e->out])
        return;
    const pt_kval *V = &kp->vals[e->out];
    emit_keep(sb, "            ", c->st->val_name[e->out],
              V->kind == PT_KVAL_ITER ? sm90a_step_slot(c, e->offset + g->step, V->slots) : -1);
}

/* A completed group's ring stages handed back to the producer (empty barriers), counted from
 * the ring's base of this tile (<ring>base + iteration). */
static void emit_release(strbuf *sb, const step_ctx *c, const pt_kgroup *gr, const char *ind,
                         const char *vexpr)
{
    const pt_kprog *kp = c->st->sh->kp;
    const pt_ktask *e = &kp->consumer[c->w].tasks[gr->task];
    int rings[PT_KTASK_INS], n = pt_kprog_task_rings(kp, e, rings);
    for (int r = 0; r < n; r++) {
        char lo[8], up[8];
        sm90a_buf_name(c->st->sh, rings[r], lo, up, sizeof lo);
        sb_printf(sb, "%s{   const int i = %s + %d;  // %s of iteration i is complete: release its %s stage\n"
                      "%s    if (i >= 0 && i < n_iter) {\n"
                      "%s        PT_REC(%d, %d, n_tile, i, 1);\n"
                      "%s        if (lead)\n"
                      "%s            pt::mbar_arrive(&empty_%s[(%sbase + (uint32_t)i) %% STAGES_%s]);\n"
                      "%s    }\n"
                      "%s}\n",
                  ind, vexpr, gr->step + e->offset, kp->sg->tasks[e->stask].id, up, ind, ind,
                  e->stask, e->lane, ind, ind, lo, lo, up, ind, ind);
    }
    /* the stages the CUDA cores read for this group's operands go back with it, each warp's, in
     * one guarded block (pass_step.c, decision 4: only now have the warp's loads surely
     * returned) */
    const pt_krole *R = &kp->consumer[c->w];
    int with[PT_KP_MAX_TASKS], nw = 0;
    for (int t = 0; t < R->n_tasks; t++)
        if (R->release_with[t] == gr->task)
            with[nw++] = t;
    if (!nw)
        return;
    char readers[160] = "";
    for (int j = 0, len = 0; j < nw && len < (int)sizeof readers; j++)
        len += snprintf(readers + len, sizeof readers - (size_t)len, "%s%s", len ? ", " : "",
                        kp->sg->tasks[R->tasks[with[j]].stask].id);
    sb_printf(sb, "%s{   const int i = %s + %d;  // %s of iteration i is complete: the stages %s read go back\n"
                  "%s    if (i >= 0 && i < n_iter) {\n"
                  "%s        __syncwarp();\n"
                  "%s        if (lane == 0) {\n",
              ind, vexpr, gr->step + e->offset, kp->sg->tasks[e->stask].id, readers, ind, ind, ind);
    for (int j = 0; j < nw; j++) {
        n = pt_kprog_task_rings(kp, &R->tasks[with[j]], rings);
        for (int r = 0; r < n; r++) {
            char lo[8], up[8];
            sm90a_buf_name(c->st->sh, rings[r], lo, up, sizeof lo);
            sb_printf(sb, "%s            pt::mbar_arrive(&empty_%s[(%sbase + (uint32_t)i) %% STAGES_%s]);\n",
                      ind, lo, lo, up);
        }
    }
    sb_printf(sb, "%s        }\n%s    }\n%s}\n", ind, ind, ind);
}

/* The carried values written by asynchronous tasks (accumulators), pinned once the last
 * groups completed. */
static void keep_tail(strbuf *sb, const step_ctx *c)
{
    const pt_kprog *kp = c->st->sh->kp;
    const pt_krole *R = &kp->consumer[c->w];
    bool done[PT_KP_MAX_VALS] = {false};
    for (int i = 0; i < R->n_tasks; i++) {
        int v = R->tasks[i].out;
        if (v >= 0 && R->tasks[i].async && kp->vals[v].kind == PT_KVAL_CARRIED && !done[v] &&
            c->st->val_name[v]) {
            emit_keep(sb, "            ", c->st->val_name[v], -1);
            done[v] = true;
        }
    }
}

static void emit_step(strbuf *sb, const step_ctx *c)
{
    const pt_kprog *kp = c->st->sh->kp;
    const pt_krole *W = &kp->consumer[c->w];
    for (int k = 0; k < c->n_ops; k++) {
        const pt_kop *op = &c->ops[k];
        switch (op->kind) {
        case PT_KOP_WAIT:
            if (op->arg == 0)
                sb_puts(sb, "            pt::wgmma_wait<0>();  // every wgmma group committed so far done\n");
            else
                sb_printf(sb, "            pt::wgmma_wait<%d>();  // all but the newest %d wgmma group%s done\n",
                          op->arg, op->arg, op->arg == 1 ? "" : "s");
            for (int d = 0; d < op->n_done; d++) {
                keep_done(sb, c, &op->done[d]);
                emit_release(sb, c, &op->done[d], "            ", "v");
            }
            break;
        case PT_KOP_XSYNC: {
            const pt_kxwait *x = &kp->xw[op->arg];
            sb_printf(sb, "            // Wait across warpgroups: %s waits for warpgroup %d's %s%s (issue order on the tensor cores)\n"
                          "            if (v + %d - %d >= 0 && v + %d < n_iter)\n"
                          "                pt::named_sync(%d + xs%d++ %% %d, 256);\n",
                      kp->sg->tasks[W->tasks[x->waiter].stask].id, x->wa,
                      kp->sg->tasks[kp->consumer[x->wa].tasks[x->on].stask].id,
                      x->distance ? " of an earlier iteration" : "", W->tasks[x->waiter].offset,
                      x->distance, W->tasks[x->waiter].offset, x->bar_base, op->arg, x->ring);
            break;
        }
        case PT_KOP_XARRIVE: {
            const pt_kxwait *x = &kp->xw[op->arg];
            sb_printf(sb, "            // %s issued: let warpgroup %d's %s go\n"
                          "            if (v + %d >= 0 && v + %d + %d < n_iter)\n"
                          "                pt::named_arrive(%d + xa%d++ %% %d, 256);\n",
                      kp->sg->tasks[W->tasks[x->on].stask].id, x->wb,
                      kp->sg->tasks[kp->consumer[x->wb].tasks[x->waiter].stask].id, W->tasks[x->on].offset,
                      W->tasks[x->on].offset, x->distance, x->bar_base, op->arg, x->ring);
            break;
        }
        case PT_KOP_TASK:
            c->st->task(sb, c, &W->tasks[op->arg]);
            break;
        }
    }
}

/* Prints one step copy (entries of `present`, NULL: all) and advances the groups in flight. */
static void emit_copy(strbuf *sb, const sm90a_steps *st, int w, const bool *present, int parity,
                      const char *vdef, pt_kgroup *pend, int *np)
{
    pt_kop ops[PT_KP_MAX_OPS];
    int n = pt_kprog_step(st->sh->kp, w, present, pend, np, ops);
    step_ctx c = {st, w, parity, ops, n < 0 ? 0 : n};
    sb_printf(sb, "            {\n            const int v = %s;\n", vdef);
    emit_step(sb, &c);
    sb_puts(sb, "            }\n");
}

/* After the last step: every group still in flight completes and its stage is released. */
static void emit_tail(strbuf *sb, const sm90a_steps *st, int w, const pt_kgroup *pend, int np)
{
    sb_puts(sb, "            pt::wgmma_wait<0>();  // loop done: the groups still in flight complete\n");
    step_ctx c = {st, w, 0, NULL, 0};
    keep_tail(sb, &c);
    for (int k = 0; k < np; k++)
        emit_release(sb, &c, &pend[k], "            ", "v_last");
}

/* The loop over the tile's iterations: F = c_off_max - c_off_min fill steps (entries of negative
 * iterations left out), `peel` whole steps until the groups in flight are the steady ones,
 * the steady loop (two steps per turn with a two-slot S ring), F drain steps (entries past the
 * last iteration left out). Tiles with fewer key blocks get straight-line copies. */
void sm90a_emit_steps(strbuf *sb, const sm90a_steps *st, int w)
{
    const pt_kprog *kp = st->sh->kp;
    const pt_krole *W = &kp->consumer[w];
    int F = kp->c_off_max - kp->c_off_min, first = -kp->c_off_max, P = W->peel;
    int two = kp->unroll == 2;
    char vdef[96];
    bool present[PT_KP_MAX_TASKS];
    pt_kgroup pend[PT_KP_MAX_PENDING];
    int np = 0;
    sb_printf(sb, "            const int v_last = n_iter - %d - 1;  // the last step run\n"
                  "            (void)v_last;\n"
                  "            if (n_iter > %d) {\n", kp->c_off_min, F + P);
    for (int k = 0; k < F; k++) {
        for (int e = 0; e < W->n_tasks; e++)
            present[e] = first + k + W->tasks[e].offset >= 0;
        snprintf(vdef, sizeof vdef, "%d", first + k);
        emit_copy(sb, st, w, present, k % 2, vdef, pend, &np);
    }
    for (int k = 0; k < P; k++) {
        snprintf(vdef, sizeof vdef, "%d", first + F + k);
        emit_copy(sb, st, w, NULL, (F + k) % 2, vdef, pend, &np);
    }
    /* pend is now the steady state: the loop body's waits assume it */
    int start = first + F + P;
    if (!two) {
        sb_printf(sb, "            for (int v0 = %d; v0 < n_iter - %d; ++v0) {\n", start, kp->c_off_max);
        emit_copy(sb, st, w, NULL, 0, "v0", pend, &np);
        sb_puts(sb, "            }\n");
        for (int k = 0; k < F; k++) {
            for (int e = 0; e < W->n_tasks; e++)
                present[e] = k + W->tasks[e].offset < kp->c_off_max;
            snprintf(vdef, sizeof vdef, "n_iter - %d + %d", kp->c_off_max, k);
            emit_copy(sb, st, w, present, 0, vdef, pend, &np);
        }
        emit_tail(sb, st, w, pend, np);
    } else {
        int pf = (F + P) % 2;
        sb_printf(sb, "            // Two steps per turn: the S ring slot of every entry is a constant.\n"
                      "            int v0 = %d;\n"
                      "            for (; v0 + 1 < n_iter - %d; v0 += 2) {\n",
                  start, kp->c_off_max);
        emit_copy(sb, st, w, NULL, pf, "v0", pend, &np);
        emit_copy(sb, st, w, NULL, pf ^ 1, "v0 + 1", pend, &np);
        sb_puts(sb, "            }\n");
        pt_kgroup steady[PT_KP_MAX_PENDING];
        int nsteady = np;
        memcpy(steady, pend, sizeof pend[0] * (size_t)np);
        for (int odd = 1; odd >= 0; odd--) {
            memcpy(pend, steady, sizeof pend[0] * (size_t)nsteady);
            np = nsteady;
            /* a plain else: ptxas must see that every path waits for the groups in flight */
            if (odd)
                sb_printf(sb, "            if ((n_iter - %d) & 1) {\n", F + P);
            else
                sb_puts(sb, "            else {\n");
            int npar = (F + P + odd) % 2; /* parity of n_iter in this branch */
            if (odd) {
                snprintf(vdef, sizeof vdef, "n_iter - %d - 1", kp->c_off_max);
                emit_copy(sb, st, w, NULL, (npar + 1) % 2, vdef, pend, &np);
            }
            for (int k = 0; k < F; k++) {
                for (int e = 0; e < W->n_tasks; e++)
                    present[e] = k + W->tasks[e].offset < kp->c_off_max;
                snprintf(vdef, sizeof vdef, "n_iter - %d + %d", kp->c_off_max, k);
                emit_copy(sb, st, w, present, (npar + k) % 2, vdef, pend, &np);
            }
            emit_tail(sb, st, w, pend, np);
            sb_puts(sb, "            }\n");
        }
    }
    sb_puts(sb, "            }\n");
    for (int small = 1; small <= F + P; small++) {
        if (small < F + P)
            sb_printf(sb, "            else if (n_iter == %d) {\n", small);
        else
            sb_printf(sb, "            else {  // n_iter == %d\n", small);
        np = 0;
        for (int k = 0; k < small + F; k++) {
            for (int e = 0; e < W->n_tasks; e++) {
                int i = first + k + W->tasks[e].offset;
                present[e] = i >= 0 && i < small;
            }
            snprintf(vdef, sizeof vdef, "%d", first + k);
            emit_copy(sb, st, w, present, k % 2, vdef, pend, &np);
        }
        emit_tail(sb, st, w, pend, np);
        sb_puts(sb, "            }\n");
    }
}

void sm90a_emit_xwait_counters(strbuf *sb, const pt_kprog *kp, int w, const char *ind)
{
    for (int x = 0; x < kp->n_xwaits; x++) {
        if (kp->xw[x].wb == w)
            sb_printf(sb, "%suint32_t xs%d = 0;  // syncs done on cross Wait %d's barrier ring\n", ind, x, x);
        if (kp->xw[x].wa == w)
            sb_printf(sb, "%suint32_t xa%d = 0;  // arrivals on cross Wait %d's barrier ring\n", ind, x, x);
    }
}
