/* test_explorer_features.c — the explorer's issue-6 features in a real window (suite 'gui',
 * under Xvfb via run_xvfb.sh): dropping files, the unsaved-changes prompt before opening over
 * edits, the timeline bars' context menu adding and removing Waits through the window's
 * actions, the inspector's tile and stages form, unrolling the loop in the sTask-graph, the
 * several-CTA lane groups, the dark style switching the renderer's colours, recent files and an
 * sProgram saved over a graph file that is not a shipped example. */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <string.h>

#include "explorer_test.h"
#include "graph_view.h"
#include "style.h"
#include "timeline_view.h"
#include "window.h"

static char *tmpdir;

static pt_explorer_model *model(void)
{
    return pt_window_get_model(win);
}

static int stask(const char *id)
{
    return pt_stask_find(&model()->sg, id);
}

static void activate(const char *action, GVariant *param)
{
    g_action_activate(g_action_map_lookup_action(G_ACTION_MAP(win), action), param);
    iterate();
}

static GtkWidget *find_toplevel(GType type, const char *title_prefix)
{
    GListModel *tops = gtk_window_get_toplevels();
    for (guint i = 0; i < g_list_model_get_n_items(tops); i++) {
        GtkWidget *w = g_list_model_get_item(tops, i);
        g_object_unref(w);
        const char *t = gtk_window_get_title(GTK_WINDOW(w));
        if (G_TYPE_CHECK_INSTANCE_TYPE(w, type) && gtk_widget_get_visible(w) &&
            (!title_prefix || (t && g_str_has_prefix(t, title_prefix))))
            return w;
    }
    return NULL;
}

static void make_dirty(void)
{
    g_assert_true(pt_window_open(win, "gemm_f16"));
    g_assert_true(pt_window_select_stask_id(win, "load.B"));
    activate("append", g_variant_new("(si)", "tma", 0));
    g_assert_true(model()->dirty);
}

static void test_drop(void)
{
    g_assert_true(pt_window_open(win, "gemm_f16"));
    GFile *f = g_file_new_for_path("examples/flash_attention.json");
    GSList *files = g_slist_append(NULL, f);
    g_assert_true(pt_window_drop_files(win, files));
    iterate();
    g_assert_null(pt_window_get_error(win));
    g_assert_true(g_str_has_suffix(model()->source, "/examples/flash_attention.json"));
    g_assert_cmpstr(model()->graph.name, ==, "flash_attention");
    g_slist_free_full(files, g_object_unref);
    /* Nothing local: refused, with the reason in the banner; the window keeps its graph. */
    GFile *remote = g_file_new_for_uri("http://example.invalid/graph.json");
    files = g_slist_append(NULL, remote);
    g_assert_false(pt_window_drop_files(win, files));
    g_assert_nonnull(pt_window_get_error(win));
    g_assert_nonnull(strstr(pt_window_get_error(win), "not a local file"));
    g_assert_cmpstr(model()->graph.name, ==, "flash_attention");
    g_slist_free_full(files, g_object_unref);
}

static void test_open_over_unsaved(void)
{
    make_dirty();
    /* Dirty: opening asks first and opens nothing yet. */
    g_assert_false(pt_window_request_open(win, "flash_attention"));
    iterate();
    GtkWidget *d = find_toplevel(GTK_TYPE_DIALOG, NULL);
    g_assert_nonnull(d);
    gtk_dialog_response(GTK_DIALOG(d), GTK_RESPONSE_CANCEL);
    iterate();
    g_assert_cmpstr(model()->graph.name, ==, "gemm_f16"); /* Cancel keeps the work */
    g_assert_true(model()->dirty);
    g_assert_null(find_toplevel(GTK_TYPE_DIALOG, NULL));
    g_assert_false(pt_window_request_open(win, "flash_attention"));
    iterate();
    d = find_toplevel(GTK_TYPE_DIALOG, NULL);
    g_assert_nonnull(d);
    gtk_dialog_response(GTK_DIALOG(d), 2 /* Discard */);
    iterate();
    g_assert_cmpstr(model()->graph.name, ==, "flash_attention");
    g_assert_false(model()->dirty);
    /* Clean: opens at once, no prompt. */
    g_assert_true(pt_window_request_open(win, "gemm_f16"));
    g_assert_null(find_toplevel(GTK_TYPE_DIALOG, NULL));
}

