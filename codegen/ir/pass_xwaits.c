/* pass_xwaits.c — the sProgram's Waits between two consumer roles, as rings of named barriers.
 *
 * Only Waits between asynchronous tasks cross roles (the tensor-core ping-pong of
 * FlashAttention-3: one warpgroup's mma waits until the other's was issued). The waiter syncs
 * on a barrier the other role arrives at after issuing; a ring of barriers lets the waited-for
 * role run ahead by as many iterations as the loads' rings allow (the producer refills a stage
 * only once every role released it), or by one when a Wait goes back the other way too. */
#include "passes.h"

/* Named barrier 0 is __syncthreads, 1..wgs each warpgroup's own; the SM has 16. */
#define NAMED_BARRIERS 16

bool pt_kpass_xwaits(pt_kprog *kp, const char *who, pt_error *err)
{
    const pt_sprogram *p = kp->p;
    const pt_stask_graph *sg = kp->sg;
    kp->n_xwaits = 0;
    for (int i = 0; i < p->n_waits; i++) {
        const pt_wait_entry *wt = &p->waits[i];
        const pt_stask *b = &sg->tasks[wt->stask], *a = &sg->tasks[wt->on];
        if (a->wg < 0 || b->wg < 0 || a->wg == b->wg)
            continue;
        pt_kxwait x = {.wa = a->wg, .wb = b->wg, .distance = wt->distance};
        x.on = pt_kprog_task_of(&kp->consumer[a->wg], wt->on);
        x.waiter = pt_kprog_task_of(&kp->consumer[b->wg], wt->stask);
        if (x.on < 0 || x.waiter < 0 || !kp->consumer[a->wg].tasks[x.on].async ||
            !kp->consumer[b->wg].tasks[x.waiter].async)
            KREFUSE("%s: Wait %s on %s crosses warpgroups; only Waits between tensor-core sTasks "
                    "(ping-pong) are generated across warpgroups", who, b->id, a->id);
        /* a barrier ring needs as many syncs as arrivals: both warpgroups must run the same k
         * blocks, which a causal product that skips each warpgroup's blocks past its rows
         * (ChunkScan) does not give */
        for (int64_t it = 1; it <= sg->iterations; it++)
            if (pt_stask_graph_wg_iterations(sg, a->wg, it) != pt_stask_graph_wg_iterations(sg, b->wg, it))
                KREFUSE("%s: Wait %s on %s crosses warpgroups that run different numbers of k blocks "
                        "(the causal product skips warpgroup %d's blocks past its rows: %lld of %lld); "
                        "Waits between warpgroups are generated only where every warpgroup runs the "
                        "tile's blocks", who, b->id, a->id, a->wg < b->wg ? a->wg : b->wg,
                        (long long)pt_stask_graph_wg_iterations(sg, a->wg < b->wg ? a->wg : b->wg, it),
                        (long long)it);
        if (kp->n_xwaits == PT_KP_MAX_XWAITS)
            KREFUSE("%s: more than %d Waits between warpgroups", who, PT_KP_MAX_XWAITS);
        kp->xw[kp->n_xwaits++] = x;
    }
    int stages = 1;
    for (int i = 0; i < kp->n_bufs; i++)
        if (kp->bufs[i].kind == PT_KBUF_RING && kp->bufs[i].stages > stages)
            stages = kp->bufs[i].stages;
    int next_id = 1 + kp->wgs;
    for (int i = 0; i < kp->n_xwaits; i++) {
        pt_kxwait *x = &kp->xw[i];
        bool reverse = false;
        for (int j = 0; j < kp->n_xwaits; j++)
            reverse |= kp->xw[j].wa == x->wb && kp->xw[j].wb == x->wa;
        int spread = kp->c_off_max - kp->c_off_min;
        x->ring = reverse ? 2 + x->distance : stages + 2 + x->distance + spread;
        x->bar_base = next_id;
        next_id += x->ring;
        if (next_id > NAMED_BARRIERS)
            KREFUSE("%s: the Waits between warpgroups need %d named barriers; the SM has %d (%d "
                    "besides __syncthreads)", who, next_id, NAMED_BARRIERS, NAMED_BARRIERS - 1);
    }
    return true;
}
