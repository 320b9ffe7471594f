/* test_explorer_edit.c — editing in the explorer window, driven through the same GActions the
 * menus and shortcuts use (suite 'gui', under Xvfb via run_xvfb.sh): Append, Wait add/remove,
 * a refused (deadlocking) Wait, stages, re-tiling, undo/redo to exact states, save and reopen,
 * a drag on the timeline that moves an sTask, a click on a node of the sTask-graph page
 * that selects the sTask everywhere, and the factored decay's check button (ChunkScan only). */
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explorer_test.h"
#include "codegen.h"
#include "graph_view.h"
#include "timeline_view.h"
#include "window.h"


static void load(void)
{
    g_assert_true(pt_window_open(win, "gemm_f16"));
    g_assert_null(pt_window_get_error(win));
    iterate();
}

static int stask(const char *id)
{
    return pt_stask_find(&pt_window_get_model(win)->sg, id);
}

static void where(const char *id, char *lane, size_t cap, int *pos)
{
    const pt_explorer_model *m = pt_window_get_model(win);
    int l = -1;
    g_assert_true(pt_sprogram_placement(&m->prog, stask(id), &l, pos));
    g_strlcpy(lane, m->prog.lanes[l].name, cap);
}

static gboolean enabled(const char *action)
{
    return g_action_get_enabled(g_action_map_lookup_action(G_ACTION_MAP(win), action));
}

static void activate(const char *action, GVariant *param)
{
    g_action_activate(g_action_map_lookup_action(G_ACTION_MAP(win), action), param);
    iterate();
}

static void test_append(void)
{
    load();
    g_assert_false(enabled("undo"));
    char lane[64];
    int pos;
    where("load.B", lane, sizeof lane, &pos);
    g_assert_cmpstr(lane, ==, "tma");
    g_assert_cmpint(pos, ==, 1);
    g_assert_true(pt_window_select_stask_id(win, "load.B"));
    activate("append", g_variant_new("(si)", "tma", 0));
    g_assert_null(pt_window_get_error(win));
    where("load.B", lane, sizeof lane, &pos);
    g_assert_cmpint(pos, ==, 0);
    where("load.A", lane, sizeof lane, &pos);
    g_assert_cmpint(pos, ==, 1);
    g_assert_true(pt_window_get_model(win)->dirty);
    g_assert_true(enabled("undo"));
    g_assert_nonnull(strstr(gtk_window_get_title(GTK_WINDOW(win)), "•"));
    /* The wrong sEU: a load on a tensor-core lane is refused and nothing changes. */
    char *before = prog_json();
    activate("append", g_variant_new("(si)", "tc.wg0", -1));
    g_assert_nonnull(pt_window_get_error(win));
    g_test_message("refused: %s", pt_window_get_error(win));
    char *after = prog_json();
    g_assert_cmpstr(before, ==, after);
    g_free(before);
    g_free(after);
}

static void test_wait(void)
{
    load();
    const pt_explorer_model *m = pt_window_get_model(win);
    int n = m->prog.n_waits;
    double t0 = m->tl.kernel_time_ns;
    g_assert_true(pt_window_select_stask_id(win, "mma.C.wg1"));
    activate("wait-add", g_variant_new("(si)", "mma.C.wg0", 0));
    g_assert_null(pt_window_get_error(win));
    m = pt_window_get_model(win);
    g_assert_cmpint(m->prog.n_waits, ==, n + 1);
    g_assert_true(pt_has_wait(&m->prog, stask("mma.C.wg1"), stask("mma.C.wg0"), 0));
    g_assert_true(m->have_tl);
    g_assert_cmpfloat(m->tl.kernel_time_ns, >=, t0); /* re-simulated: a Wait never speeds up */
    g_test_message("kernel %.1f ns -> %.1f ns", t0, m->tl.kernel_time_ns);
    char *inspector = pt_window_dup_inspector_text(win);
    g_assert_nonnull(strstr(inspector, "waits: load.A load.B mma.C.wg0"));
    g_free(inspector);
    activate("wait-remove", g_variant_new("(si)", "mma.C.wg0", 0));
    g_assert_null(pt_window_get_error(win));
    g_assert_cmpint(pt_window_get_model(win)->prog.n_waits, ==, n);
    g_assert_cmpfloat(pt_window_get_model(win)->tl.kernel_time_ns, ==, t0);
}

