/* test_explorer_actions.c — the explorer's Actions and Code page (suite 'gui', under Xvfb via
 * run_xvfb.sh), driven through the window's GActions as the menus drive them:
 *   - Auto-schedule replaces the sProgram as one undoable edit; a candidate budget stops early;
 *     another candidate can be put in place;
 *   - Export Chrome trace writes valid JSON; Export kernel source writes the bundle of gemm_f16
 *     and shows the backend's one-line refusal where it has one;
 *   - Compile & Profile on this machine (no GPU) fails with the runner's reason in the banner;
 *     through a fake remote command (tests/gen_fake_profile) the measured spans are laid over
 *     the user's edited sProgram, which is kept; a failing remote command is one line;
 *   - Cancel of a running job (remote command "sleep") returns within a second and leaves no
 *     child process; a second job is refused while one runs;
 *   - the Code page shows kernel.cu and puts the cursor on (and scrolls to) the selected
 *     sTask's code; it follows edits;
 *   - preferences round-trip through their key file, and a malformed one is named.
 * usage: test_explorer_actions [GEN_FAKE_PROFILE] (the fake-remote test is skipped without). */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <stdlib.h>
#include <string.h>

#include "explorer_test.h"
#include "actions.h"
#include "code_view.h"
#include "json_util.h"
#include "runner.h"
#include "window.h"

static char *tmp;              /* this run's scratch folder (also XDG config and cache) */
static const char *gen_fake;   /* tests/gen_fake_profile, or NULL */

/* Wait until no job runs; the seconds it took, or -1 after max_s. */
static double wait_job(double max_s)
{
    gint64 t0 = g_get_monotonic_time();
    while (pt_actions_job_busy(win)) {
        iterate();
        g_usleep(2000);
        if ((g_get_monotonic_time() - t0) / 1e6 > max_s)
            return -1;
    }
    iterate();
    return (g_get_monotonic_time() - t0) / 1e6;
}

static void load(const char *example)
{
    g_assert_true(pt_window_open(win, example));
    g_assert_null(pt_window_get_error(win));
    iterate();
}

static gboolean log_has(const char *needle)
{
    char *log = pt_actions_dup_log(win);
    gboolean yes = strstr(log, needle) != NULL;
    if (!yes)
        g_test_message("log lacks \"%s\":\n%s", needle, log);
    g_free(log);
    return yes;
}

/* ---- Auto-schedule --------------------------------------------------------------------- */

