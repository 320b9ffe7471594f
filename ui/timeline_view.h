/* timeline_view.h — PtTimelineView: the per-lane timeline as a custom GtkWidget drawn in
 * snapshot() through timeline_render.c. Ctrl+wheel zooms about the pointer, W/S zoom, A/D pan,
 * F fits; hovering a bar shows its sTask, iteration, start, end, duration, measured mean and
 * prediction error; an overview strip of the whole run and a time ruler above the lanes
 * (dragging them moves the view or selects a time range); clicking a bar selects its sTask ("stask-selected" signal) and draws that
 * instance's dependency arrows; a right click opens the context menu. The model is borrowed: call
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
/* The same after an edit of the model shown: the time range (zoom and pan) is kept. */
void pt_timeline_view_update_model(PtTimelineView *self, const pt_tl_model *m);
/* Search: mask (n entries, one per sTask; NULL clears) marks the sTasks whose bars are
 * outlined. pt_timeline_view_step_match moves to the next (dir > 0) or previous matching bar in
 * time after the current one, scrolls it into view and selects it ("stask-selected"); FALSE when
 * nothing matches. */
void pt_timeline_view_set_matches(PtTimelineView *self, const guint8 *mask, int n);
gboolean pt_timeline_view_step_match(PtTimelineView *self, int dir);
/* Lanes drawn (one group). */
int pt_timeline_view_get_n_lanes(PtTimelineView *self);
/* The visible time range. */
void pt_timeline_view_get_range(PtTimelineView *self, double *t0_ns, double *t1_ns);
void pt_timeline_view_set_selected(PtTimelineView *self, int stask);
void pt_timeline_view_fit(PtTimelineView *self);
void pt_timeline_view_zoom(PtTimelineView *self, double factor);
void pt_timeline_view_pan(PtTimelineView *self, double fraction);

/* What a primary click at (x, y) does: on a bar, select its sTask ("stask-selected"); on empty
 * plot space, "stask-selected" with -1 (nothing selected). Public for tests. */
void pt_timeline_view_click(PtTimelineView *self, double x, double y);
/* Dragging a bar (GtkGestureDrag, button 1) emits "stask-dropped" (sTask index, target lane,
 * drop time in ns) when released at least a few pixels away on a lane. The handlers are public
 * so that tests can drive a drag without synthesising pointer events: begin at (x, y) in widget
 * coordinates, end at an offset (dx, dy) from there. */
void pt_timeline_view_drag_begin(PtTimelineView *self, double x, double y);
void pt_timeline_view_drag_end(PtTimelineView *self, double dx, double dy);
/* Where the drag begins decides what it does: on the overview strip it moves the visible
 * range (the framed rectangle), on the time ruler — or with Shift anywhere on the lanes — it
 * selects a time range ("range-changed"; a click on the ruler clears it), on a bar it moves
 * the bar. _update follows the pointer while the button is held. */
void pt_timeline_view_drag_begin_full(PtTimelineView *self, double x, double y, gboolean shift);
void pt_timeline_view_drag_update(PtTimelineView *self, double dx, double dy);
/* The time-range selection (t1 <= t0 clears it; emits "range-changed"); get: FALSE when none.
 * Z (or pt_timeline_view_zoom_to_range) shows just the range; FALSE when there is none. */
void pt_timeline_view_set_range_selection(PtTimelineView *self, double t0_ns, double t1_ns);
gboolean pt_timeline_view_get_range_selection(PtTimelineView *self, double *t0_ns,
                                              double *t1_ns);
gboolean pt_timeline_view_zoom_to_range(PtTimelineView *self);
/* Several CTAs: lane groups fold to their header band (a click on it toggles); the y of group
 * g's header (for tests), -1 without a model. */
void pt_timeline_view_set_group_collapsed(PtTimelineView *self, int group, gboolean collapsed);
gboolean pt_timeline_view_get_group_collapsed(PtTimelineView *self, int group);
double pt_timeline_view_group_header_y(PtTimelineView *self, int group);
/* The model drawn (borrowed; NULL when none). */
const pt_tl_model *pt_timeline_view_get_model(PtTimelineView *self);
/* Widget coordinates just inside the start of the first bar of sTask `stask` that a click there would
 * hit (FALSE if none),
 * and the y of the middle of lane `lane`. */
gboolean pt_timeline_view_bar_point(PtTimelineView *self, int stask, double *x, double *y);
/* The middle of bar `span` of lane group `group`'s spans (pt_tl_group_spans), in widget
 * coordinates; FALSE when there is no such bar. */
gboolean pt_timeline_view_span_point(PtTimelineView *self, int group, int64_t span, double *x,
                                     double *y);
/* The tooltip's markup at (x, y) as the widget would show it (NULL: none; g_free it). */
char *pt_timeline_view_dup_tooltip(PtTimelineView *self, double x, double y);
double pt_timeline_view_lane_y(PtTimelineView *self, int lane);
/* Show the time range [t0_ns, t1_ns]. */
void pt_timeline_view_set_range(PtTimelineView *self, double t0_ns, double t1_ns);
double pt_timeline_view_time_x(PtTimelineView *self, double t_ns);

/* The bar (span index) whose dependency arrows are drawn: the one clicked, or the selected
 * sTask's instance nearest the middle of the view; -1 for none. */
int64_t pt_timeline_view_get_selected_span(PtTimelineView *self);
/* The lane group that bar is in: its index is into that group's spans (pt_tl_group_spans). */
int pt_timeline_view_get_selected_group(PtTimelineView *self);
void pt_timeline_view_set_show_critical(PtTimelineView *self, gboolean show);
/* Right click on bars: the popover shows `menu` (its actions resolve from the view, e.g.
 * win.*). Before it pops up, the clicked bar's sTask is selected and "context-menu" (sTask
 * index) is emitted so the owner can refresh the items. pt_timeline_view_context_menu does
 * what a right click at (x, y) does (TRUE when a bar is there); Shift+F10 and the Menu key
 * open it at the selected bar. */
void pt_timeline_view_set_context_menu(PtTimelineView *self, GMenuModel *menu);
gboolean pt_timeline_view_context_menu(PtTimelineView *self, double x, double y);
/* Whether the context menu is open (the view shows no tooltip meanwhile). */
gboolean pt_timeline_view_menu_open(PtTimelineView *self);
/* What an arrow key (GDK_KEY_Left/Right/Up/Down) does on the timeline: moves the selected bar
 * to its neighbour (timeline_nav.h), or pans (Left/Right) when none is selected. TRUE when the
 * key was used. */
gboolean pt_timeline_view_arrow(PtTimelineView *self, guint keyval);
/* Whether the widget draws in the dark style (GtkSettings gtk-application-prefer-dark-theme). */
gboolean pt_timeline_view_get_dark(PtTimelineView *self);
/* Render what the widget shows, at another size and style (tests, the benchmark). */
void pt_timeline_view_render(PtTimelineView *self, cairo_t *cr, int width, int height,
                             gboolean dark, pt_tl_stats *stats);

G_END_DECLS

#endif
