/* explorer_test.h — what the explorer's GUI tests share: the window under test, main-loop
 * helpers, activating an action, opening an example, waiting for a job, the timeline and its
 * pixels, the sProgram as JSON, and the runner that opens one window in a GtkApplication, runs
 * the GTest cases in it and closes it.
 *
 * GTest keeps every warning fatal, except one that GTK 4.8 itself emits: "Trying to snapshot
 * <widget> without a current allocation", seen intermittently on loaded machines when a page
 * with a text view is shown and snapshotted before its first allocation. It is internal to GTK,
 * harmless (the next frame draws it) and not our code's to fix; any other warning or critical
 * still fails the test. */
#ifndef PT_EXPLORER_TEST_H
#define PT_EXPLORER_TEST_H

#include <gtk/gtk.h>
#include <stdlib.h>
#include <string.h>

#include "actions.h"
#include "timeline_view.h"
#include "window.h"

static PtWindow *win;

/* The window's timeline widget. */
static inline PtTimelineView *tl(void)
{
    return PT_TIMELINE_VIEW(pt_window_get_timeline(win));
}

/* The RGB of pixel (x, y) of an image surface (ARGB32). */
static inline uint32_t px(cairo_surface_t *s, int x, int y)
{
    unsigned char *d = cairo_image_surface_get_data(s);
    return *(uint32_t *)(d + y * cairo_image_surface_get_stride(s) + x * 4) & 0xffffff;
}

/* Handle what is pending now (at most 50 events). */
static inline void iterate(void)
{
    for (int i = 0; i < 50 && g_main_context_pending(NULL); i++)
        g_main_context_iteration(NULL, FALSE);
}

/* Let the main loop run for ms milliseconds (frames, layout, timers). */
static inline void spin(int ms)
{
    gint64 end = g_get_monotonic_time() + (gint64)ms * 1000;
    while (g_get_monotonic_time() < end) {
        iterate();
        g_usleep(2000);
    }
}

/* Activates a window action that must exist and be enabled, then runs what it queued. */
static inline void explorer_activate(const char *action, GVariant *param)
{
    GAction *a = g_action_map_lookup_action(G_ACTION_MAP(win), action);
    g_assert_nonnull(a);
    g_assert_true(g_action_get_enabled(a));
    g_action_activate(a, param);
    iterate();
}

/* Opens an embedded example on the H200, without the prompt about the last one's edits. */
static inline void explorer_open(const char *example)
{
    pt_window_get_model(win)->dirty = FALSE;
    g_assert_true(pt_window_set_hw(win, "H200"));
    g_assert_true(pt_window_open(win, example));
    iterate();
}

/* Waits (at most 60 s) for the window's background job to end. */
static inline void explorer_wait_job(void)
{
    gint64 t0 = g_get_monotonic_time();
    while (pt_actions_job_busy(win)) {
        iterate();
        g_usleep(2000);
        g_assert_cmpint(g_get_monotonic_time() - t0, <, (gint64)60 * 1000000);
    }
    iterate();
}

/* The window's sProgram as JSON (g_free it). */
static inline char *prog_json(void)
{
    char *j = pt_explorer_model_to_json(pt_window_get_model(win));
    g_assert_nonnull(j);
    char *g = g_strdup(j);
    free(j);
    return g;
}

static gboolean explorer_test_fatal_log(const gchar *domain, GLogLevelFlags level,
                                        const gchar *msg, gpointer data)
{
    (void)data;
    if (domain && strcmp(domain, "Gtk") == 0 && (level & G_LOG_LEVEL_WARNING) && msg &&
        strstr(msg, "Trying to snapshot") && strstr(msg, "without a current allocation"))
        return FALSE;
    return TRUE;
}

static void explorer_test_on_activate(GtkApplication *app, gpointer data)
{
    win = pt_window_new(app, "H200");
    gtk_window_set_default_size(GTK_WINDOW(win), 1200, 800);
    gtk_window_present(GTK_WINDOW(win));
    iterate();
    int *rc = data;
    *rc = g_test_run();
    /* Nothing is left unsaved by a test that would prompt: discard by marking it clean. */
    pt_window_get_model(win)->dirty = FALSE;
    gtk_window_destroy(GTK_WINDOW(win));
}

/* Run the registered GTest cases in one explorer window of application app_id; the GTest exit
 * status. Call after gtk_test_init and g_test_add_func. */
static inline int explorer_test_run(const char *app_id)
{
    g_test_log_set_fatal_handler(explorer_test_fatal_log, NULL);
    int rc = 1;
    GtkApplication *app = gtk_application_new(app_id, G_APPLICATION_NON_UNIQUE);
    g_signal_connect(app, "activate", G_CALLBACK(explorer_test_on_activate), &rc);
    g_application_run(G_APPLICATION(app), 0, NULL);
    g_object_unref(app);
    return rc;
}

#endif
