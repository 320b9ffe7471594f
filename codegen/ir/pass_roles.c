/* pass_roles.c — the kernel's warp roles and which of them issues each sTask.
 *
 * The producer role issues every load from one TMA lane, in that lane's order and iteration
 * offsets. Consumer role w is warpgroup w: it issues every compute sTask of warpgroup w, whose
 * tiles live in its registers (loop-body sTasks become its step's tasks, one epilogue sTask
 * writes the output tile). The store sits on the producer's lane or on one consumer's. */
#include <string.h>

#include "passes.h"

/* Appends resident buffer b to the producer's once-per-tile loads unless it is there already. */
static void add_resident(pt_kprog *kp, int b)
{
    if (kp->bufs[b].kind != PT_KBUF_RESIDENT)
        return;
    for (int i = 0; i < kp->n_res; i++)
        if (kp->res_buf[i] == b)
            return;
    kp->res_buf[kp->n_res++] = b;
}

static bool producer(pt_kprog *kp, const char *who, pt_error *err)
{
    const pt_sprogram *p = kp->p;
    int lane = -1;
    for (int i = 0; i < kp->n_bufs; i++) {
        const pt_kbuf *b = &kp->bufs[i];
        if (b->kind == PT_KBUF_STAGING || b->kind == PT_KBUF_ROWS || b->written)
            continue;
        const pt_role_def *r = &p->roles[p->lanes[b->lane].role];
        const char *id = kp->sg->tasks[b->stask].id;
        if (r->wg >= 0)
            KREFUSE("%s: %s is on lane %s of role %s; loads are generated on the producer role",
                    who, id, p->lanes[b->lane].name, r->name);
        if (lane >= 0 && lane != b->lane)
            KREFUSE("%s: the loads sit on two lanes (%s and %s); expected one TMA lane", who,
                    p->lanes[lane].name, p->lanes[b->lane].name);
        lane = b->lane;
    }
    if (lane < 0)
        KREFUSE("%s: the sTask-graph loads nothing", who);
    kp->lane_load = lane;
    kp->producer.wg = -1;
    kp->producer.role = p->lanes[lane].role;
    kp->producer.regs = p->roles[kp->producer.role].regs;
    const pt_lane *L = &p->lanes[lane];
    kp->n_loads = kp->off_min = kp->off_max = 0;
    for (int e = 0; e < L->n; e++) {
        int b = pt_kprog_buf_of(kp, kp->sg->tasks[L->entries[e].stask].tensor);
        if (b < 0 || kp->bufs[b].kind != PT_KBUF_RING || kp->bufs[b].stask != L->entries[e].stask)
            continue;
        if (kp->n_loads == PT_KP_MAX_LOADS)
            KREFUSE("%s: more than %d loads per iteration", who, PT_KP_MAX_LOADS);
        int o = L->entries[e].offset;
        kp->load_buf[kp->n_loads] = b;
        kp->load_offset[kp->n_loads++] = o;
        kp->off_min = o < kp->off_min ? o : kp->off_min;
        kp->off_max = o > kp->off_max ? o : kp->off_max;
    }
    /* the once-per-tile loads as the lane orders them (the simulator issues them so), then any
     * the lane does not list */
    kp->n_res = 0;
    for (int e = 0; e < L->n; e++)
        for (int b = 0; b < kp->n_bufs; b++)
            if (kp->bufs[b].stask == L->entries[e].stask)
                add_resident(kp, b);
    for (int b = 0; b < kp->n_bufs; b++)
        add_resident(kp, b);
    return true;
}

/* Each warpgroup stores its own rows (tiling wg_stores): store.X.wgN from a lane of role wgN,
 * so a warpgroup never waits for another's epilogue. */
static bool wg_stores(pt_kprog *kp, const char *who, pt_error *err)
{
    const pt_sprogram *p = kp->p;
    int n = 0;
    kp->wg_stores = true;
    for (int s = 0; s < kp->sg->n; s++) {
        const pt_stask *t = &kp->sg->tasks[s];
        if (t->kind != PT_ST_STORE || t->tensor != kp->bufs[kp->staging].tensor)
            continue;
        int lane, pos;
        if (!pt_sprogram_placement(p, s, &lane, &pos))
            KREFUSE("%s: sTask %s is not placed", who, t->id);
        int rw = p->roles[p->lanes[lane].role].wg;
        if (t->wg < 0 || t->wg >= kp->wgs || rw != t->wg)
            KREFUSE("%s: %s is on lane %s of role %s; with wg_stores each warpgroup stores its "
                    "own rows from a TMA lane of its own role (tma.wg%d)", who, t->id,
                    p->lanes[lane].name, p->roles[p->lanes[lane].role].name, t->wg < 0 ? 0 : t->wg);
        kp->wg_store_stask[t->wg] = s;
        kp->wg_store_lane[t->wg] = lane;
        kp->consumer[t->wg].stores = true;
        n++;
    }
    if (n != kp->wgs)
        KREFUSE("%s: wg_stores: %d stores of %s for %d warpgroups; expected one each", who, n,
                kp->g->tensors[kp->bufs[kp->staging].tensor].name, kp->wgs);
    if (kp->rows >= 0)
        KREFUSE("%s: wg_stores: the log-sum-exp rows are stored with the tile by one thread; "
                "expected wg_stores=0", who);
    return true;
}