static void test_auto_schedule(void)
{
    load("gemm_f16");
    /* Start from a worse tiling, so the search has something to change. */
    explorer_activate("tile", g_variant_new_string("n=128"));
    g_assert_null(pt_window_get_error(win));
    char *before = prog_json();
    g_assert_nonnull(strstr(before, "\"n\": 128"));
    explorer_activate("auto-schedule-run", g_variant_new("(dxib)", 0.0, (gint64)0, 3, FALSE));
    g_assert_cmpfloat(wait_job(60), >=, 0);
    g_assert_null(pt_window_get_error(win));
    g_assert_cmpint(pt_actions_n_candidates(win), ==, 3);
    char *after = prog_json();
    g_assert_cmpstr(after, !=, before);
    g_assert_true(pt_window_get_model(win)->dirty);
    g_assert_true(log_has("candidate #1 in place"));
    /* One undo brings the user's sProgram back exactly. */
    explorer_activate("undo", NULL);
    char *undone = prog_json();
    g_assert_cmpstr(undone, ==, before);
    explorer_activate("redo", NULL);
    char *redone = prog_json();
    g_assert_cmpstr(redone, ==, after);
    /* Another candidate, then undo returns to the best. */
    explorer_activate("schedule-apply", g_variant_new_int32(1));
    g_assert_null(pt_window_get_error(win));
    char *second = prog_json();
    g_assert_cmpstr(second, !=, after);
    explorer_activate("undo", NULL);
    char *back = prog_json();
    g_assert_cmpstr(back, ==, after);
    /* A candidate that does not exist is refused in the banner. */
    explorer_activate("schedule-apply", g_variant_new_int32(7));
    g_assert_nonnull(pt_window_get_error(win));
    g_assert_nonnull(strstr(pt_window_get_error(win), "candidate 8 does not exist"));
    /* A budget of 100 candidates stops the search early. */
    explorer_activate("auto-schedule-run", g_variant_new("(dxib)", 0.0, (gint64)100, 2, FALSE));
    g_assert_cmpfloat(wait_job(60), >=, 0);
    g_assert_true(log_has("(budget reached)"));
    /* The dialog opens. */
    explorer_activate("auto-schedule", NULL);
    /* A split graph keeps its count here, and the log says where it is searched. */
    load("flash_decoding");
    explorer_activate("auto-schedule-run", g_variant_new("(dxib)", 0.0, (gint64)200, 1, FALSE));
    g_assert_cmpfloat(wait_job(60), >=, 0);
    g_assert_true(log_has("SPLITS = 16 as loaded: the explorer keeps the graph's split count"));
    g_assert_true(log_has("and weighs the one-pass graph flash_decoding_unsplit"));
    /* A ChunkScan in the tile form keeps it, and the log says the CLI tries both. */
    load("mamba2_chunk_scan");
    explorer_activate("auto-schedule-run", g_variant_new("(dxib)", 0.0, (gint64)200, 1, FALSE));
    g_assert_cmpfloat(wait_job(60), >=, 0);
    g_assert_true(log_has("pipethreader-cli schedule also tries each with the decay factored"));
    g_assert_cmpint(pt_window_get_model(win)->prog.decay, ==, PT_DECAY_TILE);
    /* A ChunkScan whose decay the user factored keeps it through a search. */
    explorer_activate("decay", g_variant_new_string("factored"));
    explorer_activate("auto-schedule-run", g_variant_new("(dxib)", 0.0, (gint64)200, 1, FALSE));
    g_assert_cmpfloat(wait_job(60), >=, 0);
    g_assert_true(log_has("every candidate with the decay factored, as the program has it"));
    g_assert_cmpint(pt_window_get_model(win)->prog.decay, ==, PT_DECAY_FACTORED);
    /* Without ragged splits no candidate has three warpgroups on 64 heads; with them (the
     * dialog's check button, a window action) the H200 model's whole-space pick does. */
    explorer_activate("auto-schedule-run", g_variant_new("(dxib)", 0.0, (gint64)0, 1, FALSE));
    g_assert_cmpfloat(wait_job(120), >=, 0);
    g_assert_cmpint(pt_window_get_model(win)->sg.tiling.warpgroups, ==, 2);
    g_assert_false(log_has("also trying warpgroup counts that do not divide"));
    GVariant *st = g_action_group_get_action_state(G_ACTION_GROUP(win), "auto-schedule-ragged");
    g_assert_false(g_variant_get_boolean(st));
    g_variant_unref(st);
    explorer_activate("auto-schedule-ragged", NULL);
    st = g_action_group_get_action_state(G_ACTION_GROUP(win), "auto-schedule-ragged");
    g_assert_true(g_variant_get_boolean(st));
    g_variant_unref(st);
    explorer_activate("auto-schedule-run", g_variant_new("(dxib)", 0.0, (gint64)0, 1, FALSE));
    g_assert_cmpfloat(wait_job(120), >=, 0);
    g_assert_null(pt_window_get_error(win));
    g_assert_true(log_has("also trying warpgroup counts that do not divide a batch axis"));
    g_assert_cmpint(pt_window_get_model(win)->sg.tiling.warpgroups, ==, 3);
    explorer_activate("auto-schedule-ragged", NULL);
    g_free(before);
    g_free(after);
    g_free(undone);
    g_free(redone);
    g_free(second);
    g_free(back);
}

/* ---- exports ---------------------------------------------------------------------------- */

