/* timeline_view.c — PtTimelineView (see timeline_view.h). */
#include "timeline_view.h"
#include "busy.h"

#include <math.h>
#include <stdlib.h>

#include "menu_place.h"
#include "style.h"
#include "timeline_nav.h"
#include "timeline_tooltip.h"

struct _PtTimelineView {
    GtkWidget parent_instance;
    pt_tl_model model;
    bool have_model;
    pt_tl_viewport vp;
    bool fitted;            /* fit on the first allocation after a model change */
    double pointer_x;
    int drag_stask;         /* the sTask whose bar a drag started on, or -1 */
    double drag_x, drag_y;
    enum { DRAG_NONE, DRAG_BAR, DRAG_RANGE, DRAG_OVERVIEW } drag_mode;
    double drag_t0, drag_t1; /* DRAG_RANGE: the anchor time; DRAG_OVERVIEW: the view at begin */
    GtkWidget *context_menu; /* GtkPopoverMenu, or NULL */
    uint8_t *subrows;        /* each span's sub-row in its lane (the model points here) */
    uint8_t *group_subrows[PT_TL_MAX_GROUPS]; /* the same for a group's own spans */
    guint8 *matches;         /* search matches per sTask (vp.match points here), or NULL */
    int n_matches;
};

G_DEFINE_FINAL_TYPE(PtTimelineView, pt_timeline_view, GTK_TYPE_WIDGET)

enum { SIGNAL_STASK_SELECTED, SIGNAL_STASK_DROPPED, SIGNAL_CONTEXT_MENU, SIGNAL_RANGE_CHANGED,
       N_SIGNALS };
static guint signals[N_SIGNALS];

static void pt_timeline_view_measure(GtkWidget *w, GtkOrientation o, int for_size, int *min,
                                     int *nat, int *min_base, int *nat_base)
{
    PtTimelineView *self = PT_TIMELINE_VIEW(w);
    (void)for_size;
    if (o == GTK_ORIENTATION_HORIZONTAL) {
        *min = (int)PT_TL_LABEL_W + 100;
        *nat = 800;
    } else {
        int h = self->have_model ? (int)(pt_tl_content_height(&self->model) +
                                         pt_tl_header_h(&self->vp) - PT_TL_AXIS_H) : 120;
        if (self->have_model && self->vp.collapsed_groups) { /* folded groups take no room */
            pt_tl_viewport v = self->vp;
            v.fill_height = false;
            h = (int)(pt_tl_row_top(&self->model, &v, pt_tl_rows(&self->model)) + 8);
        }
        *min = h < 120 ? 120 : h;
        *nat = *min;
    }
    *min_base = *nat_base = -1;
}

static void pt_timeline_view_size_allocate(GtkWidget *w, int width, int height, int baseline)
{
    PtTimelineView *self = PT_TIMELINE_VIEW(w);
    (void)baseline;
    self->vp.width = width;
    self->vp.height = height;
    if (!self->fitted && self->have_model && width > 0) {
        pt_tl_fit(&self->model, &self->vp);
        self->fitted = true;
    }
}

static bool is_dark(GtkWidget *w)
{
    return pt_style_widget_is_dark(w);
}

gboolean pt_timeline_view_get_dark(PtTimelineView *self)
{
    return is_dark(GTK_WIDGET(self));
}

static void pt_timeline_view_snapshot(GtkWidget *w, GtkSnapshot *snap)
{
    PtTimelineView *self = PT_TIMELINE_VIEW(w);
    int width = gtk_widget_get_width(w), height = gtk_widget_get_height(w);
    if (width <= 0 || height <= 0 || !self->have_model)
        return;
    self->vp.width = width;
    self->vp.height = height;
    self->vp.dark = is_dark(w);
    cairo_t *cr = gtk_snapshot_append_cairo(snap, &GRAPHENE_RECT_INIT(0, 0, (float)width,
                                                                      (float)height));
    pt_tl_render(cr, &self->model, &self->vp, NULL);
    cairo_destroy(cr);
}

