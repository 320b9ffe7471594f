/* test_timeline_groups.c — issue 19's display-free pieces (suite 'gui', no display needed): the
 * critical path's strip on the sub-row of the bar it goes through (read from pixels), a lane
 * group with spans of its own hit-tested with its own indices and its own arrows and critical
 * path drawn, the
 * several-CTA classes and tile runs (cta_pack.h: sorted, dependencies and the path repeated on
 * every tile, each path step a dependency edge or lane order), the idle tint per tile (a lane
 * busy a moment in each tile is not tinted across the run: read from pixels), ring occupancy
 * repeated over the tiles, the arrow keys' next bar (timeline_nav.h), and where the context menu
 * opens (menu_place.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cta_pack.h"
#include "menu_place.h"
#include "timeline_nav.h"
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

static const char *const labels[] = {"load.Q", "load.K", "mma"};
static const pt_seu_kind seus[] = {PT_SEU_TMA, PT_SEU_TMA, PT_SEU_TENSOR_CORE};

/* tma: load.Q 0-200 (sub-row 0) and load.K 50-250 (sub-row 1); tc: mma 250-350 waits on
 * load.K. The critical path is load.K -> mma. */
static pt_tl_model model(pt_span *sp, uint8_t *sub)
{
    sp[0] = (pt_span){0, 0, 0, 0, 0, 200, 200, 0};
    sp[1] = (pt_span){1, 0, 0, 50, 50, 250, 250, 0};
    sp[2] = (pt_span){2, 1, 0, 250, 250, 350, 350, 0};
    pt_tl_model m = {0};
    m.n_lanes = 2;
    m.lane_names[0] = "tma";
    m.lane_names[1] = "tc";
    m.lane_seu[0] = PT_SEU_TMA;
    m.lane_seu[1] = PT_SEU_TENSOR_CORE;
    m.n_spans = 3;
    m.spans = sp;
    m.n_stasks = 3;
    m.stask_labels = labels;
    m.stask_seu = seus;
    pt_tl_assign_subrows(sp, 3, 2, sub, m.lane_subrows);
    m.span_subrow = sub;
    return m;
}

static void check_critical_subrow(cairo_surface_t *s, cairo_t *cr)
{
    pt_span sp[3];
    uint8_t sub[3];
    pt_tl_model m = model(sp, sub);
    CHECK(sub[0] == 0 && sub[1] == 1);
    int64_t chain[2] = {1, 2};
    m.n_critical = 2;
    m.critical = chain;
    pt_tl_viewport v = {.t0_ns = 0, .t1_ns = 400, .width = 496, .height = 200,
                        .selected_stask = -1, .hover_span = -1, .selected_span = -1,
                        .show_critical = true};
    pt_tl_stats st;
    pt_tl_render(cr, &m, &v, &st);
    cairo_surface_flush(s);
    CHECK(st.critical == 2);
    double r, g, b;
    pt_tl_critical_rgb(false, &r, &g, &b);
    uint32_t red = ((uint32_t)lround(r * 255) << 16) | ((uint32_t)lround(g * 255) << 8) |
                   (uint32_t)lround(b * 255);
    double yq, hq, yk, hk;
    pt_tl_span_y(&m, &v, 0, 0, &yq, &hq);
    pt_tl_span_y(&m, &v, 1, 0, &yk, &hk);
    CHECK(yk > yq + hq); /* load.K is stacked under load.Q */
    /* At x of both loads (t = 120), red marks load.K's own sub-row and not the strip above
     * load.Q, which the path does not go through. */
    int x = (int)pt_tl_time_to_x(&v, 120);
    CHECK_MSG(near(pixel(s, x, (int)yk + 1), red), "load.K top %06x", pixel(s, x, (int)yk + 1));
    CHECK_MSG(!near(pixel(s, x, (int)yq - 2), red), "above load.Q %06x",
              pixel(s, x, (int)yq - 2));
    for (int y = (int)yq; y < (int)(yq + hq); y++)
        CHECK(!near(pixel(s, x, y), red));
}

