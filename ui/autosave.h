/* autosave.h — crash-safe autosave of unsaved sProgram edits, and finding the autosaves of a
 * session that did not end cleanly (to offer their recovery). GLib only, no GTK: the window's
 * side (debouncing, the recovery bar) is window_autosave.c.
 *
 * Files live in $XDG_STATE_HOME/pipethreader/autosave/ (g_get_user_state_dir()):
 *   session-PID-TIME.lock        one per running explorer, flock()ed for its whole life, so
 *                                the kernel releases it when the process dies, however it dies
 *   session-PID-TIME.wN.json     one per window with unsaved edits (format below)
 * An autosave whose session's lock is gone or free belongs to a session that crashed (or was
 * killed): it is offered for recovery. A clean save, discarding the edits or closing the window
 * removes its autosave; a clean exit removes the session's lock.
 *
 * Writing never blocks the UI: the text is composed on the caller's thread (it is small), and
 * one worker thread writes it (a temporary file, then rename(), so a crash mid-write leaves the
 * previous autosave whole) and removes files, in the order asked.
 *
 * The file: {"format": "pipethreader.autosave", "version": 1, "graph_source": "...",
 *            "hw": "...", "save_path": "...", "title": "...", "saved_at": "ISO 8601",
 *            "sprogram": {the sProgram, as docs/FORMAT-sprogram.md},
 *            "graph": {the operator graph as loaded, docs/FORMAT-graph.md}}
 * graph_source: the graph file (absolute) or embedded example, "" when the sProgram's own
 * "graph" names the embedded example; "graph" (optional): a copy of a graph file as it was
 * loaded, so the edits are recovered against the graph they were made on even when the file
 * has changed or gone since; hw: builtin name or hardware-model file; save_path: the file the
 * edits belong to ("" if never saved). */
#ifndef PT_AUTOSAVE_H
#define PT_AUTOSAVE_H

#include <glib.h>
#include <stdbool.h>

#include "pt_error.h"

typedef struct {
    char graph_source[1024];
    char hw[1024];
    char save_path[1024];
    char title[256];
    char saved_at[64];
} pt_autosave_info;

/* Start this process's session: create the directory and take the session lock. Idempotent.
 * False with a one-line reason (the directory, what failed); autosave is then off. */
bool pt_autosave_session_start(pt_error *err);
/* End it cleanly: finish queued writes and removals, drop the lock file. */
void pt_autosave_session_end(void);
/* Whether a session is running (windows autosave only then). */
bool pt_autosave_active(void);
/* The autosave directory (valid once a session started), else NULL. */
const char *pt_autosave_dir(void);
/* A fresh autosave path for a window of this session (g_free). */
char *pt_autosave_new_path(void);

/* The autosave file's text (g_free), or NULL when sprogram_json is not JSON. graph_json (may
 * be NULL) is the graph file's text, kept when it is JSON. */
char *pt_autosave_compose(const pt_autosave_info *info, const char *sprogram_json,
                          const char *graph_json);
/* Queue writing text (taken, g_free'd) to path, and removing path; done in order. */
void pt_autosave_write_async(const char *path, char *text);
void pt_autosave_remove_async(const char *path);
/* Wait until everything queued is done. */
void pt_autosave_flush(void);
/* The last write failure ("PATH: reason"), once (g_free), or NULL. */
char *pt_autosave_take_error(void);

/* Autosaves of sessions that are not running, oldest first (free with g_ptr_array_unref;
 * the elements are paths). Stale locks of dead sessions without autosaves are removed. */
GPtrArray *pt_autosave_find_orphans(void);
/* Read an autosave: its info, its sProgram and (NULL when it has none) the copy of its graph
 * as JSON text (g_free; graph_json may be NULL when not wanted). False with a one-line error
 * naming the file and what was expected. */
bool pt_autosave_read(const char *path, pt_autosave_info *info, char **sprogram_json,
                      char **graph_json, pt_error *err);
/* Queue removing an orphan autosave (after anything queued before it) and, once its session
 * has no autosave left, that session's lock file. */
void pt_autosave_discard(const char *path);

#endif
