/* preferences.c — the explorer's preferences key file and dialog (see preferences.h). */
#include "preferences.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#define GROUP "profile"

void pt_prefs_defaults(pt_prefs *p)
{
    memset(p, 0, sizeof *p);
    p->timeout_s = 60;
    p->build_timeout_s = 900;
}

char *pt_prefs_path(void)
{
    return g_build_filename(g_get_user_config_dir(), "pipethreader", "explorer.ini", NULL);
}

/* A positive number of seconds from key, else keep *out; false when present but not one. */
static gboolean read_seconds(GKeyFile *kf, const char *path, const char *key, double *out,
                             pt_error *err)
{
    if (!g_key_file_has_key(kf, GROUP, key, NULL))
        return TRUE;
    GError *ge = NULL;
    double v = g_key_file_get_double(kf, GROUP, key, &ge);
    if (ge || !isfinite(v) || v <= 0) {
        pt_fail(err, "%s: [%s] %s: expected a number of seconds > 0", path, GROUP, key);
        g_clear_error(&ge);
        return FALSE;
    }
    *out = v;
    return TRUE;
}

gboolean pt_prefs_load(pt_prefs *p, pt_error *err)
{
    pt_prefs_defaults(p);
    char *path = pt_prefs_path();
    GKeyFile *kf = g_key_file_new();
    GError *ge = NULL;
    gboolean ok = TRUE;
    if (!g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, &ge)) {
        if (!g_error_matches(ge, G_FILE_ERROR, G_FILE_ERROR_NOENT))
            ok = pt_fail(err, "%s: %s (expected a key file with a [%s] group)", path,
                         ge->message, GROUP);
        g_clear_error(&ge);
    } else {
        pt_prefs q = *p;
        char *remote = g_key_file_get_string(kf, GROUP, "remote", NULL);
        if (remote)
            g_strlcpy(q.remote, g_strstrip(remote), sizeof q.remote);
        g_free(remote);
        ok = read_seconds(kf, path, "timeout", &q.timeout_s, err) &&
             read_seconds(kf, path, "build-timeout", &q.build_timeout_s, err);
        if (ok)
            *p = q;
    }
    g_key_file_free(kf);
    g_free(path);
    return ok;
}

gboolean pt_prefs_save(const pt_prefs *p, pt_error *err)
{
    char *path = pt_prefs_path();
    char *dir = g_path_get_dirname(path);
    GKeyFile *kf = g_key_file_new();
    g_key_file_set_comment(kf, NULL, NULL,
                           " PipeThreader explorer preferences (Preferences dialog). remote: the "
                           "command that runs a bundle on a GPU machine, empty for this machine; "
                           "timeouts in seconds.", NULL);
    g_key_file_set_string(kf, GROUP, "remote", p->remote);
    g_key_file_set_double(kf, GROUP, "timeout", p->timeout_s);
    g_key_file_set_double(kf, GROUP, "build-timeout", p->build_timeout_s);
    GError *ge = NULL;
    gboolean ok = TRUE;
    if (g_mkdir_with_parents(dir, 0700) != 0)
        ok = pt_fail(err, "%s: cannot create the folder: %s", dir, g_strerror(errno));
    else if (!g_key_file_save_to_file(kf, path, &ge)) {
        ok = pt_fail(err, "%s: cannot write the preferences: %s", path, ge->message);
        g_clear_error(&ge);
    }
    g_key_file_free(kf);
    g_free(dir);
    g_free(path);
    return ok;
}

/* ---- dialog ------------------------------------------------------------------------------ */

typedef struct {
    pt_prefs *prefs;
    pt_prefs_saved_fn saved;
    gpointer data;
    GtkWidget *remote, *timeout, *build_timeout;
} dialog_state;

static void on_response(GtkDialog *d, int response, gpointer user)
{
    dialog_state *st = user;
    if (response == GTK_RESPONSE_ACCEPT) {
        pt_prefs *p = st->prefs;
        g_strlcpy(p->remote, gtk_editable_get_text(GTK_EDITABLE(st->remote)), sizeof p->remote);
        g_strstrip(p->remote);
        p->timeout_s = gtk_spin_button_get_value(GTK_SPIN_BUTTON(st->timeout));
        p->build_timeout_s = gtk_spin_button_get_value(GTK_SPIN_BUTTON(st->build_timeout));
        pt_error err = {{0}};
        gboolean ok = pt_prefs_save(p, &err);
        if (st->saved)
            st->saved(st->data, ok ? NULL : err.msg);
    }
    gtk_window_destroy(GTK_WINDOW(d));
}

