/* test_explorer_autosave.c — the explorer's crash-safe autosave (issue 12), under Xvfb: a child
 * copy of this test (--crash-child) opens a document, saves it, edits it, lets the debounced
 * autosave fire and is killed with SIGKILL; a new session then offers the edits in its recovery
 * bar, and Recover restores them (the same sProgram, marked modified, still belonging to the
 * saved file) or Discard deletes them. Also: a clean save, a clean close and opening another
 * document remove the autosave; the autosave of a running session is not offered; an
 * unreadable autosave is reported, naming the file, and kept; the graph file of the edits may be
 * gone (the autosave keeps a copy).
 * $XDG_STATE_HOME points at a temporary directory for all of it. */
#include <fcntl.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include "autosave.h"
#include "embedded.h"
#include "explorer_test.h"
#include "window.h"

#define DELAY_MS 300

static char *state_dir;  /* $XDG_STATE_HOME */
static char *doc_dir;    /* where the child saves its document */
static const char *self_exe;

static char *autosave_dir(void)
{
    return g_build_filename(state_dir, "pipethreader", "autosave", NULL);
}

/* The autosave files (*.json) in the directory, sorted (free with g_strfreev). */
static char **autosaves(void)
{
    char *d = autosave_dir();
    GPtrArray *out = g_ptr_array_new();
    GDir *dir = g_dir_open(d, 0, NULL);
    const char *name;
    while (dir && (name = g_dir_read_name(dir)))
        if (g_str_has_suffix(name, ".json"))
            g_ptr_array_add(out, g_build_filename(d, name, NULL));
    if (dir)
        g_dir_close(dir);
    g_free(d);
    g_ptr_array_sort(out, (GCompareFunc)g_strcmp0);
    g_ptr_array_add(out, NULL);
    return (char **)g_ptr_array_free(out, FALSE);
}

static int count_autosaves(void)
{
    char **a = autosaves();
    int n = (int)g_strv_length(a);
    g_strfreev(a);
    return n;
}

static void act(PtWindow *w, const char *action, GVariant *param)
{
    g_action_activate(g_action_map_lookup_action(G_ACTION_MAP(w), action), param);
    iterate();
}

/* The edit both sides know: load.B first in the TMA lane. */
static void edit(PtWindow *w)
{
    g_assert_true(pt_window_select_stask_id(w, "load.B"));
    act(w, "append", g_variant_new("(si)", "tma", 0));
    g_assert_null(pt_window_get_error(w));
    g_assert_true(pt_window_get_model(w)->dirty);
}

/* The debounce: no autosave may exist unless DELAY_MS have passed since t0 (the last edit, in
 * g_get_monotonic_time). Checked against the clock, not assumed, because a loaded machine may
 * spend longer than the delay in one main-loop iteration. */
static void assert_no_autosave_before_delay(PtWindow *w, gint64 t0)
{
    if (pt_window_get_autosave_path(w))
        g_assert_cmpint(g_get_monotonic_time() - t0, >=, (gint64)DELAY_MS * 1000);
}

/* ---- the child: edit, let the autosave fire, crash ---------------------------------------- */

static void child_activate(GtkApplication *app, gpointer data)
{
    (void)data;
    pt_error err = {{0}};
    if (!pt_autosave_session_start(&err)) {
        fprintf(stderr, "child: %s\n", err.msg);
        exit(2);
    }
    pt_window_set_autosave_delay(DELAY_MS);
    PtWindow *w = pt_window_new(app, "H100");
    gtk_window_present(GTK_WINDOW(w));
    const char *graph = g_getenv("PT_TEST_CHILD_GRAPH");
    g_assert_true(pt_window_open(w, graph && graph[0] ? graph : "gemm_f16"));
    char *doc = g_build_filename(doc_dir, "doc.sprogram.json", NULL);
    g_assert_true(pt_window_save_to(w, doc));
    g_free(doc);
    gint64 t0 = g_get_monotonic_time();
    edit(w);
    /* debounced: nothing is written at once */
    assert_no_autosave_before_delay(w, t0);
    for (int i = 0; i < 200 && !pt_window_get_autosave_path(w); i++)
        spin(20);
    g_assert_nonnull(pt_window_get_autosave_path(w));
    pt_autosave_flush();
    g_assert_true(g_file_test(pt_window_get_autosave_path(w), G_FILE_TEST_IS_REGULAR));
    char *j = pt_explorer_model_to_json(pt_window_get_model(w));
    fputs(j, stdout);
    fflush(stdout);
    free(j);
    raise(SIGKILL); /* the crash: no cleanup of any kind */
}

