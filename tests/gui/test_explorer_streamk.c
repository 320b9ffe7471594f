/* test_explorer_streamk.c — stream-K (partition.stream_k) in a real window under Xvfb: the
 * win.stream-k action (the inspector's stream-K spin sends it) edits the sProgram (persistent
 * with it), the summary says "stream-K over 132 CTAs", the Several CTAs view shows the CTAs
 * sharing the first shared tile labelled "first shared tile · CTA ...", undo restores the EU
 * classes, and a graph whose loop cannot be split gets a refused edit naming the field. */
#include "explorer_test.h"
#include "streamk.h"

/* The window as drawn, to a PNG (PT_STREAMK_SHOT=FILE: to look at the view). */
static void explorer_screenshot(const char *path)
{
    GtkWidget *w = GTK_WIDGET(win);
    int width = gtk_widget_get_width(w), height = gtk_widget_get_height(w);
    GdkPaintable *paintable = gtk_widget_paintable_new(w);
    GtkSnapshot *snap = gtk_snapshot_new();
    gdk_paintable_snapshot(paintable, GDK_SNAPSHOT(snap), width, height);
    GskRenderNode *node = gtk_snapshot_free_to_node(snap);
    if (node) {
        GskRenderer *r = gtk_native_get_renderer(GTK_NATIVE(w));
        GdkTexture *tex = gsk_renderer_render_texture(
            r, node, &GRAPHENE_RECT_INIT(0, 0, (float)width, (float)height));
        if (tex) {
            gdk_texture_save_to_png(tex, path);
            g_object_unref(tex);
        }
        gsk_render_node_unref(node);
    }
    g_object_unref(paintable);
}

static void test_stream_k_edit(void)
{
    explorer_open("gemm_f16");
    pt_explorer_model *m = pt_window_get_model(win);
    double before = m->tl.kernel_time_ns;
    explorer_activate("stream-k", g_variant_new_int32(132));
    spin(100);
    m = pt_window_get_model(win);
    g_assert_cmpint(m->prog.partition.stream_k, ==, 132);
    g_assert_true(m->prog.partition.persistent);
    g_assert_cmpint(m->tl.stream_k, ==, 132);
    g_assert_cmpint(m->tl.grid, ==, 132);
    g_test_message("kernel %.1f us -> %.1f us", before / 1e3, m->tl.kernel_time_ns / 1e3);
    char *sum = pt_window_dup_summary(win);
    g_test_message("%s", sum);
    g_assert_nonnull(strstr(sum, "stream-K over 132 CTAs"));
    g_free(sum);
    char *j = prog_json();
    g_assert_nonnull(strstr(j, "\"stream_k\": 132"));
    g_free(j);

    /* Several CTAs: 512 tiles on 132 CTAs leave 116 shared by two CTAs each */
    explorer_activate("show-ctas", NULL);
    spin(100);
    const pt_tl_model *tm = pt_timeline_view_get_model(tl());
    g_assert_cmpint(tm->n_groups, ==, m->tl.n_chunks);
    g_assert_cmpint(tm->n_groups, >=, 2);
    for (int g = 0; g < tm->n_groups; g++)
        g_test_message("group %d: %s", g, tm->group_labels[g]);
    g_assert_nonnull(strstr(tm->group_labels[0], "first shared tile · CTA"));
    g_assert_nonnull(strstr(tm->group_labels[0], "fix-up"));
    g_assert_nonnull(strstr(tm->group_labels[1], "partial tile"));
    g_assert_nonnull(tm->group_spans[1]);
    const char *shot = g_getenv("PT_STREAMK_SHOT");
    if (shot)
        explorer_screenshot(shot);

    /* undo: off again, the view is the EU classes */
    explorer_activate("undo", NULL);
    spin(100);
    m = pt_window_get_model(win);
    g_assert_cmpint(pt_sprogram_stream_k(&m->prog), ==, 0);
    g_assert_cmpfloat(fabs(m->tl.kernel_time_ns - before), <, 1e-6);
    tm = pt_timeline_view_get_model(tl());
    g_assert_nonnull(strstr(tm->group_labels[0], "CTAs"));
    explorer_activate("show-ctas", NULL);
}

static void test_stream_k_refused(void)
{
    explorer_open("flash_attention");
    explorer_activate("stream-k", g_variant_new_int32(100));
    g_assert_cmpint(pt_sprogram_stream_k(&pt_window_get_model(win)->prog), ==, 0);
    const char *e = pt_window_get_error(win);
    g_assert_nonnull(e);
    g_assert_nonnull(strstr(e, "partition.stream_k"));
}

int main(int argc, char **argv)
{
    gtk_test_init(&argc, &argv, NULL);
    g_test_add_func("/streamk/edit-view-undo", test_stream_k_edit);
    g_test_add_func("/streamk/refused", test_stream_k_refused);
    return explorer_test_run("org.pipethreader.TestStreamK");
}
