/* window_compare.c — the "Predicted vs measured" page (issue 18): a sortable table with one row
 * per sTask (counts, mean span predicted and measured, spread, error, first start and its
 * offset) and, above it, the sample and busy % per lane. The numbers are pt_align's over the
 * shown prediction and the overlay (pt_explorer_model_align), so they match `pipethreader-cli
 * report`; errors are pt_error_pct's (predicted - measured) / measured. */
#include "window_private.h"

#include <math.h>

#include "busy.h"
#include "explorer_model.h"
#include "timeline_json.h"

enum { CC_STASK, CC_COUNT, CC_PRED, CC_MEAS, CC_SPREAD, CC_SD, CC_ERROR, CC_PSTART, CC_MSTART,
       CC_OFFSET, N_CC };
static const char *const cc_titles[N_CC] = {"sTask", "count p/m", "predicted", "measured",
                                            "spread", "sd", "error", "pred start", "meas start",
                                            "offset"};

static const pt_align_stask *row_of(PtWindow *self, gpointer item)
{
    int i = win_item_stask(item);
    return i >= 0 && i < self->cmp.n_stasks ? &self->cmp.stasks[i] : NULL;
}

static void fmt_ns(GString *s, double ns)
{
    if (!isfinite(ns))
        g_string_append(s, "–");
    else if (fabs(ns) >= 1e3)
        g_string_append_printf(s, "%.3f µs", ns / 1e3);
    else
        g_string_append_printf(s, "%.1f ns", ns);
}

char *win_compare_cell_text(PtWindow *self, int i, int col)
{
    if (i < 0 || i >= self->cmp.n_stasks)
        return g_strdup("");
    const pt_align_stask *a = &self->cmp.stasks[i];
    const pt_explorer_model *m = self->model;
    GString *s = g_string_new(NULL);
    switch (col) {
    case CC_STASK: g_string_append(s, a->stask < m->sg.n ? m->sg.tasks[a->stask].id : "?"); break;
    case CC_COUNT:
        g_string_append_printf(s, "%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT,
                               (gint64)a->predicted_count, (gint64)a->measured_count);
        break;
    case CC_PRED: fmt_ns(s, a->predicted_mean_ns); break;
    case CC_MEAS: fmt_ns(s, a->measured_mean_ns); break;
    case CC_SPREAD:
        fmt_ns(s, a->measured_min_ns);
        g_string_append(s, "–");
        fmt_ns(s, a->measured_max_ns);
        break;
    case CC_SD: fmt_ns(s, a->measured_stddev_ns); break;
    case CC_ERROR:
        if (isfinite(a->error_pct))
            g_string_append_printf(s, "%+.1f%%", a->error_pct);
        else
            g_string_append(s, "–");
        break;
    case CC_PSTART: fmt_ns(s, a->predicted_first_start_ns); break;
    case CC_MSTART: fmt_ns(s, a->measured_first_start_ns); break;
    case CC_OFFSET: fmt_ns(s, a->start_error_ns); break;
    default: break;
    }
    return g_string_free(s, FALSE);
}

/* The value a column sorts by (errors by magnitude: the worst first when descending). */
static double sort_key(const pt_align_stask *a, int col)
{
    double v;
    switch (col) {
    case CC_COUNT: v = (double)a->measured_count; break;
    case CC_PRED: v = a->predicted_mean_ns; break;
    case CC_MEAS: v = a->measured_mean_ns; break;
    case CC_SPREAD: v = a->measured_max_ns - a->measured_min_ns; break;
    case CC_SD: v = a->measured_stddev_ns; break;
    case CC_ERROR: v = fabs(a->error_pct); break;
    case CC_PSTART: v = a->predicted_first_start_ns; break;
    case CC_MSTART: v = a->measured_first_start_ns; break;
    case CC_OFFSET: v = fabs(a->start_error_ns); break;
    default: v = a->stask; break;
    }
    return isfinite(v) ? v : -HUGE_VAL;
}

