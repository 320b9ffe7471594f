/* test_timeline_range.c — issue 19, display-free: the time-range selection's figures (lane
 * busy time, per-sTask count / time in range / mean), the lane headers' busy share, and how the
 * range band, the ruler's range bar and the overview strip are drawn (pixels, no text). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline_range.h"
#include "timeline_render.h"
#include "timeline_tooltip.h"

#include "render_check.h"

static int near(uint32_t p, uint32_t q)
{
    for (int sh = 0; sh <= 16; sh += 8)
        if (abs((int)((p >> sh) & 0xff) - (int)((q >> sh) & 0xff)) > 2)
            return 0;
    return 1;
}

static uint32_t rgb_px(double r, double g, double b)
{
    return ((uint32_t)lround(r * 255) << 16) | ((uint32_t)lround(g * 255) << 8) |
           (uint32_t)lround(b * 255);
}

static const char *const labels[] = {"load.A", "mma.C", "store.C"};
static const pt_seu_kind seus[] = {PT_SEU_TMA, PT_SEU_TENSOR_CORE, PT_SEU_TMA};

/* lane 0 (tma): load 0-100, 200-300, and one more in flight 250-350 (overlapping: counted once
 * in busy time); lane 1 (tc): mma 100-200, 300-400; lane 2 (cuda): nothing. */
static pt_tl_model model(pt_span *sp)
{
    sp[0] = (pt_span){0, 0, 0, 0, 0, 100, 0, 0};
    sp[1] = (pt_span){1, 1, 0, 100, 100, 200, 0, 0};
    sp[2] = (pt_span){0, 0, 1, 200, 200, 300, 0, 0};
    sp[3] = (pt_span){0, 0, 2, 250, 250, 350, 0, 0};
    sp[4] = (pt_span){1, 1, 1, 300, 300, 400, 0, 0};
    pt_tl_model m = {0};
    m.n_lanes = 3;
    m.lane_names[0] = "tma";
    m.lane_names[1] = "tc.wg0";
    m.lane_names[2] = "cuda.wg0";
    m.lane_seu[0] = PT_SEU_TMA;
    m.lane_seu[1] = PT_SEU_TENSOR_CORE;
    m.lane_seu[2] = PT_SEU_CUDA_CORE;
    m.n_spans = 5;
    m.spans = sp;
    m.n_stasks = 3;
    m.stask_labels = labels;
    m.stask_seu = seus;
    return m;
}

static void check_figures(void)
{
    pt_span sp[5];
    pt_tl_model m = model(sp);
    double busy[PT_MAX_LANES];
    pt_tl_lane_busy(&m, 0, 400, busy);
    CHECK(fabs(busy[0] - 250) < 1e-9); /* 0-100 and 200-350: the overlap once */
    CHECK(fabs(busy[1] - 200) < 1e-9 && busy[2] == 0);
    double share[PT_MAX_LANES];
    pt_tl_lane_busy_share(&m, share);
    CHECK(fabs(share[0] - 0.625) < 1e-9 && fabs(share[1] - 0.5) < 1e-9 && share[2] == 0);

    pt_tl_range_stats rs;
    CHECK(pt_tl_range_stats_compute(&m, 50, 260, &rs));
    CHECK(fabs(rs.lane_busy_ns[0] - (50 + 60)) < 1e-9);  /* 50-100, 200-260 */
    CHECK(fabs(rs.lane_busy_ns[1] - 100) < 1e-9);
    CHECK(rs.n_stasks == 2);
    /* Most time in the range first: load.A (3 bars, 50 + 60 + 10 ns), then mma.C. */
    CHECK(rs.stasks[0].stask == 0 && rs.stasks[0].count == 3);
    CHECK(fabs(rs.stasks[0].in_range_ns - 120) < 1e-9);
    CHECK(fabs(rs.stasks[0].mean_ns - 100) < 1e-9);
    CHECK(rs.stasks[1].stask == 1 && rs.stasks[1].count == 1);
    char *text = pt_tl_range_stats_format(&m, &rs, 8);
    CHECK(text && strstr(text, "Duration 210.0 ns") && strstr(text, "tma") &&
          strstr(text, "52.4%") && strstr(text, "load.A  ×3"));
    printf("%s\n", text ? text : "(null)");
    free(text);
    pt_tl_range_stats_clear(&rs);
    /* An empty range says so. */
    CHECK(pt_tl_range_stats_compute(&m, 1000, 1100, &rs));
    text = pt_tl_range_stats_format(&m, &rs, 8);
    CHECK(rs.n_stasks == 0 && text && strstr(text, "No sTask"));
    free(text);
    pt_tl_range_stats_clear(&rs);
}

