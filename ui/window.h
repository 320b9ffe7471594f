/* window.h — PtWindow: one explorer window. A header bar (Open, hardware selector, primary
 * menu), an error banner, a start page listing the embedded examples, and once a graph is
 * loaded the timeline with the sTask table and the inspector beside it. */
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
/* The inspector's text (caller frees). */
char *pt_window_dup_inspector_text(PtWindow *self);

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

G_END_DECLS

#endif
