/* graph_view.h — PtGraphView: the sTask-graph as a layered DAG (graph_render.c) in a custom
 * GtkWidget drawn in snapshot(); the loop body folded, or unrolled on demand. Clicking a node emits "stask-selected" (sTask index), the
 * same signal the timeline emits; the selected node is outlined. The sTask-graph is borrowed:
 * call pt_graph_view_set_graph again whenever it changes (NULL: nothing shown). */
#ifndef PT_GRAPH_VIEW_H
#define PT_GRAPH_VIEW_H

#include <gtk/gtk.h>

#include "graph_render.h"

G_BEGIN_DECLS

#define PT_TYPE_GRAPH_VIEW (pt_graph_view_get_type())
G_DECLARE_FINAL_TYPE(PtGraphView, pt_graph_view, PT, GRAPH_VIEW, GtkWidget)

GtkWidget *pt_graph_view_new(void);
void pt_graph_view_set_graph(PtGraphView *self, const pt_stask_graph *sg);
void pt_graph_view_set_selected(PtGraphView *self, int stask);
/* Widget coordinates of the centre of node `stask` (FALSE if none), for tests. */
gboolean pt_graph_view_node_point(PtGraphView *self, int stask, double *x, double *y);
/* What a click at (x, y) does: select the node there, if any. */
void pt_graph_view_click(PtGraphView *self, double x, double y);

/* Loop iterations shown: 1 folds the body (one node per sTask); k > 1 unrolls k iterations
 * with their loop-carried edges. A double-click on the loop-body band toggles between folded
 * and PT_GRAPH_VIEW_DEFAULT_UNROLL ("unroll-changed" (k) is emitted on every change). */
#define PT_GRAPH_VIEW_DEFAULT_UNROLL 3
void pt_graph_view_set_unroll(PtGraphView *self, int k);
int pt_graph_view_get_unroll(PtGraphView *self);
/* What a double-click at (x, y) does; TRUE when it was on the loop body. */
gboolean pt_graph_view_double_click(PtGraphView *self, double x, double y);
/* The view over the graph: fitted (whole, centred) when a graph is opened or unrolled, F fits
 * again; Ctrl+wheel (or W/S, +/-) zooms about the pointer, a drag or the wheel pans.
 * pt_graph_view_zoom about (x, y), negative: the middle. get_scale: content to widget pixels. */
void pt_graph_view_zoom(PtGraphView *self, double factor, double x, double y);
void pt_graph_view_pan(PtGraphView *self, double dx, double dy);
void pt_graph_view_fit(PtGraphView *self);
double pt_graph_view_get_scale(PtGraphView *self);
/* Boxes laid out (folded: the number of sTasks). */
int pt_graph_view_get_node_count(PtGraphView *self);

G_END_DECLS

#endif
