/* window.c — PtWindow (see window.h). */
#include "window.h"

#include <math.h>
#include <stdlib.h>

#include "actions.h"
#include "critical_path.h"
#include "embedded.h"
#include "explorer_model.h"
#include "graph_view.h"
#include "timeline_view.h"
#include "unsaved.h"

static const char *const hw_names[] = {"H100", "H200", "MI300X", "Custom JSON…", NULL};
#define HW_CUSTOM 3 /* index of the entry that asks for a hardware-model file */

/* Lane groups shown at most in the several-CTA view. */
#define PT_WINDOW_MAX_CTAS 8

enum { COL_ID, COL_KIND, COL_SEU, COL_REGION, COL_TILE, COL_BYTES, COL_FLOPS, N_COLS };
static const char *const col_titles[N_COLS] = {"sTask", "Kind", "sEU", "Region", "Tile",
                                               "Bytes", "Flops"};

struct _PtWindow {
    GtkApplicationWindow parent_instance;
    pt_explorer_model *model;
    char hw_name[1024];     /* builtin model name or a hardware-model JSON file */
    guint hw_index;         /* the drop-down entry in use (restored when a switch fails) */
    gboolean hw_reverting;
    const char **labels;       /* sTask ids, borrowed from model->sg */
    pt_seu_kind *stask_seu;
    char *error;               /* banner text, NULL when hidden */

    GtkWidget *view_hint, *view_bar;  /* the timeline/graph hint and toggles: not for Code */
    GtkWidget *offset_spin;            /* the selected sTask's iteration offset, or NULL */
    GtkWidget *stack, *banner, *banner_label, *summary, *timeline, *hw_dropdown;
    GtkWidget *views, *view_switcher, *graph; /* Timeline / Graph pages */
    GtkWidget *search, *inspector, *column_view;
    GtkStringList *rows;       /* one item per sTask: its index as text */
    GtkCustomFilter *filter;
    GtkSingleSelection *selection;
    gboolean syncing;
    int selected;              /* selected sTask, -1: none */
    gboolean closing;          /* the unsaved-changes prompt answered: really close */

    /* What the timeline draws besides the spans (rebuilt with the model). */
    pt_span_deps deps;
    int64_t n_critical, *critical;
    char *group_labels[PT_TL_MAX_GROUPS];
    gboolean show_ctas;        /* several CTAs / waves as lane groups */
    GMenu *bar_menu;           /* the timeline bars' context menu */
    GMenu *recent_menu;        /* primary menu: Recent */
    GtkWidget *recent_list;    /* start page: recent files */
    GtkWidget *form_box;       /* inspector: tile entries and stages spin buttons */
    GPtrArray *tile_entries;   /* GtkEntry per graph axis, then the warpgroups one */
    GtkWidget *cta_toggle, *unroll_toggle;
    char *pending_open;        /* a file to open once the unsaved-changes prompt is answered */
};

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

static int item_stask(gpointer item)
{
    if (!item)
        return -1;
    return atoi(gtk_string_object_get_string(GTK_STRING_OBJECT(item)));
}

static char *cell_text(PtWindow *self, int i, int col)
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

static void cell_setup(GtkSignalListItemFactory *f, GtkListItem *li, gpointer data)
{
    (void)f;
    GtkWidget *label = gtk_label_new(NULL);
    int col = GPOINTER_TO_INT(data);
    gtk_label_set_xalign(GTK_LABEL(label), col >= COL_BYTES ? 1.0f : 0.0f);
    if (col == COL_ID)
        gtk_label_set_ellipsize(GTK_LABEL(label), PANGO_ELLIPSIZE_END);
    gtk_list_item_set_child(li, label);
}

static void cell_bind(GtkSignalListItemFactory *f, GtkListItem *li, gpointer data)
{
    PtWindow *self = g_object_get_data(G_OBJECT(f), "pt-window");
    char *text = cell_text(self, item_stask(gtk_list_item_get_item(li)), GPOINTER_TO_INT(data));
    gtk_label_set_text(GTK_LABEL(gtk_list_item_get_child(li)), text);
    g_free(text);
}

static gboolean filter_match(gpointer item, gpointer data)
{
    PtWindow *self = data;
    const char *q = gtk_editable_get_text(GTK_EDITABLE(self->search));
    if (!q || !*q)
        return TRUE;
    int i = item_stask(item);
    if (!self->model->have_sg || i < 0 || i >= self->model->sg.n)
        return FALSE;
    const pt_stask *t = &self->model->sg.tasks[i];
    char *needle = g_utf8_casefold(q, -1);
    char *hay = g_strdup_printf("%s %s %s %s %s", t->id, pt_stask_kind_name(t->kind),
                                pt_seu_name(t->seu), pt_region_name(t->region), t->expr);
    char *fold = g_utf8_casefold(hay, -1);
    gboolean ok = strstr(fold, needle) != NULL;
    g_free(needle);
    g_free(hay);
    g_free(fold);
    return ok;
}

static void on_search_changed(GtkSearchEntry *e, gpointer data)
{
    PtWindow *self = data;
    (void)e;
    gtk_filter_changed(GTK_FILTER(self->filter), GTK_FILTER_CHANGE_DIFFERENT);
}

/* ---- inspector --------------------------------------------------------------------------- */

static void rebuild_bar_menu(PtWindow *self);

static void update_inspector(PtWindow *self, int i)
{
    const pt_explorer_model *m = self->model;
    if (!m->have_sg || i < 0 || i >= m->sg.n) {
        gtk_label_set_text(GTK_LABEL(self->inspector),
                           "Select an sTask in the table or click a bar in the timeline.");
        rebuild_bar_menu(self);
        return;
    }
    const pt_stask *t = &m->sg.tasks[i];
    GString *s = g_string_new(NULL);
    char *tile = cell_text(self, i, COL_TILE);
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
    int lane, pos;
    if (m->have_prog && pt_sprogram_placement(&m->prog, i, &lane, &pos))
        g_string_append_printf(s, "\nplaced on %s, position %d", m->prog.lanes[lane].name, pos);
    int64_t n = 0;
    double mean = pt_explorer_model_mean_ns(m, i, &n);
    if (n)
        g_string_append_printf(s, "\npredicted: %" G_GINT64_FORMAT " instances, mean %.1f ns",
                               (gint64)n, mean);
    else
        g_string_append(s, "\npredicted: no instances");
    if (m->have_measured) {
        double mm = m->stask_measured_ns ? m->stask_measured_ns[i] : NAN;
        double e = m->stask_error_pct ? m->stask_error_pct[i] : NAN;
        if (isfinite(mm))
            g_string_append_printf(s, "\nmeasured: mean %.1f ns (all sampled CTAs)", mm);
        else
            g_string_append(s, "\nmeasured: no instances");
        if (isfinite(e))
            g_string_append_printf(s, "\nprediction error: %+.1f%% (predicted vs measured mean)", e);
    }
    int64_t on_crit = 0;
    for (int64_t k = 0; k < self->n_critical; k++)
        on_crit += m->tl.spans[self->critical[k]].stask == i;
    if (on_crit)
        g_string_append_printf(s, "\ncritical path: %" G_GINT64_FORMAT " of its instances",
                               (gint64)on_crit);
    gtk_label_set_text(GTK_LABEL(self->inspector), s->str);
    g_string_free(s, TRUE);
    rebuild_bar_menu(self);
}

static void rebuild_form(PtWindow *self);

