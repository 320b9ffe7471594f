/* idle.c — the reason of a lane's idle gap before an instance (idle.h). */
#include "idle.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "stage_hold.h"

/* The span of (stask, iter), or NULL (a linear scan: this answers one question at a time, for
 * a tooltip, the inspector or the CLI's text timeline). */
static const pt_span *find_span(const pt_timeline *tl, int stask, int64_t iter)
{
    for (int64_t i = 0; i < tl->n_spans; i++)
        if (tl->spans[i].stask == stask && tl->spans[i].iter == iter)
            return &tl->spans[i];
    return NULL;
}

static bool is_data_dep(const pt_stask_graph *sg, int s, int from)
{
    for (int d = 0; d < sg->tasks[s].n_deps; d++)
        if (sg->tasks[s].deps[d].from == from)
            return true;
    return false;
}

bool pt_span_wait_reason(const pt_sprogram *p, const pt_stask_graph *sg, const pt_timeline *tl,
                         int64_t span, pt_wait_reason *out)
{
    memset(out, 0, sizeof *out);
    out->stask = out->tensor = -1;
    if (!p || !sg || !tl || span < 0 || span >= tl->n_spans)
        return false;
    const pt_span *me = &tl->spans[span];
    if (me->stask < 0 || me->stask >= sg->n)
        return false;
    /* the idle gap: from the lane's busy time before this issue (its spans' union) */
    double busy_until = -HUGE_VAL;
    bool any = false;
    for (int64_t i = 0; i < tl->n_spans; i++) {
        const pt_span *s = &tl->spans[i];
        if (i == span || s->lane != me->lane || s->issue_ns > me->issue_ns)
            continue;
        if (s->issue_ns == me->issue_ns && i > span)
            continue;
        busy_until = fmax(busy_until, s->end_ns);
        any = true;
    }
    out->gap_ns = any && me->issue_ns > busy_until ? me->issue_ns - busy_until : 0;
    out->fence_ns = me->fence_ns > 0 ? me->fence_ns : 0;
    int64_t iters = tl->eu_iterations > 0 ? tl->eu_iterations : 1;
    int ds[64];
    int64_t di[64];
    int n = pt_instance_deps(p, sg, me->stask, me->iter, iters, ds, di, 64);
    double best = -HUGE_VAL;
    for (int k = 0; k < n && k < 64; k++) {
        const pt_span *d = find_span(tl, ds[k], di[k]);
        if (!d || d->end_ns <= best)
            continue;
        best = d->end_ns;
        out->stask = ds[k];
        out->iter = di[k];
        out->kind = is_data_dep(sg, me->stask, ds[k]) ? PT_WAIT_DATA : PT_WAIT_WAIT;
        out->ready_ns = d->end_ns;
    }
    /* a buffered load: the stage it refills is free once every reader of the copy `stages`
     * iterations back released it (stage_hold.h; with one wgmma group in flight, at the issue
     * of the reader's next iteration) */
    const pt_stask *t = &sg->tasks[me->stask];
    if (t->kind == PT_ST_LOAD && t->buffered && t->region == PT_REGION_BODY && t->tensor >= 0 &&
        t->tensor < PT_MAX_TENSORS) {
        int k = p->stages[t->tensor] > 0 ? p->stages[t->tensor] : 1;
        pt_stage_hold h;
        pt_stage_hold_lags(p, sg, &h);
        int lag = h.lag[t->tensor];
        int64_t back = me->iter - k;
        for (int c = 0; back >= 0 && c < sg->n; c++) {
            if (!pt_stage_reader(sg, me->stask, c))
                continue;
            const pt_span *r0 = find_span(tl, c, back);
            double when = r0 ? r0->end_ns : -HUGE_VAL;
            int64_t it = back;
            int by = c;
            if (lag > 0) {
                int64_t j = back + lag < iters ? back + lag : iters - 1;
                const pt_span *r1 = find_span(tl, c, j);
                if (r1 && r1->issue_ns > when) {
                    when = r1->issue_ns;
                    it = j;
                }
            }
            /* a CUDA-core reader whose stage goes back with a wgmma group: that group's end
             * (stage_hold.h; read with Hopper's asynchronous groups, as the sim does there) */
            int grp = pt_stage_release_group(p, sg, &h, NULL, c);
            const pt_span *g0 = grp >= 0 ? find_span(tl, grp, back) : NULL;
            if (g0 && g0->end_ns > when) {
                when = g0->end_ns;
                by = grp;
                it = back;
            }
            if (when > best) {
                best = when;
                out->kind = PT_WAIT_STAGE;
                out->stask = by;
                out->iter = it;
                out->tensor = t->tensor;
                out->stages = k;
                out->stage = (int)(me->iter % k);
                out->ready_ns = when;
            }
        }
    }
    /* met long before the issue (a barrier hand-off aside): the lane itself was the limit */
    if (out->stask >= 0 && best < busy_until - 1e-6 && out->gap_ns == 0) {
        out->kind = PT_WAIT_NOTHING;
        out->stask = out->tensor = -1;
    }
    if (out->stask < 0)
        out->kind = PT_WAIT_NOTHING;
    return true;
}

