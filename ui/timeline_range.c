/* timeline_range.c — range aggregates and lane busy shares (see timeline_range.h). */
#include "timeline_range.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pt_tl_lane_busy(const pt_tl_model *m, double t0, double t1, double *busy)
{
    /* Spans are sorted by start, so each lane's union is one sweep: a bar adds only the part
     * past the furthest end seen on its lane (overlapping copies in flight count once). */
    double reach[PT_MAX_LANES];
    for (int l = 0; l < m->n_lanes && l < PT_MAX_LANES; l++) {
        busy[l] = 0;
        reach[l] = t0;
    }
    for (int64_t i = 0; i < m->n_spans; i++) {
        const pt_span *s = &m->spans[i];
        if (s->start_ns >= t1)
            break;
        int l = s->lane;
        if (l < 0 || l >= m->n_lanes || l >= PT_MAX_LANES)
            continue;
        double a = fmax(s->start_ns, reach[l]), b = fmin(s->end_ns, t1);
        if (b > a) {
            busy[l] += b - a;
            reach[l] = b;
        }
    }
}

void pt_tl_lane_busy_share(const pt_tl_model *m, double *share)
{
    double t0, t1;
    for (int l = 0; l < m->n_lanes && l < PT_MAX_LANES; l++)
        share[l] = 0;
    if (m->n_spans <= 0)
        return;
    t0 = m->spans[0].start_ns;
    t1 = m->spans[0].end_ns;
    for (int64_t i = 0; i < m->n_spans; i++)
        t1 = fmax(t1, m->spans[i].end_ns);
    if (!(t1 > t0))
        return;
    pt_tl_lane_busy(m, t0, t1, share);
    for (int l = 0; l < m->n_lanes && l < PT_MAX_LANES; l++)
        share[l] /= t1 - t0;
}

static int by_time_desc(const void *a, const void *b)
{
    const pt_tl_stask_agg *x = a, *y = b;
    if (x->in_range_ns != y->in_range_ns)
        return x->in_range_ns < y->in_range_ns ? 1 : -1;
    return x->stask - y->stask;
}

bool pt_tl_range_stats_compute(const pt_tl_model *m, double t0, double t1,
                               pt_tl_range_stats *out)
{
    memset(out, 0, sizeof *out);
    out->t0_ns = t0;
    out->t1_ns = t1;
    out->n_lanes = m->n_lanes;
    pt_tl_lane_busy(m, t0, t1, out->lane_busy_ns);
    if (m->n_stasks <= 0)
        return true;
    pt_tl_stask_agg *all = calloc((size_t)m->n_stasks, sizeof *all);
    double *whole = calloc((size_t)m->n_stasks, sizeof *whole);
    if (!all || !whole) {
        free(all);
        free(whole);
        return false;
    }
    for (int64_t i = 0; i < m->n_spans; i++) {
        const pt_span *s = &m->spans[i];
        if (s->start_ns >= t1)
            break;
        if (s->end_ns <= t0 || s->stask < 0 || s->stask >= m->n_stasks)
            continue;
        pt_tl_stask_agg *a = &all[s->stask];
        a->count++;
        a->in_range_ns += fmin(s->end_ns, t1) - fmax(s->start_ns, t0);
        whole[s->stask] += s->end_ns - s->start_ns;
    }
    int n = 0;
    for (int k = 0; k < m->n_stasks; k++)
        if (all[k].count > 0) {
            all[n] = all[k];
            all[n].stask = k;
            all[n].mean_ns = whole[k] / (double)all[k].count;
            n++;
        }
    free(whole);
    qsort(all, (size_t)n, sizeof *all, by_time_desc);
    out->n_stasks = n;
    out->stasks = all;
    return true;
}

void pt_tl_range_stats_clear(pt_tl_range_stats *rs)
{
    free(rs->stasks);
    rs->stasks = NULL;
    rs->n_stasks = 0;
}

static void fmt_ns(char *buf, size_t n, double ns)
{
    if (fabs(ns) >= 10000)
        snprintf(buf, n, "%.2f µs", ns / 1000);
    else
        snprintf(buf, n, "%.1f ns", ns);
}

char *pt_tl_range_stats_format(const pt_tl_model *m, const pt_tl_range_stats *rs,
                               int max_stasks)
{
    size_t cap = 512 + (size_t)(rs->n_lanes + (rs->n_stasks < max_stasks ? rs->n_stasks
                                                                          : max_stasks)) * 160;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    size_t len = 0;
    /* Labels are bounded by the sTask-graph, but a long one only truncates the text. */
#define PUT(...) len += (size_t)snprintf(out + (len < cap ? len : cap - 1), \
                                         len < cap ? cap - len : 0, __VA_ARGS__)
    double d = rs->t1_ns - rs->t0_ns;
    char a[32], b[32], c[32];
    fmt_ns(a, sizeof a, d);
    fmt_ns(b, sizeof b, rs->t0_ns);
    fmt_ns(c, sizeof c, rs->t1_ns);
    PUT("Duration %s (%s – %s)\nLane busy in the range:\n", a, b, c);
    for (int l = 0; l < rs->n_lanes && l < PT_MAX_LANES; l++) {
        fmt_ns(a, sizeof a, rs->lane_busy_ns[l]);
        PUT("  %-10s %5.1f%%  %s\n", m->lane_names[l] ? m->lane_names[l] : "?",
            d > 0 ? 100 * rs->lane_busy_ns[l] / d : 0, a);
    }
    if (rs->n_stasks == 0) {
        PUT("No sTask runs in the range.");
    } else {
        PUT("sTasks: count · time in range · mean duration\n");
        for (int k = 0; k < rs->n_stasks && k < max_stasks; k++) {
            const pt_tl_stask_agg *s = &rs->stasks[k];
            fmt_ns(a, sizeof a, s->in_range_ns);
            fmt_ns(b, sizeof b, s->mean_ns);
            PUT("  %s  ×%lld · %s · %s\n",
                m->stask_labels ? m->stask_labels[s->stask] : "?", (long long)s->count, a, b);
        }
        if (rs->n_stasks > max_stasks)
            PUT("  … and %d more", rs->n_stasks - max_stasks);
    }
#undef PUT
    if (len >= cap)
        out[cap - 1] = '\0';
    else if (len > 0 && out[len - 1] == '\n')
        out[len - 1] = '\0';
    return out;
}