void pt_window_select_stask(PtWindow *self, int stask)
{
    if (self->syncing)
        return;
    self->syncing = TRUE;
    self->selected = stask;
    rebuild_form(self); /* its offset row follows the selection */
    pt_timeline_view_set_selected(PT_TIMELINE_VIEW(self->timeline), stask);
    pt_graph_view_set_selected(PT_GRAPH_VIEW(self->graph), stask);
    update_inspector(self, stask);
    pt_actions_stask_selected(self, stask);
    GListModel *lm = G_LIST_MODEL(self->selection);
    guint found = GTK_INVALID_LIST_POSITION;
    for (int pass = 0; stask >= 0 && pass < 2 && found == GTK_INVALID_LIST_POSITION; pass++) {
        if (pass == 1) /* filtered out: clear the search so it can be shown */
            gtk_editable_set_text(GTK_EDITABLE(self->search), "");
        guint n = g_list_model_get_n_items(lm);
        for (guint p = 0; p < n; p++) {
            gpointer item = g_list_model_get_item(lm, p);
            int s = item_stask(item);
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

static void on_selection_changed(GObject *o, GParamSpec *ps, gpointer data)
{
    PtWindow *self = data;
    (void)ps;
    if (self->syncing)
        return;
    int i = item_stask(gtk_single_selection_get_selected_item(GTK_SINGLE_SELECTION(o)));
    self->syncing = TRUE;
    self->selected = i;
    pt_timeline_view_set_selected(PT_TIMELINE_VIEW(self->timeline), i);
    pt_graph_view_set_selected(PT_GRAPH_VIEW(self->graph), i);
    update_inspector(self, i);
    pt_actions_stask_selected(self, i);
    self->syncing = FALSE;
}

static void on_timeline_selected(PtTimelineView *v, int stask, gpointer data)
{
    (void)v;
    pt_window_select_stask(PT_WINDOW(data), stask);
}

static void on_graph_selected(PtGraphView *v, int stask, gpointer data)
{
    (void)v;
    pt_window_select_stask(PT_WINDOW(data), stask);
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

char *pt_window_dup_summary(PtWindow *self)
{
    const pt_explorer_model *m = self->model;
    if (!m->have_tl)
        return NULL;
    if (m->have_measured) {
        GString *s = g_string_new(NULL);
        g_string_append_printf(s, "%s on %s — %d sTasks, %d lanes; one EU %.2f µs for %"
                               G_GINT64_FORMAT " iterations; kernel %.2f µs (%.0f TFLOP/s)",
                               m->graph.name, m->hw.name, m->sg.n, m->prog.n_lanes,
                               m->tl.eu_time_ns / 1000.0, (gint64)m->tl.eu_iterations,
                               m->tl.kernel_time_ns / 1000.0, m->tl.tflops);
        if (isfinite(m->measured_kernel_ns))
            g_string_append_printf(s, "; measured kernel %.2f µs", m->measured_kernel_ns / 1000.0);
        if (isfinite(m->kernel_error_pct))
            g_string_append_printf(s, " (prediction error %+.1f%%)", m->kernel_error_pct);
        g_string_append_printf(s, "; measured bars: CTA %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                               " spans", (gint64)m->measured_block, (gint64)m->n_measured);
        if (m->n_measured_ctas > 1)
            g_string_append_printf(s, " (%d CTAs sampled: Several CTAs shows them)",
                                   m->n_measured_ctas);
        if (m->trace_iterations > 0 && m->trace_iterations != m->tl.eu_iterations)
            g_string_append_printf(s, " (note: the trace ran %" G_GINT64_FORMAT " iterations per "
                                   "EU, the example's shape %" G_GINT64_FORMAT ")",
                                   (gint64)m->trace_iterations, (gint64)m->tl.eu_iterations);
        return g_string_free(s, FALSE);
    }
    return g_strdup_printf("%s on %s — %d sTasks, %d lanes; one EU %.2f µs for %" G_GINT64_FORMAT
                           " iterations; kernel %.2f µs (%.0f TFLOP/s, %" G_GINT64_FORMAT
                           " tiles, %" G_GINT64_FORMAT " waves)",
                           m->graph.name, m->hw.name, m->sg.n, m->prog.n_lanes,
                           m->tl.eu_time_ns / 1000.0, (gint64)m->tl.eu_iterations,
                           m->tl.kernel_time_ns / 1000.0, m->tl.tflops, (gint64)m->tl.tiles,
                           (gint64)m->tl.waves);
}

static void enable(PtWindow *self, const char *name, gboolean on)
{
    GAction *a = g_action_map_lookup_action(G_ACTION_MAP(self), name);
    if (a)
        g_simple_action_set_enabled(G_SIMPLE_ACTION(a), on);
}

static void update_title_and_actions(PtWindow *self)
{
    const pt_explorer_model *m = self->model;
    gboolean loaded = m->have_prog;
    char *title = loaded ? g_strdup_printf("%s%s — PipeThreader", m->dirty ? "• " : "", m->title)
                         : g_strdup("PipeThreader");
    gtk_window_set_title(GTK_WINDOW(self), title);
    g_free(title);
    enable(self, "undo", pt_explorer_model_can_undo(m));
    enable(self, "redo", pt_explorer_model_can_redo(m));
    static const char *const edits[] = {"append", "wait-add", "wait-remove", "stages", "tile",
                                        "save", "save-as", "wait-add-dialog", "wait-remove-last",
                                        "show-critical", "show-ctas", "unroll-loop"};
    for (guint i = 0; i < G_N_ELEMENTS(edits); i++)
        enable(self, edits[i], loaded);
}

/* ---- timeline extras: dependencies, critical path, lane groups ---------------------- */

static void extras_clear(PtWindow *self)
{
    pt_span_deps_free(&self->deps);
    g_free(self->critical);
    self->critical = NULL;
    self->n_critical = 0;
    for (int g = 0; g < PT_TL_MAX_GROUPS; g++)
        g_clear_pointer(&self->group_labels[g], g_free);
}

/* Lane groups. Predicted: the tiles one EU runs one after another (waves; a persistent CTA's
 * successive tiles), offset by the simulator's mean wave period (kernel time less launch, over
 * the waves). A trace with several sampled CTAs: one group per CTA with its measured spans, the
 * prediction offset by the wave that CTA ran in. */
static void fill_groups(PtWindow *self, pt_tl_model *tm)
{
    const pt_explorer_model *m = self->model;
    if (!self->show_ctas)
        return;
    int64_t waves = m->tl.waves > 0 ? m->tl.waves : 1;
    double period = (m->tl.kernel_time_ns - m->hw.launch_ns) / (double)waves;
    if (!(period > 0))
        period = m->tl.eu_time_ns;
    int64_t eus = m->hw.eu_count > 0 ? m->hw.eu_count : 1;
    bool persistent = m->prog.partition.persistent;
    int n = 0;
    if (m->have_measured && m->n_measured_ctas > 1) {
        n = m->n_measured_ctas < PT_WINDOW_MAX_CTAS ? m->n_measured_ctas : PT_WINDOW_MAX_CTAS;
        for (int g = 0; g < n; g++) {
            int64_t b = m->cta_block[g];
            tm->group_offset_ns[g] = persistent ? 0 : (double)(b / eus) * period;
            self->group_labels[g] = g_strdup_printf("CTA %" G_GINT64_FORMAT, (gint64)b);
            if (g > 0) {
                tm->group_measured[g] = m->cta_measured[g];
                tm->group_n_measured[g] = m->cta_n_measured[g];
            }
        }
    } else {
        n = waves < PT_WINDOW_MAX_CTAS ? (int)waves : PT_WINDOW_MAX_CTAS;
        for (int g = 0; g < n; g++) {
            tm->group_offset_ns[g] = (double)g * period;
            self->group_labels[g] = persistent
                ? g_strdup_printf("CTA 0 tile %d", g)
                : g_strdup_printf("wave %d CTA %" G_GINT64_FORMAT, g, (gint64)(g * eus));
        }
    }
    tm->n_groups = n;
    for (int g = 0; g < n; g++)
        tm->group_labels[g] = self->group_labels[g];
}

static void fill_extras(PtWindow *self, pt_tl_model *tm)
{
    const pt_explorer_model *m = self->model;
    extras_clear(self);
    if (pt_span_deps_build(&self->deps, &m->tl, &m->prog, &m->sg)) {
        tm->deps = &self->deps;
        int64_t n = pt_critical_path(m->tl.spans, m->tl.n_spans, &self->deps, &self->critical);
        self->n_critical = n > 0 ? n : 0;
        tm->n_critical = self->n_critical;
        tm->critical = self->critical;
    }
    if (m->have_measured) {
        tm->stask_error_pct = m->stask_error_pct;
        tm->stask_measured_ns = m->stask_measured_ns;
    }
    fill_groups(self, tm);
}

static void rebuild_bar_menu(PtWindow *self);

/* Give the timeline view the model's spans and everything drawn with them. */
static void refresh_timeline(PtWindow *self)
{
    pt_explorer_model *m = self->model;
    pt_tl_model tm = {0};
    tm.n_lanes = m->prog.n_lanes;
    for (int l = 0; l < m->prog.n_lanes && l < PT_MAX_LANES; l++) {
        tm.lane_names[l] = m->prog.lanes[l].name;
        tm.lane_seu[l] = m->prog.lanes[l].seu;
    }
    tm.n_spans = m->tl.n_spans;
    tm.spans = m->tl.spans;
    tm.n_stasks = m->sg.n;
    tm.stask_labels = self->labels;
    tm.stask_seu = self->stask_seu;
    if (m->have_measured) {
        tm.n_measured = m->n_measured;
        tm.measured = m->measured;
    }
    pt_timeline_view_set_model(PT_TIMELINE_VIEW(self->timeline), NULL); /* before extras go */
    fill_extras(self, &tm);
    pt_timeline_view_set_model(PT_TIMELINE_VIEW(self->timeline), &tm);
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
    refresh_timeline(self);
    rebuild_form(self);
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
    update_inspector(self, -1);
    update_title_and_actions(self);
    pt_actions_model_changed(self);
    gtk_stack_set_visible_child_name(GTK_STACK(self->stack), "main");
    gtk_widget_grab_focus(self->timeline);
}

/* Remember a file (not an embedded example) in the recently used list. */
static void add_recent(const char *path)
{
    if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
        return;
    GFile *f = g_file_new_for_path(path);
    char *uri = g_file_get_uri(f);
    gtk_recent_manager_add_item(gtk_recent_manager_get_default(), uri);
    g_free(uri);
    g_object_unref(f);
}

static void install_model(PtWindow *self, pt_explorer_model *next)
{
    /* The view and table borrow from the model: detach them before freeing the old one. */
    pt_timeline_view_set_model(PT_TIMELINE_VIEW(self->timeline), NULL);
    pt_graph_view_set_graph(PT_GRAPH_VIEW(self->graph), NULL);
    extras_clear(self);
    pt_explorer_model *old = self->model;
    self->model = next;
    pt_explorer_model_free(old);
    show_error(self, NULL);
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
    install_model(self, next);
    add_recent(sprogram);
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
    install_model(self, next);
    add_recent(source);
    return TRUE;
}


/* ---- editing ------------------------------------------------------------------------------ */

/* After an edit (or its refusal): a refused edit shows why and leaves everything as it was. */
static gboolean edited(PtWindow *self, gboolean ok, const pt_error *err)
{
    if (!ok) {
        show_error(self, err->msg[0] ? err->msg : "the edit was refused");
        update_title_and_actions(self);
        rebuild_form(self); /* the form shows the model's values again */
        return FALSE;
    }
    int sel = self->selected;
    show_error(self, NULL);
    show_model(self);
    if (sel >= 0 && sel < self->model->sg.n)
        pt_window_select_stask(self, sel);
    return TRUE;
}

void pt_window_refresh(PtWindow *self)
{
    pt_error err = {{0}};
    edited(self, TRUE, &err);
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
    edited(self, ok, &err);
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
    edited(self, ok, &err);
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
    edited(self, pt_explorer_model_set_stages(self->model, tensor, n, &err), &err);
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
    edited(self, s >= 0 && pt_explorer_model_set_offset(self->model, s, offset, &err), &err);
}

static void action_tile(GSimpleAction *a, GVariant *p, gpointer data)
{
    PtWindow *self = data;
    (void)a;
    pt_error err = {{0}};
    edited(self, pt_explorer_model_retile(self->model, g_variant_get_string(p, NULL), &err),
           &err);
}

static void action_undo(GSimpleAction *a, GVariant *p, gpointer data)
{
    PtWindow *self = data;
    (void)a, (void)p;
    pt_error err = {{0}};
    edited(self, pt_explorer_model_undo(self->model, &err), &err);
}

static void action_redo(GSimpleAction *a, GVariant *p, gpointer data)
{
    PtWindow *self = data;
    (void)a, (void)p;
    pt_error err = {{0}};
    edited(self, pt_explorer_model_redo(self->model, &err), &err);
}

static void on_stask_dropped(PtTimelineView *v, int stask, int lane, double t_ns, gpointer data)
{
    PtWindow *self = data;
    (void)v;
    pt_error err = {{0}};
    int pos = pt_explorer_model_drop_position(self->model, stask, lane, t_ns);
    self->selected = stask;
    edited(self, pt_explorer_model_append(self->model, stask, lane, pos, &err), &err);
}

/* ---- context menu of the timeline bars ------------------------------------------------ */

/* Add Wait…, then one Remove item per Wait of the selected sTask. */
static void rebuild_bar_menu(PtWindow *self)
{
    if (!self->bar_menu)
        return;
    const pt_explorer_model *m = self->model;
    int sel = self->selected;
    g_menu_remove_all(self->bar_menu);
    GMenu *add = g_menu_new();
    g_menu_append(add, "Add _Wait…", "win.wait-add-dialog");
    g_menu_append_section(self->bar_menu, NULL, G_MENU_MODEL(add));
    g_object_unref(add);
    GMenu *rm = g_menu_new();
    int n = 0;
    for (int w = 0; m->have_prog && sel >= 0 && sel < m->sg.n && w < m->prog.n_waits; w++) {
        const pt_wait_entry *we = &m->prog.waits[w];
        if (we->stask != sel || we->on < 0 || we->on >= m->sg.n)
            continue;
        char *label = g_strdup_printf("Remove Wait on %s (distance %d)", m->sg.tasks[we->on].id,
                                      we->distance);
        GMenuItem *it = g_menu_item_new(label, NULL);
        g_menu_item_set_action_and_target_value(it, "win.wait-remove",
            g_variant_new("(si)", m->sg.tasks[we->on].id, we->distance));
        g_menu_append_item(rm, it);
        g_object_unref(it);
        g_free(label);
        n++;
    }
    if (!n)
        g_menu_append(rm, "No Waits to remove", "win.nothing"); /* no such action: greyed */
    g_menu_append_section(self->bar_menu, NULL, G_MENU_MODEL(rm));
    g_object_unref(rm);
}

GMenuModel *pt_window_get_bar_menu(PtWindow *self)
{
    return G_MENU_MODEL(self->bar_menu);
}

static void on_bar_context_menu(PtTimelineView *v, int stask, gpointer data)
{
    (void)v, (void)stask;
    rebuild_bar_menu(PT_WINDOW(data));
}

static void on_wait_dialog_add(GtkButton *b, gpointer data)
{
    GtkWidget *dlg = data;
    PtWindow *self = g_object_get_data(G_OBJECT(dlg), "pt-window");
    GtkWidget *dd = g_object_get_data(G_OBJECT(dlg), "pt-on");
    GtkWidget *spin = g_object_get_data(G_OBJECT(dlg), "pt-distance");
    (void)b;
    GtkStringObject *item = gtk_drop_down_get_selected_item(GTK_DROP_DOWN(dd));
    if (item)
        gtk_widget_activate_action(GTK_WIDGET(self), "win.wait-add", "(si)",
                                   gtk_string_object_get_string(item),
                                   gtk_spin_button_get_value_as_int(GTK_SPIN_BUTTON(spin)));
    gtk_window_destroy(GTK_WINDOW(dlg));
}

static void on_wait_dialog_cancel(GtkButton *b, gpointer data)
{
    (void)b;
    gtk_window_destroy(GTK_WINDOW(data));
}

/* Add Wait…: choose the sTask waited on and the distance (iterations back). */
static void action_wait_add_dialog(GSimpleAction *a, GVariant *p, gpointer data)
{
    PtWindow *self = data;
    (void)a, (void)p;
    const pt_explorer_model *m = self->model;
    if (!m->have_sg || self->selected < 0 || self->selected >= m->sg.n) {
        show_error(self, "Add Wait: no sTask is selected; click a bar or a table row first");
        return;
    }
    GtkStringList *ids = gtk_string_list_new(NULL);
    for (int i = 0; i < m->sg.n; i++)
        if (i != self->selected)
            gtk_string_list_append(ids, m->sg.tasks[i].id);
    GtkWidget *dlg = gtk_window_new();
    char *title = g_strdup_printf("Add Wait to %s", m->sg.tasks[self->selected].id);
    gtk_window_set_title(GTK_WINDOW(dlg), title);
    g_free(title);
    gtk_window_set_transient_for(GTK_WINDOW(dlg), GTK_WINDOW(self));
    gtk_window_set_modal(GTK_WINDOW(dlg), TRUE);
    gtk_window_set_resizable(GTK_WINDOW(dlg), FALSE);
    GtkWidget *grid = gtk_grid_new();
    gtk_grid_set_row_spacing(GTK_GRID(grid), 8);
    gtk_grid_set_column_spacing(GTK_GRID(grid), 8);
    gtk_widget_set_margin_start(grid, 12);
    gtk_widget_set_margin_end(grid, 12);
    gtk_widget_set_margin_top(grid, 12);
    gtk_widget_set_margin_bottom(grid, 12);
    GtkWidget *l1 = gtk_label_new_with_mnemonic("Wait _on");
    GtkWidget *dd = gtk_drop_down_new(G_LIST_MODEL(ids), NULL); /* takes ids */
    gtk_label_set_mnemonic_widget(GTK_LABEL(l1), dd);
    GtkWidget *l2 = gtk_label_new_with_mnemonic("_Distance (iterations back)");
    GtkWidget *spin = gtk_spin_button_new_with_range(0, 8, 1);
    gtk_label_set_mnemonic_widget(GTK_LABEL(l2), spin);
    gtk_grid_attach(GTK_GRID(grid), l1, 0, 0, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), dd, 1, 0, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), l2, 0, 1, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), spin, 1, 1, 1, 1);
    GtkWidget *buttons = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    gtk_widget_set_halign(buttons, GTK_ALIGN_END);
    GtkWidget *cancel = gtk_button_new_with_mnemonic("_Cancel");
    GtkWidget *ok = gtk_button_new_with_mnemonic("_Add Wait");
    gtk_widget_add_css_class(ok, "suggested-action");
    gtk_box_append(GTK_BOX(buttons), cancel);
    gtk_box_append(GTK_BOX(buttons), ok);
    gtk_grid_attach(GTK_GRID(grid), buttons, 0, 2, 2, 1);
    gtk_window_set_child(GTK_WINDOW(dlg), grid);
    gtk_window_set_default_widget(GTK_WINDOW(dlg), ok);
    g_object_set_data(G_OBJECT(dlg), "pt-window", self);
    g_object_set_data(G_OBJECT(dlg), "pt-on", dd);
    g_object_set_data(G_OBJECT(dlg), "pt-distance", spin);
    g_signal_connect(ok, "clicked", G_CALLBACK(on_wait_dialog_add), dlg);
    g_signal_connect(cancel, "clicked", G_CALLBACK(on_wait_dialog_cancel), dlg);
    gtk_window_present(GTK_WINDOW(dlg));
}

/* Remove the most recently added Wait of the selected sTask (the keyboard's quick undo of a
 * Wait; the context menu lists every one). */
static void action_wait_remove_last(GSimpleAction *a, GVariant *p, gpointer data)
{
    PtWindow *self = data;
    (void)a, (void)p;
    const pt_explorer_model *m = self->model;
    pt_error err = {{0}};
    int last = -1;
    for (int w = 0; m->have_prog && w < m->prog.n_waits; w++)
        if (m->prog.waits[w].stask == self->selected)
            last = w;
    if (self->selected < 0 || self->selected >= m->sg.n) {
        pt_fail(&err, "Remove Wait: no sTask is selected; click a bar or a table row first");
        edited(self, FALSE, &err);
        return;
    }
    if (last < 0) {
        pt_fail(&err, "Remove Wait: %s has no Waits", m->sg.tasks[self->selected].id);
        edited(self, FALSE, &err);
        return;
    }
    pt_wait_entry we = m->prog.waits[last];
    edited(self, pt_explorer_model_wait_remove(self->model, we.stask, we.on, we.distance, &err),
           &err);
}

/* ---- inspector form: tile shape and stages ------------------------------------------- */

static void apply_tile_form(PtWindow *self)
{
    const pt_explorer_model *m = self->model;
    if (!m->have_sg || !self->tile_entries)
        return;
    GString *spec = g_string_new(NULL);
    for (guint i = 0; i < self->tile_entries->len; i++) {
        GtkWidget *e = g_ptr_array_index(self->tile_entries, i);
        const char *name = g_object_get_data(G_OBJECT(e), "pt-axis");
        const char *now = g_object_get_data(G_OBJECT(e), "pt-value");
        char *text = g_strstrip(g_strdup(gtk_editable_get_text(GTK_EDITABLE(e))));
        if (g_strcmp0(text, now) != 0) /* only what the user changed: the rest propagates */
            g_string_append_printf(spec, "%s%s=%s", spec->len ? "," : "", name, text);
        g_free(text);
    }
    if (spec->len)
        gtk_widget_activate_action(GTK_WIDGET(self), "win.tile", "s", spec->str);
    g_string_free(spec, TRUE);
}

gboolean pt_window_set_tile_field(PtWindow *self, const char *axis, const char *text)
{
    for (guint i = 0; self->tile_entries && i < self->tile_entries->len; i++) {
        GtkWidget *e = g_ptr_array_index(self->tile_entries, i);
        if (g_strcmp0(g_object_get_data(G_OBJECT(e), "pt-axis"), axis) == 0) {
            gtk_editable_set_text(GTK_EDITABLE(e), text);
            return TRUE;
        }
    }
    return FALSE;
}

void pt_window_apply_tile_form(PtWindow *self)
{
    apply_tile_form(self);
}

static void on_apply_tile(GtkWidget *w, gpointer data)
{
    (void)w;
    apply_tile_form(PT_WINDOW(data));
}

static void on_stages_changed(GtkSpinButton *spin, gpointer data)
{
    PtWindow *self = data;
    const char *tensor = g_object_get_data(G_OBJECT(spin), "pt-tensor");
    gtk_widget_activate_action(GTK_WIDGET(self), "win.stages", "(si)", tensor,
                               gtk_spin_button_get_value_as_int(spin));
}

GtkWidget *pt_window_get_stages_spin(PtWindow *self, const char *tensor)
{
    for (GtkWidget *c = self->form_box ? gtk_widget_get_first_child(self->form_box) : NULL; c;
         c = gtk_widget_get_next_sibling(c))
        for (GtkWidget *k = gtk_widget_get_first_child(c); k; k = gtk_widget_get_next_sibling(k))
            if (GTK_IS_SPIN_BUTTON(k) &&
                g_strcmp0(g_object_get_data(G_OBJECT(k), "pt-tensor"), tensor) == 0)
                return k;
    return NULL;
}

static void on_offset_changed(GtkSpinButton *spin, gpointer data)
{
    PtWindow *self = data;
    const char *id = g_object_get_data(G_OBJECT(spin), "pt-stask");
    gtk_widget_activate_action(GTK_WIDGET(self), "win.offset", "(si)", id,
                               gtk_spin_button_get_value_as_int(spin));
}

GtkWidget *pt_window_get_offset_spin(PtWindow *self)
{
    return self->offset_spin;
}

static GtkWidget *form_label(const char *text)
{
    GtkWidget *l = gtk_label_new(text);
    gtk_label_set_xalign(GTK_LABEL(l), 0);
    return l;
}

static void build_form_now(PtWindow *self)
{
    const pt_explorer_model *m = self->model;
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(self->form_box)))
        gtk_box_remove(GTK_BOX(self->form_box), child);
    g_ptr_array_set_size(self->tile_entries, 0);
    if (!m->have_prog || !m->have_sg)
        return;
    GtkWidget *tile = gtk_grid_new();
    gtk_grid_set_column_spacing(GTK_GRID(tile), 6);
    gtk_grid_set_row_spacing(GTK_GRID(tile), 4);
    gtk_grid_attach(GTK_GRID(tile), form_label("Tile (Propagate)"), 0, 0, 4, 1);
    int col = 0, row = 1;
    for (int a = 0; a <= m->graph.n_axes; a++) {
        bool wg = a == m->graph.n_axes;
        const char *name = wg ? "wg" : m->graph.axes[a].name;
        char *value = g_strdup_printf("%" G_GINT64_FORMAT,
                                      wg ? (gint64)m->sg.tiling.warpgroups
                                         : (gint64)m->sg.tiling.tile[a]);
        GtkWidget *e = gtk_entry_new();
        gtk_editable_set_text(GTK_EDITABLE(e), value);
        gtk_editable_set_width_chars(GTK_EDITABLE(e), 5);
        g_object_set_data_full(G_OBJECT(e), "pt-axis", g_strdup(name), g_free);
        g_object_set_data_full(G_OBJECT(e), "pt-value", value, g_free);
        char *acc = g_strdup_printf("Tile size of axis %s", name);
        gtk_accessible_update_property(GTK_ACCESSIBLE(e), GTK_ACCESSIBLE_PROPERTY_LABEL, acc, -1);
        g_free(acc);
        g_signal_connect(e, "activate", G_CALLBACK(on_apply_tile), self);
        gtk_grid_attach(GTK_GRID(tile), form_label(name), col, row, 1, 1);
        gtk_grid_attach(GTK_GRID(tile), e, col + 1, row, 1, 1);
        g_ptr_array_add(self->tile_entries, e);
        col += 2;
        if (col >= 6) {
            col = 0;
            row++;
        }
    }
    GtkWidget *apply = gtk_button_new_with_mnemonic("Apply _Tile");
    gtk_widget_set_tooltip_text(apply, "Re-tile: Propagate the changed sizes through the graph "
                                       "and re-partition (Enter in a field does the same)");
    g_signal_connect(apply, "clicked", G_CALLBACK(on_apply_tile), self);
    gtk_grid_attach(GTK_GRID(tile), apply, 0, row + 1, 3, 1);
    gtk_box_append(GTK_BOX(self->form_box), tile);

    GtkWidget *stages = gtk_grid_new();
    gtk_grid_set_column_spacing(GTK_GRID(stages), 6);
    gtk_grid_set_row_spacing(GTK_GRID(stages), 4);
    gtk_grid_attach(GTK_GRID(stages), form_label("Stages (buffered tensors)"), 0, 0, 4, 1);
    int k = 0;
    for (int t = 0; t < m->graph.n_tensors && t < PT_MAX_TENSORS; t++) {
        if (m->prog.stages[t] <= 0)
            continue;
        GtkWidget *spin = gtk_spin_button_new_with_range(1, 16, 1);
        gtk_spin_button_set_value(GTK_SPIN_BUTTON(spin), m->prog.stages[t]);
        g_object_set_data_full(G_OBJECT(spin), "pt-tensor", g_strdup(m->graph.tensors[t].name),
                               g_free);
        char *acc = g_strdup_printf("Stages of %s", m->graph.tensors[t].name);
        gtk_accessible_update_property(GTK_ACCESSIBLE(spin), GTK_ACCESSIBLE_PROPERTY_LABEL, acc,
                                       -1);
        g_free(acc);
        g_signal_connect(spin, "value-changed", G_CALLBACK(on_stages_changed), self);
        gtk_grid_attach(GTK_GRID(stages), form_label(m->graph.tensors[t].name), (k % 2) * 2,
                        1 + k / 2, 1, 1);
        gtk_grid_attach(GTK_GRID(stages), spin, (k % 2) * 2 + 1, 1 + k / 2, 1, 1);
        k++;
    }
    if (!k)
        gtk_grid_attach(GTK_GRID(stages), form_label("none"), 0, 1, 1, 1);
    gtk_box_append(GTK_BOX(self->form_box), stages);

    /* The selected sTask's iteration offset (loop-body sTasks): +1 issues the next
     * iteration's instance in this loop step (look-ahead). */
    int sel = self->selected, lane, pos;
    if (sel >= 0 && sel < m->sg.n && m->sg.tasks[sel].region == PT_REGION_BODY &&
        pt_sprogram_placement(&m->prog, sel, &lane, &pos)) {
        GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
        char *text = g_strdup_printf("Iteration offset of %s", m->sg.tasks[sel].id);
        gtk_box_append(GTK_BOX(row), form_label(text));
        GtkWidget *spin = gtk_spin_button_new_with_range(-8, 8, 1);
        gtk_spin_button_set_value(GTK_SPIN_BUTTON(spin), m->prog.lanes[lane].entries[pos].offset);
        gtk_accessible_update_property(GTK_ACCESSIBLE(spin), GTK_ACCESSIBLE_PROPERTY_LABEL, text,
                                       -1);
        gtk_widget_set_tooltip_text(spin, "Look-ahead: +1 issues the next iteration's instance "
                                          "in this loop step (win.offset)");
        g_free(text);
        g_object_set_data_full(G_OBJECT(spin), "pt-stask", g_strdup(m->sg.tasks[sel].id), g_free);
        g_signal_connect(spin, "value-changed", G_CALLBACK(on_offset_changed), self);
        gtk_box_append(GTK_BOX(row), spin);
        gtk_box_append(GTK_BOX(self->form_box), row);
        self->offset_spin = spin;
    } else
        self->offset_spin = NULL;
}