static void test_refused(void)
{
    load();
    char *before = prog_json();
    double t0 = pt_window_get_model(win)->tl.kernel_time_ns;
    g_assert_true(pt_window_select_stask_id(win, "load.A"));
    activate("wait-add", g_variant_new("(si)", "mma.C.wg0", 0));
    const char *e = pt_window_get_error(win);
    g_assert_nonnull(e);
    g_test_message("refused: %s", e);
    g_assert_nonnull(strstr(e, "deadlock"));
    char *after = prog_json();
    g_assert_cmpstr(before, ==, after);
    g_assert_cmpfloat(pt_window_get_model(win)->tl.kernel_time_ns, ==, t0);
    g_assert_false(pt_window_get_model(win)->dirty);
    g_assert_false(enabled("undo"));
    g_free(before);
    g_free(after);
    /* Other refusals: an unknown tensor, stages out of range, a bad tile. */
    activate("stages", g_variant_new("(si)", "nope", 3));
    g_assert_nonnull(pt_window_get_error(win));
    activate("stages", g_variant_new("(si)", "A", 0));
    g_assert_nonnull(pt_window_get_error(win));
    activate("tile", g_variant_new_string("m=-5"));
    g_assert_nonnull(pt_window_get_error(win));
    activate("tile", g_variant_new_string("bogus"));
    g_assert_nonnull(pt_window_get_error(win));
    after = prog_json();
    before = prog_json();
    g_assert_cmpstr(before, ==, after);
    g_free(before);
    g_free(after);
}

/* FlashAttention-3's order written by hand in the explorer: the next key block's S and softmax
 * pieces issued one iteration ahead (offset +1, once through the inspector's spin), the
 * rescale first on each CUDA-core lane; the sm90a generator takes it and its warpgroups run
 * S(v+1), rescale(v), P.V(v), then the softmax of v+1 over the P.V. */
static void test_fa3_by_hand(void)
{
    g_assert_true(pt_window_open(win, "flash_attention"));
    iterate();
    activate("tile", g_variant_new_string("n=112"));
    g_assert_null(pt_window_get_error(win));
    /* through the inspector: select, the form follows, change the spin */
    g_assert_true(pt_window_select_stask_id(win, "mma.S.wg0"));
    iterate();
    GtkWidget *spin = pt_window_get_offset_spin(win);
    g_assert_nonnull(spin);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(spin), 1);
    g_assert_null(pt_window_get_error(win));
    iterate();
    static const char *const ahead[] = {"mma.S.wg1", "softmax_max.P.wg0", "softmax_exp.P.wg0",
                                        "softmax_sum.P.wg0", "softmax_max.P.wg1",
                                        "softmax_exp.P.wg1", "softmax_sum.P.wg1"};
    for (guint i = 0; i < G_N_ELEMENTS(ahead); i++) {
        activate("offset", g_variant_new("(si)", ahead[i], 1));
        g_assert_null(pt_window_get_error(win));
    }
    for (int w = 0; w < 2; w++) {
        char id[32], lane[32];
        g_snprintf(id, sizeof id, "rescale.O.wg%d", w);
        g_snprintf(lane, sizeof lane, "cuda.wg%d", w);
        g_assert_true(pt_window_select_stask_id(win, id));
        activate("append", g_variant_new("(si)", lane, 0));
        g_assert_null(pt_window_get_error(win));
    }
    /* an offset on a prologue sTask is refused with the reason */
    activate("offset", g_variant_new("(si)", "load.Q", 1));
    g_assert_nonnull(pt_window_get_error(win));
    const pt_explorer_model *m = pt_window_get_model(win);
    int lane, pos;
    g_assert_true(pt_sprogram_placement(&m->prog, stask("mma.S.wg0"), &lane, &pos));
    g_assert_cmpint(m->prog.lanes[lane].entries[pos].offset, ==, 1);
    g_assert_true(pt_sprogram_placement(&m->prog, stask("rescale.O.wg1"), &lane, &pos));
    g_assert_cmpstr(m->prog.lanes[lane].name, ==, "cuda.wg1");
    g_assert_cmpint(pos, ==, 0);
    pt_codegen_result r;
    pt_error err = {{0}};
    gboolean ok = pt_codegen_sm90a(&m->prog, &m->sg, &m->hw, &r, &err);
    if (!ok)
        g_test_message("codegen: %s", err.msg);
    g_assert_true(ok);
    g_assert_nonnull(strstr(r.kernel_cu, "one loop step runs, in this order: mma.S.wg0(v+1), "
                                         "rescale.O.wg0(v+0), mma.O.wg0(v+0), "
                                         "softmax_max.P.wg0(v+1)"));
    pt_codegen_result_free(&r);
    /* undo walks back one edit at a time */
    activate("undo", NULL);
    g_assert_true(pt_sprogram_placement(&m->prog, stask("rescale.O.wg1"), &lane, &pos));
    g_assert_cmpint(pos, !=, 0);
}