typedef struct {
    PtWindow *self;
    int col;
} sort_ctx;

static int compare_rows(gconstpointer x, gconstpointer y, gpointer data)
{
    const sort_ctx *c = data;
    const pt_align_stask *a = row_of(c->self, (gpointer)x), *b = row_of(c->self, (gpointer)y);
    if (!a || !b)
        return (a != NULL) - (b != NULL);
    if (c->col == CC_STASK) {
        const pt_explorer_model *m = c->self->model;
        return g_strcmp0(m->sg.tasks[a->stask].id, m->sg.tasks[b->stask].id);
    }
    double ka = sort_key(a, c->col), kb = sort_key(b, c->col);
    return ka < kb ? GTK_ORDERING_SMALLER : ka > kb ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
}

static void cc_setup(GtkSignalListItemFactory *f, GtkListItem *item, gpointer col)
{
    (void)f;
    GtkWidget *l = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(l), GPOINTER_TO_INT(col) == CC_STASK ? 0 : 1);
    gtk_list_item_set_child(item, l);
}

static void cc_bind(GtkSignalListItemFactory *f, GtkListItem *item, gpointer col)
{
    PtWindow *self = g_object_get_data(G_OBJECT(f), "pt-window");
    int i = win_item_stask(gtk_list_item_get_item(item));
    char *t = win_compare_cell_text(self, i, GPOINTER_TO_INT(col));
    gtk_label_set_text(GTK_LABEL(gtk_list_item_get_child(item)), t);
    g_free(t);
}

GtkWidget *win_build_compare_page(PtWindow *self)
{
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
    gtk_widget_set_margin_start(box, 8);
    gtk_widget_set_margin_end(box, 8);
    gtk_widget_set_margin_top(box, 6);
    self->cmp_label = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(self->cmp_label), 0);
    gtk_label_set_wrap(GTK_LABEL(self->cmp_label), TRUE);
    gtk_label_set_selectable(GTK_LABEL(self->cmp_label), TRUE);
    gtk_box_append(GTK_BOX(box), self->cmp_label);
    self->cmp_rows = gtk_string_list_new(NULL);
    GtkWidget *cv = gtk_column_view_new(NULL);
    gtk_column_view_set_show_column_separators(GTK_COLUMN_VIEW(cv), TRUE);
    for (int c = 0; c < N_CC; c++) {
        GtkListItemFactory *f = gtk_signal_list_item_factory_new();
        g_object_set_data(G_OBJECT(f), "pt-window", self);
        g_signal_connect(f, "setup", G_CALLBACK(cc_setup), GINT_TO_POINTER(c));
        g_signal_connect(f, "bind", G_CALLBACK(cc_bind), GINT_TO_POINTER(c));
        GtkColumnViewColumn *col = gtk_column_view_column_new(cc_titles[c], f);
        gtk_column_view_column_set_resizable(col, TRUE);
        sort_ctx *sc = g_new0(sort_ctx, 1);
        sc->self = self;
        sc->col = c;
        GtkCustomSorter *so = gtk_custom_sorter_new(compare_rows, sc, g_free);
        gtk_column_view_column_set_sorter(col, GTK_SORTER(so));
        g_object_unref(so);
        if (c == CC_STASK)
            gtk_column_view_column_set_expand(col, TRUE);
        gtk_column_view_append_column(GTK_COLUMN_VIEW(cv), col);
        if (c == CC_ERROR) /* worst-predicted first */
            gtk_column_view_sort_by_column(GTK_COLUMN_VIEW(cv), col, GTK_SORT_DESCENDING);
        g_object_unref(col);
    }
    GtkSorter *sorter = gtk_column_view_get_sorter(GTK_COLUMN_VIEW(cv));
    GtkSortListModel *sm = gtk_sort_list_model_new(G_LIST_MODEL(g_object_ref(self->cmp_rows)),
                                                   g_object_ref(sorter));
    GtkNoSelection *sel = gtk_no_selection_new(G_LIST_MODEL(sm));
    gtk_column_view_set_model(GTK_COLUMN_VIEW(cv), GTK_SELECTION_MODEL(sel));
    g_object_unref(sel);
    self->cmp_view = cv;
    GtkWidget *scroll = gtk_scrolled_window_new();
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroll), cv);
    gtk_widget_set_vexpand(scroll, TRUE);
    gtk_box_append(GTK_BOX(box), scroll);
    return box;
}

