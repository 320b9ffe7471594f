/* test_explorer_compare.c — issue 19, "Compare two schedules", in a real window under Xvfb:
 * flash_attention compared with a saved sProgram of fewer K/V stages (written with the library
 * here), the Comparison table's rows and the sign of Δ kernel time, both lane groups drawn,
 * an edit of A updating the comparison, Esc ending it, and an sProgram of another graph
 * refused with a message naming both graphs. */
#include <glib/gstdio.h>
#include <math.h>

#include "explorer_test.h"
#include "timeline_render.h"
#include "timeline_view.h"

static char *dir;

/* Write `example` with K and V at `stages` stages (0: as it is) to dir/name; the path. */
static char *write_sprogram(const char *example, int stages, const char *name)
{
    pt_explorer_model *m = pt_explorer_model_new();
    pt_error err = {{0}};
    g_assert_true(pt_explorer_model_load(m, example, "H200", &err));
    if (stages > 0) {
        g_assert_true(pt_explorer_model_set_stages(m, "K", stages, &err));
        g_assert_true(pt_explorer_model_set_stages(m, "V", stages, &err));
    }
    char *path = g_build_filename(dir, name, NULL);
    g_assert_true(pt_explorer_model_save(m, path, &err));
    pt_explorer_model_free(m);
    return path;
}

/* Bars drawn in a 1200x700 render of the timeline. */
static int64_t bars_drawn(void)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1200, 700);
    cairo_t *cr = cairo_create(s);
    pt_tl_stats st;
    pt_timeline_view_render(tl(), cr, 1200, 700, FALSE, &st);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    return st.bars + st.merged;
}

static int count_lines(const char *text)
{
    int n = 0;
    for (const char *p = text; *p; p++)
        n += *p == '\n';
    return n;
}

