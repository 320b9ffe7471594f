/* pass_step.c — each consumer role's step program: the one instruction stream its warpgroup
 * runs per loop step.
 *
 * Design. A role runs its tasks once per loop step v; a task at iteration offset o processes
 * iteration v + o there, which is how the sProgram writes software pipelining. Three
 * decisions make that stream:
 *
 * 1. Order (pt_kpass_order): the role's lanes merged into one issue order that keeps each
 *    lane's order and puts every same-step dependency before its user; asynchronous tasks
 *    (tensor-core groups) go first whenever two could, so they overlap the synchronous work
 *    after them.
 * 2. Register rings: a value made each iteration (scores S, softmax state, P) is live from its
 *    writer to its last reader; the offsets between them say how many iterations are live at
 *    once, and an asynchronous reader (P.V reads P from registers) holds its slot until it
 *    completes. Each value gets that many slots (at most 2).
 * 3. Waits (pt_kprog_step): a task that reads what an asynchronous group writes, or overwrites
 *    a slot one still reads, waits for it first (wait_group N); the groups it completes release
 *    the ring stages they read. At the end of a step at most `carry` groups stay in flight
 *    (stage_hold.h: one for a GEMM whose rings allow it, else none: ptxas tracks groups only
 *    within straight-line code and serialises every wgmma when a register touched in a loop
 *    may be written across the back edge).
 *
 * 4. Release points (release_points): a stage a task reads on the CUDA cores (ld.shared,
 *    ldmatrix into registers) is handed back to the producer by each warp's arrival on its
 *    empty barrier. ptxas issues that arrival without waiting for the loads' results, and the
 *    producer's next TMA fill of the stage can then land before a load has read it: measured on
 *    H100, a three-warpgroup ChunkScan whose warps handed CB's stage back right after their
 *    ldmatrix lost up to 1e4 elements a launch (bench/mamba2/results-2026-12-07-s47). So a
 *    stage whose values flow into an asynchronous group of the same iteration is handed back
 *    when that group completes (it consumed registers made from the loads, so they have
 *    returned); the reader's other stages go back once read, after a proxy fence
 *    (fence.proxy.async also waits for the loads), which costs about 2% in a ChunkScan where
 *    the deferral costs nothing. The deferral holds a stage until the group's wait, so it is
 *    taken only where the ring has stages enough that the producer never waits on it for an
 *    iteration the role reads before that wait, and only where the rings still make progress
 *    with it. That choice is the stage contract's (src/stage_hold.h, pt_stage_release_group),
 *    so the validator proves and the simulator times the release the kernel makes.
 *
 * pt_kpass_step runs the step from nothing in flight until the groups pending at its start
 * repeat (the steady state), and counts the steps a printer peels before its loop. */
#include <stdio.h>
#include <string.h>

#include "passes.h"

bool pt_kprog_depends(const pt_kprog *kp, int b, int a, int *distance)
{
    const pt_stask *t = &kp->sg->tasks[b];
    for (int i = 0; i < t->n_deps; i++)
        if (t->deps[i].from == a) {
            *distance = t->deps[i].distance;
            return true;
        }
    for (int i = 0; i < kp->p->n_waits; i++)
        if (kp->p->waits[i].stask == b && kp->p->waits[i].on == a) {
            *distance = kp->p->waits[i].distance;
            return true;
        }
    return false;
}

int pt_kprog_task_rings(const pt_kprog *kp, const pt_ktask *t, int *rings)
{
    int n = 0;
    for (int i = 0; i < t->n_in; i++)
        if (t->in[i].kind == PT_KSRC_BUF && kp->bufs[t->in[i].index].kind == PT_KBUF_RING)
            rings[n++] = t->in[i].index;
    return n;
}

static bool reads(const pt_ktask *t, int val)
{
    for (int i = 0; i < t->n_in; i++)
        if (t->in[i].kind == PT_KSRC_VAL && t->in[i].index == val)
            return true;
    return false;
}