void pt_wait_reason_text(const pt_wait_reason *r, const pt_sprogram *p, const pt_stask_graph *sg,
                         char *out, size_t cap)
{
    char gap[48] = "";
    if (r->gap_ns > 0)
        snprintf(gap, sizeof gap, " %.0f ns", r->gap_ns);
    int lane = -1, pos;
    const char *ln = "?";
    if (r->stask >= 0 && r->stask < sg->n && pt_sprogram_placement(p, r->stask, &lane, &pos))
        ln = p->lanes[lane].name;
    const char *who = r->stask >= 0 && r->stask < sg->n ? sg->tasks[r->stask].id : "?";
    /* the barrier wait comes after the constraint below was met (sim.c adds it to the issue) */
    char fence[96] = "";
    if (r->fence_ns > 0)
        snprintf(fence, sizeof fence, ", then %.0f ns at the barrier (barrier_wait_ns)",
                 r->fence_ns);
    switch (r->kind) {
    case PT_WAIT_DATA:
    case PT_WAIT_WAIT:
        snprintf(out, cap, "waits%s for %s[%lld] on %s (%s)%s", gap, who, (long long)r->iter, ln,
                 r->kind == PT_WAIT_WAIT ? "Wait" : "data dependency", fence);
        break;
    case PT_WAIT_STAGE: {
        const char *tn = sg->graph && r->tensor >= 0 && r->tensor < sg->graph->n_tensors
                             ? sg->graph->tensors[r->tensor].name : "?";
        snprintf(out, cap, "waits%s for a free stage of ring %s (stage %d of %d, released by "
                 "%s[%lld] on %s)%s", gap, tn, r->stage, r->stages, who, (long long)r->iter, ln,
                 fence);
        break;
    }
    default:
        if (r->fence_ns > 0) {
            snprintf(out, cap, "waits%s at the barrier of another warp role (barrier_wait_ns: "
                     "its warps meet again at the wgmma fence)", gap);
            break;
        }
        snprintf(out, cap, "%s", r->gap_ns > 0 ? "idle: issued as soon as its lane reached it"
                                                : "no wait: issued right after its lane's "
                                                  "previous instance");
        break;
    }
}

typedef struct {
    double t;
    int d; /* +1 taken, -1 given back */
} ring_ev;

static int cmp_ev(const void *a, const void *b)
{
    const ring_ev *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->d - y->d; /* a release before a take at the same time */
}