static int run_child(void)
{
    GtkApplication *app = gtk_application_new("org.pipethreader.AutosaveCrash",
                                              G_APPLICATION_NON_UNIQUE);
    g_signal_connect(app, "activate", G_CALLBACK(child_activate), NULL);
    g_application_run(G_APPLICATION(app), 0, NULL);
    return 3; /* not reached: the child dies in activate */
}

/* Run the child on graph (a file or example; NULL: gemm_f16); its edited sProgram as JSON
 * (g_free). */
static char *crash_child_on(const char *graph)
{
    char *argv[] = {(char *)self_exe, "--crash-child", NULL};
    char **env = g_environ_setenv(g_get_environ(), "PT_TEST_CHILD_GRAPH", graph ? graph : "",
                                  TRUE);
    char *out = NULL, *errs = NULL;
    int status = 0;
    GError *e = NULL;
    g_assert_true(g_spawn_sync(NULL, argv, env, G_SPAWN_DEFAULT, NULL, NULL, &out, &errs,
                               &status, &e));
    g_strfreev(env);
    g_assert_no_error(e);
    if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL))
        g_error("the crash child did not die by SIGKILL (status %d): %s", status, errs);
    g_free(errs);
    g_assert_true(out && out[0] == '{');
    return out;
}

static char *crash_child(void)
{
    return crash_child_on(NULL);
}

/* ---- the tests ---------------------------------------------------------------------------- */

static void test_recover(void)
{
    char *edited = crash_child();
    g_assert_cmpint(count_autosaves(), ==, 1);
    pt_window_offer_recovery(win);
    const char *text = pt_window_get_recovery_text(win);
    g_assert_nonnull(text);
    g_assert_nonnull(strstr(text, "gemm_f16"));
    g_assert_nonnull(strstr(text, "doc.sprogram.json"));
    g_assert_nonnull(strstr(text, "H100"));
    act(win, "recover-autosave", NULL);
    g_assert_null(pt_window_get_error(win));
    g_assert_null(pt_window_get_recovery_text(win));
    pt_explorer_model *m = pt_window_get_model(win);
    g_assert_true(m->have_prog);
    g_assert_true(m->dirty);
    g_assert_nonnull(strstr(gtk_window_get_title(GTK_WINDOW(win)), "•"));
    g_assert_cmpstr(m->hw.name, ==, "H100");
    char *doc = g_build_filename(doc_dir, "doc.sprogram.json", NULL);
    g_assert_cmpstr(m->save_path, ==, doc);
    char *now = prog_json();
    g_assert_cmpstr(now, ==, edited);
    /* the old autosave made way for this session's own */
    pt_autosave_flush();
    char **a = autosaves();
    g_assert_cmpint(g_strv_length(a), ==, 1);
    g_assert_cmpstr(a[0], ==, pt_window_get_autosave_path(win));
    g_strfreev(a);
    /* the crashed session's lock is gone with its last autosave */
    char *d = autosave_dir();
    GDir *dir = g_dir_open(d, 0, NULL);
    int locks = 0;
    const char *name;
    while (dir && (name = g_dir_read_name(dir)))
        locks += g_str_has_suffix(name, ".lock");
    g_dir_close(dir);
    g_assert_cmpint(locks, ==, 1); /* ours */
    g_free(d);
    /* a clean save removes it */
    g_assert_true(pt_window_save_to(win, doc));
    pt_autosave_flush();
    g_assert_cmpint(count_autosaves(), ==, 0);
    g_assert_null(pt_window_get_autosave_path(win));
    g_free(now);
    g_free(doc);
    g_free(edited);
}

static void test_discard(void)
{
    g_free(crash_child());
    g_assert_cmpint(count_autosaves(), ==, 1);
    char *before = prog_json();
    pt_window_offer_recovery(win);
    g_assert_nonnull(pt_window_get_recovery_text(win));
    act(win, "discard-autosave", NULL);
    g_assert_null(pt_window_get_recovery_text(win));
    pt_autosave_flush();
    g_assert_cmpint(count_autosaves(), ==, 0);
    char *after = prog_json(); /* the window's own document is untouched */
    g_assert_cmpstr(after, ==, before);
    g_assert_false(pt_window_get_model(win)->dirty);
    g_free(before);
    g_free(after);
}

