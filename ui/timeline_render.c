/* timeline_render.c — the timeline drawing and its geometry (see timeline_render.h). */
#include "timeline_render.h"
#include "timeline_range.h"
#include "busy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

/* WCAG relative luminance and contrast ratio. */
static double channel(double c)
{
    return c <= 0.03928 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

double pt_tl_luminance(double r, double g, double b)
{
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

double pt_tl_contrast(double r1, double g1, double b1, double r2, double g2, double b2)
{
    double a = pt_tl_luminance(r1, g1, b1), z = pt_tl_luminance(r2, g2, b2);
    return (fmax(a, z) + 0.05) / (fmin(a, z) + 0.05);
}

void pt_tl_label_rgb(pt_seu_kind k, bool dark, double *r, double *g, double *b)
{
    rgb f = seu_colour(k, dark);
    /* White on these mid-tone fills is 2-4:1 (orange 2.6:1); near-black is above 4.5:1 on
     * every one of them, so the text is whichever contrasts more. */
    double dark_text = pt_tl_contrast(f.r, f.g, f.b, 0.08, 0.08, 0.10);
    double white_text = pt_tl_contrast(f.r, f.g, f.b, 1, 1, 1);
    double v = dark_text >= white_text ? 0.08 : 1;
    *r = v;
    *g = v;
    *b = dark_text >= white_text ? 0.10 : 1;
}

void pt_tl_seu_rgb(pt_seu_kind k, bool dark, double *r, double *g, double *b)
{
    rgb c = seu_colour(k, dark);
    *r = c.r;
    *g = c.g;
    *b = c.b;
}

int pt_tl_groups(const pt_tl_model *m)
{
    int g = m->n_groups;
    return g < 1 ? 1 : g > PT_TL_MAX_GROUPS ? PT_TL_MAX_GROUPS : g;
}

int pt_tl_rows(const pt_tl_model *m)
{
    return m->n_lanes * pt_tl_groups(m);
}

static double group_offset(const pt_tl_model *m, int g)
{
    return g > 0 && g < pt_tl_groups(m) ? m->group_offset_ns[g] : 0;
}

static const pt_span *group_measured(const pt_tl_model *m, int g, int64_t *n)
{
    if (g == 0) {
        *n = m->measured ? m->n_measured : 0;
        return m->measured;
    }
    *n = m->group_measured[g] ? m->group_n_measured[g] : 0;
    return m->group_measured[g];
}

/* The predicted spans group g shows: its own (issue 19) or the shared ones. */
static bool own_spans(const pt_tl_model *m, int g)
{
    return g > 0 && g < pt_tl_groups(m) && m->group_spans[g];
}

const pt_span *pt_tl_group_spans(const pt_tl_model *m, int g, int64_t *n)
{
    if (own_spans(m, g)) {
        *n = m->group_n_spans[g];
        return m->group_spans[g];
    }
    *n = m->n_spans;
    return m->spans;
}

const uint8_t *pt_tl_group_subrows(const pt_tl_model *m, int g)
{
    return own_spans(m, g) ? m->group_span_subrow[g] : m->span_subrow;
}

const int64_t *pt_tl_group_critical(const pt_tl_model *m, int g, int64_t *n)
{
    *n = 0;
    if (g == 0 || own_spans(m, g)) {
        *n = g == 0 ? m->n_critical : m->group_n_critical[g];
        return g == 0 ? m->critical : m->group_critical[g];
    }
    return NULL; /* shared spans shifted by a wave (measured CTAs): drawn once, in group 0 */
}

const pt_span_deps *pt_tl_group_deps(const pt_tl_model *m, int g)
{
    const pt_span_deps *d = own_spans(m, g) ? m->group_deps[g] : m->deps;
    int64_t n;
    pt_tl_group_spans(m, g, &n);
    return d && d->n_spans == n && d->off ? d : NULL;
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
    if (lo < hi) {
        double omin = 0, omax = 0;
        for (int g = 1; g < pt_tl_groups(m); g++) {
            omin = fmin(omin, group_offset(m, g));
            omax = fmax(omax, group_offset(m, g));
        }
        lo += omin;
        hi += omax;
    }
    for (int g = 1; g < pt_tl_groups(m); g++) {
        if (!m->group_spans[g])
            continue;
        for (int64_t i = 0; i < m->group_n_spans[g]; i++) {
            lo = fmin(lo, m->group_spans[g][i].start_ns + group_offset(m, g));
            hi = fmax(hi, m->group_spans[g][i].end_ns + group_offset(m, g));
        }
    }
    for (int g = 0; g < pt_tl_groups(m); g++) {
        int64_t n;
        const pt_span *ms = group_measured(m, g, &n);
        for (int64_t i = 0; i < n; i++) {
            lo = fmin(lo, ms[i].start_ns);
            hi = fmax(hi, ms[i].end_ns);
        }
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

double pt_tl_header_h(const pt_tl_viewport *v)
{
    return PT_TL_AXIS_H + (v && v->overview ? PT_TL_OVERVIEW_H : 0);
}

pt_tl_part pt_tl_part_at(const pt_tl_viewport *v, double x, double y)
{
    if (x < PT_TL_LABEL_W)
        return PT_TL_AT_LABELS;
    if (v->overview && y < PT_TL_OVERVIEW_H)
        return PT_TL_AT_OVERVIEW;
    return y < pt_tl_header_h(v) ? PT_TL_AT_RULER : PT_TL_AT_LANES;
}

double pt_tl_overview_time_to_x(const pt_tl_model *m, const pt_tl_viewport *v, double t)
{
    double t0, t1;
    pt_tl_extent(m, &t0, &t1);
    return PT_TL_LABEL_W + (t - t0) / (t1 - t0) * plot_w(v);
}

double pt_tl_overview_x_to_time(const pt_tl_model *m, const pt_tl_viewport *v, double x)
{
    double t0, t1;
    pt_tl_extent(m, &t0, &t1);
    return t0 + (x - PT_TL_LABEL_W) / plot_w(v) * (t1 - t0);
}

static int subrows_of(const pt_tl_model *m, int lane)
{
    int k = lane >= 0 && lane < PT_MAX_LANES ? m->lane_subrows[lane] : 1;
    return k < 1 ? 1 : k > PT_TL_MAX_SUBROWS ? PT_TL_MAX_SUBROWS : k;
}

/* The sub-row of span i of group g's spans. */
static int span_sub_g(const pt_tl_model *m, int g, int64_t i)
{
    const uint8_t *sub = pt_tl_group_subrows(m, g);
    if (!sub)
        return 0;
    int64_t n;
    const pt_span *spans = pt_tl_group_spans(m, g, &n);
    int k = sub[i], k_max = subrows_of(m, spans[i].lane);
    return k < k_max ? k : k_max - 1;
}

/* A lane's height before filling: one more bar stacked in it adds 60% of a lane, so stacked
 * bars stay readable without the lane taking the room of several. */
static bool group_collapsed(const pt_tl_model *m, const pt_tl_viewport *v, int g)
{
    return v && pt_tl_groups(m) > 1 && g >= 0 && g < 32 && ((v->collapsed_groups >> g) & 1u);
}

static double base_height(const pt_tl_model *m, const pt_tl_viewport *v, int row)
{
    if (m->n_lanes > 0 && group_collapsed(m, v, row / m->n_lanes))
        return 0; /* only its header shows */
    int k = m->n_lanes > 0 ? subrows_of(m, row % m->n_lanes) : 1;
    return PT_TL_LANE_H * (1 + 0.6 * (k - 1));
}

/* With several lane groups each group's first row has its header band above it. */
static double row_pad(const pt_tl_model *m, int row)
{
    return pt_tl_groups(m) > 1 && m->n_lanes > 0 && row % m->n_lanes == 0 && row < pt_tl_rows(m)
               ? PT_TL_GROUP_H : 0;
}

#define MAX_ROWS (PT_MAX_LANES * PT_TL_MAX_GROUPS)

/* Row r's lanes area is tops[r] .. row_bottom(r); a group header lies just above its first
 * row's top. */
static double row_bottom(const pt_tl_model *m, const double *tops, int r)
{
    return tops[r + 1] - row_pad(m, r + 1);
}

static double rings_height(const pt_tl_model *m)
{
    int n = m->n_rings < PT_TL_MAX_RINGS ? m->n_rings : PT_TL_MAX_RINGS;
    return n > 0 ? n * PT_TL_RING_H + 4 : 0;
}

/* tops[0..rows]: where each row starts (tops[rows]: where the last one ends). */
static void layout(const pt_tl_model *m, const pt_tl_viewport *v, double *tops)
{
    int rows = pt_tl_rows(m);
    if (rows > MAX_ROWS)
        rows = MAX_ROWS;
    double sum = 0, pads = 0;
    for (int r = 0; r < rows; r++) {
        sum += base_height(m, v, r);
        pads += row_pad(m, r);
    }
    double scale = 1;
    if (v && v->fill_height && sum > 0) {
        double avail = v->height - pt_tl_header_h(v) - pads - 8 - rings_height(m);
        if (avail > sum)
            scale = fmin(avail / sum, PT_TL_MAX_FILL);
    }
    tops[0] = pt_tl_header_h(v) + row_pad(m, 0);
    for (int r = 0; r < rows; r++)
        tops[r + 1] = tops[r] + base_height(m, v, r) * scale + row_pad(m, r + 1);
}

double pt_tl_content_height(const pt_tl_model *m)
{
    double tops[MAX_ROWS + 1];
    layout(m, NULL, tops);
    int rows = pt_tl_rows(m) < MAX_ROWS ? pt_tl_rows(m) : MAX_ROWS;
    return tops[rows] + rings_height(m) + 8;
}

double pt_tl_row_top(const pt_tl_model *m, const pt_tl_viewport *v, int row)
{
    double tops[MAX_ROWS + 1];
    layout(m, v, tops);
    int rows = pt_tl_rows(m) < MAX_ROWS ? pt_tl_rows(m) : MAX_ROWS;
    return tops[row < 0 ? 0 : row > rows ? rows : row];
}

double pt_tl_row_height(const pt_tl_model *m, const pt_tl_viewport *v, int row)
{
    double tops[MAX_ROWS + 1];
    layout(m, v, tops);
    int rows = pt_tl_rows(m) < MAX_ROWS ? pt_tl_rows(m) : MAX_ROWS;
    return row >= 0 && row < rows ? row_bottom(m, tops, row) - tops[row] : 0;
}

static int row_at(const pt_tl_model *m, const double *tops, double y)
{
    int rows = pt_tl_rows(m) < MAX_ROWS ? pt_tl_rows(m) : MAX_ROWS;
    if (y < tops[0] || y >= tops[rows])
        return -1;
    int found;
    int lo = 0, hi = rows - 1;
    while (lo < hi) { /* the last row whose top is <= y */
        int mid = (lo + hi + 1) / 2;
        if (tops[mid] <= y)
            lo = mid;
        else
            hi = mid - 1;
    }
    found = lo;
    return y < row_bottom(m, tops, found) ? found : -1; /* a group header is no row */
}

int pt_tl_row_at(const pt_tl_model *m, const pt_tl_viewport *v, double y)
{
    double tops[MAX_ROWS + 1];
    layout(m, v, tops);
    return row_at(m, tops, y);
}

static const pt_span *group_measured(const pt_tl_model *m, int g, int64_t *n);
static bool has_overlay(const pt_tl_model *m)
{
    for (int g = 0; g < pt_tl_groups(m); g++) {
        int64_t n;
        if (group_measured(m, g, &n) != NULL && n > 0)
            return true;
    }
    return false;
}

/* The bar area of row `row` (top inset 5, and the lower part left to measured bars when an
 * overlay is shown), split into equal slots for the lane's sub-rows with a pixel between. */
static void bar_geom(const pt_tl_model *m, const double *tops, bool overlay, int row, int sub,
                     double *y, double *h)
{
    double rh = row_bottom(m, tops, row) - tops[row];
    double area = rh - (overlay ? 16 : 9);
    int k = m->n_lanes > 0 ? subrows_of(m, row % m->n_lanes) : 1;
    double slot = (area - (k - 1)) / k;
    *y = tops[row] + 5 + sub * (slot + 1);
    *h = slot;
}

void pt_tl_span_y(const pt_tl_model *m, const pt_tl_viewport *v, int64_t span, int group,
                  double *y, double *h)
{
    double tops[MAX_ROWS + 1];
    layout(m, v, tops);
    int64_t n;
    const pt_span *s = &pt_tl_group_spans(m, group, &n)[span];
    int row = group * m->n_lanes + s->lane;
    bar_geom(m, tops, has_overlay(m), row, span_sub_g(m, group, span), y, h);
}

void pt_tl_assign_subrows(const pt_span *spans, int64_t n_spans, int n_lanes, uint8_t *out,
                          int *lane_subrows)
{
    double end[PT_MAX_LANES][PT_TL_MAX_SUBROWS];
    int used[PT_MAX_LANES] = {0};
    for (int l = 0; l < PT_MAX_LANES; l++)
        lane_subrows[l] = 1;
    for (int64_t i = 0; i < n_spans; i++) {
        int l = spans[i].lane;
        out[i] = 0;
        if (l < 0 || l >= n_lanes || l >= PT_MAX_LANES)
            continue;
        /* A bar that starts where another ends (to a picosecond) is back to back, not
         * overlapping. */
        double start = spans[i].start_ns + 1e-3;
        int k = -1, soonest = 0;
        for (int j = 0; j < used[l]; j++) {
            if (end[l][j] <= start) {
                k = j;
                break;
            }
            if (end[l][j] < end[l][soonest])
                soonest = j;
        }
        if (k < 0)
            k = used[l] < PT_TL_MAX_SUBROWS ? used[l]++ : soonest;
        end[l][k] = spans[i].end_ns;
        out[i] = (uint8_t)k;
        if (used[l] > lane_subrows[l])
            lane_subrows[l] = used[l];
    }
}

int64_t pt_tl_lower_bound(const pt_span *spans, int64_t n, double t)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (spans[mid].start_ns < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The longest span: how far before the view a visible span can start. */
static double max_span(const pt_tl_model *m)
{
    if (m->max_span_ns > 0)
        return m->max_span_ns;
    double d = 0;
    for (int64_t i = 0; i < m->n_spans; i++)
        d = fmax(d, m->spans[i].end_ns - m->spans[i].start_ns);
    for (int g = 1; g < pt_tl_groups(m); g++)
        for (int64_t i = 0; m->group_spans[g] && i < m->group_n_spans[g]; i++)
            d = fmax(d, m->group_spans[g][i].end_ns - m->group_spans[g][i].start_ns);
    for (int g = 0; g < pt_tl_groups(m); g++) {
        int64_t n;
        const pt_span *ms = group_measured(m, g, &n);
        for (int64_t i = 0; i < n; i++)
            d = fmax(d, ms[i].end_ns - ms[i].start_ns);
    }
    return d;
}

int64_t pt_tl_hit_group(const pt_tl_model *m, const pt_tl_viewport *v, double x, double y,
                        int *group)
{
    if (group)
        *group = 0;
    if (x < PT_TL_LABEL_W || y < pt_tl_header_h(v) || m->n_lanes <= 0)
        return -1;
    double tops[MAX_ROWS + 1];
    layout(m, v, tops);
    int row = row_at(m, tops, y);
    if (row < 0)
        return -1;
    int lane = row % m->n_lanes, g = row / m->n_lanes;
    int64_t n_spans;
    const pt_span *spans = pt_tl_group_spans(m, g, &n_spans);
    double ly = y - tops[row], rh = row_bottom(m, tops, row) - tops[row];
    if (ly < 3 || ly > rh - 3)
        return -1;
    /* Stacked bars: only those of the sub-row under the pointer. */
    int k = subrows_of(m, lane), sub = 0;
    if (k > 1) {
        double by, bh;
        bar_geom(m, tops, has_overlay(m), row, 0, &by, &bh);
        sub = (int)floor((y - by) / (bh + 1));
        sub = sub < 0 ? 0 : sub >= k ? k - 1 : sub;
    }
    /* Within a pixel either side so thin bars can be hovered; the nearest start wins. */
    double tol = (v->t1_ns - v->t0_ns) / plot_w(v);
    double t = pt_tl_x_to_time(v, x) - group_offset(m, g);
    int64_t best = -1;
    double best_d = INFINITY;
    for (int64_t i = pt_tl_lower_bound(spans, n_spans, t - tol - max_span(m)); i < n_spans;
         i++) {
        const pt_span *s = &spans[i];
        if (s->start_ns - tol > t)
            break; /* sorted by start */
        if (s->lane != lane || (k > 1 && span_sub_g(m, g, i) != sub))
            continue;
        if (t <= s->end_ns + tol) {
            double d = t < s->start_ns ? s->start_ns - t : t > s->end_ns ? t - s->end_ns : 0;
            if (d <= best_d) {
                best_d = d;
                best = i;
            }
        }
    }
    if (group && best >= 0)
        *group = g;
    return best;
}

int64_t pt_tl_hit(const pt_tl_model *m, const pt_tl_viewport *v, double x, double y)
{
    int g = 0;
    int64_t hit = pt_tl_hit_group(m, v, x, y, &g);
    return own_spans(m, g) ? -1 : hit; /* callers index m->spans with it */
}

void pt_tl_match_rgb(bool dark, double *r, double *g, double *b)
{
    *r = dark ? 1.0 : 0.93;
    *g = dark ? 0.85 : 0.75;
    *b = dark ? 0.2 : 0.0;
}

void pt_tl_flag_rgb(bool dark, double *r, double *g, double *b)
{
    *r = dark ? 1.0 : 0.80;
    *g = dark ? 0.20 : 0.0;
    *b = dark ? 0.20 : 0.0;
}

void pt_tl_range_rgb(bool dark, double *r, double *g, double *b)
{
    *r = dark ? 0.45 : 0.16;
    *g = dark ? 0.62 : 0.38;
    *b = dark ? 0.98 : 0.80;
}

void pt_tl_stage_rgb(bool dark, double *r, double *g, double *b)
{
    *r = dark ? 0.78 : 0.50;
    *g = dark ? 0.58 : 0.22;
    *b = dark ? 1.00 : 0.78;
}

void pt_tl_critical_rgb(bool dark, double *r, double *g, double *b)
{
    *r = dark ? 1.0 : 0.88;
    *g = dark ? 0.33 : 0.11;
    *b = dark ? 0.33 : 0.14;
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
    int kind;   /* the sEU kind of every bar merged, or -1 when they differ */
} merge_run;

/* Rectangles of one colour, filled as one path: one cairo_fill per colour instead of one per
 * bar is what keeps thousands of visible bars within a frame. */
typedef struct {
    double (*r)[4];
    size_t n, cap;
} rect_batch;

enum { BATCH_SEU0, BATCH_GREY = PT_SEU_COUNT, BATCH_MERGED, BATCH_GAP, BATCH_SELECTED,
       BATCH_SPAN, N_BATCHES };

/* A bar drawn in detail on top of the fills: outlined (selected, hovered) or labelled. */
typedef struct {
    int64_t span;
    const pt_span *sp;       /* the span itself (a group's own spans are another array) */
    double x0, x1, y, h;
    bool selected, hover, match;
} detail;

/* Everything one render needs, so the passes below stay short. */
typedef struct {
    cairo_t *cr;
    const pt_tl_model *m;
    const pt_tl_viewport *v;
    rgb bg, fg;
    bool overlay;            /* measured bars take the lower part of each lane */
    double lookback;
    double tops[MAX_ROWS + 1]; /* the vertical layout (layout()) */
    pt_tl_stats st;
    rect_batch batch[N_BATCHES];
    detail *details;
    size_t n_details, cap_details;
    bool oom;                /* a batch could not grow: draw what fits, never crash */
} render_ctx;

static void batch_add(render_ctx *c, int b, double x, double y, double w, double h)
{
    rect_batch *rb = &c->batch[b];
    if (rb->n == rb->cap) {
        size_t cap = rb->cap ? rb->cap * 2 : 256;
        double (*nr)[4] = realloc(rb->r, cap * sizeof *nr);
        if (!nr) {
            c->oom = true;
            return;
        }
        rb->r = nr;
        rb->cap = cap;
    }
    rb->r[rb->n][0] = x;
    rb->r[rb->n][1] = y;
    rb->r[rb->n][2] = w;
    rb->r[rb->n][3] = h;
    rb->n++;
}

static void batch_fill(render_ctx *c, int b)
{
    rect_batch *rb = &c->batch[b];
    for (size_t i = 0; i < rb->n; i++)
        cairo_rectangle(c->cr, rb->r[i][0], rb->r[i][1], rb->r[i][2], rb->r[i][3]);
    if (rb->n)
        cairo_fill(c->cr);
    rb->n = 0;
}

static void flush_merge(render_ctx *c, merge_run *r, int row)
{
    if (!r->open)
        return;
    double w = r->x1 - r->x0;
    if (w < 1)
        w = 1;
    /* Bars of one kind merged keep its colour (zoomed out, the tensor cores' short mma bars
     * are still green); only a mix of kinds is grey. */
    batch_add(c, r->kind >= 0 ? BATCH_SEU0 + r->kind : BATCH_MERGED, r->x0, c->tops[row] + 5, w,
              row_bottom(c->m, c->tops, row) - c->tops[row] - 10);
    r->open = false;
    c->st.merged++;
}

static void draw_label(render_ctx *c, const pt_span *s, double x0, double x1, double y, double h)
{
    const pt_tl_model *m = c->m;
    const char *label = m->stask_labels && s->stask >= 0 && s->stask < m->n_stasks
                            ? m->stask_labels[s->stask] : NULL;
    double w = x1 - x0;
    if (!label || w <= 24 || h < 12)
        return; /* never a label that does not fit its bar */
    cairo_text_extents_t te;
    cairo_text_extents(c->cr, label, &te);
    if (te.x_advance + 6 > w)
        return;
    double lx = x0 < PT_TL_LABEL_W ? PT_TL_LABEL_W : x0;
    if (lx + te.x_advance + 6 > x1)
        lx = x0;
    pt_seu_kind k = m->stask_seu && s->stask >= 0 && s->stask < m->n_stasks
                        ? m->stask_seu[s->stask] : m->lane_seu[s->lane];
    double r, g, b;
    pt_tl_label_rgb(k, c->v->dark, &r, &g, &b);
    cairo_set_source_rgb(c->cr, r, g, b);
    cairo_move_to(c->cr, lx + 3, y + h / 2 + 3.5);
    cairo_show_text(c->cr, label);
    c->st.labels++;
}

/* The predicted bars of group g: only spans that can reach the visible range are visited. */
static void draw_bars(render_ctx *c, int g, merge_run *runs)
{
    cairo_t *cr = c->cr;
    const pt_tl_model *m = c->m;
    const pt_tl_viewport *v = c->v;
    double off = group_offset(m, g), xmax = v->width;
    int64_t ns;
    const pt_span *spans = pt_tl_group_spans(m, g, &ns);
    int64_t first = pt_tl_lower_bound(spans, ns, v->t0_ns - off - c->lookback);
    for (int64_t i = first; i < ns; i++) {
        const pt_span *s = &spans[i];
        if (s->start_ns + off > v->t1_ns)
            break; /* sorted by start: nothing further is visible */
        c->st.visited++;
        if (s->lane < 0 || s->lane >= m->n_lanes || s->end_ns + off < v->t0_ns)
            continue;
        int row = g * m->n_lanes + s->lane;
        /* the solid bar: the unit's occupancy; the span (issue -> completion) under it */
        double ue = pt_span_unit_end(s);
        double x0 = pt_tl_time_to_x(v, s->start_ns + off), x1 = pt_tl_time_to_x(v, ue + off);
        double xi = pt_tl_time_to_x(v, s->issue_ns + off), xe = pt_tl_time_to_x(v, s->end_ns + off);
        if (x0 < PT_TL_LABEL_W - 2)
            x0 = PT_TL_LABEL_W - 2;
        if (x1 > xmax + 2)
            x1 = xmax + 2;
        merge_run *r = &runs[row];
        pt_seu_kind k = m->stask_seu && s->stask >= 0 && s->stask < m->n_stasks
                            ? m->stask_seu[s->stask] : m->lane_seu[s->lane];
        int kind = (int)k >= 0 && k < PT_SEU_COUNT ? (int)k : PT_SEU_COUNT;
        bool selected = v->selected_stask >= 0 && s->stask == v->selected_stask;
        bool hover = g == v->hover_group && i == v->hover_span;
        bool match = v->match && s->stask >= 0 && s->stask < m->n_stasks && v->match[s->stask];
        if (x1 - x0 < PT_TL_MIN_BAR_PX && !selected && !hover && !match) {
            if (r->open && x0 <= r->x1 + PT_TL_MIN_BAR_PX) {
                if (x1 > r->x1)
                    r->x1 = x1;
                if (r->kind != kind)
                    r->kind = -1;
            } else {
                flush_merge(c, r, row);
                r->open = true;
                r->x0 = x0;
                r->x1 = x1;
                r->kind = kind;
            }
            continue;
        }
        flush_merge(c, r, row);
        double y, h, w = x1 - x0;
        bar_geom(m, c->tops, c->overlay, row, span_sub_g(m, g, i), &y, &h);
        if (w < 1)
            w = 1;
        if ((x0 - xi >= 1 || xe - x1 >= 1) && h >= 6) {
            xi = fmax(xi, PT_TL_LABEL_W - 2);
            xe = fmin(xe, xmax + 2);
            if (xe > xi)
                batch_add(c, BATCH_SPAN, xi, y + h - 2, xe - xi, 2);
        }
        batch_add(c, (int)k >= 0 && k < PT_SEU_COUNT ? BATCH_SEU0 + (int)k : BATCH_GREY, x0, y, w,
                  h);
        if (w >= 3) /* a hairline gap so back-to-back bars stay apart */
            batch_add(c, BATCH_GAP, x1 - 0.5, y, 0.5, h);
        if (selected && !hover && w < 3) {
            /* Too thin to outline: drawn solid in the foreground colour instead. */
            batch_add(c, BATCH_SELECTED, x0, y, w, h);
            c->st.bars++;
            continue;
        }
        if (selected || hover || match || w > 24) {
            if (c->n_details == c->cap_details) {
                size_t cap = c->cap_details ? c->cap_details * 2 : 64;
                detail *nd = realloc(c->details, cap * sizeof *nd);
                if (nd) {
                    c->details = nd;
                    c->cap_details = cap;
                }
            }
            if (c->n_details < c->cap_details)
                c->details[c->n_details++] = (detail){i, s, x0, x1, y, h, selected, hover, match};
        }
        c->st.bars++;
    }
    (void)cr;
}

/* Fill the batches in order (merged blocks, bars by colour, gaps), then outlines and labels. */
static void flush_bars(render_ctx *c)
{
    cairo_t *cr = c->cr;
    cairo_set_source_rgba(cr, c->fg.r, c->fg.g, c->fg.b, 0.45);
    batch_fill(c, BATCH_MERGED);
    for (int k = 0; k <= PT_SEU_COUNT; k++) {
        rgb col = seu_colour(k < PT_SEU_COUNT ? (pt_seu_kind)k : PT_SEU_COUNT, c->v->dark);
        cairo_set_source_rgb(cr, col.r, col.g, col.b);
        batch_fill(c, BATCH_SEU0 + k);
    }
    cairo_set_source_rgba(cr, c->bg.r, c->bg.g, c->bg.b, 0.9);
    batch_fill(c, BATCH_GAP);
    cairo_set_source_rgb(cr, c->fg.r, c->fg.g, c->fg.b);
    batch_fill(c, BATCH_SELECTED);
    cairo_set_source_rgba(cr, c->fg.r, c->fg.g, c->fg.b, 0.55);
    batch_fill(c, BATCH_SPAN);
    /* Outlines as one path per width (selected, hovered), then the labels. */
    for (int pass = 0; pass < 2; pass++) {
        bool any = false;
        for (size_t i = 0; i < c->n_details; i++) {
            const detail *d = &c->details[i];
            if (pass == 0 ? !d->selected : !(d->hover && !d->selected))
                continue;
            double w = d->x1 - d->x0 < 1 ? 1 : d->x1 - d->x0;
            cairo_rectangle(cr, d->x0 + 0.75, d->y + 0.75, w - 1.5 > 0 ? w - 1.5 : 0.5,
                            d->h - 1.5);
            any = true;
        }
        if (any) {
            cairo_set_line_width(cr, pass == 0 ? 2.5 : 1.5);
            cairo_stroke(cr);
        }
    }
    /* Search matches: a yellow outline round each, as one path. */
    bool any_match = false;
    for (size_t i = 0; i < c->n_details; i++) {
        const detail *d = &c->details[i];
        if (!d->match)
            continue;
        double w = d->x1 - d->x0 < 2 ? 2 : d->x1 - d->x0;
        cairo_rectangle(cr, d->x0 - 1, d->y - 1, w + 2, d->h + 2);
        any_match = true;
        c->st.matches++;
    }
    if (any_match) {
        double r, g, b;
        pt_tl_match_rgb(c->v->dark, &r, &g, &b);
        cairo_set_source_rgb(cr, r, g, b);
        cairo_set_line_width(cr, 2);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, c->fg.r, c->fg.g, c->fg.b);
    }
    for (size_t i = 0; i < c->n_details; i++) {
        const detail *d = &c->details[i];
        draw_label(c, d->sp, d->x0, d->x1, d->y, d->h);
    }
    c->n_details = 0;
}

/* Measured bars of group g: thin, magenta, outlined, in the lower part of each lane. */
static void draw_measured(render_ctx *c, int g)
{
    cairo_t *cr = c->cr;
    const pt_tl_viewport *v = c->v;
    int64_t n;
    const pt_span *ms = group_measured(c->m, g, &n);
    if (!ms || n <= 0)
        return;
    for (int64_t i = pt_tl_lower_bound(ms, n, v->t0_ns - c->lookback); i < n; i++) {
        const pt_span *s = &ms[i];
        if (s->start_ns > v->t1_ns)
            break;
        c->st.visited++;
        if (s->lane < 0 || s->lane >= c->m->n_lanes || s->end_ns < v->t0_ns)
            continue;
        double x0 = pt_tl_time_to_x(v, s->start_ns), x1 = pt_tl_time_to_x(v, s->end_ns);
        double w = x1 - x0 < 1 ? 1 : x1 - x0;
        double y = row_bottom(c->m, c->tops, g * c->m->n_lanes + s->lane) - 10, h = 7;
        /* stale (measured on the sProgram before the edits since): faded, dashed */
        bool stale = c->m->measured_stale;
        cairo_set_source_rgba(cr, 0.80, 0.15, 0.60, stale ? 0.12 : 0.35);
        cairo_rectangle(cr, x0, y, w, h);
        cairo_fill(cr);
        if (w >= 3) {
            cairo_set_source_rgba(cr, 0.80, 0.15, 0.60, stale ? 0.45 : 1.0);
            cairo_set_line_width(cr, 1);
            if (stale) {
                static const double dash[] = {2, 2};
                cairo_set_dash(cr, dash, 2, 0);
            }
            cairo_rectangle(cr, x0 + 0.5, y + 0.5, w - 1, h - 1);
            cairo_stroke(cr);
            cairo_set_dash(cr, NULL, 0, 0);
        }
        c->st.measured++;
    }
}

/* Stage-occupancy tracks under the lanes: per ring, a step chart of the filled stages (full
 * height = every stage filled), with grid lines at each stage. */
static void draw_rings(render_ctx *c, double y0)
{
    const pt_tl_model *m = c->m;
    const pt_tl_viewport *v = c->v;
    cairo_t *cr = c->cr;
    int n = m->n_rings < PT_TL_MAX_RINGS ? m->n_rings : PT_TL_MAX_RINGS;
    rgb col = seu_colour(PT_SEU_TMA, v->dark);
    for (int r = 0; r < n; r++) {
        double top = y0 + 4 + r * PT_TL_RING_H, h = PT_TL_RING_H - 4;
        int depth = m->ring_stages[r] > 0 ? m->ring_stages[r] : 1;
        cairo_set_source_rgba(cr, c->fg.r, c->fg.g, c->fg.b, 0.05);
        cairo_rectangle(cr, PT_TL_LABEL_W, top, v->width - PT_TL_LABEL_W, h);
        cairo_fill(cr);
        cairo_set_source_rgba(cr, col.r, col.g, col.b, 0.55);
        for (int64_t k = 0; k + 1 < m->ring_n[r]; k++) {
            double t0 = m->ring_t[r][k], t1 = m->ring_t[r][k + 1];
            if (t1 < v->t0_ns || t0 > v->t1_ns || m->ring_filled[r][k] <= 0)
                continue;
            double x0 = fmax(pt_tl_time_to_x(v, t0), PT_TL_LABEL_W);
            double x1 = fmin(pt_tl_time_to_x(v, t1), v->width);
            double fh = h * (double)m->ring_filled[r][k] / depth;
            if (x1 > x0)
                cairo_rectangle(cr, x0, top + h - fh, fmax(x1 - x0, 0.5), fh);
        }
        cairo_fill(cr);
        cairo_set_source_rgba(cr, c->fg.r, c->fg.g, c->fg.b, 0.18);
        cairo_set_line_width(cr, 1);
        for (int k = 1; k < depth; k++) {
            double y = floor(top + h - h * k / depth) + 0.5;
            cairo_move_to(cr, PT_TL_LABEL_W, y);
            cairo_line_to(cr, v->width, y);
        }
        cairo_stroke(cr);
        c->st.rings++;
    }
}

/* Idle time: each lane of each group is tinted amber between its own first and last bar; the
 * bars drawn on top cover the busy parts, so what stays amber is exactly where the lane
 * waited. A lane before its first bar or after its last is not waiting (nothing was issued to
 * it yet, or it is done), and a lane with no bar is never busy: neither is tinted. A group that
 * repeats one CTA's tile (several CTAs) applies that rule per tile (group_idle). */
static void idle_rect(render_ctx *c, int g, int l, double lo, double hi)
{
    const pt_tl_model *m = c->m;
    const pt_tl_viewport *v = c->v;
    if (!(hi > lo))
        return;
    double x0 = fmax(pt_tl_time_to_x(v, lo + group_offset(m, g)), PT_TL_LABEL_W - 2);
    double x1 = fmin(pt_tl_time_to_x(v, hi + group_offset(m, g)), v->width + 2);
    int r = g * m->n_lanes + l;
    if (x1 > x0 && r < MAX_ROWS)
        cairo_rectangle(c->cr, x0, c->tops[r] + 2, x1 - x0,
                        row_bottom(m, c->tops, r) - c->tops[r] - 4);
}

static void draw_idle(render_ctx *c)
{
    const pt_tl_model *m = c->m;
    const pt_tl_viewport *v = c->v;
    double first[PT_MAX_LANES], last[PT_MAX_LANES];
    double gfirst[PT_MAX_LANES], glast[PT_MAX_LANES];
    pt_tl_lane_span_extent(m, first, last);
    cairo_set_source_rgba(c->cr, 0.96, 0.62, 0.05, v->dark ? 0.16 : 0.20);
    for (int g = 0; g < pt_tl_groups(m); g++) {
        if (group_collapsed(m, v, g))
            continue;
        int lanes = g < PT_TL_MAX_GROUPS ? m->group_idle_lanes[g] : 0;
        if (g < PT_TL_MAX_GROUPS && m->group_idle[g] && lanes > 0) { /* per tile */
            for (int64_t k = 0; k < m->group_n_idle[g]; k++)
                if (k % lanes < m->n_lanes)
                    idle_rect(c, g, (int)(k % lanes), m->group_idle[g][k].lo,
                              m->group_idle[g][k].hi);
            continue;
        }
        if (g > 0 && m->group_spans[g]) { /* another sProgram: its own lanes' extents */
            pt_tl_model gm = *m;
            gm.spans = m->group_spans[g];
            gm.n_spans = m->group_n_spans[g];
            pt_tl_lane_span_extent(&gm, gfirst, glast);
        }
        const double *fst = g > 0 && m->group_spans[g] ? gfirst : first;
        const double *lst = g > 0 && m->group_spans[g] ? glast : last;
        for (int l = 0; l < m->n_lanes && l < PT_MAX_LANES; l++)
            idle_rect(c, g, l, fst[l], lst[l]);
    }
    cairo_fill(c->cr);
}

bool pt_tl_lane_waiting(const pt_tl_model *m, int g, int lane, double t)
{
    if (g < 0 || g >= pt_tl_groups(m) || lane < 0 || lane >= m->n_lanes || lane >= PT_MAX_LANES)
        return false;
    int lanes = g < PT_TL_MAX_GROUPS ? m->group_idle_lanes[g] : 0;
    if (g < PT_TL_MAX_GROUPS && m->group_idle[g] && lanes > 0) {
        for (int64_t k = lane; k < m->group_n_idle[g]; k += lanes)
            if (t >= m->group_idle[g][k].lo && t <= m->group_idle[g][k].hi)
                return true;
        return false;
    }
    pt_tl_model gm = *m;
    gm.spans = pt_tl_group_spans(m, g, &gm.n_spans);
    double first[PT_MAX_LANES], last[PT_MAX_LANES];
    pt_tl_lane_span_extent(&gm, first, last);
    return t >= first[lane] && t <= last[lane];
}

void pt_tl_lane_span_extent(const pt_tl_model *m, double *first, double *last)
{
    for (int l = 0; l < PT_MAX_LANES; l++) {
        first[l] = INFINITY;
        last[l] = -INFINITY;
    }
    for (int64_t i = 0; i < m->n_spans; i++) {
        int l = m->spans[i].lane;
        if (l < 0 || l >= m->n_lanes || l >= PT_MAX_LANES)
            continue;
        first[l] = fmin(first[l], m->spans[i].start_ns);
        last[l] = fmax(last[l], m->spans[i].end_ns);
    }
}

/* Group g's critical path (every group with spans of its own has one: the other EU class's
 * tiles, the compared sProgram B — only group 0's was drawn). */
static void draw_critical_group(render_ctx *c, int g)
{
    cairo_t *cr = c->cr;
    const pt_tl_model *m = c->m;
    const pt_tl_viewport *v = c->v;
    double cr_r, cr_g, cr_b;
    pt_tl_critical_rgb(v->dark, &cr_r, &cr_g, &cr_b);
    /* Links from each bar's end to the next one's start (it released that one) as one path,
     * strips as one batch: a long path costs two cairo calls, not two per bar. A link is an
     * elbow — along the releasing bar's lane to the released bar's start, then straight across
     * to its lane — so it reads as the edge it is (pt_critical_path steps only along
     * dependencies and lane order) and never slants over the lanes in between; a lane-order
     * step released at the previous bar's start (an asynchronous unit) has no link at all.
     * The strip and the links sit on the bar's own sub-row (issue 19): on the lane's top they
     * marked whichever bar was stacked in sub-row 0 there — a load the path never went through —
     * and the path seemed to jump between bars that are not linked. */
    int64_t n_spans, n_chain;
    const pt_span *spans = pt_tl_group_spans(m, g, &n_spans);
    const int64_t *chain = pt_tl_group_critical(m, g, &n_chain);
    if (!chain || n_chain <= 0 || group_collapsed(m, v, g))
        return;
    double off = group_offset(m, g);
    double px = NAN, py = NAN;
    for (int64_t k = 0; k < n_chain; k++) {
        int64_t i = chain[k];
        if (i < 0 || i >= n_spans)
            continue;
        const pt_span *s = &spans[i];
        if (s->lane < 0 || s->lane >= m->n_lanes)
            continue;
        double x0 = pt_tl_time_to_x(v, s->start_ns + off), x1 = pt_tl_time_to_x(v, s->end_ns + off);
        /* sub-row 0: in the 4 px above the bar (the lane's top, as before sub-rows); a bar
         * stacked lower: over its own top edge, so the strip never lands on another bar */
        double by, bh;
        int sub = span_sub_g(m, g, i), row = g * m->n_lanes + s->lane;
        if (row >= MAX_ROWS)
            continue;
        bar_geom(m, c->tops, c->overlay, row, sub, &by, &bh);
        double y = sub == 0 ? c->tops[row] : by - 1;
        bool visible = x1 >= PT_TL_LABEL_W - 2 && x0 <= v->width + 2;
        if (!isnan(px) && (visible || (px <= v->width && x0 >= PT_TL_LABEL_W))) {
            if (x0 < px - 0.5) {
                /* it started before the releasing bar ended (an asynchronous lane issued it
                 * meanwhile): only a drop at its start, between the two bars' sub-rows — an
                 * elbow out to the earlier bar's end would pass the bar it leads to */
                if (fabs(py - (y + 2.5)) > 0.5) {
                    cairo_move_to(cr, x0, py);
                    cairo_line_to(cr, x0, y + 2.5);
                }
            } else if (x0 > px + 0.5 || fabs(py - (y + 2.5)) > 0.5) {
                double ex = fmax(px, x0);
                cairo_move_to(cr, px, py);
                cairo_line_to(cr, ex, py);
                cairo_line_to(cr, ex, y + 2.5);
            }
        }
        px = x1;
        py = y + 2.5;
        if (!visible)
            continue;
        batch_add(c, BATCH_GAP, x0, y + 1, x1 - x0 < 2 ? 2 : x1 - x0, 3.5);
        c->st.critical++;
    }
    cairo_set_source_rgb(cr, cr_r, cr_g, cr_b);
    cairo_set_line_width(cr, 1.5);
    cairo_stroke(cr);
    batch_fill(c, BATCH_GAP);
}

static void draw_critical(render_ctx *c)
{
    for (int g = 0; g < pt_tl_groups(c->m); g++)
        draw_critical_group(c, g);
}

/* kind: a pt_dep_kind — solid for data, dashed for a Wait, dotted (and violet) for the wait for
 * a free ring stage, dash-dot from where the holder freed a shared unit (it starts at the end of
 * that bar's solid occupancy, not its latency tail). */
static void arrow(render_ctx *c, double x0, double y0, double x1, double y1, int kind)
{
    cairo_t *cr = c->cr;
    double dx = fmax(18, fabs(x1 - x0) / 2);
    static const double dash[4] = {4, 3, 4, 3}, dot[4] = {1.5, 2.5, 1.5, 2.5};
    static const double dashdot[4] = {6, 2.5, 1.5, 2.5};
    cairo_save(cr);
    if (kind == PT_DEP_STAGE) {
        double r, g, b;
        pt_tl_stage_rgb(c->v->dark, &r, &g, &b);
        cairo_set_source_rgb(cr, r, g, b);
    }
    const double *pattern = kind == PT_DEP_STAGE ? dot : kind == PT_DEP_UNIT ? dashdot : dash;
    cairo_set_dash(cr, kind ? pattern : NULL, kind ? 4 : 0, 0);
    cairo_move_to(cr, x0, y0);
    if (fabs(y1 - y0) < 1) /* same lane: bow over the bars between */
        cairo_curve_to(cr, x0 + dx / 2, y0 - 14, x1 - dx / 2, y1 - 14, x1 - 2, y1);
    else
        cairo_curve_to(cr, x0 + dx, y0, x1 - dx, y1, x1 - 2, y1);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    double ang = fabs(y1 - y0) < 1 ? 0.6 : 0;
    cairo_move_to(cr, x1, y1);
    cairo_line_to(cr, x1 - 7 * cos(ang - 0.45), y1 - 7 * sin(ang - 0.45));
    cairo_line_to(cr, x1 - 7 * cos(ang + 0.45), y1 - 7 * sin(ang + 0.45));
    cairo_close_path(cr);
    cairo_fill(cr);
    cairo_restore(cr);
    c->st.arrows++;
    if (kind == PT_DEP_STAGE)
        c->st.stage_arrows++;
    if (kind == PT_DEP_UNIT)
        c->st.unit_arrows++;
}

/* The middle of bar i of group g's spans (arrows end there). */
static double mid_y(const render_ctx *c, int g, const pt_span *spans, int64_t i)
{
    double y, h;
    if (spans[i].lane < 0 || spans[i].lane >= c->m->n_lanes)
        return c->tops[0];
    bar_geom(c->m, c->tops, c->overlay, g * c->m->n_lanes + spans[i].lane, span_sub_g(c->m, g, i),
             &y, &h);
    return y + h / 2;
}

/* The selected bar's dependencies: arrows in from what it waited on, out to what waited on it,
 * in the lane group it was clicked in (the compared sProgram and the tiles of the several-CTA
 * view have their own spans and dependencies). */
static void draw_arrows(render_ctx *c)
{
    const pt_tl_model *m = c->m;
    const pt_tl_viewport *v = c->v;
    int g = v->selected_group > 0 && v->selected_group < pt_tl_groups(m) ? v->selected_group : 0;
    if (group_collapsed(m, v, g))
        return;
    int64_t n;
    const pt_span *spans = pt_tl_group_spans(m, g, &n);
    const pt_span_deps *d = pt_tl_group_deps(m, g);
    int64_t sel = v->selected_span;
    if (!d || sel < 0 || sel >= n || spans[sel].stask != v->selected_stask ||
        spans[sel].lane < 0 || spans[sel].lane >= m->n_lanes)
        return;
    const pt_span *s = &spans[sel];
    double off = group_offset(m, g);
    cairo_set_line_width(c->cr, 1.6);
    cairo_set_source_rgba(c->cr, c->fg.r, c->fg.g, c->fg.b, 0.9);
    for (int64_t e = d->off[sel]; e < d->off[sel + 1]; e++) {
        arrow(c, pt_tl_time_to_x(v, pt_dep_release_ns(spans, d, e) + off),
              mid_y(c, g, spans, d->idx[e]), pt_tl_time_to_x(v, s->start_ns + off),
              mid_y(c, g, spans, sel), d->is_wait[e]);
    }
    for (int64_t j = 0; j < n; j++)
        for (int64_t e = d->off[j]; e < d->off[j + 1]; e++)
            if (d->idx[e] == sel) {
                const pt_span *o = &spans[j];
                arrow(c, pt_tl_time_to_x(v, pt_dep_release_ns(spans, d, e) + off),
                      mid_y(c, g, spans, sel),
                      pt_tl_time_to_x(v, o->start_ns + off), mid_y(c, g, spans, j), d->is_wait[e]);
            }
}

/* The time-range selection: a blue wash over the lanes with edges, so the bars stay legible. */
static void draw_range_band(render_ctx *c)
{
    const pt_tl_viewport *v = c->v;
    if (!(v->range_t1_ns > v->range_t0_ns))
        return;
    double r, g, b;
    pt_tl_range_rgb(v->dark, &r, &g, &b);
    double x0 = pt_tl_time_to_x(v, v->range_t0_ns), x1 = pt_tl_time_to_x(v, v->range_t1_ns);
    double top = pt_tl_header_h(v);
    cairo_set_source_rgba(c->cr, r, g, b, 0.16);
    cairo_rectangle(c->cr, x0, top, x1 - x0, v->height - top);
    cairo_fill(c->cr);
    cairo_set_source_rgba(c->cr, r, g, b, 0.9);
    cairo_set_line_width(c->cr, 1);
    cairo_move_to(c->cr, floor(x0) + 0.5, top);
    cairo_line_to(c->cr, floor(x0) + 0.5, v->height);
    cairo_move_to(c->cr, floor(x1) + 0.5, top);
    cairo_line_to(c->cr, floor(x1) + 0.5, v->height);
    cairo_stroke(c->cr);
}

/* The range in the ruler: a solid bar with its duration, as Perfetto shows it. */
static void draw_range_ruler(render_ctx *c)
{
    cairo_t *cr = c->cr;
    const pt_tl_viewport *v = c->v;
    if (!(v->range_t1_ns > v->range_t0_ns))
        return;
    double r, g, b;
    pt_tl_range_rgb(v->dark, &r, &g, &b);
    double x0 = fmax(pt_tl_time_to_x(v, v->range_t0_ns), PT_TL_LABEL_W);
    double x1 = fmin(pt_tl_time_to_x(v, v->range_t1_ns), v->width);
    if (x1 <= x0)
        return;
    double y = pt_tl_header_h(v) - PT_TL_AXIS_H;
    cairo_set_source_rgb(cr, r, g, b);
    cairo_rectangle(cr, x0, y + 1, fmax(x1 - x0, 1), PT_TL_AXIS_H - 2);
    cairo_fill(cr);
    char buf[48];
    double d = v->range_t1_ns - v->range_t0_ns;
    format_time(buf, sizeof buf, d, d / 10);
    cairo_set_font_size(cr, 11);
    cairo_text_extents_t te;
    cairo_text_extents(cr, buf, &te);
    /* Centred in the band when it fits, else just right of it. */
    double tx = te.x_advance + 8 < x1 - x0 ? (x0 + x1 - te.x_advance) / 2 : x1 + 4;
    if (tx + te.x_advance > v->width)
        tx = x0 - te.x_advance - 4;
    bool inside = te.x_advance + 8 < x1 - x0;
    if (inside)
        cairo_set_source_rgb(cr, 1, 1, 1);
    else
        cairo_set_source_rgb(cr, c->fg.r, c->fg.g, c->fg.b);
    cairo_move_to(cr, tx, y + PT_TL_AXIS_H / 2 + 4);
    cairo_show_text(cr, buf);
}

/* Several CTAs: a band across the whole width above each group's lanes with its name in
 * 14 px bold (readable, unlike a caption squeezed into the lane-name column) and a disclosure
 * triangle: a click on the band folds the group (viewport.collapsed_groups). */
static void draw_group_headers(render_ctx *c)
{
    cairo_t *cr = c->cr;
    const pt_tl_model *m = c->m;
    const pt_tl_viewport *v = c->v;
    cairo_select_font_face(cr, "Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
    cairo_set_font_size(cr, PT_TL_GROUP_FONT);
    for (int g = 0; g < pt_tl_groups(m); g++) {
        double y = c->tops[g * m->n_lanes] - PT_TL_GROUP_H;
        cairo_set_source_rgb(cr, c->bg.r, c->bg.g, c->bg.b);
        cairo_rectangle(cr, 0, y, v->width, PT_TL_GROUP_H);
        cairo_fill(cr);
        cairo_set_source_rgba(cr, c->fg.r, c->fg.g, c->fg.b, 0.12);
        cairo_rectangle(cr, 0, y, v->width, PT_TL_GROUP_H);
        cairo_fill(cr);
        cairo_set_source_rgba(cr, c->fg.r, c->fg.g, c->fg.b, 0.45);
        cairo_set_line_width(cr, 1);
        cairo_move_to(cr, 0, floor(y) + 0.5);
        cairo_line_to(cr, v->width, floor(y) + 0.5);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, c->fg.r, c->fg.g, c->fg.b);
        bool folded = group_collapsed(m, v, g);
        double cx = 9, cy = y + PT_TL_GROUP_H / 2;
        if (folded) { /* ▸ */
            cairo_move_to(cr, cx - 3, cy - 5);
            cairo_line_to(cr, cx + 4, cy);
            cairo_line_to(cr, cx - 3, cy + 5);
        } else {      /* ▾ */
            cairo_move_to(cr, cx - 5, cy - 3);
            cairo_line_to(cr, cx + 5, cy - 3);
            cairo_line_to(cr, cx, cy + 4);
        }
        cairo_close_path(cr);
        cairo_fill(cr);
        char buf[160];
        snprintf(buf, sizeof buf, "%s%s", m->group_labels[g] ? m->group_labels[g] : "group",
                 folded ? "  (folded: click to show)" : "");
        cairo_move_to(cr, 20, cy + PT_TL_GROUP_FONT * 0.36);
        cairo_show_text(cr, buf);
    }
    cairo_select_font_face(cr, "Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
}

int pt_tl_group_header_at(const pt_tl_model *m, const pt_tl_viewport *v, double y)
{
    if (pt_tl_groups(m) < 2 || m->n_lanes <= 0)
        return -1;
    double tops[MAX_ROWS + 1];
    layout(m, v, tops);
    for (int g = 0; g < pt_tl_groups(m); g++) {
        double top = tops[g * m->n_lanes];
        if (y >= top - PT_TL_GROUP_H && y < top)
            return g;
    }
    return -1;
}

/* "87%" at the right of each lane header: the lane's busy share of the EU's run. */
static void draw_busy_pct(render_ctx *c)
{
    cairo_t *cr = c->cr;
    const pt_tl_model *m = c->m;
    if (m->n_spans <= 0 || m->n_lanes <= 0)
        return;
    double share[PT_MAX_LANES];
    pt_tl_lane_busy_share(m, share);
    cairo_set_font_size(cr, 10);
    cairo_set_source_rgba(cr, c->fg.r, c->fg.g, c->fg.b, 0.75);
    for (int r = 0; r < pt_tl_rows(m) && r < MAX_ROWS; r++) {
        int l = r % m->n_lanes;
        char buf[48];
        if (m->have_lane_busy) {
            /* busy.h's figures: busy (issue to completion), the unit's own share, measured */
            int k = snprintf(buf, sizeof buf, "%.0f%% u%.0f%%", m->lane_busy_pct[l],
                             m->lane_unit_pct[l]);
            if (isfinite(m->lane_measured_pct[l]) && k > 0 && (size_t)k < sizeof buf)
                snprintf(buf + k, sizeof buf - (size_t)k, " m%.0f%%%s", m->lane_measured_pct[l],
                         m->lane_measured_partial[l] ? "*" : "");
        } else
            snprintf(buf, sizeof buf, "%.0f%%", 100 * share[l]);
        cairo_text_extents_t te;
        cairo_text_extents(cr, buf, &te);
        double rh = row_bottom(m, c->tops, r) - c->tops[r];
        if (rh < 12)
            continue; /* a folded group */
        cairo_move_to(cr, PT_TL_LABEL_W - te.x_advance - 5, c->tops[r] + rh - 5);
        cairo_show_text(cr, buf);
    }
}

/* Perfetto's overview: the whole run in a strip, one thin row per lane coloured by sEU (bars
 * merged per pixel column), the visible range a framed rectangle and the rest dimmed. */
static void draw_overview(render_ctx *c)
{
    cairo_t *cr = c->cr;
    const pt_tl_model *m = c->m;
    const pt_tl_viewport *v = c->v;
    double H = PT_TL_OVERVIEW_H, top = 3, rows_h = H - 8;
    /* The extent once (pt_tl_overview_time_to_x finds it on each call). */
    double e0, e1;
    pt_tl_extent(m, &e0, &e1);
    double scale = plot_w(v) / (e1 - e0);
#define OX(t) (PT_TL_LABEL_W + ((t) - e0) * scale)
    cairo_set_source_rgb(cr, c->bg.r, c->bg.g, c->bg.b);
    cairo_rectangle(cr, PT_TL_LABEL_W, 0, v->width - PT_TL_LABEL_W, H);
    cairo_fill(cr);
    cairo_set_source_rgba(cr, c->fg.r, c->fg.g, c->fg.b, 0.06);
    cairo_rectangle(cr, PT_TL_LABEL_W, 0, v->width - PT_TL_LABEL_W, H);
    cairo_fill(cr);
    if (m->n_lanes > 0 && m->n_spans > 0) {
        double lh = rows_h / m->n_lanes;
        double ends[PT_MAX_LANES], starts[PT_MAX_LANES];
        for (int l = 0; l < m->n_lanes; l++)
            ends[l] = starts[l] = -1;
        for (int k = 0; k < PT_SEU_COUNT + 1; k++) { /* one fill per colour */
            for (int l = 0; l < m->n_lanes; l++)
                ends[l] = starts[l] = -1;
            for (int64_t i = 0; i < m->n_spans; i++) {
                const pt_span *s = &m->spans[i];
                int l = s->lane;
                if (l < 0 || l >= m->n_lanes)
                    continue;
                pt_seu_kind sk = m->stask_seu && s->stask >= 0 && s->stask < m->n_stasks
                                     ? m->stask_seu[s->stask] : m->lane_seu[l];
                int kk = (int)sk >= 0 && sk < PT_SEU_COUNT ? (int)sk : PT_SEU_COUNT;
                if (kk != k)
                    continue;
                double x0 = OX(s->start_ns);
                double x1 = OX(s->end_ns);
                if (starts[l] >= 0 && x0 <= ends[l] + 0.5) {
                    ends[l] = fmax(ends[l], x1);
                    continue;
                }
                if (starts[l] >= 0)
                    cairo_rectangle(cr, starts[l], top + l * lh, fmax(ends[l] - starts[l], 1),
                                    fmax(lh - 1, 1));
                starts[l] = x0;
                ends[l] = x1;
            }
            for (int l = 0; l < m->n_lanes; l++)
                if (starts[l] >= 0)
                    cairo_rectangle(cr, starts[l], top + l * lh, fmax(ends[l] - starts[l], 1),
                                    fmax(lh - 1, 1));
            rgb col = seu_colour(k < PT_SEU_COUNT ? (pt_seu_kind)k : PT_SEU_COUNT, v->dark);
            cairo_set_source_rgb(cr, col.r, col.g, col.b);
            cairo_fill(cr);
        }
    }
    if (v->range_t1_ns > v->range_t0_ns) {
        double r, g, b;
        pt_tl_range_rgb(v->dark, &r, &g, &b);
        double x0 = OX(v->range_t0_ns);
        double x1 = OX(v->range_t1_ns);
        cairo_set_source_rgba(cr, r, g, b, 0.35);
        cairo_rectangle(cr, x0, 0, fmax(x1 - x0, 1), H);
        cairo_fill(cr);
    }
    /* Dim what is outside the view, frame what is in it. */
    double vx0 = fmax(OX(v->t0_ns), PT_TL_LABEL_W);
    double vx1 = fmin(OX(v->t1_ns), v->width);
    if (vx1 - vx0 < 3) {
        double mid = (vx0 + vx1) / 2;
        vx0 = mid - 1.5;
        vx1 = mid + 1.5;
    }
    cairo_set_source_rgba(cr, c->bg.r, c->bg.g, c->bg.b, 0.6);
    cairo_rectangle(cr, PT_TL_LABEL_W, 0, fmax(vx0 - PT_TL_LABEL_W, 0), H);
    cairo_rectangle(cr, vx1, 0, fmax(v->width - vx1, 0), H);
    cairo_fill(cr);
    cairo_set_source_rgba(cr, c->fg.r, c->fg.g, c->fg.b, 0.85);
    cairo_set_line_width(cr, 1.5);
    cairo_rectangle(cr, vx0 + 0.75, 0.75, vx1 - vx0 - 1.5, H - 1.5);
    cairo_stroke(cr);
    cairo_set_source_rgba(cr, c->fg.r, c->fg.g, c->fg.b, 0.3);
    cairo_set_line_width(cr, 1);
    cairo_move_to(cr, 0, H - 0.5);
    cairo_line_to(cr, v->width, H - 0.5);
    cairo_stroke(cr);
    cairo_set_source_rgba(cr, c->fg.r, c->fg.g, c->fg.b, 0.6);
    cairo_set_font_size(cr, 10);
    cairo_move_to(cr, 14, H / 2 + 4);
    cairo_show_text(cr, "whole run");
#undef OX
}

/* A flagged sProgram: a red frame round the plot and a mark in the axis (words, not only
 * colour). */
static void draw_flag(render_ctx *c)
{
    cairo_t *cr = c->cr;
    const pt_tl_viewport *v = c->v;
    double r, g, b;
    pt_tl_flag_rgb(v->dark, &r, &g, &b);
    cairo_set_source_rgb(cr, r, g, b);
    cairo_set_line_width(cr, 4);
    double top = pt_tl_header_h(v) - PT_TL_AXIS_H; /* the ruler's top */
    cairo_rectangle(cr, PT_TL_LABEL_W + 2, top + PT_TL_AXIS_H + 2, v->width - PT_TL_LABEL_W - 4,
                    v->height - top - PT_TL_AXIS_H - 4);
    cairo_stroke(cr);
    const char *mark = "NOT EXECUTABLE — see the status bar";
    cairo_set_font_size(cr, 11);
    cairo_text_extents_t te;
    cairo_text_extents(cr, mark, &te);
    double x = v->width - te.x_advance - 10;
    if (x < PT_TL_LABEL_W + 4)
        x = PT_TL_LABEL_W + 4;
    cairo_rectangle(cr, x - 4, top + 2, te.x_advance + 8, PT_TL_AXIS_H - 6);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_move_to(cr, x, top + PT_TL_AXIS_H - 10);
    cairo_show_text(cr, mark);
}

void pt_tl_render(cairo_t *cr, const pt_tl_model *m, const pt_tl_viewport *v, pt_tl_stats *stats)
{
    render_ctx c = {.cr = cr, .m = m, .v = v};
    bool overlay = false;
    for (int g = 0; g < pt_tl_groups(m); g++) {
        int64_t n;
        overlay |= group_measured(m, g, &n) != NULL && n > 0;
    }
    /* With the measured overlay the predicted bars take the upper part of a lane. */
    c.overlay = overlay;
    layout(m, v, c.tops);
    c.bg = v->dark ? (rgb){0.14, 0.14, 0.15} : (rgb){1, 1, 1};
    c.fg = v->dark ? (rgb){0.92, 0.92, 0.92} : (rgb){0.13, 0.13, 0.15};
    c.lookback = max_span(m);
    int groups = pt_tl_groups(m), rows = pt_tl_rows(m);
    bool have_range = v->t1_ns > v->t0_ns;
    cairo_save(cr);
    cairo_rectangle(cr, 0, 0, v->width, v->height);
    cairo_clip(cr);
    cairo_set_source_rgb(cr, c.bg.r, c.bg.g, c.bg.b);
    cairo_paint(cr);
    cairo_select_font_face(cr, "Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);

    /* Lane backgrounds. */
    for (int r = 0; r < rows; r++) {
        cairo_set_source_rgba(cr, c.fg.r, c.fg.g, c.fg.b, r % 2 ? 0.035 : 0.07);
        cairo_rectangle(cr, 0, c.tops[r], v->width, row_bottom(m, c.tops, r) - c.tops[r]);
        cairo_fill(cr);
    }
    if (have_range) { /* the ruler sits under the overview strip */
        cairo_save(cr);
        cairo_translate(cr, 0, pt_tl_header_h(v) - PT_TL_AXIS_H);
        draw_axis(cr, v, c.fg);
        cairo_restore(cr);
    }

    /* Plot area, clipped. */
    cairo_save(cr);
    cairo_rectangle(cr, PT_TL_LABEL_W, pt_tl_header_h(v), v->width - PT_TL_LABEL_W,
                    v->height - pt_tl_header_h(v));
    cairo_clip(cr);
    if (have_range && m->n_spans > 0)
        draw_idle(&c);
    merge_run runs[PT_MAX_LANES * PT_TL_MAX_GROUPS];
    memset(runs, 0, sizeof runs);
    cairo_set_font_size(cr, 11);
    for (int g = 0; have_range && g < groups; g++) {
        if (group_collapsed(m, v, g))
            continue;
        draw_bars(&c, g, runs);
        for (int l = 0; l < m->n_lanes; l++)
            flush_merge(&c, &runs[g * m->n_lanes + l], g * m->n_lanes + l);
    }
    flush_bars(&c);
    for (int g = 0; have_range && g < groups; g++)
        if (!group_collapsed(m, v, g))
            draw_measured(&c, g);
    if (have_range && v->show_critical && m->n_critical > 0)
        draw_critical(&c);
    if (have_range)
        draw_arrows(&c);
    if (have_range)
        draw_range_band(&c);
    if (have_range && m->n_rings > 0)
        draw_rings(&c, c.tops[rows]);
    cairo_restore(cr);

    /* Lane name column on top. */
    cairo_set_source_rgb(cr, c.bg.r, c.bg.g, c.bg.b);
    cairo_rectangle(cr, 0, 0, PT_TL_LABEL_W, v->height);
    cairo_fill(cr);
    for (int r = 0; r < rows; r++) {
        int l = r % m->n_lanes;
        double y = c.tops[r], rh = row_bottom(m, c.tops, r) - c.tops[r];
        if (rh < 12)
            continue; /* a folded group: its header says so */
        rgb col = seu_colour(m->lane_seu[l], v->dark);
        cairo_set_source_rgb(cr, col.r, col.g, col.b);
        cairo_rectangle(cr, 4, y + 8, 4, rh - 16);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, c.fg.r, c.fg.g, c.fg.b);
        cairo_set_font_size(cr, 12);
        cairo_move_to(cr, 14, y + rh / 2 + 4);
        cairo_show_text(cr, m->lane_names[l] ? m->lane_names[l] : "?");
    }
    if (groups > 1)
        draw_group_headers(&c);
    if (v->busy_pct)
        draw_busy_pct(&c);
    if (have_range)
        draw_range_ruler(&c);
    if (v->overview)
        draw_overview(&c);
    for (int r = 0; r < m->n_rings && r < PT_TL_MAX_RINGS; r++) {
        char txt[64];
        snprintf(txt, sizeof txt, "ring %s (%d)", m->ring_names[r] ? m->ring_names[r] : "?",
                 m->ring_stages[r]);
        cairo_set_font_size(cr, 10);
        cairo_set_source_rgb(cr, c.fg.r, c.fg.g, c.fg.b);
        cairo_move_to(cr, 14, c.tops[rows] + 4 + r * PT_TL_RING_H + PT_TL_RING_H / 2 + 2);
        cairo_show_text(cr, txt);
    }
    if (has_overlay(m) && (m->measured_stale || m->measured_partial)) {
        const char *mark = m->measured_stale && m->measured_partial
                               ? "measured: STALE (edited since), PARTIAL sample"
                           : m->measured_stale ? "measured: STALE (edited since profiling)"
                                               : "measured: PARTIAL sample (records lost)";
        cairo_set_font_size(cr, 11);
        cairo_text_extents_t ext;
        cairo_text_extents(cr, mark, &ext);
        cairo_set_source_rgba(cr, 0.80, 0.15, 0.60, 0.9);
        cairo_move_to(cr, v->width - ext.x_advance - 8, pt_tl_header_h(v) - 6);
        cairo_show_text(cr, mark);
    }
    cairo_set_source_rgba(cr, c.fg.r, c.fg.g, c.fg.b, 0.3);
    cairo_set_line_width(cr, 1);
    cairo_move_to(cr, PT_TL_LABEL_W - 0.5, 0);
    cairo_line_to(cr, PT_TL_LABEL_W - 0.5, v->height);
    cairo_stroke(cr);
    if (m->flagged)
        draw_flag(&c);
    cairo_restore(cr);
    for (int b = 0; b < N_BATCHES; b++)
        free(c.batch[b].r);
    free(c.details);
    if (stats)
        *stats = c.st;
}