/* Decision 1: lane order kept, same-step dependencies first, asynchronous tasks early. */
static bool merge(pt_kprog *kp, pt_krole *R, const char *who, pt_error *err)
{
    int n = R->n_tasks;
    bool pred[PT_KP_MAX_TASKS][PT_KP_MAX_TASKS] = {{false}}; /* pred[b][a]: a before b */
    for (int b = 0; b < n; b++)
        for (int a = 0; a < n; a++) {
            int d;
            if (a == b || !pt_kprog_depends(kp, R->tasks[b].stask, R->tasks[a].stask, &d))
                continue;
            int gap = R->tasks[b].offset - R->tasks[a].offset; /* steps b runs ahead of a */
            if (gap > d)
                KREFUSE("%s: %s at iteration offset %+d needs %s%s at offset %+d, which runs in "
                        "a later loop step: the offsets contradict the dependency", who,
                        kp->sg->tasks[R->tasks[b].stask].id, R->tasks[b].offset,
                        kp->sg->tasks[R->tasks[a].stask].id, d ? " of an earlier iteration" : "",
                        R->tasks[a].offset);
            if (gap == d)
                pred[b][a] = true;
        }
    for (int b = 0; b < n; b++)
        for (int a = 0; a < b; a++)
            if (R->tasks[a].lane == R->tasks[b].lane)
                pred[b][a] = true; /* tasks were collected in lane order */
    pt_ktask order[PT_KP_MAX_TASKS];
    bool placed[PT_KP_MAX_TASKS] = {false};
    for (int k = 0; k < n; k++) {
        int pick = -1;
        for (int pass = 0; pass < 2 && pick < 0; pass++)
            for (int b = 0; b < n && pick < 0; b++) {
                if (placed[b] || (pass == 0 && !R->tasks[b].async))
                    continue;
                bool ready = true;
                for (int a = 0; a < n; a++)
                    ready &= !pred[b][a] || placed[a];
                if (ready)
                    pick = b;
            }
        if (pick < 0)
            KREFUSE("%s: warpgroup %d: its lane orders and Waits leave no order to issue in one "
                    "step", who, R->wg);
        placed[pick] = true;
        order[k] = R->tasks[pick];
    }
    memcpy(R->tasks, order, sizeof order[0] * (size_t)n);
    return true;
}

/* Decision 2: the slots of each per-iteration value, over every role. */
static void value_slots(pt_kprog *kp, const pt_krole *R)
{
    for (int a = 0; a < R->n_tasks; a++) {
        int v = R->tasks[a].out;
        if (v < 0 || kp->vals[v].kind != PT_KVAL_ITER)
            continue;
        for (int b = 0; b < R->n_tasks; b++) {
            if (!reads(&R->tasks[b], v))
                continue;
            int gap = R->tasks[a].offset - R->tasks[b].offset, slots = gap + 1;
            /* the writer of iteration i + 1 may run while an asynchronous reader of i still
             * reads: at one offset, when the writer comes after the reader in the step */
            if (R->tasks[b].async && gap == 0 && a > b)
                slots++;
            /* a synchronous reader earlier in the step is done with its iteration before the
             * writer makes a later one: one slot fewer (a chain split across offsets keeps one
             * register copy of its step, not two) */
            else if (!R->tasks[b].async && gap > 0 && b < a)
                slots--;
            if (slots > kp->vals[v].slots)
                kp->vals[v].slots = slots;
        }
    }
}

static const char *val_name(const pt_kprog *kp, const pt_kval *v)
{
    if (v->tensor >= 0)
        return kp->g->tensors[v->tensor].name;
    return v->kind == PT_KVAL_ITER ? "softmax state" : "row sum";
}

/* A target whose tensor core is synchronous (MI300X's MFMA: the wave waits for its result)
 * has no groups to keep in flight: every reader is done when issued, so its stages are released
 * in its own step, never later than the contract's lag allows. */