static void test_export_chrome(void)
{
    load("gemm_f16");
    char *path = g_build_filename(tmp, "gemm.chrome.json", NULL);
    explorer_activate("export-chrome-to", g_variant_new_string(path));
    g_assert_null(pt_window_get_error(win));
    char *text = NULL;
    size_t len = 0;
    pt_error err = {{0}};
    g_assert_true(pt_read_file(path, &text, &len, &err));
    cJSON *root = cJSON_ParseWithLength(text, len);
    g_assert_nonnull(root);
    const cJSON *ev = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
    g_assert_true(cJSON_IsArray(ev));
    g_assert_cmpint(cJSON_GetArraySize(ev), >, 10);
    int complete = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, ev)
    {
        const cJSON *ph = cJSON_GetObjectItemCaseSensitive(e, "ph");
        complete += cJSON_IsString(ph) && strcmp(ph->valuestring, "X") == 0;
    }
    g_assert_cmpint(complete, >, 0);
    cJSON_Delete(root);
    free(text);
    /* A path that cannot be written: the banner names it. */
    explorer_activate("export-chrome-to", g_variant_new_string("/nonexistent-dir/x.json"));
    g_assert_nonnull(pt_window_get_error(win));
    g_assert_nonnull(strstr(pt_window_get_error(win), "/nonexistent-dir/x.json"));
    g_free(path);
}

static gboolean exists(const char *dir, const char *name)
{
    char *p = g_build_filename(dir, name, NULL);
    gboolean yes = g_file_test(p, G_FILE_TEST_IS_REGULAR);
    g_free(p);
    return yes;
}

static void test_export_kernel(void)
{
    load("gemm_f16");
    char *dir = g_build_filename(tmp, "gemm-bundle", NULL);
    explorer_activate("export-kernel-to", g_variant_new_string(dir));
    g_assert_null(pt_window_get_error(win));
    static const char *const files[] = {"kernel.cu", "launch.c", "harness.c", "reference.cu",
                                        "Makefile", "README.md"};
    for (guint i = 0; i < G_N_ELEMENTS(files); i++)
        g_assert_true(exists(dir, files[i]));
    g_assert_true(log_has("Export kernel source: wrote"));

    /* flash_attention: generated by the attention path of the same backend. */
    load("flash_attention");
    char *fa = g_build_filename(tmp, "fa-bundle", NULL);
    explorer_activate("export-kernel-to", g_variant_new_string(fa));
    g_assert_null(pt_window_get_error(win));
    g_assert_true(exists(fa, "kernel.cu"));
    /* mamba2_chunk_scan with k blocks of 32 (CB is read k-innermost in 128-byte rows):
     * refused with one line in the banner naming the tile and the rule. */
    load("mamba2_chunk_scan");
    explorer_activate("tile", g_variant_new_string("s=32"));
    spin(100);
    char *mb = g_build_filename(tmp, "mamba-bundle", NULL);
    explorer_activate("export-kernel-to", g_variant_new_string(mb));
    const char *e = pt_window_get_error(win);
    g_assert_false(exists(mb, "kernel.cu"));
    g_assert_nonnull(e);
    g_assert_true(g_str_has_prefix(e, "Export kernel source: "));
    g_assert_nonnull(strstr(e, "s=32"));
    g_assert_nonnull(strstr(e, "multiple of 64"));
    g_assert_null(strchr(e, '\n'));
    g_free(mb);
    g_free(dir);
    g_free(fa);
}

/* ---- Compile & Profile --------------------------------------------------------------------- */

static void test_profile_no_gpu(void)
{
    pt_error probe = {{0}};
    if (pt_runner_check_local(&probe)) {
        g_test_skip("this machine can profile: the no-GPU refusal is not reachable");
        return;
    }
    load("gemm_f16");
    pt_actions_prefs(win)->remote[0] = '\0';
    char *before = prog_json();
    explorer_activate("profile", NULL);
    g_assert_cmpfloat(wait_job(30), >=, 0);
    const char *e = pt_window_get_error(win);
    g_assert_nonnull(e);
    g_test_message("banner: %s", e);
    g_assert_true(g_str_has_prefix(e, "Compile & Profile: cannot profile on this machine: "));
    g_assert_true(strstr(e, "no NVIDIA driver") || strstr(e, "no GPU") || strstr(e, "nvcc") ||
                  strstr(e, "make"));
    g_assert_nonnull(strstr(e, "Preferences"));
    g_assert_null(strchr(e, '\n'));
    char *after = prog_json();
    g_assert_cmpstr(after, ==, before);
    g_free(before);
    g_free(after);
}

