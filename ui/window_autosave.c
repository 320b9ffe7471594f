/* window_autosave.c — PtWindow's side of the crash-safe autosave (autosave.h has the files):
 * a short time after each edit (debounced: one write per pause in editing) the sProgram with
 * unsaved edits is handed to the writer thread; a clean save, opening another document over
 * discarded edits, or closing the window removes it. And the recovery bar: autosaves of a
 * session that did not end cleanly are offered one at a time, "Recover" loading the edits
 * (marked modified) and "Discard" deleting them. Windows autosave only while the app's
 * autosave session runs (main.c starts it), so tests and screenshots leave no files behind. */
#include "window_private.h"

#include <string.h>

#include "autosave.h"

static guint autosave_delay_ms = 2000;

void pt_window_set_autosave_delay(guint ms)
{
    autosave_delay_ms = ms;
}

/* The graph a model came from, as an autosave records it (window_private.h). */
void win_autosave_note_source(PtWindow *self, const char *source, const char *graph_text)
{
    const char *s = source ? source : "";
    g_clear_pointer(&self->autosave_graph_text, g_free);
    if (s[0] && g_file_test(s, G_FILE_TEST_IS_REGULAR)) {
        /* a trace or a saved sProgram names its graph itself (an embedded example) */
        if (pt_explorer_is_trace_file(s) || pt_explorer_is_sprogram_file(s))
            s = "";
        else if (!graph_text) /* a copy of the graph as loaded: see autosave.h */
            g_file_get_contents(s, &self->autosave_graph_text, NULL, NULL);
    }
    if (graph_text)
        self->autosave_graph_text = g_strdup(graph_text);
    char *abs = s[0] && g_file_test(s, G_FILE_TEST_IS_REGULAR) ? g_canonicalize_filename(s, NULL)
                                                                : g_strdup(s);
    g_strlcpy(self->autosave_graph, abs, sizeof self->autosave_graph);
    g_free(abs);
}

static void absolute(const char *path, char *out, gsize cap)
{
    char *abs = path[0] && !g_path_is_absolute(path) && g_file_test(path, G_FILE_TEST_EXISTS)
                    ? g_canonicalize_filename(path, NULL)
                    : g_strdup(path);
    g_strlcpy(out, abs, cap);
    g_free(abs);
}

/* Queue the autosave of the model as it is now. */
static void write_now(PtWindow *self)
{
    pt_explorer_model *m = self->model;
    if (!pt_autosave_active() || !m->have_prog || !m->dirty)
        return;
    char *err = pt_autosave_take_error(); /* an earlier write failed: say so */
    if (err) {
        pt_window_show_error(self, err);
        g_free(err);
    }
    pt_autosave_info info;
    memset(&info, 0, sizeof info);
    g_strlcpy(info.graph_source, self->autosave_graph, sizeof info.graph_source);
    absolute(self->hw_name, info.hw, sizeof info.hw);
    absolute(m->save_path, info.save_path, sizeof info.save_path);
    g_strlcpy(info.title, m->title, sizeof info.title);
    char *json = pt_explorer_model_to_json(m);
    char *text = json ? pt_autosave_compose(&info, json, self->autosave_graph_text) : NULL;
    free(json);
    if (!text) {
        pt_window_show_error(self, "autosave: out of memory composing the sProgram; save your "
                                   "edits");
        return;
    }
    if (!self->autosave_path)
        self->autosave_path = pt_autosave_new_path();
    pt_autosave_write_async(self->autosave_path, text);
    self->autosave_written = TRUE;
}

static gboolean on_autosave_timer(gpointer data)
{
    PtWindow *self = data;
    self->autosave_timer = 0;
    write_now(self);
    return G_SOURCE_REMOVE;
}

void win_autosave_changed(PtWindow *self)
{
    if (!pt_autosave_active() || !self->model)
        return;
    if (self->model->have_prog && self->model->dirty) {
        /* debounce: a burst of edits (a drag, typing in the form) is written once, after it */
        if (self->autosave_timer)
            g_source_remove(self->autosave_timer);
        self->autosave_timer = g_timeout_add(autosave_delay_ms, on_autosave_timer, self);
        return;
    }
    /* saved, discarded or replaced by a clean document: nothing left to protect */
    if (self->autosave_timer) {
        g_source_remove(self->autosave_timer);
        self->autosave_timer = 0;
    }
    if (self->autosave_written) {
        pt_autosave_remove_async(self->autosave_path);
        self->autosave_written = FALSE;
    }
}