static gboolean build_form_idle(gpointer data)
{
    PtWindow *self = data;
    if (self->form_box)
        build_form_now(self);
    g_object_unref(self);
    return G_SOURCE_REMOVE;
}

/* After every load and edit. An edit may come from a form widget's own signal: rebuilding then
 * would free the widget under its handler, so it waits for the main loop. */
static void rebuild_form(PtWindow *self)
{
    g_idle_add(build_form_idle, g_object_ref(self));
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
            refresh_timeline(self);
            pt_timeline_view_set_selected(PT_TIMELINE_VIEW(self->timeline), sel);
        }
    } else if (g_str_equal(name, "unroll-loop")) {
        pt_graph_view_set_unroll(PT_GRAPH_VIEW(self->graph),
                                 on ? PT_GRAPH_VIEW_DEFAULT_UNROLL : 1);
    }
}

static void on_unroll_changed(PtGraphView *v, int k, gpointer data)
{
    (void)v;
    GAction *a = g_action_map_lookup_action(G_ACTION_MAP(data), "unroll-loop");
    if (a)
        g_simple_action_set_state(G_SIMPLE_ACTION(a), g_variant_new_boolean(k > 1));
}

/* ---- saving ------------------------------------------------------------------------------- */

gboolean pt_window_save_to(PtWindow *self, const char *path)
{
    pt_error err = {{0}};
    if (!pt_explorer_model_save(self->model, path, &err)) {
        show_error(self, err.msg[0] ? err.msg : "could not save");
        return FALSE;
    }
    add_recent(path);
    update_title_and_actions(self);
    return TRUE;
}