/* Group 1 with its own spans: hit-tested with its own indices, its arrows from its own deps. */
static void check_own_group(cairo_t *cr)
{
    pt_span sp[3], own[2];
    uint8_t sub[3];
    pt_tl_model m = model(sp, sub);
    own[0] = (pt_span){1, 0, 0, 0, 0, 100, 100, 0};
    own[1] = (pt_span){2, 1, 0, 150, 150, 300, 300, 0};
    int64_t off[3] = {0, 0, 1}, idx[1] = {0};
    unsigned char kind[1] = {PT_DEP_WAIT};
    pt_span_deps d = {2, off, idx, kind};
    m.n_groups = 2;
    m.group_labels[0] = "A";
    m.group_labels[1] = "B";
    m.group_spans[1] = own;
    m.group_n_spans[1] = 2;
    m.group_deps[1] = &d;
    pt_tl_viewport v = {.t0_ns = 0, .t1_ns = 400, .width = 496, .height = 400,
                        .selected_stask = -1, .hover_span = -1, .selected_span = -1};
    double y, h;
    pt_tl_span_y(&m, &v, 1, 1, &y, &h);
    double x = pt_tl_time_to_x(&v, 225);
    int g = -1;
    CHECK(pt_tl_hit_group(&m, &v, x, y + h / 2, &g) == 1 && g == 1);
    CHECK(pt_tl_hit(&m, &v, x, y + h / 2) == -1); /* not an index into m.spans */
    CHECK(pt_tl_group_deps(&m, 1) == &d);
    pt_tl_stats st;
    v.selected_stask = 2;
    v.selected_span = 1;
    v.selected_group = 1;
    pt_tl_render(cr, &m, &v, &st);
    CHECK_MSG(st.arrows == 1, "arrows %lld", (long long)st.arrows);
    v.selected_group = 0; /* span 1 of group 0 is load.K, not the selected mma: no arrows */
    pt_tl_render(cr, &m, &v, &st);
    CHECK(st.arrows == 0);
    /* its own critical path is drawn too, beside group 0's (only group 0's was) */
    int64_t chain0[2] = {1, 2}, chain1[2] = {0, 1};
    m.n_critical = 2;
    m.critical = chain0;
    v.show_critical = true;
    pt_tl_render(cr, &m, &v, &st);
    CHECK(st.critical == 2);
    m.group_critical[1] = chain1;
    m.group_n_critical[1] = 2;
    pt_tl_render(cr, &m, &v, &st);
    CHECK_MSG(st.critical == 4, "critical bars %lld", (long long)st.critical);
    int64_t n;
    CHECK(pt_tl_group_critical(&m, 1, &n) == chain1 && n == 2);
    char *t = pt_tl_tooltip_markup(&m, &v, x, y + h / 2);
    CHECK(t && strstr(t, "on the critical path"));
    free(t);
}

static void check_cta_pack(void)
{
    int64_t first[PT_CTA_MAX_CLASSES], n[PT_CTA_MAX_CLASSES], tiles[PT_CTA_MAX_CLASSES];
    CHECK(pt_cta_classes(2048, 132, 1, first, n, tiles) == 2);
    CHECK(n[0] == 68 && tiles[0] == 16 && first[1] == 68 && n[1] == 64 && tiles[1] == 15);
    CHECK(pt_cta_classes(264, 132, 1, first, n, tiles) == 1 && n[0] == 132 && tiles[0] == 2);
    CHECK(pt_cta_classes(5, 132, 1, first, n, tiles) == 1 && n[0] == 5 && tiles[0] == 1);
    CHECK(pt_cta_classes(0, 132, 1, first, n, tiles) == 0);
    /* runs of 4: 1001 tiles are 251 runs (the last of 1 tile), 119 EUs with 2 runs, CTA 118
     * running the short one, 13 EUs with 1 */
    CHECK(pt_cta_classes(1001, 132, 4, first, n, tiles) == 3);
    CHECK(first[0] == 0 && n[0] == 118 && tiles[0] == 8);
    CHECK(first[1] == 118 && n[1] == 1 && tiles[1] == 5);
    CHECK(first[2] == 119 && n[2] == 13 && tiles[2] == 4);
    /* 10 tiles in runs of 4: 3 CTAs, the last with 2 */
    CHECK(pt_cta_classes(10, 132, 4, first, n, tiles) == 2 && n[0] == 2 && tiles[0] == 4 &&
          n[1] == 1 && tiles[1] == 2);
    /* A tile of 3 spans (the second waits on the first; the path 0 -> 1 -> 2 by lane order),
     * repeated 3 times with a period shorter than the tile (a persistent CTA's overlap). */
    pt_span base[3] = {{0, 0, 0, 0, 0, 40, 40, 0}, {1, 1, 0, 40, 40, 90, 90, 0},
                       {2, 1, 0, 90, 90, 100, 100, 0}};
    int64_t off[4] = {0, 0, 1, 1}, idx[1] = {0}, crit[3] = {0, 1, 2};
    unsigned char kind[1] = {PT_DEP_DATA};
    pt_span_deps d = {3, off, idx, kind};
    pt_cta_run r;
    CHECK(pt_cta_run_build(&r, base, 3, 3, 80, &d, crit, 3));
    CHECK(r.n_spans == 9 && r.tiles == 3 && r.n_critical == 9 && r.deps.n_spans == 9);
    for (int64_t i = 1; i < r.n_spans; i++)
        CHECK(r.spans[i - 1].start_ns <= r.spans[i].start_ns);
    CHECK(r.spans[r.n_spans - 1].end_ns == 260); /* the last tile's last span, shifted by 160 */
    int64_t edges = 0;
    for (int64_t i = 0; i < r.n_spans; i++)
        for (int64_t e = r.deps.off[i]; e < r.deps.off[i + 1]; e++) {
            const pt_span *a = &r.spans[r.deps.idx[e]], *b = &r.spans[i];
            /* the copy of span 0 in the same tile: 40 ns before, no other tile's */
            CHECK(a->stask == 0 && b->stask == 1 && b->start_ns - a->end_ns == 0);
            edges++;
        }
    CHECK(edges == 3);
    /* each tile's path in time order: every step a dependency or the same lane's next bar
     * (from one tile's path to the next's: the EU going on to its next tile) */
    for (int64_t k = 1; k < r.n_critical; k++) {
        if (k % 3 == 0)
            continue;
        int64_t a = r.critical[k - 1], b = r.critical[k];
        bool dep = false;
        for (int64_t e = r.deps.off[b]; e < r.deps.off[b + 1]; e++)
            dep |= r.deps.idx[e] == a;
        bool lane = r.spans[a].lane == r.spans[b].lane;
        CHECK_MSG(dep || lane, "step %lld", (long long)k);
    }
    pt_cta_run_free(&r);
    CHECK(pt_cta_run_build(&r, base, 3, 1000000, 100, NULL, NULL, 0));
    CHECK(r.n_spans <= PT_CTA_MAX_SPANS && r.tiles < 1000000 && r.deps.off == NULL);
    pt_cta_run_free(&r);
}