static void synchronous_readers(pt_kprog *kp)
{
    for (int w = 0; w < kp->wgs; w++)
        for (int i = 0; i < kp->consumer[w].n_tasks; i++)
            if (kp->consumer[w].tasks[i].async)
                return;
    kp->carry = 0;
    for (int b = 0; b < kp->n_bufs; b++)
        kp->bufs[b].lag = 0;
}

bool pt_kpass_order(pt_kprog *kp, const char *who, pt_error *err)
{
    if (kp->sg->loop_axis < 0) { /* every task once per tile, synchronous, in lane order */
        kp->loop = PT_KLOOP_NONE;
        kp->unroll = 1;
        kp->c_off_min = kp->c_off_max = kp->carry = 0;
        for (int w = 0; w < kp->wgs; w++)
            for (int i = 0; i < kp->consumer[w].n_tasks; i++)
                if (kp->consumer[w].tasks[i].async || kp->consumer[w].tasks[i].offset)
                    KREFUSE("%s: %s in a graph without a loop must be synchronous, at offset 0",
                            who, kp->sg->tasks[kp->consumer[w].tasks[i].stask].id);
        return true;
    }
    kp->c_off_min = 1 << 20;
    kp->c_off_max = -(1 << 20);
    synchronous_readers(kp);
    bool guarded = true;
    for (int w = 0; w < kp->wgs; w++) {
        pt_krole *R = &kp->consumer[w];
        if (!merge(kp, R, who, err))
            return false;
        value_slots(kp, R);
        for (int i = 0; i < R->n_tasks; i++) {
            int o = R->tasks[i].offset;
            kp->c_off_min = o < kp->c_off_min ? o : kp->c_off_min;
            kp->c_off_max = o > kp->c_off_max ? o : kp->c_off_max;
            guarded &= o == 0;
        }
        guarded &= R->n_tasks == 1 && R->tasks[0].body == PT_KB_MMA;
    }
    kp->unroll = 1;
    for (int v = 0; v < kp->n_vals; v++) {
        const pt_kval *V = &kp->vals[v];
        if (V->kind != PT_KVAL_ITER)
            continue;
        guarded = false;
        if (V->slots > 2)
            KREFUSE("%s: the iteration offsets keep %d tiles of %s live per warpgroup; registers "
                    "hold at most 2", who, V->slots, val_name(kp, V));
        kp->unroll = V->slots > kp->unroll ? V->slots : kp->unroll;
    }
    kp->loop = guarded ? PT_KLOOP_GUARDED : PT_KLOOP_PEELED;
    if (kp->carry && !guarded)
        KREFUSE("%s: the stage contract keeps an asynchronous group in flight across a step; a "
                "step with more than its mma retires every group inside it", who);
    /* one wait releases every ring an asynchronous task read: they must agree on when */
    for (int w = 0; w < kp->wgs; w++)
        for (int i = 0; i < kp->consumer[w].n_tasks; i++) {
            int rings[PT_KTASK_INS], n = pt_kprog_task_rings(kp, &kp->consumer[w].tasks[i], rings);
            for (int k = 0; k < n; k++)
                if (kp->bufs[rings[k]].lag != kp->carry)
                    KREFUSE("%s: stages of %s would be released %d iteration(s) late while its "
                            "reader's groups retire after %d; one wait releases every stage a "
                            "group read", who, kp->g->tensors[kp->bufs[rings[k]].tensor].name,
                            kp->bufs[rings[k]].lag, kp->carry);
        }
    return true;
}

#define ADD_OP(...)                                                                              \
    do {                                                                                         \
        if (n_ops == PT_KP_MAX_OPS)                                                              \
            return -1;                                                                           \
        ops[n_ops++] = (pt_kop)__VA_ARGS__;                                                      \
    } while (0)

