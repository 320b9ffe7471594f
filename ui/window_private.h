/* window_private.h — what the files of PtWindow share: its instance struct and the internal
 * functions one of them calls in another (window.c: banner, table, inspector, loading, editing,
 * header bar, construction; window_pages.c, window_hw.c, window_timeline.c, window_menu.c,
 * window_form.c, window_files.c, window_autosave.c, window_shortcuts.c, window_ctas.c,
 * window_splitk.c). Not for use outside ui/window*.c: the
 * public API is window.h. */
#ifndef PT_WINDOW_PRIVATE_H
#define PT_WINDOW_PRIVATE_H

#include "window.h"

#include "critical_path.h"
#include "cta_pack.h"
#include "explorer_model.h"
#include "schedule_status.h"
#include "timeline_json.h"
#include "timeline_view.h"

G_BEGIN_DECLS

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
    GtkWidget *offset_box;             /* the inspector form's row for the selection */
    GtkWidget *offset_spin;            /* the selected sTask's iteration offset, or NULL */
    GtkWidget *stack, *banner, *banner_label, *summary, *timeline, *hw_dropdown;
    GtkWidget *views, *view_switcher, *graph; /* Timeline / Graph pages */
    GtkWidget *search, *inspector, *column_view;
    GtkStringList *rows;       /* one item per sTask: its index as text */
    GtkCustomFilter *filter;
    GtkSingleSelection *selection;
    gboolean syncing;
    int selected;              /* selected sTask, -1: none */
    char selected_id[PT_STASK_ID_MAX]; /* its id as last shown ("" none): a model whose sTasks
                                          were renumbered (Auto-schedule) keeps it by id */
    gboolean closing;          /* the unsaved-changes prompt answered: really close */

    /* What the timeline draws besides the spans (rebuilt with the model). */
    pt_span_deps deps;
    int64_t n_critical, *critical;
    char *group_labels[PT_TL_MAX_GROUPS];
    gboolean show_ctas;        /* several CTAs / waves as lane groups */
    pt_cta_run cta_run[PT_CTA_MAX_CLASSES]; /* several CTAs: each EU class's tiles back to back
                                               (cta_pack.h) */
    /* several CTAs of a split-K program (window_splitk.c): per lane group, its chunk's spans,
     * dependencies and critical path (group 0 is the main timeline's) */
    pt_timeline chunk_tl[PT_MAX_SPLIT_K];
    pt_span_deps chunk_deps[PT_MAX_SPLIT_K];
    int64_t *chunk_critical[PT_MAX_SPLIT_K], chunk_n_critical[PT_MAX_SPLIT_K];
    GMenu *bar_menu;           /* the timeline bars' context menu */
    GMenu *recent_menu;        /* primary menu: Recent */
    GtkWidget *recent_list;    /* start page: recent files */
    GtkWidget *form_box;       /* inspector: tile entries and stages spin buttons */
    GPtrArray *tile_entries;   /* GtkEntry per graph axis, then the warpgroups one */
    GtkWidget *cta_toggle, *unroll_toggle, *critical_toggle;
    char *pending_open;        /* a file to open once the unsaved-changes prompt is answered */

    /* Autosave (window_autosave.c). */
    char *autosave_path;       /* this window's autosave file, once it has one */
    gboolean autosave_written; /* it may be on disk (written, not removed since) */
    guint autosave_timer;      /* the debounce: pending write */
    char autosave_graph[1024]; /* the graph the model came from, as the autosave records it */
    char *autosave_graph_text; /* that graph file's text as loaded (NULL: an embedded example) */
    GtkWidget *recovery_bar, *recovery_label;
    GPtrArray *recovery_offers; /* orphan autosaves still to offer (paths), first shown */
    char *recovery_text;        /* the bar's text while shown */

    /* Status bar (window_status.c). */
    GtkWidget *status_gen, *status_time, *status_res;
    pt_schedule_status status;  /* of the model shown */
    double status_prev_ns;      /* kernel time before the last edit (NaN after a load) */

    /* Timeline search (window_search.c). */
    GtkWidget *tl_search_bar, *tl_search_entry, *tl_search_count;
    gboolean keep_view;         /* the model shown next is an edit: keep the zoom */

    GtkWidget *paned, *sidebar; /* the main page's split; the sTask table and inspector */
    GtkWidget *range_box, *range_label; /* the sidebar's Time Range section */

    /* Lanes the timeline shows: a lane of an sEU kind no sTask of the graph runs on (a tensor
     * core lane of an operator without a matmul) is left out. lane_shown[row] is the model's
     * lane of each shown row (n_lanes_shown of them); remapped: span copies with row lanes. */
    int n_lanes_shown, lane_shown[PT_MAX_LANES];
    GPtrArray *remapped;
    /* The "Predicted vs measured" page (window_compare.c): its alignment, rows (sTask indices
     * as strings, sorted by the column view's sorter), table and the sample/lanes text. */
    /* stage-occupancy tracks of the timeline (window_timeline.c): per ring, its step chart */
    double *ring_t[PT_TL_MAX_RINGS];
    int *ring_f[PT_TL_MAX_RINGS];
    char *ring_label[PT_TL_MAX_RINGS]; /* "A · K" / "B · K" while comparing (else NULL) */
    pt_alignment cmp;
    GtkStringList *cmp_rows;
    GtkWidget *cmp_view, *cmp_label;
    /* Issue 19, comparing with a second sProgram (window_diff.c): B's model (NULL: not
     * comparing), its file, its spans on A's shown rows, and the sidebar's Comparison section
     * with its per-sTask rows. */
    pt_explorer_model *cmp_b;
    char *cmp_b_path;
    pt_span *cmp_b_spans;
    int64_t cmp_b_n;
    pt_span_deps cmp_b_deps;   /* B's dependencies over cmp_b_spans (its arrows, gap reasons) */
    int64_t *cmp_b_critical;   /* B's critical path, indices into cmp_b_spans (malloc'd) */
    pt_span *cmp_b_measured;   /* B a trace: its measured spans in A's rows (window_diff_trace.c) */
    int64_t cmp_b_n_measured;
    int64_t cmp_b_n_critical;
    int cmp_b_lanes_lost;
    GtkWidget *diff_box, *diff_label, *diff_view;
    GtkStringList *diff_rows;
    struct win_diff_row *diff;
    int n_diff;
};