static int count_waits(int s)
{
    int n = 0;
    for (int w = 0; w < model()->prog.n_waits; w++)
        n += model()->prog.waits[w].stask == s;
    return n;
}

static void test_context_menu_waits(void)
{
    g_assert_true(pt_window_open(win, "flash_attention"));
    iterate();
    PtTimelineView *tv = PT_TIMELINE_VIEW(pt_window_get_timeline(win));
    int s = stask("mma.S.wg0");
    double x, y;
    g_assert_true(pt_timeline_view_bar_point(tv, s, &x, &y));
    /* A right click on the bar selects its sTask and fills the menu with its Waits. */
    g_assert_true(pt_timeline_view_context_menu(tv, x, y));
    iterate();
    g_assert_cmpint(pt_window_get_selected(win), ==, s);
    g_assert_cmpint(pt_timeline_view_get_selected_span(tv), >=, 0);
    int before = count_waits(s);
    g_assert_cmpint(before, >, 0);
    GMenuModel *menu = pt_window_get_bar_menu(win);
    /* Section 0: Add Wait…; section 1: one Remove item per Wait. */
    GMenuModel *rm = g_menu_model_get_item_link(menu, 1, G_MENU_LINK_SECTION);
    g_assert_nonnull(rm);
    g_assert_cmpint(g_menu_model_get_n_items(rm), ==, before);
    char *action = NULL;
    g_assert_true(g_menu_model_get_item_attribute(rm, 0, G_MENU_ATTRIBUTE_ACTION, "s", &action));
    g_assert_cmpstr(action, ==, "win.wait-remove");
    g_free(action);
    /* These Waits carry data: removing one is refused with the reason in the banner. */
    GVariant *target = g_menu_model_get_item_attribute_value(rm, 0, G_MENU_ATTRIBUTE_TARGET,
                                                             G_VARIANT_TYPE("(si)"));
    g_assert_nonnull(target);
    activate("wait-remove", target); /* what choosing the menu item does */
    g_assert_nonnull(pt_window_get_error(win));
    g_assert_nonnull(strstr(pt_window_get_error(win), "has no Wait on it"));
    g_assert_cmpint(count_waits(s), ==, before);
    g_object_unref(rm);
    /* Add a Wait on the other warpgroup's previous mma: accepted, and the menu lists it. */
    int on = stask("mma.S.wg1");
    activate("wait-add", g_variant_new("(si)", "mma.S.wg1", 1));
    g_assert_cmpstr(pt_window_get_error(win), ==, NULL);
    g_assert_true(pt_has_wait(&model()->prog, s, on, 1));
    g_assert_true(pt_timeline_view_bar_point(tv, s, &x, &y));
    g_assert_true(pt_timeline_view_context_menu(tv, x, y));
    iterate();
    rm = g_menu_model_get_item_link(menu, 1, G_MENU_LINK_SECTION);
    g_assert_cmpint(g_menu_model_get_n_items(rm), ==, before + 1);
    int found = -1;
    for (int i = 0; i < g_menu_model_get_n_items(rm); i++) {
        GVariant *t = g_menu_model_get_item_attribute_value(rm, i, G_MENU_ATTRIBUTE_TARGET,
                                                            G_VARIANT_TYPE("(si)"));
        const char *id;
        gint32 d;
        g_variant_get(t, "(&si)", &id, &d);
        if (g_str_equal(id, "mma.S.wg1") && d == 1)
            found = i;
        g_variant_unref(t);
    }
    g_assert_cmpint(found, >=, 0);
    target = g_menu_model_get_item_attribute_value(rm, found, G_MENU_ATTRIBUTE_TARGET,
                                                   G_VARIANT_TYPE("(si)"));
    activate("wait-remove", target);
    g_assert_cmpstr(pt_window_get_error(win), ==, NULL);
    g_assert_false(pt_has_wait(&model()->prog, s, on, 1));
    g_assert_cmpint(count_waits(s), ==, before);
    g_object_unref(rm);
    /* Ctrl+Shift+D (win.wait-remove-last) removes the newest Wait. */
    activate("wait-add", g_variant_new("(si)", "mma.S.wg1", 1));
    g_assert_true(pt_has_wait(&model()->prog, s, on, 1));
    activate("wait-remove-last", NULL);
    g_assert_cmpstr(pt_window_get_error(win), ==, NULL);
    g_assert_false(pt_has_wait(&model()->prog, s, on, 1));
    /* A refused edit shows why: the same Wait twice. */
    activate("wait-add", g_variant_new("(si)", "mma.S.wg1", 1));
    activate("wait-add", g_variant_new("(si)", "mma.S.wg1", 1));
    g_assert_nonnull(pt_window_get_error(win));
    g_assert_nonnull(strstr(pt_window_get_error(win), "already waits"));
    /* The Add Wait dialog opens for the selected sTask. */
    activate("wait-add-dialog", NULL);
    GtkWidget *dlg = find_toplevel(GTK_TYPE_WINDOW, "Add Wait to mma.S.wg0");
    g_assert_nonnull(dlg);
    gtk_window_destroy(GTK_WINDOW(dlg));
    iterate();
    model()->dirty = FALSE;
}

