/* test_timeline_render.c — the timeline drawing with no display: a hand-made timeline is
 * rendered into a cairo image surface and checked pixel by pixel (no text is compared: fonts
 * differ), plus the geometry (fit, zoom about a point, pan, hit-testing) and the level of
 * detail (20,000 sub-pixel bars are merged, not drawn one by one). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "timeline_render.h"

#include "render_check.h"

/* Colours equal within rounding (cairo and lround may differ by one step). */
static int near(uint32_t p, uint32_t q)
{
    for (int sh = 0; sh <= 16; sh += 8)
        if (abs((int)((p >> sh) & 0xff) - (int)((q >> sh) & 0xff)) > 2)
            return 0;
    return 1;
}

static const char *const labels[] = {"load.A", "mma.C", "store.C"};
static const pt_seu_kind seus[] = {PT_SEU_TMA, PT_SEU_TENSOR_CORE, PT_SEU_TMA};

static pt_tl_model hand_model(pt_span *spans)
{
    /* lane 0 (tma): load 0-100, load 200-300; lane 1 (tc): mma 100-200 and 300-400, idle
     * between; lane 2 (cuda): nothing at all. */
    spans[0] = (pt_span){0, 0, 0, 0, 0, 100, 100, 0};
    spans[1] = (pt_span){1, 1, 0, 100, 100, 200, 200, 0};
    spans[2] = (pt_span){0, 0, 1, 200, 200, 300, 300, 0};
    spans[3] = (pt_span){1, 1, 1, 300, 300, 400, 400, 0};
    pt_tl_model m = {0};
    m.n_lanes = 3;
    m.lane_names[0] = "tma";
    m.lane_names[1] = "tc.wg0";
    m.lane_names[2] = "cuda.wg0";
    m.lane_seu[0] = PT_SEU_TMA;
    m.lane_seu[1] = PT_SEU_TENSOR_CORE;
    m.lane_seu[2] = PT_SEU_CUDA_CORE;
    m.n_spans = 4;
    m.spans = spans;
    m.n_stasks = 3;
    m.stask_labels = labels;
    m.stask_seu = seus;
    return m;
}

/* Issue 19: TMA loads in flight together are stacked in sub-rows of their lane (not painted
 * over each other), every label fits its bar, the flagged frame, lanes filling the height. */