/* Clicking another sTask refreshes only the form's offset row: a tile size being typed stays,
 * and Apply Tile then uses it. */
static void test_typing_survives_selection(void)
{
    load();
    g_assert_true(pt_window_set_tile_field(win, "n", "128"));
    g_assert_true(pt_window_select_stask_id(win, "mma.C.wg0"));
    iterate();
    g_assert_true(pt_window_select_stask_id(win, "load.B"));
    iterate();
    pt_window_apply_tile_form(win);
    iterate();
    g_assert_null(pt_window_get_error(win));
    const pt_explorer_model *m = pt_window_get_model(win);
    g_assert_cmpint(m->sg.tiling.tile[pt_graph_find_axis(&m->graph, "n")], ==, 128);
}

/* Switching the hardware model keeps the edited sProgram and its history, re-simulates, takes a
 * JSON file, and refuses a broken file naming it, keeping the model in use. */
static void test_hardware(void)
{
    load();
    activate("stages", g_variant_new("(si)", "A", 4));
    g_assert_null(pt_window_get_error(win));
    g_assert_true(pt_window_get_model(win)->dirty);
    double t200 = pt_window_get_model(win)->tl.kernel_time_ns;
    g_assert_true(pt_window_set_hw(win, "H100"));
    const pt_explorer_model *m = pt_window_get_model(win);
    g_assert_cmpstr(m->hw.name, ==, "H100");
    g_assert_cmpint(m->prog.stages[pt_graph_find_tensor(&m->graph, "A")], ==, 4);
    g_assert_true(m->dirty);
    g_assert_true(enabled("undo"));
    g_assert_cmpfloat(m->tl.kernel_time_ns, !=, t200);
    /* a custom model: the H200 with half its SMs runs the same sProgram in more waves */
    char *dir = g_dir_make_tmp("pt-hw-XXXXXX", NULL);
    char *half = g_build_filename(dir, "half.json", NULL);
    g_assert_true(g_file_set_contents(half, "{\"format\": \"pipethreader.hw\", \"version\": 1, "
                                      "\"base\": \"H200\", \"name\": \"H200-half\", "
                                      "\"source\": \"test\", \"eu_count\": 66}", -1, NULL));
    g_assert_true(pt_window_set_hw(win, half));
    g_assert_null(pt_window_get_error(win));
    g_assert_cmpint(m->hw.eu_count, ==, 66);
    g_assert_cmpfloat(m->tl.kernel_time_ns, >, t200);
    char *bad = g_build_filename(dir, "bad.json", NULL);
    g_assert_true(g_file_set_contents(bad, "{\"base\": \"H200\", \"eu_count\": -3}", -1, NULL));
    g_assert_false(pt_window_set_hw(win, bad));
    const char *e = pt_window_get_error(win);
    g_assert_nonnull(e);
    g_test_message("refused: %s", e);
    g_assert_nonnull(strstr(e, "bad.json"));
    g_assert_cmpint(m->hw.eu_count, ==, 66);
    g_assert_cmpint(m->prog.stages[pt_graph_find_tensor(&m->graph, "A")], ==, 4);
    g_assert_true(pt_window_set_hw(win, "H200"));
    g_assert_cmpfloat(m->tl.kernel_time_ns, ==, t200);
    g_unlink(half);
    g_unlink(bad);
    g_rmdir(dir);
    g_free(half);
    g_free(bad);
    g_free(dir);
}

