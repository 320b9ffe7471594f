/* test_explorer_issue19d.c — issue 19's several-CTA and compare views complete on every group
 * and tile, in a real window under Xvfb: the amber idle tint of gemm's CUDA-core lanes (busy a
 * moment per tile) stays off between tiles (read from pixels), the ring-occupancy tracks cover
 * the EU's whole run and not its first tile (read from pixels), B's rings and both groups'
 * critical paths are there beside A's, and the bars' context menu opens on the second group's
 * bars (another EU class, sProgram B); the arrow keys move the selection between bars; a trace
 * can be the compared B. */
#include <glib/gstdio.h>
#include <math.h>

#include "explorer_test.h"
#include "timeline_render.h"
#include "timeline_view.h"

static void activate(const char *action)
{
    GAction *a = g_action_map_lookup_action(G_ACTION_MAP(win), action);
    g_assert_nonnull(a);
    g_action_activate(a, NULL);
    iterate();
}

static void load(const char *example)
{
    explorer_open(example);
    spin(100);
}

/* Amber (the idle tint) reads as red well above blue; the plain lane background is grey. */
static int red_minus_blue(uint32_t p)
{
    return (int)((p >> 16) & 0xff) - (int)(p & 0xff);
}

static cairo_surface_t *render(int *w, int *h)
{
    *w = gtk_widget_get_width(GTK_WIDGET(tl()));
    *h = gtk_widget_get_height(GTK_WIDGET(tl()));
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, *w, *h);
    cairo_t *cr = cairo_create(s);
    pt_timeline_view_render(tl(), cr, *w, *h, FALSE, NULL);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    return s;
}

/* Between two of a CUDA-core lane's tiles in group g: the midpoint of the longest stretch with
 * no bar of that lane, from its first bar to its last. */
static double longest_gap_mid(const pt_tl_model *m, int g, int lane, double *len)
{
    int64_t n;
    const pt_span *sp = pt_tl_group_spans(m, g, &n);
    double end = -INFINITY, best = 0, mid = NAN;
    for (int64_t i = 0; i < n; i++) {
        if (sp[i].lane != lane)
            continue;
        if (isfinite(end) && sp[i].start_ns - end > best) {
            best = sp[i].start_ns - end;
            mid = (sp[i].start_ns + end) / 2;
        }
        end = fmax(end, sp[i].end_ns);
    }
    *len = best;
    return mid;
}

static void test_ctas_idle_tint(void)
{
    load("gemm_f16");
    activate("show-ctas");
    spin(100);
    const pt_tl_model *m = pt_timeline_view_get_model(tl());
    g_assert_cmpint(m->n_groups, >=, 1);
    g_test_message("%s", m->group_labels[0]);
    pt_timeline_view_fit(tl());
    activate("show-critical"); /* off: its red links between tiles run along the CUDA lanes */
    int w, h, checked = 0;
    cairo_surface_t *s = render(&w, &h);
    activate("show-critical");
    for (int g = 0; g < m->n_groups; g++)
        for (int l = 0; l < m->n_lanes; l++) {
            if (m->lane_seu[l] != PT_SEU_CUDA_CORE || !(m->lane_busy_pct[l] < 10))
                continue;
            /* a CUDA-core lane busy under 10% of a tile: between its tiles it is not waiting */
            double len, t = longest_gap_mid(m, g, l, &len);
            if (!(len > 0))
                continue;
            int x = (int)pt_timeline_view_time_x(tl(), t);
            int row = g * m->n_lanes + l;
            int y = (int)pt_timeline_view_lane_y(tl(), row);
            uint32_t p = px(s, x, y);
            g_test_message("group %d lane %s busy %.1f%%: gap %.0f ns at x %d: %06x", g,
                           m->lane_names[l], m->lane_busy_pct[l], len, x, p);
            g_assert_false(pt_tl_lane_waiting(m, g, l, t));
            g_assert_cmpint(abs(red_minus_blue(p)), <, 8); /* not amber */
            checked++;
        }
    g_assert_cmpint(checked, >=, 2); /* cuda.wg0 and cuda.wg1 at least */
    /* A lane that does wait inside its tile (the TMA's, between its loads) keeps its tint: the
     * rule is the main timeline's, per tile. */
    int tc = -1;
    for (int l = 0; l < m->n_lanes && tc < 0; l++)
        if (m->lane_seu[l] == PT_SEU_TMA)
            tc = l;
    g_assert_cmpint(tc, >=, 0);
    int64_t n;
    const pt_span *sp = pt_tl_group_spans(m, 0, &n);
    int64_t waiting = 0, samples = 0;
    for (int64_t i = 0; i < n; i++)
        if (sp[i].lane == tc) {
            samples++;
            waiting += pt_tl_lane_waiting(m, 0, tc, sp[i].end_ns + 1);
        }
    g_assert_cmpint(waiting, >, samples / 2);
    cairo_surface_destroy(s);
    activate("show-ctas");
}

