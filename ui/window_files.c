/* window_files.c — saving and opening from PtWindow's UI: Save / Save As, the unsaved-changes
 * prompt before closing or opening another file, the graph chooser for an sProgram whose graph
 * is not a shipped example, dropped files and the recent files (primary menu and start page).
 * The loading itself is pt_window_open (window.c). */
#include "window_private.h"

#include "unsaved.h"

/* ---- saving ------------------------------------------------------------------------------- */

gboolean pt_window_save_to(PtWindow *self, const char *path)
{
    pt_error err = {{0}};
    if (!pt_explorer_model_save(self->model, path, &err)) {
        pt_window_show_error(self, err.msg[0] ? err.msg : "could not save");
        return FALSE;
    }
    win_add_recent(path);
    win_update_title_and_actions(self);
    return TRUE;
}

/* What the unsaved-changes prompt (and a Save As it led to) goes on with. */
enum { AFTER_NOTHING = 0, AFTER_CLOSE = 1, AFTER_OPEN = 2 };

static void continue_after_prompt(PtWindow *self, int after);

static void on_save_response(GtkNativeDialog *d, int response, gpointer data)
{
    PtWindow *self = data;
    int after = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(d), "pt-close-after"));
    gboolean saved = FALSE;
    if (response == GTK_RESPONSE_ACCEPT) {
        GFile *f = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(d));
        char *path = f ? g_file_get_path(f) : NULL;
        if (path)
            saved = pt_window_save_to(self, path);
        else
            pt_window_show_error(self, "the chosen file has no local path");
        g_free(path);
        if (f)
            g_object_unref(f);
    }
    gtk_native_dialog_destroy(d);
    g_object_unref(d);
    if (saved && after)
        continue_after_prompt(self, after);
    else if (after == AFTER_OPEN)
        g_clear_pointer(&self->pending_open, g_free); /* not saved: keep the work, stay */
}

static void save_as(PtWindow *self, int close_after)
{
    GtkFileChooserNative *fc = gtk_file_chooser_native_new(
        "Save sProgram", GTK_WINDOW(self), GTK_FILE_CHOOSER_ACTION_SAVE, "_Save", "_Cancel");
    char *name = g_strdup_printf("%s.sprogram.json", self->model->graph.name);
    gtk_file_chooser_set_current_name(GTK_FILE_CHOOSER(fc), name);
    g_free(name);
    g_object_set_data(G_OBJECT(fc), "pt-close-after", GINT_TO_POINTER(close_after));
    g_signal_connect(fc, "response", G_CALLBACK(on_save_response), self);
    gtk_native_dialog_show(GTK_NATIVE_DIALOG(fc));
}

/* Save to the known path, else ask; TRUE when saved right away. */
static gboolean save(PtWindow *self, int close_after)
{
    if (self->model->save_path[0])
        return pt_window_save_to(self, self->model->save_path);
    save_as(self, close_after);
    return FALSE;
}

void win_action_save(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a, (void)p;
    save(PT_WINDOW(data), FALSE);
}

void win_action_save_as(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a, (void)p;
    save_as(PT_WINDOW(data), FALSE);
}

enum { ANSWER_SAVE = 1, ANSWER_DISCARD = 2 };

static gboolean close_later(gpointer data)
{
    PtWindow *self = data;
    self->closing = TRUE;
    gtk_window_close(GTK_WINDOW(self));
    g_object_unref(self);
    return G_SOURCE_REMOVE;
}

static gboolean open_interactive(PtWindow *self, const char *source);

static gboolean open_pending_later(gpointer data)
{
    PtWindow *self = data;
    char *path = self->pending_open;
    self->pending_open = NULL;
    if (path)
        open_interactive(self, path);
    g_free(path);
    g_object_unref(self);
    return G_SOURCE_REMOVE;
}

static void continue_after_prompt(PtWindow *self, int after)
{
    /* Once the dialog (still referenced while its signal runs) is gone. */
    if (after == AFTER_CLOSE)
        g_idle_add(close_later, g_object_ref(self));
    else if (after == AFTER_OPEN)
        g_idle_add(open_pending_later, g_object_ref(self));
}

static void on_close_answer(GtkDialog *d, int response, gpointer data)
{
    PtWindow *self = data;
    int after = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(d), "pt-after"));
    gtk_window_destroy(GTK_WINDOW(d));
    pt_unsaved_answer a = response == ANSWER_DISCARD ? PT_ANSWER_DISCARD
                          : response == ANSWER_SAVE ? PT_ANSWER_SAVE : PT_ANSWER_CANCEL;
    gboolean saved = FALSE, dialog = FALSE;
    if (a == PT_ANSWER_SAVE) {
        dialog = !self->model->save_path[0];
        saved = save(self, after);
    }
    switch (pt_unsaved_after(a, saved, dialog)) {
    case PT_UNSAVED_CONTINUE:
        continue_after_prompt(self, after);
        break;
    case PT_UNSAVED_AFTER_SAVE:
        break; /* on_save_response goes on */
    default:
        if (after == AFTER_OPEN)
            g_clear_pointer(&self->pending_open, g_free);
        break;
    }
}