static GtkWidget *row_label(const char *text, GtkWidget *target)
{
    GtkWidget *l = gtk_label_new_with_mnemonic(text);
    gtk_label_set_xalign(GTK_LABEL(l), 1);
    gtk_label_set_mnemonic_widget(GTK_LABEL(l), target);
    return l;
}

GtkWidget *pt_preferences_dialog_new(GtkWindow *parent, pt_prefs *p, pt_prefs_saved_fn saved,
                                     gpointer data)
{
    dialog_state *st = g_new0(dialog_state, 1);
    st->prefs = p;
    st->saved = saved;
    st->data = data;
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS /* GtkDialog: the 4.8 way (no AdwPreferencesWindow) */
    GtkWidget *d = gtk_dialog_new_with_buttons("Preferences", parent,
                                               GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT |
                                                   GTK_DIALOG_USE_HEADER_BAR,
                                               "_Cancel", GTK_RESPONSE_CANCEL, "_Save",
                                               GTK_RESPONSE_ACCEPT, NULL);
    gtk_dialog_set_default_response(GTK_DIALOG(d), GTK_RESPONSE_ACCEPT);
    GtkWidget *area = gtk_dialog_get_content_area(GTK_DIALOG(d));
    G_GNUC_END_IGNORE_DEPRECATIONS
    g_object_set_data_full(G_OBJECT(d), "pt-prefs-state", st, g_free);

    GtkWidget *grid = gtk_grid_new();
    gtk_grid_set_row_spacing(GTK_GRID(grid), 8);
    gtk_grid_set_column_spacing(GTK_GRID(grid), 12);
    gtk_widget_set_margin_start(grid, 18);
    gtk_widget_set_margin_end(grid, 18);
    gtk_widget_set_margin_top(grid, 18);
    gtk_widget_set_margin_bottom(grid, 18);

    GtkWidget *heading = gtk_label_new("Compile & Profile");
    gtk_widget_add_css_class(heading, "heading");
    gtk_label_set_xalign(GTK_LABEL(heading), 0);
    gtk_grid_attach(GTK_GRID(grid), heading, 0, 0, 2, 1);

    st->remote = gtk_entry_new();
    gtk_editable_set_text(GTK_EDITABLE(st->remote), p->remote);
    gtk_entry_set_placeholder_text(GTK_ENTRY(st->remote), "empty: this machine's GPU");
    gtk_entry_set_activates_default(GTK_ENTRY(st->remote), TRUE);
    gtk_widget_set_hexpand(st->remote, TRUE);
    gtk_widget_set_size_request(st->remote, 460, -1);
    gtk_grid_attach(GTK_GRID(grid), row_label("_Remote command", st->remote), 0, 1, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), st->remote, 1, 1, 1, 1);
    GtkWidget *hint = gtk_label_new(
        "Run with /bin/sh -c; its stdin is a tar of the kernel bundle. It must unpack it on a "
        "machine with an sm_90a GPU, nvcc and make, run sh pt-run.sh there and copy that "
        "script's stdout back, e.g.\nssh gpu 'd=$(mktemp -d) && tar -xf - -C \"$d\" && cd \"$d\" "
        "&& sh pt-run.sh; s=$?; rm -rf \"$d\"; exit $s'");
    gtk_label_set_wrap(GTK_LABEL(hint), TRUE);
    gtk_label_set_xalign(GTK_LABEL(hint), 0);
    gtk_label_set_selectable(GTK_LABEL(hint), TRUE);
    gtk_label_set_max_width_chars(GTK_LABEL(hint), 60);
    gtk_widget_add_css_class(hint, "dim-label");
    gtk_grid_attach(GTK_GRID(grid), hint, 1, 2, 1, 1);

    st->timeout = gtk_spin_button_new_with_range(1, 3600, 1);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(st->timeout), p->timeout_s);
    gtk_widget_set_halign(st->timeout, GTK_ALIGN_START);
    gtk_grid_attach(GTK_GRID(grid), row_label("Kernel run _timeout (s)", st->timeout), 0, 3, 1,
                    1);
    gtk_grid_attach(GTK_GRID(grid), st->timeout, 1, 3, 1, 1);

    st->build_timeout = gtk_spin_button_new_with_range(10, 7200, 10);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(st->build_timeout), p->build_timeout_s);
    gtk_widget_set_halign(st->build_timeout, GTK_ALIGN_START);
    gtk_grid_attach(GTK_GRID(grid), row_label("_Build timeout (s)", st->build_timeout), 0, 4, 1,
                    1);
    gtk_grid_attach(GTK_GRID(grid), st->build_timeout, 1, 4, 1, 1);

    gtk_box_append(GTK_BOX(area), grid);
    g_signal_connect(d, "response", G_CALLBACK(on_response), st);
    return d;
}