static void check_drawing(void)
{
    pt_span sp[5];
    pt_tl_model m = model(sp);
    const int W = 496, H = 220; /* plot 400 px: 1 ns per pixel over 0..400 */
    pt_tl_viewport v = {.t0_ns = 0, .t1_ns = 400, .width = W, .height = H, .selected_stask = -1,
                        .hover_span = -1, .selected_span = -1};
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
    cairo_t *cr = cairo_create(s);
    double r, g, b;
    pt_tl_range_rgb(false, &r, &g, &b);
    uint32_t range = rgb_px(r, g, b);

    /* No range: nothing blue in the ruler; a range 50-150: the ruler's bar is the range
     * colour (left of its centred duration text) and the lanes under it are washed. */
    pt_tl_render(cr, &m, &v, NULL);
    cairo_surface_flush(s);
    int rx = (int)PT_TL_LABEL_W + 55, ry = 4;
    uint32_t lane_before = pixel(s, (int)PT_TL_LABEL_W + 60, (int)(PT_TL_AXIS_H + 2.5 *
                                                                  PT_TL_LANE_H));
    CHECK(!near(pixel(s, rx, ry), range));
    v.range_t0_ns = 50;
    v.range_t1_ns = 150;
    pt_tl_render(cr, &m, &v, NULL);
    cairo_surface_flush(s);
    CHECK_MSG(near(pixel(s, rx, ry), range), "%06x vs %06x", pixel(s, rx, ry), range);
    CHECK(pixel(s, (int)PT_TL_LABEL_W + 60, (int)(PT_TL_AXIS_H + 2.5 * PT_TL_LANE_H)) !=
          lane_before);
    CHECK(!near(pixel(s, (int)PT_TL_LABEL_W + 200, ry), range)); /* outside the range */

    /* The overview strip: the ruler and lanes move down by its height; the parts of the
     * widget are told apart for the drags. */
    v.overview = true;
    v.range_t0_ns = v.range_t1_ns = 0;
    CHECK(pt_tl_header_h(&v) == PT_TL_AXIS_H + PT_TL_OVERVIEW_H);
    CHECK(pt_tl_part_at(&v, PT_TL_LABEL_W + 10, 5) == PT_TL_AT_OVERVIEW);
    CHECK(pt_tl_part_at(&v, PT_TL_LABEL_W + 10, PT_TL_OVERVIEW_H + 5) == PT_TL_AT_RULER);
    CHECK(pt_tl_part_at(&v, PT_TL_LABEL_W + 10, pt_tl_header_h(&v) + 5) == PT_TL_AT_LANES);
    CHECK(pt_tl_part_at(&v, 10, 5) == PT_TL_AT_LABELS);
    double y0 = pt_tl_header_h(&v) + PT_TL_LANE_H / 2;
    v.fill_height = false;
    CHECK(pt_tl_hit(&m, &v, PT_TL_LABEL_W + 50, y0) == 0);
    CHECK(pt_tl_hit(&m, &v, PT_TL_LABEL_W + 50, PT_TL_AXIS_H + PT_TL_LANE_H / 2) == -1);
    /* It maps the whole run (0..400 ns) onto the plot's width. */
    CHECK(fabs(pt_tl_overview_time_to_x(&m, &v, 200) - (PT_TL_LABEL_W + 200)) < 1e-9);
    CHECK(fabs(pt_tl_overview_x_to_time(&m, &v, PT_TL_LABEL_W + 100) - 100) < 1e-9);
    /* Zoomed to 100-200 ns: the overview's tma row is bright where it is in view (load 0-100
     * does not show there: 150 is the mma's time; use the tma load at 250-300 outside, dimmed,
     * against the load at 0-100 inside after panning). */
    v.t0_ns = 0;
    v.t1_ns = 100;
    pt_tl_render(cr, &m, &v, NULL);
    cairo_surface_flush(s);
    uint32_t in_view = pixel(s, (int)PT_TL_LABEL_W + 50, 5);
    uint32_t out_view = pixel(s, (int)PT_TL_LABEL_W + 220, 5);
    pt_tl_seu_rgb(PT_SEU_TMA, false, &r, &g, &b);
    CHECK_MSG(near(in_view, rgb_px(r, g, b)), "%06x", in_view); /* the load, full colour */
    CHECK(!near(out_view, rgb_px(r, g, b)));                     /* the other, dimmed */
    CHECK(out_view != pixel(s, (int)PT_TL_LABEL_W + 150, 5));    /* dimmed load vs gap */
    /* The frame of the visible range at its right edge (x = 100 ns). */
    uint32_t frame = pixel(s, (int)PT_TL_LABEL_W + 99, (int)(PT_TL_OVERVIEW_H / 2));
    CHECK_MSG(((frame >> 16) & 0xff) < 0x80, "%06x", frame);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}