/* The unsaved-changes prompt, before closing (AFTER_CLOSE) or opening another file
 * (AFTER_OPEN, self->pending_open). */
static void ask_unsaved(PtWindow *self, int after)
{
    GtkWindow *w = GTK_WINDOW(self);
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    GtkWidget *d = gtk_message_dialog_new(w, GTK_DIALOG_MODAL,
                                          GTK_MESSAGE_QUESTION, GTK_BUTTONS_NONE,
                                          after == AFTER_OPEN
                                              ? "Save changes to the sProgram of %s before "
                                                "opening another file?"
                                              : "Save changes to the sProgram of %s?",
                                          self->model->title);
    gtk_message_dialog_format_secondary_text(GTK_MESSAGE_DIALOG(d),
                                             "Unsaved edits are lost if you don't save.");
    g_object_set_data(G_OBJECT(d), "pt-after", GINT_TO_POINTER(after));
    gtk_dialog_add_buttons(GTK_DIALOG(d), "_Cancel", GTK_RESPONSE_CANCEL, "_Discard",
                           ANSWER_DISCARD, "_Save", ANSWER_SAVE, NULL);
    gtk_dialog_set_default_response(GTK_DIALOG(d), ANSWER_SAVE);
    G_GNUC_END_IGNORE_DEPRECATIONS
    g_signal_connect(d, "response", G_CALLBACK(on_close_answer), self);
    gtk_window_present(GTK_WINDOW(d));
}

gboolean win_on_close_request(GtkWindow *w, gpointer data)
{
    PtWindow *self = PT_WINDOW(w);
    (void)data;
    if (pt_unsaved_before(self->model->dirty, self->closing) == PT_UNSAVED_CONTINUE)
        return FALSE;
    ask_unsaved(self, AFTER_CLOSE);
    return TRUE;
}

/* ---- opening from the UI: prompt, graph of an sProgram, drops, recent files ------------- */

static void on_graph_chosen(GtkNativeDialog *d, int response, gpointer data)
{
    PtWindow *self = data;
    const char *sprogram = g_object_get_data(G_OBJECT(d), "pt-sprogram");
    if (response == GTK_RESPONSE_ACCEPT) {
        GFile *f = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(d));
        char *path = f ? g_file_get_path(f) : NULL;
        if (path)
            pt_window_open_sprogram_with_graph(self, sprogram, path);
        else
            pt_window_show_error(self, "the chosen graph file has no local path");
        g_free(path);
        if (f)
            g_object_unref(f);
    }
    gtk_native_dialog_destroy(d);
    g_object_unref(d);
}

/* A saved sProgram whose graph is not a shipped example: ask for the graph file. */
static void ask_graph_file(PtWindow *self, const char *sprogram)
{
    char *base = g_path_get_basename(sprogram);
    char *title = g_strdup_printf("Choose the Operator Graph of %s", base);
    GtkFileChooserNative *fc = gtk_file_chooser_native_new(
        title, GTK_WINDOW(self), GTK_FILE_CHOOSER_ACTION_OPEN, "_Open", "_Cancel");
    g_free(title);
    g_free(base);
    GtkFileFilter *json = gtk_file_filter_new();
    gtk_file_filter_set_name(json, "Operator graphs (*.json)");
    gtk_file_filter_add_pattern(json, "*.json");
    gtk_file_chooser_add_filter(GTK_FILE_CHOOSER(fc), json);
    g_object_unref(json);
    g_object_set_data_full(G_OBJECT(fc), "pt-sprogram", g_strdup(sprogram), g_free);
    g_signal_connect(fc, "response", G_CALLBACK(on_graph_chosen), self);
    gtk_native_dialog_show(GTK_NATIVE_DIALOG(fc));
}

static gboolean open_interactive(PtWindow *self, const char *source)
{
    if (g_file_test(source, G_FILE_TEST_IS_REGULAR) && !pt_explorer_is_trace_file(source) &&
        pt_explorer_is_sprogram_file(source) && !pt_explorer_sprogram_graph_embedded(source)) {
        ask_graph_file(self, source);
        return FALSE;
    }
    return pt_window_open(self, source);
}

gboolean pt_window_request_open(PtWindow *self, const char *source)
{
    if (pt_unsaved_before(self->model->dirty, FALSE) == PT_UNSAVED_ASK) {
        g_free(self->pending_open);
        self->pending_open = g_strdup(source);
        ask_unsaved(self, AFTER_OPEN);
        return FALSE;
    }
    return open_interactive(self, source);
}

