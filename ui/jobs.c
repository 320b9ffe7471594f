/* jobs.c — one long job at a time on a worker thread, with progress, Cancel and a log (see
 * jobs.h). */
#include "jobs.h"

#include <stdarg.h>
#include <string.h>

#define LOG_MAX_CHARS (2 << 20) /* older text is dropped beyond this */

struct pt_jobs {
    int ref;                   /* the owner's, and the running job's (UI thread only) */
    GtkWindow *owner;          /* NULL once detached */
    GtkWidget *status, *spinner, *label, *bar, *cancel;
    GtkTextBuffer *log;
    GtkWidget *log_window, *log_view;
    pt_job *running;
    guint timer;
};

struct pt_job {
    pt_jobs *jobs;             /* UI thread only */
    char *title;
    pt_job_func func;
    pt_job_done done;
    void *data;
    GDestroyNotify free_data;
    GCancellable *cancel;
    /* Written by the worker, read by the UI thread's timer. */
    GMutex lock;
    GString *pending;          /* log text not shown yet */
    double fraction;
    char *text;
    /* The worker's result (read after it returned). */
    bool ok;
    pt_error err;
    int worker_done;           /* atomic: func returned (its children are reaped) */
};

static void jobs_unref(pt_jobs *jobs)
{
    if (--jobs->ref > 0)
        return;
    g_object_unref(jobs->log);
    g_free(jobs);
}

/* ---- log ------------------------------------------------------------------------------- */

static void log_append(pt_jobs *jobs, const char *text, gssize len)
{
    GtkTextIter end;
    gtk_text_buffer_get_end_iter(jobs->log, &end);
    gtk_text_buffer_insert(jobs->log, &end, text, (int)len);
    if (gtk_text_buffer_get_char_count(jobs->log) > LOG_MAX_CHARS) {
        GtkTextIter a, b;
        gtk_text_buffer_get_start_iter(jobs->log, &a);
        gtk_text_buffer_get_iter_at_offset(jobs->log, &b, LOG_MAX_CHARS / 2);
        gtk_text_iter_forward_line(&b);
        gtk_text_buffer_delete(jobs->log, &a, &b);
    }
    if (jobs->log_view && jobs->owner) {
        GtkTextMark *m = gtk_text_buffer_get_mark(jobs->log, "pt-end");
        gtk_text_view_scroll_mark_onscreen(GTK_TEXT_VIEW(jobs->log_view), m);
    }
}

void pt_jobs_log(pt_jobs *jobs, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    log_append(jobs, s, -1);
    log_append(jobs, "\n", 1);
    g_free(s);
}

char *pt_jobs_dup_log(pt_jobs *jobs)
{
    GtkTextIter a, b;
    gtk_text_buffer_get_bounds(jobs->log, &a, &b);
    return gtk_text_buffer_get_text(jobs->log, &a, &b, FALSE);
}

static void on_log_destroy(GtkWidget *w, gpointer data)
{
    (void)w;
    pt_jobs *jobs = data;
    jobs->log_window = jobs->log_view = NULL;
}

static void on_log_clear(GtkButton *b, gpointer data)
{
    (void)b;
    gtk_text_buffer_set_text(((pt_jobs *)data)->log, "", 0);
}

