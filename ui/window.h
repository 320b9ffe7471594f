/* window.h — PtWindow: one explorer window. A header bar (Open, hardware selector, primary
 * menu), an error banner, a start page listing the embedded examples and recent files, and once
 * a graph is loaded the timeline (critical path, dependency arrows, several CTAs) or the
 * sTask-graph, with the sTask table, the inspector and its tile/stages form beside it. Files
 * can be dropped on the window. */
#ifndef PT_WINDOW_H
#define PT_WINDOW_H

#include <gtk/gtk.h>

#include "explorer_model.h"

G_BEGIN_DECLS

#define PT_TYPE_WINDOW (pt_window_get_type())
G_DECLARE_FINAL_TYPE(PtWindow, pt_window, PT, WINDOW, GtkApplicationWindow)

PtWindow *pt_window_new(GtkApplication *app, const char *hw_name);
/* Load a file path or an embedded example name. On failure the error is shown in the window's
 * banner (and returned false); the window keeps whatever it showed before. */
gboolean pt_window_open(PtWindow *self, const char *source);
/* The banner's text when it is shown, else NULL. */
const char *pt_window_get_error(PtWindow *self);
/* Show msg in the banner (NULL hides it). */
void pt_window_show_error(PtWindow *self, const char *msg);
/* The model was changed from outside the window's own actions (actions.c): redraw everything,
 * keep the selection, hide the banner. */
void pt_window_refresh(PtWindow *self);
/* A one-line summary of what is shown (graph, hardware, kernel time), or NULL. */
char *pt_window_dup_summary(PtWindow *self);
/* Select an sTask by index (-1: none) in the table, timeline and inspector. */
void pt_window_select_stask(PtWindow *self, int stask);
/* The same by sTask id; FALSE (and the banner says why) when there is no such sTask. */
gboolean pt_window_select_stask_id(PtWindow *self, const char *id);
/* The status bar's three lines, generator / predicted time / resources (caller frees), and
 * whether it flags the sProgram as not executable (refused, invalid, over a limit). */
char *pt_window_dup_status_text(PtWindow *self);
gboolean pt_window_status_flagged(PtWindow *self);
/* Timeline search (win.timeline-search, Ctrl+F): go to the next (dir > 0) or previous matching
 * bar, as Enter / Shift+Enter in its entry do; FALSE when nothing matches. The entry is
 * pt_window_get_timeline_search_entry. */
gboolean pt_window_search_step(PtWindow *self, int dir);
GtkWidget *pt_window_get_timeline_search_entry(PtWindow *self);
/* The side panel (sTask table, inspector, form); win.show-sidebar (F9, the header bar's
 * toggle) shows and hides it. */
GtkWidget *pt_window_get_sidebar(PtWindow *self);
/* The sidebar's Time Range text: the timeline's range selection's duration, lane busy times
 * and per-sTask aggregates; "" when no range is selected (caller frees). */
char *pt_window_dup_range_text(PtWindow *self);
/* The inspector's text (caller frees). */
char *pt_window_dup_inspector_text(PtWindow *self);
/* The "Measured" page as text (caller frees): its header, then one line per row in the
 * table's current (sorted) order, cells separated by " | ". */
char *pt_window_dup_compare_text(PtWindow *self);

/* Issue 19, comparing two schedules: open the saved sProgram at path as B beside the shown one
 * (A) — same graph, same hardware — as a second lane group on one time axis, with the
 * sidebar's Comparison table (win.compare-with asks for the file; win.stop-comparing and Esc
 * end it). FALSE, with the reason in the banner (an sProgram of another graph is refused,
 * naming both graphs), on failure; the view is then unchanged. */
gboolean pt_window_compare_with(PtWindow *self, const char *path);
void pt_window_stop_comparing(PtWindow *self);
gboolean pt_window_is_comparing(PtWindow *self);
/* The Comparison section as text (caller frees): its header (files, kernel times, Δ), then one
 * line per row in the table's current (sorted) order, cells separated by " | ". */
char *pt_window_dup_diff_text(PtWindow *self);
/* Sort the Comparison table by the column titled `title` (as a click on its header does);
 * FALSE for no such column. */
gboolean pt_window_sort_diff(PtWindow *self, const char *title, gboolean descending);
/* Kernel time of B less A's (ns); NaN when not comparing. */
double pt_window_compare_kernel_delta_ns(PtWindow *self);

/* Editing goes through the window's actions (menus, shortcuts and tests alike), each on the
 * selected sTask: win.append (lane name, position) "(si)"; win.wait-add / win.wait-remove (id of
 * the sTask waited on, distance) "(si)"; win.stages (tensor, stages) "(si)"; win.tile (spec) "s";
 * win.undo, win.redo, win.save, win.save-as. A refused edit shows its reason in the banner. */
