/* preferences.h — the explorer's preferences: how Compile & Profile reaches a GPU (a remote
 * command, or this machine when empty) and its watchdogs. Kept in a small key file,
 * $XDG_CONFIG_HOME/pipethreader/explorer.ini (g_get_user_config_dir()), because GSettings would
 * need a schema installed; edited in a dialog. */
#ifndef PT_PREFERENCES_H
#define PT_PREFERENCES_H

#include <gtk/gtk.h>

#include "pt_error.h"

typedef struct {
    char remote[2048];        /* the runner's remote command (traces/runner.h); "" = this machine */
    double timeout_s;         /* watchdog of the kernel run, seconds */
    double build_timeout_s;   /* watchdog of the build, seconds */
} pt_prefs;

/* Defaults: no remote command, 60 s run, 900 s build (the runner's own defaults). */
void pt_prefs_defaults(pt_prefs *p);
/* The key file's path (caller frees). */
char *pt_prefs_path(void);
/* Read the key file into p (defaults for what is missing). A missing file is not an error; a
 * malformed one is (false, err names the file and the key, p keeps the defaults). */
gboolean pt_prefs_load(pt_prefs *p, pt_error *err);
/* Write p to the key file (its folder created if missing); false with err naming the file. */
gboolean pt_prefs_save(const pt_prefs *p, pt_error *err);

/* The Preferences dialog over *p, transient for parent. Save writes the file and then calls
 * saved(data, error) with error NULL, or with a one-line message when writing failed (p is
 * updated either way). p must outlive the dialog. */
typedef void (*pt_prefs_saved_fn)(gpointer data, const char *error);
GtkWidget *pt_preferences_dialog_new(GtkWindow *parent, pt_prefs *p, pt_prefs_saved_fn saved,
                                     gpointer data);

#endif
