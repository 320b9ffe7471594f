/* window.c — PtWindow (see window.h): the error banner, the sTask table's text, the inspector's
 * text, loading a model into the window, the editing actions, the view toggles, the header bar's
 * actions and the window's construction. The rest lives beside it (window_private.h):
 * window_pages.c, window_hw.c, window_timeline.c, window_menu.c, window_form.c, window_files.c,
 * window_shortcuts.c. */
#include "busy.h"
#include "idle.h"
#include "window_private.h"

#include "stage_waits.h"

#include <math.h>
#include <stdlib.h>

#include "actions.h"
#include "explorer_model.h"
#include "graph_view.h"
#include "timeline_view.h"

G_DEFINE_FINAL_TYPE(PtWindow, pt_window, GTK_TYPE_APPLICATION_WINDOW)

/* ---- banner ---------------------------------------------------------------------------- */

static void show_error(PtWindow *self, const char *msg)
{
    g_free(self->error);
    self->error = msg ? g_strdup(msg) : NULL;
    if (msg)
        gtk_label_set_text(GTK_LABEL(self->banner_label), msg);
    gtk_widget_set_visible(self->banner, msg != NULL);
}

static void on_banner_close(GtkButton *b, gpointer data)
{
    (void)b;
    show_error(PT_WINDOW(data), NULL);
}

const char *pt_window_get_error(PtWindow *self)
{
    return self->error;
}

void pt_window_show_error(PtWindow *self, const char *msg)
{
    show_error(self, msg);
}

/* ---- sTask table ----------------------------------------------------------------------- */

int win_item_stask(gpointer item)
{
    if (!item)
        return -1;
    return atoi(gtk_string_object_get_string(GTK_STRING_OBJECT(item)));
}

char *win_cell_text(PtWindow *self, int i, int col)
{
    const pt_explorer_model *m = self->model;
    if (!m->have_sg || i < 0 || i >= m->sg.n)
        return g_strdup("");
    const pt_stask *t = &m->sg.tasks[i];
    switch (col) {
    case COL_ID: return g_strdup(t->id);
    case COL_KIND: return g_strdup(pt_stask_kind_name(t->kind));
    case COL_SEU: return g_strdup(pt_seu_name(t->seu));
    case COL_REGION: return g_strdup(pt_region_name(t->region));
    case COL_TILE: {
        GString *s = g_string_new(NULL);
        for (int r = 0; r < t->rank; r++)
            g_string_append_printf(s, "%s%" G_GINT64_FORMAT, r ? "×" : "", (gint64)t->tile[r]);
        return g_string_free(s, FALSE);
    }
    case COL_BYTES: return g_strdup_printf("%" G_GINT64_FORMAT, (gint64)t->bytes);
    case COL_FLOPS: return g_strdup_printf("%" G_GINT64_FORMAT, (gint64)t->flops);
    default: return g_strdup("");
    }
}

/* ---- inspector --------------------------------------------------------------------------- */

void win_update_inspector(PtWindow *self, int i)
{
    const pt_explorer_model *m = self->model;
    if (m->have_sg && i >= 0 && i < m->sg.n)
        g_strlcpy(self->selected_id, m->sg.tasks[i].id, sizeof self->selected_id);
    else
        self->selected_id[0] = '\0';
    if (!m->have_sg || i < 0 || i >= m->sg.n) {
        gtk_label_set_text(GTK_LABEL(self->inspector),
                           "Select an sTask in the table or click a bar in the timeline.");
        win_rebuild_bar_menu(self);
        return;
    }
    const pt_stask *t = &m->sg.tasks[i];
    GString *s = g_string_new(NULL);
    char *tile = win_cell_text(self, i, COL_TILE);
    g_string_append_printf(s, "%s\n\nkind %s on %s, %s\ntile %s\nbytes %" G_GINT64_FORMAT
                           ", flops %" G_GINT64_FORMAT "\nexpr %s\n",
                           t->id, pt_stask_kind_name(t->kind), pt_seu_name(t->seu),
                           pt_region_name(t->region), tile, (gint64)t->bytes,
                           (gint64)t->flops, t->expr);
    g_free(tile);
    g_string_append(s, "deps:");
    if (t->n_deps == 0)
        g_string_append(s, " none");
    for (int d = 0; d < t->n_deps; d++) {
        int from = t->deps[d].from;
        g_string_append_printf(s, " %s", from >= 0 && from < m->sg.n ? m->sg.tasks[from].id : "?");
        if (t->deps[d].distance)
            g_string_append_printf(s, " (-%d)", t->deps[d].distance);
    }
    g_string_append(s, "\nwaits:");
    int nw = 0;
    if (m->have_prog)
        for (int w = 0; w < m->prog.n_waits; w++) {
            const pt_wait_entry *we = &m->prog.waits[w];
            if (we->stask != i || we->on < 0 || we->on >= m->sg.n)
                continue;
            g_string_append_printf(s, " %s", m->sg.tasks[we->on].id);
            if (we->distance)
                g_string_append_printf(s, " (-%d)", we->distance);
            nw++;
        }
    if (!nw)
        g_string_append(s, " none");
    /* Rings: the producer's wait for a free stage is in no Wait list but in every pipelined
     * kernel (the dotted arrows). */
    char *stage = m->have_prog ? pt_stage_wait_text(&m->prog, &m->sg, &m->graph, &m->hw, i) : NULL;
    if (stage)
        g_string_append_printf(s, "\n%s", stage);
    free(stage);
    int lane, pos;
    if (m->have_prog && pt_sprogram_placement(&m->prog, i, &lane, &pos))
        g_string_append_printf(s, "\nplaced on %s, position %d", m->prog.lanes[lane].name, pos);
    int64_t n = 0;
    double mean = pt_explorer_model_mean_ns(m, i, &n);
    if (n)
        g_string_append_printf(s, "\npredicted: %" G_GINT64_FORMAT " instances, mean span %.1f "
                               "ns (issue to completion)", (gint64)n, mean);
    else
        g_string_append(s, "\npredicted: no instances");
    if (m->have_measured) {
        double mm = m->stask_measured_ns ? m->stask_measured_ns[i] : NAN;
        if (isfinite(mm))
            g_string_append_printf(s, "\nmeasured: mean span %.1f ns (all sampled CTAs%s)", mm,
                                   m->measured_partial ? ", partial sample" : "");
        else
            g_string_append(s, "\nmeasured: no instances");
        /* the error of exactly the two numbers above (busy.h's pt_error_pct) */
        double e = pt_error_pct(mean, mm);
        if (isfinite(e))
            g_string_append_printf(s, "\nprediction error: %+.1f%% = (%.1f - %.1f) / %.1f%s", e,
                                   mean, mm, mm,
                                   pt_explorer_model_measured_stale(m)
                                       ? " (stale: measured before the edits since)" : "");
    }
    /* Issue 18: what this sTask's lane waits for before it (idle.h): its instance with the
     * longest idle gap before it, and the reason. */
    if (m->have_tl && m->tl.n_spans <= 200000) {
        pt_wait_reason best = {0}, r;
        int64_t best_i = -1, seen = 0;
        for (int64_t k = 0; k < m->tl.n_spans && seen < 256; k++) {
            if (m->tl.spans[k].stask != i)
                continue;
            seen++;
            if (pt_span_wait_reason(&m->prog, &m->sg, &m->tl, k, &r) && r.gap_ns > 0.5 &&
                (best_i < 0 || r.gap_ns > best.gap_ns)) {
                best = r;
                best_i = k;
            }
        }
        if (best_i >= 0) {
            char why[320];
            pt_wait_reason_text(&best, &m->prog, &m->sg, why, sizeof why);
            g_string_append_printf(s, "\nlongest idle gap before it: %s[%" G_GINT64_FORMAT "] %s",
                                   m->sg.tasks[i].id, (gint64)m->tl.spans[best_i].iter, why);
        } else if (seen)
            g_string_append(s, "\nlongest idle gap before it: none (its lane never waits "
                               "for it)");
    }
    int64_t on_crit = 0;
    for (int64_t k = 0; k < self->n_critical; k++)
        on_crit += m->tl.spans[self->critical[k]].stask == i;
    if (on_crit)
        g_string_append_printf(s, "\ncritical path: %" G_GINT64_FORMAT " of its instances",
                               (gint64)on_crit);
    gtk_label_set_text(GTK_LABEL(self->inspector), s->str);
    g_string_free(s, TRUE);
    win_rebuild_bar_menu(self);
}

