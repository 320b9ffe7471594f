/* timeline_tooltip.c — the timeline's tooltip text (see timeline_tooltip.h). */
#include "timeline_tooltip.h"

#include "timeline_range.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *s;
    size_t len, cap;
} buf;

static void put(buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !b->s) {
        va_end(ap2);
        return;
    }
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = (b->len + (size_t)n + 1) * 2;
        char *ns = realloc(b->s, cap);
        if (!ns) {
            free(b->s);
            b->s = NULL;
            va_end(ap2);
            return;
        }
        b->s = ns;
        b->cap = cap;
    }
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap2);
    va_end(ap2);
    b->len += (size_t)n;
}

/* Names come from files: escaped for Pango markup. */
static void put_text(buf *b, const char *t)
{
    for (; t && *t; t++) {
        switch (*t) {
        case '<': put(b, "&lt;"); break;
        case '>': put(b, "&gt;"); break;
        case '&': put(b, "&amp;"); break;
        default: put(b, "%c", *t);
        }
    }
}

static const char *label_of(const pt_tl_model *m, int stask)
{
    return m->stask_labels && stask >= 0 && stask < m->n_stasks ? m->stask_labels[stask] : "?";
}

static double offset_of(const pt_tl_model *m, int g)
{
    return g > 0 && g < pt_tl_groups(m) ? m->group_offset_ns[g] : 0;
}

/* hit: an index into the group's spans (a compared sProgram and the several-CTA tiles have
 * their own, with the same lanes and sTask indices). */
static void bar_text(buf *b, const pt_tl_model *m, int64_t hit, int group)
{
    int64_t n;
    const pt_span *spans = pt_tl_group_spans(m, group, &n);
    const pt_span *s = &spans[hit];
    bool known = s->stask >= 0 && s->stask < m->n_stasks;
    double off = offset_of(m, group);
    put(b, "<b>");
    put_text(b, label_of(m, s->stask));
    put(b, "</b>  (lane ");
    put_text(b, m->lane_names[s->lane]);
    if (group > 0 && m->group_labels[group]) {
        put(b, ", ");
        put_text(b, m->group_labels[group]);
    }
    put(b, ")\niteration %lld\nstart %.1f ns\nend %.1f ns\nduration %.1f ns", (long long)s->iter,
        s->start_ns + off, s->end_ns + off, s->end_ns - s->start_ns);
    if (known && m->stask_measured_ns && isfinite(m->stask_measured_ns[s->stask]))
        put(b, "\nmeasured mean %.1f ns", m->stask_measured_ns[s->stask]);
    if (known && m->stask_error_pct && isfinite(m->stask_error_pct[s->stask]))
        put(b, "\nprediction error %+.1f%%", m->stask_error_pct[s->stask]);
    int64_t n_chain;
    const int64_t *chain = pt_tl_group_critical(m, group, &n_chain);
    for (int64_t k = 0; chain && k < n_chain; k++)
        if (chain[k] == hit) {
            put(b, "\non the critical path");
            break;
        }
}

static const pt_span *measured_of(const pt_tl_model *m, int g, int64_t *n)
{
    if (g == 0) {
        *n = m->measured ? m->n_measured : 0;
        return m->measured;
    }
    *n = m->group_measured[g] ? m->group_n_measured[g] : 0;
    return m->group_measured[g];
}

/* A measured bar lies in the bottom strip of its lane (timeline_render.c: 10 px up, 7 tall). */
static bool measured_text(buf *b, const pt_tl_model *m, const pt_tl_viewport *v, int row,
                          double x, double y)
{
    int lane = row % m->n_lanes, g = row / m->n_lanes;
    int64_t n;
    const pt_span *ms = measured_of(m, g, &n);
    double bottom = pt_tl_row_top(m, v, row) + pt_tl_row_height(m, v, row);
    if (!ms || n <= 0 || y < bottom - 12 || y > bottom - 1)
        return false;
    double t = pt_tl_x_to_time(v, x), tol = (v->t1_ns - v->t0_ns) / fmax(v->width, 1);
    for (int64_t i = 0; i < n; i++) {
        const pt_span *s = &ms[i];
        if (s->lane != lane || t < s->start_ns - tol || t > s->end_ns + tol)
            continue;
        put(b, "<b>");
        put_text(b, label_of(m, s->stask));
        put(b, "</b>  measured (lane ");
        put_text(b, m->lane_names[lane]);
        if (g > 0 && m->group_labels[g]) {
            put(b, ", ");
            put_text(b, m->group_labels[g]);
        }
        put(b, ")\niteration %lld\nstart %.1f ns\nend %.1f ns\nduration %.1f ns",
            (long long)s->iter, s->start_ns, s->end_ns, s->end_ns - s->start_ns);
        /* Against the predicted instance of the same sTask and iteration. */
        for (int64_t j = 0; j < m->n_spans; j++) {
            const pt_span *p = &m->spans[j];
            if (p->stask == s->stask && p->iter == s->iter) {
                double pd = p->end_ns - p->start_ns, md = s->end_ns - s->start_ns;
                put(b, "\npredicted duration %.1f ns", pd);
                if (pd > 0)
                    put(b, " (measured %+.1f%%)", 100 * (md - pd) / pd);
                break;
            }
        }
        return true;
    }
    return false;
}