/* Recover while the window shows a document: the edits open in a new window. */
static void test_recover_into_new_window(void)
{
    char *edited = crash_child();
    GtkApplication *app = GTK_APPLICATION(g_application_get_default());
    guint n = g_list_length(gtk_application_get_windows(app));
    pt_window_offer_recovery(win);
    act(win, "recover-autosave", NULL);
    g_assert_cmpuint(g_list_length(gtk_application_get_windows(app)), ==, n + 1);
    PtWindow *w2 = PT_WINDOW(gtk_application_get_windows(app)->data); /* the newest first */
    g_assert_true(w2 != win);
    char *j = pt_explorer_model_to_json(pt_window_get_model(w2));
    g_assert_cmpstr(j, ==, edited);
    free(j);
    g_assert_true(pt_window_get_model(w2)->dirty);
    g_assert_false(pt_window_get_model(win)->dirty);
    /* closing it cleanly (as after Discard at the prompt) removes its autosave */
    pt_autosave_flush();
    g_assert_cmpint(count_autosaves(), ==, 1);
    gtk_window_destroy(GTK_WINDOW(w2));
    pt_autosave_flush();
    g_assert_cmpint(count_autosaves(), ==, 0);
    g_free(edited);
}

/* The graph came from a file that is gone by the time of recovery: the autosave's copy of it
 * serves. */
static void test_graph_file_gone(void)
{
    char *graph = g_build_filename(doc_dir, "my-gemm.json", NULL);
    const char *text = pt_embedded_find(pt_embedded_examples, "gemm_f16");
    g_assert_nonnull(text);
    g_assert_true(g_file_set_contents(graph, text, -1, NULL));
    char *edited = crash_child_on(graph);
    g_assert_cmpint(g_unlink(graph), ==, 0);
    PtWindow *w = pt_window_new(GTK_APPLICATION(g_application_get_default()), "H200");
    pt_window_offer_recovery(w);
    g_assert_nonnull(pt_window_get_recovery_text(w));
    act(w, "recover-autosave", NULL);
    g_assert_null(pt_window_get_error(w));
    pt_explorer_model *m = pt_window_get_model(w);
    g_assert_true(m->have_prog && m->dirty);
    g_assert_cmpstr(m->source, ==, graph);
    char *j = pt_explorer_model_to_json(m);
    g_assert_cmpstr(j, ==, edited);
    free(j);
    /* and its own autosave keeps the copy, for a second crash */
    pt_autosave_flush();
    char *saved = NULL;
    g_assert_true(g_file_get_contents(pt_window_get_autosave_path(w), &saved, NULL, NULL));
    g_assert_true(g_regex_match_simple("\"graph\":\\s*\\{", saved, 0, 0));
    g_free(saved);
    m->dirty = FALSE; /* as the prompt's Discard would */
    gtk_window_destroy(GTK_WINDOW(w));
    pt_autosave_flush();
    g_assert_cmpint(count_autosaves(), ==, 0);
    g_free(edited);
    g_free(graph);
}

static void test_debounce_and_replace(void)
{
    PtWindow *w = pt_window_new(GTK_APPLICATION(g_application_get_default()), "H200");
    g_assert_true(pt_window_open(w, "gemm_f16"));
    /* each edit restarts the wait; a gap between edits of DELAY_MS or more (a loaded machine)
     * lets it fire legitimately, so the longest gap decides what may be seen */
    gint64 t0 = g_get_monotonic_time(), gap = 0;
    edit(w);
    spin(DELAY_MS / 3);
    gint64 t1 = g_get_monotonic_time();
    act(w, "undo", NULL);
    spin(DELAY_MS / 3);
    gint64 t2 = g_get_monotonic_time();
    act(w, "redo", NULL);
    spin(DELAY_MS / 2);
    gap = MAX(t1 - t0, t2 - t1);
    if (gap < (gint64)DELAY_MS * 1000)
        assert_no_autosave_before_delay(w, t2);
    for (int i = 0; i < 100 && !pt_window_get_autosave_path(w); i++)
        spin(20);
    g_assert_nonnull(pt_window_get_autosave_path(w));
    pt_autosave_flush();
    g_assert_cmpint(count_autosaves(), ==, 1);
    /* opening another document over the edits (the prompt said Discard) removes it */
    g_assert_true(pt_window_open(w, "gemm_bf16"));
    pt_autosave_flush();
    g_assert_cmpint(count_autosaves(), ==, 0);
    gtk_window_destroy(GTK_WINDOW(w));
}

static void test_running_session_not_offered(void)
{
    /* another explorer, running: its lock is held */
    char *d = autosave_dir();
    char *lock = g_build_filename(d, "session-1-abc.lock", NULL);
    char *file = g_build_filename(d, "session-1-abc.w1.json", NULL);
    int fd = open(lock, O_RDWR | O_CREAT, 0600);
    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(flock(fd, LOCK_EX | LOCK_NB), ==, 0);
    pt_autosave_info info;
    memset(&info, 0, sizeof info);
    g_strlcpy(info.graph_source, "gemm_f16", sizeof info.graph_source);
    g_strlcpy(info.hw, "H200", sizeof info.hw);
    g_strlcpy(info.title, "gemm_f16", sizeof info.title);
    char *j = prog_json();
    char *text = pt_autosave_compose(&info, j, NULL);
    g_assert_true(g_file_set_contents(file, text, -1, NULL));
    pt_window_offer_recovery(win);
    g_assert_null(pt_window_get_recovery_text(win));
    /* once it has died, it is */
    close(fd);
    pt_window_offer_recovery(win);
    g_assert_nonnull(pt_window_get_recovery_text(win));
    act(win, "discard-autosave", NULL);
    pt_autosave_flush();
    g_assert_false(g_file_test(file, G_FILE_TEST_EXISTS));
    g_assert_false(g_file_test(lock, G_FILE_TEST_EXISTS));
    g_free(text);
    g_free(j);
    g_free(file);
    g_free(lock);
    g_free(d);
}

