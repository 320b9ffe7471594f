/* critical_path.c — the span graph and the critical path (see critical_path.h). */
#include "critical_path.h"

#include "busy.h"
#include "stage_hold.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void pt_span_deps_free(pt_span_deps *d)
{
    free(d->off);
    free(d->idx);
    free(d->is_wait);
    memset(d, 0, sizeof *d);
}

/* Span indices ordered by (sTask, iteration), to find the span of an instance. */
typedef struct {
    const pt_span *spans;
    int64_t *order;
    int64_t n;
} instance_index;

static const pt_span *cmp_spans;

static int cmp_instance(const void *a, const void *b)
{
    const pt_span *p = &cmp_spans[*(const int64_t *)a], *q = &cmp_spans[*(const int64_t *)b];
    if (p->stask != q->stask)
        return p->stask < q->stask ? -1 : 1;
    return (p->iter > q->iter) - (p->iter < q->iter);
}

static int64_t find_instance(const instance_index *ix, int stask, int64_t iter)
{
    int64_t lo = 0, hi = ix->n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        const pt_span *s = &ix->spans[ix->order[mid]];
        if (s->stask < stask || (s->stask == stask && s->iter < iter))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < ix->n) {
        const pt_span *s = &ix->spans[ix->order[lo]];
        if (s->stask == stask && s->iter == iter)
            return ix->order[lo];
    }
    return -1;
}

/* The instances whose release of a stage the load instance s waited for, as the simulator's
 * DM_STAGE rule has it: each reader R of iteration i - S once i >= S (with one wgmma group in
 * flight the release also waits for R's next issue, an issue and no completion to draw an
 * arrow from; the arrow stays on the completion it needs), and where R hands its stage back
 * with a wgmma group (stage_hold.h), that group of the same iteration. */
static int stage_deps(const pt_sprogram *p, const pt_stask_graph *sg, const pt_stage_hold *h,
                      const pt_span *s, int *dep_stask, int64_t *dep_iter, int cap)
{
    if (!p || s->stask < 0 || s->stask >= sg->n)
        return 0;
    const pt_stask *t = &sg->tasks[s->stask];
    if (t->kind != PT_ST_LOAD || !t->buffered || t->region != PT_REGION_BODY ||
        t->tensor < 0 || t->tensor >= PT_MAX_TENSORS)
        return 0;
    int k = p->stages[t->tensor] < 1 ? 1 : p->stages[t->tensor];
    if (s->iter - k < 0)
        return 0; /* the first S loads find their stages free */
    int64_t j = s->iter - k;
    int n = 0;
    for (int c = 0; c < sg->n; c++)
        if (pt_stage_reader(sg, s->stask, c)) {
            int who[2] = {c, pt_stage_release_group(p, sg, h, NULL, c)};
            for (int w = 0; w < 2 && who[w] >= 0; w++) {
                if (n < cap) {
                    dep_stask[n] = who[w];
                    dep_iter[n] = j;
                }
                n++;
            }
        }
    return n < cap ? n : cap;
}

double pt_dep_release_ns(const pt_span *spans, const pt_span_deps *d, int64_t e)
{
    const pt_span *u = &spans[d->idx[e]];
    return d->is_wait[e] == PT_DEP_UNIT ? pt_span_unit_end(u) : u->end_ns;
}

/* The span whose occupancy of span s's physical unit ended when s started, if s was queued
 * behind it (started after its issue). prev is the span before s on that unit in start order:
 * the simulator serves each unit FIFO, so that is the one it waited for; -1 when s was not
 * queued or the times do not meet (a measured span, or an admission limit instead). */
static int64_t unit_holder(const pt_span *spans, int64_t s, int64_t prev)
{
    const pt_span *p = &spans[s];
    double eps = 1e-6 * (fabs(p->start_ns) + 1);
    if (prev < 0 || !(p->start_ns > p->issue_ns + eps))
        return -1;
    return fabs(pt_span_unit_end(&spans[prev]) - p->start_ns) <= eps ? prev : -1;
}

/* Append edge (u, kind) to d, growing its arrays; false when out of memory. */
static bool push_edge(pt_span_deps *d, size_t *cap, int64_t e, int64_t u, int kind)
{
    if ((size_t)e == *cap) {
        *cap *= 2;
        int64_t *ni = realloc(d->idx, *cap * sizeof(int64_t));
        if (ni)
            d->idx = ni;
        unsigned char *nw = realloc(d->is_wait, *cap);
        if (nw)
            d->is_wait = nw;
        if (!ni || !nw)
            return false;
    }
    d->idx[e] = u;
    d->is_wait[e] = (unsigned char)kind;
    return true;
}

