/* graph_view.c — PtGraphView (see graph_view.h). */
#include "graph_view.h"

#include <math.h>

#include "style.h"

struct _PtGraphView {
    GtkWidget parent_instance;
    const pt_stask_graph *sg;
    pt_gr_layout layout;
    bool have_layout;
    pt_gr_viewport vp;
    int unroll;             /* loop iterations shown (1: folded) */
    double pointer_x, pointer_y; /* the last pointer position (-1: none) */
    double drag_dx, drag_dy;     /* the pan drag's offset applied so far */
    int shown_n;                 /* sTasks of the graph last shown (-1: none) */
};

G_DEFINE_FINAL_TYPE(PtGraphView, pt_graph_view, GTK_TYPE_WIDGET)

enum { SIGNAL_STASK_SELECTED, SIGNAL_UNROLL_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void pt_graph_view_measure(GtkWidget *w, GtkOrientation o, int for_size, int *min,
                                  int *nat, int *min_base, int *nat_base)
{
    PtGraphView *self = PT_GRAPH_VIEW(w);
    (void)for_size;
    *min = 200;
    if (o == GTK_ORIENTATION_HORIZONTAL)
        *nat = self->have_layout ? (int)self->layout.content_w : 400;
    else
        *nat = self->have_layout ? (int)self->layout.content_h : 300;
    if (*nat < *min)
        *nat = *min;
    *min_base = *nat_base = -1;
}

static bool is_dark(GtkWidget *w)
{
    return pt_style_widget_is_dark(w); /* the preference or the theme's own colours */
}

static void on_style_changed(GObject *o, GParamSpec *ps, gpointer data)
{
    (void)o, (void)ps;
    gtk_widget_queue_draw(GTK_WIDGET(data));
}

static void sync_size(PtGraphView *self)
{
    self->vp.width = gtk_widget_get_width(GTK_WIDGET(self));
    self->vp.height = gtk_widget_get_height(GTK_WIDGET(self));
}

static void pt_graph_view_snapshot(GtkWidget *w, GtkSnapshot *snap)
{
    PtGraphView *self = PT_GRAPH_VIEW(w);
    sync_size(self);
    if (self->vp.width <= 0 || self->vp.height <= 0 || !self->have_layout)
        return;
    self->vp.dark = is_dark(w);
    cairo_t *cr = gtk_snapshot_append_cairo(
        snap, &GRAPHENE_RECT_INIT(0, 0, (float)self->vp.width, (float)self->vp.height));
    pt_gr_render(cr, self->sg, &self->layout, &self->vp);
    cairo_destroy(cr);
}

void pt_graph_view_click(PtGraphView *self, double x, double y)
{
    if (!self->have_layout)
        return;
    sync_size(self);
    int hit = pt_gr_hit(&self->layout, &self->vp, x, y);
    if (hit >= 0)
        g_signal_emit(self, signals[SIGNAL_STASK_SELECTED], 0, hit);
}

static void relayout(PtGraphView *self)
{
    if (self->have_layout)
        pt_gr_layout_free(&self->layout);
    self->have_layout = self->sg && pt_gr_layout_compute_unrolled(self->sg, self->unroll,
                                                                  &self->layout);
    gtk_widget_queue_resize(GTK_WIDGET(self));
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

void pt_graph_view_set_unroll(PtGraphView *self, int k)
{
    k = k < 1 ? 1 : k > PT_GR_MAX_UNROLL ? PT_GR_MAX_UNROLL : k;
    if (k == self->unroll)
        return;
    self->unroll = k;
    pt_gr_fit(&self->vp); /* a new layout is shown whole */
    relayout(self);
    g_signal_emit(self, signals[SIGNAL_UNROLL_CHANGED], 0, k);
}

int pt_graph_view_get_unroll(PtGraphView *self)
{
    return self->unroll;
}

int pt_graph_view_get_node_count(PtGraphView *self)
{
    return self->have_layout ? self->layout.n : 0;
}

gboolean pt_graph_view_double_click(PtGraphView *self, double x, double y)
{
    if (!self->have_layout)
        return FALSE;
    sync_size(self);
    if (!pt_gr_in_body(&self->layout, &self->vp, x, y))
        return FALSE;
    pt_graph_view_set_unroll(self, self->unroll > 1 ? 1 : PT_GRAPH_VIEW_DEFAULT_UNROLL);
    return TRUE;
}

static void on_click(GtkGestureClick *g, int n, double x, double y, gpointer data)
{
    (void)g;
    gtk_widget_grab_focus(GTK_WIDGET(data));
    if (n == 2 && pt_graph_view_double_click(data, x, y))
        return;
    pt_graph_view_click(data, x, y);
}

static void on_motion(GtkEventControllerMotion *c, double x, double y, gpointer data)
{
    PtGraphView *self = data;
    (void)c;
    self->pointer_x = x;
    self->pointer_y = y;
    if (!self->have_layout)
        return;
    sync_size(self);
    int hit = pt_gr_hit(&self->layout, &self->vp, x, y);
    if (hit != self->vp.hover) {
        self->vp.hover = hit;
        gtk_widget_queue_draw(GTK_WIDGET(self));
    }
}

static gboolean on_query_tooltip(GtkWidget *w, int x, int y, gboolean kb, GtkTooltip *tip,
                                 gpointer data)
{
    PtGraphView *self = PT_GRAPH_VIEW(w);
    (void)kb, (void)data;
    if (!self->have_layout)
        return FALSE;
    sync_size(self);
    int hit = pt_gr_hit(&self->layout, &self->vp, x, y);
    if (hit < 0)
        return FALSE;
    const pt_stask *t = &self->sg->tasks[hit];
    char *text = g_markup_printf_escaped("<b>%s</b>\n%s on %s, %s\n%s", t->id,
                                         pt_stask_kind_name(t->kind), pt_seu_name(t->seu),
                                         pt_region_name(t->region), t->expr);
    gtk_tooltip_set_markup(tip, text);
    g_free(text);
    return TRUE;
}

void pt_graph_view_zoom(PtGraphView *self, double factor, double x, double y)
{
    if (!self->have_layout)
        return;
    sync_size(self);
    if (x < 0 || y < 0) { /* keys: about the middle */
        x = self->vp.width / 2;
        y = self->vp.height / 2;
    }
    pt_gr_zoom(&self->layout, &self->vp, factor, x, y);
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

void pt_graph_view_pan(PtGraphView *self, double dx, double dy)
{
    pt_gr_pan(&self->vp, dx, dy);
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

void pt_graph_view_fit(PtGraphView *self)
{
    pt_gr_fit(&self->vp);
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

double pt_graph_view_get_scale(PtGraphView *self)
{
    if (!self->have_layout)
        return 0;
    sync_size(self);
    double s, ox, oy;
    pt_gr_transform(&self->layout, &self->vp, &s, &ox, &oy);
    return s;
}

/* Ctrl+wheel zooms about the pointer (as on the timeline); a plain wheel pans (Shift: across). */
static gboolean on_scroll(GtkEventControllerScroll *c, double dx, double dy, gpointer data)
{
    PtGraphView *self = data;
    GdkModifierType mods = gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(c));
    if (mods & GDK_CONTROL_MASK) {
        pt_graph_view_zoom(self, pow(1.15, -dy), self->pointer_x, self->pointer_y);
        return TRUE;
    }
    if (mods & GDK_SHIFT_MASK)
        pt_graph_view_pan(self, -40 * dy, 0);
    else
        pt_graph_view_pan(self, -40 * dx, -40 * dy);
    return TRUE;
}

static void on_drag_update(GtkGestureDrag *g, double dx, double dy, gpointer data)
{
    PtGraphView *self = data;
    (void)g;
    /* The gesture reports the offset from its start: move by what is new since last time. */
    pt_graph_view_pan(self, dx - self->drag_dx, dy - self->drag_dy);
    self->drag_dx = dx;
    self->drag_dy = dy;
}

static void on_drag_begin(GtkGestureDrag *g, double x, double y, gpointer data)
{
    PtGraphView *self = data;
    (void)g, (void)x, (void)y;
    self->drag_dx = self->drag_dy = 0;
}

static gboolean on_key(GtkEventControllerKey *c, guint keyval, guint keycode,
                       GdkModifierType state, gpointer data)
{
    PtGraphView *self = data;
    (void)c, (void)keycode;
    if (state & (GDK_CONTROL_MASK | GDK_ALT_MASK))
        return FALSE;
    switch (keyval) {
    case GDK_KEY_w: case GDK_KEY_W: case GDK_KEY_plus: pt_graph_view_zoom(self, 1.25, -1, -1); return TRUE;
    case GDK_KEY_s: case GDK_KEY_S: case GDK_KEY_minus: pt_graph_view_zoom(self, 0.8, -1, -1); return TRUE;
    case GDK_KEY_a: case GDK_KEY_A: pt_graph_view_pan(self, 60, 0); return TRUE;
    case GDK_KEY_d: case GDK_KEY_D: pt_graph_view_pan(self, -60, 0); return TRUE;
    case GDK_KEY_f: case GDK_KEY_F: pt_graph_view_fit(self); return TRUE;
    default: return FALSE;
    }
}

static void pt_graph_view_dispose(GObject *o)
{
    PtGraphView *self = PT_GRAPH_VIEW(o);
    if (self->have_layout)
        pt_gr_layout_free(&self->layout);
    self->have_layout = false;
    G_OBJECT_CLASS(pt_graph_view_parent_class)->dispose(o);
}

static void pt_graph_view_class_init(PtGraphViewClass *klass)
{
    GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->dispose = pt_graph_view_dispose;
    wc->measure = pt_graph_view_measure;
    wc->snapshot = pt_graph_view_snapshot;
    signals[SIGNAL_UNROLL_CHANGED] = g_signal_new("unroll-changed", G_TYPE_FROM_CLASS(klass),
        G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);
    signals[SIGNAL_STASK_SELECTED] = g_signal_new("stask-selected", G_TYPE_FROM_CLASS(klass),
        G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);
    gtk_widget_class_set_accessible_role(wc, GTK_ACCESSIBLE_ROLE_IMG);
}

static void pt_graph_view_init(PtGraphView *self)
{
    GtkWidget *w = GTK_WIDGET(self);
    self->vp.selected = -1;
    self->vp.hover = -1;
    self->unroll = 1;
    gtk_widget_set_focusable(w, TRUE);
    gtk_widget_set_has_tooltip(w, TRUE);
    g_signal_connect(w, "query-tooltip", G_CALLBACK(on_query_tooltip), NULL);
    GtkGesture *click = gtk_gesture_click_new();
    g_signal_connect(click, "pressed", G_CALLBACK(on_click), self);
    gtk_widget_add_controller(w, GTK_EVENT_CONTROLLER(click));
    GtkEventController *motion = gtk_event_controller_motion_new();
    g_signal_connect(motion, "motion", G_CALLBACK(on_motion), self);
    gtk_widget_add_controller(w, motion);
    GtkEventController *scroll = gtk_event_controller_scroll_new(
        GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
    g_signal_connect(scroll, "scroll", G_CALLBACK(on_scroll), self);
    gtk_widget_add_controller(w, scroll);
    GtkGesture *drag = gtk_gesture_drag_new(); /* drag anywhere pans; a click still selects */
    g_signal_connect(drag, "drag-begin", G_CALLBACK(on_drag_begin), self);
    g_signal_connect(drag, "drag-update", G_CALLBACK(on_drag_update), self);
    gtk_widget_add_controller(w, GTK_EVENT_CONTROLLER(drag));
    GtkEventController *key = gtk_event_controller_key_new();
    g_signal_connect(key, "key-pressed", G_CALLBACK(on_key), self);
    gtk_widget_add_controller(w, key);
    self->vp.zoom = 1;
    self->pointer_x = self->pointer_y = -1;
    self->shown_n = -1;
    gtk_accessible_update_property(GTK_ACCESSIBLE(w), GTK_ACCESSIBLE_PROPERTY_LABEL,
        "sTask-graph: one box per sTask; the sTask table lists every node", -1);
    /* Follow the light/dark switch at once (the renderer takes the flag). */
    g_signal_connect_object(gtk_settings_get_default(), "notify::gtk-application-prefer-dark-theme",
                            G_CALLBACK(on_style_changed), self, 0);
    g_signal_connect_object(gtk_settings_get_default(), "notify::gtk-theme-name",
                            G_CALLBACK(on_style_changed), self, 0);
}

GtkWidget *pt_graph_view_new(void)
{
    return g_object_new(PT_TYPE_GRAPH_VIEW, NULL);
}

void pt_graph_view_set_graph(PtGraphView *self, const pt_stask_graph *sg)
{
    /* Fitted on open; an edit of the same graph (as many sTasks) keeps the zoom and pan. */
    int n = sg ? sg->n : -1;
    if (n != self->shown_n)
        pt_gr_fit(&self->vp);
    self->shown_n = n;
    self->sg = sg;
    self->vp.selected = -1;
    self->vp.hover = -1;
    relayout(self);
}

void pt_graph_view_set_selected(PtGraphView *self, int stask)
{
    if (self->vp.selected == stask)
        return;
    self->vp.selected = stask;
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

gboolean pt_graph_view_node_point(PtGraphView *self, int stask, double *x, double *y)
{
    int node = self->have_layout ? pt_gr_node_of(&self->layout, stask) : -1;
    if (node < 0)
        return FALSE;
    sync_size(self);
    pt_gr_node_center(&self->layout, &self->vp, node, x, y);
    return TRUE;
}