void win_refresh_compare(PtWindow *self)
{
    if (!self->cmp_label)
        return;
    pt_alignment_free(&self->cmp);
    const pt_explorer_model *m = self->model;
    bool have = pt_explorer_model_align(m, &self->cmp);
    GString *s = g_string_new(NULL);
    if (!have)
        g_string_append(s, "No measured trace is laid over this prediction. Open a profiled trace "
                           "(pipethreader-cli profile) or run Compile & Profile.");
    else {
        g_string_append_printf(s, "Sample: %s; %" G_GINT64_FORMAT " records dropped, %"
                               G_GINT64_FORMAT " unpaired%s%s. Error = (predicted − measured) / "
                               "measured; spans are issue to completion.",
                               m->measured_sample, (gint64)m->measured_dropped,
                               (gint64)m->measured_unpaired,
                               m->measured_partial ? " — PARTIAL SAMPLE: measured figures cover "
                                                     "the records kept" : "",
                               pt_explorer_model_measured_stale(m)
                                   ? " — STALE: measured on the sProgram before the edits since"
                                   : "");
        g_string_append(s, "\nBusy per lane (predicted, unit, measured):");
        for (int l = 0; l < self->cmp.n_lanes; l++) {
            const pt_align_lane *a = &self->cmp.lanes[l];
            g_string_append_printf(s, "  %s %.0f%% / %.0f%% / ", m->prog.lanes[a->lane].name,
                                   a->predicted_busy_pct, a->predicted_occupancy_pct);
            if (isfinite(a->measured_busy_pct))
                g_string_append_printf(s, "%.0f%%%s", a->measured_busy_pct,
                                       a->measured_partial ? " (partial)" : "");
            else
                g_string_append(s, "–");
        }
    }
    gtk_label_set_text(GTK_LABEL(self->cmp_label), s->str);
    g_string_free(s, TRUE);
    guint old = g_list_model_get_n_items(G_LIST_MODEL(self->cmp_rows));
    int n = have ? self->cmp.n_stasks : 0;
    char **ids = g_new0(char *, (gsize)n + 1);
    for (int i = 0; i < n; i++)
        ids[i] = g_strdup_printf("%d", i);
    gtk_string_list_splice(self->cmp_rows, 0, old, (const char *const *)ids);
    g_strfreev(ids);
}

char *pt_window_dup_compare_text(PtWindow *self)
{
    GString *s = g_string_new(self->cmp_label ? gtk_label_get_text(GTK_LABEL(self->cmp_label))
                                              : "");
    GtkSelectionModel *sm = self->cmp_view
                                ? gtk_column_view_get_model(GTK_COLUMN_VIEW(self->cmp_view)) : NULL;
    guint n = sm ? g_list_model_get_n_items(G_LIST_MODEL(sm)) : 0;
    for (guint r = 0; r < n; r++) {
        gpointer item = g_list_model_get_item(G_LIST_MODEL(sm), r);
        int i = win_item_stask(item);
        g_object_unref(item);
        g_string_append_c(s, '\n');
        for (int c = 0; c < N_CC; c++) {
            char *t = win_compare_cell_text(self, i, c);
            g_string_append_printf(s, "%s%s", c ? " | " : "", t);
            g_free(t);
        }
    }
    return g_string_free(s, FALSE);
}
