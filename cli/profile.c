/* profile.c — the profile verb: predict, generate, build and run on a GPU (here or through
 * --remote), check, time, trace, align, and write the trace with both timelines.
 *
 * Steps: validate and simulate the sProgram (the predicted side); write its bundle into a
 * temporary directory; build and run it in a child process (traces/runner.h: a fault or a hang
 * is one line, never a crash); refuse a wrong result before anything is saved; parse the
 * instrumented build's trace buffer (traces/measured.h), place it on the CUPTI kernel span,
 * align it with the prediction, and write the trace (and the Chrome trace). */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chrome.h"
#include "cli.h"
#include "codegen.h"
#include "measured.h"
#include "runner.h"
#include "timeline_json.h"

/* Remove a flat directory made by this verb (the bundle: files only). */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char path[4352];
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
                (size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < sizeof path)
                unlink(path);
        closedir(d);
    }
    rmdir(dir);
}

static void fmt_ns(double ns, char *out, size_t cap)
{
    if (!isfinite(ns))
        snprintf(out, cap, "?");
    else if (fabs(ns) >= 1e6)
        snprintf(out, cap, "%.3f ms", ns / 1e6);
    else if (fabs(ns) >= 1e3)
        snprintf(out, cap, "%.2f us", ns / 1e3);
    else
        snprintf(out, cap, "%.0f ns", ns);
}

static void fmt_pct(double v, char *out, size_t cap)
{
    if (isfinite(v))
        snprintf(out, cap, "%+.1f%%", v);
    else
        snprintf(out, cap, "?");
}

static void print_summary(const cli_inputs *in, const char *what, const pt_harness_result *h,
                          const pt_timeline *tl, const pt_measured *m, const pt_alignment *a,
                          bool remote)
{
    char t1[32], t2[32], t3[32], p1[32];
    const pt_mkernel *k = &m->kernel;
    printf("%s %s: grid %lld, block %lld, smem %lld\n", what,
           remote ? "through --remote" : "on this machine", (long long)h->grid,
           (long long)h->block, (long long)h->smem);
    printf("  correct: %lld elements checked against the reference, max abs err %.3g\n",
           (long long)h->elements, h->max_abs_err);
    fmt_ns(a->predicted_kernel_ns, t1, sizeof t1);
    fmt_ns(a->measured_kernel_ns, t2, sizeof t2);
    fmt_pct(a->kernel_error_pct, p1, sizeof p1);
    printf("  kernel time: predicted %s, measured %s (median of %lld, CUDA events, %s "
           "launches): prediction error %s\n", t1, t2, (long long)k->iters, k->timing[0] ? k->timing : "?", p1);
    fmt_ns(k->plain_ms_min * 1e6, t1, sizeof t1);
    fmt_ns(k->plain_ms_max * 1e6, t2, sizeof t2);
    printf("    spread %s to %s\n", t1, t2);
    if (k->has_cupti) {
        fmt_ns(k->cupti_ms_median * 1e6, t1, sizeof t1);
        fmt_ns(k->cupti_ms_min * 1e6, t2, sizeof t2);
        fmt_ns(k->cupti_ms_max * 1e6, t3, sizeof t3);
        printf("  CUPTI: median %s (min %s, max %s), %lld registers per thread, %lld bytes of "
               "shared memory\n", t1, t2, t3, (long long)k->cupti_registers,
               (long long)k->cupti_smem);
    } else
        printf("  CUPTI: not available (the harness was built without it)\n");
    fmt_ns(k->instr_ms_median * 1e6, t1, sizeof t1);
    fmt_pct(k->overhead_pct, p1, sizeof p1);
    printf("  instrumented build: median %s, overhead %s over the plain build\n", t1, p1);
    printf("  trace spans");
    if (!strcmp(m->origin, "cupti_kernel_start")) {
        fmt_ns(m->first_warp_delay_ns, t1, sizeof t1);
        fmt_ns(m->last_warp_gap_ns, t2, sizeof t2);
        printf(", on the CUPTI kernel span: first record %s after its start, last %s before "
               "its end\n", t1, t2);
    } else if (!strcmp(m->origin, "kernel_start_aligned"))
        printf(", aligned at the CUPTI kernel start (the clocks disagreed)\n");
    else
        printf(", times from the first record (no CUPTI span)\n");
    /* the sample, busy % per lane and the per-sTask table: report.c, shared with `report` */
    cli_names nm;
    cli_names_from_program(&nm, &in->prog, &in->sg);
    cli_print_alignment(stdout, &nm, m, a);
    cli_names_free(&nm);
    (void)tl;
}

