/* window_range.c — the sidebar's "Time Range" section: what the timeline's range selection
 * (drag on the ruler, Shift+drag on the lanes) holds — its duration, each lane's busy time,
 * per-sTask count, time in the range and mean duration — with Zoom to Range (Z) and Clear.
 * Hidden while no range is selected, so the inspector keeps its room. */
#include "window_private.h"

#include "timeline_range.h"

/* Enough sTasks to see where the time went without pushing the inspector off screen. */
#define RANGE_MAX_STASKS 8

static void on_range_changed(PtTimelineView *tl, gpointer data)
{
    PtWindow *self = data;
    double t0, t1;
    const pt_tl_model *m = pt_timeline_view_get_model(tl);
    gboolean have = m && pt_timeline_view_get_range_selection(tl, &t0, &t1);
    gtk_widget_set_visible(self->range_box, have);
    GAction *zoom = g_action_map_lookup_action(G_ACTION_MAP(self), "zoom-range");
    if (zoom)
        g_simple_action_set_enabled(G_SIMPLE_ACTION(zoom), have);
    if (!have) {
        gtk_label_set_text(GTK_LABEL(self->range_label), "");
        return;
    }
    pt_tl_range_stats rs;
    char *text = NULL;
    if (pt_tl_range_stats_compute(m, t0, t1, &rs)) {
        text = pt_tl_range_stats_format(m, &rs, RANGE_MAX_STASKS);
        pt_tl_range_stats_clear(&rs);
    }
    gtk_label_set_text(GTK_LABEL(self->range_label), text ? text : "(out of memory)");
    free(text);
}

void win_action_zoom_range(GSimpleAction *a, GVariant *p, gpointer data)
{
    PtWindow *self = data;
    (void)a, (void)p;
    pt_timeline_view_zoom_to_range(PT_TIMELINE_VIEW(self->timeline));
}

void win_action_clear_range(GSimpleAction *a, GVariant *p, gpointer data)
{
    PtWindow *self = data;
    (void)a, (void)p;
    pt_timeline_view_set_range_selection(PT_TIMELINE_VIEW(self->timeline), 0, 0);
}

gboolean win_clear_range(PtWindow *self)
{
    double t0, t1;
    if (!pt_timeline_view_get_range_selection(PT_TIMELINE_VIEW(self->timeline), &t0, &t1))
        return FALSE;
    pt_timeline_view_set_range_selection(PT_TIMELINE_VIEW(self->timeline), 0, 0);
    return TRUE;
}

GtkWidget *win_build_range_section(PtWindow *self)
{
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4);
    GtkWidget *head = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    GtkWidget *title = win_heading("Time Range");
    gtk_widget_set_hexpand(title, TRUE);
    gtk_box_append(GTK_BOX(head), title);
    GtkWidget *zoom = gtk_button_new_with_mnemonic("_Zoom");
    gtk_actionable_set_action_name(GTK_ACTIONABLE(zoom), "win.zoom-range");
    gtk_widget_set_tooltip_text(zoom, "Show just the selected time range (Z)");
    gtk_widget_add_css_class(zoom, "flat");
    gtk_box_append(GTK_BOX(head), zoom);
    GtkWidget *clear = gtk_button_new_from_icon_name("edit-clear-symbolic");
    gtk_actionable_set_action_name(GTK_ACTIONABLE(clear), "win.clear-range");
    gtk_widget_set_tooltip_text(clear, "Clear the time range (Esc; or click the ruler)");
    gtk_accessible_update_property(GTK_ACCESSIBLE(clear), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   "Clear the time range", -1);
    gtk_widget_add_css_class(clear, "flat");
    gtk_box_append(GTK_BOX(head), clear);
    gtk_box_append(GTK_BOX(box), head);
    self->range_label = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(self->range_label), 0);
    gtk_label_set_selectable(GTK_LABEL(self->range_label), TRUE);
    gtk_widget_add_css_class(self->range_label, "monospace");
    /* Columns of figures: not wrapped but scrolled, and at most a few lines tall so that the
     * sidebar (and so the window) keeps its size whatever the range holds. */
    GtkWidget *scroll = gtk_scrolled_window_new();
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scroll), GTK_POLICY_AUTOMATIC,
                                   GTK_POLICY_AUTOMATIC);
    gtk_scrolled_window_set_propagate_natural_height(GTK_SCROLLED_WINDOW(scroll), TRUE);
    gtk_scrolled_window_set_max_content_height(GTK_SCROLLED_WINDOW(scroll), 170);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroll), self->range_label);
    gtk_box_append(GTK_BOX(box), scroll);
    gtk_widget_set_visible(box, FALSE);
    self->range_box = box;
    g_signal_connect(self->timeline, "range-changed", G_CALLBACK(on_range_changed), self);
    return box;
}

char *pt_window_dup_range_text(PtWindow *self)
{
    if (!gtk_widget_get_visible(self->range_box))
        return g_strdup("");
    return g_strdup(gtk_label_get_text(GTK_LABEL(self->range_label)));
}