static void test_profile_remote_fails(void)
{
    load("gemm_f16");
    g_strlcpy(pt_actions_prefs(win)->remote, "cat >/dev/null; echo 'no route to gpu' >&2; exit 3",
              sizeof pt_actions_prefs(win)->remote);
    explorer_activate("profile", NULL);
    g_assert_cmpfloat(wait_job(60), >=, 0);
    const char *e = pt_window_get_error(win);
    g_assert_nonnull(e);
    g_test_message("banner: %s", e);
    g_assert_nonnull(strstr(e, "status 3"));
    g_assert_nonnull(strstr(e, "no route to gpu"));
    g_assert_true(log_has("no route to gpu"));
}

static void test_profile_fake_remote(void)
{
    if (!gen_fake) {
        g_test_skip("no gen_fake_profile given");
        return;
    }
    char *fk = g_build_filename(tmp, "fake", NULL);
    char *cmd = g_strdup_printf("'%s' gemm_f16 - '%s'", gen_fake, fk);
    int status = system(cmd);
    g_assert_cmpint(status, ==, 0);
    g_free(cmd);
    load("gemm_f16");
    /* The user's edit, which the profile must keep. */
    explorer_activate("stages", g_variant_new("(si)", "A", 4));
    g_assert_null(pt_window_get_error(win));
    char *edited = prog_json();
    g_snprintf(pt_actions_prefs(win)->remote, sizeof pt_actions_prefs(win)->remote,
               "cat >/dev/null; cat '%s/reply.txt'", fk);
    explorer_activate("profile", NULL);
    g_assert_cmpfloat(wait_job(60), >=, 0);
    g_assert_null(pt_window_get_error(win));
    const pt_explorer_model *m = pt_window_get_model(win);
    g_assert_true(m->have_measured);
    g_assert_cmpint(m->n_measured, >, 0);
    char *after = prog_json();
    g_assert_cmpstr(after, ==, edited);
    g_assert_true(m->dirty);
    g_assert_true(pt_explorer_model_can_undo(m));
    g_assert_true(log_has("trace written to"));
    char *sum = pt_window_dup_summary(win);
    g_assert_nonnull(strstr(sum, "measured"));
    g_assert_null(strstr(sum, "slower than the plain one")); /* the fake's overhead is 7.8% */
    g_free(sum);
    /* Export Chrome trace now holds the sampled CTAs' measured spans next to the prediction. */
    char *cpath = g_build_filename(tmp, "measured.chrome.json", NULL);
    explorer_activate("export-chrome-to", g_variant_new_string(cpath));
    g_assert_null(pt_window_get_error(win));
    char *ctext = NULL;
    g_assert_true(g_file_get_contents(cpath, &ctext, NULL, NULL));
    g_assert_nonnull(strstr(ctext, "(predicted)"));
    g_assert_nonnull(strstr(ctext, "(measured)"));
    g_free(ctext);
    g_free(cpath);
    g_free(after);
    g_free(edited);
    g_free(fk);
}

/* Processes whose command line is exactly argv (NUL-separated in /proc/PID/cmdline). */
static int count_processes(const char *const *argv, int argc)
{
    int n = 0;
    DIR *d = opendir("/proc");
    g_assert_nonnull(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char *p = g_strdup_printf("/proc/%s/cmdline", e->d_name);
        char *text = NULL;
        gsize len = 0;
        if (g_file_get_contents(p, &text, &len, NULL)) {
            gsize off = 0;
            int k = 0;
            while (k < argc && off < len && strcmp(text + off, argv[k]) == 0) {
                off += strlen(argv[k]) + 1;
                k++;
            }
            /* "sleep 30.375" run directly, or by the shell that runs the command */
            if (k == argc && off == len)
                n++;
        }
        g_free(text);
        g_free(p);
    }
    closedir(d);
    return n;
}