void pt_window_select_stask(PtWindow *self, int stask)
{
    if (self->syncing)
        return;
    self->syncing = TRUE;
    self->selected = stask;
    win_rebuild_offset_row(self); /* the form's offset row follows the selection */
    pt_timeline_view_set_selected(PT_TIMELINE_VIEW(self->timeline), stask);
    pt_graph_view_set_selected(PT_GRAPH_VIEW(self->graph), stask);
    win_update_inspector(self, stask);
    pt_actions_stask_selected(self, stask);
    GListModel *lm = G_LIST_MODEL(self->selection);
    guint found = GTK_INVALID_LIST_POSITION;
    for (int pass = 0; stask >= 0 && pass < 2 && found == GTK_INVALID_LIST_POSITION; pass++) {
        if (pass == 1) /* filtered out: clear the search so it can be shown */
            gtk_editable_set_text(GTK_EDITABLE(self->search), "");
        guint n = g_list_model_get_n_items(lm);
        for (guint p = 0; p < n; p++) {
            gpointer item = g_list_model_get_item(lm, p);
            int s = win_item_stask(item);
            g_object_unref(item);
            if (s == stask) {
                found = p;
                break;
            }
        }
    }
    gtk_single_selection_set_selected(self->selection, found);
    self->syncing = FALSE;
}

gboolean pt_window_select_stask_id(PtWindow *self, const char *id)
{
    int i = self->model->have_sg ? pt_stask_find(&self->model->sg, id) : -1;
    if (i < 0) {
        char *msg = g_strdup_printf("no sTask '%s' in %s", id,
                                    self->model->have_sg ? self->model->title : "(nothing loaded)");
        show_error(self, msg);
        g_free(msg);
        return FALSE;
    }
    pt_window_select_stask(self, i);
    return TRUE;
}

char *pt_window_dup_inspector_text(PtWindow *self)
{
    return g_strdup(gtk_label_get_text(GTK_LABEL(self->inspector)));
}

GtkWidget *pt_window_get_sidebar(PtWindow *self)
{
    return self->sidebar;
}

GtkWidget *pt_window_get_timeline_search_entry(PtWindow *self)
{
    return self->tl_search_entry;
}

GtkWidget *pt_window_get_graph(PtWindow *self)
{
    return self->graph;
}

gboolean pt_window_show_page(PtWindow *self, const char *page)
{
    if (!gtk_stack_get_child_by_name(GTK_STACK(self->views), page))
        return FALSE;
    gtk_stack_set_visible_child_name(GTK_STACK(self->views), page);
    return TRUE;
}

/* ---- loading ----------------------------------------------------------------------------- */

/* "614 TFLOP/s", or "no matmul" for an operator without one (0 TFLOP/s reads as a failure). */
static char *throughput_text(const pt_explorer_model *m)
{
    bool mma = false;
    for (int i = 0; i < m->sg.n && !mma; i++)
        mma = m->sg.tasks[i].kind == PT_ST_MMA;
    if (!mma)
        return g_strdup("no matmul");
    if (!(m->tl.tflops > 0))
        return g_strdup("— TFLOP/s");
    return g_strdup_printf("%.0f TFLOP/s", m->tl.tflops);
}

