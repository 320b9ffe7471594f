/* jobs.h — long work of an explorer window, off the UI thread: one job at a time runs in a
 * worker thread (GTask); the window shows its progress in the header bar (spinner, progress
 * bar, what it is doing) with a Cancel button, and everything jobs say goes to a log that a
 * Log window shows. The worker never touches GTK: it reports through pt_job_* (thread-safe),
 * which a 100 ms timer on the UI thread picks up. When the window goes away first, the job is
 * cancelled and its result dropped. */
#ifndef PT_JOBS_H
#define PT_JOBS_H

#include <gtk/gtk.h>
#include <stdbool.h>

#include "pt_error.h"

typedef struct pt_jobs pt_jobs;
typedef struct pt_job pt_job;

/* Runs on the worker thread: true when done, false with err (one line) on failure. */
typedef bool (*pt_job_func)(pt_job *job, void *data, pt_error *err);
/* Runs on the UI thread after the worker returned, only while the window is alive. cancelled:
 * Cancel was pressed (ok is then false and error says "cancelled"). */
typedef void (*pt_job_done)(pt_jobs *jobs, void *data, bool ok, bool cancelled,
                            const char *error);

/* owner: the window whose header bar shows the status widget (not referenced). */
pt_jobs *pt_jobs_new(GtkWindow *owner);
/* The window is going away: cancel a running job, drop its result, stop touching widgets;
 * then drop the owner's reference. */
void pt_jobs_detach(pt_jobs *jobs);

/* The header-bar widget: hidden while idle. */
GtkWidget *pt_jobs_status_widget(pt_jobs *jobs);

/* Start `func` on a worker; refused (false, err says what is running) while another job runs.
 * free_data (may be NULL) frees data after done ran (or was skipped). */
bool pt_jobs_start(pt_jobs *jobs, const char *title, pt_job_func func, pt_job_done done,
                   void *data, GDestroyNotify free_data, pt_error *err);
bool pt_jobs_busy(const pt_jobs *jobs);
/* Ask the running job to stop (no-op when idle). */
void pt_jobs_cancel(pt_jobs *jobs);

/* Append a line to the log (UI thread). */
void pt_jobs_log(pt_jobs *jobs, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
/* The whole log (caller frees). */
char *pt_jobs_dup_log(pt_jobs *jobs);
/* Show the Log window. */
void pt_jobs_show_log(pt_jobs *jobs);

/* ---- worker side (any thread) ---- */
bool pt_job_cancelled(pt_job *job);
void pt_job_log(pt_job *job, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
/* Raw output (a child's stream): appended as is. */
void pt_job_log_raw(pt_job *job, const char *data, size_t n);
/* fraction in [0, 1], or < 0 for "busy, unknown how far"; text: what it does now (copied). */
void pt_job_progress(pt_job *job, double fraction, const char *text);

#endif