/* What the unsaved-changes prompt (and a Save As it led to) goes on with. */
enum { AFTER_NOTHING = 0, AFTER_CLOSE = 1, AFTER_OPEN = 2 };

static void continue_after_prompt(PtWindow *self, int after);

static void on_save_response(GtkNativeDialog *d, int response, gpointer data)
{
    PtWindow *self = data;
    int after = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(d), "pt-close-after"));
    gboolean saved = FALSE;
    if (response == GTK_RESPONSE_ACCEPT) {
        GFile *f = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(d));
        char *path = f ? g_file_get_path(f) : NULL;
        if (path)
            saved = pt_window_save_to(self, path);
        else
            show_error(self, "the chosen file has no local path");
        g_free(path);
        if (f)
            g_object_unref(f);
    }
    gtk_native_dialog_destroy(d);
    g_object_unref(d);
    if (saved && after)
        continue_after_prompt(self, after);
    else if (after == AFTER_OPEN)
        g_clear_pointer(&self->pending_open, g_free); /* not saved: keep the work, stay */
}

static void save_as(PtWindow *self, int close_after)
{
    GtkFileChooserNative *fc = gtk_file_chooser_native_new(
        "Save sProgram", GTK_WINDOW(self), GTK_FILE_CHOOSER_ACTION_SAVE, "_Save", "_Cancel");
    char *name = g_strdup_printf("%s.sprogram.json", self->model->graph.name);
    gtk_file_chooser_set_current_name(GTK_FILE_CHOOSER(fc), name);
    g_free(name);
    g_object_set_data(G_OBJECT(fc), "pt-close-after", GINT_TO_POINTER(close_after));
    g_signal_connect(fc, "response", G_CALLBACK(on_save_response), self);
    gtk_native_dialog_show(GTK_NATIVE_DIALOG(fc));
}