static void test_undo_redo(void)
{
    load();
    char *s0 = prog_json();
    g_assert_true(pt_window_select_stask_id(win, "load.B"));
    activate("append", g_variant_new("(si)", "tma", 0));
    char *s1 = prog_json();
    activate("stages", g_variant_new("(si)", "A", 4));
    g_assert_null(pt_window_get_error(win));
    char *s2 = prog_json();
    g_assert_nonnull(strstr(s2, "\"A\": 4"));
    g_assert_true(pt_window_select_stask_id(win, "mma.C.wg1"));
    activate("wait-add", g_variant_new("(si)", "mma.C.wg0", 0));
    char *s3 = prog_json();
    g_assert_cmpstr(s0, !=, s1);
    g_assert_cmpstr(s1, !=, s2);
    g_assert_cmpstr(s2, !=, s3);
    g_assert_false(enabled("redo"));
    const char *states[] = {s0, s1, s2, s3};
    for (int i = 2; i >= 0; i--) {
        activate("undo", NULL);
        char *j = prog_json();
        g_assert_cmpstr(j, ==, states[i]);
        g_free(j);
        g_assert_true(enabled("redo"));
    }
    g_assert_false(enabled("undo"));
    for (int i = 1; i <= 3; i++) {
        activate("redo", NULL);
        char *j = prog_json();
        g_assert_cmpstr(j, ==, states[i]);
        g_free(j);
    }
    g_assert_false(enabled("redo"));
    /* A new edit after an undo clears redo. */
    activate("undo", NULL);
    g_assert_true(enabled("redo"));
    activate("stages", g_variant_new("(si)", "B", 2));
    g_assert_null(pt_window_get_error(win));
    g_assert_false(enabled("redo"));
    g_free(s0);
    g_free(s1);
    g_free(s2);
    g_free(s3);
}

static void test_tile(void)
{
    load();
    char *s0 = prog_json();
    int n0 = pt_window_get_model(win)->sg.n;
    /* ids survive n=128: the placement (load.B first) is kept. */
    g_assert_true(pt_window_select_stask_id(win, "load.B"));
    activate("append", g_variant_new("(si)", "tma", 0));
    activate("tile", g_variant_new_string("n=128"));
    g_assert_null(pt_window_get_error(win));
    char *s1 = prog_json();
    g_assert_nonnull(strstr(s1, "\"n\": 128"));
    char lane[64];
    int pos;
    where("load.B", lane, sizeof lane, &pos);
    g_assert_cmpint(pos, ==, 0);
    /* wg=1: the wg1 sTasks are gone, so the default sProgram of the new sTask-graph. */
    activate("tile", g_variant_new_string("wg=1"));
    g_assert_null(pt_window_get_error(win));
    g_assert_cmpint(pt_window_get_model(win)->sg.n, <, n0);
    g_assert_cmpint(stask("mma.C.wg1"), <, 0);
    g_assert_true(pt_window_get_model(win)->have_tl);
    activate("undo", NULL);
    char *j = prog_json();
    g_assert_cmpstr(j, ==, s1);
    g_free(j);
    g_assert_cmpint(pt_window_get_model(win)->sg.n, ==, n0);
    activate("undo", NULL);
    activate("undo", NULL);
    j = prog_json();
    g_assert_cmpstr(j, ==, s0);
    g_free(j);
    g_free(s0);
    g_free(s1);
}

static void test_save_reload(void)
{
    load();
    g_assert_true(pt_window_select_stask_id(win, "load.B"));
    activate("append", g_variant_new("(si)", "tma", 0));
    activate("stages", g_variant_new("(si)", "A", 4));
    char *s = prog_json();
    char *dir = g_dir_make_tmp("pt-edit-XXXXXX", NULL);
    char *path = g_build_filename(dir, "gemm.sprogram.json", NULL);
    g_assert_true(pt_window_save_to(win, path));
    g_assert_false(pt_window_get_model(win)->dirty);
    g_assert_null(strstr(gtk_window_get_title(GTK_WINDOW(win)), "•"));
    PtWindow *w2 = pt_window_new(GTK_APPLICATION(g_application_get_default()), "H200");
    g_assert_true(pt_window_open(w2, path));
    char *j = pt_explorer_model_to_json(pt_window_get_model(w2));
    g_assert_cmpstr(j, ==, s);
    free(j);
    g_assert_cmpstr(pt_window_get_model(w2)->save_path, ==, path);
    /* An sProgram whose graph is no shipped example is an error in the window. */
    char *bad = g_build_filename(dir, "bad.json", NULL);
    char *text = g_strdup(s);
    char *at = strstr(text, "\"graph\": \"gemm_f16\"");
    g_assert_nonnull(at);
    memcpy(at + 10, "nosuch__", 8);
    g_assert_true(g_file_set_contents(bad, text, -1, NULL));
    g_assert_false(pt_window_open(w2, bad));
    g_assert_nonnull(pt_window_get_error(w2));
    g_test_message("bad sProgram: %s", pt_window_get_error(w2));
    gtk_window_destroy(GTK_WINDOW(w2));
    g_unlink(bad);
    g_unlink(path);
    g_rmdir(dir);
    g_free(text);
    g_free(bad);
    g_free(path);
    g_free(dir);
    g_free(s);
}