static void check_subrows_labels_flag(void)
{
    static const char *const names[] = {"load.Q", "load.K", "a_label_far_too_long_for_it"};
    static const pt_seu_kind kinds[] = {PT_SEU_TMA, PT_SEU_TMA, PT_SEU_TMA};
    /* Lane 0: load.Q 0-200 and load.K 50-250 overlap; then load.Q again 250-300 (back to back
     * with load.K, so it may reuse a sub-row); lane 1: one bar 300-330 whose label is longer
     * than the bar. */
    pt_span sp[4] = {{0, 0, 0, 0, 0, 200, 200, 0}, {1, 0, 0, 50, 50, 250, 250, 0}, {0, 0, 1, 250, 250, 300, 300, 0},
                     {2, 1, 0, 300, 300, 330, 330, 0}};
    pt_tl_model m = {0};
    m.n_lanes = 2;
    m.lane_names[0] = "tma";
    m.lane_names[1] = "tma2";
    m.lane_seu[0] = m.lane_seu[1] = PT_SEU_TMA;
    m.n_spans = 4;
    m.spans = sp;
    m.n_stasks = 3;
    m.stask_labels = names;
    m.stask_seu = kinds;
    uint8_t sub[4];
    pt_tl_assign_subrows(sp, 4, 2, sub, m.lane_subrows);
    CHECK(m.lane_subrows[0] == 2 && m.lane_subrows[1] == 1);
    CHECK(sub[0] == 0 && sub[1] == 1 && sub[2] == 0 && sub[3] == 0);
    m.span_subrow = sub;
    const int W = 496, H = 200;
    pt_tl_viewport v = {.t0_ns = 0, .t1_ns = 400, .width = W, .height = H, .selected_stask = -1,
                        .hover_span = -1, .selected_span = -1};
    /* The stacked lane is taller than a plain one; its two bars get separate slots. */
    CHECK(pt_tl_row_height(&m, &v, 0) > pt_tl_row_height(&m, &v, 1));
    double y0, h0, y1, h1;
    pt_tl_span_y(&m, &v, 0, 0, &y0, &h0);
    pt_tl_span_y(&m, &v, 1, 0, &y1, &h1);
    CHECK(y0 + h0 <= y1); /* not painted over each other */
    CHECK(h0 >= 12 && h1 >= 12);
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
    cairo_t *cr = cairo_create(s);
    pt_tl_stats st;
    pt_tl_render(cr, &m, &v, &st);
    cairo_surface_flush(s);
    double r, g, b;
    pt_tl_seu_rgb(PT_SEU_TMA, false, &r, &g, &b);
    uint32_t tma = ((uint32_t)lround(r * 255) << 16) | ((uint32_t)lround(g * 255) << 8) |
                   (uint32_t)lround(b * 255);
    /* At t = 150 ns both loads run: both slots are TMA blue (away from the label text). */
    int x = (int)PT_TL_LABEL_W + 190;
    CHECK(near(pixel(s, x, (int)(y0 + 2)), tma));
    CHECK(near(pixel(s, x, (int)(y1 + h1 - 2)), tma));
    /* Hit-testing goes by slot. */
    CHECK(pt_tl_hit(&m, &v, PT_TL_LABEL_W + 150, y0 + h0 / 2) == 0);
    CHECK(pt_tl_hit(&m, &v, PT_TL_LABEL_W + 150, y1 + h1 / 2) == 1);
    /* Labels: load.Q and load.K (both wide enough, one per slot) and the second load.Q
     * (50 px); never the 30 px bar's long label. */
    CHECK_MSG(st.labels == 3, "%lld labels", (long long)st.labels);
    /* Not flagged: no red frame; flagged: the frame's left edge is red. */
    double fr, fg, fb;
    pt_tl_flag_rgb(false, &fr, &fg, &fb);
    uint32_t red = ((uint32_t)lround(fr * 255) << 16) | ((uint32_t)lround(fg * 255) << 8) |
                   (uint32_t)lround(fb * 255);
    int fy = (int)(pt_tl_row_top(&m, &v, 1) + 2);
    CHECK(!near(pixel(s, (int)PT_TL_LABEL_W + 2, fy), red));
    m.flagged = true;
    pt_tl_render(cr, &m, &v, &st);
    cairo_surface_flush(s);
    CHECK(near(pixel(s, (int)PT_TL_LABEL_W + 2, fy), red));
    m.flagged = false;
    /* Filling: lanes grow to use a tall view, never more than PT_TL_MAX_FILL times. */
    pt_tl_viewport tall = v;
    tall.height = 600;
    tall.fill_height = true;
    double filled = pt_tl_row_height(&m, &tall, 1);
    CHECK(filled > PT_TL_LANE_H * 1.5 && filled <= PT_TL_LANE_H * PT_TL_MAX_FILL + 1e-9);
    CHECK(pt_tl_row_height(&m, &v, 1) == PT_TL_LANE_H);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}

