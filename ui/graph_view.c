/* graph_view.c — PtGraphView (see graph_view.h). */
#include "graph_view.h"

#include "style.h"

struct _PtGraphView {
    GtkWidget parent_instance;
    const pt_stask_graph *sg;
    pt_gr_layout layout;
    bool have_layout;
    pt_gr_viewport vp;
    int unroll;             /* loop iterations shown (1: folded) */
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