static void test_drag(void)
{
    load();
    PtTimelineView *tv = PT_TIMELINE_VIEW(pt_window_get_timeline(win));
    for (int i = 0; i < 200 && gtk_widget_get_width(GTK_WIDGET(tv)) <= 0; i++) {
        g_main_context_iteration(NULL, FALSE);
        g_usleep(5000);
    }
    g_assert_cmpint(gtk_widget_get_width(GTK_WIDGET(tv)), >, 0);
    /* Zoom to the first few bars so each one can be hit. */
    const pt_explorer_model *m0 = pt_window_get_model(win);
    double end = 0;
    for (int64_t i = 0; i < m0->tl.n_spans && i < 6; i++)
        if (m0->tl.spans[i].end_ns > end)
            end = m0->tl.spans[i].end_ns;
    pt_timeline_view_set_range(tv, m0->tl.spans[0].start_ns - 0.1 * end, end);
    double bx, by, ax, ay;
    g_assert_true(pt_timeline_view_bar_point(tv, stask("load.B"), &bx, &by));
    g_assert_true(pt_timeline_view_bar_point(tv, stask("load.A"), &ax, &ay));
    /* Drop load.B just before load.A's first bar: it moves to position 0 on tma. */
    const pt_explorer_model *m = pt_window_get_model(win);
    double first_a = 1e300;
    for (int64_t i = 0; i < m->tl.n_spans; i++)
        if (m->tl.spans[i].stask == stask("load.A") && m->tl.spans[i].start_ns < first_a)
            first_a = m->tl.spans[i].start_ns;
    double dx = pt_timeline_view_time_x(tv, first_a) - 3 - bx;
    g_assert_cmpfloat(fabs(dx), >, 4);
    pt_timeline_view_drag_begin(tv, bx, by);
    pt_timeline_view_drag_end(tv, dx, 0);
    iterate();
    g_assert_null(pt_window_get_error(win));
    char lane[64];
    int pos;
    where("load.B", lane, sizeof lane, &pos);
    g_assert_cmpstr(lane, ==, "tma");
    g_assert_cmpint(pos, ==, 0);
    g_assert_true(enabled("undo"));
    /* Dropping an mma bar on the tma lane is refused (wrong sEU), with the reason shown. */
    char *before = prog_json();
    g_assert_true(pt_timeline_view_bar_point(tv, stask("mma.C.wg0"), &bx, &by));
    pt_timeline_view_drag_begin(tv, bx, by);
    pt_timeline_view_drag_end(tv, 0, pt_timeline_view_lane_y(tv, 0) - by);
    iterate();
    g_assert_nonnull(pt_window_get_error(win));
    g_test_message("refused drop: %s", pt_window_get_error(win));
    char *after = prog_json();
    g_assert_cmpstr(before, ==, after);
    g_free(before);
    g_free(after);
    /* A click (no movement) changes nothing. */
    g_assert_true(pt_timeline_view_bar_point(tv, stask("load.A"), &bx, &by));
    pt_timeline_view_drag_begin(tv, bx, by);
    pt_timeline_view_drag_end(tv, 1, 1);
    after = prog_json();
    before = prog_json();
    g_assert_cmpstr(before, ==, after);
    g_free(before);
    g_free(after);
}

static void on_destroyed(GtkWidget *w, gpointer data)
{
    (void)w;
    *(gboolean *)data = TRUE;
}

static GtkWidget *find_prompt(void)
{
    GListModel *tops = gtk_window_get_toplevels();
    for (guint i = 0; i < g_list_model_get_n_items(tops); i++) {
        GtkWidget *w = g_list_model_get_item(tops, i);
        g_object_unref(w);
        if (GTK_IS_DIALOG(w) && gtk_widget_get_visible(w))
            return w;
    }
    return NULL;
}