void pt_jobs_show_log(pt_jobs *jobs)
{
    if (!jobs->owner)
        return;
    if (!jobs->log_window) {
        GtkWidget *w = gtk_window_new();
        gtk_window_set_title(GTK_WINDOW(w), "Job Log — PipeThreader");
        gtk_window_set_transient_for(GTK_WINDOW(w), jobs->owner);
        gtk_window_set_destroy_with_parent(GTK_WINDOW(w), TRUE);
        gtk_window_set_hide_on_close(GTK_WINDOW(w), TRUE);
        gtk_window_set_default_size(GTK_WINDOW(w), 860, 520);
        GtkWidget *header = gtk_header_bar_new();
        GtkWidget *clear = gtk_button_new_with_mnemonic("C_lear");
        gtk_widget_set_tooltip_text(clear, "Forget what the jobs said so far");
        g_signal_connect(clear, "clicked", G_CALLBACK(on_log_clear), jobs);
        gtk_header_bar_pack_start(GTK_HEADER_BAR(header), clear);
        gtk_window_set_titlebar(GTK_WINDOW(w), header);
        jobs->log_view = gtk_text_view_new_with_buffer(jobs->log);
        gtk_text_view_set_editable(GTK_TEXT_VIEW(jobs->log_view), FALSE);
        gtk_text_view_set_monospace(GTK_TEXT_VIEW(jobs->log_view), TRUE);
        gtk_text_view_set_wrap_mode(GTK_TEXT_VIEW(jobs->log_view), GTK_WRAP_WORD_CHAR);
        gtk_text_view_set_left_margin(GTK_TEXT_VIEW(jobs->log_view), 8);
        gtk_accessible_update_property(GTK_ACCESSIBLE(jobs->log_view),
                                       GTK_ACCESSIBLE_PROPERTY_LABEL, "Job log", -1);
        GtkWidget *scroll = gtk_scrolled_window_new();
        gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroll), jobs->log_view);
        gtk_window_set_child(GTK_WINDOW(w), scroll);
        jobs->log_window = w;
        g_signal_connect(w, "destroy", G_CALLBACK(on_log_destroy), jobs);
    }
    gtk_window_present(GTK_WINDOW(jobs->log_window));
    gtk_text_view_scroll_mark_onscreen(GTK_TEXT_VIEW(jobs->log_view),
                                       gtk_text_buffer_get_mark(jobs->log, "pt-end"));
}

/* ---- status widget --------------------------------------------------------------------- */

static void on_cancel_clicked(GtkButton *b, gpointer data)
{
    (void)b;
    pt_jobs_cancel(data);
}

static void on_log_clicked(GtkButton *b, gpointer data)
{
    (void)b;
    pt_jobs_show_log(data);
}

pt_jobs *pt_jobs_new(GtkWindow *owner)
{
    pt_jobs *jobs = g_new0(pt_jobs, 1);
    jobs->ref = 1;
    jobs->owner = owner;
    jobs->log = gtk_text_buffer_new(NULL);
    GtkTextIter end;
    gtk_text_buffer_get_end_iter(jobs->log, &end);
    gtk_text_buffer_create_mark(jobs->log, "pt-end", &end, FALSE);

    jobs->status = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    jobs->spinner = gtk_spinner_new();
    gtk_box_append(GTK_BOX(jobs->status), jobs->spinner);
    jobs->label = gtk_label_new(NULL);
    gtk_label_set_ellipsize(GTK_LABEL(jobs->label), PANGO_ELLIPSIZE_END);
    gtk_label_set_width_chars(GTK_LABEL(jobs->label), 18); /* else the header squeezes it away */
    gtk_label_set_max_width_chars(GTK_LABEL(jobs->label), 36);
    gtk_label_set_xalign(GTK_LABEL(jobs->label), 0);
    gtk_box_append(GTK_BOX(jobs->status), jobs->label);
    jobs->bar = gtk_progress_bar_new();
    gtk_widget_set_size_request(jobs->bar, 80, -1);
    gtk_widget_set_valign(jobs->bar, GTK_ALIGN_CENTER);
    gtk_progress_bar_set_pulse_step(GTK_PROGRESS_BAR(jobs->bar), 0.1);
    gtk_accessible_update_property(GTK_ACCESSIBLE(jobs->bar), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   "Job progress", -1);
    gtk_box_append(GTK_BOX(jobs->status), jobs->bar);
    GtkWidget *log = gtk_button_new_from_icon_name("utilities-terminal-symbolic");
    gtk_widget_add_css_class(log, "flat");
    gtk_widget_set_tooltip_text(log, "Show the job log");
    g_signal_connect(log, "clicked", G_CALLBACK(on_log_clicked), jobs);
    gtk_box_append(GTK_BOX(jobs->status), log);
    jobs->cancel = gtk_button_new_with_mnemonic("_Cancel");
    gtk_widget_add_css_class(jobs->cancel, "destructive-action");
    g_signal_connect(jobs->cancel, "clicked", G_CALLBACK(on_cancel_clicked), jobs);
    gtk_box_append(GTK_BOX(jobs->status), jobs->cancel);
    gtk_widget_set_visible(jobs->status, FALSE);
    return jobs;
}