static void lane_text(buf *b, const pt_tl_model *m, int row)
{
    int lane = row % m->n_lanes, g = row / m->n_lanes;
    static const char *const kinds[] = {"TMA: asynchronous bulk copies",
                                        "tensor cores: asynchronous matrix multiply",
                                        "CUDA cores: synchronous vector work"};
    pt_seu_kind k = m->lane_seu[lane];
    put(b, "<b>");
    put_text(b, m->lane_names[lane]);
    put(b, "</b>");
    if (g > 0 && m->group_labels[g]) {
        put(b, "  (");
        put_text(b, m->group_labels[g]);
        put(b, ")");
    }
    put(b, "\n%s", (int)k >= 0 && k < PT_SEU_COUNT ? kinds[k] : "another unit");
    int64_t bars = 0, n;
    const pt_span *spans = pt_tl_group_spans(m, g, &n);
    for (int64_t i = 0; i < n; i++)
        bars += spans[i].lane == lane;
    double share[PT_MAX_LANES];
    pt_tl_lane_busy_share(m, share);
    put(b, "\n%lld bar%s; busy %.0f%% of the EU's run (first start to last end)",
        (long long)bars, bars == 1 ? "" : "s", 100 * share[lane]);
}

static const char *dep_word(const pt_span_deps *d, int64_t e)
{
    int k = d->is_wait[e];
    return k == PT_DEP_UNIT    ? "its unit busy" /* queued behind it on the shared unit */
           : k == PT_DEP_STAGE ? "a free ring stage"
           : k == PT_DEP_WAIT  ? "Wait"
                               : "data";
}

/* An idle gap: between the lane's bar before x and the one after it. */
static bool gap_text(buf *b, const pt_tl_model *m, const pt_tl_viewport *v, int row, double x)
{
    int lane = row % m->n_lanes, g = row / m->n_lanes;
    double t = pt_tl_x_to_time(v, x) - offset_of(m, g);
    int64_t prev = -1, next = -1, n;
    const pt_span *spans = pt_tl_group_spans(m, g, &n);
    for (int64_t i = 0; i < n; i++) {
        const pt_span *s = &spans[i];
        if (s->lane != lane)
            continue;
        if (s->end_ns <= t && (prev < 0 || s->end_ns > spans[prev].end_ns))
            prev = i;
        if (s->start_ns >= t && (next < 0 || s->start_ns < spans[next].start_ns))
            next = i;
        if (s->start_ns < t && s->end_ns > t)
            return false; /* under a bar (a sub-row not hit): not a gap */
    }
    /* before the lane's first bar or after its last (of the tile, several CTAs): not waiting,
     * and not tinted */
    if (prev < 0 || next < 0 || !pt_tl_lane_waiting(m, g, lane, t))
        return false;
    double a = spans[prev].end_ns, z = spans[next].start_ns, off = offset_of(m, g);
    put(b, "<b>idle %.1f ns</b> on ", z - a);
    put_text(b, m->lane_names[lane]);
    put(b, "  (%.1f – %.1f ns)\nnext: <b>", a + off, z + off);
    put_text(b, label_of(m, spans[next].stask));
    put(b, "</b> iteration %lld", (long long)spans[next].iter);
    const pt_span_deps *d = pt_tl_group_deps(m, g);
    if (!d || d->off[next] == d->off[next + 1]) {
        put(b, "\nit waited for its lane only (no dependency is known)");
        return true;
    }
    /* The dependency that released it last is what released it (unless the lane itself was
     * later); a unit holder releases at the end of its occupancy, the others at their end. */
    int64_t last = -1;
    for (int64_t e = d->off[next]; e < d->off[next + 1]; e++)
        if (last < 0 || pt_dep_release_ns(spans, d, e) > pt_dep_release_ns(spans, d, last))
            last = e;
    put(b, "\nit waited for:");
    int shown = 0;
    for (int64_t e = d->off[next]; e < d->off[next + 1] && shown < 6; e++, shown++) {
        const pt_span *u = &spans[d->idx[e]];
        put(b, "\n  %s", e == last ? "• " : "  ");
        put_text(b, label_of(m, u->stask));
        put(b, " iteration %lld (%s), %s %.1f ns", (long long)u->iter, dep_word(d, e),
            d->is_wait[e] == PT_DEP_UNIT ? "freed the unit at" : "ended",
            pt_dep_release_ns(spans, d, e) + off);
    }
    if (d->off[next + 1] - d->off[next] > shown)
        put(b, "\n  … %lld more", (long long)(d->off[next + 1] - d->off[next] - shown));
    double slack = z - pt_dep_release_ns(spans, d, last);
    if (slack > 1)
        put(b, "\n• ended last, %.1f ns before it started (a barrier hand-off, or its unit or "
               "warp role was still busy)", slack);
    else
        put(b, "\n• ended last: it released it");
    return true;
}

char *pt_tl_tooltip_markup(const pt_tl_model *m, const pt_tl_viewport *v, double x, double y)
{
    if (m->n_lanes <= 0)
        return NULL;
    buf b = {malloc(256), 0, 256};
    if (!b.s)
        return NULL;
    b.s[0] = '\0';
    int group = 0;
    int64_t hit = pt_tl_hit_group(m, v, x, y, &group);
    int row = pt_tl_row_at(m, v, y);
    bool said = false;
    /* The measured strip first: a lane's hit area covers it too. */
    bool lanes = row >= 0 && pt_tl_part_at(v, x, y) == PT_TL_AT_LANES;
    if (lanes && measured_text(&b, m, v, row, x, y)) {
        said = true;
    } else if (hit >= 0) {
        bar_text(&b, m, hit, group);
        said = true;
    } else if (row >= 0 && pt_tl_part_at(v, x, y) == PT_TL_AT_LABELS) {
        lane_text(&b, m, row);
        said = true;
    } else if (lanes) {
        said = gap_text(&b, m, v, row, x);
    }
    if (!said || !b.s) {
        free(b.s);
        return NULL;
    }
    return b.s;
}