/* Closing a window with unsaved edits asks first: Cancel keeps it, Discard closes it. */
static void test_graph_click(void)
{
    g_assert_true(pt_window_open(win, "flash_attention"));
    g_assert_true(pt_window_show_page(win, "graph"));
    g_assert_false(pt_window_show_page(win, "nope"));
    PtGraphView *gv = PT_GRAPH_VIEW(pt_window_get_graph(win));
    for (int i = 0; i < 200 && gtk_widget_get_width(GTK_WIDGET(gv)) <= 0; i++) {
        g_main_context_iteration(NULL, FALSE);
        g_usleep(5000);
    }
    g_assert_cmpint(gtk_widget_get_width(GTK_WIDGET(gv)), >, 0);
    int s = stask("mma.S.wg0");
    g_assert_cmpint(s, >=, 0);
    double x, y;
    g_assert_true(pt_graph_view_node_point(gv, s, &x, &y));
    pt_graph_view_click(gv, x, y);
    iterate();
    g_assert_cmpint(pt_window_get_selected(win), ==, s);
    char *text = pt_window_dup_inspector_text(win);
    g_assert_true(g_str_has_prefix(text, "mma.S.wg0"));
    g_free(text);
    /* A click on empty space keeps the selection. */
    pt_graph_view_click(gv, 1, 1);
    g_assert_cmpint(pt_window_get_selected(win), ==, s);
    g_assert_true(pt_window_show_page(win, "timeline"));
}

static void test_close_prompt(void)
{
    PtWindow *w2 = pt_window_new(GTK_APPLICATION(g_application_get_default()), "H200");
    gtk_window_present(GTK_WINDOW(w2));
    g_assert_true(pt_window_open(w2, "gemm_f16"));
    pt_window_select_stask_id(w2, "load.B");
    g_action_activate(g_action_map_lookup_action(G_ACTION_MAP(w2), "append"),
                      g_variant_new("(si)", "tma", 0));
    g_assert_true(pt_window_get_model(w2)->dirty);
    gboolean gone = FALSE;
    g_signal_connect(w2, "destroy", G_CALLBACK(on_destroyed), &gone);
    gtk_window_close(GTK_WINDOW(w2));
    iterate();
    g_assert_false(gone);
    GtkWidget *d = find_prompt();
    g_assert_nonnull(d);
    gtk_dialog_response(GTK_DIALOG(d), GTK_RESPONSE_CANCEL);
    iterate();
    g_assert_false(gone);
    g_assert_null(find_prompt());
    gtk_window_close(GTK_WINDOW(w2));
    iterate();
    d = find_prompt();
    g_assert_nonnull(d);
    gtk_dialog_response(GTK_DIALOG(d), 2 /* Discard */);
    iterate();
    g_assert_true(gone);
}

/* The "Factored decay" check button: present for ChunkScan, absent for a GEMM; it sets the
 * program's "decay", lowers the prediction, and undo restores the tile form. */
static void test_decay(void)
{
    explorer_open("gemm_f16");
    spin(100);
    g_assert_null(pt_window_get_decay_check(win));
    explorer_open("mamba2_chunk_scan");
    spin(100);
    GtkWidget *c = pt_window_get_decay_check(win);
    g_assert_nonnull(c);
    g_assert_false(gtk_check_button_get_active(GTK_CHECK_BUTTON(c)));
    pt_explorer_model *m = pt_window_get_model(win);
    double before = m->tl.kernel_time_ns;
    gtk_check_button_set_active(GTK_CHECK_BUTTON(c), TRUE);
    spin(100);
    m = pt_window_get_model(win);
    g_assert_cmpint(m->prog.decay, ==, PT_DECAY_FACTORED);
    g_test_message("kernel %.1f us -> %.1f us", before / 1e3, m->tl.kernel_time_ns / 1e3);
    g_assert_cmpfloat(m->tl.kernel_time_ns, <, before);
    char *j = prog_json();
    g_assert_nonnull(strstr(j, "\"decay\": \"factored\""));
    g_free(j);
    g_assert_true(gtk_check_button_get_active(GTK_CHECK_BUTTON(pt_window_get_decay_check(win))));
    /* the 16-bit factor: sensitive once factored, sets "factored16", no slower */
    GtkWidget *r16 = pt_window_get_decay16_check(win);
    g_assert_nonnull(r16);
    g_assert_true(gtk_widget_get_sensitive(r16));
    g_assert_false(gtk_check_button_get_active(GTK_CHECK_BUTTON(r16)));
    double factored = m->tl.kernel_time_ns;
    gtk_check_button_set_active(GTK_CHECK_BUTTON(r16), TRUE);
    spin(100);
    m = pt_window_get_model(win);
    g_assert_cmpint(m->prog.decay, ==, PT_DECAY_FACTORED16);
    g_assert_cmpfloat(m->tl.kernel_time_ns, <=, factored);
    j = prog_json();
    g_assert_nonnull(strstr(j, "\"decay\": \"factored16\""));
    g_free(j);
    g_assert_true(gtk_check_button_get_active(GTK_CHECK_BUTTON(pt_window_get_decay_check(win))));
    explorer_activate("undo", NULL);
    spin(100);
    m = pt_window_get_model(win);
    g_assert_cmpint(m->prog.decay, ==, PT_DECAY_FACTORED);
    explorer_activate("undo", NULL);
    spin(100);
    m = pt_window_get_model(win);
    g_assert_cmpint(m->prog.decay, ==, PT_DECAY_TILE);
    g_assert_cmpfloat(m->tl.kernel_time_ns, ==, before);
    g_assert_false(gtk_widget_get_sensitive(pt_window_get_decay16_check(win)));
}