/* Save to the known path, else ask; TRUE when saved right away. */
static gboolean save(PtWindow *self, int close_after)
{
    if (self->model->save_path[0])
        return pt_window_save_to(self, self->model->save_path);
    save_as(self, close_after);
    return FALSE;
}

static void action_save(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a, (void)p;
    save(PT_WINDOW(data), FALSE);
}

static void action_save_as(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a, (void)p;
    save_as(PT_WINDOW(data), FALSE);
}

enum { ANSWER_SAVE = 1, ANSWER_DISCARD = 2 };

static gboolean close_later(gpointer data)
{
    PtWindow *self = data;
    self->closing = TRUE;
    gtk_window_close(GTK_WINDOW(self));
    g_object_unref(self);
    return G_SOURCE_REMOVE;
}

static gboolean open_interactive(PtWindow *self, const char *source);

static gboolean open_pending_later(gpointer data)
{
    PtWindow *self = data;
    char *path = self->pending_open;
    self->pending_open = NULL;
    if (path)
        open_interactive(self, path);
    g_free(path);
    g_object_unref(self);
    return G_SOURCE_REMOVE;
}

static void continue_after_prompt(PtWindow *self, int after)
{
    /* Once the dialog (still referenced while its signal runs) is gone. */
    if (after == AFTER_CLOSE)
        g_idle_add(close_later, g_object_ref(self));
    else if (after == AFTER_OPEN)
        g_idle_add(open_pending_later, g_object_ref(self));
}

static void on_close_answer(GtkDialog *d, int response, gpointer data)
{
    PtWindow *self = data;
    int after = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(d), "pt-after"));
    gtk_window_destroy(GTK_WINDOW(d));
    pt_unsaved_answer a = response == ANSWER_DISCARD ? PT_ANSWER_DISCARD
                          : response == ANSWER_SAVE ? PT_ANSWER_SAVE : PT_ANSWER_CANCEL;
    gboolean saved = FALSE, dialog = FALSE;
    if (a == PT_ANSWER_SAVE) {
        dialog = !self->model->save_path[0];
        saved = save(self, after);
    }
    switch (pt_unsaved_after(a, saved, dialog)) {
    case PT_UNSAVED_CONTINUE:
        continue_after_prompt(self, after);
        break;
    case PT_UNSAVED_AFTER_SAVE:
        break; /* on_save_response goes on */
    default:
        if (after == AFTER_OPEN)
            g_clear_pointer(&self->pending_open, g_free);
        break;
    }
}

/* The unsaved-changes prompt, before closing (AFTER_CLOSE) or opening another file
 * (AFTER_OPEN, self->pending_open). */
static void ask_unsaved(PtWindow *self, int after)
{
    GtkWindow *w = GTK_WINDOW(self);
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    GtkWidget *d = gtk_message_dialog_new(w, GTK_DIALOG_MODAL,
                                          GTK_MESSAGE_QUESTION, GTK_BUTTONS_NONE,
                                          after == AFTER_OPEN
                                              ? "Save changes to the sProgram of %s before "
                                                "opening another file?"
                                              : "Save changes to the sProgram of %s?",
                                          self->model->title);
    gtk_message_dialog_format_secondary_text(GTK_MESSAGE_DIALOG(d),
                                             "Unsaved edits are lost if you don't save.");
    g_object_set_data(G_OBJECT(d), "pt-after", GINT_TO_POINTER(after));
    gtk_dialog_add_buttons(GTK_DIALOG(d), "_Cancel", GTK_RESPONSE_CANCEL, "_Discard",
                           ANSWER_DISCARD, "_Save", ANSWER_SAVE, NULL);
    gtk_dialog_set_default_response(GTK_DIALOG(d), ANSWER_SAVE);
    G_GNUC_END_IGNORE_DEPRECATIONS
    g_signal_connect(d, "response", G_CALLBACK(on_close_answer), self);
    gtk_window_present(GTK_WINDOW(d));
}

static gboolean on_close_request(GtkWindow *w, gpointer data)
{
    PtWindow *self = PT_WINDOW(w);
    (void)data;
    if (pt_unsaved_before(self->model->dirty, self->closing) == PT_UNSAVED_CONTINUE)
        return FALSE;
    ask_unsaved(self, AFTER_CLOSE);
    return TRUE;
}

/* ---- opening from the UI: prompt, graph of an sProgram, drops, recent files ------------- */

static void on_graph_chosen(GtkNativeDialog *d, int response, gpointer data)
{
    PtWindow *self = data;
    const char *sprogram = g_object_get_data(G_OBJECT(d), "pt-sprogram");
    if (response == GTK_RESPONSE_ACCEPT) {
        GFile *f = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(d));
        char *path = f ? g_file_get_path(f) : NULL;
        if (path)
            pt_window_open_sprogram_with_graph(self, sprogram, path);
        else
            show_error(self, "the chosen graph file has no local path");
        g_free(path);
        if (f)
            g_object_unref(f);
    }
    gtk_native_dialog_destroy(d);
    g_object_unref(d);
}

/* A saved sProgram whose graph is not a shipped example: ask for the graph file. */
static void ask_graph_file(PtWindow *self, const char *sprogram)
{
    char *base = g_path_get_basename(sprogram);
    char *title = g_strdup_printf("Choose the Operator Graph of %s", base);
    GtkFileChooserNative *fc = gtk_file_chooser_native_new(
        title, GTK_WINDOW(self), GTK_FILE_CHOOSER_ACTION_OPEN, "_Open", "_Cancel");
    g_free(title);
    g_free(base);
    GtkFileFilter *json = gtk_file_filter_new();
    gtk_file_filter_set_name(json, "Operator graphs (*.json)");
    gtk_file_filter_add_pattern(json, "*.json");
    gtk_file_chooser_add_filter(GTK_FILE_CHOOSER(fc), json);
    g_object_unref(json);
    g_object_set_data_full(G_OBJECT(fc), "pt-sprogram", g_strdup(sprogram), g_free);
    g_signal_connect(fc, "response", G_CALLBACK(on_graph_chosen), self);
    gtk_native_dialog_show(GTK_NATIVE_DIALOG(fc));
}

static gboolean open_interactive(PtWindow *self, const char *source)
{
    if (g_file_test(source, G_FILE_TEST_IS_REGULAR) && !pt_explorer_is_trace_file(source) &&
        pt_explorer_is_sprogram_file(source) && !pt_explorer_sprogram_graph_embedded(source)) {
        ask_graph_file(self, source);
        return FALSE;
    }
    return pt_window_open(self, source);
}

gboolean pt_window_request_open(PtWindow *self, const char *source)
{
    if (pt_unsaved_before(self->model->dirty, FALSE) == PT_UNSAVED_ASK) {
        g_free(self->pending_open);
        self->pending_open = g_strdup(source);
        ask_unsaved(self, AFTER_OPEN);
        return FALSE;
    }
    return open_interactive(self, source);
}

gboolean pt_window_drop_files(PtWindow *self, GSList *files)
{
    gboolean first = TRUE;
    for (GSList *l = files; l; l = l->next) {
        char *path = G_IS_FILE(l->data) ? g_file_get_path(l->data) : NULL;
        if (!path)
            continue;
        if (first) {
            pt_window_request_open(self, path);
            first = FALSE;
        } else { /* more than one: each further file in a window of its own */
            GtkApplication *app = gtk_window_get_application(GTK_WINDOW(self));
            PtWindow *w = pt_window_new(app, self->hw_name);
            pt_window_request_open(w, path);
            gtk_window_present(GTK_WINDOW(w));
        }
        g_free(path);
    }
    if (first)
        show_error(self, "the dropped item is not a local file; expected a graph, sProgram or "
                         "trace JSON file");
    return !first;
}

static gboolean on_drop(GtkDropTarget *t, const GValue *value, double x, double y, gpointer data)
{
    (void)t, (void)x, (void)y;
    if (!G_VALUE_HOLDS(value, GDK_TYPE_FILE_LIST))
        return FALSE;
    GSList *files = gdk_file_list_get_files(g_value_get_boxed(value));
    gboolean ok = pt_window_drop_files(PT_WINDOW(data), files);
    g_slist_free(files);
    return ok;
}

