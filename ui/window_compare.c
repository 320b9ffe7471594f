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
static gboolean sort_key(PtWindow *self, int i, int col, double *out)
{
    if (i < 0 || i >= self->cmp.n_stasks)
        return FALSE;
    const pt_align_stask *a = &self->cmp.stasks[i];
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
    *out = isfinite(v) ? v : -HUGE_VAL;
    return TRUE;
}

/* worst-predicted first */
static const win_table_spec compare_table = {cc_titles, N_CC, win_compare_cell_text, sort_key,
                                             CC_ERROR};

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
    GtkWidget *cv = win_table_new(self, &compare_table, self->cmp_rows);
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