static void test_compare(void)
{
    pt_window_get_model(win)->dirty = FALSE;
    g_assert_true(pt_window_set_hw(win, "H200"));
    g_assert_true(pt_window_open(win, "flash_attention"));
    spin(100);
    pt_explorer_model *a = pt_window_get_model(win);
    double ka = a->tl.kernel_time_ns;
    int n_stasks = a->sg.n;
    int64_t bars_alone = bars_drawn();
    g_assert_false(pt_window_is_comparing(win));
    g_assert_false(g_action_get_enabled(
        g_action_map_lookup_action(G_ACTION_MAP(win), "stop-comparing")));

    /* B: one stage per K/V ring — no double buffering, so slower. */
    char *b_path = write_sprogram("flash_attention", 1, "fa-1stage.json");
    g_assert_true(pt_window_compare_with(win, b_path));
    spin(100);
    g_assert_true(pt_window_is_comparing(win));
    g_assert_null(pt_window_get_error(win));
    double delta = pt_window_compare_kernel_delta_ns(win);
    g_test_message("kernel A %.1f ns, delta %.1f ns", ka, delta);
    g_assert_cmpfloat(delta, >, 0);
    char *text = pt_window_dup_diff_text(win);
    g_test_message("%s", text);
    g_assert_nonnull(strstr(text, "B: "));
    g_assert_nonnull(strstr(text, "fa-1stage.json"));
    g_assert_nonnull(strstr(text, "Kernel time A "));
    g_assert_nonnull(strstr(text, ", Δ +")); /* B slower: a positive delta */
    /* one row per sTask (same sTask-graph) after the three header lines */
    g_assert_cmpint(count_lines(text), ==, 2 + n_stasks);
    g_assert_nonnull(strstr(text, "\nload.K | "));
    g_assert_nonnull(strstr(text, "\nmma.S.wg0 | "));
    g_free(text);
    /* Sortable: by Δ descending, the first row has the largest Δ, the last the smallest. */
    g_assert_true(pt_window_sort_diff(win, "Δ", TRUE));
    iterate();
    text = pt_window_dup_diff_text(win);
    char **lines = g_strsplit(text, "\n", -1);
    double prev = INFINITY;
    for (int i = 3; lines[i]; i++) { /* after the three header lines */
        char **cells = g_strsplit(lines[i], " | ", -1);
        g_assert_cmpint(g_strv_length(cells), ==, 6);
        double d = g_ascii_strtod(cells[4], NULL);
        if (strstr(cells[4], "µs"))
            d *= 1e3;
        g_assert_cmpfloat(d, <=, prev + 1e-9);
        prev = d;
        g_strfreev(cells);
    }
    g_strfreev(lines);
    g_free(text);

    /* Both groups drawn: A and B labelled, B with its own spans, more bars than A alone. */
    const pt_tl_model *tm = pt_timeline_view_get_model(tl());
    g_assert_cmpint(tm->n_groups, ==, 2);
    g_assert_nonnull(strstr(tm->group_labels[0], "A: "));
    g_assert_nonnull(strstr(tm->group_labels[1], "B: fa-1stage.json"));
    g_assert_nonnull(tm->group_spans[1]);
    g_assert_cmpint(tm->group_n_spans[1], >, 0);
    int64_t bars_both = bars_drawn();
    g_test_message("bars alone %" G_GINT64_FORMAT ", compared %" G_GINT64_FORMAT,
                   (gint64)bars_alone, (gint64)bars_both);
    g_assert_cmpint(bars_both, >, bars_alone + bars_alone / 2);
    /* the time axis covers B's longer run */
    double e0, e1;
    pt_tl_extent(tm, &e0, &e1);
    g_assert_cmpfloat(e1, >=, tm->group_spans[1][tm->group_n_spans[1] - 1].start_ns);

    /* An edit of A re-simulates it and the comparison follows: A with one stage too. */
    explorer_activate("stages", g_variant_new("(si)", "K", 1));
    explorer_activate("stages", g_variant_new("(si)", "V", 1));
    spin(50);
    g_assert_true(pt_window_is_comparing(win));
    g_assert_cmpfloat(fabs(pt_window_compare_kernel_delta_ns(win)), <, 1e-6);
    text = pt_window_dup_diff_text(win);
    g_assert_true(strstr(text, "Δ +0.0 ns") || strstr(text, "Δ -0.0 ns"));
    g_free(text);
    explorer_activate("undo", NULL);
    explorer_activate("undo", NULL);
    g_assert_cmpfloat(pt_window_compare_kernel_delta_ns(win), >, 0);

    /* Esc (nothing selected) ends the comparison. */
    pt_window_select_stask(win, -1);
    explorer_activate("clear-selection", NULL);
    g_assert_false(pt_window_is_comparing(win));
    tm = pt_timeline_view_get_model(tl());
    g_assert_cmpint(pt_tl_groups(tm), ==, 1);
    g_assert_cmpint(bars_drawn(), ==, bars_alone);

    /* The button's action works as well. */
    g_assert_true(pt_window_compare_with(win, b_path));
    iterate();
    explorer_activate("stop-comparing", NULL);
    g_assert_false(pt_window_is_comparing(win));

    /* An sProgram of another graph is refused, naming both. */
    char *other = write_sprogram("gemm_f16", 0, "gemm.json");
    g_assert_false(pt_window_compare_with(win, other));
    g_assert_false(pt_window_is_comparing(win));
    const char *e = pt_window_get_error(win);
    g_assert_nonnull(e);
    g_test_message("%s", e);
    g_assert_nonnull(strstr(e, "Cannot compare"));
    g_assert_nonnull(strstr(e, "'gemm_f16'"));
    g_assert_nonnull(strstr(e, "'flash_attention'"));
    g_assert_cmpint(pt_tl_groups(pt_timeline_view_get_model(tl())), ==, 1);
    g_unlink(other);
    g_unlink(b_path);
    g_free(other);
    g_free(b_path);
    pt_window_get_model(win)->dirty = FALSE;
}

int main(int argc, char **argv)
{
    gtk_test_init(&argc, &argv, NULL);
    dir = g_dir_make_tmp("pt-compare-XXXXXX", NULL);
    g_assert_nonnull(dir);
    g_test_add_func("/compare/two-schedules", test_compare);
    int rc = explorer_test_run("org.pipethreader.TestCompare");
    g_rmdir(dir);
    g_free(dir);
    return rc;
}
