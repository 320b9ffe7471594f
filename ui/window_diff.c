/* window_diff.c — issue 19, "Compare two schedules": a second saved sProgram (B) of the shown
 * graph, or a profiled trace of it (window_diff_trace.c: its prediction with the measured spans
 * under it, the measured figures in the table), opened with "Compare With…" (win.compare-with),
 * simulated on the same hardware and drawn
 * as a second lane group under the shown one (A) on one time axis ("A: <file>", "B: <file>";
 * timeline_render's group_spans). The sidebar's Comparison section gives both kernel times with
 * Δ and Δ% and a sortable table of the per-sTask differences (count A/B, mean A, mean B, Δ, Δ%),
 * sTasks matched by id. Edits to A re-simulate A and refresh the comparison (win_refresh_timeline
 * calls win_diff_fill_groups and win_refresh_diff). Esc (once nothing is selected) or Stop
 * Comparing (win.stop-comparing) returns to the normal view. B's bars have the same tooltips and
 * dependency arrows as A's (its own span graph, remapped with its spans), and its own critical
 * path. */
#include "window_private.h"

#include <math.h>

enum { DC_STASK, DC_COUNT, DC_MEAN_A, DC_MEAN_B, DC_DELTA, DC_PCT, N_DC };
static const char *const dc_titles[N_DC] = {"sTask", "count A/B", "mean A", "mean B", "Δ", "Δ%"};

struct win_diff_row {
    char id[PT_STASK_ID_MAX];
    int64_t count_a, count_b;
    double mean_a, mean_b; /* NaN: no instance */
};