/* The ring tracks under the lanes cover the busiest class's whole run: filled near its end. */
static void test_ctas_rings(void)
{
    load("gemm_f16");
    double single_end = 0;
    {
        const pt_tl_model *m = pt_timeline_view_get_model(tl());
        g_assert_cmpint(m->n_rings, >, 0);
        single_end = m->ring_t[0][m->ring_n[0] - 1];
    }
    activate("show-ctas");
    spin(100);
    const pt_tl_model *m = pt_timeline_view_get_model(tl());
    g_assert_cmpint(m->n_rings, >, 0);
    double t0, t1;
    pt_tl_extent(m, &t0, &t1);
    double ring_end = m->ring_t[0][m->ring_n[0] - 1];
    g_test_message("ring %s: one tile ends %.0f ns, the run's ends %.0f ns (run %.0f ns)",
                   m->ring_names[0], single_end, ring_end, t1);
    g_assert_cmpfloat(ring_end, >, 0.8 * t1);
    g_assert_cmpfloat(ring_end, >, 2 * single_end);
    pt_timeline_view_fit(tl());
    int w, h;
    cairo_surface_t *s = render(&w, &h);
    /* near the end of the run (the last tile) the track has its filled stages drawn */
    int rows = pt_tl_rows(m), found = 0;
    /* some column over the last tenth of the run has the TMA blue of a filled stage in the
     * first track's band (searched: the track sits under the last lane) */
    for (int x = (int)pt_timeline_view_time_x(tl(), 0.9 * ring_end);
         x < (int)pt_timeline_view_time_x(tl(), ring_end) && !found; x++)
        for (int y = (int)pt_timeline_view_lane_y(tl(), rows - 1); y < h && !found; y++) {
            uint32_t p = px(s, x, y);
            int r = (p >> 16) & 0xff, b = p & 0xff;
            found = b - r > 40; /* blue: a filled stage (bars above are not there: lanes end) */
        }
    g_assert_true(found);
    cairo_surface_destroy(s);
    activate("show-ctas");
}

/* Right-click on the second group's bars: the menu opens for that sTask, that bar selected. */
static void menu_on_group1(int64_t pick)
{
    const pt_tl_model *m = pt_timeline_view_get_model(tl());
    int64_t n;
    const pt_span *sp = pt_tl_group_spans(m, 1, &n);
    g_assert_cmpint(pick, >=, 0);
    g_assert_cmpint(pick, <, n);
    pt_timeline_view_set_range(tl(), sp[pick].start_ns - 2000, sp[pick].end_ns + 2000);
    double x, y;
    g_assert_true(pt_timeline_view_span_point(tl(), 1, pick, &x, &y));
    g_assert_true(pt_timeline_view_context_menu(tl(), x, y));
    spin(200);
    g_assert_cmpint(pt_timeline_view_get_selected_group(tl()), ==, 1);
    g_assert_cmpint(pt_timeline_view_get_selected_span(tl()), ==, pick);
    g_assert_cmpint(pt_window_get_selected(win), ==, sp[pick].stask);
    g_assert_true(pt_timeline_view_menu_open(tl()));
    /* the menu is the selected sTask's: Add Wait… and its Waits */
    GMenuModel *menu = pt_window_get_bar_menu(win);
    g_assert_cmpint(g_menu_model_get_n_items(menu), >=, 2);
    GtkWidget *pop = NULL;
    for (GtkWidget *c = gtk_widget_get_first_child(GTK_WIDGET(tl())); c;
         c = gtk_widget_get_next_sibling(c))
        if (GTK_IS_POPOVER(c))
            pop = c;
    g_assert_nonnull(pop);
    gtk_popover_popdown(GTK_POPOVER(pop));
    spin(100);
}