int64_t pt_ring_occupancy(const pt_sprogram *p, const pt_stask_graph *sg, const pt_timeline *tl,
                          int tensor, double **times, int **filled, int *stages)
{
    *times = NULL;
    *filled = NULL;
    *stages = 0;
    if (!p || !sg || !tl || tensor < 0 || tensor >= PT_MAX_TENSORS || p->stages[tensor] < 1)
        return 0;
    *stages = p->stages[tensor];
    pt_stage_hold h;
    pt_stage_hold_lags(p, sg, &h);
    int lag = h.lag[tensor];
    int64_t iters = tl->eu_iterations > 0 ? tl->eu_iterations : 1;
    int64_t n_ev = 0, cap = 0;
    ring_ev *ev = NULL;
    /* the body spans of every sTask by iteration, so each lookup is direct */
    if (iters > ((int64_t)1 << 24) || sg->n > 4096)
        return 0;
    const pt_span **by = calloc((size_t)sg->n * (size_t)iters, sizeof *by);
    if (!by)
        return -1;
    for (int64_t i = 0; i < tl->n_spans; i++) {
        const pt_span *x = &tl->spans[i];
        if (x->stask >= 0 && x->stask < sg->n && x->iter >= 0 && x->iter < iters &&
            sg->tasks[x->stask].region == PT_REGION_BODY)
            by[(size_t)x->stask * (size_t)iters + (size_t)x->iter] = x;
    }
#define BY(c, it) (by[(size_t)(c) * (size_t)iters + (size_t)(it)])
    for (int64_t i = 0; i < tl->n_spans; i++) {
        const pt_span *ld = &tl->spans[i];
        if (ld->stask < 0 || ld->stask >= sg->n)
            continue;
        const pt_stask *t = &sg->tasks[ld->stask];
        if (!(t->kind == PT_ST_LOAD && t->buffered && t->region == PT_REGION_BODY &&
              t->tensor == tensor))
            continue;
        double rel = ld->end_ns; /* no reader: given back when the copy lands */
        bool any = false;
        for (int c = 0; c < sg->n; c++) {
            if (!pt_stage_reader(sg, ld->stask, c))
                continue;
            const pt_span *r0 = ld->iter >= 0 && ld->iter < iters ? BY(c, ld->iter) : NULL;
            double w = r0 ? r0->end_ns : ld->end_ns;
            if (lag > 0 && ld->iter >= 0 && ld->iter + lag < iters) {
                const pt_span *r1 = BY(c, ld->iter + lag);
                if (r1 && r1->issue_ns > w)
                    w = r1->issue_ns;
            }
            int grp = pt_stage_release_group(p, sg, &h, NULL, c); /* as the wait reason above */
            const pt_span *g0 = grp >= 0 && ld->iter >= 0 && ld->iter < iters ? BY(grp, ld->iter)
                                                                              : NULL;
            if (g0 && g0->end_ns > w)
                w = g0->end_ns;
            rel = any ? fmax(rel, w) : w;
            any = true;
        }
        if (n_ev + 2 > cap) {
            cap = cap ? 2 * cap : 256;
            ring_ev *nv = realloc(ev, (size_t)cap * sizeof *nv);
            if (!nv) {
                free(ev);
                free(by);
                return -1;
            }
            ev = nv;
        }
        ev[n_ev++] = (ring_ev){ld->issue_ns, +1};
        ev[n_ev++] = (ring_ev){fmax(rel, ld->issue_ns), -1};
    }
#undef BY
    free(by);
    if (n_ev == 0) {
        free(ev);
        return 0;
    }
    qsort(ev, (size_t)n_ev, sizeof *ev, cmp_ev);
    *times = malloc((size_t)n_ev * sizeof **times);
    *filled = malloc((size_t)n_ev * sizeof **filled);
    if (!*times || !*filled) {
        free(*times);
        free(*filled);
        *times = NULL;
        *filled = NULL;
        free(ev);
        return -1;
    }
    int64_t k = 0;
    int cur = 0;
    for (int64_t e = 0; e < n_ev; e++) {
        cur += ev[e].d;
        if (k > 0 && (*times)[k - 1] == ev[e].t)
            (*filled)[k - 1] = cur; /* the same instant: one step */
        else {
            (*times)[k] = ev[e].t;
            (*filled)[k] = cur;
            k++;
        }
    }
    free(ev);
    return k;
}