gboolean pt_window_is_comparing(PtWindow *self)
{
    return self->cmp_b != NULL;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static const char *a_name(PtWindow *self)
{
    const pt_explorer_model *m = self->model;
    return m->save_path[0] ? base_name(m->save_path) : m->source[0] ? base_name(m->source)
                                                                     : "shown";
}

/* B's dependencies (critical_path.h's span graph of B's own sProgram) on the kept spans:
 * kept[i] is B span i's index among them, -1 when left out. The B group's arrows and idle-gap
 * tooltips read them, as group 0's read A's. */
static void remap_b_deps(PtWindow *self, const int64_t *kept)
{
    const pt_explorer_model *b = self->cmp_b;
    pt_span_deps all;
    pt_span_deps *d = &self->cmp_b_deps;
    if (!pt_span_deps_build(&all, &b->tl, &b->prog, &b->sg))
        return;
    int64_t edges = all.off[all.n_spans];
    d->off = g_new0(int64_t, self->cmp_b_n + 1);
    d->idx = g_new(int64_t, edges > 0 ? edges : 1);
    d->is_wait = g_new(unsigned char, edges > 0 ? edges : 1);
    d->n_spans = self->cmp_b_n;
    int64_t e = 0;
    for (int64_t i = 0; i < all.n_spans; i++) {
        if (kept[i] < 0)
            continue;
        d->off[kept[i]] = e;
        for (int64_t k = all.off[i]; k < all.off[i + 1]; k++)
            if (kept[all.idx[k]] >= 0) {
                d->idx[e] = kept[all.idx[k]];
                d->is_wait[e++] = all.is_wait[k];
            }
    }
    d->off[self->cmp_b_n] = e;
    /* B's critical path, found on all of B's spans (as A's is) and kept where its bars are
     * drawn: B's group gets its red path as A's does */
    int64_t *chain = NULL, n = pt_critical_path(b->tl.spans, b->tl.n_spans, &all, &chain);
    self->cmp_b_n_critical = 0;
    for (int64_t k = 0; k < n; k++)
        if (kept[chain[k]] >= 0)
            chain[self->cmp_b_n_critical++] = kept[chain[k]];
    self->cmp_b_critical = chain;
    pt_span_deps_free(&all);
}

/* B's spans with A's shown rows as lanes (by lane name) and A's sTask indices (by id); spans
 * of a lane A does not show are left out. Sorted by start as B's are. */
static void remap_b(PtWindow *self)
{
    g_clear_pointer(&self->cmp_b_spans, g_free);
    win_diff_free_deps(self);
    self->cmp_b_n = 0;
    self->cmp_b_lanes_lost = 0;
    const pt_explorer_model *a = self->model, *b = self->cmp_b;
    if (!b || !b->have_tl || !a->have_prog)
        return;
    int row_of[PT_MAX_LANES];
    for (int l = 0; l < b->prog.n_lanes && l < PT_MAX_LANES; l++) {
        row_of[l] = -1;
        for (int r = 0; r < self->n_lanes_shown; r++)
            if (strcmp(a->prog.lanes[self->lane_shown[r]].name, b->prog.lanes[l].name) == 0)
                row_of[l] = r;
        if (row_of[l] < 0 && b->prog.lanes[l].n > 0)
            self->cmp_b_lanes_lost++;
    }
    int *task_of = g_new(int, b->sg.n > 0 ? b->sg.n : 1);
    for (int i = 0; i < b->sg.n; i++) {
        task_of[i] = -1;
        for (int j = 0; j < a->sg.n; j++)
            if (strcmp(a->sg.tasks[j].id, b->sg.tasks[i].id) == 0) {
                task_of[i] = j;
                break;
            }
    }
    pt_span *c = g_new(pt_span, b->tl.n_spans > 0 ? b->tl.n_spans : 1);
    int64_t *kept = g_new(int64_t, b->tl.n_spans > 0 ? b->tl.n_spans : 1);
    int64_t n = 0;
    for (int64_t i = 0; i < b->tl.n_spans; i++) {
        pt_span s = b->tl.spans[i];
        kept[i] = -1;
        if (s.lane < 0 || s.lane >= b->prog.n_lanes || s.lane >= PT_MAX_LANES ||
            row_of[s.lane] < 0)
            continue;
        s.lane = row_of[s.lane];
        s.stask = s.stask >= 0 && s.stask < b->sg.n ? task_of[s.stask] : -1;
        kept[i] = n;
        c[n++] = s;
    }
    win_diff_remap_b_measured(self, row_of, task_of);
    g_free(task_of);
    self->cmp_b_spans = c;
    self->cmp_b_n = n;
    remap_b_deps(self, kept);
    g_free(kept);
}

void win_diff_free_deps(PtWindow *self)
{
    pt_span_deps *d = &self->cmp_b_deps;
    g_free(d->off);
    g_free(d->idx);
    g_free(d->is_wait);
    memset(d, 0, sizeof *d);
    free(self->cmp_b_critical); /* pt_critical_path's malloc */
    self->cmp_b_critical = NULL;
    self->cmp_b_n_critical = 0;
}

void win_diff_fill_groups(PtWindow *self, pt_tl_model *tm)
{
    if (!self->cmp_b)
        return;
    remap_b(self);
    self->group_labels[0] = g_strdup_printf("A: %s", a_name(self));
    self->group_labels[1] = g_strdup_printf("B: %s%s%s", base_name(self->cmp_b_path),
                                            win_diff_b_is_trace(self)
                                                ? " (trace: its prediction, measured under it)"
                                                : "",
                                            self->cmp_b_lanes_lost
                                                ? " (lanes A lacks are not drawn)" : "");
    tm->n_groups = 2;
    tm->group_offset_ns[0] = tm->group_offset_ns[1] = 0;
    tm->group_labels[0] = self->group_labels[0];
    tm->group_labels[1] = self->group_labels[1];
    tm->group_spans[1] = self->cmp_b_spans;
    tm->group_n_spans[1] = self->cmp_b_n;
    tm->group_deps[1] = self->cmp_b_deps.off ? &self->cmp_b_deps : NULL;
    tm->group_measured[1] = self->cmp_b_measured;
    tm->group_n_measured[1] = self->cmp_b_n_measured;
    tm->group_critical[1] = self->cmp_b_critical;
    tm->group_n_critical[1] = self->cmp_b_n_critical;
}

/* The rows: every sTask id of A, then those only B has. */
static void build_rows(PtWindow *self)
{
    g_clear_pointer(&self->diff, g_free);
    self->n_diff = 0;
    const pt_explorer_model *a = self->model, *b = self->cmp_b;
    if (!b)
        return;
    int cap = a->sg.n + b->sg.n;
    struct win_diff_row *rows = g_new0(struct win_diff_row, cap > 0 ? cap : 1);
    int n = 0;
    for (int j = 0; j < a->sg.n; j++) {
        struct win_diff_row *r = &rows[n++];
        g_strlcpy(r->id, a->sg.tasks[j].id, sizeof r->id);
        r->mean_a = pt_explorer_model_mean_ns(a, j, &r->count_a);
        r->mean_b = NAN;
    }
    for (int i = 0; i < b->sg.n; i++) {
        int k = -1;
        for (int j = 0; j < n; j++)
            if (strcmp(rows[j].id, b->sg.tasks[i].id) == 0) {
                k = j;
                break;
            }
        if (k < 0) {
            k = n++;
            g_strlcpy(rows[k].id, b->sg.tasks[i].id, sizeof rows[k].id);
            rows[k].mean_a = NAN;
        }
        rows[k].mean_b = win_diff_b_mean_ns(self, i, &rows[k].count_b);
    }
    self->diff = rows;
    self->n_diff = n;
}

static void fmt_ns(GString *s, double ns, gboolean sign)
{
    if (!isfinite(ns))
        g_string_append(s, "–");
    else if (fabs(ns) >= 1e3)
        g_string_append_printf(s, sign ? "%+.3f µs" : "%.3f µs", ns / 1e3);
    else
        g_string_append_printf(s, sign ? "%+.1f ns" : "%.1f ns", ns);
}

static gboolean row_key(PtWindow *self, int i, int col, double *out)
{
    if (i < 0 || i >= self->n_diff)
        return FALSE;
    const struct win_diff_row *r = &self->diff[i];
    double v;
    switch (col) {
    case DC_COUNT: v = (double)(r->count_b - r->count_a); break;
    case DC_MEAN_A: v = r->mean_a; break;
    case DC_MEAN_B: v = r->mean_b; break;
    case DC_DELTA: v = r->mean_b - r->mean_a; break;
    case DC_PCT: v = (r->mean_b - r->mean_a) / r->mean_a * 100.0; break;
    default: v = 0; break;
    }
    *out = isfinite(v) ? v : -HUGE_VAL;
    return TRUE;
}

char *win_diff_cell_text(PtWindow *self, int i, int col)
{
    if (i < 0 || i >= self->n_diff)
        return g_strdup("");
    const struct win_diff_row *r = &self->diff[i];
    GString *s = g_string_new(NULL);
    switch (col) {
    case DC_STASK: g_string_append(s, r->id); break;
    case DC_COUNT:
        g_string_append_printf(s, "%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT, (gint64)r->count_a,
                               (gint64)r->count_b);
        break;
    case DC_MEAN_A: fmt_ns(s, r->mean_a, FALSE); break;
    case DC_MEAN_B: fmt_ns(s, r->mean_b, FALSE); break;
    case DC_DELTA: fmt_ns(s, r->mean_b - r->mean_a, TRUE); break;
    case DC_PCT: {
        double p = (r->mean_b - r->mean_a) / r->mean_a * 100.0;
        if (isfinite(p))
            g_string_append_printf(s, "%+.1f%%", p);
        else
            g_string_append(s, "–");
        break;
    }
    default: break;
    }
    return g_string_free(s, FALSE);
}

static const win_table_spec diff_table = {dc_titles, N_DC, win_diff_cell_text, row_key, -1};

GtkWidget *win_build_diff_section(PtWindow *self)
{
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4);
    GtkWidget *head = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    GtkWidget *heading = win_heading("Comparison");
    gtk_widget_set_hexpand(heading, TRUE);
    gtk_box_append(GTK_BOX(head), heading);
    GtkWidget *stop = gtk_button_new_with_label("Stop Comparing");
    gtk_actionable_set_action_name(GTK_ACTIONABLE(stop), "win.stop-comparing");
    gtk_widget_set_tooltip_text(stop, "Back to the shown sProgram alone (Esc)");
    gtk_box_append(GTK_BOX(head), stop);
    gtk_box_append(GTK_BOX(box), head);
    self->diff_label = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(self->diff_label), 0);
    /* no wrapping (a wrapped label's height depends on the width the sidebar gets): long paths
     * are cut in the middle, the whole text is selectable and in the tooltip */
    gtk_label_set_ellipsize(GTK_LABEL(self->diff_label), PANGO_ELLIPSIZE_MIDDLE);
    gtk_label_set_selectable(GTK_LABEL(self->diff_label), TRUE);
    gtk_box_append(GTK_BOX(box), self->diff_label);
    self->diff_rows = gtk_string_list_new(NULL);
    GtkWidget *cv = win_table_new(self, &diff_table, self->diff_rows);
    self->diff_view = cv;
    GtkWidget *scroll = gtk_scrolled_window_new();
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroll), cv);
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scroll), GTK_POLICY_AUTOMATIC,
                                   GTK_POLICY_AUTOMATIC);
    gtk_widget_set_size_request(scroll, -1, 160);
    gtk_box_append(GTK_BOX(box), scroll);
    gtk_widget_set_visible(box, FALSE);
    self->diff_box = box;
    return box;
}