static gint cmp_recent(gconstpointer a, gconstpointer b)
{
    GDateTime *p = gtk_recent_info_get_modified((GtkRecentInfo *)a);
    GDateTime *q = gtk_recent_info_get_modified((GtkRecentInfo *)b);
    return p && q ? g_date_time_compare(q, p) : 0; /* newest first */
}

/* This app's recently used files that still exist, newest first (at most 8; free with
 * g_strfreev). */
static char **recent_paths(void)
{
    GList *items = gtk_recent_manager_get_items(gtk_recent_manager_get_default());
    items = g_list_sort(items, cmp_recent);
    GPtrArray *out = g_ptr_array_new();
    for (GList *l = items; l && out->len < 8; l = l->next) {
        GtkRecentInfo *info = l->data;
        if (!gtk_recent_info_has_application(info, g_get_application_name()))
            continue;
        GFile *f = g_file_new_for_uri(gtk_recent_info_get_uri(info));
        char *path = g_file_get_path(f);
        g_object_unref(f);
        if (path && g_file_test(path, G_FILE_TEST_IS_REGULAR))
            g_ptr_array_add(out, path);
        else
            g_free(path);
    }
    g_list_free_full(items, (GDestroyNotify)gtk_recent_info_unref);
    g_ptr_array_add(out, NULL);
    return (char **)g_ptr_array_free(out, FALSE);
}

static void on_recent_activated(GtkListBox *box, GtkListBoxRow *row, gpointer data)
{
    (void)box;
    const char *path = g_object_get_data(G_OBJECT(row), "pt-path");
    if (path)
        pt_window_request_open(PT_WINDOW(data), path);
}

static void rebuild_recent(PtWindow *self)
{
    char **paths = recent_paths();
    g_menu_remove_all(self->recent_menu);
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(self->recent_list)))
        gtk_list_box_remove(GTK_LIST_BOX(self->recent_list), child);
    for (int i = 0; paths[i]; i++) {
        char *base = g_path_get_basename(paths[i]);
        GMenuItem *it = g_menu_item_new(base, NULL);
        g_menu_item_set_action_and_target_value(it, "win.open-recent",
                                                g_variant_new_string(paths[i]));
        g_menu_append_item(self->recent_menu, it);
        g_object_unref(it);
        GtkWidget *row = gtk_list_box_row_new();
        GtkWidget *label = gtk_label_new(base);
        gtk_label_set_xalign(GTK_LABEL(label), 0);
        gtk_widget_set_tooltip_text(label, paths[i]);
        gtk_widget_set_margin_start(label, 12);
        gtk_widget_set_margin_end(label, 12);
        gtk_widget_set_margin_top(label, 8);
        gtk_widget_set_margin_bottom(label, 8);
        gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(row), label);
        g_object_set_data_full(G_OBJECT(row), "pt-path", g_strdup(paths[i]), g_free);
        gtk_list_box_append(GTK_LIST_BOX(self->recent_list), row);
        g_free(base);
    }
    gtk_widget_set_visible(gtk_widget_get_parent(self->recent_list), paths[0] != NULL);
    g_strfreev(paths);
}

static void on_recent_changed(GtkRecentManager *mgr, gpointer data)
{
    (void)mgr;
    rebuild_recent(PT_WINDOW(data));
}

static void action_open_recent(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    pt_window_request_open(PT_WINDOW(data), g_variant_get_string(p, NULL));
}

GMenuModel *pt_window_get_recent_menu(PtWindow *self)
{
    return G_MENU_MODEL(self->recent_menu);
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
    pt_timeline_view_fit(PT_TIMELINE_VIEW(PT_WINDOW(data)->timeline));
}

static void action_examples(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a, (void)p;
    gtk_stack_set_visible_child_name(GTK_STACK(PT_WINDOW(data)->stack), "start");
}

/* Put the loaded sProgram on hardware `name` (re-validated and re-simulated: edits are kept);
 * on failure the banner says why and the drop-down goes back to the model in use. */
static void apply_hw(PtWindow *self, const char *name, guint index)
{
    pt_error err = {{0}};
    if (self->model->have_prog && !pt_explorer_model_set_hw(self->model, name, &err)) {
        show_error(self, err.msg);
        self->hw_reverting = TRUE;
        gtk_drop_down_set_selected(GTK_DROP_DOWN(self->hw_dropdown), self->hw_index);
        self->hw_reverting = FALSE;
        return;
    }
    g_strlcpy(self->hw_name, name, sizeof self->hw_name);
    self->hw_index = index;
    if (self->model->have_tl)
        pt_window_refresh(self);
}

gboolean pt_window_set_hw(PtWindow *self, const char *name)
{
    guint index = HW_CUSTOM;
    for (guint i = 0; i < HW_CUSTOM; i++)
        if (g_str_equal(hw_names[i], name))
            index = i;
    apply_hw(self, name, index);
    if (!g_str_equal(self->hw_name, name))
        return FALSE;
    self->hw_reverting = TRUE;
    gtk_drop_down_set_selected(GTK_DROP_DOWN(self->hw_dropdown), index);
    self->hw_reverting = FALSE;
    return TRUE;
}

static void on_hw_file_response(GtkNativeDialog *d, int response, gpointer data)
{
    PtWindow *self = data;
    GFile *f = response == GTK_RESPONSE_ACCEPT ? gtk_file_chooser_get_file(GTK_FILE_CHOOSER(d))
                                               : NULL;
    char *path = f ? g_file_get_path(f) : NULL;
    if (path)
        apply_hw(self, path, HW_CUSTOM);
    else {
        self->hw_reverting = TRUE;
        gtk_drop_down_set_selected(GTK_DROP_DOWN(self->hw_dropdown), self->hw_index);
        self->hw_reverting = FALSE;
    }
    g_free(path);
    if (f)
        g_object_unref(f);
    gtk_native_dialog_destroy(d);
    g_object_unref(d);
}

static void on_hw_changed(GObject *o, GParamSpec *ps, gpointer data)
{
    PtWindow *self = data;
    (void)ps;
    guint i = gtk_drop_down_get_selected(GTK_DROP_DOWN(o));
    if (self->hw_reverting || i >= G_N_ELEMENTS(hw_names) - 1)
        return;
    if (i == HW_CUSTOM) {
        GtkFileChooserNative *fc = gtk_file_chooser_native_new(
            "Hardware Model", GTK_WINDOW(self), GTK_FILE_CHOOSER_ACTION_OPEN, "_Use", "_Cancel");
        GtkFileFilter *json = gtk_file_filter_new();
        gtk_file_filter_set_name(json, "Hardware models (*.json)");
        gtk_file_filter_add_pattern(json, "*.json");
        gtk_file_chooser_add_filter(GTK_FILE_CHOOSER(fc), json);
        g_object_unref(json);
        g_signal_connect(fc, "response", G_CALLBACK(on_hw_file_response), self);
        gtk_native_dialog_show(GTK_NATIVE_DIALOG(fc));
        return;
    }
    if (g_str_equal(self->hw_name, hw_names[i]))
        return;
    apply_hw(self, hw_names[i], i);
}

static void on_example_activated(GtkListBox *box, GtkListBoxRow *row, gpointer data)
{
    (void)box;
    const char *name = g_object_get_data(G_OBJECT(row), "pt-example");
    if (name)
        pt_window_request_open(PT_WINDOW(data), name);
}

/* ---- construction ---------------------------------------------------------------------- */

/* Every shortcut of the window and its views (Ctrl+? shows it; keep in step with main.c's
 * accelerators and the views' key handlers). */
static const char help_overlay_ui[] =
    "<interface><object class='GtkShortcutsWindow' id='help_overlay'><property name='modal'>1"
    "</property><child><object class='GtkShortcutsSection'><property name='section-name'>main"
    "</property><property name='max-height'>12</property>"
    "<child><object class='GtkShortcutsGroup'><property name='title'>General</property>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Open a graph, sProgram or trace (or drop a file on the window)</property>"
    "<property name='accelerator'>&lt;Control&gt;o</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Save / Save As</property>"
    "<property name='accelerator'>&lt;Control&gt;s &lt;Control&gt;&lt;Shift&gt;s</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Undo / Redo</property>"
    "<property name='accelerator'>&lt;Control&gt;z &lt;Control&gt;&lt;Shift&gt;z</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Keyboard shortcuts</property>"
    "<property name='accelerator'>&lt;Control&gt;question</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Quit</property>"
    "<property name='accelerator'>&lt;Control&gt;q</property></object></child>"
    "</object></child>"
    "<child><object class='GtkShortcutsGroup'><property name='title'>Editing (the selected sTask)</property>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Add a Wait (choose the sTask and distance)</property>"
    "<property name='accelerator'>&lt;Control&gt;d</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Remove its last Wait</property>"
    "<property name='accelerator'>&lt;Control&gt;&lt;Shift&gt;d</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Context menu of the selected bar (all its Waits)</property>"
    "<property name='accelerator'>&lt;Shift&gt;F10 Menu</property></object></child>"
    "</object></child>"
    "<child><object class='GtkShortcutsGroup'><property name='title'>View</property>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Critical path and idle gaps</property>"
    "<property name='accelerator'>&lt;Control&gt;1</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Several CTAs / waves as lane groups</property>"
    "<property name='accelerator'>&lt;Control&gt;2</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Unroll the loop in the sTask-graph (or double-click the loop body)</property>"
    "<property name='accelerator'>&lt;Control&gt;3</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Fit the timeline</property>"
    "<property name='accelerator'>&lt;Control&gt;0</property></object></child>"
    "</object></child>"
    "<child><object class='GtkShortcutsGroup'><property name='title'>Actions</property>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Auto-schedule</property>"
    "<property name='accelerator'>&lt;Control&gt;&lt;Shift&gt;a</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Compile &amp; Profile</property>"
    "<property name='accelerator'>&lt;Control&gt;&lt;Shift&gt;p</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Job log</property>"
    "<property name='accelerator'>&lt;Control&gt;&lt;Shift&gt;l</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Preferences (remote command, timeouts)</property>"
    "<property name='accelerator'>&lt;Control&gt;comma</property></object></child>"
    "</object></child>"
    "<child><object class='GtkShortcutsGroup'><property name='title'>Timeline</property>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Zoom in / out (Ctrl+wheel: about the pointer)</property>"
    "<property name='accelerator'>w s</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Pan left / right (Shift+wheel too)</property>"
    "<property name='accelerator'>a d</property></object></child>"
    "<child><object class='GtkShortcutsShortcut'><property name='title'>Fit to window</property>"
    "<property name='accelerator'>f</property></object></child>"
    "</object></child>"
    "</object></child></object></interface>";