GtkWidget *pt_jobs_status_widget(pt_jobs *jobs)
{
    return jobs->status;
}

/* Move what the worker said since the last tick into the log and the status widget. */
static void flush(pt_jobs *jobs, pt_job *job)
{
    g_mutex_lock(&job->lock);
    char *pending = job->pending->len ? g_strndup(job->pending->str, job->pending->len) : NULL;
    g_string_truncate(job->pending, 0);
    double fraction = job->fraction;
    char *text = g_strdup(job->text);
    g_mutex_unlock(&job->lock);
    if (pending)
        log_append(jobs, pending, -1);
    g_free(pending);
    if (jobs->owner) {
        /* What it does now in the header (little room there), the job's name too on hover. */
        char *tip = text && *text ? g_strdup_printf("%s: %s", job->title, text)
                                  : g_strdup(job->title);
        gtk_label_set_text(GTK_LABEL(jobs->label), text && *text ? text : job->title);
        gtk_widget_set_tooltip_text(jobs->label, tip);
        g_free(tip);
        if (fraction < 0)
            gtk_progress_bar_pulse(GTK_PROGRESS_BAR(jobs->bar));
        else
            gtk_progress_bar_set_fraction(GTK_PROGRESS_BAR(jobs->bar), fraction > 1 ? 1 : fraction);
    }
    g_free(text);
}

static gboolean on_tick(gpointer data)
{
    pt_jobs *jobs = data;
    if (jobs->running)
        flush(jobs, jobs->running);
    return G_SOURCE_CONTINUE;
}

/* ---- running ----------------------------------------------------------------------------- */

static void job_free(pt_job *job)
{
    if (job->free_data)
        job->free_data(job->data);
    g_object_unref(job->cancel);
    g_mutex_clear(&job->lock);
    g_string_free(job->pending, TRUE);
    g_free(job->text);
    g_free(job->title);
    g_free(job);
}

static void worker(GTask *task, gpointer source, gpointer task_data, GCancellable *c)
{
    (void)source, (void)c;
    pt_job *job = task_data;
    job->ok = job->func(job, job->data, &job->err);
    g_atomic_int_set(&job->worker_done, 1);
    g_task_return_boolean(task, TRUE);
}

static void on_finished(GObject *source, GAsyncResult *res, gpointer user)
{
    (void)source, (void)user;
    pt_job *job = g_task_get_task_data(G_TASK(res));
    pt_jobs *jobs = job->jobs;
    flush(jobs, job);
    jobs->running = NULL;
    if (jobs->timer) {
        g_source_remove(jobs->timer);
        jobs->timer = 0;
    }
    bool cancelled = g_cancellable_is_cancelled(job->cancel);
    bool ok = job->ok && !cancelled;
    const char *error = ok ? NULL : cancelled ? "cancelled"
                       : job->err.msg[0] ? job->err.msg : "failed (no reason given)";
    if (jobs->owner) {
        gtk_spinner_stop(GTK_SPINNER(jobs->spinner));
        gtk_widget_set_visible(jobs->status, FALSE);
        pt_jobs_log(jobs, "== %s: %s", job->title, ok ? "done" : error);
        if (job->done)
            job->done(jobs, job->data, ok, cancelled, error);
    }
    job_free(job);
    jobs_unref(jobs);
}