void win_refresh_diff(PtWindow *self)
{
    if (!self->diff_box)
        return;
    build_rows(self);
    gtk_widget_set_visible(self->diff_box, self->cmp_b != NULL);
    GAction *stop = g_action_map_lookup_action(G_ACTION_MAP(self), "stop-comparing");
    if (stop)
        g_simple_action_set_enabled(G_SIMPLE_ACTION(stop), self->cmp_b != NULL);
    GString *s = g_string_new(NULL);
    if (self->cmp_b) {
        double ka = self->model->tl.kernel_time_ns, kb = win_diff_b_kernel_ns(self);
        g_string_append_printf(s, "A: %s\nB: %s\nKernel time A ", a_name(self),
                               self->cmp_b_path);
        fmt_ns(s, ka, FALSE);
        g_string_append(s, ", B ");
        fmt_ns(s, kb, FALSE);
        g_string_append(s, ", Δ ");
        fmt_ns(s, kb - ka, TRUE);
        if (ka > 0)
            g_string_append_printf(s, " (%+.1f%%)", (kb - ka) / ka * 100.0);
        g_string_append(s, ". Δ = B − A; sTasks matched by id.");
        if (win_diff_b_is_trace(self))
            g_string_append(s, " B is a trace: its measured kernel time and mean spans.");
        win_diff_append_param_note(self, s);
    }
    gtk_label_set_text(GTK_LABEL(self->diff_label), s->str);
    gtk_widget_set_tooltip_text(self->diff_label, s->len ? s->str : NULL);
    g_string_free(s, TRUE);
    guint old = g_list_model_get_n_items(G_LIST_MODEL(self->diff_rows));
    char **ids = g_new0(char *, (gsize)self->n_diff + 1);
    for (int i = 0; i < self->n_diff; i++)
        ids[i] = g_strdup_printf("%d", i);
    gtk_string_list_splice(self->diff_rows, 0, old, (const char *const *)ids);
    g_strfreev(ids);
}

