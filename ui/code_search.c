/* code_search.c — find in the kernel source of the Code page (see code_search.h). GtkSource's
 * search context does the matching and the highlighting; this file wires it to a search bar. */
#include "code_search.h"

typedef struct {
    GtkSourceView *view;
    GtkSourceBuffer *buffer;
    GtkSourceSearchSettings *settings;
    GtkSourceSearchContext *ctx;
    GtkWidget *entry, *count;
} code_search;

static code_search *state(GtkWidget *bar)
{
    return g_object_get_data(G_OBJECT(bar), "pt-code-search");
}

static void show_count(code_search *cs)
{
    int n = gtk_source_search_context_get_occurrences_count(cs->ctx);
    char buf[64] = "";
    GtkTextIter a, b;
    if (!gtk_editable_get_text(GTK_EDITABLE(cs->entry))[0] || n < 0)
        ; /* nothing searched yet, or still counting */
    else if (n == 0)
        g_snprintf(buf, sizeof buf, "no match");
    else {
        int pos = gtk_text_buffer_get_selection_bounds(GTK_TEXT_BUFFER(cs->buffer), &a, &b)
                      ? gtk_source_search_context_get_occurrence_position(cs->ctx, &a, &b)
                      : 0;
        if (pos > 0)
            g_snprintf(buf, sizeof buf, "%d of %d", pos, n);
        else
            g_snprintf(buf, sizeof buf, "%d matches", n);
    }
    gtk_label_set_text(GTK_LABEL(cs->count), buf);
}

/* The match after (or before) the selection, wrapping around; selected and scrolled to. */
static gboolean step(code_search *cs, gboolean forward)
{
    GtkTextBuffer *b = GTK_TEXT_BUFFER(cs->buffer);
    GtkTextIter sel0, sel1, from, m0, m1;
    gboolean wrapped = FALSE, found;
    gtk_text_buffer_get_selection_bounds(b, &sel0, &sel1);
    from = forward ? sel1 : sel0;
    if (!gtk_editable_get_text(GTK_EDITABLE(cs->entry))[0])
        return FALSE;
    found = forward ? gtk_source_search_context_forward(cs->ctx, &from, &m0, &m1, &wrapped)
                    : gtk_source_search_context_backward(cs->ctx, &from, &m0, &m1, &wrapped);
    if (found) {
        gtk_text_buffer_select_range(b, &m0, &m1);
        gtk_text_view_scroll_to_iter(GTK_TEXT_VIEW(cs->view), &m0, 0.1, TRUE, 0.0, 0.3);
    }
    show_count(cs);
    return found;
}

static void on_changed(GtkSearchEntry *e, gpointer data)
{
    code_search *cs = data;
    gtk_source_search_settings_set_search_text(cs->settings,
                                               gtk_editable_get_text(GTK_EDITABLE(e)));
    /* from the start of the current selection, so typing more keeps the same match */
    GtkTextIter a, b;
    gtk_text_buffer_get_selection_bounds(GTK_TEXT_BUFFER(cs->buffer), &a, &b);
    gtk_text_buffer_place_cursor(GTK_TEXT_BUFFER(cs->buffer), &a);
    step(cs, TRUE);
}

static void on_next(GtkSearchEntry *e, gpointer data)
{
    (void)e;
    step(data, TRUE);
}

static void on_previous(GtkSearchEntry *e, gpointer data)
{
    (void)e;
    step(data, FALSE);
}

/* Shift+Enter goes back, as in GNOME Text Editor. */
static gboolean on_key(GtkEventControllerKey *k, guint keyval, guint code, GdkModifierType mods,
                       gpointer data)
{
    (void)k, (void)code;
    if ((keyval == GDK_KEY_Return || keyval == GDK_KEY_KP_Enter) && (mods & GDK_SHIFT_MASK)) {
        step(data, FALSE);
        return TRUE;
    }
    return FALSE;
}

static void on_count_changed(GObject *o, GParamSpec *ps, gpointer data)
{
    (void)o, (void)ps;
    show_count(data);
}

static void on_mode(GObject *bar, GParamSpec *ps, gpointer data)
{
    (void)ps;
    code_search *cs = data;
    gtk_source_search_context_set_highlight(
        cs->ctx, gtk_search_bar_get_search_mode(GTK_SEARCH_BAR(bar)));
}

static void free_state(gpointer p)
{
    code_search *cs = p;
    g_clear_object(&cs->ctx);
    g_clear_object(&cs->settings);
    g_free(cs);
}