/* Issue 19: in the several-CTA view the amber idle tint follows the main timeline's rule per
 * tile. Tile: tma 0-90; cuda (an epilogue) 90-100. Over 4 tiles the cuda lane is busy 10% of
 * the run: it is tinted nowhere (each tile's first bar is its last), where the whole run's
 * first-to-last rule tinted 90-400 (the "lanes that can never be busy"). */
static void check_cta_idle(cairo_surface_t *s, cairo_t *cr)
{
    pt_span base[3] = {{0, 0, 0, 0, 0, 90, 90, 0}, {1, 1, 0, 90, 90, 95, 95, 0},
                       {2, 1, 0, 95, 95, 100, 100, 0}};
    pt_cta_run r;
    CHECK(pt_cta_run_build(&r, base, 3, 4, 100, NULL, NULL, 0));
    CHECK(r.idle_lanes == 2 && r.idle != NULL && r.period_ns == 100);
    if (!r.idle)
        return;
    CHECK(r.idle[3 * 2 + 1].lo == 390 && r.idle[3 * 2 + 1].hi == 400);
    static const char *const lab[] = {"load", "conv", "store"};
    static const pt_seu_kind seu[] = {PT_SEU_TMA, PT_SEU_CUDA_CORE, PT_SEU_CUDA_CORE};
    pt_tl_model m = {0};
    m.n_lanes = 2;
    m.lane_names[0] = "tma";
    m.lane_names[1] = "cuda";
    m.lane_seu[0] = PT_SEU_TMA;
    m.lane_seu[1] = PT_SEU_CUDA_CORE;
    m.n_spans = r.n_spans;
    m.spans = r.spans;
    m.n_stasks = 3;
    m.stask_labels = lab;
    m.stask_seu = seu;
    pt_tl_viewport v = {.t0_ns = 0, .t1_ns = 400, .width = 496, .height = 200,
                        .selected_stask = -1, .hover_span = -1, .selected_span = -1};
    double y, h;
    pt_tl_span_y(&m, &v, 1, 0, &y, &h); /* span 1: a bar of the cuda lane */
    int mid = (int)(y + h / 2), x = (int)pt_tl_time_to_x(&v, 250); /* between two epilogues */
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    pt_tl_render(cr, &m, &v, NULL);
    cairo_surface_flush(s);
    uint32_t whole_run = pixel(s, x, mid);
    CHECK(pt_tl_lane_waiting(&m, 0, 1, 250)); /* the old rule: waiting from 90 to 400 */
    m.group_idle[0] = r.idle;
    m.group_idle_lanes[0] = r.idle_lanes;
    m.group_n_idle[0] = r.tiles * r.idle_lanes;
    CHECK(!pt_tl_lane_waiting(&m, 0, 1, 250) && pt_tl_lane_waiting(&m, 0, 0, 50));
    pt_tl_render(cr, &m, &v, NULL);
    cairo_surface_flush(s);
    uint32_t per_tile = pixel(s, x, mid);
    /* between two tiles' bars on the cuda lane: amber before (red well over blue), the plain
     * background now (grey: red and blue alike) */
    CHECK_MSG(per_tile != whole_run, "tint %06x both ways", per_tile);
    int rr = (whole_run >> 16) & 0xff, bb = whole_run & 0xff;
    CHECK_MSG(rr - bb > 20, "whole-run rule: amber %06x", whole_run); /* amber: red over blue */
    int pr = (per_tile >> 16) & 0xff, pb = per_tile & 0xff;
    CHECK_MSG(abs(pr - pb) < 8, "per tile: %06x", per_tile);
    /* and no gap tooltip there: the lane is not waiting between tiles */
    char *t = pt_tl_tooltip_markup(&m, &v, x, y + 2);
    CHECK_MSG(t == NULL || !strstr(t, "idle"), "%s", t);
    free(t);
    pt_cta_run_free(&r);
}