static bool store(pt_kprog *kp, const char *who, pt_error *err)
{
    const pt_sprogram *p = kp->p;
    const pt_kbuf *st = &kp->bufs[kp->staging];
    kp->store_stask = st->stask;
    kp->store_lane = st->lane;
    const pt_role_def *r = &p->roles[p->lanes[st->lane].role];
    kp->store_wg = r->wg;
    if (r->wg >= kp->wgs)
        KREFUSE("%s: %s sits on role %s, which is not a consumer warpgroup of this tiling", who,
                kp->sg->tasks[st->stask].id, r->name);
    if (kp->rows >= 0 && kp->bufs[kp->rows].lane != st->lane)
        KREFUSE("%s: %s is on lane %s and %s on %s; one thread stores the output tile and its "
                "log-sum-exp rows after the same barrier (put both on one lane)", who,
                kp->sg->tasks[st->stask].id, p->lanes[st->lane].name,
                kp->sg->tasks[kp->bufs[kp->rows].stask].id, p->lanes[kp->bufs[kp->rows].lane].name);
    if (r->wg < 0)
        kp->producer.stores = true;
    else
        kp->consumer[r->wg].stores = true;
    return kp->sg->tiling.wg_stores ? wg_stores(kp, who, err) : true;
}

/* A compute sTask on the role of its warpgroup: a step task (body), a prologue task or the
 * epilogue. */
static bool place(pt_kprog *kp, int l, int e, const char *who, pt_error *err)
{
    const pt_sprogram *p = kp->p;
    const pt_lane *L = &p->lanes[l];
    int s = L->entries[e].stask;
    const pt_stask *t = &kp->sg->tasks[s];
    int rw = p->roles[L->role].wg;
    if (pt_stask_writes_ring(kp->sg, s)) {
        /* a tile every consumer warpgroup reads: made by the producer's CUDA cores */
        if (p->roles[L->role].wg >= 0)
            KREFUSE("%s: %s is on lane %s of role %s; a tile the mma reads from shared memory "
                    "is dequantised by the producer role's CUDA cores (a cuda_core lane of role "
                    "%s, e.g. cuda.producer)", who, t->id, L->name, p->roles[L->role].name,
                    p->roles[kp->producer.role].name);
        if (L->entries[e].offset != 0)
            KREFUSE("%s: %s has iteration offset %d; the producer dequantises each iteration "
                    "once its loads landed (offset 0)", who, t->id, L->entries[e].offset);
        if (kp->producer.n_tasks == PT_KP_MAX_TASKS)
            KREFUSE("%s: more than %d producer sTasks", who, PT_KP_MAX_TASKS);
        kp->producer.tasks[kp->producer.n_tasks++] =
            (pt_ktask){.stask = s, .lane = l, .offset = 0, .op = t->op, .out = -1, .out_buf = -1};
        int b = pt_kprog_buf_of(kp, t->tensor);
        if (b >= 0)
            kp->bufs[b].lane = l;
        return true;
    }
    if (t->wg < 0 && kp->sg->split_axis >= 0)
        KREFUSE("%s: sTask %s is shared by the %d consumer warpgroups (its tile lacks the axis %s "
                "they split); generated kernels compute a tile in one warpgroup's registers: use "
                "one consumer warpgroup", who, t->id, kp->wgs,
                kp->g->axes[kp->sg->split_axis].name);
    if (t->wg < 0 || t->wg >= kp->wgs)
        KREFUSE("%s: sTask %s belongs to no consumer warpgroup", who, t->id);
    if (rw != t->wg)
        KREFUSE("%s: %s is on lane %s of role %s; it must run on consumer warpgroup %d, whose "
                "registers hold its tiles", who, t->id, L->name, p->roles[L->role].name, t->wg);
    pt_krole *R = &kp->consumer[t->wg];
    R->role = L->role;
    R->regs = p->roles[L->role].regs;
    pt_ktask task = {.stask = s, .lane = l, .offset = L->entries[e].offset, .op = t->op,
                     .out = -1, .out_buf = -1};
    if (t->region == PT_REGION_EPILOGUE && kp->rows >= 0 && t->tensor == kp->bufs[kp->rows].tensor) {
        if (R->rows_task.stask >= 0)
            KREFUSE("%s: warpgroup %d computes %s twice (%s and %s)", who, t->wg,
                    kp->g->tensors[t->tensor].name, kp->sg->tasks[R->rows_task.stask].id, t->id);
        R->rows_task = task;
        return true;
    }
    if (t->region == PT_REGION_EPILOGUE) {
        if (R->epilogue.stask >= 0)
            KREFUSE("%s: warpgroup %d has two epilogue sTasks (%s and %s); one writes the output "
                    "tile", who, t->wg, kp->sg->tasks[R->epilogue.stask].id, t->id);
        R->epilogue = task;
        return true;
    }
    if (t->region == PT_REGION_PROLOGUE && kp->sg->loop_axis < 0 &&
        t->tensor == kp->bufs[kp->staging].tensor) {
        /* no loop: the sTask writing the stored output is the tile's last */
        if (R->epilogue.stask >= 0)
            KREFUSE("%s: warpgroup %d has two sTasks writing the output tile (%s and %s)", who,
                    t->wg, kp->sg->tasks[R->epilogue.stask].id, t->id);
        R->epilogue = task;
        return true;
    }
    if (t->region == PT_REGION_PROLOGUE && kp->sg->loop_axis >= 0) {
        /* once per tile before the loop; kept in sTask-graph order (a producer before its
         * readers), whichever lane of the role issues it */
        if (R->n_pro == PT_KP_MAX_TASKS)
            KREFUSE("%s: more than %d prologue sTasks in warpgroup %d", who, PT_KP_MAX_TASKS,
                    t->wg);
        int at = R->n_pro++;
        while (at > 0 && R->pro[at - 1].stask > s) {
            R->pro[at] = R->pro[at - 1];
            at--;
        }
        R->pro[at] = task;
        return true;
    }
    if (t->region != PT_REGION_BODY && t->region != PT_REGION_PROLOGUE)
        KREFUSE("%s: %s is neither a loop, prologue nor epilogue sTask", who, t->id);
    if (R->n_tasks == PT_KP_MAX_TASKS)
        KREFUSE("%s: more than %d sTasks in warpgroup %d's loop", who, PT_KP_MAX_TASKS, t->wg);
    R->tasks[R->n_tasks++] = task;
    return true;
}