pt_explorer_model *pt_window_get_model(PtWindow *self);
int pt_window_get_selected(PtWindow *self);
GtkWidget *pt_window_get_timeline(PtWindow *self);
/* The sTask-graph view (page "graph"; the timeline is page "timeline"). */
GtkWidget *pt_window_get_graph(PtWindow *self);
/* Show page "timeline", "graph" or "code"; FALSE for another name. */
gboolean pt_window_show_page(PtWindow *self, const char *page);
/* Save the sProgram to path (no dialog); FALSE and the banner on failure. */
gboolean pt_window_save_to(PtWindow *self, const char *path);

/* Opening from the UI (Open, drops, recent files, examples): with unsaved edits the
 * unsaved-changes prompt asks first (Save / Discard / Cancel) and the file opens after the
 * answer (FALSE returned meanwhile); a saved sProgram whose graph is not a shipped example asks
 * for its graph file. */
gboolean pt_window_request_open(PtWindow *self, const char *source);
/* Load a saved sProgram over the given graph file (or example name). */
gboolean pt_window_open_sprogram_with_graph(PtWindow *self, const char *sprogram,
                                            const char *graph);
/* What a drop of files (GFile list) on the window does: the first opens here (through
 * pt_window_request_open), each further one in a new window. FALSE when none is local. */
gboolean pt_window_drop_files(PtWindow *self, GSList *files);
/* The primary menu's "Open Recent" items (win.open-recent, one path each). */
GMenuModel *pt_window_get_recent_menu(PtWindow *self);
/* The timeline bars' context menu: "Add Wait…" (win.wait-add-dialog) and one "Remove Wait on
 * X (distance d)" (win.wait-remove) per Wait of the selected sTask. */
GMenuModel *pt_window_get_bar_menu(PtWindow *self);
/* Inspector form: type into the tile field of an axis ("wg": warpgroups); FALSE for no such
 * field. Applying sends the changed fields to win.tile, as the Apply Tile button does. */
gboolean pt_window_set_tile_field(PtWindow *self, const char *axis, const char *text);
void pt_window_apply_tile_form(PtWindow *self);
/* The stages spin button of a buffered tensor (NULL if none); changing it runs win.stages. */
GtkWidget *pt_window_get_stages_spin(PtWindow *self, const char *tensor);
/* The inspector's iteration-offset spin of the selected loop-body sTask (NULL if none, or
 * before the form is rebuilt on the next main-loop turn); changing it runs win.offset. */
GtkWidget *pt_window_get_offset_spin(PtWindow *self);
/* The inspector form's split-K spin button (partition.split_k; sends win.split-k), or NULL. */
GtkWidget *pt_window_get_split_k_spin(PtWindow *self);
/* The "through a cluster" check button of split-K (partition.split_k_reduce). */
GtkWidget *pt_window_get_split_cluster_check(PtWindow *self);
/* The "factored decay" check button (the sProgram's "decay"; sends win.decay), or NULL when the
 * graph has no exp_decay chain. */
GtkWidget *pt_window_get_decay_check(PtWindow *self);
/* Its "16-bit factor" check button (decay "factored16"; insensitive with the tile form), or NULL
 * as that one. */
GtkWidget *pt_window_get_decay16_check(PtWindow *self);
/* The "Fence releases" check button (sProgram "release"), or NULL where it changes nothing. */
GtkWidget *pt_window_get_release_check(PtWindow *self);
/* The tile form's drop-down of the tensor-core rows' axis (wg_axis), or NULL when the graph
 * has no choice. */
GtkWidget *pt_window_get_rows_axis_drop_down(PtWindow *self);

/* Switch the hardware model (builtin name or JSON file) under the loaded sProgram, keeping it
 * and its history; FALSE (reason in the banner, previous model kept) on failure. */
gboolean pt_window_set_hw(PtWindow *self, const char *name);

/* Crash-safe autosave (window_autosave.c, autosave.h; only while the app's autosave session
 * runs). Each edit (re)starts a timer of `ms` (default 2000) after which the sProgram with its
 * unsaved edits is written by a worker thread; pt_window_autosave_now writes at once (TRUE
 * when a write was queued or earlier made); the path of the window's autosave while it may be
 * on disk, else NULL. */
void pt_window_set_autosave_delay(guint ms);
gboolean pt_window_autosave_now(PtWindow *self);
const char *pt_window_get_autosave_path(PtWindow *self);
/* Offer the autosaves of sessions that did not end cleanly in this window's recovery bar, one
 * at a time: win.recover-autosave loads the edits (into a new window when this one shows a
 * document), marked modified; win.discard-autosave deletes them. The bar's text while shown,
 * else NULL. */
void pt_window_offer_recovery(PtWindow *self);
const char *pt_window_get_recovery_text(PtWindow *self);

G_END_DECLS

#endif