/* The sTask table's columns. */
enum { COL_ID, COL_KIND, COL_SEU, COL_REGION, COL_TILE, COL_BYTES, COL_FLOPS, N_COLS };

/* The recent-files group of what the explorer opened or saved (the only files it offers). */
#define WIN_RECENT_GROUP "pipethreader-explorer"

/* window.c */
void win_update_title_and_actions(PtWindow *self);
void win_add_recent(const char *path);
gboolean win_edited(PtWindow *self, gboolean ok, const pt_error *err);
int win_item_stask(gpointer item);
char *win_cell_text(PtWindow *self, int i, int col);
void win_update_inspector(PtWindow *self, int i);
/* Show a freshly loaded model (the window takes it; the old one is freed). */
void win_install_model(PtWindow *self, pt_explorer_model *next);

/* window_table.c: a sortable per-sTask table. Rows are a GtkStringList of row indices;
 * cell(self, row, col) gives a cell's text (g_free), key(self, row, col, &v) its sort value
 * (FALSE: no such row, sorted first); column 0 is the sTask id, sorted by its text. The
 * table starts sorted by sort_col descending (-1: unsorted). */
typedef struct {
    const char *const *titles;
    int n_cols;
    char *(*cell)(PtWindow *self, int row, int col);
    gboolean (*key)(PtWindow *self, int row, int col, double *v);
    int sort_col;
} win_table_spec;
GtkWidget *win_table_new(PtWindow *self, const win_table_spec *spec, GtkStringList *rows);

/* window_compare.c: the "Predicted vs measured" page (issue 18). */
GtkWidget *win_build_compare_page(PtWindow *self);
void win_refresh_compare(PtWindow *self);
char *win_compare_cell_text(PtWindow *self, int i, int col);

/* window_diff.c: comparing with a second sProgram (issue 19). */
GtkWidget *win_build_diff_section(PtWindow *self);
void win_refresh_diff(PtWindow *self);
void win_diff_fill_groups(PtWindow *self, pt_tl_model *tm);
void win_diff_free_deps(PtWindow *self);
/* window_diff_trace.c: a profiled trace as B — its measured spans in A's rows (row_of: B's lane
 * -> A's shown row or -1; task_of: B's sTask -> A's or -1), and B's figures in the comparison:
 * measured kernel time and per-sTask mean span when B is a trace (NaN: not measured), else
 * B's predicted ones. */
gboolean win_diff_b_is_trace(PtWindow *self);
void win_diff_remap_b_measured(PtWindow *self, const int *row_of, const int *task_of);
void win_diff_free_b_measured(PtWindow *self);
double win_diff_b_kernel_ns(PtWindow *self);
double win_diff_b_mean_ns(PtWindow *self, int i, int64_t *count);
/* Appends to s which graph parameters B has when they differ from A's (a trace keeps its own),
 * and that B's prediction is the example's defaults when the trace does not name its inputs. */
void win_diff_append_param_note(PtWindow *self, GString *s);
void win_diff_clear(PtWindow *self);
char *win_diff_cell_text(PtWindow *self, int i, int col);
void win_action_compare_with(GSimpleAction *a, GVariant *p, gpointer data);
void win_action_stop_comparing(GSimpleAction *a, GVariant *p, gpointer data);

/* window_pages.c: the start page and the main page (with its side panel). */
GtkWidget *win_build_start_page(PtWindow *self);
GtkWidget *win_build_main_page(PtWindow *self);