void win_diff_clear(PtWindow *self)
{
    pt_explorer_model_free(self->cmp_b);
    self->cmp_b = NULL;
    g_clear_pointer(&self->cmp_b_path, g_free);
    g_clear_pointer(&self->cmp_b_spans, g_free);
    win_diff_free_deps(self);
    win_diff_free_b_measured(self);
    g_clear_pointer(&self->diff, g_free);
    self->cmp_b_n = 0;
    self->n_diff = 0;
}

gboolean pt_window_compare_with(PtWindow *self, const char *path)
{
    pt_explorer_model *a = self->model;
    if (!a || !a->have_tl) {
        pt_window_show_error(self, "Cannot compare: open a graph or sProgram first");
        return FALSE;
    }
    pt_explorer_model *b = pt_explorer_model_new();
    pt_error err = {{0}};
    if (!b || !pt_explorer_model_load_compare(b, a, path, self->hw_name, &err)) {
        pt_explorer_model_free(b);
        pt_window_show_error(self, err.msg[0] ? err.msg : "Cannot compare: out of memory");
        return FALSE;
    }
    win_diff_clear(self);
    self->cmp_b = b;
    self->cmp_b_path = g_strdup(path);
    pt_window_show_error(self, NULL);
    self->keep_view = FALSE; /* fit both */
    win_refresh_timeline(self);
    return TRUE;
}

