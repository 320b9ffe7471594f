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

/* The lane and iteration offset sTask s is placed at; false when it is on no lane. */
static bool placement(const pt_sprogram *p, int s, int *lane, int *offset)
{
    int pos;
    if (!pt_sprogram_placement(p, s, lane, &pos) || !p->lanes[*lane].entries)
        return false;
    *offset = p->lanes[*lane].entries[pos].offset;
    return true;
}

/* Is s a loop-body sTask placed on a lane of `role`? */
static bool body_task_of_role(const pt_sprogram *p, const pt_stask_graph *sg, int s, int role)
{
    int l, pos;
    return s >= 0 && s < sg->n && sg->tasks[s].region == PT_REGION_BODY &&
           pt_sprogram_placement(p, s, &l, &pos) && p->lanes[l].role == role;
}

/* Does b read, at distance 0, what a writes: directly, or through synchronous loop-body sTasks
 * of the same role (the registers a CUDA-core sTask makes flow on to its readers there)? */
static bool flows(const pt_sprogram *p, const pt_stask_graph *sg, int a, int b, int role,
                  int depth)
{
    if (depth > sg->n)
        return false;
    for (int t = 0; t < sg->n; t++) {
        const pt_stask *T = &sg->tasks[t];
        int nd = T->n_deps < 0 ? 0 : T->n_deps > PT_MAX_DEPS ? PT_MAX_DEPS : T->n_deps;
        bool reads_a = false;
        for (int k = 0; k < nd; k++)
            reads_a |= T->deps[k].from == a && T->deps[k].distance == 0;
        if (!reads_a || t == a)
            continue;
        if (t == b)
            return true;
        if (T->kind != PT_ST_MMA && body_task_of_role(p, sg, t, role) &&
            flows(p, sg, t, b, role, depth + 1))
            return true;
    }
    return false;
}

/* pt_stage_release_group's choice before the contract's progress proof. */
static int group_of(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw, int reader)
{
    if (!p || !sg || !sg->tasks || reader < 0 || reader >= sg->n)
        return -1;
    if (hw && !hw->seu[PT_SEU_TENSOR_CORE].async)
        return -1; /* a synchronous matrix unit: nothing is in flight to defer to */
    const pt_stask *E = &sg->tasks[reader];
    int le, oe;
    if (E->region != PT_REGION_BODY || E->kind == PT_ST_MMA || !placement(p, reader, &le, &oe) ||
        p->lanes[le].seu == PT_SEU_TENSOR_CORE || pt_stask_dequant_rows(sg, reader) ||
        pt_stask_fills_ring(sg, reader))
        return -1;
    int rings[PT_MAX_DEPS], nr = 0;
    for (int l = 0; l < sg->n && nr < PT_MAX_DEPS; l++) {
        const pt_stask *L = &sg->tasks[l];
        if (pt_stask_fills_ring(sg, l) && L->region == PT_REGION_BODY && L->tensor >= 0 &&
            L->tensor < PT_MAX_TENSORS && pt_stage_reader(sg, l, reader))
            rings[nr++] = L->tensor;
    }
    if (!nr)
        return -1;
    int role = p->lanes[le].role;
    int n_lanes = p->n_lanes < 0 ? 0 : p->n_lanes > PT_MAX_LANES ? PT_MAX_LANES : p->n_lanes;
    for (int l = 0; l < n_lanes; l++) {
        const pt_lane *L = &p->lanes[l];
        if (L->role != role || L->seu != PT_SEU_TENSOR_CORE)
            continue;
        for (int i = 0; i < L->n && L->entries; i++) {
            int m = L->entries[i].stask;
            if (m < 0 || m >= sg->n || sg->tasks[m].kind != PT_ST_MMA ||
                sg->tasks[m].region != PT_REGION_BODY || !flows(p, sg, reader, m, role, 0))
                continue;
            /* iteration i is read in step i - o_E and goes back in step i - o_M, where the
             * group completes (no group outlives its step where a CUDA-core sTask reads a
             * ring: stage_hold.h); the read of i + stages must come in a later step */
            int held = oe - L->entries[i].offset;
            bool fits = held >= 0;
            for (int r = 0; r < nr; r++)
                fits &= p->stages[rings[r]] > held;
            if (fits)
                return m;
        }
    }
    return -1;
}

/* Does any CUDA-core reader have a group to hand its stages back with? */
static bool any_group(const pt_sprogram *p, const pt_stask_graph *sg)
{
    for (int s = 0; s < sg->n; s++)
        if (group_of(p, sg, NULL, s) >= 0)
            return true;
    return false;
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
        pt_stage_hold trial = *h;
        memcpy(trial.lag, lag, sizeof lag);
        if (pt_validate_ring_progress(p, sg, p->stages, &trial, NULL, 0)) {
            *h = trial;
            h->mma_in_flight = 1;
            h->progress = true;
            return;
        }
    }
    /* CUDA-core readers hand their stages back with a wgmma group where the sProgram asks for
     * it ("release": "group", the default) and that keeps the rings progressing (stage_hold.h);
     * otherwise each goes back behind a fence once read */
    if (p->release == PT_RELEASE_GROUP && any_group(p, sg)) {
        h->defer_reads = true;
        if (!pt_validate_ring_progress(p, sg, p->stages, h, NULL, 0))
            h->defer_reads = false;
        else if (want_progress) {
            h->progress = true;
            return;
        }
    }
    if (want_progress)
        h->progress = pt_validate_ring_progress(p, sg, p->stages, h, NULL, 0);
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

int pt_stage_release_group(const pt_sprogram *p, const pt_stask_graph *sg,
                           const pt_stage_hold *h, const pt_hw *hw, int reader)
{
    return h && h->defer_reads ? group_of(p, sg, hw, reader) : -1;
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
            /* a reader whose stages go back with a group: the step that completes the group */
            int grp = pt_stage_release_group(p, sg, h, NULL, r), lg, og;
            if (grp >= 0 && placement(p, grp, &lg, &og))
                o_r = og;
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
                                                    .clamp = e == (grp >= 0 ? grp : r)};
                    n++;
                }
            }
        }
    }
    return n;
}