/* Issue 19: amber only between a lane's first and last bar; a lane with no bar is not tinted. */
static void check_idle_tint(void)
{
    pt_span sp[5];
    pt_tl_model m = model(sp);
    const int W = 596, H = 160; /* 1 ns per pixel over 0..500 */
    pt_tl_viewport v = {.t0_ns = 0, .t1_ns = 500, .width = W, .height = H, .selected_stask = -1,
                        .hover_span = -1, .selected_span = -1};
    double first[PT_MAX_LANES], last[PT_MAX_LANES];
    pt_tl_lane_span_extent(&m, first, last);
    CHECK(first[1] == 100 && last[1] == 400 && !(last[2] > first[2]));
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
    cairo_t *cr = cairo_create(s);
    pt_tl_render(cr, &m, &v, NULL);
    cairo_surface_flush(s);
    int tc = (int)(PT_TL_AXIS_H + 1.5 * PT_TL_LANE_H), cuda = (int)(PT_TL_AXIS_H + 2.5 * PT_TL_LANE_H);
#define X(t) ((int)PT_TL_LABEL_W + (t))
    uint32_t before = pixel(s, X(55), tc), gap = pixel(s, X(245), tc), after = pixel(s, X(455), tc);
    CHECK_MSG(before == after && gap != before, "%06x %06x %06x", before, gap, after);
    CHECK(pixel(s, X(230), cuda) == pixel(s, X(470), cuda)); /* never busy: no tint */
#undef X
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}

/* Issue 19: tooltips for lane labels, idle gaps (what the next bar waited for) and measured
 * bars, not only predicted bars. */
static void check_tooltips(void)
{
    pt_span sp[5];
    pt_tl_model m = model(sp);
    /* mma.C iteration 1 (span 4) waited on load.A iteration 1 (span 2): data. */
    int64_t off[6] = {0, 0, 1, 1, 1, 2}, idx[2] = {0, 2};
    unsigned char kind[2] = {PT_DEP_DATA, PT_DEP_DATA};
    pt_span_deps d = {5, off, idx, kind};
    m.deps = &d;
    pt_span meas[1] = {{1, 1, 0, 110, 110, 190, 0, 0}};
    m.n_measured = 1;
    m.measured = meas;
    pt_tl_viewport v = {.t0_ns = 0, .t1_ns = 500, .width = 596, .height = 160,
                        .selected_stask = -1, .hover_span = -1, .selected_span = -1};
    double tc_top = pt_tl_row_top(&m, &v, 1), tc_h = pt_tl_row_height(&m, &v, 1);
    char *t = pt_tl_tooltip_markup(&m, &v, 20, tc_top + tc_h / 2); /* the lane's name */
    CHECK(t && strstr(t, "<b>tc.wg0</b>") && strstr(t, "tensor cores") &&
          strstr(t, "busy 50%") && strstr(t, "2 bars"));
    free(t);
    t = pt_tl_tooltip_markup(&m, &v, PT_TL_LABEL_W + 250, tc_top + 8); /* gap 200-300 */
    CHECK_MSG(t && strstr(t, "idle 100.0 ns") && strstr(t, "next: <b>mma.C</b> iteration 1") &&
              strstr(t, "load.A iteration 1 (data)"), "%s", t ? t : "(null)");
    free(t);
    /* Before the lane's first bar it is not waiting: nothing said. */
    t = pt_tl_tooltip_markup(&m, &v, PT_TL_LABEL_W + 50, tc_top + 8);
    CHECK(t == NULL);
    free(t);
    t = pt_tl_tooltip_markup(&m, &v, PT_TL_LABEL_W + 150, tc_top + tc_h - 6); /* measured */
    CHECK_MSG(t && strstr(t, "measured") && strstr(t, "duration 80.0 ns") &&
              strstr(t, "predicted duration 100.0 ns"), "%s", t ? t : "(null)");
    free(t);
    t = pt_tl_tooltip_markup(&m, &v, PT_TL_LABEL_W + 150, tc_top + 8); /* a predicted bar */
    CHECK(t && strstr(t, "<b>mma.C</b>") && strstr(t, "iteration 0"));
    free(t);
}