static GtkWidget *build_start_page(PtWindow *self)
{
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
    gtk_widget_set_halign(box, GTK_ALIGN_CENTER);
    gtk_widget_set_valign(box, GTK_ALIGN_CENTER);
    gtk_widget_set_margin_top(box, 24);
    gtk_widget_set_margin_bottom(box, 24);
    GtkWidget *title = gtk_label_new("Open an operator graph");
    gtk_widget_add_css_class(title, "title-1");
    gtk_box_append(GTK_BOX(box), title);
    GtkWidget *sub = gtk_label_new("Use Open (Ctrl+O) for a graph JSON file, or start from a "
                                   "shipped example:");
    gtk_widget_add_css_class(sub, "dim-label");
    gtk_box_append(GTK_BOX(box), sub);
    GtkWidget *list = gtk_list_box_new();
    gtk_widget_add_css_class(list, "boxed-list");
    gtk_list_box_set_selection_mode(GTK_LIST_BOX(list), GTK_SELECTION_NONE);
    for (const pt_embedded_file *e = pt_embedded_examples; e->name; e++) {
        GtkWidget *row = gtk_list_box_row_new();
        GtkWidget *label = gtk_label_new(e->name);
        gtk_label_set_xalign(GTK_LABEL(label), 0);
        gtk_widget_set_margin_start(label, 12);
        gtk_widget_set_margin_end(label, 12);
        gtk_widget_set_margin_top(label, 8);
        gtk_widget_set_margin_bottom(label, 8);
        gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(row), label);
        g_object_set_data(G_OBJECT(row), "pt-example", (gpointer)e->name);
        gtk_list_box_append(GTK_LIST_BOX(list), row);
    }
    g_signal_connect(list, "row-activated", G_CALLBACK(on_example_activated), self);
    GtkWidget *frame = gtk_frame_new(NULL);
    gtk_frame_set_child(GTK_FRAME(frame), list);
    gtk_widget_set_size_request(frame, 360, -1);
    gtk_box_append(GTK_BOX(box), frame);
    /* Recent files (hidden while there are none). */
    GtkWidget *recent = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
    GtkWidget *rtitle = gtk_label_new("Recent files");
    gtk_widget_add_css_class(rtitle, "heading");
    gtk_label_set_xalign(GTK_LABEL(rtitle), 0);
    gtk_box_append(GTK_BOX(recent), rtitle);
    self->recent_list = gtk_list_box_new();
    gtk_list_box_set_selection_mode(GTK_LIST_BOX(self->recent_list), GTK_SELECTION_NONE);
    g_signal_connect(self->recent_list, "row-activated", G_CALLBACK(on_recent_activated), self);
    GtkWidget *rframe = gtk_frame_new(NULL);
    gtk_frame_set_child(GTK_FRAME(rframe), self->recent_list);
    gtk_box_append(GTK_BOX(recent), rframe);
    gtk_box_append(GTK_BOX(box), recent);
    GtkWidget *scroll = gtk_scrolled_window_new();
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroll), box);
    return scroll;
}

static GtkWidget *build_side_panel(PtWindow *self)
{
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
    gtk_widget_set_margin_start(box, 6);
    gtk_widget_set_margin_end(box, 6);
    gtk_widget_set_margin_top(box, 6);
    gtk_widget_set_margin_bottom(box, 6);
    self->search = gtk_search_entry_new();
    /* The property exists in 4.8; the setter only from 4.10. */
    g_object_set(self->search, "placeholder-text", "Search sTasks (id, kind, sEU, expr)", NULL);
    gtk_accessible_update_property(GTK_ACCESSIBLE(self->search), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   "Search sTasks", -1);
    g_signal_connect(self->search, "search-changed", G_CALLBACK(on_search_changed), self);
    gtk_box_append(GTK_BOX(box), self->search);

    self->rows = gtk_string_list_new(NULL);
    self->filter = gtk_custom_filter_new(filter_match, self, NULL);
    GtkFilterListModel *fm = gtk_filter_list_model_new(G_LIST_MODEL(self->rows),
                                                       GTK_FILTER(self->filter));
    self->selection = gtk_single_selection_new(G_LIST_MODEL(fm));
    gtk_single_selection_set_autoselect(self->selection, FALSE);
    gtk_single_selection_set_can_unselect(self->selection, TRUE);
    g_signal_connect(self->selection, "notify::selected", G_CALLBACK(on_selection_changed), self);
    self->column_view = gtk_column_view_new(GTK_SELECTION_MODEL(self->selection));
    gtk_column_view_set_show_column_separators(GTK_COLUMN_VIEW(self->column_view), TRUE);
    for (int c = 0; c < N_COLS; c++) {
        GtkListItemFactory *f = gtk_signal_list_item_factory_new();
        g_object_set_data(G_OBJECT(f), "pt-window", self);
        g_signal_connect(f, "setup", G_CALLBACK(cell_setup), GINT_TO_POINTER(c));
        g_signal_connect(f, "bind", G_CALLBACK(cell_bind), GINT_TO_POINTER(c));
        GtkColumnViewColumn *col = gtk_column_view_column_new(col_titles[c], f);
        gtk_column_view_column_set_resizable(col, TRUE);
        if (c == COL_ID) {
            gtk_column_view_column_set_expand(col, TRUE);
            gtk_column_view_column_set_fixed_width(col, 130);
        }
        gtk_column_view_append_column(GTK_COLUMN_VIEW(self->column_view), col);
        g_object_unref(col);
    }
    GtkWidget *scroll = gtk_scrolled_window_new();
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroll), self->column_view);
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scroll), GTK_POLICY_AUTOMATIC,
                                   GTK_POLICY_AUTOMATIC);
    gtk_widget_set_vexpand(scroll, TRUE);
    GtkWidget *frame = gtk_frame_new(NULL);
    gtk_frame_set_child(GTK_FRAME(frame), scroll);
    gtk_widget_set_vexpand(frame, TRUE);
    gtk_box_append(GTK_BOX(box), frame);

    GtkWidget *heading = gtk_label_new("Inspector");
    gtk_widget_add_css_class(heading, "heading");
    gtk_label_set_xalign(GTK_LABEL(heading), 0);
    gtk_box_append(GTK_BOX(box), heading);
    self->inspector = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(self->inspector), 0);
    gtk_label_set_yalign(GTK_LABEL(self->inspector), 0);
    gtk_label_set_wrap(GTK_LABEL(self->inspector), TRUE);
    gtk_label_set_wrap_mode(GTK_LABEL(self->inspector), PANGO_WRAP_WORD_CHAR);
    gtk_label_set_selectable(GTK_LABEL(self->inspector), TRUE);
    GtkWidget *iscroll = gtk_scrolled_window_new();
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(iscroll), GTK_POLICY_NEVER,
                                   GTK_POLICY_AUTOMATIC);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(iscroll), self->inspector);
    gtk_widget_set_size_request(iscroll, -1, 220);
    gtk_box_append(GTK_BOX(box), iscroll);
    self->form_box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 8);
    gtk_box_append(GTK_BOX(box), self->form_box);
    gtk_widget_set_size_request(box, 470, -1);
    return box;
}

/* The hint line and the view toggles speak of the timeline and the sTask-graph: hidden on the
 * Code page. */
static void on_view_changed(GObject *o, GParamSpec *ps, gpointer data)
{
    PtWindow *self = data;
    (void)ps;
    const char *page = gtk_stack_get_visible_child_name(GTK_STACK(o));
    gboolean views = !page || strcmp(page, "code") != 0;
    gtk_widget_set_visible(self->view_hint, views);
    gtk_widget_set_visible(self->view_bar, views);
}

