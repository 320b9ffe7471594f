/* test_explorer_splitk.c — split-K (partition.split_k) in a real window under Xvfb: the
 * inspector's split-K spin button edits the sProgram, the prediction and the summary change
 * (tiles x split-K work items), the Several CTAs view shows the first tile's chunks labelled
 * "tile 0 · k 2/4 · iterations ...", undo restores the EU classes, and a graph whose loop cannot
 * be split gets an insensitive control and a refused edit with the validator's reason; the
 * tile form's "rows on" choice swaps a GEMM's A and B; the "through a cluster" check button
 * makes chunk 0 the leader of its tile's cluster. */
#include "explorer_test.h"

static GtkWidget *split_spin(void)
{
    spin(100); /* the form is rebuilt on the next main-loop turn */
    return pt_window_get_split_k_spin(win);
}

static void test_split_k_edit(void)
{
    explorer_open("gemm_f16");
    pt_explorer_model *m = pt_window_get_model(win);
    double before = m->tl.kernel_time_ns;
    int64_t tiles = m->tl.tiles;
    GtkWidget *s = split_spin();
    g_assert_nonnull(s);
    g_assert_true(gtk_widget_get_sensitive(s));
    g_assert_cmpint(gtk_spin_button_get_value_as_int(GTK_SPIN_BUTTON(s)), ==, 1);
    /* the control edits the program: 4 chunks of the 64-iteration loop */
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(s), 4);
    iterate();
    m = pt_window_get_model(win);
    g_assert_cmpint(m->prog.partition.split_k, ==, 4);
    g_assert_cmpint(m->tl.split_k, ==, 4);
    g_assert_cmpint(m->tl.work_items, ==, 4 * tiles);
    g_assert_cmpint(m->tl.eu_iterations, ==, 16);
    /* 512 tiles already fill the 132 SMs: splitting only adds fix-up traffic */
    g_test_message("kernel %.1f us -> %.1f us", before / 1e3, m->tl.kernel_time_ns / 1e3);
    g_assert_cmpfloat(m->tl.kernel_time_ns, >, before);
    char *sum = pt_window_dup_summary(win);
    g_test_message("%s", sum);
    g_assert_nonnull(strstr(sum, "512 tiles × split-K 4 = 2048 work items"));
    g_assert_nonnull(strstr(sum, "one EU (the fix-up chunk)"));
    g_free(sum);
    char *j = prog_json();
    g_assert_nonnull(strstr(j, "\"split_k\": 4"));
    g_free(j);

    /* Several CTAs: the first tile's four chunks, the fix-up first */
    explorer_activate("show-ctas", NULL);
    spin(100);
    const pt_tl_model *tm = pt_timeline_view_get_model(tl());
    g_assert_cmpint(tm->n_groups, ==, 4);
    for (int g = 0; g < 4; g++)
        g_test_message("group %d: %s", g, tm->group_labels[g]);
    g_assert_nonnull(strstr(tm->group_labels[0], "tile 0 · k 4/4 · iterations 48–63"));
    g_assert_nonnull(strstr(tm->group_labels[0], "fix-up"));
    g_assert_nonnull(strstr(tm->group_labels[1], "tile 0 · k 1/4 · iterations 0–15"));
    g_assert_nonnull(strstr(tm->group_labels[2], "tile 0 · k 2/4 · iterations 16–31"));
    g_assert_nonnull(strstr(tm->group_labels[3], "partial tile"));
    /* each chunk its own spans: a partial store, no fix-up, so it ends before the fix-up */
    double last0 = 0, last1 = 0;
    for (int64_t i = 0; i < tm->n_spans; i++)
        last0 = fmax(last0, tm->spans[i].end_ns);
    g_assert_nonnull(tm->group_spans[1]);
    g_assert_cmpint(tm->group_n_spans[1], ==, tm->n_spans);
    for (int64_t i = 0; i < tm->group_n_spans[1]; i++)
        last1 = fmax(last1, tm->group_spans[1][i].end_ns);
    g_assert_cmpfloat(last1, <, last0);
    g_assert_nonnull(tm->group_critical[1]);

    /* undo: no split, the view is the EU classes again */
    explorer_activate("undo", NULL);
    spin(100);
    m = pt_window_get_model(win);
    g_assert_cmpint(pt_sprogram_split_k(&m->prog), ==, 1);
    g_assert_cmpfloat(fabs(m->tl.kernel_time_ns - before), <, 1e-6);
    tm = pt_timeline_view_get_model(tl());
    g_assert_cmpint(tm->n_groups, ==, 2);
    g_assert_nonnull(strstr(tm->group_labels[0], "CTAs"));
    explorer_activate("show-ctas", NULL);
    g_assert_cmpint(gtk_spin_button_get_value_as_int(GTK_SPIN_BUTTON(split_spin())), ==, 1);
}

static void test_split_k_refused(void)
{
    explorer_open("flash_attention");
    GtkWidget *s = split_spin();
    g_assert_nonnull(s);
    g_assert_false(gtk_widget_get_sensitive(s));
    const char *tip = gtk_widget_get_tooltip_text(s);
    g_assert_nonnull(tip);
    g_assert_nonnull(strstr(tip, "softmax_max"));
    /* the action itself refuses it with the validator's reason; the program is unchanged */
    explorer_activate("split-k", g_variant_new_int32(2));
    g_assert_cmpint(pt_sprogram_split_k(&pt_window_get_model(win)->prog), ==, 1);
    const char *e = pt_window_get_error(win);
    g_assert_nonnull(e);
    g_assert_nonnull(strstr(e, "partition.split_k"));
}