static void test_tile_form(void)
{
    g_assert_true(pt_window_open(win, "gemm_f16"));
    iterate();
    int k = -1;
    for (int a = 0; a < model()->graph.n_axes; a++)
        if (g_str_equal(model()->graph.axes[a].name, "k"))
            k = a;
    g_assert_cmpint(k, >=, 0);
    int64_t old = model()->sg.tiling.tile[k];
    int64_t want = old == 32 ? 64 : 32;
    char text[32];
    g_snprintf(text, sizeof text, "%" G_GINT64_FORMAT, (gint64)want);
    g_assert_false(pt_window_set_tile_field(win, "nosuch", "1"));
    g_assert_true(pt_window_set_tile_field(win, "k", text));
    pt_window_apply_tile_form(win);
    iterate();
    g_assert_null(pt_window_get_error(win));
    g_assert_cmpint(model()->sg.tiling.tile[k], ==, want);
    g_assert_true(model()->dirty);
    /* A bad value is refused with the field named, and the model stays. */
    g_assert_true(pt_window_set_tile_field(win, "k", "abc"));
    pt_window_apply_tile_form(win);
    iterate();
    g_assert_nonnull(pt_window_get_error(win));
    g_assert_cmpint(model()->sg.tiling.tile[k], ==, want);
    /* Stages: the spin button of a buffered tensor runs win.stages. */
    GtkWidget *spin = pt_window_get_stages_spin(win, "A");
    g_assert_nonnull(spin);
    int t = -1;
    for (int i = 0; i < model()->graph.n_tensors; i++)
        if (g_str_equal(model()->graph.tensors[i].name, "A"))
            t = i;
    int st = model()->prog.stages[t];
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(spin), st + 1);
    iterate();
    g_assert_cmpint(model()->prog.stages[t], ==, st + 1);
    model()->dirty = FALSE;
}