/* Ring occupancy over the tiles: a tile's step function repeated; overlapping copies add. */
static void check_repeat_steps(void)
{
    const double t[3] = {0, 10, 50};
    const int f[3] = {1, 2, 0};
    double *ot = NULL;
    int *of = NULL;
    int64_t n = pt_cta_repeat_steps(t, f, 3, 3, 40, &ot, &of);
    /* tile 0: 0:1 10:2 50:0; tile 1 (+40): 40:1 50:2 90:0; tile 2 (+80): 80:1 90:2 130:0 —
     * at 40 tile 1 fills while tile 0 holds 2; at 50 tile 0 gives 2 back as tile 1 takes one */
    const double wt[7] = {0, 10, 40, 50, 80, 90, 130};
    const int wf[7] = {1, 2, 3, 2, 3, 2, 0};
    CHECK_MSG(n == 7, "%lld steps", (long long)n);
    for (int64_t k = 0; k < n && k < 7; k++)
        CHECK_MSG(ot[k] == wt[k] && of[k] == wf[k], "step %lld: %g -> %d", (long long)k, ot[k],
                  of[k]);
    free(ot);
    free(of);
    CHECK(pt_cta_repeat_steps(t, f, 0, 3, 40, &ot, &of) == 0 && ot == NULL);
}

/* Arrow keys (issue 19): Left/Right along the bar's lane, Up/Down to the nearest bar in time on
 * the lane above/below; -1 at the edges. */
static void check_nav(void)
{
    pt_span sp[3];
    uint8_t sub[3];
    pt_tl_model m = model(sp, sub);
    CHECK(pt_tl_neighbour(&m, 0, 0, PT_TL_STEP_NEXT) == 1);
    CHECK(pt_tl_neighbour(&m, 0, 1, PT_TL_STEP_NEXT) == -1);
    CHECK(pt_tl_neighbour(&m, 0, 1, PT_TL_STEP_PREV) == 0);
    CHECK(pt_tl_neighbour(&m, 0, 0, PT_TL_STEP_PREV) == -1);
    CHECK(pt_tl_neighbour(&m, 0, 0, PT_TL_STEP_DOWN) == 2);
    CHECK(pt_tl_neighbour(&m, 0, 2, PT_TL_STEP_UP) == 1); /* load.K ends at mma's start */
    CHECK(pt_tl_neighbour(&m, 0, 0, PT_TL_STEP_UP) == -1);
    CHECK(pt_tl_neighbour(&m, 0, 7, PT_TL_STEP_UP) == -1);
}

static void check_menu_place(void)
{
    double ax, ay;
    bool above;
    /* near the right edge: slid left so the 300 px menu ends 4 px inside a 1024 px window */
    pt_menu_place(1010, 100, 300, 120, 1024, 700, 4, &ax, &ay, &above);
    CHECK(fabs(ax + 150 - 1020) < 1e-9 && !above && ay == 100);
    /* near the left edge, slid right; in the middle, untouched */
    pt_menu_place(10, 100, 300, 120, 1024, 700, 4, &ax, &ay, &above);
    CHECK(fabs(ax - 154) < 1e-9);
    pt_menu_place(500, 100, 300, 120, 1024, 700, 4, &ax, &ay, &above);
    CHECK(ax == 500);
    /* near the bottom: opens above */
    pt_menu_place(500, 650, 300, 120, 1024, 700, 4, &ax, &ay, &above);
    CHECK(above && ay == 650);
    /* a pointer outside the window (a lane scrolled away) is brought in */
    pt_menu_place(500, 900, 300, 120, 1024, 700, 4, &ax, &ay, &above);
    CHECK(above && ay == 696);
}

int main(void)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 496, 400);
    cairo_t *cr = cairo_create(s);
    check_critical_subrow(s, cr);
    check_own_group(cr);
    check_cta_pack();
    check_cta_idle(s, cr);
    check_repeat_steps();
    check_nav();
    check_menu_place();
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    cairo_debug_reset_static_data();
    if (ptest_failures)
        fprintf(stderr, "test_timeline_groups: %d failures\n", ptest_failures);
    else
        printf("test_timeline_groups: ok\n");
    return ptest_failures ? 1 : 0;
}