static void test_menu_every_group(void)
{
    load("flash_attention"); /* two EU classes */
    activate("show-ctas");
    spin(100);
    const pt_tl_model *m = pt_timeline_view_get_model(tl());
    g_assert_cmpint(m->n_groups, ==, 2);
    g_assert_cmpint(m->group_n_critical[1], >, 0); /* the other class's red path */
    int64_t n;
    const pt_span *sp = pt_tl_group_spans(m, 1, &n);
    int mma = pt_stask_find(&pt_window_get_model(win)->sg, "mma.O.wg0");
    int64_t pick = -1;
    for (int64_t i = n / 2; i < n && pick < 0; i++) /* a later tile's bar */
        if (sp[i].stask == mma)
            pick = i;
    menu_on_group1(pick);
    activate("show-ctas");
    /* the compared sProgram B */
    char *dir = g_dir_make_tmp("pt-issue19d-XXXXXX", NULL);
    g_assert_nonnull(dir);
    pt_explorer_model *b = pt_explorer_model_new();
    pt_error err = {{0}};
    g_assert_true(pt_explorer_model_load(b, "flash_attention", "H200", &err));
    g_assert_true(pt_explorer_model_set_stages(b, "K", 3, &err));
    char *path = g_build_filename(dir, "b.json", NULL);
    g_assert_true(pt_explorer_model_save(b, path, &err));
    pt_explorer_model_free(b);
    g_assert_true(pt_window_compare_with(win, path));
    spin(100);
    m = pt_timeline_view_get_model(tl());
    g_assert_cmpint(m->n_groups, ==, 2);
    /* B's rings are drawn too, named apart from A's */
    bool ring_a = false, ring_b = false;
    for (int r = 0; r < m->n_rings; r++) {
        g_test_message("ring %s", m->ring_names[r]);
        ring_a |= g_str_has_prefix(m->ring_names[r], "A · ");
        ring_b |= g_str_has_prefix(m->ring_names[r], "B · ");
    }
    g_assert_true(ring_a && ring_b);
    g_assert_cmpint(m->group_n_critical[1], >, 10); /* B's own critical path */
    sp = pt_tl_group_spans(m, 1, &n);
    pick = -1;
    for (int64_t i = 0; i < n && pick < 0; i++)
        if (sp[i].stask == mma && sp[i].iter == 2)
            pick = i;
    menu_on_group1(pick);
    pt_window_stop_comparing(win);
    g_unlink(path);
    g_rmdir(dir);
    g_free(path);
    g_free(dir);
}

/* Arrow keys on the timeline (issue 19: they did nothing): Right/Left move the selection along
 * the bar's lane, Down to the lane below; the window's selection follows. */