void pt_window_stop_comparing(PtWindow *self)
{
    if (!self->cmp_b)
        return;
    win_diff_clear(self);
    win_refresh_timeline(self);
}

void win_action_stop_comparing(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a, (void)p;
    pt_window_stop_comparing(data);
}

static void on_compare_response(GtkNativeDialog *d, int response, gpointer data)
{
    PtWindow *self = data;
    if (response == GTK_RESPONSE_ACCEPT) {
        GFile *f = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(d));
        char *path = f ? g_file_get_path(f) : NULL;
        if (path)
            pt_window_compare_with(self, path);
        g_free(path);
        g_clear_object(&f);
    }
    g_object_unref(d);
}

void win_action_compare_with(GSimpleAction *a, GVariant *p, gpointer data)
{
    PtWindow *self = data;
    (void)a, (void)p;
    GtkFileChooserNative *d = gtk_file_chooser_native_new(
        "Compare With sProgram or Trace", GTK_WINDOW(self), GTK_FILE_CHOOSER_ACTION_OPEN,
        "_Compare",
        "_Cancel");
    GtkFileFilter *ff = gtk_file_filter_new();
    gtk_file_filter_set_name(ff, "sProgram or trace (JSON)");
    gtk_file_filter_add_pattern(ff, "*.json");
    gtk_file_chooser_add_filter(GTK_FILE_CHOOSER(d), ff);
    g_object_unref(ff);
    g_signal_connect(d, "response", G_CALLBACK(on_compare_response), self);
    gtk_native_dialog_show(GTK_NATIVE_DIALOG(d));
}

char *pt_window_dup_diff_text(PtWindow *self)
{
    GString *s = g_string_new(self->diff_label ? gtk_label_get_text(GTK_LABEL(self->diff_label))
                                               : "");
    GtkSelectionModel *sm = self->diff_view
                                ? gtk_column_view_get_model(GTK_COLUMN_VIEW(self->diff_view))
                                : NULL;
    guint n = sm && self->cmp_b ? g_list_model_get_n_items(G_LIST_MODEL(sm)) : 0;
    for (guint r = 0; r < n; r++) {
        gpointer item = g_list_model_get_item(G_LIST_MODEL(sm), r);
        int i = win_item_stask(item);
        g_object_unref(item);
        g_string_append_c(s, '\n');
        for (int c = 0; c < N_DC; c++) {
            char *t = win_diff_cell_text(self, i, c);
            g_string_append_printf(s, "%s%s", c ? " | " : "", t);
            g_free(t);
        }
    }
    return g_string_free(s, FALSE);
}

gboolean pt_window_sort_diff(PtWindow *self, const char *title, gboolean descending)
{
    if (!self->diff_view)
        return FALSE;
    GListModel *cols = gtk_column_view_get_columns(GTK_COLUMN_VIEW(self->diff_view));
    for (guint i = 0; i < g_list_model_get_n_items(cols); i++) {
        GtkColumnViewColumn *c = g_list_model_get_item(cols, i);
        gboolean hit = g_strcmp0(gtk_column_view_column_get_title(c), title) == 0;
        if (hit)
            gtk_column_view_sort_by_column(GTK_COLUMN_VIEW(self->diff_view), c,
                                           descending ? GTK_SORT_DESCENDING
                                                      : GTK_SORT_ASCENDING);
        g_object_unref(c);
        if (hit)
            return TRUE;
    }
    return FALSE;
}

double pt_window_compare_kernel_delta_ns(PtWindow *self)
{
    if (!self->cmp_b)
        return NAN;
    return self->cmp_b->tl.kernel_time_ns - self->model->tl.kernel_time_ns;
}