static void test_cancel(void)
{
    load("gemm_f16");
    static const char *const sleeper[] = {"sleep", "30.375"};
    static const char *const shell[] = {"/bin/sh", "-c", "sleep 30.375"};
    g_assert_cmpint(count_processes(sleeper, 2) + count_processes(shell, 3), ==, 0);
    g_strlcpy(pt_actions_prefs(win)->remote, "sleep 30.375", sizeof pt_actions_prefs(win)->remote);
    char *before = prog_json();
    explorer_activate("profile", NULL);
    g_assert_true(pt_actions_job_busy(win));
    /* Until the child is running (the bundle is generated first). */
    for (int i = 0; i < 500 && count_processes(sleeper, 2) + count_processes(shell, 3) == 0; i++)
        spin(10);
    g_assert_cmpint(count_processes(sleeper, 2) + count_processes(shell, 3), >, 0);
    /* A second job is refused while this one runs. */
    explorer_activate("auto-schedule-run", g_variant_new("(dxib)", 0.0, (gint64)0, 1, FALSE));
    g_assert_nonnull(pt_window_get_error(win));
    g_assert_nonnull(strstr(pt_window_get_error(win), "still running"));
    pt_window_show_error(win, NULL);

    explorer_activate("cancel-job", NULL);
    double took = wait_job(5);
    g_test_message("cancel took %.3f s", took);
    g_assert_cmpfloat(took, >=, 0);
    g_assert_cmpfloat(took, <, 1.0);
    g_assert_cmpint(count_processes(sleeper, 2) + count_processes(shell, 3), ==, 0);
    g_assert_null(pt_window_get_error(win)); /* a cancel is not a failure */
    g_assert_true(log_has("Compile & Profile: cancelled"));
    char *after = prog_json();
    g_assert_cmpstr(after, ==, before);
    g_free(before);
    g_free(after);
}

/* ---- Code page ------------------------------------------------------------------------------ */

static int line_of(const char *text, int line, char *out, size_t cap)
{
    const char *s = text;
    for (int i = 1; i < line && s; i++) {
        s = strchr(s, '\n');
        if (s)
            s++;
    }
    if (!s)
        return 0;
    const char *e = strchr(s, '\n');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    g_strlcpy(out, s, n + 1 < cap ? n + 1 : cap);
    return 1;
}

static void test_find_line(void)
{
    const char *t = "// mma.C.wg0 helper\nvoid f();\n__global__ void k()\n{\n"
                    "    asm(\"wgmma.mma_async\"); // wgmma.C\n"
                    "    // mma.C: Waits on load.A\n    // load.A at iteration v\n}\n";
    g_assert_cmpint(pt_code_find_stask_line(t, "mma.C"), ==, 6);
    g_assert_cmpint(pt_code_find_stask_line(t, "mma.C.wg1"), ==, 6);
    g_assert_cmpint(pt_code_find_stask_line(t, "mma.C.wg0"), ==, 1); /* outside the kernel */
    /* a comment that begins with the id (the sTask's own code) wins over an earlier mention */
    g_assert_cmpint(pt_code_find_stask_line(t, "load.A"), ==, 7);
    g_assert_cmpint(pt_code_find_stask_line(t, "store.C"), ==, 0);
    g_assert_cmpint(pt_code_find_stask_line(t, ""), ==, 0);
}