void win_autosave_dispose(PtWindow *self)
{
    if (self->autosave_timer) {
        g_source_remove(self->autosave_timer);
        self->autosave_timer = 0;
    }
    /* The window is going away cleanly: its close was allowed (saved, or the edits were
     * discarded at the prompt). A crash never gets here, which keeps the autosave. */
    if (self->autosave_written)
        pt_autosave_remove_async(self->autosave_path);
    self->autosave_written = FALSE;
    g_clear_pointer(&self->autosave_path, g_free);
    g_clear_pointer(&self->autosave_graph_text, g_free);
    if (self->recovery_offers)
        g_clear_pointer(&self->recovery_offers, g_ptr_array_unref);
}

gboolean pt_window_autosave_now(PtWindow *self)
{
    if (self->autosave_timer) {
        g_source_remove(self->autosave_timer);
        self->autosave_timer = 0;
    }
    write_now(self);
    return self->autosave_written;
}

const char *pt_window_get_autosave_path(PtWindow *self)
{
    return self->autosave_written ? self->autosave_path : NULL;
}

/* ---- the recovery bar ---------------------------------------------------------------------- */

/* Show the first pending offer, or hide the bar when none is left. */
static void show_offer(PtWindow *self)
{
    GPtrArray *o = self->recovery_offers;
    g_clear_pointer(&self->recovery_text, g_free);
    if (!o || o->len == 0) {
        gtk_widget_set_visible(self->recovery_bar, FALSE);
        return;
    }
    const char *path = g_ptr_array_index(o, 0);
    pt_autosave_info info;
    char *json = NULL;
    pt_error err = {{0}};
    char more[48] = "";
    if (o->len > 1)
        g_snprintf(more, sizeof more, " (1 of %u)", o->len);
    if (pt_autosave_read(path, &info, &json, NULL, &err)) {
        char *base = info.save_path[0] ? g_path_get_basename(info.save_path) : NULL;
        char when[64] = "";
        if (info.saved_at[0]) {
            GDateTime *t = g_date_time_new_from_iso8601(info.saved_at, NULL);
            char *s = t ? g_date_time_format(t, "%Y-%m-%d %H:%M") : NULL;
            if (s)
                g_snprintf(when, sizeof when, ", autosaved %s", s);
            g_free(s);
            if (t)
                g_date_time_unref(t);
        }
        self->recovery_text = g_strdup_printf(
            "Unsaved edits to the sProgram of %s%s%s (%s) were kept when the explorer last "
            "ended unexpectedly%s.%s",
            info.title[0] ? info.title : "a graph", base ? " in " : "", base ? base : "",
            info.hw[0] ? info.hw : "?", when, more);
        g_free(base);
    } else {
        self->recovery_text = g_strdup_printf("An autosave left by a session that ended "
                                              "unexpectedly cannot be read: %s.%s", err.msg,
                                              more);
    }
    g_free(json);
    gtk_label_set_text(GTK_LABEL(self->recovery_label), self->recovery_text);
    gtk_widget_set_visible(self->recovery_bar, TRUE);
}

static void next_offer(PtWindow *self)
{
    if (self->recovery_offers && self->recovery_offers->len)
        g_ptr_array_remove_index(self->recovery_offers, 0);
    show_offer(self);
}

void pt_window_offer_recovery(PtWindow *self)
{
    if (!pt_autosave_active())
        return;
    if (self->recovery_offers)
        g_ptr_array_unref(self->recovery_offers);
    self->recovery_offers = pt_autosave_find_orphans();
    show_offer(self);
}

const char *pt_window_get_recovery_text(PtWindow *self)
{
    return self->recovery_text;
}