/* Issue 19, several CTAs: a header band per group with 14 px text that folds the group, and
 * tensor-core bars too thin to draw alone keep their colour when merged. */
static void check_groups(void)
{
    enum { N = 400 };
    static pt_span sp[2 * N];
    /* 400 sub-pixel mma bars (0.5 ns every 2.5 ns) on the tc lane, TMA loads 0-100 on lane 0. */
    for (int i = 0; i < N; i++) {
        double t = 100 + 2.5 * i;
        sp[2 * i] = (pt_span){1, 1, i, t, t, t + 0.5, 0, 0};
        sp[2 * i + 1] = (pt_span){0, 0, i, t - 100 + 0.1, t - 100 + 0.1, t - 100 + 0.2, 0, 0};
    }
    /* keep them sorted by start */
    for (int i = 0; i < 2 * N; i++)
        for (int j = i + 1; j < 2 * N; j++)
            if (sp[j].start_ns < sp[i].start_ns) {
                pt_span x = sp[i];
                sp[i] = sp[j];
                sp[j] = x;
            }
    pt_tl_model m = model(sp);
    m.n_spans = 2 * N;
    m.n_groups = 3;
    m.group_offset_ns[1] = 1100;
    m.group_offset_ns[2] = 2200;
    m.group_labels[0] = "wave 0 CTA 0";
    m.group_labels[1] = "wave 1 CTA 132";
    m.group_labels[2] = "wave 2 CTA 264";
    const int W = 496, H = 400; /* 400 px over 0..4000 ns: 10 ns per pixel */
    pt_tl_viewport v = {.t0_ns = 0, .t1_ns = 4000, .width = W, .height = H, .selected_stask = -1,
                        .hover_span = -1, .selected_span = -1};
    CHECK(PT_TL_GROUP_FONT >= 14);
    double g1 = pt_tl_row_top(&m, &v, 3); /* group 1's first lane */
    CHECK(pt_tl_group_header_at(&m, &v, g1 - PT_TL_GROUP_H / 2) == 1);
    CHECK(pt_tl_row_at(&m, &v, g1 - PT_TL_GROUP_H / 2) == -1); /* a header is no lane */
    CHECK(pt_tl_row_at(&m, &v, g1 + 3) == 3);
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
    cairo_t *cr = cairo_create(s);
    pt_tl_stats st;
    pt_tl_render(cr, &m, &v, &st);
    cairo_surface_flush(s);
    CHECK(st.merged > 0);
    double r, g, b;
    pt_tl_seu_rgb(PT_SEU_TENSOR_CORE, false, &r, &g, &b);
    double tcy, tch;
    pt_tl_span_y(&m, &v, 1, 1, &tcy, &tch); /* a tc bar's slot in group 1 */
    uint32_t merged = pixel(s, (int)PT_TL_LABEL_W + 110 + 60, (int)(tcy + tch / 2));
    CHECK_MSG(near(merged, rgb_px(r, g, b)), "merged tc bars %06x, tc %06x", merged,
              rgb_px(r, g, b));
    /* The header band is drawn across the plot, darker than the lanes' background. */
    uint32_t band = pixel(s, W - 5, (int)(g1 - PT_TL_GROUP_H / 2));
    CHECK(band != pixel(s, W - 5, (int)(g1 + 2)));
    /* Folding group 1 leaves its header; the next group moves up. */
    double g2 = pt_tl_row_top(&m, &v, 6);
    v.collapsed_groups = 1u << 1;
    CHECK(pt_tl_row_height(&m, &v, 3) == 0 && pt_tl_row_height(&m, &v, 5) == 0);
    CHECK(pt_tl_row_top(&m, &v, 6) < g2 - 2 * PT_TL_LANE_H + 1);
    CHECK(pt_tl_group_header_at(&m, &v, pt_tl_row_top(&m, &v, 3) - 3) == 1);
    pt_tl_render(cr, &m, &v, &st);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}

