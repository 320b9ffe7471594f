/* window_search.c — finding sTasks on the timeline (issue 19): Ctrl+F opens a search bar above
 * the lanes; the bars of every matching sTask are outlined, Enter / Shift+Enter (or the arrows)
 * go to the next / previous matching bar in time. The text goes to the entry, never to the
 * timeline's single-key shortcuts (W/A/S/D/F live on the timeline widget, which does not have
 * the focus while the entry has it). Esc closes it; Esc elsewhere clears the selection and the
 * table's search. On the Code page Ctrl+F and Esc open and close its own find bar
 * (code_search.c). */
#include "window_private.h"

#include <string.h>

#include "actions.h"
#include "code_search.h"
#include "code_view.h"

gboolean win_stask_matches(PtWindow *self, int i, const char *query)
{
    if (!query || !*query)
        return TRUE;
    if (!self->model->have_sg || i < 0 || i >= self->model->sg.n)
        return FALSE;
    const pt_stask *t = &self->model->sg.tasks[i];
    char *needle = g_utf8_casefold(query, -1);
    char *hay = g_strdup_printf("%s %s %s %s %s", t->id, pt_stask_kind_name(t->kind),
                                pt_seu_name(t->seu), pt_region_name(t->region), t->expr);
    char *fold = g_utf8_casefold(hay, -1);
    gboolean ok = strstr(fold, needle) != NULL;
    g_free(needle);
    g_free(hay);
    g_free(fold);
    return ok;
}

/* Outline the matches of what the entry holds (nothing while the bar is closed or empty). */
void win_search_apply(PtWindow *self)
{
    PtTimelineView *tv = PT_TIMELINE_VIEW(self->timeline);
    const char *q = self->tl_search_entry
                        ? gtk_editable_get_text(GTK_EDITABLE(self->tl_search_entry)) : "";
    gboolean on = self->tl_search_bar &&
                  gtk_search_bar_get_search_mode(GTK_SEARCH_BAR(self->tl_search_bar));
    int n = self->model->have_sg ? self->model->sg.n : 0;
    if (!on || !q || !*q || n <= 0) {
        pt_timeline_view_set_matches(tv, NULL, 0);
        if (self->tl_search_count)
            gtk_label_set_text(GTK_LABEL(self->tl_search_count), "");
        return;
    }
    guint8 *mask = g_new0(guint8, n);
    int found = 0;
    for (int i = 0; i < n; i++)
        found += mask[i] = win_stask_matches(self, i, q) ? 1 : 0;
    pt_timeline_view_set_matches(tv, mask, n);
    g_free(mask);
    char *t = found ? g_strdup_printf("%d sTask%s", found, found == 1 ? "" : "s")
                    : g_strdup("no match");
    gtk_label_set_text(GTK_LABEL(self->tl_search_count), t);
    g_free(t);
}

static void on_changed(GtkSearchEntry *e, gpointer data)
{
    (void)e;
    win_search_apply(data);
}

gboolean pt_window_search_step(PtWindow *self, int dir)
{
    return pt_timeline_view_step_match(PT_TIMELINE_VIEW(self->timeline), dir);
}

static void on_next(GtkWidget *w, gpointer data)
{
    (void)w;
    pt_window_search_step(data, 1);
}

static void on_prev(GtkWidget *w, gpointer data)
{
    (void)w;
    pt_window_search_step(data, -1);
}

static void close_search(PtWindow *self)
{
    gtk_search_bar_set_search_mode(GTK_SEARCH_BAR(self->tl_search_bar), FALSE);
    win_search_apply(self);
    gtk_widget_grab_focus(self->timeline);
}

static void on_stop(GtkSearchEntry *e, gpointer data)
{
    (void)e;
    close_search(data);
}

/* Shift+Enter: the previous match (Enter is the entry's "activate"). */
static gboolean on_entry_key(GtkEventControllerKey *c, guint keyval, guint keycode,
                             GdkModifierType state, gpointer data)
{
    (void)c, (void)keycode;
    if ((keyval == GDK_KEY_Return || keyval == GDK_KEY_KP_Enter) && (state & GDK_SHIFT_MASK)) {
        pt_window_search_step(data, -1);
        return TRUE;
    }
    return FALSE;
}