static void test_unroll(void)
{
    g_assert_true(pt_window_open(win, "flash_attention"));
    g_assert_true(pt_window_show_page(win, "graph"));
    PtGraphView *gv = PT_GRAPH_VIEW(pt_window_get_graph(win));
    for (int i = 0; i < 200 && gtk_widget_get_width(GTK_WIDGET(gv)) <= 0; i++) {
        g_main_context_iteration(NULL, FALSE);
        g_usleep(5000);
    }
    int n = model()->sg.n, body = 0;
    for (int i = 0; i < n; i++)
        body += model()->sg.tasks[i].region == PT_REGION_BODY;
    g_assert_cmpint(pt_graph_view_get_node_count(gv), ==, n);
    activate("unroll-loop", NULL); /* the toggle */
    g_assert_cmpint(pt_graph_view_get_unroll(gv), ==, PT_GRAPH_VIEW_DEFAULT_UNROLL);
    g_assert_cmpint(pt_graph_view_get_node_count(gv), ==,
                    n + (PT_GRAPH_VIEW_DEFAULT_UNROLL - 1) * body);
    /* Each copy can be clicked to select its sTask. */
    double x, y;
    g_assert_true(pt_graph_view_node_point(gv, stask("mma.S.wg0"), &x, &y));
    pt_graph_view_click(gv, x, y);
    iterate();
    g_assert_cmpint(pt_window_get_selected(win), ==, stask("mma.S.wg0"));
    /* A double-click on the loop body folds it again, and the toggle follows. */
    g_assert_true(pt_graph_view_double_click(gv, x, y));
    iterate();
    g_assert_cmpint(pt_graph_view_get_node_count(gv), ==, n);
    GVariant *state = g_action_get_state(g_action_map_lookup_action(G_ACTION_MAP(win),
                                                                    "unroll-loop"));
    g_assert_false(g_variant_get_boolean(state));
    g_variant_unref(state);
    g_assert_true(pt_window_show_page(win, "timeline"));
}

static int preferred_height(GtkWidget *w)
{
    int min = 0, nat = 0;
    gtk_widget_measure(w, GTK_ORIENTATION_VERTICAL, -1, &min, &nat, NULL, NULL);
    return nat;
}

static void test_several_ctas(void)
{
    g_assert_true(pt_window_open(win, "flash_attention")); /* 16 waves */
    iterate();
    GtkWidget *tv = pt_window_get_timeline(win);
    int one = preferred_height(tv);
    activate("show-ctas", NULL);
    int many = preferred_height(tv);
    /* 2048 tiles over 132 SMs: the SMs running 16 tiles and those running 15 (issue 19: one
     * group per class of SMs, each with its whole run, not one per wave) */
    g_assert_cmpint(many, >=, one + model()->prog.n_lanes * (int)PT_TL_LANE_H);
    /* More lanes are drawn too: the bottom group's rows hold bars. */
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1200, many);
    cairo_t *cr = cairo_create(s);
    pt_tl_stats st1, st4;
    pt_timeline_view_render(PT_TIMELINE_VIEW(tv), cr, 1200, many, FALSE, &st4);
    activate("show-ctas", NULL);
    pt_timeline_view_render(PT_TIMELINE_VIEW(tv), cr, 1200, many, FALSE, &st1);
    g_assert_cmpint(preferred_height(tv), ==, one);
    g_assert_cmpint(st4.bars + st4.merged, >, 2 * (st1.bars + st1.merged));
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}

static void test_dark(void)
{
    g_assert_true(pt_style_portal_is_dark(1));
    g_assert_false(pt_style_portal_is_dark(0));
    g_assert_false(pt_style_portal_is_dark(2));
    g_assert_true(pt_style_gsettings_is_dark("prefer-dark"));
    g_assert_false(pt_style_gsettings_is_dark("default"));
    g_assert_true(pt_window_open(win, "gemm_f16"));
    iterate();
    PtTimelineView *tv = PT_TIMELINE_VIEW(pt_window_get_timeline(win));
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 400, 200);
    cairo_t *cr = cairo_create(s);
    uint32_t px[2];
    for (int dark = 0; dark < 2; dark++) {
        pt_style_set_dark(dark);
        g_assert_cmpint(pt_timeline_view_get_dark(tv), ==, dark);
        pt_timeline_view_render(tv, cr, 400, 200, pt_timeline_view_get_dark(tv), NULL);
        cairo_surface_flush(s);
        px[dark] = *(uint32_t *)cairo_image_surface_get_data(s) & 0xffffff;
    }
    pt_style_set_dark(FALSE);
    g_assert_cmphex(px[0], ==, 0xffffff);
    g_assert_cmphex((px[1] >> 16) & 0xff, <, 0x40);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}