static void test_unreadable_kept(void)
{
    char *d = autosave_dir();
    char *file = g_build_filename(d, "session-2-def.w1.json", NULL);
    g_assert_true(g_file_set_contents(file, "{\"format\": \"pipethreader.autosave\", \"vers", -1,
                                      NULL));
    pt_window_offer_recovery(win);
    const char *text = pt_window_get_recovery_text(win);
    g_assert_nonnull(text);
    g_assert_nonnull(strstr(text, "cannot be read"));
    g_assert_nonnull(strstr(text, file));
    char *before = prog_json();
    act(win, "recover-autosave", NULL);
    const char *err = pt_window_get_error(win);
    g_assert_nonnull(err);
    g_assert_nonnull(strstr(err, file));
    g_assert_nonnull(strstr(err, "the autosave is kept"));
    pt_autosave_flush();
    g_assert_true(g_file_test(file, G_FILE_TEST_IS_REGULAR)); /* never lose the work */
    char *after = prog_json();
    g_assert_cmpstr(after, ==, before);
    pt_window_show_error(win, NULL);
    g_unlink(file);
    g_free(before);
    g_free(after);
    g_free(file);
    g_free(d);
}

static void rm_rf(const char *path)
{
    GDir *d = g_dir_open(path, 0, NULL);
    const char *name;
    while (d && (name = g_dir_read_name(d))) {
        char *p = g_build_filename(path, name, NULL);
        if (g_file_test(p, G_FILE_TEST_IS_DIR) && !g_file_test(p, G_FILE_TEST_IS_SYMLINK))
            rm_rf(p);
        else
            g_unlink(p);
        g_free(p);
    }
    if (d)
        g_dir_close(d);
    g_rmdir(path);
}

int main(int argc, char **argv)
{
    self_exe = argv[0];
    if (argc > 1 && strcmp(argv[1], "--crash-child") == 0) {
        doc_dir = g_strdup(g_getenv("PT_TEST_DOC_DIR"));
        gtk_init();
        return run_child();
    }
    /* before anything asks GLib for the state directory: it is read once */
    char *root = g_dir_make_tmp("pt-autosave-XXXXXX", NULL);
    g_assert_nonnull(root);
    state_dir = g_build_filename(root, "state", NULL);
    doc_dir = g_build_filename(root, "docs", NULL);
    g_mkdir_with_parents(doc_dir, 0700);
    g_setenv("XDG_STATE_HOME", state_dir, TRUE);
    g_setenv("PT_TEST_DOC_DIR", doc_dir, TRUE);
    gtk_test_init(&argc, &argv, NULL);
    pt_error err = {{0}};
    if (!pt_autosave_session_start(&err))
        g_error("%s", err.msg);
    pt_window_set_autosave_delay(DELAY_MS);
    g_test_add_func("/autosave/recover", test_recover);
    g_test_add_func("/autosave/discard", test_discard);
    g_test_add_func("/autosave/recover-into-new-window", test_recover_into_new_window);
    g_test_add_func("/autosave/graph-file-gone", test_graph_file_gone);
    g_test_add_func("/autosave/debounce-and-replace", test_debounce_and_replace);
    g_test_add_func("/autosave/running-session-not-offered", test_running_session_not_offered);
    g_test_add_func("/autosave/unreadable-kept", test_unreadable_kept);
    int rc = explorer_test_run("org.pipethreader.AutosaveTest");
    pt_autosave_session_end();
    /* a clean end leaves nothing behind */
    if (rc == 0 && count_autosaves() != 0) {
        fprintf(stderr, "autosaves left after a clean end\n");
        rc = 1;
    }
    char *d = autosave_dir();
    GDir *dir = g_dir_open(d, 0, NULL);
    const char *name;
    while (rc == 0 && dir && (name = g_dir_read_name(dir))) {
        fprintf(stderr, "left after a clean end: %s\n", name);
        rc = 1;
    }
    if (dir)
        g_dir_close(dir);
    g_free(d);
    rm_rf(root);
    g_free(root);
    return rc;
}