int main(void)
{
    check_subrows_labels_flag();
    pt_span spans[4];
    pt_tl_model m = hand_model(spans);
    const int W = 496, H = 140; /* plot area 400 px wide: 1 ns per pixel over 0..400 */
    pt_tl_viewport v = {.t0_ns = 0, .t1_ns = 400, .width = W, .height = H,
                        .selected_stask = -1, .hover_span = -1, .dark = false};

    /* Geometry. */
    CHECK(fabs(pt_tl_time_to_x(&v, 0) - PT_TL_LABEL_W) < 1e-9);
    CHECK(fabs(pt_tl_x_to_time(&v, PT_TL_LABEL_W + 250) - 250) < 1e-9);
    double lo, hi;
    pt_tl_extent(&m, &lo, &hi);
    CHECK(lo == 0 && hi == 400);
    pt_tl_viewport f = v;
    pt_tl_fit(&m, &f);
    CHECK(f.t0_ns < 0 && f.t1_ns > 400 && f.t0_ns > -20 && f.t1_ns < 420);
    pt_tl_viewport z = v;
    double x = PT_TL_LABEL_W + 100, t = pt_tl_x_to_time(&z, x);
    pt_tl_zoom(&z, 2.0, x);
    CHECK(fabs(pt_tl_x_to_time(&z, x) - t) < 1e-6);           /* the point stays put */
    CHECK(fabs((z.t1_ns - z.t0_ns) - 200) < 1e-6);
    pt_tl_pan(&z, 0.5);
    CHECK(fabs(pt_tl_x_to_time(&z, x) - (t + 100)) < 1e-6);

    /* Hit-testing: lane rows start below the axis. */
    double y0 = PT_TL_AXIS_H + PT_TL_LANE_H / 2, y1 = y0 + PT_TL_LANE_H;
    CHECK(pt_tl_hit(&m, &v, PT_TL_LABEL_W + 50, y0) == 0);
    CHECK(pt_tl_hit(&m, &v, PT_TL_LABEL_W + 250, y0) == 2);
    CHECK(pt_tl_hit(&m, &v, PT_TL_LABEL_W + 150, y1) == 1);
    CHECK(pt_tl_hit(&m, &v, PT_TL_LABEL_W + 50, y1) == -1);   /* idle gap */
    CHECK(pt_tl_hit(&m, &v, 10, y0) == -1);                    /* the lane-name column */
    CHECK(pt_tl_hit(&m, &v, PT_TL_LABEL_W + 50, 5) == -1);     /* the axis */

    /* Pixels. */
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
    cairo_t *cr = cairo_create(s);
    pt_tl_stats st;
    pt_tl_render(cr, &m, &v, &st);
    cairo_surface_flush(s);
    CHECK(st.bars == 4 && st.merged == 0);
    uint32_t tma_bar = pixel(s, (int)PT_TL_LABEL_W + 50, (int)y0);
    uint32_t tc_bar = pixel(s, (int)PT_TL_LABEL_W + 150, (int)y1);
    uint32_t tc_idle = pixel(s, (int)PT_TL_LABEL_W + 50, (int)y1 + 10);
    uint32_t cuda_idle = pixel(s, (int)PT_TL_LABEL_W + 200, (int)(y1 + PT_TL_LANE_H));
    CHECK(tma_bar != tc_bar);        /* coloured by sEU kind */
    CHECK(tc_bar != tc_idle);        /* idle gaps visible */
    CHECK(tma_bar != cuda_idle);
    uint32_t b = tma_bar;
    CHECK(((b >> 16) & 0xff) < (b & 0xff));          /* TMA is blue */
    b = tc_bar;
    CHECK(((b >> 8) & 0xff) > ((b >> 16) & 0xff));   /* tensor core is green */

    /* Selection outlines every bar of the sTask. */
    pt_tl_viewport sel = v;
    sel.selected_stask = 1;
    pt_tl_render(cr, &m, &sel, NULL);
    cairo_surface_flush(s);
    uint32_t edge = pixel(s, (int)PT_TL_LABEL_W + 101, (int)y1);
    CHECK(edge != tc_bar);

    /* Measured overlay: thinner magenta bars under the predicted ones, which move up. */
    pt_span meas[1] = {{1, 1, 0, 120, 120, 180, 180, 0}}; /* tc lane, 120-180 ns */
    pt_tl_model mo = m;
    mo.n_measured = 1;
    mo.measured = meas;
    pt_tl_render(cr, &mo, &v, &st);
    cairo_surface_flush(s);
    CHECK(st.measured == 1 && st.bars == 4);
    double lane1 = PT_TL_AXIS_H + PT_TL_LANE_H; /* top of lane 1 */
    uint32_t mbar = pixel(s, (int)PT_TL_LABEL_W + 150, (int)(lane1 + PT_TL_LANE_H - 6));
    uint32_t pbar = pixel(s, (int)PT_TL_LABEL_W + 150, (int)(lane1 + 8));
    CHECK(pbar == tc_bar);                               /* predicted bar still drawn above */
    CHECK(mbar != tc_bar && mbar != tc_idle);            /* the measured one is distinct */
    CHECK(((mbar >> 16) & 0xff) > ((mbar >> 8) & 0xff)); /* magenta: red over green */
    uint32_t nomeas = pixel(s, (int)PT_TL_LABEL_W + 110, (int)(lane1 + PT_TL_LANE_H - 6));
    CHECK(nomeas != mbar);                               /* only where measured */
    pt_tl_render(cr, &m, &v, &st);
    CHECK(st.measured == 0);

    /* Issue 18: the solid bar is the unit's occupancy, a thin line under it the whole span
     * (issue -> completion); a stale overlay is drawn fainter than a current one. */
    {
        pt_span sp2[4];
        memcpy(sp2, spans, sizeof sp2);
        sp2[1] = (pt_span){1, 1, 0, 60, 100, 200, 150, 0}; /* issued 60, unit 100-150, done 200 */
        pt_tl_model mu = m;
        mu.spans = sp2;
        pt_tl_render(cr, &mu, &v, NULL);
        cairo_surface_flush(s);
        CHECK(pixel(s, (int)PT_TL_LABEL_W + 125, (int)y1) == tc_bar); /* occupancy: solid */
        CHECK(pixel(s, (int)PT_TL_LABEL_W + 175, (int)y1) != tc_bar); /* latency: not solid */
        /* the span line, near the bar's bottom: before the start and after the unit's end */
        double by, bh;
        pt_tl_span_y(&mu, &v, 1, 0, &by, &bh);
        uint32_t line_q = pixel(s, (int)PT_TL_LABEL_W + 80, (int)(by + bh - 1));
        uint32_t line_l = pixel(s, (int)PT_TL_LABEL_W + 175, (int)(by + bh - 1));
        uint32_t above = pixel(s, (int)PT_TL_LABEL_W + 80, (int)(by + bh / 2));
        CHECK(line_q != above && line_l != above);
        CHECK(pixel(s, (int)PT_TL_LABEL_W + 40, (int)(by + bh - 1)) == tc_idle ||
              pixel(s, (int)PT_TL_LABEL_W + 40, (int)(by + bh - 1)) != line_q);
        pt_tl_model fresh = mo, stale = mo;
        stale.measured_stale = true;
        pt_tl_render(cr, &fresh, &v, NULL);
        cairo_surface_flush(s);
        uint32_t f = pixel(s, (int)PT_TL_LABEL_W + 150, (int)(lane1 + PT_TL_LANE_H - 6));
        pt_tl_render(cr, &stale, &v, NULL);
        cairo_surface_flush(s);
        uint32_t st2 = pixel(s, (int)PT_TL_LABEL_W + 150, (int)(lane1 + PT_TL_LANE_H - 6));
        CHECK(st2 != f);
        CHECK((st2 & 0xff) + ((st2 >> 8) & 0xff) > (f & 0xff) + ((f >> 8) & 0xff)); /* fainter */
    }
    /* Stage-occupancy track: a ring of 2 stages, 1 filled over 0-100 ns, 2 over 100-300 ns. */
    {
        static const double rt[] = {0, 100, 300};
        static const int rf[] = {1, 2, 0};
        pt_tl_model mr = m;
        mr.n_rings = 1;
        mr.ring_names[0] = "A";
        mr.ring_stages[0] = 2;
        mr.ring_n[0] = 3;
        mr.ring_t[0] = rt;
        mr.ring_filled[0] = rf;
        CHECK(pt_tl_content_height(&mr) >= pt_tl_content_height(&m) + PT_TL_RING_H);
        pt_tl_viewport vr = v;
        vr.height = pt_tl_content_height(&mr);
        cairo_surface_t *s2 = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, (int)vr.height);
        cairo_t *cr2 = cairo_create(s2);
        pt_tl_stats rs;
        pt_tl_render(cr2, &mr, &vr, &rs);
        cairo_surface_flush(s2);
        CHECK(rs.rings == 1);
        double top = pt_tl_row_top(&mr, &vr, pt_tl_rows(&mr) - 1) +
                     pt_tl_row_height(&mr, &vr, pt_tl_rows(&mr) - 1) + 4;
        double h = PT_TL_RING_H - 4;
        int y_high = (int)(top + h * 0.25), y_low = (int)(top + h * 0.8);
        uint32_t one_low = pixel(s2, (int)PT_TL_LABEL_W + 63, y_low);
        uint32_t one_high = pixel(s2, (int)PT_TL_LABEL_W + 63, y_high);
        uint32_t two_high = pixel(s2, (int)PT_TL_LABEL_W + 237, y_high);
        uint32_t none = pixel(s2, (int)PT_TL_LABEL_W + 363, y_low);
        CHECK_MSG(one_low == two_high, "%06x %06x %06x %06x top %g", one_low, two_high, one_high, none, top);   /* filled */
        CHECK(one_high != one_low);   /* half: the upper half stays empty */
        CHECK(none != one_low);       /* empty after 300 ns */
        cairo_destroy(cr2);
        cairo_surface_destroy(s2);
    }

    /* Level of detail: 20,000 bars of 0.02 ns each over 400 px are merged per lane. */
    int n = 20000;
    pt_span *many = malloc(sizeof *many * (size_t)n);
    for (int i = 0; i < n; i++)
        many[i] = (pt_span){i % 3, i % 2, i / 2, i * 0.02, i * 0.02, i * 0.02 + 0.015, i * 0.02 + 0.015, 0};
    pt_tl_model mm = m;
    mm.n_spans = n;
    mm.spans = many;
    pt_tl_viewport vm = v;
    vm.t1_ns = 20000; /* 50 ns per pixel */
    pt_tl_render(cr, &mm, &vm, &st);
    CHECK(st.bars == 0);
    CHECK(st.merged >= 2 && st.merged < 100);
    /* Zoomed right in, they are real bars again, and only the visible ones are drawn. */
    vm.t0_ns = 0;
    vm.t1_ns = 4;
    pt_tl_render(cr, &mm, &vm, &st);
    CHECK(st.bars > 100 && st.bars < 400 && st.merged == 0);
    free(many);

    /* Critical path: a red strip along the top of its bars, nowhere else; idle gaps amber. */
    double cr_r, cr_g, cr_b;
    pt_tl_critical_rgb(false, &cr_r, &cr_g, &cr_b);
    uint32_t red = ((uint32_t)lround(cr_r * 255) << 16) | ((uint32_t)lround(cr_g * 255) << 8) |
                   (uint32_t)lround(cr_b * 255);
    int64_t chain[3] = {0, 1, 3}; /* load 0-100 -> mma 100-200 -> mma 300-400 */
    pt_tl_model mc = m;
    mc.n_critical = 3;
    mc.critical = chain;
    pt_tl_viewport vc = v;
    vc.show_critical = true;
    pt_tl_render(cr, &mc, &vc, &st);
    cairo_surface_flush(s);
    CHECK(st.critical == 3);
    double lane0 = PT_TL_AXIS_H;
    CHECK_MSG(near(pixel(s, (int)PT_TL_LABEL_W + 50, (int)lane0 + 2), red), "%06x vs %06x",
              pixel(s, (int)PT_TL_LABEL_W + 50, (int)lane0 + 2), red);          /* load 0 */
    CHECK(near(pixel(s, (int)PT_TL_LABEL_W + 150, (int)lane1 + 2), red));       /* mma 0 */
    CHECK(near(pixel(s, (int)PT_TL_LABEL_W + 350, (int)lane1 + 2), red));       /* mma 1 */
    CHECK(!near(pixel(s, (int)PT_TL_LABEL_W + 250, (int)lane0 + 2), red));      /* load 1: off */
    uint32_t idle = pixel(s, (int)PT_TL_LABEL_W + 250, (int)lane1 + 15);        /* tc idle */
    CHECK(((idle >> 16) & 0xff) > (idle & 0xff) + 20);                         /* amber tint */
    vc.show_critical = false;
    pt_tl_render(cr, &mc, &vc, &st);
    cairo_surface_flush(s);
    CHECK(st.critical == 0 && !near(pixel(s, (int)PT_TL_LABEL_W + 150, (int)lane1 + 2), red));

    /* Dependency arrows of the selected bar: mma 1 (span 3) waited on load 1 (span 2, data)
     * and on mma 0 (span 1, a Wait); nothing waited on it. */
    int64_t off[5] = {0, 0, 1, 1, 3}, idx[3] = {0, 2, 1};
    unsigned char is_wait[3] = {0, 0, 1};
    pt_span_deps deps = {4, off, idx, is_wait};
    pt_tl_model ma = m;
    ma.deps = &deps;
    pt_tl_viewport va = v;
    va.selected_stask = 1;
    va.selected_span = 3;
    pt_tl_render(cr, &ma, &va, &st);
    cairo_surface_flush(s);
    CHECK(st.arrows == 2);
    /* The Wait arrow mma 0 -> mma 1 bows over lane 1's idle gap (200-300 ns): dark
     * (foreground) pixels where the lane is otherwise light amber. */
    int dark_px = 0;
    for (int y = (int)lane1; y < (int)lane1 + 15; y++)
        for (int x = (int)PT_TL_LABEL_W + 230; x <= (int)PT_TL_LABEL_W + 270; x++) {
            uint32_t p = pixel(s, x, y);
            dark_px += ((p >> 16) & 0xff) < 90 && ((p >> 8) & 0xff) < 90 && (p & 0xff) < 90;
        }
    CHECK_MSG(dark_px > 5, "%d arrow pixels", dark_px);
    va.selected_stask = 0; /* span 3 is not of the selected sTask: no arrows */
    pt_tl_render(cr, &ma, &va, &st);
    CHECK(st.arrows == 0);
    /* Outgoing: selecting load 0 (span 0) draws its arrow to mma 0. */
    va.selected_stask = 0;
    va.selected_span = 0;
    pt_tl_render(cr, &ma, &va, &st);
    CHECK(st.arrows == 1);

    /* Lane groups: two groups double the rows; group 1's bars are offset by its offset, and
     * its own measured spans are drawn in its rows. */
    pt_tl_model mg = m;
    mg.n_groups = 2;
    mg.group_offset_ns[1] = 50;
    mg.group_labels[0] = "wave 0";
    mg.group_labels[1] = "wave 1";
    pt_span g1meas[1] = {{0, 0, 0, 10, 10, 40, 40, 0}};
    mg.group_measured[1] = g1meas;
    mg.group_n_measured[1] = 1;
    CHECK(pt_tl_rows(&mg) == 6 && pt_tl_rows(&m) == 3);
    CHECK(pt_tl_content_height(&mg) > pt_tl_content_height(&m) + 2 * PT_TL_LANE_H);
    const int GH = (int)pt_tl_content_height(&mg);
    cairo_surface_t *s2 = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, GH);
    cairo_t *cr2 = cairo_create(s2);
    pt_tl_viewport vg = v;
    vg.height = GH;
    pt_tl_render(cr2, &mg, &vg, &st);
    cairo_surface_flush(s2);
    CHECK(st.bars == 8 && st.measured == 1);
    double g1lane0 = pt_tl_row_top(&mg, &vg, 3); /* below group 1's header band */
    /* Group 1's load 0 runs 50-150 ns: tma blue at x = 120, idle (not blue) at x = 20. */
    CHECK(pixel(s2, (int)PT_TL_LABEL_W + 120, (int)g1lane0 + 9) == tma_bar);
    CHECK(pixel(s2, (int)PT_TL_LABEL_W + 20, (int)g1lane0 + 9) != tma_bar);
    uint32_t gm = pixel(s2, (int)PT_TL_LABEL_W + 25, (int)(g1lane0 + PT_TL_LANE_H - 6));
    CHECK(((gm >> 16) & 0xff) > ((gm >> 8) & 0xff)); /* group 1's measured bar: magenta */
    int group = -1;
    CHECK(pt_tl_hit_group(&mg, &vg, PT_TL_LABEL_W + 120, g1lane0 + PT_TL_LANE_H / 2, &group) == 0
          && group == 1);
    cairo_destroy(cr2);
    cairo_surface_destroy(s2);

    /* The dark flag switches the colours: background, lane names' column, bars. */
    pt_tl_viewport vd = v;
    pt_tl_render(cr, &m, &vd, NULL);
    cairo_surface_flush(s);
    uint32_t light_bg = pixel(s, 5, 5), light_bar = pixel(s, (int)PT_TL_LABEL_W + 50, (int)y0);
    vd.dark = true;
    pt_tl_render(cr, &m, &vd, NULL);
    cairo_surface_flush(s);
    uint32_t dark_bg = pixel(s, 5, 5), dark_bar = pixel(s, (int)PT_TL_LABEL_W + 50, (int)y0);
    CHECK(light_bg == 0xffffff);
    CHECK_MSG(((dark_bg >> 16) & 0xff) < 0x40, "dark background %06x", dark_bg);
    CHECK(dark_bar != light_bar);

    /* Culling: zoomed into 1% of 20,000 spans, only those near the view are visited. */
    many = malloc(sizeof *many * (size_t)n);
    for (int i = 0; i < n; i++)
        many[i] = (pt_span){i % 3, i % 2, i / 2, i * 10.0, i * 10.0, i * 10.0 + 8, i * 10.0 + 8, 0};
    mm.spans = many;
    vm.t0_ns = 100000;
    vm.t1_ns = 102000;
    pt_tl_render(cr, &mm, &vm, &st);
    CHECK(st.bars >= 200 && st.bars <= 202);
    CHECK_MSG(st.visited < 2 * st.bars + 10, "visited %lld for %lld bars",
              (long long)st.visited, (long long)st.bars);
    CHECK(pt_tl_lower_bound(many, n, 100000) == 10000);
    free(many);

    /* Empty model and a degenerate viewport do not crash. */
    pt_tl_model empty = {0};
    pt_tl_viewport ve = {.t0_ns = 5, .t1_ns = 5, .width = 10, .height = 10,
                         .selected_stask = -1, .hover_span = -1};
    pt_tl_render(cr, &empty, &ve, &st);
    CHECK(st.bars == 0);
    CHECK(pt_tl_hit(&empty, &ve, 50, 50) == -1);

    if (getenv("PT_RENDER_PNG"))
        cairo_surface_write_to_png(s, getenv("PT_RENDER_PNG"));
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    cairo_debug_reset_static_data(); /* let a leak checker see only our own allocations */
    if (ptest_failures)
        fprintf(stderr, "test_timeline_render: %d failures\n", ptest_failures);
    else
        printf("test_timeline_render: ok\n");
    return ptest_failures ? 1 : 0;
}