static gboolean recent_has(const char *path)
{
    GMenuModel *m = pt_window_get_recent_menu(win);
    for (int i = 0; i < g_menu_model_get_n_items(m); i++) {
        GVariant *t = g_menu_model_get_item_attribute_value(m, i, G_MENU_ATTRIBUTE_TARGET,
                                                            G_VARIANT_TYPE_STRING);
        gboolean yes = t && g_str_equal(g_variant_get_string(t, NULL), path);
        if (t)
            g_variant_unref(t);
        if (yes)
            return TRUE;
    }
    return FALSE;
}

static void test_recent_and_graph_file(void)
{
    /* A graph that is not a shipped example (renamed copy of gemm_f16). */
    char *text = NULL;
    g_assert_true(g_file_get_contents("examples/gemm_f16.json", &text, NULL, NULL));
    char *p = strstr(text, "\"gemm_f16\"");
    g_assert_nonnull(p);
    GString *g = g_string_new_len(text, p - text);
    g_string_append(g, "\"my_gemm\"");
    g_string_append(g, p + strlen("\"gemm_f16\""));
    char *graph = g_build_filename(tmpdir, "my_gemm.json", NULL);
    char *sprog = g_build_filename(tmpdir, "my_gemm.sprogram.json", NULL);
    g_assert_true(g_file_set_contents(graph, g->str, -1, NULL));
    g_string_free(g, TRUE);
    g_free(text);
    g_assert_true(pt_window_open(win, graph));
    g_assert_true(pt_window_save_to(win, sprog));
    g_assert_false(pt_explorer_sprogram_graph_embedded(sprog));
    g_assert_true(pt_window_open_sprogram_with_graph(win, sprog, graph));
    g_assert_cmpstr(model()->graph.name, ==, "my_gemm");
    /* Both files are in the recent list (the manager writes, then announces, in idle time). */
    for (int i = 0; i < 100 && !(recent_has(graph) && recent_has(sprog)); i++)
        spin(20);
    g_assert_true(recent_has(graph));
    g_assert_true(recent_has(sprog));
    g_unlink(sprog);
    g_unlink(graph);
    g_free(graph);
    g_free(sprog);
}

int main(int argc, char **argv)
{
    /* Recent files go to a scratch data directory, not the user's. */
    tmpdir = g_dir_make_tmp("pt-features-XXXXXX", NULL);
    g_setenv("XDG_DATA_HOME", tmpdir, TRUE);
    gtk_test_init(&argc, &argv, NULL);
    g_test_add_func("/features/drop", test_drop);
    g_test_add_func("/features/open-over-unsaved", test_open_over_unsaved);
    g_test_add_func("/features/context-menu-waits", test_context_menu_waits);
    g_test_add_func("/features/tile-form", test_tile_form);
    g_test_add_func("/features/unroll", test_unroll);
    g_test_add_func("/features/several-ctas", test_several_ctas);
    g_test_add_func("/features/dark", test_dark);
    g_test_add_func("/features/recent-and-graph-file", test_recent_and_graph_file);
    int rc = explorer_test_run("org.pipethreader.FeaturesTest");
    char *cmd = g_strdup_printf("rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        g_printerr("could not remove %s\n", tmpdir);
    g_free(cmd);
    g_free(tmpdir);
    return rc;
}