/* Issue 19: bar and node labels contrast at least 4.5:1 with their fill (white on the orange
 * CUDA-core bars was 2.6:1 light and 1.9:1 dark). */
static void check_label_contrast(void)
{
    CHECK(fabs(pt_tl_contrast(1, 1, 1, 0, 0, 0) - 21) < 1e-9);
    for (int dark = 0; dark <= 1; dark++)
        for (int k = 0; k <= PT_SEU_COUNT; k++) {
            double fr, fg, fb, tr, tg, tb;
            pt_tl_seu_rgb((pt_seu_kind)k, dark, &fr, &fg, &fb);
            pt_tl_label_rgb((pt_seu_kind)k, dark, &tr, &tg, &tb);
            double c = pt_tl_contrast(fr, fg, fb, tr, tg, tb);
            CHECK_MSG(c >= 4.5, "kind %d dark %d: %.2f:1", k, dark, c);
        }
    /* And the drawn label is that colour: a bar wide enough for its label, dark text pixels. */
    pt_span sp[1] = {{0, 0, 0, 0, 0, 400, 0, 0}};
    static const char *const names[] = {"softmax_exp.P.wg0"};
    static const pt_seu_kind kinds[] = {PT_SEU_CUDA_CORE};
    pt_tl_model m = {0};
    m.n_lanes = 1;
    m.lane_names[0] = "cuda.wg0";
    m.lane_seu[0] = PT_SEU_CUDA_CORE;
    m.n_spans = 1;
    m.spans = sp;
    m.n_stasks = 1;
    m.stask_labels = names;
    m.stask_seu = kinds;
    pt_tl_viewport v = {.t0_ns = 0, .t1_ns = 400, .width = 496, .height = 80,
                        .selected_stask = -1, .hover_span = -1, .selected_span = -1};
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 496, 80);
    cairo_t *cr = cairo_create(s);
    pt_tl_stats st;
    pt_tl_render(cr, &m, &v, &st);
    cairo_surface_flush(s);
    CHECK(st.labels == 1);
    double y, h;
    pt_tl_span_y(&m, &v, 0, 0, &y, &h);
    int darkest = 255 * 3, lightest = 0;
    for (int yy = (int)y + 2; yy < (int)(y + h) - 2; yy++)
        for (int xx = (int)PT_TL_LABEL_W + 3; xx < (int)PT_TL_LABEL_W + 110; xx++) {
            uint32_t p = pixel(s, xx, yy);
            int sum = (int)((p >> 16) & 0xff) + (int)((p >> 8) & 0xff) + (int)(p & 0xff);
            darkest = sum < darkest ? sum : darkest;
            lightest = sum > lightest ? sum : lightest;
        }
    CHECK_MSG(darkest < 150 && lightest < 700, "darkest %d lightest %d", darkest, lightest);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}

int main(void)
{
    PTEST_RUN(check_figures);
    PTEST_RUN(check_drawing);
    PTEST_RUN(check_idle_tint);
    PTEST_RUN(check_tooltips);
    PTEST_RUN(check_groups);
    PTEST_RUN(check_label_contrast);
    PTEST_END();
}