gboolean pt_window_drop_files(PtWindow *self, GSList *files)
{
    gboolean first = TRUE;
    for (GSList *l = files; l; l = l->next) {
        char *path = G_IS_FILE(l->data) ? g_file_get_path(l->data) : NULL;
        if (!path)
            continue;
        if (first) {
            pt_window_request_open(self, path);
            first = FALSE;
        } else { /* more than one: each further file in a window of its own */
            GtkApplication *app = gtk_window_get_application(GTK_WINDOW(self));
            PtWindow *w = pt_window_new(app, self->hw_name);
            pt_window_request_open(w, path);
            gtk_window_present(GTK_WINDOW(w));
        }
        g_free(path);
    }
    if (first)
        pt_window_show_error(self, "the dropped item is not a local file; expected a graph, "
                                   "sProgram or trace JSON file");
    return !first;
}

gboolean win_on_drop(GtkDropTarget *t, const GValue *value, double x, double y, gpointer data)
{
    (void)t, (void)x, (void)y;
    if (!G_VALUE_HOLDS(value, GDK_TYPE_FILE_LIST))
        return FALSE;
    GSList *files = gdk_file_list_get_files(g_value_get_boxed(value));
    gboolean ok = pt_window_drop_files(PT_WINDOW(data), files);
    g_slist_free(files);
    return ok;
}

static gint cmp_recent(gconstpointer a, gconstpointer b)
{
    GDateTime *p = gtk_recent_info_get_modified((GtkRecentInfo *)a);
    GDateTime *q = gtk_recent_info_get_modified((GtkRecentInfo *)b);
    return p && q ? g_date_time_compare(q, p) : 0; /* newest first */
}

/* This app's recently used files that still exist, newest first (at most 8; free with
 * g_strfreev). */
static char **recent_paths(void)
{
    GList *items = gtk_recent_manager_get_items(gtk_recent_manager_get_default());
    items = g_list_sort(items, cmp_recent);
    GPtrArray *out = g_ptr_array_new();
    for (GList *l = items; l && out->len < 8; l = l->next) {
        GtkRecentInfo *info = l->data;
        if (!gtk_recent_info_has_group(info, WIN_RECENT_GROUP))
            continue; /* not opened here: an export recorded by the file chooser, say */
        GFile *f = g_file_new_for_uri(gtk_recent_info_get_uri(info));
        char *path = g_file_get_path(f);
        g_object_unref(f);
        if (path && g_file_test(path, G_FILE_TEST_IS_REGULAR))
            g_ptr_array_add(out, path);
        else
            g_free(path);
    }
    g_list_free_full(items, (GDestroyNotify)gtk_recent_info_unref);
    g_ptr_array_add(out, NULL);
    return (char **)g_ptr_array_free(out, FALSE);
}

void win_on_recent_activated(GtkListBox *box, GtkListBoxRow *row, gpointer data)
{
    (void)box;
    const char *path = g_object_get_data(G_OBJECT(row), "pt-path");
    if (path)
        pt_window_request_open(PT_WINDOW(data), path);
}

void win_rebuild_recent(PtWindow *self)
{
    char **paths = recent_paths();
    g_menu_remove_all(self->recent_menu);
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(self->recent_list)))
        gtk_list_box_remove(GTK_LIST_BOX(self->recent_list), child);
    for (int i = 0; paths[i]; i++) {
        char *base = g_path_get_basename(paths[i]);
        GMenuItem *it = g_menu_item_new(base, NULL);
        g_menu_item_set_action_and_target_value(it, "win.open-recent",
                                                g_variant_new_string(paths[i]));
        g_menu_append_item(self->recent_menu, it);
        g_object_unref(it);
        GtkWidget *row = gtk_list_box_row_new();
        GtkWidget *label = gtk_label_new(base);
        gtk_label_set_xalign(GTK_LABEL(label), 0);
        gtk_widget_set_tooltip_text(label, paths[i]);
        gtk_widget_set_margin_start(label, 12);
        gtk_widget_set_margin_end(label, 12);
        gtk_widget_set_margin_top(label, 8);
        gtk_widget_set_margin_bottom(label, 8);
        gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(row), label);
        g_object_set_data_full(G_OBJECT(row), "pt-path", g_strdup(paths[i]), g_free);
        gtk_list_box_append(GTK_LIST_BOX(self->recent_list), row);
        g_free(base);
    }
    gtk_widget_set_visible(gtk_widget_get_parent(self->recent_list), paths[0] != NULL);
    g_strfreev(paths);
}

void win_on_recent_changed(GtkRecentManager *mgr, gpointer data)
{
    (void)mgr;
    win_rebuild_recent(PT_WINDOW(data));
}

void win_action_open_recent(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    pt_window_request_open(PT_WINDOW(data), g_variant_get_string(p, NULL));
}

GMenuModel *pt_window_get_recent_menu(PtWindow *self)
{
    return G_MENU_MODEL(self->recent_menu);
}
