/* graph_view.h — PtGraphView: the sTask-graph as a layered DAG (graph_render.c) in a custom
 * GtkWidget drawn in snapshot(). Clicking a node emits "stask-selected" (sTask index), the
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

G_END_DECLS

#endif