/* The "Fence releases" check button: absent for a GEMM (no CUDA-core reader of a ring), present
 * for ChunkState; it sets the program's "release", the H100 model predicts the fence faster
 * there (measured 1.9%), and undo restores the group release. */
static void test_release(void)
{
    explorer_open("gemm_f16");
    spin(100);
    g_assert_null(pt_window_get_release_check(win));
    explorer_open("mamba2_chunk_state");
    spin(100);
    g_assert_true(pt_window_set_hw(win, "H100"));
    spin(100);
    GtkWidget *c = pt_window_get_release_check(win);
    g_assert_nonnull(c);
    g_assert_false(gtk_check_button_get_active(GTK_CHECK_BUTTON(c)));
    pt_explorer_model *m = pt_window_get_model(win);
    double before = m->tl.kernel_time_ns;
    gtk_check_button_set_active(GTK_CHECK_BUTTON(c), TRUE);
    spin(100);
    m = pt_window_get_model(win);
    g_assert_cmpint(m->prog.release, ==, PT_RELEASE_FENCE);
    g_test_message("kernel %.1f us -> %.1f us", before / 1e3, m->tl.kernel_time_ns / 1e3);
    g_assert_cmpfloat(m->tl.kernel_time_ns, <, before);
    char *j = prog_json();
    g_assert_nonnull(strstr(j, "\"release\": \"fence\""));
    g_free(j);
    g_assert_true(gtk_check_button_get_active(GTK_CHECK_BUTTON(pt_window_get_release_check(win))));
    explorer_activate("undo", NULL);
    spin(100);
    m = pt_window_get_model(win);
    g_assert_cmpint(m->prog.release, ==, PT_RELEASE_GROUP);
    g_assert_cmpfloat(m->tl.kernel_time_ns, ==, before);
    g_assert_false(gtk_check_button_get_active(GTK_CHECK_BUTTON(pt_window_get_release_check(win))));
}

int main(int argc, char **argv)
{
    gtk_test_init(&argc, &argv, NULL);
    g_test_add_func("/explorer/append", test_append);
    g_test_add_func("/explorer/wait", test_wait);
    g_test_add_func("/explorer/refused", test_refused);
    g_test_add_func("/explorer/undo-redo", test_undo_redo);
    g_test_add_func("/explorer/hardware", test_hardware);
    g_test_add_func("/explorer/fa3-by-hand", test_fa3_by_hand);
    g_test_add_func("/explorer/typing-survives-selection", test_typing_survives_selection);
    g_test_add_func("/explorer/tile", test_tile);
    g_test_add_func("/explorer/save-reload", test_save_reload);
    g_test_add_func("/explorer/drag", test_drag);
    g_test_add_func("/explorer/graph-click", test_graph_click);
    g_test_add_func("/explorer/close-prompt", test_close_prompt);
    g_test_add_func("/explorer/decay", test_decay);
    g_test_add_func("/explorer/release", test_release);
    int rc = explorer_test_run("org.pipethreader.ExplorerTest");
    return rc;
}