static void on_prev_clicked(GtkButton *b, gpointer data)
{
    (void)b;
    step(data, FALSE);
}

static void on_next_clicked(GtkButton *b, gpointer data)
{
    (void)b;
    step(data, TRUE);
}

static GtkWidget *icon_button(const char *icon, const char *tip, GCallback cb, code_search *cs)
{
    GtkWidget *b = gtk_button_new_from_icon_name(icon);
    gtk_widget_set_tooltip_text(b, tip);
    g_signal_connect(b, "clicked", cb, cs);
    return b;
}

GtkWidget *pt_code_search_new(GtkSourceView *view)
{
    code_search *cs = g_new0(code_search, 1);
    cs->view = view;
    cs->buffer = GTK_SOURCE_BUFFER(gtk_text_view_get_buffer(GTK_TEXT_VIEW(view)));
    cs->settings = gtk_source_search_settings_new();
    gtk_source_search_settings_set_wrap_around(cs->settings, TRUE);
    cs->ctx = gtk_source_search_context_new(cs->buffer, cs->settings);
    gtk_source_search_context_set_highlight(cs->ctx, FALSE);
    cs->entry = gtk_search_entry_new();
    g_object_set(cs->entry, "placeholder-text", "Find in the kernel", NULL); /* GTK 4.8 has no setter */
    gtk_accessible_update_property(GTK_ACCESSIBLE(cs->entry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   "Find in the kernel source", -1);
    cs->count = gtk_label_new(NULL);
    gtk_widget_add_css_class(cs->count, "dim-label");
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    gtk_box_append(GTK_BOX(box), cs->entry);
    gtk_box_append(GTK_BOX(box), icon_button("go-up-symbolic", "Previous match (Shift+Enter)",
                                             G_CALLBACK(on_prev_clicked), cs));
    gtk_box_append(GTK_BOX(box), icon_button("go-down-symbolic", "Next match (Enter)",
                                             G_CALLBACK(on_next_clicked), cs));
    gtk_box_append(GTK_BOX(box), cs->count);
    GtkWidget *bar = gtk_search_bar_new();
    gtk_search_bar_set_child(GTK_SEARCH_BAR(bar), box);
    gtk_search_bar_connect_entry(GTK_SEARCH_BAR(bar), GTK_EDITABLE(cs->entry));
    gtk_search_bar_set_show_close_button(GTK_SEARCH_BAR(bar), TRUE);
    g_object_set_data_full(G_OBJECT(bar), "pt-code-search", cs, free_state);
    g_signal_connect(cs->entry, "search-changed", G_CALLBACK(on_changed), cs);
    g_signal_connect(cs->entry, "activate", G_CALLBACK(on_next), cs);
    g_signal_connect(cs->entry, "next-match", G_CALLBACK(on_next), cs);
    g_signal_connect(cs->entry, "previous-match", G_CALLBACK(on_previous), cs);
    GtkEventController *keys = gtk_event_controller_key_new();
    g_signal_connect(keys, "key-pressed", G_CALLBACK(on_key), cs);
    gtk_widget_add_controller(cs->entry, keys);
    g_signal_connect(cs->ctx, "notify::occurrences-count", G_CALLBACK(on_count_changed), cs);
    g_signal_connect(bar, "notify::search-mode-enabled", G_CALLBACK(on_mode), cs);
    return bar;
}

void pt_code_search_start(GtkWidget *bar)
{
    gtk_search_bar_set_search_mode(GTK_SEARCH_BAR(bar), TRUE);
    gtk_widget_grab_focus(state(bar)->entry);
}

gboolean pt_code_search_close(GtkWidget *bar)
{
    if (!gtk_search_bar_get_search_mode(GTK_SEARCH_BAR(bar)))
        return FALSE;
    gtk_search_bar_set_search_mode(GTK_SEARCH_BAR(bar), FALSE);
    return TRUE;
}

void pt_code_search_set_text(GtkWidget *bar, const char *text)
{
    gtk_editable_set_text(GTK_EDITABLE(state(bar)->entry), text);
    on_changed(GTK_SEARCH_ENTRY(state(bar)->entry), state(bar)); /* not after the entry's delay */
}

gboolean pt_code_search_step(GtkWidget *bar, gboolean forward)
{
    return step(state(bar), forward);
}

int pt_code_search_count(GtkWidget *bar)
{
    return gtk_source_search_context_get_occurrences_count(state(bar)->ctx);
}