/* window_hw.c: the hardware drop-down's entries and its handler. */
extern const char *const win_hw_names[];
#define HW_CUSTOM 3 /* index of the entry that asks for a hardware-model file */
void win_on_hw_changed(GObject *o, GParamSpec *ps, gpointer data);

/* window_timeline.c: dependencies, critical path and lane groups drawn with the spans. */
void win_extras_clear(PtWindow *self);
void win_refresh_timeline(PtWindow *self);
/* window_ctas.c: the several-CTA view's predicted groups — each class of EUs (by how many tiles
 * it runs) with its tiles back to back. */
void win_ctas_fill_groups(PtWindow *self, pt_tl_model *tm);
void win_ctas_clear(PtWindow *self);
/* window_splitk.c: a split-K program's several CTAs are the chunks of its first tile (FALSE:
 * not split, or out of memory; nothing filled) */
gboolean win_splitk_fill_groups(PtWindow *self, pt_tl_model *tm);
void win_splitk_clear(PtWindow *self);
/* window_timeline.c: spans with their lanes as the shown rows (the window keeps the copy) */
const pt_span *win_shown_spans(PtWindow *self, const pt_span *spans, int64_t n);
/* The model's lane drawn in timeline row `row` (lanes no sTask can use are not drawn). */
int win_lane_of_row(PtWindow *self, int row);

/* window_menu.c: the timeline bars' context menu and the Add/Remove Wait actions. */
void win_rebuild_bar_menu(PtWindow *self);
void win_on_bar_context_menu(PtTimelineView *v, int stask, gpointer data);
void win_action_wait_add_dialog(GSimpleAction *a, GVariant *p, gpointer data);
void win_action_wait_remove_last(GSimpleAction *a, GVariant *p, gpointer data);

/* window_form.c: after every load and edit (on the next main-loop turn). */
void win_rebuild_form(PtWindow *self);
/* Only the offset row, for a new selection (the tile entries keep what is typed). */
void win_rebuild_offset_row(PtWindow *self);

/* window_files.c: saving, the unsaved-changes prompt, drops and recent files. */
void win_action_save(GSimpleAction *a, GVariant *p, gpointer data);
void win_action_save_as(GSimpleAction *a, GVariant *p, gpointer data);
void win_action_open_recent(GSimpleAction *a, GVariant *p, gpointer data);
gboolean win_on_close_request(GtkWindow *w, gpointer data);
gboolean win_on_drop(GtkDropTarget *t, const GValue *value, double x, double y, gpointer data);
void win_on_recent_activated(GtkListBox *box, GtkListBoxRow *row, gpointer data);
void win_rebuild_recent(PtWindow *self);
void win_on_recent_changed(GtkRecentManager *mgr, gpointer data);

/* window_autosave.c: the crash-safe autosave and the recovery bar. */
GtkWidget *win_build_recovery_bar(PtWindow *self);
/* After any change of the model or its saved state (win_update_title_and_actions). */
void win_autosave_changed(PtWindow *self);
/* Before loading a model: the source it is loaded from (graph file, example, sProgram, trace);
 * graph_text (may be NULL): the graph's JSON when already at hand, else a graph file is read. */
void win_autosave_note_source(PtWindow *self, const char *source, const char *graph_text);
void win_autosave_dispose(PtWindow *self);
void win_action_recover_autosave(GSimpleAction *a, GVariant *p, gpointer data);
void win_action_discard_autosave(GSimpleAction *a, GVariant *p, gpointer data);

/* window_status.c: the status bar under the pages; refreshed with every model shown. */
GtkWidget *win_build_status_bar(PtWindow *self);
void win_update_status(PtWindow *self);

/* window_search.c: Ctrl+F on the timeline, Esc. */
gboolean win_stask_matches(PtWindow *self, int i, const char *query);
GtkWidget *win_build_timeline_search(PtWindow *self);
void win_search_apply(PtWindow *self);
void win_action_timeline_search(GSimpleAction *a, GVariant *p, gpointer data);
void win_action_clear_selection(GSimpleAction *a, GVariant *p, gpointer data);

/* window_range.c: the sidebar's Time Range section (the timeline's range selection). Build
 * it after the timeline. win_clear_range: TRUE when there was a range to clear (Esc). */
GtkWidget *win_build_range_section(PtWindow *self);
/* A section heading (window_pages.c). */
GtkWidget *win_heading(const char *text);
void win_action_zoom_range(GSimpleAction *a, GVariant *p, gpointer data);
void win_action_clear_range(GSimpleAction *a, GVariant *p, gpointer data);
gboolean win_clear_range(PtWindow *self);

/* window_shortcuts.c: give the window its keyboard-shortcuts window (Ctrl+?). */
void win_install_help_overlay(PtWindow *self);

G_END_DECLS

#endif
