/* stage_hold.c — what holds a ring stage (the contract of stage_hold.h), decided once. */
#include "stage_hold.h"

#include <string.h>

#include "validate.h"

bool pt_stage_reader(const pt_stask_graph *sg, int load, int s)
{
    if (!sg || load < 0 || load >= sg->n || s < 0 || s >= sg->n)
        return false;
    const pt_stask *t = &sg->tasks[s];
    if (t->region != PT_REGION_BODY)
        return false;
    int nd = t->n_deps < 0 ? 0 : t->n_deps > PT_MAX_DEPS ? PT_MAX_DEPS : t->n_deps;
    for (int k = 0; k < nd; k++)
        if (t->deps[k].from == load && t->deps[k].distance == 0)
            return true;
    return false;
}

static bool ring_load(const pt_stask_graph *sg, int s)
{
    const pt_stask *t = &sg->tasks[s];
    return t->kind == PT_ST_LOAD && t->buffered && t->region == PT_REGION_BODY &&
           t->tensor >= 0 && t->tensor < PT_MAX_TENSORS;
}

/* Can a consumer keep a wgmma group in flight across a loop step? Only where the loop body
 * is loads and matrix multiplies that accumulate (GEMM): every reader of a ring is an mma and
 * nothing in the body but the mma itself (its accumulator chain) reads an mma. Attention's
 * softmax reads S inside the step, so its groups retire inside the step (lag 0). */
static bool in_flight_possible(const pt_stask_graph *sg)
{
    bool any = false;
    for (int l = 0; l < sg->n; l++) {
        if (!ring_load(sg, l))
            continue;
        any = true;
        for (int s = 0; s < sg->n; s++)
            if (pt_stage_reader(sg, l, s) && sg->tasks[s].kind != PT_ST_MMA)
                return false;
    }
    if (!any)
        return false;
    for (int s = 0; s < sg->n; s++) {
        const pt_stask *t = &sg->tasks[s];
        if (t->region != PT_REGION_BODY)
            continue;
        int nd = t->n_deps < 0 ? 0 : t->n_deps > PT_MAX_DEPS ? PT_MAX_DEPS : t->n_deps;
        for (int k = 0; k < nd; k++) {
            int f = t->deps[k].from;
            if (f >= 0 && f < sg->n && f != s && sg->tasks[f].kind == PT_ST_MMA &&
                sg->tasks[f].region == PT_REGION_BODY)
                return false;
        }
    }
    return true;
}

static void decide(const pt_sprogram *p, const pt_stask_graph *sg, pt_stage_hold *h,
                   bool want_progress)
{
    memset(h, 0, sizeof *h);
    if (!p || !sg || !sg->tasks || sg->n <= 0)
        return;
    for (int s = 0; s < sg->n; s++)
        if (ring_load(sg, s))
            h->ring[sg->tasks[s].tensor] = true;
    h->in_flight_possible = in_flight_possible(sg);
    if (h->in_flight_possible) {
        /* Keep a group in flight where the rings still progress with the late release:
         * normal stage counts (>= 2, loads in step) keep the tensor core fed; a ring sized
         * exactly (stages 1, or a load issued far ahead) waits for every group instead. */
        int lag[PT_MAX_TENSORS] = {0};
        for (int x = 0; x < PT_MAX_TENSORS; x++)
            lag[x] = h->ring[x] ? 1 : 0;
        if (pt_validate_ring_progress(p, sg, p->stages, lag, NULL, 0)) {
            h->mma_in_flight = 1;
            memcpy(h->lag, lag, sizeof lag);
            h->progress = true;
            return;
        }
    }
    if (want_progress)
        h->progress = pt_validate_ring_progress(p, sg, p->stages, h->lag, NULL, 0);
}

void pt_stage_hold_decide(const pt_sprogram *p, const pt_stask_graph *sg, pt_stage_hold *h)
{
    decide(p, sg, h, true);
}

void pt_stage_hold_lags(const pt_sprogram *p, const pt_stask_graph *sg, pt_stage_hold *h)
{
    decide(p, sg, h, false);
}

int pt_stage_hold_iterations(const pt_stage_hold *h, int tensor)
{
    if (!h || tensor < 0 || tensor >= PT_MAX_TENSORS)
        return 1;
    return 1 + h->lag[tensor];
}

int64_t pt_stage_release_iter(const pt_stage_hold *h, int tensor, int64_t iter, int64_t iters)
{
    int64_t j = iter + (h && tensor >= 0 && tensor < PT_MAX_TENSORS ? h->lag[tensor] : 0);
    return j >= iters ? iters - 1 : j;
}

int pt_stage_release_set(const pt_sprogram *p, const pt_stask_graph *sg, const pt_stage_hold *h,
                         int load, pt_stage_release *out, int cap)
{
    if (!p || !sg || load < 0 || load >= sg->n)
        return 0;
    const pt_stask *ld = &sg->tasks[load];
    int lag = h && ld->tensor >= 0 && ld->tensor < PT_MAX_TENSORS ? h->lag[ld->tensor] : 0;
    int n = 0;
    int n_lanes = p->n_lanes < 0 ? 0 : p->n_lanes > PT_MAX_LANES ? PT_MAX_LANES : p->n_lanes;
    for (int lr = 0; lr < n_lanes; lr++) {
        const pt_lane *L = &p->lanes[lr];
        for (int i = 0; i < L->n && L->entries; i++) {
            int r = L->entries[i].stask;
            if (!pt_stage_reader(sg, load, r))
                continue;
            int o_r = L->entries[i].offset;
            for (int l2 = 0; l2 < n_lanes; l2++) {
                const pt_lane *L2 = &p->lanes[l2];
                if (L2->role != L->role)
                    continue;
                for (int k = 0; k < L2->n && L2->entries; k++) {
                    int e = L2->entries[k].stask;
                    if (e < 0 || e >= sg->n || sg->tasks[e].region != PT_REGION_BODY)
                        continue;
                    if (n < cap)
                        out[n] = (pt_stage_release){.stask = e,
                                                    .delta = lag + L2->entries[k].offset - o_r,
                                                    .clamp = e == r};
                    n++;
                }
            }
        }
    }
    return n;
}