/* The tile form's "rows on" drop-down: choosing N swaps A and B (the tiling's wg_axis), the
 * program says so, a tile of M that is no multiple of 64 becomes legal, and undo returns. */
static void test_rows_axis(void)
{
    explorer_open("gemm_f16");
    spin(100);
    pt_explorer_model *m = pt_window_get_model(win);
    int n_axis = pt_graph_find_axis(&m->graph, "n"), m_axis = pt_graph_find_axis(&m->graph, "m");
    g_assert_cmpint(m->sg.rows_axis, ==, m_axis);
    GtkWidget *dd = pt_window_get_rows_axis_drop_down(win);
    g_assert_nonnull(dd);
    g_assert_cmpuint(gtk_drop_down_get_selected(GTK_DROP_DOWN(dd)), ==, 0);
    gtk_drop_down_set_selected(GTK_DROP_DOWN(dd), 1); /* "n" */
    spin(100);
    m = pt_window_get_model(win);
    g_assert_cmpint(m->sg.rows_axis, ==, n_axis);
    g_assert_cmpint(m->sg.split_axis, ==, m->sg.tiling.warpgroups > 1 ? n_axis : -1);
    char *j = prog_json();
    g_assert_nonnull(strstr(j, "\"wg_axis\": \"n\""));
    g_free(j);
    /* rebuilt from the model: the drop-down shows the choice */
    dd = pt_window_get_rows_axis_drop_down(win);
    g_assert_cmpuint(gtk_drop_down_get_selected(GTK_DROP_DOWN(dd)), ==, 1);
    /* 136 rows of M: wgmma's N now, so the tiling takes them */
    explorer_activate("tile", g_variant_new_string("m=136,n=128,wg=1"));
    spin(100);
    m = pt_window_get_model(win);
    g_assert_cmpint(m->sg.tiling.tile[m_axis], ==, 136);
    g_assert_cmpint(m->sg.rows_axis, ==, n_axis);
    explorer_activate("undo", NULL);
    explorer_activate("undo", NULL);
    spin(100);
    g_assert_cmpint(pt_window_get_model(win)->sg.rows_axis, ==, m_axis);
}

/* Split-K through a cluster: the check button under split-K, insensitive without a split;
 * on 64 x 128 tiles split 2 it makes chunk 0 the leader (summary, Several CTAs labels, no
 * workspace), and undo returns to the workspace. */
static void test_split_cluster(void)
{
    explorer_open("gemm_f16");
    spin(100);
    GtkWidget *c = pt_window_get_split_cluster_check(win);
    g_assert_nonnull(c);
    g_assert_false(gtk_widget_get_sensitive(c));
    explorer_activate("tile", g_variant_new_string("m=64,n=128,wg=1"));
    explorer_activate("split-k", g_variant_new_int32(2));
    spin(100);
    c = pt_window_get_split_cluster_check(win);
    g_assert_true(gtk_widget_get_sensitive(c));
    g_assert_false(gtk_check_button_get_active(GTK_CHECK_BUTTON(c)));
    gtk_check_button_set_active(GTK_CHECK_BUTTON(c), TRUE);
    spin(100);
    pt_explorer_model *m = pt_window_get_model(win);
    g_assert_cmpint(m->prog.partition.split_reduce, ==, PT_SPLIT_REDUCE_CLUSTER);
    g_assert_true(m->tl.split_cluster);
    g_assert_cmpfloat(m->tl.workspace_bytes, ==, 0);
    char *j = prog_json();
    g_assert_nonnull(strstr(j, "\"split_k_reduce\": \"cluster\""));
    g_free(j);
    char *sum = pt_window_dup_summary(win);
    g_test_message("%s", sum);
    g_assert_nonnull(strstr(sum, "work items in clusters of their tile"));
    g_assert_nonnull(strstr(sum, "one EU (the cluster's leader)"));
    g_free(sum);
    explorer_activate("show-ctas", NULL);
    spin(100);
    const pt_tl_model *tm = pt_timeline_view_get_model(tl());
    g_assert_cmpint(tm->n_groups, ==, 2);
    for (int g = 0; g < 2; g++)
        g_test_message("group %d: %s", g, tm->group_labels[g]);
    g_assert_nonnull(strstr(tm->group_labels[0], "tile 0 · k 1/2"));
    g_assert_nonnull(strstr(tm->group_labels[0], "cluster leader"));
    g_assert_nonnull(strstr(tm->group_labels[1], "the leader's shared memory"));
    explorer_activate("show-ctas", NULL);
    explorer_activate("undo", NULL);
    spin(100);
    m = pt_window_get_model(win);
    g_assert_cmpint(m->prog.partition.split_reduce, ==, PT_SPLIT_REDUCE_WORKSPACE);
    g_assert_cmpint(pt_sprogram_split_k(&m->prog), ==, 2);
}

int main(int argc, char **argv)
{
    gtk_test_init(&argc, &argv, NULL);
    g_test_add_func("/splitk/edit-view-undo", test_split_k_edit);
    g_test_add_func("/splitk/refused", test_split_k_refused);
    g_test_add_func("/splitk/rows-axis", test_rows_axis);
    g_test_add_func("/splitk/cluster", test_split_cluster);
    return explorer_test_run("org.pipethreader.TestSplitK");
}