static void test_arrow_keys(void)
{
    load("gemm_f16");
    pt_timeline_view_fit(tl());
    const pt_tl_model *m = pt_timeline_view_get_model(tl());
    int mma = pt_stask_find(&pt_window_get_model(win)->sg, "mma.C.wg0");
    int64_t pick = -1;
    for (int64_t i = 0; i < m->n_spans && pick < 0; i++)
        if (m->spans[i].stask == mma && m->spans[i].iter == 2)
            pick = i;
    g_assert_cmpint(pick, >=, 0);
    double x, y;
    g_assert_true(pt_timeline_view_span_point(tl(), 0, pick, &x, &y));
    pt_timeline_view_click(tl(), x, y);
    iterate();
    g_assert_cmpint(pt_timeline_view_get_selected_span(tl()), ==, pick);
    g_assert_true(pt_timeline_view_arrow(tl(), GDK_KEY_Right));
    int64_t next = pt_timeline_view_get_selected_span(tl());
    g_assert_cmpint(next, >, pick);
    g_assert_cmpint(m->spans[next].lane, ==, m->spans[pick].lane);
    g_assert_cmpint(m->spans[next].iter, ==, 3); /* mma.C.wg0 is its lane's only sTask */
    g_assert_cmpint(pt_window_get_selected(win), ==, mma);
    g_assert_true(pt_timeline_view_arrow(tl(), GDK_KEY_Left));
    g_assert_cmpint(pt_timeline_view_get_selected_span(tl()), ==, pick);
    g_assert_true(pt_timeline_view_arrow(tl(), GDK_KEY_Down));
    int64_t below = pt_timeline_view_get_selected_span(tl());
    g_assert_cmpint(m->spans[below].lane, >, m->spans[pick].lane);
    g_assert_cmpint(pt_window_get_selected(win), ==, m->spans[below].stask);
    /* nothing selected: Left/Right pan as A/D do */
    activate("clear-selection");
    double t0, t1, u0, u1;
    pt_timeline_view_get_range(tl(), &t0, &t1);
    g_assert_true(pt_timeline_view_arrow(tl(), GDK_KEY_Right));
    pt_timeline_view_get_range(tl(), &u0, &u1);
    g_assert_cmpfloat(u0, >, t0);
}

/* Compare with a profiled trace (issue 19: "a second sProgram or trace"; only sPrograms were
 * taken): B is the trace's prediction with its measured spans under it, and the comparison's B
 * figures are the measured ones. A trace of another graph is refused. */
static void test_compare_trace(void)
{
    const char *trace = "tests/fixtures/gemm_f16_2048.trace.json";
    load("flash_attention");
    g_assert_false(pt_window_compare_with(win, trace)); /* gemm's trace, FA shown */
    load("gemm_f16");
    g_assert_true(pt_window_compare_with(win, trace));
    spin(100);
    const pt_tl_model *m = pt_timeline_view_get_model(tl());
    g_assert_cmpint(m->n_groups, ==, 2);
    g_test_message("%s", m->group_labels[1]);
    g_assert_nonnull(strstr(m->group_labels[1], "trace"));
    g_assert_cmpint(m->group_n_spans[1], >, 0);
    g_assert_cmpint(m->group_n_measured[1], >, 0); /* measured bars drawn in B's lanes */
    char *text = pt_window_dup_diff_text(win);
    g_test_message("%s", text);
    g_assert_nonnull(strstr(text, "B is a trace"));
    /* this fixture predates traces naming their inputs: said, not passed off as its own */
    g_assert_nonnull(strstr(text, "does not name its graph parameters"));
    g_assert_nonnull(strstr(text, "mma.C.wg0"));
    g_free(text);
    /* its bars answer a right click too */
    int64_t n;
    const pt_span *sp = pt_tl_group_spans(m, 1, &n);
    int64_t pick = -1;
    for (int64_t i = n / 2; i < n && pick < 0; i++)
        if (sp[i].stask >= 0)
            pick = i;
    menu_on_group1(pick);
    pt_window_stop_comparing(win);
    /* opened as the document, its summary says the bars come from a slower, instrumented run
     * (this fixture's instrumented build is 14.9% slower than the plain one) */
    g_assert_true(pt_window_open(win, trace));
    char *sum = pt_window_dup_summary(win);
    g_test_message("%s", sum);
    g_assert_nonnull(strstr(sum, "15% slower than the plain one"));
    g_free(sum);
}

int main(int argc, char **argv)
{
    gtk_test_init(&argc, &argv, NULL);
    g_test_add_func("/issue19d/ctas-idle-tint", test_ctas_idle_tint);
    g_test_add_func("/issue19d/ctas-rings", test_ctas_rings);
    g_test_add_func("/issue19d/menu-every-group", test_menu_every_group);
    g_test_add_func("/issue19d/arrow-keys", test_arrow_keys);
    g_test_add_func("/issue19d/compare-trace", test_compare_trace);
    return explorer_test_run("org.pipethreader.TestIssue19d");
}