/* A wait completing pend[0..last]: appended to ops, pend shifted. */
static bool complete(pt_kgroup *pend, int *np, int last, pt_kop *op)
{
    if (last + 1 > 4)
        return false;
    *op = (pt_kop){PT_KOP_WAIT, *np - last - 1, 0, {{0, 0}}};
    for (int k = 0; k <= last; k++)
        op->done[op->n_done++] = pend[k];
    memmove(pend, pend + last + 1, sizeof pend[0] * (size_t)(*np - last - 1));
    *np -= last + 1;
    return true;
}

/* The newest pending group task b must see complete, -1. */
static int needed(const pt_kprog *kp, const pt_krole *R, int b, const pt_kgroup *pend, int np)
{
    int need = -1;
    const pt_ktask *B = &R->tasks[b];
    for (int a = 0; a < R->n_tasks; a++) {
        const pt_ktask *A = &R->tasks[a];
        int d;
        if (a == b || !A->async)
            continue;
        if (B->out >= 0 && kp->vals[B->out].kind == PT_KVAL_ITER && reads(A, B->out))
            d = kp->vals[B->out].slots; /* B(i) rewrites the slot A(i - slots) reads */
        else if (!pt_kprog_depends(kp, B->stask, A->stask, &d))
            continue;
        int rel = B->offset - d - A->offset; /* the step A's instance ran in */
        for (int k = 0; k < np; k++)
            if (pend[k].task == a && pend[k].step == rel && k > need)
                need = k;
    }
    return need;
}

int pt_kprog_step(const pt_kprog *kp, int w, const bool *present, pt_kgroup *pend, int *np_io,
                  pt_kop *ops)
{
    const pt_krole *R = &kp->consumer[w];
    int np = *np_io, n_ops = 0;
    for (int i = 0; i < np; i++)
        pend[i].step -= 1;
    for (int b = 0; b < R->n_tasks; b++) {
        if (present && !present[b])
            continue;
        int need = needed(kp, R, b, pend, np);
        if (need >= 0) {
            pt_kop op;
            if (!complete(pend, &np, need, &op))
                return -1;
            ADD_OP(op);
        }
        for (int x = 0; x < kp->n_xwaits; x++)
            if (kp->xw[x].wb == w && kp->xw[x].waiter == b)
                ADD_OP({PT_KOP_XSYNC, x, 0, {{0, 0}}});
        ADD_OP({PT_KOP_TASK, b, 0, {{0, 0}}});
        if (R->tasks[b].async) {
            if (np == PT_KP_MAX_PENDING)
                return -1;
            pend[np++] = (pt_kgroup){b, 0};
        }
        for (int x = 0; x < kp->n_xwaits; x++)
            if (kp->xw[x].wa == w && kp->xw[x].on == b)
                ADD_OP({PT_KOP_XARRIVE, x, 0, {{0, 0}}});
    }
    /* decision 3: at most `carry` groups cross into the next step */
    int last = np - 1 - kp->carry;
    if (last >= 0) {
        pt_kop op;
        if (!complete(pend, &np, last, &op))
            return -1;
        ADD_OP(op);
    }
    *np_io = np;
    return n_ops;
}

#undef ADD_OP

bool pt_kprog_same_pending(const pt_kgroup *a, int na, const pt_kgroup *b, int nb)
{
    if (na != nb)
        return false;
    for (int i = 0; i < na; i++)
        if (a[i].task != b[i].task || a[i].step != b[i].step)
            return false;
    return true;
}

