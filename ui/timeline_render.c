/* timeline_render.c — the timeline drawing and its geometry (see timeline_render.h). */
#include "timeline_render.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    double r, g, b;
} rgb;

static rgb seu_colour(pt_seu_kind k, bool dark)
{
    static const rgb light[PT_SEU_COUNT] = {
        {0.21, 0.52, 0.89},  /* tma: blue */
        {0.18, 0.65, 0.33},  /* tensor core: green */
        {0.90, 0.55, 0.10},  /* cuda core: orange */
    };
    static const rgb darkc[PT_SEU_COUNT] = {
        {0.38, 0.63, 0.95},
        {0.34, 0.78, 0.47},
        {0.98, 0.67, 0.27},
    };
    if ((int)k < 0 || k >= PT_SEU_COUNT)
        return (rgb){0.5, 0.5, 0.5};
    return dark ? darkc[k] : light[k];
}

void pt_tl_seu_rgb(pt_seu_kind k, bool dark, double *r, double *g, double *b)
{
    rgb c = seu_colour(k, dark);
    *r = c.r;
    *g = c.g;
    *b = c.b;
}

void pt_tl_extent(const pt_tl_model *m, double *t0, double *t1)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int64_t i = 0; i < m->n_spans; i++) {
        if (m->spans[i].start_ns < lo)
            lo = m->spans[i].start_ns;
        if (m->spans[i].end_ns > hi)
            hi = m->spans[i].end_ns;
    }
    if (!(lo < hi)) {
        lo = 0;
        hi = 1;
    }
    *t0 = lo;
    *t1 = hi;
}

void pt_tl_fit(const pt_tl_model *m, pt_tl_viewport *v)
{
    double t0, t1;
    pt_tl_extent(m, &t0, &t1);
    double margin = (t1 - t0) * 0.02;
    v->t0_ns = t0 - margin;
    v->t1_ns = t1 + margin;
}

static double plot_w(const pt_tl_viewport *v)
{
    double w = v->width - PT_TL_LABEL_W;
    return w < 1 ? 1 : w;
}

double pt_tl_time_to_x(const pt_tl_viewport *v, double t)
{
    return PT_TL_LABEL_W + (t - v->t0_ns) / (v->t1_ns - v->t0_ns) * plot_w(v);
}

double pt_tl_x_to_time(const pt_tl_viewport *v, double x)
{
    return v->t0_ns + (x - PT_TL_LABEL_W) / plot_w(v) * (v->t1_ns - v->t0_ns);
}

void pt_tl_zoom(pt_tl_viewport *v, double factor, double x)
{
    if (!(factor > 0))
        return;
    if (x < PT_TL_LABEL_W)
        x = PT_TL_LABEL_W + plot_w(v) / 2;
    double t = pt_tl_x_to_time(v, x);
    double span = (v->t1_ns - v->t0_ns) / factor;
    if (span < 1e-3)
        span = 1e-3; /* 1 ps across the view is as far as it goes */
    if (span > 1e12)
        span = 1e12;
    double frac = (x - PT_TL_LABEL_W) / plot_w(v);
    v->t0_ns = t - frac * span;
    v->t1_ns = v->t0_ns + span;
}

void pt_tl_pan(pt_tl_viewport *v, double fraction)
{
    double d = (v->t1_ns - v->t0_ns) * fraction;
    v->t0_ns += d;
    v->t1_ns += d;
}

double pt_tl_content_height(const pt_tl_model *m)
{
    return PT_TL_AXIS_H + m->n_lanes * PT_TL_LANE_H + 8;
}

static double lane_y(int lane)
{
    return PT_TL_AXIS_H + lane * PT_TL_LANE_H;
}