static GtkWidget *build_main_page(PtWindow *self)
{
    GtkWidget *left = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
    self->summary = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(self->summary), 0);
    gtk_label_set_wrap(GTK_LABEL(self->summary), TRUE);
    gtk_widget_set_margin_start(self->summary, 8);
    gtk_widget_set_margin_top(self->summary, 6);
    gtk_box_append(GTK_BOX(left), self->summary);
    GtkWidget *hint = gtk_label_new("Ctrl+wheel or W/S zoom · A/D pan · F fit · click a bar to "
                                    "select, drag it to move it (Append) · colours: blue TMA, green tensor core, orange CUDA "
                                    "core, grey merged; "
                                    "thin magenta outlined bars: measured (a loaded trace); red "
                                    "strip: critical path; amber: idle; right-click a bar for "
                                    "its Waits");
    gtk_widget_add_css_class(hint, "dim-label");
    gtk_label_set_xalign(GTK_LABEL(hint), 0);
    gtk_label_set_wrap(GTK_LABEL(hint), TRUE);
    gtk_widget_set_margin_start(hint, 8);
    gtk_box_append(GTK_BOX(left), hint);
    GtkWidget *bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    gtk_widget_set_margin_start(bar, 8);
    static const struct { const char *label, *action, *tip; } toggles[] = {
        {"_Critical Path", "win.show-critical",
         "Red: the chain of bars that set the EU's length; amber: idle lane time (Ctrl+1)"},
        {"Several _CTAs", "win.show-ctas",
         "Lane groups: a trace's sampled CTAs, else the waves one EU runs (Ctrl+2)"},
        {"_Unroll Loop", "win.unroll-loop",
         "sTask-graph: show 3 loop iterations with their loop-carried edges (Ctrl+3; or "
         "double-click the loop body)"},
    };
    for (guint i = 0; i < G_N_ELEMENTS(toggles); i++) {
        GtkWidget *t = gtk_toggle_button_new_with_mnemonic(toggles[i].label);
        gtk_actionable_set_action_name(GTK_ACTIONABLE(t), toggles[i].action);
        gtk_widget_set_tooltip_text(t, toggles[i].tip);
        gtk_widget_add_css_class(t, "flat");
        gtk_box_append(GTK_BOX(bar), t);
        if (i == 1)
            self->cta_toggle = t;
        if (i == 2)
            self->unroll_toggle = t;
    }
    gtk_box_append(GTK_BOX(left), bar);
    self->view_hint = hint;
    self->view_bar = bar;
    self->timeline = pt_timeline_view_new();
    self->bar_menu = g_menu_new();
    pt_timeline_view_set_context_menu(PT_TIMELINE_VIEW(self->timeline),
                                      G_MENU_MODEL(self->bar_menu));
    g_signal_connect(self->timeline, "context-menu", G_CALLBACK(on_bar_context_menu), self);
    g_signal_connect(self->timeline, "stask-selected", G_CALLBACK(on_timeline_selected), self);
    g_signal_connect(self->timeline, "stask-dropped", G_CALLBACK(on_stask_dropped), self);
    GtkWidget *scroll = gtk_scrolled_window_new();
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scroll), GTK_POLICY_NEVER,
                                   GTK_POLICY_AUTOMATIC);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroll), self->timeline);
    gtk_widget_set_vexpand(scroll, TRUE);
    gtk_widget_set_hexpand(scroll, TRUE);
    /* Two pages over the same selection: the timeline and the sTask-graph (switcher in the
     * header bar). */
    self->graph = pt_graph_view_new();
    g_signal_connect(self->graph, "stask-selected", G_CALLBACK(on_graph_selected), self);
    g_signal_connect(self->graph, "unroll-changed", G_CALLBACK(on_unroll_changed), self);
    gtk_widget_set_vexpand(self->graph, TRUE);
    gtk_widget_set_hexpand(self->graph, TRUE);
    self->views = gtk_stack_new();
    gtk_stack_add_titled(GTK_STACK(self->views), scroll, "timeline", "Timeline");
    gtk_stack_add_titled(GTK_STACK(self->views), self->graph, "graph", "sTask-graph");
    gtk_stack_add_titled(GTK_STACK(self->views), pt_actions_code_view(self), "code", "Code");
    gtk_stack_set_visible_child_name(GTK_STACK(self->views), "timeline");
    g_signal_connect(self->views, "notify::visible-child-name", G_CALLBACK(on_view_changed), self);
    gtk_widget_set_vexpand(self->views, TRUE);
    gtk_box_append(GTK_BOX(left), self->views);

    GtkWidget *paned = gtk_paned_new(GTK_ORIENTATION_HORIZONTAL);
    gtk_paned_set_start_child(GTK_PANED(paned), left);
    gtk_paned_set_end_child(GTK_PANED(paned), build_side_panel(self));
    gtk_paned_set_resize_end_child(GTK_PANED(paned), FALSE);
    gtk_paned_set_shrink_end_child(GTK_PANED(paned), FALSE);
    gtk_paned_set_shrink_start_child(GTK_PANED(paned), FALSE);
    return paned;
}

static void pt_window_dispose(GObject *o)
{
    PtWindow *self = PT_WINDOW(o);
    if (self->timeline)
        pt_timeline_view_set_model(PT_TIMELINE_VIEW(self->timeline), NULL);
    if (self->graph)
        pt_graph_view_set_graph(PT_GRAPH_VIEW(self->graph), NULL);
    self->form_box = NULL; /* a pending rebuild finds nothing to fill */
    G_OBJECT_CLASS(pt_window_parent_class)->dispose(o);
}

static void pt_window_finalize(GObject *o)
{
    PtWindow *self = PT_WINDOW(o);
    extras_clear(self);
    g_clear_object(&self->bar_menu);
    g_clear_object(&self->recent_menu);
    if (self->tile_entries)
        g_ptr_array_free(self->tile_entries, TRUE);
    g_free(self->pending_open);
    pt_explorer_model_free(self->model);
    g_free(self->labels);
    g_free(self->stask_seu);
    g_free(self->error);
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
    {"offset", action_offset, "(si)", NULL, NULL, {0}},
    {"tile", action_tile, "s", NULL, NULL, {0}},
    {"undo", action_undo, NULL, NULL, NULL, {0}},
    {"redo", action_redo, NULL, NULL, NULL, {0}},
    {"save", action_save, NULL, NULL, NULL, {0}},
    {"save-as", action_save_as, NULL, NULL, NULL, {0}},
    {"wait-add-dialog", action_wait_add_dialog, NULL, NULL, NULL, {0}},
    {"wait-remove-last", action_wait_remove_last, NULL, NULL, NULL, {0}},
    {"open-recent", action_open_recent, "s", NULL, NULL, {0}},
    {"show-critical", NULL, NULL, "true", action_toggle, {0}},
    {"show-ctas", NULL, NULL, "false", action_toggle, {0}},
    {"unroll-loop", NULL, NULL, "false", action_toggle, {0}},
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
    g_signal_connect(self, "close-request", G_CALLBACK(on_close_request), NULL);
    /* Files dropped on the window open like Open does (asking first about unsaved edits). */
    GtkDropTarget *drop = gtk_drop_target_new(GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
    g_signal_connect(drop, "drop", G_CALLBACK(on_drop), self);
    gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(drop));
    gtk_window_set_title(GTK_WINDOW(self), "PipeThreader");
    gtk_window_set_default_size(GTK_WINDOW(self), 1400, 860);

    GtkWidget *header = gtk_header_bar_new();
    GtkWidget *open = gtk_button_new_with_mnemonic("_Open");
    gtk_widget_set_tooltip_text(open, "Open an operator graph (Ctrl+O)");
    gtk_actionable_set_action_name(GTK_ACTIONABLE(open), "win.open");
    gtk_header_bar_pack_start(GTK_HEADER_BAR(header), open);
    self->hw_dropdown = gtk_drop_down_new_from_strings(hw_names);
    gtk_drop_down_set_selected(GTK_DROP_DOWN(self->hw_dropdown), 1);
    self->hw_index = 1;
    gtk_widget_set_tooltip_text(self->hw_dropdown, "Hardware model");
    gtk_accessible_update_property(GTK_ACCESSIBLE(self->hw_dropdown),
                                   GTK_ACCESSIBLE_PROPERTY_LABEL, "Hardware model", -1);
    g_signal_connect(self->hw_dropdown, "notify::selected", G_CALLBACK(on_hw_changed), self);
    gtk_header_bar_pack_start(GTK_HEADER_BAR(header), self->hw_dropdown);

    GMenu *menu = g_menu_new();
    GMenu *sec1 = g_menu_new();
    g_menu_append(sec1, "_Examples", "win.examples");
    g_menu_append_submenu(sec1, "Open _Recent", G_MENU_MODEL(self->recent_menu));
    g_menu_append(sec1, "_Save", "win.save");
    g_menu_append(sec1, "Save _As…", "win.save-as");
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
    g_object_unref(sec1);
    g_object_unref(sec2);
    g_object_unref(menu);
    pt_actions_install(self, GTK_HEADER_BAR(header)); /* before the pages: it makes "code" */
    gtk_window_set_titlebar(GTK_WINDOW(self), header);

    GtkBuilder *b = gtk_builder_new_from_string(help_overlay_ui, -1);
    GtkShortcutsWindow *overlay = GTK_SHORTCUTS_WINDOW(gtk_builder_get_object(b, "help_overlay"));
    gtk_application_window_set_help_overlay(GTK_APPLICATION_WINDOW(self), overlay);
    g_object_unref(b);

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

    self->stack = gtk_stack_new();
    gtk_stack_add_named(GTK_STACK(self->stack), build_start_page(self), "start");
    gtk_stack_add_named(GTK_STACK(self->stack), build_main_page(self), "main");
    gtk_stack_set_visible_child_name(GTK_STACK(self->stack), "start");
    gtk_widget_set_vexpand(self->stack, TRUE);
    self->view_switcher = gtk_stack_switcher_new();
    gtk_stack_switcher_set_stack(GTK_STACK_SWITCHER(self->view_switcher), GTK_STACK(self->views));
    gtk_widget_set_visible(self->view_switcher, FALSE); /* until something is loaded */
    gtk_header_bar_set_title_widget(GTK_HEADER_BAR(header), self->view_switcher);
    gtk_box_append(GTK_BOX(vbox), self->stack);
    gtk_window_set_child(GTK_WINDOW(self), vbox);
    update_inspector(self, -1);
    update_title_and_actions(self);
    g_signal_connect_object(gtk_recent_manager_get_default(), "changed",
                            G_CALLBACK(on_recent_changed), self, 0);
    rebuild_recent(self);
}

PtWindow *pt_window_new(GtkApplication *app, const char *hw_name)
{
    PtWindow *self = g_object_new(PT_TYPE_WINDOW, "application", app, NULL);
    if (hw_name) {
        guint index = HW_CUSTOM; /* a file given on the command line */
        for (guint i = 0; i < HW_CUSTOM; i++)
            if (g_str_equal(hw_names[i], hw_name))
                index = i;
        g_strlcpy(self->hw_name, hw_name, sizeof self->hw_name);
        self->hw_index = index;
        self->hw_reverting = TRUE;
        gtk_drop_down_set_selected(GTK_DROP_DOWN(self->hw_dropdown), index);
        self->hw_reverting = FALSE;
    }
    return self;
}