bool pt_jobs_start(pt_jobs *jobs, const char *title, pt_job_func func, pt_job_done done,
                   void *data, GDestroyNotify free_data, pt_error *err)
{
    if (jobs->running) {
        if (free_data)
            free_data(data);
        return pt_fail(err, "%s: %s is still running; wait for it or press Cancel", title,
                       jobs->running->title);
    }
    pt_job *job = g_new0(pt_job, 1);
    job->jobs = jobs;
    job->title = g_strdup(title);
    job->func = func;
    job->done = done;
    job->data = data;
    job->free_data = free_data;
    job->cancel = g_cancellable_new();
    g_mutex_init(&job->lock);
    job->pending = g_string_new(NULL);
    job->fraction = -1;
    jobs->running = job;
    jobs->ref++;
    pt_jobs_log(jobs, "== %s", title);
    gtk_label_set_text(GTK_LABEL(jobs->label), title);
    gtk_progress_bar_set_fraction(GTK_PROGRESS_BAR(jobs->bar), 0);
    char *tip = g_strdup_printf("Cancel %s", title);
    gtk_widget_set_tooltip_text(jobs->cancel, tip);
    g_free(tip);
    gtk_widget_set_sensitive(jobs->cancel, TRUE);
    gtk_spinner_start(GTK_SPINNER(jobs->spinner));
    gtk_widget_set_visible(jobs->status, TRUE);
    jobs->timer = g_timeout_add(100, on_tick, jobs);
    GTask *task = g_task_new(NULL, NULL, on_finished, NULL);
    g_task_set_task_data(task, job, NULL);
    g_task_run_in_thread(task, worker);
    g_object_unref(task);
    return true;
}

bool pt_jobs_busy(const pt_jobs *jobs)
{
    return jobs->running != NULL;
}

void pt_jobs_cancel(pt_jobs *jobs)
{
    if (!jobs->running)
        return;
    g_cancellable_cancel(jobs->running->cancel);
    if (jobs->owner) {
        gtk_widget_set_sensitive(jobs->cancel, FALSE);
        pt_jobs_log(jobs, "== %s: cancelling", jobs->running->title);
    }
}

void pt_jobs_detach(pt_jobs *jobs)
{
    if (jobs->running) {
        /* Wait (briefly) for the worker to kill and reap its child: the application may quit
         * right after its last window closed, and must leave no process behind. */
        g_cancellable_cancel(jobs->running->cancel);
        for (int i = 0; i < 300 && !g_atomic_int_get(&jobs->running->worker_done); i++)
            g_usleep(10000);
    }
    if (jobs->timer) {
        g_source_remove(jobs->timer);
        jobs->timer = 0;
    }
    if (jobs->log_window)
        gtk_window_destroy(GTK_WINDOW(jobs->log_window));
    jobs->log_window = jobs->log_view = NULL;
    jobs->owner = NULL;
    jobs_unref(jobs);
}

/* ---- worker side ------------------------------------------------------------------------- */

bool pt_job_cancelled(pt_job *job)
{
    return g_cancellable_is_cancelled(job->cancel);
}

void pt_job_log_raw(pt_job *job, const char *data, size_t n)
{
    g_mutex_lock(&job->lock);
    if (job->pending->len < LOG_MAX_CHARS) /* a runaway child cannot exhaust memory */
        g_string_append_len(job->pending, data, (gssize)n);
    g_mutex_unlock(&job->lock);
}

void pt_job_log(pt_job *job, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_mutex_lock(&job->lock);
    g_string_append(job->pending, s);
    g_string_append_c(job->pending, '\n');
    g_mutex_unlock(&job->lock);
    g_free(s);
}

void pt_job_progress(pt_job *job, double fraction, const char *text)
{
    g_mutex_lock(&job->lock);
    job->fraction = fraction;
    if (text) {
        g_free(job->text);
        job->text = g_strdup(text);
    }
    g_mutex_unlock(&job->lock);
}