static bool consumers(pt_kprog *kp, const char *who, pt_error *err)
{
    const pt_sprogram *p = kp->p;
    for (int w = 0; w < kp->wgs; w++) {
        kp->consumer[w].wg = w;
        kp->consumer[w].role = -1;
        kp->consumer[w].epilogue.stask = -1;
        kp->consumer[w].rows_task.stask = -1;
    }
    kp->producer.n_tasks = 0;
    for (int l = 0; l < p->n_lanes; l++)
        for (int e = 0; e < p->lanes[l].n; e++) {
            pt_stask_kind k = kp->sg->tasks[p->lanes[l].entries[e].stask].kind;
            if (k != PT_ST_LOAD && k != PT_ST_STORE && !place(kp, l, e, who, err))
                return false;
        }
    for (int w = 0; w < kp->wgs; w++) {
        if (kp->consumer[w].n_tasks == 0)
            KREFUSE("%s: consumer warpgroup %d has no loop sTasks", who, w);
        if (kp->consumer[w].epilogue.stask < 0)
            KREFUSE("%s: consumer warpgroup %d has no epilogue sTask writing the output tile", who,
                    w);
        if (kp->rows >= 0 && kp->consumer[w].rows_task.stask < 0)
            KREFUSE("%s: consumer warpgroup %d has no epilogue sTask writing its rows of %s", who,
                    w, kp->g->tensors[kp->bufs[kp->rows].tensor].name);
    }
    return true;
}

/* Who releases a ring's stages: the consumer warpgroups, or the producer's dequantising warps
 * for the rings only they read (the packed weights and their scales). */
static void readers(pt_kprog *kp)
{
    for (int b = 0; b < kp->n_bufs; b++) {
        pt_kbuf *B = &kp->bufs[b];
        B->readers = kp->wgs;
        for (int i = 0; i < kp->producer.n_tasks; i++) {
            const pt_op *op = &kp->g->ops[kp->producer.tasks[i].op];
            const pt_tensor *q = &kp->g->tensors[op->in[0]];
            if (B->tensor == op->in[0] || B->tensor == q->scales)
                B->readers = 1;
        }
    }
}

bool pt_kpass_roles(pt_kprog *kp, const char *who, pt_error *err)
{
    kp->wgs = kp->sg->tiling.warpgroups;
    if (kp->wgs < 1 || kp->wgs > PT_KP_MAX_WG)
        KREFUSE("%s: %d consumer warpgroups; expected 1 to %d", who, kp->wgs, PT_KP_MAX_WG);
    if (!producer(kp, who, err) || !consumers(kp, who, err) || !store(kp, who, err))
        return false;
    readers(kp);
    return true;
}

int pt_kprog_task_of(const pt_krole *r, int stask)
{
    for (int i = 0; i < r->n_tasks; i++)
        if (r->tasks[i].stask == stask)
            return i;
    return -1;
}