bool pt_span_deps_build(pt_span_deps *d, const pt_timeline *tl, const pt_sprogram *p,
                        const pt_stask_graph *sg)
{
    memset(d, 0, sizeof *d);
    int64_t n = tl->n_spans;
    size_t cnt = (size_t)(n > 0 ? n : 1);
    instance_index ix = {tl->spans, malloc(cnt * sizeof(int64_t)), n};
    d->off = calloc(cnt + 1, sizeof(int64_t));
    size_t cap = cnt * 4;
    d->idx = malloc(cap * sizeof(int64_t));
    d->is_wait = malloc(cap);
    if (!ix.order || !d->off || !d->idx || !d->is_wait)
        goto oom;
    d->n_spans = n;
    for (int64_t i = 0; i < n; i++)
        ix.order[i] = i;
    cmp_spans = tl->spans; /* qsort has no context argument in C11 */
    qsort(ix.order, (size_t)n, sizeof(int64_t), cmp_instance);
    int64_t iters = tl->eu_iterations > 0 ? tl->eu_iterations : 1, e = 0;
    pt_stage_hold hold; /* the contract the simulator timed, decided once */
    memset(&hold, 0, sizeof hold);
    if (p)
        pt_stage_hold_lags(p, sg, &hold);
    enum { CAP = PT_MAX_DEPS + 64 };
    int dep_stask[CAP];
    int64_t dep_iter[CAP];
    int64_t unit_last[PT_SEU_COUNT]; /* the last span seen on each unit (start order) */
    for (int u = 0; u < PT_SEU_COUNT; u++)
        unit_last[u] = -1;
    for (int64_t i = 0; i < n; i++) {
        const pt_span *s = &tl->spans[i];
        d->off[i] = e;
        /* Data dependencies come first in pt_instance_deps' answer, then the Waits. */
        int n_data = pt_instance_deps(NULL, sg, s->stask, s->iter, iters, dep_stask, dep_iter, CAP);
        int k = pt_instance_deps(p, sg, s->stask, s->iter, iters, dep_stask, dep_iter, CAP);
        if (k > CAP)
            k = CAP;
        int n_dw = k;
        k += stage_deps(p, sg, &hold, s, dep_stask + k, dep_iter + k, CAP - k);
        if (k > CAP)
            k = CAP;
        for (int j = 0; j < k; j++) {
            int64_t u = find_instance(&ix, dep_stask[j], dep_iter[j]);
            if (u < 0 || u == i)
                continue;
            int kind = j >= n_dw ? PT_DEP_STAGE : j >= n_data ? PT_DEP_WAIT : PT_DEP_DATA;
            if (!push_edge(d, &cap, e++, u, kind))
                goto oom;
        }
        /* The shared unit: the lanes of one sEU kind share the EU's one unit of it. */
        int seu = p && s->lane >= 0 && s->lane < p->n_lanes ? (int)p->lanes[s->lane].seu : -1;
        if (seu >= 0 && seu < PT_SEU_COUNT) {
            int64_t h = unit_holder(tl->spans, i, unit_last[seu]);
            if (h >= 0 && !push_edge(d, &cap, e++, h, PT_DEP_UNIT))
                goto oom;
            unit_last[seu] = i;
        }
    }
    d->off[n] = e;
    free(ix.order);
    return true;
oom:
    free(ix.order);
    pt_span_deps_free(d);
    return false;
}

int64_t pt_critical_path(const pt_span *spans, int64_t n, const pt_span_deps *deps,
                         int64_t **chain)
{
    *chain = NULL;
    if (n <= 0)
        return 0;
    int64_t *lane_prev = malloc((size_t)n * sizeof(int64_t));
    int64_t *rev = malloc((size_t)n * sizeof(int64_t));
    if (!lane_prev || !rev) {
        free(lane_prev);
        free(rev);
        return -1;
    }
    int64_t last_on_lane[PT_MAX_LANES];
    for (int l = 0; l < PT_MAX_LANES; l++)
        last_on_lane[l] = -1;
    int64_t last = 0;
    for (int64_t i = 0; i < n; i++) {
        int l = spans[i].lane;
        lane_prev[i] = l >= 0 && l < PT_MAX_LANES ? last_on_lane[l] : -1;
        if (l >= 0 && l < PT_MAX_LANES)
            last_on_lane[l] = i;
        if (spans[i].end_ns >= spans[last].end_ns)
            last = i;
    }
    bool use_deps = deps && deps->n_spans == n && deps->off;
    int64_t len = 0, cur = last;
    /* Each step goes to a span that started no later (or an earlier index): at most n steps. */
    while (cur >= 0 && len < n) {
        rev[len++] = cur;
        const pt_span *s = &spans[cur];
        double eps = 1e-6 * (fabs(s->start_ns) + 1);
        int64_t best = -1;
        double best_t = -INFINITY;
        if (use_deps)
            for (int64_t e = deps->off[cur]; e < deps->off[cur + 1]; e++) {
                int64_t u = deps->idx[e];
                if (u < 0 || u >= n || u == cur)
                    continue;
                double rel = pt_dep_release_ns(spans, deps, e);
                if (rel > s->start_ns + eps)
                    continue;
                /* a unit edge only wins by being later: a tie goes to the schedule's reason */
                bool unit = deps->is_wait[e] == PT_DEP_UNIT;
                if (rel > best_t || (rel == best_t && !unit && u < best)) {
                    best_t = rel;
                    best = u;
                }
            }
        int64_t lp = lane_prev[cur];
        if (lp >= 0) {
            double rel = spans[lp].end_ns <= s->start_ns + eps ? spans[lp].end_ns
                                                                : spans[lp].start_ns;
            if (rel <= s->start_ns + eps && rel > best_t) {
                best_t = rel;
                best = lp;
            }
        }
        cur = best;
    }
    int64_t *out = malloc((size_t)len * sizeof(int64_t));
    if (!out) {
        free(lane_prev);
        free(rev);
        return -1;
    }
    for (int64_t i = 0; i < len; i++)
        out[i] = rev[len - 1 - i];
    free(lane_prev);
    free(rev);
    *chain = out;
    return len;
}