int64_t pt_tl_hit(const pt_tl_model *m, const pt_tl_viewport *v, double x, double y)
{
    if (x < PT_TL_LABEL_W || y < PT_TL_AXIS_H)
        return -1;
    int lane = (int)floor((y - PT_TL_AXIS_H) / PT_TL_LANE_H);
    if (lane < 0 || lane >= m->n_lanes)
        return -1;
    double ly = y - lane_y(lane);
    if (ly < 3 || ly > PT_TL_LANE_H - 3)
        return -1;
    /* Within a pixel either side so thin bars can be hovered; the nearest start wins. */
    double tol = (v->t1_ns - v->t0_ns) / plot_w(v);
    double t = pt_tl_x_to_time(v, x);
    int64_t best = -1;
    double best_d = INFINITY;
    for (int64_t i = 0; i < m->n_spans; i++) {
        const pt_span *s = &m->spans[i];
        if (s->lane != lane)
            continue;
        if (s->start_ns - tol > t)
            break; /* sorted by start */
        if (t <= s->end_ns + tol) {
            double d = t < s->start_ns ? s->start_ns - t : t > s->end_ns ? t - s->end_ns : 0;
            if (d <= best_d) {
                best_d = d;
                best = i;
            }
        }
    }
    return best;
}

/* A "nice" tick step (1, 2 or 5 × 10^k) giving about `target` ticks across `range`. */
static double nice_step(double range, double target)
{
    double raw = range / target;
    double p = pow(10, floor(log10(raw)));
    double f = raw / p;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

static void format_time(char *buf, size_t n, double ns, double step)
{
    if (step >= 1000.0 || fabs(ns) >= 10000.0) {
        int dec = step >= 1000.0 ? 0 : step >= 100 ? 1 : step >= 10 ? 2 : 3;
        if (step >= 1000.0 && fmod(step, 1000.0) != 0)
            dec = 1;
        snprintf(buf, n, "%.*f µs", dec, ns / 1000.0);
    } else {
        int dec = step >= 1 ? 0 : step >= 0.1 ? 1 : 2;
        snprintf(buf, n, "%.*f ns", dec, ns);
    }
}

static void draw_axis(cairo_t *cr, const pt_tl_viewport *v, rgb fg)
{
    double range = v->t1_ns - v->t0_ns;
    double step = nice_step(range, plot_w(v) / 110.0);
    double first = ceil(v->t0_ns / step) * step;
    cairo_set_font_size(cr, 11);
    cairo_set_line_width(cr, 1);
    for (double t = first; t <= v->t1_ns; t += step) {
        double x = floor(pt_tl_time_to_x(v, t)) + 0.5;
        cairo_set_source_rgba(cr, fg.r, fg.g, fg.b, 0.12);
        cairo_move_to(cr, x, PT_TL_AXIS_H);
        cairo_line_to(cr, x, v->height);
        cairo_stroke(cr);
        cairo_set_source_rgba(cr, fg.r, fg.g, fg.b, 0.7);
        cairo_move_to(cr, x, PT_TL_AXIS_H - 8);
        cairo_line_to(cr, x, PT_TL_AXIS_H);
        cairo_stroke(cr);
        char buf[48];
        format_time(buf, sizeof buf, fabs(t) < step * 1e-6 ? 0 : t, step);
        cairo_move_to(cr, x + 3, PT_TL_AXIS_H - 11);
        cairo_show_text(cr, buf);
    }
    cairo_set_source_rgba(cr, fg.r, fg.g, fg.b, 0.5);
    cairo_move_to(cr, PT_TL_LABEL_W, PT_TL_AXIS_H - 0.5);
    cairo_line_to(cr, v->width, PT_TL_AXIS_H - 0.5);
    cairo_stroke(cr);
}

typedef struct {
    bool open;
    double x0, x1;
} merge_run;

static void flush_merge(cairo_t *cr, merge_run *r, int lane, rgb fg, pt_tl_stats *st)
{
    if (!r->open)
        return;
    double w = r->x1 - r->x0;
    if (w < 1)
        w = 1;
    cairo_set_source_rgba(cr, fg.r, fg.g, fg.b, 0.45);
    cairo_rectangle(cr, r->x0, lane_y(lane) + 5, w, PT_TL_LANE_H - 10);
    cairo_fill(cr);
    r->open = false;
    st->merged++;
}

void pt_tl_render(cairo_t *cr, const pt_tl_model *m, const pt_tl_viewport *v, pt_tl_stats *stats)
{
    pt_tl_stats st = {0, 0, 0, 0};
    bool overlay = m->n_measured > 0 && m->measured;
    /* With the measured overlay the predicted bars take the upper part of a lane. */
    double bar_top = 4, bar_h = overlay ? PT_TL_LANE_H - 15 : PT_TL_LANE_H - 8;
    rgb bg = v->dark ? (rgb){0.14, 0.14, 0.15} : (rgb){1, 1, 1};
    rgb fg = v->dark ? (rgb){0.92, 0.92, 0.92} : (rgb){0.13, 0.13, 0.15};
    cairo_save(cr);
    cairo_rectangle(cr, 0, 0, v->width, v->height);
    cairo_clip(cr);
    cairo_set_source_rgb(cr, bg.r, bg.g, bg.b);
    cairo_paint(cr);
    cairo_select_font_face(cr, "Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);

    /* Lane backgrounds (idle time shows through) and names. */
    for (int l = 0; l < m->n_lanes; l++) {
        double y = lane_y(l);
        cairo_set_source_rgba(cr, fg.r, fg.g, fg.b, l % 2 ? 0.035 : 0.07);
        cairo_rectangle(cr, 0, y, v->width, PT_TL_LANE_H);
        cairo_fill(cr);
    }
    if (v->t1_ns > v->t0_ns)
        draw_axis(cr, v, fg);

    /* Bars, clipped to the plot area. */
    cairo_save(cr);
    cairo_rectangle(cr, PT_TL_LABEL_W, PT_TL_AXIS_H, v->width - PT_TL_LABEL_W,
                    v->height - PT_TL_AXIS_H);
    cairo_clip(cr);
    merge_run runs[PT_MAX_LANES];
    memset(runs, 0, sizeof runs);
    cairo_set_font_size(cr, 11);
    double xmax = v->width;
    for (int64_t i = 0; v->t1_ns > v->t0_ns && i < m->n_spans; i++) {
        const pt_span *s = &m->spans[i];
        if (s->lane < 0 || s->lane >= m->n_lanes)
            continue;
        if (s->start_ns > v->t1_ns)
            break; /* sorted by start: nothing further is visible */
        if (s->end_ns < v->t0_ns)
            continue;
        double x0 = pt_tl_time_to_x(v, s->start_ns), x1 = pt_tl_time_to_x(v, s->end_ns);
        if (x0 < PT_TL_LABEL_W - 2)
            x0 = PT_TL_LABEL_W - 2;
        if (x1 > xmax + 2)
            x1 = xmax + 2;
        merge_run *r = &runs[s->lane];
        bool selected = v->selected_stask >= 0 && s->stask == v->selected_stask;
        if (x1 - x0 < PT_TL_MIN_BAR_PX && !selected && i != v->hover_span) {
            if (r->open && x0 <= r->x1 + PT_TL_MIN_BAR_PX) {
                if (x1 > r->x1)
                    r->x1 = x1;
            } else {
                flush_merge(cr, r, s->lane, fg, &st);
                r->open = true;
                r->x0 = x0;
                r->x1 = x1;
            }
            continue;
        }
        flush_merge(cr, r, s->lane, fg, &st);
        pt_seu_kind k = m->stask_seu && s->stask >= 0 && s->stask < m->n_stasks
                            ? m->stask_seu[s->stask] : m->lane_seu[s->lane];
        rgb c = seu_colour(k, v->dark);
        double y = lane_y(s->lane) + bar_top, h = bar_h, w = x1 - x0;
        if (w < 1)
            w = 1;
        cairo_set_source_rgb(cr, c.r, c.g, c.b);
        cairo_rectangle(cr, x0, y, w, h);
        cairo_fill(cr);
        if (w >= 3) { /* a hairline gap so back-to-back bars stay apart */
            cairo_set_source_rgba(cr, bg.r, bg.g, bg.b, 0.9);
            cairo_rectangle(cr, x1 - 0.5, y, 0.5, h);
            cairo_fill(cr);
        }
        if (selected || i == v->hover_span) {
            cairo_set_source_rgb(cr, fg.r, fg.g, fg.b);
            cairo_set_line_width(cr, selected ? 2.5 : 1.5);
            cairo_rectangle(cr, x0 + 0.75, y + 0.75, w - 1.5 > 0 ? w - 1.5 : 0.5, h - 1.5);
            cairo_stroke(cr);
        }
        const char *label = m->stask_labels && s->stask >= 0 && s->stask < m->n_stasks
                                ? m->stask_labels[s->stask] : NULL;
        if (label && w > 24 && h >= 14) {
            cairo_text_extents_t te;
            cairo_text_extents(cr, label, &te);
            if (te.x_advance + 6 <= w) {
                double lx = x0 < PT_TL_LABEL_W ? PT_TL_LABEL_W : x0;
                if (lx + te.x_advance + 6 > x1)
                    lx = x0;
                cairo_set_source_rgb(cr, 1, 1, 1);
                cairo_move_to(cr, lx + 3, y + h / 2 + 4);
                cairo_show_text(cr, label);
                st.labels++;
            }
        }
        st.bars++;
    }
    for (int l = 0; l < m->n_lanes; l++)
        flush_merge(cr, &runs[l], l, fg, &st);
    /* Measured bars: thin, magenta, outlined, under the predicted ones. */
    for (int64_t i = 0; overlay && v->t1_ns > v->t0_ns && i < m->n_measured; i++) {
        const pt_span *s = &m->measured[i];
        if (s->lane < 0 || s->lane >= m->n_lanes)
            continue;
        if (s->start_ns > v->t1_ns)
            break;
        if (s->end_ns < v->t0_ns)
            continue;
        double x0 = pt_tl_time_to_x(v, s->start_ns), x1 = pt_tl_time_to_x(v, s->end_ns);
        double w = x1 - x0 < 1 ? 1 : x1 - x0;
        double y = lane_y(s->lane) + PT_TL_LANE_H - 10, h = 7;
        cairo_set_source_rgba(cr, 0.80, 0.15, 0.60, 0.35);
        cairo_rectangle(cr, x0, y, w, h);
        cairo_fill(cr);
        if (w >= 3) {
            cairo_set_source_rgb(cr, 0.80, 0.15, 0.60);
            cairo_set_line_width(cr, 1);
            cairo_rectangle(cr, x0 + 0.5, y + 0.5, w - 1, h - 1);
            cairo_stroke(cr);
        }
        st.measured++;
    }
    cairo_restore(cr);

    /* Lane name column on top. */
    cairo_set_source_rgb(cr, bg.r, bg.g, bg.b);
    cairo_rectangle(cr, 0, 0, PT_TL_LABEL_W, v->height);
    cairo_fill(cr);
    cairo_set_font_size(cr, 12);
    for (int l = 0; l < m->n_lanes; l++) {
        double y = lane_y(l);
        rgb c = seu_colour(m->lane_seu[l], v->dark);
        cairo_set_source_rgb(cr, c.r, c.g, c.b);
        cairo_rectangle(cr, 4, y + 8, 4, PT_TL_LANE_H - 16);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, fg.r, fg.g, fg.b);
        cairo_move_to(cr, 14, y + PT_TL_LANE_H / 2 + 4);
        cairo_show_text(cr, m->lane_names[l] ? m->lane_names[l] : "?");
    }
    cairo_set_source_rgba(cr, fg.r, fg.g, fg.b, 0.3);
    cairo_set_line_width(cr, 1);
    cairo_move_to(cr, PT_TL_LABEL_W - 0.5, 0);
    cairo_line_to(cr, PT_TL_LABEL_W - 0.5, v->height);
    cairo_stroke(cr);
    cairo_restore(cr);
    if (stats)
        *stats = st;
}