int verb_profile(int argc, char **argv)
{
    cli_opts o = {.verb = "profile"};
    cli_inputs in = {0};
    if (!cli_parse(argc, argv, "hw,tile,set,program,o,chrome,json,remote,timeout,build-timeout,q", &o))
        return EXIT_USAGE;
    /* From here on a SIGINT/SIGTERM/SIGHUP stops the run cleanly (signals.c). */
    cli_signals_install();
    if (!o.out || !o.out[0]) {
        cli_error("profile: missing -o TRACE (the trace file to write); see profile --help");
        return EXIT_USAGE;
    }
    if (!cli_load_graph(&o, &in) || !cli_load_program(&o, &in)) {
        cli_inputs_free(&in);
        return EXIT_INVALID;
    }
    pt_error err = {{0}};
    const char *prog_name = o.program ? o.program : "default sProgram";
    if (!cli_check_valid(&o, &in)) {
        cli_inputs_free(&in);
        return EXIT_INVALID;
    }
    pt_timeline tl = {0};
    if (!pt_simulate(&in.prog, &in.sg, &in.hw, &tl, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        cli_inputs_free(&in);
        return EXIT_INVALID;
    }
    /* Before anything is generated or run: can this machine run it at all? */
    if (!o.remote && !pt_runner_check_local(&err)) {
        cli_error("profile: %s", err.msg);
        pt_timeline_free(&tl);
        cli_inputs_free(&in);
        return EXIT_INVALID;
    }

    int rc = EXIT_INVALID;
    pt_codegen_result k = {0};
    pt_run_result r = {0};
    pt_measured m = {0};
    pt_alignment a = {0};
    char what[512] = "";
    const char *tmpdir = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/pt-profile-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (!mkdtemp(dir)) {
        cli_error("profile: %s: cannot create a temporary directory: %s", dir, strerror(errno));
        goto out_noclean;
    }
    if (!pt_codegen_bundle(dir, &in.prog, &in.sg, &in.hw, "sm90a", &k, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        goto out;
    }
    snprintf(what, sizeof what, "profile %s (%s, kernel %s)", in.graph.name, prog_name,
             k.kernel_name);
    char label[520];
    snprintf(label, sizeof label, "profiled%s", what + strlen("profile"));
    if (!o.quiet && !o.json && strcmp(o.out, "-") != 0)
        printf("%s: building and running %s...\n", what, o.remote ? "through --remote" : "here");
    fflush(stdout);
    pt_run_request rq = {.bundle_dir = dir, .remote = o.remote, .timeout_s = o.timeout_s,
                         .build_timeout_s = o.build_timeout_s, .trace = true, .what = what,
                         .cancelled = cli_signal_cancelled};
    if (cli_signal_caught())
        goto out;
    if (!pt_runner_run(&rq, &r, &err)) {
        if (!cli_signal_caught())
            fprintf(stderr, "%s\n", err.msg);
        goto out;
    }
    pt_harness_result h;
    if (!pt_harness_parse(&h, "the harness's JSON line", r.json, strlen(r.json), &err)) {
        /* say what came, not only what is wrong with it */
        char got[200];
        pt_excerpt(r.json, strlen(r.json), 96, got, sizeof got);
        fprintf(stderr, "%s: %s; received \"%s\"\n", what, err.msg, got);
        goto out;
    }
    if (h.correct != 1 || r.harness_status == 3) {
        char mx[40] = "not finite";
        if (isfinite(h.max_abs_err))
            snprintf(mx, sizeof mx, "%.3g", h.max_abs_err);
        fprintf(stderr, "%s: wrong results: %lld of %lld elements differ (max abs err %s); "
                "not timed, nothing saved\n", what, (long long)h.mismatches,
                (long long)h.elements, mx);
        goto out;
    }
    if (!isfinite(h.time_ms_median) || !r.trace) {
        fprintf(stderr, "%s: the harness reported no %s\n", what,
                r.trace ? "timing" : "trace buffer");
        goto out;
    }
    char tname[160];
    snprintf(tname, sizeof tname, "the trace buffer of %s", k.kernel_name);
    if (!pt_measured_parse(&m, tname, r.trace, r.trace_len, in.sg.n, in.prog.n_lanes, &err)) {
        fprintf(stderr, "%s: %s\n", what, err.msg);
        goto out;
    }
    pt_harness_to_mkernel(&h, &m.kernel);
    if (h.has_trace_kernel)
        pt_measured_place(&m, h.trace_kernel_start_ns, h.trace_kernel_end_ns);
    if (!pt_align(&a, &tl, &m, in.sg.n, in.prog.n_lanes, &err)) {
        fprintf(stderr, "%s: %s\n", what, err.msg);
        goto out;
    }
    char *text = pt_profile_to_json(&tl, &in.prog, &in.sg, &in.hw, &m, &a);
    bool wrote = text && cli_write(o.out, text);
    if (!text)
        fprintf(stderr, "%s: out of memory writing the trace\n", what);
    free(text);
    if (!wrote)
        goto out;
    if (o.chrome) {
        text = pt_chrome_trace_profile(&tl, &in.prog, &in.sg, &m);
        wrote = text && cli_write(o.chrome, text);
        if (!text)
            fprintf(stderr, "%s: out of memory writing the Chrome trace\n", what);
        free(text);
        if (!wrote)
            goto out;
    }
    if (o.json) {
        cli_names nm;
        cli_names_from_program(&nm, &in.prog, &in.sg);
        text = cli_alignment_json(&nm, &m, &a);
        cli_names_free(&nm);
        if (text)
            fputs(text, stdout);
        free(text);
    } else if (!o.quiet && strcmp(o.out, "-") != 0) {
        print_summary(&in, label, &h, &tl, &m, &a, o.remote != NULL);
        printf("\nwrote %s%s%s\n", o.out, o.chrome ? " and " : "", o.chrome ? o.chrome : "");
    }
    rc = EXIT_OK;
out:
    remove_dir(dir);
out_noclean:
    if (cli_signal_caught() && rc != EXIT_OK) /* (a signal after the work was done: it stands) */
        rc = cli_signal_exit("profile");
    pt_alignment_free(&a);
    pt_measured_free(&m);
    pt_run_result_free(&r);
    pt_timeline_free(&tl);
    cli_inputs_free(&in);
    return rc;
}