void pt_timeline_view_fit(PtTimelineView *self)
{
    if (!self->have_model)
        return;
    pt_tl_fit(&self->model, &self->vp);
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

void pt_timeline_view_zoom(PtTimelineView *self, double factor)
{
    double x = self->pointer_x >= PT_TL_LABEL_W ? self->pointer_x : -1;
    pt_tl_zoom(&self->vp, factor, x);
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

void pt_timeline_view_pan(PtTimelineView *self, double fraction)
{
    pt_tl_pan(&self->vp, fraction);
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

static gboolean on_scroll(GtkEventControllerScroll *c, double dx, double dy, gpointer data)
{
    PtTimelineView *self = data;
    GdkModifierType mods = gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(c));
    if (mods & GDK_CONTROL_MASK) {
        pt_tl_zoom(&self->vp, pow(1.15, -dy), self->pointer_x);
        gtk_widget_queue_draw(GTK_WIDGET(self));
        return TRUE;
    }
    if (dx != 0 || (mods & GDK_SHIFT_MASK)) {
        pt_timeline_view_pan(self, 0.05 * (dx != 0 ? dx : dy));
        return TRUE;
    }
    return FALSE; /* plain wheel scrolls the lanes (the parent scrolled window) */
}

static void on_motion(GtkEventControllerMotion *c, double x, double y, gpointer data)
{
    PtTimelineView *self = data;
    (void)c;
    self->pointer_x = x;
    if (!self->have_model)
        return;
    int g = 0;
    int64_t hit = pt_tl_hit_group(&self->model, &self->vp, x, y, &g);
    if (hit != self->vp.hover_span || g != self->vp.hover_group) {
        self->vp.hover_span = hit;
        self->vp.hover_group = g;
        gtk_widget_queue_draw(GTK_WIDGET(self));
    }
}

static void on_leave(GtkEventControllerMotion *c, gpointer data)
{
    PtTimelineView *self = data;
    (void)c;
    if (self->vp.hover_span != -1) {
        self->vp.hover_span = -1;
        gtk_widget_queue_draw(GTK_WIDGET(self));
    }
}

static gboolean menu_at_selection(PtTimelineView *self);

/* Arrow keys: with a bar selected, the selection moves to the next bar that way (timeline_nav.h)
 * and the view pans to keep it in sight; with none, Left / Right pan as A / D do, and Up / Down
 * are left to the scrolled lanes. */
gboolean pt_timeline_view_arrow(PtTimelineView *self, guint keyval)
{
    pt_tl_step step = keyval == GDK_KEY_Left    ? PT_TL_STEP_PREV
                      : keyval == GDK_KEY_Right ? PT_TL_STEP_NEXT
                      : keyval == GDK_KEY_Up    ? PT_TL_STEP_UP
                                                : PT_TL_STEP_DOWN;
    int g = self->vp.selected_group;
    int64_t n, cur = self->vp.selected_span;
    const pt_span *spans = pt_tl_group_spans(&self->model, g, &n);
    bool have = self->have_model && self->vp.selected_stask >= 0 && cur >= 0 && cur < n &&
                spans[cur].stask == self->vp.selected_stask;
    if (!have) {
        if (step == PT_TL_STEP_PREV || step == PT_TL_STEP_NEXT) {
            pt_timeline_view_pan(self, step == PT_TL_STEP_NEXT ? 0.1 : -0.1);
            return TRUE;
        }
        return FALSE;
    }
    int64_t next = pt_tl_neighbour(&self->model, g, cur, step);
    if (next < 0)
        return TRUE; /* at the edge: stay, and keep the key from scrolling the page */
    const pt_span *s = &spans[next];
    double off = g > 0 ? self->model.group_offset_ns[g] : 0, w = self->vp.t1_ns - self->vp.t0_ns;
    if (s->start_ns + off < self->vp.t0_ns || s->end_ns + off > self->vp.t1_ns) {
        double c = (s->start_ns + s->end_ns) / 2 + off; /* centred, zoom kept */
        self->vp.t0_ns = c - w / 2;
        self->vp.t1_ns = c + w / 2;
    }
    self->vp.selected_span = next;
    self->vp.selected_group = g;
    g_signal_emit(self, signals[SIGNAL_STASK_SELECTED], 0, s->stask);
    self->vp.selected_span = next; /* the window's selection answer keeps this bar */
    self->vp.selected_group = g;
    gtk_widget_queue_draw(GTK_WIDGET(self));
    return TRUE;
}

static gboolean on_key(GtkEventControllerKey *c, guint keyval, guint keycode,
                       GdkModifierType state, gpointer data)
{
    PtTimelineView *self = data;
    (void)c, (void)keycode;
    if (state & (GDK_CONTROL_MASK | GDK_ALT_MASK))
        return FALSE;
    switch (keyval) {
    case GDK_KEY_w: case GDK_KEY_W: pt_timeline_view_zoom(self, 1.25); return TRUE;
    case GDK_KEY_s: case GDK_KEY_S: pt_timeline_view_zoom(self, 1 / 1.25); return TRUE;
    case GDK_KEY_a: case GDK_KEY_A: pt_timeline_view_pan(self, -0.1); return TRUE;
    case GDK_KEY_d: case GDK_KEY_D: pt_timeline_view_pan(self, 0.1); return TRUE;
    case GDK_KEY_f: case GDK_KEY_F: pt_timeline_view_fit(self); return TRUE;
    case GDK_KEY_z: case GDK_KEY_Z: return pt_timeline_view_zoom_to_range(self);
    case GDK_KEY_Menu: return menu_at_selection(self);
    case GDK_KEY_Left: case GDK_KEY_Right: case GDK_KEY_Up: case GDK_KEY_Down:
        return pt_timeline_view_arrow(self, keyval);
    case GDK_KEY_F10: return (state & GDK_SHIFT_MASK) ? menu_at_selection(self) : FALSE;
    default: return FALSE;
    }
}

static void on_click(GtkGestureClick *g, int n, double x, double y, gpointer data)
{
    (void)g, (void)n;
    pt_timeline_view_click(data, x, y);
}

void pt_timeline_view_click(PtTimelineView *self, double x, double y)
{
    gtk_widget_grab_focus(GTK_WIDGET(self));
    if (!self->have_model)
        return;
    int group = pt_tl_group_header_at(&self->model, &self->vp, y);
    if (group >= 0) { /* a lane group's header folds or unfolds it */
        pt_timeline_view_set_group_collapsed(self, group,
            !pt_timeline_view_get_group_collapsed(self, group));
        return;
    }
    int g = 0;
    int64_t hit = pt_tl_hit_group(&self->model, &self->vp, x, y, &g);
    if (hit >= 0) {
        /* this instance's arrows, not another's, in the group it was clicked in (the compared
         * sProgram and the several-CTA tiles have spans of their own) */
        int64_t n;
        const pt_span *spans = pt_tl_group_spans(&self->model, g, &n);
        self->vp.selected_span = hit;
        self->vp.selected_group = g;
        g_signal_emit(self, signals[SIGNAL_STASK_SELECTED], 0, spans[hit].stask);
        self->vp.selected_span = hit; /* the window's selection answer keeps this bar */
        self->vp.selected_group = g;
        gtk_widget_queue_draw(GTK_WIDGET(self));
    } else if (pt_tl_part_at(&self->vp, x, y) == PT_TL_AT_LANES && self->vp.selected_stask >= 0) {
        /* Empty space: as in every timeline tool, a click there clears the selection. */
        self->vp.selected_span = -1;
        g_signal_emit(self, signals[SIGNAL_STASK_SELECTED], 0, -1);
        gtk_widget_queue_draw(GTK_WIDGET(self));
    }
}

/* While the menu is open the bar's tooltip would cover it: tooltips wait until it closes. */
static void on_menu_closed(PtTimelineView *self)
{
    gtk_widget_set_has_tooltip(GTK_WIDGET(self), TRUE);
}

gboolean pt_timeline_view_menu_open(PtTimelineView *self)
{
    return self->context_menu && gtk_widget_get_visible(self->context_menu);
}

/* Point the menu at (x, y), slid and flipped so that all of it lies inside the window
 * (menu_place.h): GTK only keeps a popup on the monitor, so near the window's right or bottom
 * edge the menu hung out of it. */
static void place_menu(PtTimelineView *self, double x, double y)
{
    GtkWidget *menu = self->context_menu, *root = GTK_WIDGET(gtk_widget_get_root(GTK_WIDGET(self)));
    /* A hidden popover measures 0 x 0: its contents (visible themselves) give the size, plus
     * room for the popover's frame. */
    GtkWidget *content = gtk_widget_get_first_child(menu);
    int mw = 0, mh = 0, ignore = 0;
    if (content) {
        gtk_widget_measure(content, GTK_ORIENTATION_HORIZONTAL, -1, &ignore, &mw, NULL, NULL);
        gtk_widget_measure(content, GTK_ORIENTATION_VERTICAL, mw, &ignore, &mh, NULL, NULL);
    }
    mw += 16;
    mh += 16;
    double wx = x, wy = y, ax, ay;
    bool above = false;
    if (root && gtk_widget_translate_coordinates(GTK_WIDGET(self), root, x, y, &wx, &wy)) {
        pt_menu_place(wx, wy, mw, mh, gtk_widget_get_width(root), gtk_widget_get_height(root),
                      4, &ax, &ay, &above);
        x += ax - wx; /* back into the view's coordinates */
        y += ay - wy;
    }
    gtk_popover_set_position(GTK_POPOVER(menu), above ? GTK_POS_TOP : GTK_POS_BOTTOM);
    gtk_popover_set_pointing_to(GTK_POPOVER(menu), &(GdkRectangle){(int)x, (int)y, 1, 1});
}

gboolean pt_timeline_view_context_menu(PtTimelineView *self, double x, double y)
{
    if (!self->have_model)
        return FALSE;
    /* Any group's bar (another EU class's tiles, the compared sProgram B), as a left click
     * selects it: the menu edits that sTask of the shown sProgram (B's bars carry A's sTask
     * indices; a B sTask A lacks has none, and no menu). */
    int g = 0;
    int64_t n, hit = pt_tl_hit_group(&self->model, &self->vp, x, y, &g);
    const pt_span *spans = pt_tl_group_spans(&self->model, g, &n);
    if (hit < 0 || hit >= n || spans[hit].stask < 0)
        return FALSE;
    int stask = spans[hit].stask;
    self->vp.selected_span = hit;
    self->vp.selected_group = g;
    /* Select first so the window builds the menu for this sTask. */
    g_signal_emit(self, signals[SIGNAL_STASK_SELECTED], 0, stask);
    self->vp.selected_span = hit; /* after the window's answer, as a click keeps the bar */
    self->vp.selected_group = g;
    g_signal_emit(self, signals[SIGNAL_CONTEXT_MENU], 0, stask);
    gtk_widget_queue_draw(GTK_WIDGET(self));
    if (!self->context_menu || !gtk_widget_get_mapped(GTK_WIDGET(self)))
        return TRUE;
    place_menu(self, x, y);
    gtk_widget_set_has_tooltip(GTK_WIDGET(self), FALSE);
    gtk_popover_popup(GTK_POPOVER(self->context_menu));
    return TRUE;
}

static void on_right_click(GtkGestureClick *g, int n, double x, double y, gpointer data)
{
    (void)n;
    gtk_widget_grab_focus(GTK_WIDGET(data));
    if (pt_timeline_view_context_menu(data, x, y))
        gtk_gesture_set_state(GTK_GESTURE(g), GTK_EVENT_SEQUENCE_CLAIMED);
}

void pt_timeline_view_set_context_menu(PtTimelineView *self, GMenuModel *menu)
{
    if (!self->context_menu) {
        self->context_menu = gtk_popover_menu_new_from_model(menu);
        gtk_widget_set_parent(self->context_menu, GTK_WIDGET(self));
        gtk_popover_set_has_arrow(GTK_POPOVER(self->context_menu), FALSE);
        /* Below the pointer, flipped or slid by GTK where the window ends (a START alignment
         * pinned its left edge to the pointer and cut it off at the right of the window). */
        gtk_popover_set_position(GTK_POPOVER(self->context_menu), GTK_POS_BOTTOM);
        g_signal_connect_swapped(self->context_menu, "closed", G_CALLBACK(on_menu_closed), self);
    } else {
        gtk_popover_menu_set_menu_model(GTK_POPOVER_MENU(self->context_menu), menu);
    }
}

/* The keyboard's way to the menu (Shift+F10, Menu key): at the selected bar. */
static gboolean menu_at_selection(PtTimelineView *self)
{
    double x, y;
    if (self->vp.selected_stask < 0 ||
        !pt_timeline_view_bar_point(self, self->vp.selected_stask, &x, &y))
        return FALSE;
    return pt_timeline_view_context_menu(self, x, y);
}

void pt_timeline_view_drag_begin(PtTimelineView *self, double x, double y)
{
    pt_timeline_view_drag_begin_full(self, x, y, FALSE);
}

/* The overview's rectangle follows the pointer: a press outside it centres the view there
 * first (as in Perfetto), then the drag moves it by the run's time per overview pixel. */
static void overview_drag(PtTimelineView *self, double x)
{
    double w = self->drag_t1 - self->drag_t0;
    double t = pt_tl_overview_x_to_time(&self->model, &self->vp, x);
    self->vp.t0_ns = t - w / 2;
    self->vp.t1_ns = t + w / 2;
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

static void range_drag(PtTimelineView *self, double x)
{
    double t = pt_tl_x_to_time(&self->vp, fmax(x, PT_TL_LABEL_W));
    self->vp.range_t0_ns = fmin(t, self->drag_t0);
    self->vp.range_t1_ns = fmax(t, self->drag_t0);
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

void pt_timeline_view_drag_begin_full(PtTimelineView *self, double x, double y, gboolean shift)
{
    self->drag_stask = -1;
    self->drag_mode = DRAG_NONE;
    self->drag_x = x;
    self->drag_y = y;
    if (!self->have_model)
        return;
    pt_tl_part part = pt_tl_part_at(&self->vp, x, y);
    if (part == PT_TL_AT_OVERVIEW) {
        self->drag_mode = DRAG_OVERVIEW;
        self->drag_t0 = self->vp.t0_ns;
        self->drag_t1 = self->vp.t1_ns;
        double vx0 = pt_tl_overview_time_to_x(&self->model, &self->vp, self->vp.t0_ns);
        double vx1 = pt_tl_overview_time_to_x(&self->model, &self->vp, self->vp.t1_ns);
        if (x < vx0 || x > vx1)
            overview_drag(self, x);
        /* From here the drag is relative: the grab point stays under the pointer. */
        self->drag_t0 = self->vp.t0_ns;
        self->drag_t1 = self->vp.t1_ns;
        return;
    }
    if (part == PT_TL_AT_RULER || (shift && part == PT_TL_AT_LANES)) {
        self->drag_mode = DRAG_RANGE;
        self->drag_t0 = pt_tl_x_to_time(&self->vp, x);
        return;
    }
    int64_t hit = pt_tl_hit(&self->model, &self->vp, x, y);
    if (hit >= 0) {
        self->drag_mode = DRAG_BAR;
        self->drag_stask = self->model.spans[hit].stask;
    }
}

void pt_timeline_view_drag_update(PtTimelineView *self, double dx, double dy)
{
    (void)dy;
    if (!self->have_model)
        return;
    if (self->drag_mode == DRAG_RANGE && fabs(dx) >= 3) {
        range_drag(self, self->drag_x + dx);
    } else if (self->drag_mode == DRAG_OVERVIEW) {
        double e0, e1;
        pt_tl_extent(&self->model, &e0, &e1);
        double w = self->vp.width - PT_TL_LABEL_W;
        double dt = dx * (e1 - e0) / (w < 1 ? 1 : w);
        self->vp.t0_ns = self->drag_t0 + dt;
        self->vp.t1_ns = self->drag_t1 + dt;
        gtk_widget_queue_draw(GTK_WIDGET(self));
    }
}

void pt_timeline_view_drag_end(PtTimelineView *self, double dx, double dy)
{
    int stask = self->drag_stask, mode = self->drag_mode;
    self->drag_stask = -1;
    self->drag_mode = DRAG_NONE;
    if (!self->have_model)
        return;
    if (mode == DRAG_OVERVIEW) {
        self->drag_mode = DRAG_OVERVIEW;
        pt_timeline_view_drag_update(self, dx, dy);
        self->drag_mode = DRAG_NONE;
        return;
    }
    if (mode == DRAG_RANGE) {
        if (fabs(dx) < 3) /* a click on the ruler clears the range */
            self->vp.range_t0_ns = self->vp.range_t1_ns = 0;
        else
            range_drag(self, self->drag_x + dx);
        g_signal_emit(self, signals[SIGNAL_RANGE_CHANGED], 0);
        gtk_widget_queue_draw(GTK_WIDGET(self));
        return;
    }
    if (stask < 0 || (fabs(dx) < 4 && fabs(dy) < 4))
        return;
    double x = self->drag_x + dx, y = self->drag_y + dy;
    if (y < pt_tl_header_h(&self->vp))
        return;
    int row = pt_tl_row_at(&self->model, &self->vp, y);
    if (row < 0 || self->model.n_lanes <= 0)
        return;
    /* A drop in another lane group means the same lane, at that group's time. */
    int lane = row % self->model.n_lanes, g = row / self->model.n_lanes;
    double t = pt_tl_x_to_time(&self->vp, x < PT_TL_LABEL_W ? PT_TL_LABEL_W : x) -
               (g > 0 ? self->model.group_offset_ns[g] : 0);
    g_signal_emit(self, signals[SIGNAL_STASK_DROPPED], 0, stask, lane, t);
}

static void on_drag_begin(GtkGestureDrag *g, double x, double y, gpointer data)
{
    GdkModifierType mods =
        gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(g));
    pt_timeline_view_drag_begin_full(data, x, y, (mods & GDK_SHIFT_MASK) != 0);
}

static void on_drag_update(GtkGestureDrag *g, double dx, double dy, gpointer data)
{
    (void)g;
    pt_timeline_view_drag_update(data, dx, dy);
}

static void on_drag_end(GtkGestureDrag *g, double dx, double dy, gpointer data)
{
    (void)g;
    pt_timeline_view_drag_end(data, dx, dy);
}

void pt_timeline_view_set_range_selection(PtTimelineView *self, double t0_ns, double t1_ns)
{
    self->vp.range_t0_ns = t1_ns > t0_ns ? t0_ns : 0;
    self->vp.range_t1_ns = t1_ns > t0_ns ? t1_ns : 0;
    g_signal_emit(self, signals[SIGNAL_RANGE_CHANGED], 0);
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

gboolean pt_timeline_view_get_range_selection(PtTimelineView *self, double *t0_ns,
                                              double *t1_ns)
{
    *t0_ns = self->vp.range_t0_ns;
    *t1_ns = self->vp.range_t1_ns;
    return self->have_model && self->vp.range_t1_ns > self->vp.range_t0_ns;
}

gboolean pt_timeline_view_zoom_to_range(PtTimelineView *self)
{
    double t0, t1;
    if (!pt_timeline_view_get_range_selection(self, &t0, &t1))
        return FALSE;
    /* A little room either side so the range's edges stay visible. */
    double pad = (t1 - t0) * 0.02;
    pt_timeline_view_set_range(self, t0 - pad, t1 + pad);
    return TRUE;
}

gboolean pt_timeline_view_bar_point(PtTimelineView *self, int stask, double *x, double *y)
{
    if (!self->have_model)
        return FALSE;
    for (int64_t i = 0; i < self->model.n_spans; i++) {
        const pt_span *s = &self->model.spans[i];
        if (s->stask != stask)
            continue;
        /* Just inside its start: bars of one lane may overlap (asynchronous copies) and a hit
         * goes to the nearest start. */
        double bx = fmin(pt_tl_time_to_x(&self->vp, s->start_ns) + 2,
                         pt_tl_time_to_x(&self->vp, (s->start_ns + s->end_ns) / 2));
        double by, bh;
        pt_tl_span_y(&self->model, &self->vp, i, 0, &by, &bh);
        by += bh / 2;
        int64_t hit = pt_tl_hit(&self->model, &self->vp, bx, by);
        if (hit < 0 || self->model.spans[hit].stask != stask)
            continue; /* covered by a neighbour at this zoom: try the next bar */
        *x = bx;
        *y = by;
        return TRUE;
    }
    return FALSE;
}

gboolean pt_timeline_view_span_point(PtTimelineView *self, int group, int64_t span, double *x,
                                     double *y)
{
    int64_t n = 0;
    if (!self->have_model || group < 0 || group >= pt_tl_groups(&self->model))
        return FALSE;
    const pt_span *spans = pt_tl_group_spans(&self->model, group, &n);
    if (span < 0 || span >= n)
        return FALSE;
    double off = group > 0 ? self->model.group_offset_ns[group] : 0, by, bh;
    *x = pt_tl_time_to_x(&self->vp, (spans[span].start_ns + pt_span_unit_end(&spans[span])) / 2 + off);
    pt_tl_span_y(&self->model, &self->vp, span, group, &by, &bh);
    *y = by + bh / 2;
    return TRUE;
}

char *pt_timeline_view_dup_tooltip(PtTimelineView *self, double x, double y)
{
    if (!self->have_model)
        return NULL;
    char *m = pt_tl_tooltip_markup(&self->model, &self->vp, x, y);
    char *g = m ? g_strdup(m) : NULL;
    free(m);
    return g;
}

double pt_timeline_view_lane_y(PtTimelineView *self, int lane)
{
    return pt_tl_row_top(&self->model, &self->vp, lane) +
           pt_tl_row_height(&self->model, &self->vp, lane) / 2;
}

void pt_timeline_view_set_range(PtTimelineView *self, double t0_ns, double t1_ns)
{
    if (!(t1_ns > t0_ns))
        return;
    self->vp.t0_ns = t0_ns;
    self->vp.t1_ns = t1_ns;
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

double pt_timeline_view_time_x(PtTimelineView *self, double t_ns)
{
    return pt_tl_time_to_x(&self->vp, t_ns);
}

static gboolean on_query_tooltip(GtkWidget *w, int x, int y, gboolean kb, GtkTooltip *tip,
                                 gpointer data)
{
    PtTimelineView *self = PT_TIMELINE_VIEW(w);
    (void)kb, (void)data;
    if (!self->have_model)
        return FALSE;
    char *markup = pt_tl_tooltip_markup(&self->model, &self->vp, x, y);
    if (!markup)
        return FALSE;
    gtk_tooltip_set_markup(tip, markup);
    free(markup);
    return TRUE;
}

static void pt_timeline_view_dispose(GObject *o)
{
    PtTimelineView *self = PT_TIMELINE_VIEW(o);
    g_clear_pointer(&self->context_menu, gtk_widget_unparent);
    g_clear_pointer(&self->subrows, g_free);
    for (int g = 0; g < PT_TL_MAX_GROUPS; g++)
        g_clear_pointer(&self->group_subrows[g], g_free);
    g_clear_pointer(&self->matches, g_free);
    self->vp.match = NULL;
    G_OBJECT_CLASS(pt_timeline_view_parent_class)->dispose(o);
}

static void pt_timeline_view_class_init(PtTimelineViewClass *klass)
{
    GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->dispose = pt_timeline_view_dispose;
    wc->measure = pt_timeline_view_measure;
    wc->size_allocate = pt_timeline_view_size_allocate;
    wc->snapshot = pt_timeline_view_snapshot;
    signals[SIGNAL_STASK_SELECTED] = g_signal_new("stask-selected", G_TYPE_FROM_CLASS(klass),
        G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);
    /* A right click (or Shift+F10) on a bar of this sTask, after it was selected: the
     * window refreshes the context menu's items before it pops up. */
    signals[SIGNAL_CONTEXT_MENU] = g_signal_new("context-menu", G_TYPE_FROM_CLASS(klass),
        G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);
    /* The time-range selection changed (set, moved or cleared). */
    signals[SIGNAL_RANGE_CHANGED] = g_signal_new("range-changed", G_TYPE_FROM_CLASS(klass),
        G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
    signals[SIGNAL_STASK_DROPPED] = g_signal_new("stask-dropped", G_TYPE_FROM_CLASS(klass),
        G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 3, G_TYPE_INT, G_TYPE_INT,
        G_TYPE_DOUBLE);
    gtk_widget_class_set_accessible_role(wc, GTK_ACCESSIBLE_ROLE_IMG);
}

static void pt_timeline_view_init(PtTimelineView *self)
{
    GtkWidget *w = GTK_WIDGET(self);
    self->vp.selected_stask = -1;
    self->vp.hover_span = -1;
    self->vp.selected_span = -1;
    self->vp.show_critical = true;
    self->vp.fill_height = true; /* lanes use the height the page gives them */
    self->vp.overview = true;    /* the whole run above the ruler, as in Perfetto */
    self->vp.busy_pct = true;
    self->vp.t0_ns = 0;
    self->vp.t1_ns = 1;
    self->pointer_x = -1;
    gtk_widget_set_focusable(w, TRUE);
    gtk_widget_set_has_tooltip(w, TRUE);
    g_signal_connect(w, "query-tooltip", G_CALLBACK(on_query_tooltip), NULL);

    GtkEventController *scroll = gtk_event_controller_scroll_new(
        GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
    g_signal_connect(scroll, "scroll", G_CALLBACK(on_scroll), self);
    gtk_widget_add_controller(w, scroll);
    GtkEventController *motion = gtk_event_controller_motion_new();
    g_signal_connect(motion, "motion", G_CALLBACK(on_motion), self);
    g_signal_connect(motion, "leave", G_CALLBACK(on_leave), self);
    gtk_widget_add_controller(w, motion);
    GtkEventController *key = gtk_event_controller_key_new();
    g_signal_connect(key, "key-pressed", G_CALLBACK(on_key), self);
    gtk_widget_add_controller(w, key);
    GtkGesture *click = gtk_gesture_click_new();
    g_signal_connect(click, "pressed", G_CALLBACK(on_click), self);
    gtk_widget_add_controller(w, GTK_EVENT_CONTROLLER(click));
    GtkGesture *rclick = gtk_gesture_click_new();
    gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(rclick), GDK_BUTTON_SECONDARY);
    g_signal_connect(rclick, "pressed", G_CALLBACK(on_right_click), self);
    gtk_widget_add_controller(w, GTK_EVENT_CONTROLLER(rclick));
    self->drag_stask = -1;
    GtkGesture *drag = gtk_gesture_drag_new();
    gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(drag), GDK_BUTTON_PRIMARY);
    g_signal_connect(drag, "drag-begin", G_CALLBACK(on_drag_begin), self);
    g_signal_connect(drag, "drag-update", G_CALLBACK(on_drag_update), self);
    g_signal_connect(drag, "drag-end", G_CALLBACK(on_drag_end), self);
    gtk_widget_add_controller(w, GTK_EVENT_CONTROLLER(drag));
    gtk_accessible_update_property(GTK_ACCESSIBLE(w), GTK_ACCESSIBLE_PROPERTY_LABEL,
        "Predicted timeline: one row per lane; the sTask table lists every bar", -1);
    /* Follow the light/dark switch at once (the renderer takes the flag). */
    pt_style_connect_changed(G_OBJECT(self), G_CALLBACK(gtk_widget_queue_draw));
}

GtkWidget *pt_timeline_view_new(void)
{
    return g_object_new(PT_TYPE_TIMELINE_VIEW, NULL);
}

static void set_model(PtTimelineView *self, const pt_tl_model *m, gboolean keep_view);

void pt_timeline_view_set_model(PtTimelineView *self, const pt_tl_model *m)
{
    set_model(self, m, FALSE);
}

void pt_timeline_view_update_model(PtTimelineView *self, const pt_tl_model *m)
{
    set_model(self, m, TRUE);
}

static void set_model(PtTimelineView *self, const pt_tl_model *m, gboolean keep_view)
{
    self->have_model = m != NULL;
    g_clear_pointer(&self->subrows, g_free);
    for (int g = 0; g < PT_TL_MAX_GROUPS; g++)
        g_clear_pointer(&self->group_subrows[g], g_free);
    if (m) {
        self->model = *m;
        /* Overlapping bars of a lane (copies in flight together) are stacked in sub-rows. */
        if (!m->span_subrow && m->n_spans > 0) {
            self->subrows = g_new0(uint8_t, m->n_spans);
            pt_tl_assign_subrows(m->spans, m->n_spans, m->n_lanes, self->subrows,
                                 self->model.lane_subrows);
            self->model.span_subrow = self->subrows;
        }
        /* A group with spans of its own stacks them too; a lane is as tall as its most
         * stacked group needs, so the groups' rows line up. */
        for (int g = 1; g < pt_tl_groups(m); g++) {
            if (!m->group_spans[g] || m->group_span_subrow[g] || m->group_n_spans[g] <= 0)
                continue;
            int k[PT_MAX_LANES];
            self->group_subrows[g] = g_new0(uint8_t, m->group_n_spans[g]);
            pt_tl_assign_subrows(m->group_spans[g], m->group_n_spans[g], m->n_lanes,
                                 self->group_subrows[g], k);
            self->model.group_span_subrow[g] = self->group_subrows[g];
            for (int l = 0; l < PT_MAX_LANES; l++)
                if (k[l] > self->model.lane_subrows[l])
                    self->model.lane_subrows[l] = k[l];
        }
    }
    self->vp.hover_span = -1;
    self->vp.hover_group = 0;
    self->vp.selected_stask = -1;
    self->vp.selected_span = -1;
    self->vp.selected_group = 0;
    /* The search's mask was for the sTasks of the model before (the window sets it again). */
    g_clear_pointer(&self->matches, g_free);
    self->vp.match = NULL;
    self->n_matches = 0;
    self->fitted = false;
    if (!keep_view || !m) /* a time range belongs to the run it was taken on */
        self->vp.range_t0_ns = self->vp.range_t1_ns = 0;
    if (keep_view && m && self->vp.t1_ns > self->vp.t0_ns) {
        self->fitted = true; /* an edit: the user's zoom and pan stay */
    } else if (m && self->vp.width > 0) {
        pt_tl_fit(&self->model, &self->vp);
        self->fitted = true;
    }
    gtk_widget_queue_resize(GTK_WIDGET(self));
    gtk_widget_queue_draw(GTK_WIDGET(self));
    /* The bars changed under the range (or it was cleared): its figures are recomputed. */
    g_signal_emit(self, signals[SIGNAL_RANGE_CHANGED], 0);
}

void pt_timeline_view_set_selected(PtTimelineView *self, int stask)
{
    if (self->vp.selected_stask == stask)
        return;
    self->vp.selected_stask = stask;
    /* Selected elsewhere (table, graph): the arrows go to its instance nearest the middle of
     * the view, unless a click already chose one of its bars. */
    const pt_tl_model *m = &self->model;
    int64_t cur = self->vp.selected_span, n_cur = 0;
    const pt_span *cur_spans = pt_tl_group_spans(m, self->vp.selected_group, &n_cur);
    if (self->have_model && !(cur >= 0 && cur < n_cur && cur_spans[cur].stask == stask)) {
        double mid = (self->vp.t0_ns + self->vp.t1_ns) / 2, best_d = INFINITY;
        self->vp.selected_span = -1;
        self->vp.selected_group = 0;
        for (int64_t i = 0; i < m->n_spans; i++)
            if (m->spans[i].stask == stask && fabs(m->spans[i].start_ns - mid) < best_d) {
                best_d = fabs(m->spans[i].start_ns - mid);
                self->vp.selected_span = i;
            }
    }
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

int64_t pt_timeline_view_get_selected_span(PtTimelineView *self)
{
    return self->vp.selected_span;
}

int pt_timeline_view_get_selected_group(PtTimelineView *self)
{
    return self->vp.selected_group;
}

void pt_timeline_view_set_show_critical(PtTimelineView *self, gboolean show)
{
    self->vp.show_critical = show;
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

void pt_timeline_view_render(PtTimelineView *self, cairo_t *cr, int width, int height, gboolean dark,
                             pt_tl_stats *stats)
{
    if (!self->have_model)
        return;
    pt_tl_viewport v = self->vp;
    v.width = width;
    v.height = height;
    v.dark = dark;
    pt_tl_render(cr, &self->model, &v, stats);
}

void pt_timeline_view_get_range(PtTimelineView *self, double *t0_ns, double *t1_ns)
{
    *t0_ns = self->vp.t0_ns;
    *t1_ns = self->vp.t1_ns;
}

void pt_timeline_view_set_matches(PtTimelineView *self, const guint8 *mask, int n)
{
    g_clear_pointer(&self->matches, g_free);
    self->n_matches = 0;
    self->vp.match = NULL;
    if (mask && self->have_model && n == self->model.n_stasks && n > 0) {
        self->matches = g_memdup2(mask, (gsize)n);
        self->n_matches = n;
        self->vp.match = self->matches;
    }
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

gboolean pt_timeline_view_step_match(PtTimelineView *self, int dir)
{
    const pt_tl_model *m = &self->model;
    if (!self->have_model || !self->matches || m->n_spans <= 0)
        return FALSE;
    /* From the current match (the selected bar), else from the edge of the view. */
    int64_t cur = self->vp.selected_span;
    int64_t n = m->n_spans, from;
    if (cur >= 0 && cur < n)
        from = cur;
    else
        from = dir > 0 ? pt_tl_lower_bound(m->spans, n, self->vp.t0_ns) - 1
                       : pt_tl_lower_bound(m->spans, n, self->vp.t1_ns);
    for (int64_t k = 1; k <= n; k++) {
        int64_t i = ((from + (dir > 0 ? k : -k)) % n + n) % n; /* wraps round, like Perfetto */
        int st = m->spans[i].stask;
        if (st < 0 || st >= self->n_matches || !self->matches[st])
            continue;
        const pt_span *s = &m->spans[i];
        double w = self->vp.t1_ns - self->vp.t0_ns;
        if (s->start_ns < self->vp.t0_ns || s->end_ns > self->vp.t1_ns) {
            double mid = (s->start_ns + s->end_ns) / 2; /* centre it, at the same zoom */
            self->vp.t0_ns = mid - w / 2;
            self->vp.t1_ns = mid + w / 2;
        }
        /* The window selects the sTask through the signal; this bar stays the one shown. */
        self->vp.selected_span = i;
        self->vp.selected_group = 0;
        g_signal_emit(self, signals[SIGNAL_STASK_SELECTED], 0, st);
        self->vp.selected_stask = st;
        self->vp.selected_span = i;
        self->vp.selected_group = 0;
        gtk_widget_queue_draw(GTK_WIDGET(self));
        return TRUE;
    }
    return FALSE;
}

int pt_timeline_view_get_n_lanes(PtTimelineView *self)
{
    return self->have_model ? self->model.n_lanes : 0;
}

const pt_tl_model *pt_timeline_view_get_model(PtTimelineView *self)
{
    return self->have_model ? &self->model : NULL;
}

void pt_timeline_view_set_group_collapsed(PtTimelineView *self, int group, gboolean collapsed)
{
    if (group < 0 || group >= 32)
        return;
    if (collapsed)
        self->vp.collapsed_groups |= 1u << group;
    else
        self->vp.collapsed_groups &= ~(1u << group);
    gtk_widget_queue_resize(GTK_WIDGET(self));
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

gboolean pt_timeline_view_get_group_collapsed(PtTimelineView *self, int group)
{
    return group >= 0 && group < 32 && ((self->vp.collapsed_groups >> group) & 1u);
}

double pt_timeline_view_group_header_y(PtTimelineView *self, int group)
{
    if (!self->have_model || self->model.n_lanes <= 0)
        return -1;
    return pt_tl_row_top(&self->model, &self->vp, group * self->model.n_lanes) -
           PT_TL_GROUP_H / 2;
}