static const char *plural(int64_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

char *pt_window_dup_summary(PtWindow *self)
{
    const pt_explorer_model *m = self->model;
    if (!m->have_tl)
        return NULL;
    char *tp = throughput_text(m);
    char *out = NULL;
    if (m->have_measured) {
        GString *s = g_string_new(NULL);
        g_string_append_printf(s, "%s on %s — %d sTasks, %d lanes; one EU %.2f µs for %"
                               G_GINT64_FORMAT " %s; kernel %.2f µs (%s)",
                               m->graph.name, m->hw.name, m->sg.n, m->prog.n_lanes,
                               m->tl.eu_time_ns / 1000.0, (gint64)m->tl.eu_iterations,
                               plural(m->tl.eu_iterations, "iteration", "iterations"),
                               m->tl.kernel_time_ns / 1000.0, tp);
        if (isfinite(m->measured_kernel_ns))
            g_string_append_printf(s, "; measured kernel %.2f µs", m->measured_kernel_ns / 1000.0);
        if (isfinite(m->kernel_error_pct))
            g_string_append_printf(s, " (prediction error %+.1f%% = (predicted - measured) / "
                                   "measured)", m->kernel_error_pct);
        g_string_append_printf(s, "; measured bars: CTA %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                               " spans", (gint64)m->measured_block, (gint64)m->n_measured);
        if (pt_mkernel_overhead_notable(m->measured_overhead_pct))
            g_string_append_printf(s, " (recorded by the instrumented build, %.0f%% slower than "
                                   "the plain one: the bars and measured busy describe that "
                                   "slower kernel)", m->measured_overhead_pct);
        if (m->measured_sample[0])
            g_string_append_printf(s, "; sample: %s", m->measured_sample);
        if (m->measured_partial)
            g_string_append_printf(s, "; PARTIAL SAMPLE: %" G_GINT64_FORMAT " records dropped, %"
                                   G_GINT64_FORMAT " unpaired (measured figures cover the "
                                   "records kept)", (gint64)m->measured_dropped,
                                   (gint64)m->measured_unpaired);
        if (pt_explorer_model_measured_stale(m))
            g_string_append(s, "; STALE: the measured bars are of the sProgram as profiled, "
                               "before the edits since");
        if (!m->trace_own_prediction && m->overlay)
            g_string_append(s, "; the trace does not name its parameters or sProgram: laid "
                               "over the example's defaults");
        if (m->n_measured_ctas > 1)
            g_string_append_printf(s, " (%d CTAs sampled: Several CTAs shows them)",
                                   m->n_measured_ctas);
        if (m->trace_iterations > 0 && m->trace_iterations != m->tl.eu_iterations)
            g_string_append_printf(s, " (note: the trace ran %" G_GINT64_FORMAT " iterations per "
                                   "EU, the example's shape %" G_GINT64_FORMAT ")",
                                   (gint64)m->trace_iterations, (gint64)m->tl.eu_iterations);
        out = g_string_free(s, FALSE);
    } else {
        /* split-K: the work items are chunks of tiles, and the one EU shown is a fix-up */
        char *split = m->tl.split_k > 1
                          ? g_strdup_printf(" × split-K %d = %" G_GINT64_FORMAT " work items%s",
                                            m->tl.split_k, (gint64)m->tl.work_items,
                                            m->tl.split_cluster ? " in clusters of their tile"
                                                                : "")
                      : m->tl.stream_k > 1
                          ? g_strdup_printf(", stream-K over %d CTAs = %" G_GINT64_FORMAT
                                            " segments", m->tl.stream_k,
                                            (gint64)m->tl.work_items)
                          : g_strdup("");
        out = g_strdup_printf("%s on %s — %d sTasks, %d lanes; one EU%s %.2f µs for %"
                              G_GINT64_FORMAT " %s; kernel %.2f µs (%s, %" G_GINT64_FORMAT
                              " %s%s, %" G_GINT64_FORMAT " %s)",
                              m->graph.name, m->hw.name, m->sg.n, m->prog.n_lanes,
                              m->tl.split_k > 1 ? (m->tl.split_cluster ? " (the cluster's leader)"
                                                                       : " (the fix-up chunk)")
                              : m->tl.stream_k > 1 && m->tl.n_chunks > 0 ? " (a stream-K fix-up)"
                                                                         : "",
                              m->tl.eu_time_ns / 1000.0, (gint64)m->tl.eu_iterations,
                              plural(m->tl.eu_iterations, "iteration", "iterations"),
                              m->tl.kernel_time_ns / 1000.0, tp, (gint64)m->tl.tiles,
                              plural(m->tl.tiles, "tile", "tiles"), split, (gint64)m->tl.waves,
                              plural(m->tl.waves, "wave", "waves"));
        g_free(split);
    }
    g_free(tp);
    return out;
}

static void enable(PtWindow *self, const char *name, gboolean on)
{
    GAction *a = g_action_map_lookup_action(G_ACTION_MAP(self), name);
    if (a)
        g_simple_action_set_enabled(G_SIMPLE_ACTION(a), on);
}

void win_update_title_and_actions(PtWindow *self)
{
    const pt_explorer_model *m = self->model;
    gboolean loaded = m->have_prog;
    char *title = loaded ? g_strdup_printf("%s%s — PipeThreader", m->dirty ? "• " : "", m->title)
                         : g_strdup("PipeThreader");
    gtk_window_set_title(GTK_WINDOW(self), title);
    g_free(title);
    enable(self, "undo", pt_explorer_model_can_undo(m));
    enable(self, "redo", pt_explorer_model_can_redo(m));
    static const char *const edits[] = {"append", "wait-add", "wait-remove", "stages", "split-k", "split-cluster",
                                        "stream-k", "run", "tile", "decay", "release",
                                        "save", "save-as", "wait-add-dialog", "wait-remove-last",
                                        "show-critical", "show-ctas", "unroll-loop"};
    for (guint i = 0; i < G_N_ELEMENTS(edits); i++)
        enable(self, edits[i], loaded);
    win_autosave_changed(self); /* every change of the model or its saved state comes here */
}

static void show_model(PtWindow *self)
{
    pt_explorer_model *m = self->model;
    g_free(self->labels);
    g_free(self->stask_seu);
    self->labels = g_new0(const char *, m->sg.n > 0 ? m->sg.n : 1);
    self->stask_seu = g_new0(pt_seu_kind, m->sg.n > 0 ? m->sg.n : 1);
    for (int i = 0; i < m->sg.n; i++) {
        self->labels[i] = m->sg.tasks[i].id;
        self->stask_seu[i] = m->sg.tasks[i].seu;
    }
    win_update_status(self); /* before the timeline: it is drawn flagged when not executable */
    win_refresh_timeline(self);
    win_rebuild_form(self);
    pt_graph_view_set_graph(PT_GRAPH_VIEW(self->graph), &m->sg);
    gtk_widget_set_visible(self->view_switcher, TRUE);

    char *sum = pt_window_dup_summary(self);
    if (m->warning[0]) {
        char *w = g_strdup_printf("%s\nValidation: %s", sum, m->warning);
        g_free(sum);
        sum = w;
    }
    gtk_label_set_text(GTK_LABEL(self->summary), sum);
    g_free(sum);

    self->syncing = TRUE;
    guint old = g_list_model_get_n_items(G_LIST_MODEL(self->rows));
    char **ids = g_new0(char *, m->sg.n + 1);
    for (int i = 0; i < m->sg.n; i++)
        ids[i] = g_strdup_printf("%d", i);
    gtk_string_list_splice(self->rows, 0, old, (const char *const *)ids);
    g_strfreev(ids);
    gtk_single_selection_set_selected(self->selection, GTK_INVALID_LIST_POSITION);
    self->syncing = FALSE;
    self->selected = -1;
    win_update_inspector(self, -1);
    win_update_title_and_actions(self);
    pt_actions_model_changed(self);
    gtk_stack_set_visible_child_name(GTK_STACK(self->stack), "main");
    gtk_widget_grab_focus(self->timeline);
}

/* Remember a file (not an embedded example) in the recently used list. */
void win_add_recent(const char *path)
{
    if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
        return;
    GFile *f = g_file_new_for_path(path);
    char *uri = g_file_get_uri(f);
    /* In our own group: the file chooser also records what it saved (an exported Chrome trace,
     * a bundle's files) under this application's name, and those must not be offered as files
     * the explorer opens. */
    static const char *groups[] = {WIN_RECENT_GROUP, NULL};
    GtkRecentData rd = {.mime_type = (char *)"application/json",
                        .app_name = (char *)g_get_application_name(),
                        .app_exec = (char *)"pipethreader %u", .groups = (char **)groups};
    if (!rd.app_name)
        rd.app_name = (char *)"pipethreader";
    gtk_recent_manager_add_full(gtk_recent_manager_get_default(), uri, &rd);
    g_free(uri);
    g_object_unref(f);
}

void win_install_model(PtWindow *self, pt_explorer_model *next)
{
    /* The view and table borrow from the model: detach them before freeing the old one. */
    pt_timeline_view_set_model(PT_TIMELINE_VIEW(self->timeline), NULL);
    pt_graph_view_set_graph(PT_GRAPH_VIEW(self->graph), NULL);
    win_extras_clear(self);
    win_diff_clear(self); /* a comparison belongs to the model it was made against */
    pt_explorer_model *old = self->model;
    self->model = next;
    pt_explorer_model_free(old);
    show_error(self, NULL);
    self->status_prev_ns = NAN; /* another schedule: no change to show */
    show_model(self);
}

gboolean pt_window_open_sprogram_with_graph(PtWindow *self, const char *sprogram,
                                            const char *graph)
{
    pt_explorer_model *next = pt_explorer_model_new();
    pt_error err = {{0}};
    if (!next) {
        show_error(self, "out of memory");
        return FALSE;
    }
    if (!pt_explorer_model_load_sprogram(next, sprogram, graph, self->hw_name, &err)) {
        show_error(self, err.msg[0] ? err.msg : "could not load the sProgram");
        pt_explorer_model_free(next);
        return FALSE;
    }
    win_autosave_note_source(self, graph, NULL);
    win_install_model(self, next);
    win_add_recent(sprogram);
    return TRUE;
}

gboolean pt_window_open(PtWindow *self, const char *source)
{
    pt_explorer_model *next = pt_explorer_model_new();
    pt_error err = {{0}};
    if (!next) {
        show_error(self, "out of memory");
        return FALSE;
    }
    gboolean ok = pt_explorer_is_trace_file(source)
        ? pt_explorer_model_load_trace(next, source, self->hw_name, &err)
        : pt_explorer_is_sprogram_file(source)
        ? pt_explorer_model_load_sprogram(next, source, NULL, self->hw_name, &err)
        : pt_explorer_model_load(next, source, self->hw_name, &err);
    if (!ok) {
        show_error(self, err.msg[0] ? err.msg : "could not load the file");
        pt_explorer_model_free(next);
        return FALSE;
    }
    win_autosave_note_source(self, source, NULL);
    win_install_model(self, next);
    win_add_recent(source);
    return TRUE;
}


/* ---- editing ------------------------------------------------------------------------------ */

/* After an edit (or its refusal): a refused edit shows why and leaves everything as it was. */
gboolean win_edited(PtWindow *self, gboolean ok, const pt_error *err)
{
    if (!ok) {
        show_error(self, err->msg[0] ? err->msg : "the edit was refused");
        win_update_title_and_actions(self);
        win_rebuild_form(self); /* the form shows the model's values again */
        return FALSE;
    }
    /* The selection is kept by id: an sProgram put in place by Auto-schedule has its own
     * sTask-graph (other tiles and warpgroups renumber the sTasks); an sTask that is gone is
     * no longer selected. */
    char id[PT_STASK_ID_MAX];
    g_strlcpy(id, self->selected_id, sizeof id);
    int sel = self->selected;
    show_error(self, NULL);
    self->status_prev_ns = self->status.kernel_ns; /* the status shows the edit's change */
    self->keep_view = TRUE; /* an edit keeps the user's zoom and pan */
    show_model(self);
    self->keep_view = FALSE;
    if (id[0])
        sel = self->model->have_sg ? pt_stask_find(&self->model->sg, id) : -1;
    if (sel >= 0 && sel < self->model->sg.n)
        pt_window_select_stask(self, sel);
    else if (id[0])
        pt_window_select_stask(self, -1);
    return TRUE;
}

void pt_window_refresh(PtWindow *self)
{
    pt_error err = {{0}};
    win_edited(self, TRUE, &err);
}

pt_explorer_model *pt_window_get_model(PtWindow *self)
{
    return self->model;
}

int pt_window_get_selected(PtWindow *self)
{
    return self->selected;
}

GtkWidget *pt_window_get_timeline(PtWindow *self)
{
    return self->timeline;
}

static int find_stask(PtWindow *self, const char *id, pt_error *err)
{
    int i = self->model->have_sg ? pt_stask_find(&self->model->sg, id) : -1;
    if (i < 0)
        pt_fail(err, "no sTask '%s'", id);
    return i;
}

static void action_append(GSimpleAction *a, GVariant *p, gpointer data)
{
    PtWindow *self = data;
    (void)a;
    const char *lane_name;
    gint32 pos;
    g_variant_get(p, "(&si)", &lane_name, &pos);
    pt_error err = {{0}};
    int lane = self->model->have_prog ? pt_sprogram_find_lane(&self->model->prog, lane_name) : -1;
    gboolean ok = lane >= 0 ? pt_explorer_model_append(self->model, self->selected, lane, pos, &err)
                            : pt_fail(&err, "Append: no lane '%s'", lane_name);
    win_edited(self, ok, &err);
}

static void action_wait(GSimpleAction *a, GVariant *p, gpointer data, gboolean add)
{
    PtWindow *self = data;
    (void)a;
    const char *on_id;
    gint32 dist;
    g_variant_get(p, "(&si)", &on_id, &dist);
    pt_error err = {{0}};
    int on = find_stask(self, on_id, &err);
    gboolean ok = FALSE;
    if (on >= 0)
        ok = add ? pt_explorer_model_wait_add(self->model, self->selected, on, dist, &err)
                 : pt_explorer_model_wait_remove(self->model, self->selected, on, dist, &err);
    win_edited(self, ok, &err);
}

static void action_wait_add(GSimpleAction *a, GVariant *p, gpointer data)
{
    action_wait(a, p, data, TRUE);
}

static void action_wait_remove(GSimpleAction *a, GVariant *p, gpointer data)
{
    action_wait(a, p, data, FALSE);
}

static void action_stages(GSimpleAction *a, GVariant *p, gpointer data)
{
    PtWindow *self = data;
    (void)a;
    const char *tensor;
    gint32 n;
    g_variant_get(p, "(&si)", &tensor, &n);
    pt_error err = {{0}};
    win_edited(self, pt_explorer_model_set_stages(self->model, tensor, n, &err), &err);
}

static void action_stream_k(GSimpleAction *a, GVariant *p, gpointer data)
{
    PtWindow *self = data;
    (void)a;
    pt_error err = {{0}};
    win_edited(self, pt_explorer_model_set_stream_k(self->model, g_variant_get_int32(p), &err),
               &err);
}

static void action_run(GSimpleAction *a, GVariant *p, gpointer data)
{
    PtWindow *self = data;
    (void)a;
    pt_error err = {{0}};
    win_edited(self, pt_explorer_model_set_run(self->model, g_variant_get_int32(p), &err), &err);
}

static void action_split_k(GSimpleAction *a, GVariant *p, gpointer data)
{
    PtWindow *self = data;
    (void)a;
    pt_error err = {{0}};
    win_edited(self, pt_explorer_model_set_split_k(self->model, g_variant_get_int32(p), &err),
               &err);
}

static void action_decay(GSimpleAction *a, GVariant *p, gpointer data)
{
    PtWindow *self = data;
    (void)a;
    pt_error err = {{0}};
    pt_decay_form form;
    if (!pt_decay_form_parse(g_variant_get_string(p, NULL), &form)) {
        pt_fail(&err, "decay \"%s\": expected tile or factored", g_variant_get_string(p, NULL));
        win_edited(self, false, &err);
        return;
    }
    win_edited(self, pt_explorer_model_set_decay(self->model, form, &err), &err);
}

static void action_release(GSimpleAction *a, GVariant *p, gpointer data)
{
    PtWindow *self = data;
    (void)a;
    pt_error err = {{0}};
    pt_release_form form;
    if (!pt_release_form_parse(g_variant_get_string(p, NULL), &form)) {
        pt_fail(&err, "release \"%s\": expected group or fence", g_variant_get_string(p, NULL));
        win_edited(self, false, &err);
        return;
    }
    win_edited(self, pt_explorer_model_set_release(self->model, form, &err), &err);
}

static void action_split_cluster(GSimpleAction *a, GVariant *p, gpointer data)
{
    PtWindow *self = data;
    (void)a;
    pt_error err = {{0}};
    win_edited(self,
               pt_explorer_model_set_split_cluster(self->model, g_variant_get_boolean(p), &err),
               &err);
}

static void action_offset(GSimpleAction *a, GVariant *p, gpointer data)
{
    PtWindow *self = data;
    (void)a;
    const char *id;
    gint32 offset;
    g_variant_get(p, "(&si)", &id, &offset);
    pt_error err = {{0}};
    int s = find_stask(self, id, &err);
    win_edited(self, s >= 0 && pt_explorer_model_set_offset(self->model, s, offset, &err), &err);
}

static void action_tile(GSimpleAction *a, GVariant *p, gpointer data)
{
    PtWindow *self = data;
    (void)a;
    pt_error err = {{0}};
    win_edited(self, pt_explorer_model_retile(self->model, g_variant_get_string(p, NULL), &err),
               &err);
}

static void action_undo(GSimpleAction *a, GVariant *p, gpointer data)
{
    PtWindow *self = data;
    (void)a, (void)p;
    pt_error err = {{0}};
    win_edited(self, pt_explorer_model_undo(self->model, &err), &err);
}

static void action_redo(GSimpleAction *a, GVariant *p, gpointer data)
{
    PtWindow *self = data;
    (void)a, (void)p;
    pt_error err = {{0}};
    win_edited(self, pt_explorer_model_redo(self->model, &err), &err);
}

/* ---- view toggles -------------------------------------------------------------------- */

static void action_toggle(GSimpleAction *a, GVariant *state, gpointer data)
{
    PtWindow *self = data;
    const char *name = g_action_get_name(G_ACTION(a));
    gboolean on = g_variant_get_boolean(state);
    g_simple_action_set_state(a, state);
    if (g_str_equal(name, "show-critical")) {
        pt_timeline_view_set_show_critical(PT_TIMELINE_VIEW(self->timeline), on);
    } else if (g_str_equal(name, "show-ctas")) {
        self->show_ctas = on;
        if (self->model->have_tl) {
            int sel = self->selected;
            win_refresh_timeline(self); /* fits: the groups change the time extent */
            pt_timeline_view_set_selected(PT_TIMELINE_VIEW(self->timeline), sel);
        }
    } else if (g_str_equal(name, "show-sidebar")) {
        gtk_widget_set_visible(self->sidebar, on);
    } else if (g_str_equal(name, "unroll-loop")) {
        pt_graph_view_set_unroll(PT_GRAPH_VIEW(self->graph),
                                 on ? PT_GRAPH_VIEW_DEFAULT_UNROLL : 1);
    }
}

/* ---- header bar actions -------------------------------------------------------------- */

static void on_chooser_response(GtkNativeDialog *d, int response, gpointer data)
{
    PtWindow *self = data;
    if (response == GTK_RESPONSE_ACCEPT) {
        GFile *f = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(d));
        char *path = f ? g_file_get_path(f) : NULL;
        if (path)
            pt_window_request_open(self, path);
        else
            show_error(self, "the chosen file has no local path");
        g_free(path);
        if (f)
            g_object_unref(f);
    }
    gtk_native_dialog_destroy(d);
    g_object_unref(d);
}

static void action_open(GSimpleAction *a, GVariant *p, gpointer data)
{
    PtWindow *self = data;
    (void)a, (void)p;
    GtkFileChooserNative *fc = gtk_file_chooser_native_new(
        "Open Operator Graph", GTK_WINDOW(self), GTK_FILE_CHOOSER_ACTION_OPEN, "_Open", "_Cancel");
    GtkFileFilter *json = gtk_file_filter_new();
    gtk_file_filter_set_name(json, "Operator graphs (*.json)");
    gtk_file_filter_add_pattern(json, "*.json");
    gtk_file_chooser_add_filter(GTK_FILE_CHOOSER(fc), json);
    g_object_unref(json);
    GtkFileFilter *all = gtk_file_filter_new();
    gtk_file_filter_set_name(all, "All files");
    gtk_file_filter_add_pattern(all, "*");
    gtk_file_chooser_add_filter(GTK_FILE_CHOOSER(fc), all);
    g_object_unref(all);
    g_signal_connect(fc, "response", G_CALLBACK(on_chooser_response), self);
    gtk_native_dialog_show(GTK_NATIVE_DIALOG(fc));
}

static void action_fit(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a, (void)p;
    PtWindow *self = PT_WINDOW(data);
    /* Ctrl+0 fits the page in view. */
    const char *page = gtk_stack_get_visible_child_name(GTK_STACK(self->views));
    if (page && strcmp(page, "graph") == 0)
        pt_graph_view_fit(PT_GRAPH_VIEW(self->graph));
    else
        pt_timeline_view_fit(PT_TIMELINE_VIEW(self->timeline));
}

static void action_examples(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a, (void)p;
    gtk_stack_set_visible_child_name(GTK_STACK(PT_WINDOW(data)->stack), "start");
}

/* ---- construction ---------------------------------------------------------------------- */

static void pt_window_dispose(GObject *o)
{
    PtWindow *self = PT_WINDOW(o);
    if (self->timeline)
        pt_timeline_view_set_model(PT_TIMELINE_VIEW(self->timeline), NULL);
    if (self->graph)
        pt_graph_view_set_graph(PT_GRAPH_VIEW(self->graph), NULL);
    self->form_box = NULL; /* a pending rebuild finds nothing to fill */
    win_autosave_dispose(self);
    G_OBJECT_CLASS(pt_window_parent_class)->dispose(o);
}

static void pt_window_finalize(GObject *o)
{
    PtWindow *self = PT_WINDOW(o);
    win_extras_clear(self);
    g_clear_object(&self->bar_menu);
    g_clear_object(&self->recent_menu);
    if (self->tile_entries)
        g_ptr_array_free(self->tile_entries, TRUE);
    g_free(self->pending_open);
    pt_alignment_free(&self->cmp);
    g_clear_object(&self->cmp_rows);
    win_diff_clear(self);
    g_clear_object(&self->diff_rows);
    pt_explorer_model_free(self->model);
    g_free(self->labels);
    g_free(self->stask_seu);
    g_free(self->error);
    g_free(self->recovery_text);
    G_OBJECT_CLASS(pt_window_parent_class)->finalize(o);
}

static void pt_window_class_init(PtWindowClass *klass)
{
    G_OBJECT_CLASS(klass)->dispose = pt_window_dispose;
    G_OBJECT_CLASS(klass)->finalize = pt_window_finalize;
}

static const GActionEntry win_actions[] = {
    {"open", action_open, NULL, NULL, NULL, {0}},
    {"fit", action_fit, NULL, NULL, NULL, {0}},
    {"examples", action_examples, NULL, NULL, NULL, {0}},
    {"append", action_append, "(si)", NULL, NULL, {0}},
    {"wait-add", action_wait_add, "(si)", NULL, NULL, {0}},
    {"wait-remove", action_wait_remove, "(si)", NULL, NULL, {0}},
    {"stages", action_stages, "(si)", NULL, NULL, {0}},
    {"split-k", action_split_k, "i", NULL, NULL, {0}},
    {"split-cluster", action_split_cluster, "b", NULL, NULL, {0}},
    {"decay", action_decay, "s", NULL, NULL, {0}},
    {"release", action_release, "s", NULL, NULL, {0}},
    {"stream-k", action_stream_k, "i", NULL, NULL, {0}},
    {"run", action_run, "i", NULL, NULL, {0}},
    {"offset", action_offset, "(si)", NULL, NULL, {0}},
    {"tile", action_tile, "s", NULL, NULL, {0}},
    {"undo", action_undo, NULL, NULL, NULL, {0}},
    {"redo", action_redo, NULL, NULL, NULL, {0}},
    {"save", win_action_save, NULL, NULL, NULL, {0}},
    {"save-as", win_action_save_as, NULL, NULL, NULL, {0}},
    {"wait-add-dialog", win_action_wait_add_dialog, NULL, NULL, NULL, {0}},
    {"wait-remove-last", win_action_wait_remove_last, NULL, NULL, NULL, {0}},
    {"open-recent", win_action_open_recent, "s", NULL, NULL, {0}},
    {"recover-autosave", win_action_recover_autosave, NULL, NULL, NULL, {0}},
    {"discard-autosave", win_action_discard_autosave, NULL, NULL, NULL, {0}},
    {"show-critical", NULL, NULL, "true", action_toggle, {0}},
    {"show-ctas", NULL, NULL, "false", action_toggle, {0}},
    {"unroll-loop", NULL, NULL, "false", action_toggle, {0}},
    {"timeline-search", win_action_timeline_search, NULL, NULL, NULL, {0}},
    {"show-sidebar", NULL, NULL, "true", action_toggle, {0}},
    {"clear-selection", win_action_clear_selection, NULL, NULL, NULL, {0}},
    {"zoom-range", win_action_zoom_range, NULL, NULL, NULL, {0}},
    {"clear-range", win_action_clear_range, NULL, NULL, NULL, {0}},
    {"compare-with", win_action_compare_with, NULL, NULL, NULL, {0}},
    {"stop-comparing", win_action_stop_comparing, NULL, NULL, NULL, {0}},
};

static void pt_window_init(PtWindow *self)
{
    self->model = pt_explorer_model_new();
    if (!self->model)
        g_error("out of memory");
    g_strlcpy(self->hw_name, "H200", sizeof self->hw_name);
    g_action_map_add_action_entries(G_ACTION_MAP(self), win_actions, G_N_ELEMENTS(win_actions),
                                    self);
    self->selected = -1;
    self->tile_entries = g_ptr_array_new();
    self->recent_menu = g_menu_new();
    g_signal_connect(self, "close-request", G_CALLBACK(win_on_close_request), NULL);
    /* Files dropped on the window open like Open does (asking first about unsaved edits). */
    GtkDropTarget *drop = gtk_drop_target_new(GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
    g_signal_connect(drop, "drop", G_CALLBACK(win_on_drop), self);
    gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(drop));
    gtk_window_set_title(GTK_WINDOW(self), "PipeThreader");
    gtk_window_set_default_size(GTK_WINDOW(self), 1400, 860);

    GtkWidget *header = gtk_header_bar_new();
    GtkWidget *open = gtk_button_new_with_mnemonic("_Open");
    gtk_widget_set_tooltip_text(open, "Open an operator graph (Ctrl+O)");
    gtk_actionable_set_action_name(GTK_ACTIONABLE(open), "win.open");
    gtk_header_bar_pack_start(GTK_HEADER_BAR(header), open);
    self->hw_dropdown = gtk_drop_down_new_from_strings(win_hw_names);
    gtk_drop_down_set_selected(GTK_DROP_DOWN(self->hw_dropdown), 1);
    self->hw_index = 1;
    gtk_widget_set_tooltip_text(self->hw_dropdown, "Hardware model");
    gtk_accessible_update_property(GTK_ACCESSIBLE(self->hw_dropdown),
                                   GTK_ACCESSIBLE_PROPERTY_LABEL, "Hardware model", -1);
    g_signal_connect(self->hw_dropdown, "notify::selected", G_CALLBACK(win_on_hw_changed), self);
    gtk_header_bar_pack_start(GTK_HEADER_BAR(header), self->hw_dropdown);

    GMenu *menu = g_menu_new();
    GMenu *sec1 = g_menu_new();
    g_menu_append(sec1, "_Examples", "win.examples");
    g_menu_append_submenu(sec1, "Open _Recent", G_MENU_MODEL(self->recent_menu));
    g_menu_append(sec1, "_Save", "win.save");
    g_menu_append(sec1, "Save _As…", "win.save-as");
    g_menu_append(sec1, "Co_mpare With…", "win.compare-with");
    g_menu_append(sec1, "Stop Comparin_g", "win.stop-comparing");
    g_menu_append(sec1, "_Undo", "win.undo");
    g_menu_append(sec1, "_Redo", "win.redo");
    g_menu_append(sec1, "_Fit Timeline", "win.fit");
    g_menu_append(sec1, "Show Critical _Path", "win.show-critical");
    g_menu_append(sec1, "Show Several _CTAs", "win.show-ctas");
    g_menu_append(sec1, "Unroll _Loop (sTask-graph)", "win.unroll-loop");
    g_menu_append_section(menu, NULL, G_MENU_MODEL(sec1));
    GMenuModel *actions_section = pt_actions_menu();
    g_menu_append_section(menu, "Actions", actions_section);
    g_object_unref(actions_section);
    GMenu *sec2 = g_menu_new();
    g_menu_append(sec2, "_Keyboard Shortcuts", "win.show-help-overlay");
    g_menu_append(sec2, "_About PipeThreader", "app.about");
    g_menu_append(sec2, "_Quit", "app.quit");
    g_menu_append_section(menu, NULL, G_MENU_MODEL(sec2));
    GtkWidget *menu_button = gtk_menu_button_new();
    gtk_menu_button_set_icon_name(GTK_MENU_BUTTON(menu_button), "open-menu-symbolic");
    gtk_menu_button_set_menu_model(GTK_MENU_BUTTON(menu_button), G_MENU_MODEL(menu));
    gtk_widget_set_tooltip_text(menu_button, "Main menu");
    gtk_accessible_update_property(GTK_ACCESSIBLE(menu_button), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   "Main menu", -1);
    gtk_header_bar_pack_end(GTK_HEADER_BAR(header), menu_button);
    GtkWidget *side_toggle = gtk_toggle_button_new();
    gtk_button_set_icon_name(GTK_BUTTON(side_toggle), "sidebar-show-right-symbolic");
    gtk_actionable_set_action_name(GTK_ACTIONABLE(side_toggle), "win.show-sidebar");
    gtk_widget_set_tooltip_text(side_toggle, "Show the sTask table and inspector (F9)");
    gtk_accessible_update_property(GTK_ACCESSIBLE(side_toggle), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   "Sidebar", -1);
    gtk_header_bar_pack_end(GTK_HEADER_BAR(header), side_toggle);
    g_object_unref(sec1);
    g_object_unref(sec2);
    g_object_unref(menu);
    pt_actions_install(self, GTK_HEADER_BAR(header)); /* before the pages: it makes "code" */
    gtk_window_set_titlebar(GTK_WINDOW(self), header);

    win_install_help_overlay(self);
    /* The window's own keys (they work in every build of it, tests included): Ctrl+F finds on
     * the timeline, Esc clears the selection. */
    GtkEventController *keys = gtk_shortcut_controller_new();
    static const struct { const char *trigger, *action; } win_keys[] = {
        {"<Control>f", "win.timeline-search"},
        {"Escape", "win.clear-selection"},
        {"F9", "win.show-sidebar"},
    };
    for (guint i = 0; i < G_N_ELEMENTS(win_keys); i++)
        gtk_shortcut_controller_add_shortcut(GTK_SHORTCUT_CONTROLLER(keys),
            gtk_shortcut_new(gtk_shortcut_trigger_parse_string(win_keys[i].trigger),
                             gtk_named_action_new(win_keys[i].action)));
    gtk_widget_add_controller(GTK_WIDGET(self), keys);

    GtkWidget *vbox = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    self->banner = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
    gtk_widget_add_css_class(self->banner, "pt-error-banner");
    GtkWidget *icon = gtk_image_new_from_icon_name("dialog-error-symbolic");
    gtk_box_append(GTK_BOX(self->banner), icon);
    self->banner_label = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(self->banner_label), 0);
    gtk_label_set_wrap(GTK_LABEL(self->banner_label), TRUE);
    gtk_label_set_wrap_mode(GTK_LABEL(self->banner_label), PANGO_WRAP_WORD_CHAR);
    gtk_widget_set_hexpand(self->banner_label, TRUE);
    gtk_box_append(GTK_BOX(self->banner), self->banner_label);
    GtkWidget *close = gtk_button_new_from_icon_name("window-close-symbolic");
    gtk_widget_add_css_class(close, "flat");
    gtk_widget_set_tooltip_text(close, "Dismiss");
    g_signal_connect(close, "clicked", G_CALLBACK(on_banner_close), self);
    gtk_box_append(GTK_BOX(self->banner), close);
    gtk_widget_set_visible(self->banner, FALSE);
    gtk_accessible_update_property(GTK_ACCESSIBLE(self->banner), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   "Error", -1);
    gtk_box_append(GTK_BOX(vbox), self->banner);
    gtk_box_append(GTK_BOX(vbox), win_build_recovery_bar(self));

    self->stack = gtk_stack_new();
    gtk_stack_add_named(GTK_STACK(self->stack), win_build_start_page(self), "start");
    gtk_stack_add_named(GTK_STACK(self->stack), win_build_main_page(self), "main");
    gtk_stack_set_visible_child_name(GTK_STACK(self->stack), "start");
    gtk_widget_set_vexpand(self->stack, TRUE);
    self->view_switcher = gtk_stack_switcher_new();
    gtk_stack_switcher_set_stack(GTK_STACK_SWITCHER(self->view_switcher), GTK_STACK(self->views));
    gtk_widget_set_visible(self->view_switcher, FALSE); /* until something is loaded */
    gtk_header_bar_set_title_widget(GTK_HEADER_BAR(header), self->view_switcher);
    gtk_box_append(GTK_BOX(vbox), self->stack);
    gtk_window_set_child(GTK_WINDOW(self), vbox);
    win_update_inspector(self, -1);
    win_update_title_and_actions(self);
    g_signal_connect_object(gtk_recent_manager_get_default(), "changed",
                            G_CALLBACK(win_on_recent_changed), self, 0);
    win_rebuild_recent(self);
}

PtWindow *pt_window_new(GtkApplication *app, const char *hw_name)
{
    PtWindow *self = g_object_new(PT_TYPE_WINDOW, "application", app, NULL);
    if (hw_name) {
        guint index = HW_CUSTOM; /* a file given on the command line */
        for (guint i = 0; i < HW_CUSTOM; i++)
            if (g_str_equal(win_hw_names[i], hw_name))
                index = i;
        g_strlcpy(self->hw_name, hw_name, sizeof self->hw_name);
        self->hw_index = index;
        self->hw_reverting = TRUE;
        gtk_drop_down_set_selected(GTK_DROP_DOWN(self->hw_dropdown), index);
        self->hw_reverting = FALSE;
    }
    return self;
}
