/* timeline_view.h — PtTimelineView: the per-lane timeline as a custom GtkWidget drawn in
 * snapshot() through timeline_render.c. Ctrl+wheel zooms about the pointer, W/S zoom, A/D pan,
 * F fits; hovering a bar shows its sTask, iteration, start, end and duration; clicking a bar
 * selects its sTask ("stask-selected" signal). The model is borrowed: call
 * pt_timeline_view_set_model again whenever it changes. */
#ifndef PT_TIMELINE_VIEW_H
#define PT_TIMELINE_VIEW_H

#include <gtk/gtk.h>

#include "timeline_render.h"

G_BEGIN_DECLS

#define PT_TYPE_TIMELINE_VIEW (pt_timeline_view_get_type())
G_DECLARE_FINAL_TYPE(PtTimelineView, pt_timeline_view, PT, TIMELINE_VIEW, GtkWidget)

GtkWidget *pt_timeline_view_new(void);
/* m may be NULL (nothing shown). The view fits to the new model. */
void pt_timeline_view_set_model(PtTimelineView *self, const pt_tl_model *m);
void pt_timeline_view_set_selected(PtTimelineView *self, int stask);
void pt_timeline_view_fit(PtTimelineView *self);
void pt_timeline_view_zoom(PtTimelineView *self, double factor);
void pt_timeline_view_pan(PtTimelineView *self, double fraction);

G_END_DECLS

#endif
