/* actions.h — the explorer window's Actions (issue 6): Auto-schedule, Compile & Profile, Export
 * kernel source, Export Chrome trace; the job log, the Preferences, and the Code page. Kept
 * apart from window.c, which calls the hooks below.
 *
 * Window actions (menus, shortcuts and tests alike):
 *   win.auto-schedule             the Auto-schedule dialog (budget, top k, sm90a-only)
 *   win.auto-schedule-run (dxib)  search off the UI thread with a budget of seconds (d, 0: none)
 *                                 and of candidates (x, 0: none), top k (i), sm90a-only (b); the
 *                                 best candidate replaces the sProgram as an undoable edit
 *   win.auto-schedule-ragged      (state b) searches also try warpgroup counts that do not
 *                                 divide a batch axis (scheduler.h ragged_batch); off by default
 *   win.schedule-apply (i)        put candidate i (0 = best) of the last search in place instead
 *   win.profile                   Compile & Profile with the Preferences' remote command (or
 *                                 this machine's GPU); the measured spans are laid over the
 *                                 prediction, the sProgram is kept
 *   win.export-kernel / win.export-kernel-to (s)   the codegen bundle into a folder
 *   win.export-chrome / win.export-chrome-to (s)   the predicted timeline as a Chrome trace
 *   win.cancel-job, win.show-log, win.preferences
 * Failures show in the window's banner as one line; jobs' output goes to the log. */
#ifndef PT_ACTIONS_H
#define PT_ACTIONS_H

#include <gtk/gtk.h>

#include "preferences.h"

typedef struct _PtWindow PtWindow;

/* Hooks for window.c. install: from the window's init, after its header bar exists (adds the
 * actions and the job status widget at the header bar's end). */
void pt_actions_install(PtWindow *win, GtkHeaderBar *header);
/* The "Actions" section of the primary menu (caller unrefs). */
GMenuModel *pt_actions_menu(void);
/* The Code page for the window's view stack (created by install). */
GtkWidget *pt_actions_code_view(PtWindow *win);
/* After the model was loaded or changed, and when the selection changed. */
void pt_actions_model_changed(PtWindow *win);
void pt_actions_stask_selected(PtWindow *win, int stask);

/* For tests. */
gboolean pt_actions_job_busy(PtWindow *win);
char *pt_actions_dup_log(PtWindow *win);
/* The preferences in use (changes take effect at the next action; not saved). */
pt_prefs *pt_actions_prefs(PtWindow *win);
/* Candidates of the last search (0: none). */
int pt_actions_n_candidates(PtWindow *win);
/* The Auto-schedule dialog's generator filter: shown (the dialog is opened), and whether it is
 * on and can be changed. */
void pt_actions_schedule_filter(PtWindow *win, gboolean *on, gboolean *sensitive);

#endif
