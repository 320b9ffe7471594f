/* busy.c — spans, occupancy, busy % and prediction errors computed one way (busy.h). */
#include "busy.h"

#include <math.h>
#include <stdlib.h>

static int cmp_interval(const void *a, const void *b)
{
    const pt_interval *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

double pt_interval_union_ns(pt_interval *v, int64_t n, double lo, double hi)
{
    if (!v || n <= 0 || !(hi > lo))
        return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_interval);
    double total = 0, a = 0, b = 0;
    bool open = false;
    for (int64_t i = 0; i < n; i++) {
        double x = v[i].lo > lo ? v[i].lo : lo, y = v[i].hi < hi ? v[i].hi : hi;
        if (!(y > x))
            continue;
        if (open && x <= b) {
            if (y > b)
                b = y;
            continue;
        }
        if (open)
            total += b - a;
        a = x;
        b = y;
        open = true;
    }
    if (open)
        total += b - a;
    return total;
}

double pt_busy_pct(pt_interval *v, int64_t n, double lo, double hi)
{
    if (!isfinite(lo) || !isfinite(hi) || !(hi > lo))
        return NAN;
    return pt_interval_union_ns(v, n, lo, hi) / (hi - lo) * 100.0;
}

double pt_span_unit_end(const pt_span *s)
{
    double u = s->unit_end_ns;
    if (isfinite(u) && u > s->start_ns && u <= s->end_ns)
        return u;
    return s->end_ns;
}

/* The EU window: first issue to last completion. */
static bool window(const pt_timeline *tl, double *lo, double *hi)
{
    if (!tl || tl->n_spans <= 0)
        return false;
    *lo = HUGE_VAL;
    *hi = -HUGE_VAL;
    for (int64_t i = 0; i < tl->n_spans; i++) {
        if (tl->spans[i].issue_ns < *lo)
            *lo = tl->spans[i].issue_ns;
        if (tl->spans[i].end_ns > *hi)
            *hi = tl->spans[i].end_ns;
    }
    return *hi > *lo;
}

/* Union (ns) of lane L's spans (occupancy: start -> unit end) within the EU window; *pct the
 * busy % through pt_busy_pct. */
static double lane_union(const pt_timeline *tl, int L, bool occupancy, double *pct)
{
    *pct = NAN;
    double lo, hi;
    if (!window(tl, &lo, &hi) || L < 0 || L >= PT_MAX_LANES)
        return 0;
    int64_t n = 0;
    for (int64_t i = 0; i < tl->n_spans; i++)
        n += tl->spans[i].lane == L;
    pt_interval *v = malloc(((size_t)n + 1) * sizeof *v);
    if (!v)
        return NAN;
    int64_t k = 0;
    for (int64_t i = 0; i < tl->n_spans; i++) {
        const pt_span *s = &tl->spans[i];
        if (s->lane != L)
            continue;
        v[k++] = occupancy ? (pt_interval){s->start_ns, pt_span_unit_end(s)}
                           : (pt_interval){s->issue_ns, s->end_ns};
    }
    *pct = pt_busy_pct(v, k, lo, hi);
    double u = pt_interval_union_ns(v, k, lo, hi);
    free(v);
    return u;
}

double pt_timeline_lane_busy_pct(const pt_timeline *tl, int lane)
{
    double pct;
    lane_union(tl, lane, false, &pct);
    return pct;
}

double pt_timeline_lane_occupancy_pct(const pt_timeline *tl, int lane)
{
    double pct;
    lane_union(tl, lane, true, &pct);
    return pct;
}

double pt_timeline_lane_busy_ns(const pt_timeline *tl, int lane)
{
    double pct;
    return lane_union(tl, lane, false, &pct);
}

double pt_timeline_lane_occupied_ns(const pt_timeline *tl, int lane)
{
    double pct;
    return lane_union(tl, lane, true, &pct);
}

bool pt_timeline_lane_unions(const pt_timeline *tl, double *busy, double *occupied)
{
    for (int L = 0; L < PT_MAX_LANES; L++)
        busy[L] = occupied[L] = 0;
    double lo, hi;
    if (!window(tl, &lo, &hi))
        return true;
    int64_t cnt[PT_MAX_LANES + 1] = {0}, off[PT_MAX_LANES + 1] = {0};
    for (int64_t i = 0; i < tl->n_spans; i++)
        if (tl->spans[i].lane >= 0 && tl->spans[i].lane < PT_MAX_LANES)
            cnt[tl->spans[i].lane]++;
    for (int L = 0; L < PT_MAX_LANES; L++)
        off[L + 1] = off[L] + cnt[L];
    pt_interval *a = malloc(((size_t)off[PT_MAX_LANES] + 1) * sizeof *a);
    pt_interval *b = malloc(((size_t)off[PT_MAX_LANES] + 1) * sizeof *b);
    if (!a || !b) {
        free(a);
        free(b);
        return false;
    }
    int64_t fill[PT_MAX_LANES];
    for (int L = 0; L < PT_MAX_LANES; L++)
        fill[L] = off[L];
    for (int64_t i = 0; i < tl->n_spans; i++) {
        const pt_span *s = &tl->spans[i];
        if (s->lane < 0 || s->lane >= PT_MAX_LANES)
            continue;
        int64_t k = fill[s->lane]++;
        a[k] = (pt_interval){s->issue_ns, s->end_ns};
        b[k] = (pt_interval){s->start_ns, pt_span_unit_end(s)};
    }
    for (int L = 0; L < PT_MAX_LANES; L++) {
        busy[L] = pt_interval_union_ns(a + off[L], cnt[L], lo, hi);
        occupied[L] = pt_interval_union_ns(b + off[L], cnt[L], lo, hi);
    }
    free(a);
    free(b);
    return true;
}

double pt_error_pct(double predicted, double measured)
{
    if (!isfinite(predicted) || !isfinite(measured) || !(measured > 0))
        return NAN;
    return (predicted - measured) / measured * 100.0;
}