static void test_code_view(void)
{
    load("gemm_f16");
    PtCodeView *cv = PT_CODE_VIEW(pt_actions_code_view(win));
    g_assert_true(pt_window_show_page(win, "code"));
    spin(200);
    g_assert_null(pt_code_view_get_note(cv));
    char *text = pt_code_view_dup_text(cv);
    g_assert_nonnull(strstr(text, "__global__"));
    g_assert_nonnull(strstr(text, "generated by PipeThreader"));

    static const char *const ids[] = {"mma.C.wg1", "store.C", "load.B", "convert.C.wg0"};
    for (guint i = 0; i < G_N_ELEMENTS(ids); i++) {
        g_assert_true(pt_window_select_stask_id(win, ids[i]));
        spin(150);
        int want = pt_code_find_stask_line(text, ids[i]);
        g_assert_cmpint(want, >, 100); /* in the kernel, past the device header */
        g_assert_cmpint(pt_code_view_get_cursor_line(cv), ==, want);
        char line[512];
        g_assert_true(line_of(text, want, line, sizeof line));
        char base[64];
        g_strlcpy(base, ids[i], sizeof base);
        char *wg = strstr(base, ".wg");
        if (wg)
            *wg = '\0';
        g_test_message("%s -> line %d: %s", ids[i], want, line);
        g_assert_nonnull(strstr(line, base));
        int first = 0, last = 0;
        pt_code_view_get_visible_lines(cv, &first, &last);
        g_test_message("visible lines %d..%d", first, last);
        g_assert_cmpint(first, >, 1);
        g_assert_cmpint(first, <=, want);
        g_assert_cmpint(last, >=, want);
    }
    /* Selected while another page is shown: the Code page opens on it. */
    pt_window_show_page(win, "timeline");
    iterate();
    g_assert_true(pt_window_select_stask_id(win, "store.C"));
    explorer_activate("stages", g_variant_new("(si)", "A", 4)); /* stale: regenerated when shown */
    pt_window_show_page(win, "code");
    spin(300);
    {
        char *t = pt_code_view_dup_text(cv);
        int want = pt_code_find_stask_line(t, "store.C"), first = 0, last = 0;
        g_assert_cmpint(pt_code_view_get_cursor_line(cv), ==, want);
        pt_code_view_get_visible_lines(cv, &first, &last);
        g_test_message("store.C at %d, visible %d..%d after showing the page", want, first, last);
        g_assert_cmpint(first, <=, want);
        g_assert_cmpint(last, >=, want);
        g_free(t);
    }
    explorer_activate("undo", NULL);
    /* Switching pages right after a selection or an edit (scroll still pending) is harmless. */
    g_assert_true(pt_window_select_stask_id(win, "load.A"));
    pt_window_show_page(win, "timeline");
    iterate();
    pt_window_show_page(win, "code");
    explorer_activate("stages", g_variant_new("(si)", "A", 4));
    pt_window_show_page(win, "graph");
    iterate();
    explorer_activate("undo", NULL);
    pt_window_show_page(win, "code");
    spin(50);
    /* An edit regenerates it: a 128-wide N tile uses the n128 wgmma. */
    g_assert_null(strstr(text, "m64n128k16"));
    explorer_activate("tile", g_variant_new_string("n=128"));
    spin(100);
    char *text2 = pt_code_view_dup_text(cv);
    g_assert_nonnull(strstr(text2, "m64n128k16"));
    /* Attention: the kernel, with its P.V wgmma taking P from registers. */
    load("flash_attention");
    g_assert_true(pt_window_show_page(win, "code"));
    spin(100);
    g_assert_null(pt_code_view_get_note(cv));
    char *text3 = pt_code_view_dup_text(cv);
    g_assert_nonnull(strstr(text3, "wgmma_o("));
    g_free(text3);
    /* An sProgram the backend refuses (ChunkScan's CB read k-innermost needs k blocks of 64):
     * a one-line note with its reason, and the graph's reference kernel instead (issue 19). */
    load("mamba2_chunk_scan");
    explorer_activate("tile", g_variant_new_string("s=32"));
    spin(100);
    g_assert_true(pt_window_show_page(win, "code"));
    spin(100);
    const char *note = pt_code_view_get_note(cv);
    g_assert_nonnull(note);
    g_assert_true(g_str_has_prefix(note, "No sm90a kernel: "));
    g_assert_null(strchr(note, '\n'));
    pt_window_show_page(win, "timeline");
    g_free(text);
    g_free(text2);
}