GtkWidget *win_build_timeline_search(PtWindow *self)
{
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    self->tl_search_entry = gtk_search_entry_new();
    g_object_set(self->tl_search_entry, "placeholder-text", "Find sTasks on the timeline",
                 NULL);
    gtk_widget_set_size_request(self->tl_search_entry, 260, -1);
    gtk_accessible_update_property(GTK_ACCESSIBLE(self->tl_search_entry),
                                   GTK_ACCESSIBLE_PROPERTY_LABEL, "Find sTasks on the timeline",
                                   -1);
    g_signal_connect(self->tl_search_entry, "search-changed", G_CALLBACK(on_changed), self);
    g_signal_connect(self->tl_search_entry, "activate", G_CALLBACK(on_next), self);
    g_signal_connect(self->tl_search_entry, "next-match", G_CALLBACK(on_next), self);
    g_signal_connect(self->tl_search_entry, "previous-match", G_CALLBACK(on_prev), self);
    g_signal_connect(self->tl_search_entry, "stop-search", G_CALLBACK(on_stop), self);
    GtkEventController *key = gtk_event_controller_key_new();
    gtk_event_controller_set_propagation_phase(key, GTK_PHASE_CAPTURE);
    g_signal_connect(key, "key-pressed", G_CALLBACK(on_entry_key), self);
    gtk_widget_add_controller(self->tl_search_entry, key);
    gtk_box_append(GTK_BOX(box), self->tl_search_entry);
    GtkWidget *prev = gtk_button_new_from_icon_name("go-up-symbolic");
    gtk_widget_set_tooltip_text(prev, "Previous match (Shift+Enter)");
    g_signal_connect(prev, "clicked", G_CALLBACK(on_prev), self);
    gtk_box_append(GTK_BOX(box), prev);
    GtkWidget *next = gtk_button_new_from_icon_name("go-down-symbolic");
    gtk_widget_set_tooltip_text(next, "Next match (Enter)");
    g_signal_connect(next, "clicked", G_CALLBACK(on_next), self);
    gtk_box_append(GTK_BOX(box), next);
    self->tl_search_count = gtk_label_new(NULL);
    gtk_widget_add_css_class(self->tl_search_count, "dim-label");
    gtk_box_append(GTK_BOX(box), self->tl_search_count);
    self->tl_search_bar = gtk_search_bar_new();
    gtk_search_bar_set_child(GTK_SEARCH_BAR(self->tl_search_bar), box);
    gtk_search_bar_connect_entry(GTK_SEARCH_BAR(self->tl_search_bar),
                                 GTK_EDITABLE(self->tl_search_entry));
    gtk_search_bar_set_show_close_button(GTK_SEARCH_BAR(self->tl_search_bar), TRUE);
    g_signal_connect_swapped(self->tl_search_bar, "notify::search-mode-enabled",
                             G_CALLBACK(win_search_apply), self);
    return self->tl_search_bar;
}

/* The Code page's find bar, when that page is the one shown. */
static GtkWidget *code_search_shown(PtWindow *self)
{
    const char *page = gtk_stack_get_visible_child_name(GTK_STACK(self->views));
    GtkWidget *cv = pt_actions_code_view(self);
    return page && !strcmp(page, "code") && cv ? pt_code_view_get_search(PT_CODE_VIEW(cv))
                                               : NULL;
}

/* Ctrl+F: on the Code page, find in the kernel source; elsewhere the Timeline page with its
 * search bar, the entry focused. */
void win_action_timeline_search(GSimpleAction *a, GVariant *p, gpointer data)
{
    PtWindow *self = data;
    (void)a, (void)p;
    GtkWidget *code = code_search_shown(self);
    if (code) {
        pt_code_search_start(code);
        return;
    }
    if (!self->model->have_tl)
        return;
    gtk_stack_set_visible_child_name(GTK_STACK(self->views), "timeline");
    gtk_search_bar_set_search_mode(GTK_SEARCH_BAR(self->tl_search_bar), TRUE);
    gtk_widget_grab_focus(self->tl_search_entry);
    win_search_apply(self);
}

/* Esc: close the timeline search if open, else clear the selection and the table's search. */
void win_action_clear_selection(GSimpleAction *a, GVariant *p, gpointer data)
{
    PtWindow *self = data;
    (void)a, (void)p;
    GtkWidget *code = code_search_shown(self);
    if (code && pt_code_search_close(code))
        return;
    if (gtk_search_bar_get_search_mode(GTK_SEARCH_BAR(self->tl_search_bar))) {
        close_search(self);
        return;
    }
    if (win_clear_range(self)) /* one thing per Esc, the most recent kind first */
        return;
    if (pt_window_is_comparing(self) && self->selected < 0 &&
        !gtk_editable_get_text(GTK_EDITABLE(self->search))[0]) {
        pt_window_stop_comparing(self); /* nothing else left to clear: end the comparison */
        return;
    }
    gtk_editable_set_text(GTK_EDITABLE(self->search), "");
    pt_window_select_stask(self, -1);
}