/* Load the offered autosave into target. FALSE with err (nothing changed) on failure. */
static gboolean recover_into(PtWindow *target, const char *path, pt_error *err)
{
    pt_autosave_info info;
    char *json = NULL, *graph = NULL;
    if (!pt_autosave_read(path, &info, &json, &graph, err))
        return FALSE;
    pt_explorer_model *next = pt_explorer_model_new();
    if (!next) {
        g_free(json);
        g_free(graph);
        pt_fail(err, "out of memory");
        return FALSE;
    }
    char name[1200];
    g_snprintf(name, sizeof name, "%s ($.sprogram)", path);
    /* the graph the edits were made on: its copy in the autosave, even where the file has
     * changed since (what is on disk now may not fit the sProgram any more) */
    gboolean ok = pt_explorer_model_load_sprogram_text(
        next, name, json, strlen(json), info.graph_source[0] ? info.graph_source : NULL,
        info.graph_source[0] ? graph : NULL, info.hw[0] ? info.hw : target->hw_name, err);
    g_free(json);
    if (!ok) {
        g_free(graph);
        pt_explorer_model_free(next);
        return FALSE;
    }
    /* the edits were never saved: the document is modified, and belongs where it did */
    next->dirty = TRUE;
    next->saved_id = UINT64_MAX; /* no state of it is on disk: undo never makes it clean */
    g_strlcpy(next->save_path, info.save_path, sizeof next->save_path);
    /* target shows nothing yet, so this only selects the hardware (no re-simulation) */
    if (info.hw[0] && !g_str_equal(info.hw, target->hw_name))
        pt_window_set_hw(target, info.hw);
    win_autosave_note_source(target, info.graph_source, graph);
    g_free(graph);
    win_install_model(target, next);
    return TRUE;
}

void win_action_recover_autosave(GSimpleAction *a, GVariant *p, gpointer data)
{
    PtWindow *self = data;
    (void)a, (void)p;
    if (!self->recovery_offers || self->recovery_offers->len == 0)
        return;
    char *path = g_strdup(g_ptr_array_index(self->recovery_offers, 0));
    /* a window already showing a document keeps it: the edits open in a new one */
    PtWindow *target = self;
    if (self->model->have_prog)
        target = pt_window_new(gtk_window_get_application(GTK_WINDOW(self)), self->hw_name);
    pt_error err = {{0}};
    if (recover_into(target, path, &err)) {
        /* this session's autosave first, then the old one goes: one of them is always on
         * disk (the writer thread keeps the order) */
        pt_window_autosave_now(target);
        pt_autosave_discard(path);
        if (target != self)
            gtk_window_present(GTK_WINDOW(target));
    } else {
        char *msg = g_strdup_printf("cannot recover the edits in %s: %s; the autosave is kept "
                                    "(recovery is offered again at the next start)", path,
                                    err.msg);
        pt_window_show_error(self, msg);
        g_free(msg);
        if (target != self)
            gtk_window_destroy(GTK_WINDOW(target));
    }
    g_free(path);
    next_offer(self);
}

void win_action_discard_autosave(GSimpleAction *a, GVariant *p, gpointer data)
{
    PtWindow *self = data;
    (void)a, (void)p;
    if (!self->recovery_offers || self->recovery_offers->len == 0)
        return;
    pt_autosave_discard(g_ptr_array_index(self->recovery_offers, 0));
    next_offer(self);
}

GtkWidget *win_build_recovery_bar(PtWindow *self)
{
    GtkWidget *bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
    gtk_widget_add_css_class(bar, "pt-recovery-banner");
    gtk_box_append(GTK_BOX(bar), gtk_image_new_from_icon_name("document-revert-symbolic"));
    self->recovery_label = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(self->recovery_label), 0);
    gtk_label_set_wrap(GTK_LABEL(self->recovery_label), TRUE);
    gtk_label_set_wrap_mode(GTK_LABEL(self->recovery_label), PANGO_WRAP_WORD_CHAR);
    gtk_widget_set_hexpand(self->recovery_label, TRUE);
    gtk_box_append(GTK_BOX(bar), self->recovery_label);
    GtkWidget *discard = gtk_button_new_with_mnemonic("_Discard");
    gtk_widget_set_tooltip_text(discard, "Delete these unsaved edits");
    gtk_actionable_set_action_name(GTK_ACTIONABLE(discard), "win.discard-autosave");
    gtk_box_append(GTK_BOX(bar), discard);
    GtkWidget *recover = gtk_button_new_with_mnemonic("_Recover");
    gtk_widget_add_css_class(recover, "suggested-action");
    gtk_widget_set_tooltip_text(recover, "Open these unsaved edits (marked modified)");
    gtk_actionable_set_action_name(GTK_ACTIONABLE(recover), "win.recover-autosave");
    gtk_box_append(GTK_BOX(bar), recover);
    gtk_widget_set_visible(bar, FALSE);
    gtk_accessible_update_property(GTK_ACCESSIBLE(bar), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   "Recover unsaved edits", -1);
    self->recovery_bar = bar;
    return bar;
}