/* ---- preferences ----------------------------------------------------------------------------- */

static void test_preferences(void)
{
    pt_prefs p, q;
    pt_error err = {{0}};
    pt_prefs_defaults(&p);
    g_strlcpy(p.remote, "ssh gpu 'sh pt-run.sh'", sizeof p.remote);
    p.timeout_s = 42;
    p.build_timeout_s = 420;
    g_assert_true(pt_prefs_save(&p, &err));
    g_assert_true(pt_prefs_load(&q, &err));
    g_assert_cmpstr(q.remote, ==, p.remote);
    g_assert_cmpfloat(q.timeout_s, ==, 42);
    g_assert_cmpfloat(q.build_timeout_s, ==, 420);
    char *path = pt_prefs_path();
    g_assert_true(g_str_has_prefix(path, tmp));
    g_assert_true(g_file_set_contents(path, "[profile]\ntimeout=soon\n", -1, NULL));
    g_assert_false(pt_prefs_load(&q, &err));
    g_test_message("%s", err.msg);
    g_assert_nonnull(strstr(err.msg, path));
    g_assert_nonnull(strstr(err.msg, "timeout"));
    g_assert_cmpfloat(q.timeout_s, ==, 60); /* the defaults */
    /* A window opened over the malformed file says so in its banner, once something shows. */
    PtWindow *w2 = pt_window_new(gtk_window_get_application(GTK_WINDOW(win)), "H200");
    g_assert_true(pt_window_open(w2, "gemm_f16"));
    g_assert_nonnull(pt_window_get_error(w2));
    g_assert_true(g_str_has_prefix(pt_window_get_error(w2), "Preferences: "));
    g_assert_nonnull(strstr(pt_window_get_error(w2), "timeout"));
    gtk_window_destroy(GTK_WINDOW(w2));
    iterate();
    g_unlink(path);
    g_free(path);
    /* The dialog opens over the window. */
    explorer_activate("preferences", NULL);
    spin(50);
}

/* ---- runner ---------------------------------------------------------------------------------- */

static void remove_tree(const char *path)
{
    char *cmd = g_strdup_printf("rm -rf '%s'", path);
    if (system(cmd) != 0)
        g_printerr("could not remove %s\n", path);
    g_free(cmd);
}

int main(int argc, char **argv)
{
    /* Before GLib reads them: this run's own config (preferences) and cache (traces). */
    tmp = g_dir_make_tmp("pt-actions-test-XXXXXX", NULL);
    g_assert_nonnull(tmp);
    char *cfg = g_build_filename(tmp, "config", NULL), *cache = g_build_filename(tmp, "cache", NULL);
    g_setenv("XDG_CONFIG_HOME", cfg, TRUE);
    g_setenv("XDG_CACHE_HOME", cache, TRUE);
    gtk_test_init(&argc, &argv, NULL);
    if (argc > 1)
        gen_fake = argv[1];
    g_test_add_func("/actions/find-line", test_find_line);
    g_test_add_func("/actions/code-view", test_code_view);
    g_test_add_func("/actions/auto-schedule", test_auto_schedule);
    g_test_add_func("/actions/export-chrome", test_export_chrome);
    g_test_add_func("/actions/export-kernel", test_export_kernel);
    g_test_add_func("/actions/profile-no-gpu", test_profile_no_gpu);
    g_test_add_func("/actions/profile-remote-fails", test_profile_remote_fails);
    g_test_add_func("/actions/profile-fake-remote", test_profile_fake_remote);
    g_test_add_func("/actions/cancel", test_cancel);
    g_test_add_func("/actions/preferences", test_preferences);
    int rc = explorer_test_run("org.pipethreader.ActionsTest");
    remove_tree(tmp);
    g_free(cfg);
    g_free(cache);
    g_free(tmp);
    return rc;
}