/* The steady state of role w, and the steps peeled after the fill until it holds. */
static bool steady(pt_kprog *kp, int w, const char *who, pt_error *err)
{
    pt_krole *R = &kp->consumer[w];
    pt_kgroup pend[PT_KP_MAX_PENDING], prev[PT_KP_MAX_PENDING];
    int np = 0, nprev = -1;
    for (int pass = 0; pass < 8; pass++) {
        memcpy(prev, pend, sizeof pend[0] * (size_t)np);
        nprev = np;
        R->n_ops = pt_kprog_step(kp, w, NULL, pend, &np, R->ops);
        if (R->n_ops < 0)
            KREFUSE("%s: warpgroup %d: too many asynchronous groups in flight or too long a step",
                    who, w);
        if (pass > 0 && pt_kprog_same_pending(prev, nprev, pend, np))
            break;
    }
    if (!pt_kprog_same_pending(prev, nprev, pend, np))
        KREFUSE("%s: warpgroup %d: the groups in flight never settle into a steady state", who, w);
    R->n_steady = np;
    memcpy(R->steady, pend, sizeof pend[0] * (size_t)np);
    int F = kp->c_off_max - kp->c_off_min, first = -kp->c_off_max;
    pt_kop ops[PT_KP_MAX_OPS];
    np = 0;
    for (int k = 0; k < F; k++) {
        bool present[PT_KP_MAX_TASKS];
        for (int e = 0; e < R->n_tasks; e++)
            present[e] = first + k + R->tasks[e].offset >= 0;
        if (pt_kprog_step(kp, w, present, pend, &np, ops) < 0)
            KREFUSE("%s: warpgroup %d: too many asynchronous groups in flight", who, w);
    }
    R->peel = 0;
    while (!pt_kprog_same_pending(pend, np, R->steady, R->n_steady)) {
        if (++R->peel > 4)
            KREFUSE("%s: warpgroup %d: the loop does not reach its steady state", who, w);
        if (pt_kprog_step(kp, w, NULL, pend, &np, ops) < 0)
            KREFUSE("%s: warpgroup %d: too many asynchronous groups in flight", who, w);
    }
    for (int i = 0; i < R->n_ops; i++)
        if (R->ops[i].kind == PT_KOP_WAIT && R->ops[i].arg > 7)
            KREFUSE("%s: warpgroup %d: a wait leaves %d groups in flight; at most 7", who, w,
                    R->ops[i].arg);
    return true;
}

/* Decision 4 (the head comment), taken once for the model and the generators by
 * pt_stage_release_group (src/stage_hold.h): for each synchronous task of role w that reads
 * ring stages, the asynchronous task whose group's completion hands them back, or -1. */
static bool release_points(pt_kprog *kp, int w, const char *who, pt_error *err)
{
    pt_krole *R = &kp->consumer[w];
    for (int e = 0; e < R->n_tasks; e++) {
        const pt_ktask *E = &R->tasks[e];
        int rings[PT_KTASK_INS];
        if (E->async || !pt_kprog_task_rings(kp, E, rings))
            continue;
        int grp = pt_stage_release_group(kp->p, kp->sg, &kp->hold, kp->hw, E->stask), m = -1;
        if (grp < 0)
            continue;
        for (int k = 0; k < R->n_tasks && m < 0; k++)
            if (R->tasks[k].stask == grp && R->tasks[k].async)
                m = k;
        /* the steady step's wait that completes m's group: it ran `step` steps back */
        int g = 1;
        for (int k = 0; m >= 0 && k < R->n_ops && g > 0; k++)
            for (int d = 0; d < R->ops[k].n_done; d++)
                if (R->ops[k].kind == PT_KOP_WAIT && R->ops[k].done[d].task == m)
                    g = R->ops[k].done[d].step;
        if (m < 0 || g > 0)
            KREFUSE("%s: warpgroup %d: %s's ring stages go back when %s's group completes "
                    "(stage_hold.h), which %s", who, w, kp->sg->tasks[E->stask].id,
                    kp->sg->tasks[grp].id,
                    m < 0 ? "this warpgroup does not issue" : "completes in a later step");
        R->release_with[e] = m;
    }
    return true;
}

bool pt_kpass_step(pt_kprog *kp, const char *who, pt_error *err)
{
    for (int w = 0; w < kp->wgs; w++)
        for (int e = 0; e < PT_KP_MAX_TASKS; e++)
            kp->consumer[w].release_with[e] = -1;
    if (kp->loop == PT_KLOOP_NONE)
        return true;
    for (int w = 0; w < kp->wgs; w++) {
        if (!steady(kp, w, who, err))
            return false;
        if (!release_points(kp, w, who, err))
            return false;
    }
    return true;
}
