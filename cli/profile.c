/* profile.c — the profile verb: predict, generate, build and run on a GPU (here or through
 * --remote), check, time, trace, align, and write the trace with both timelines.
 *
 * Steps: validate and simulate the sProgram (the predicted side); measure it (traces/measure.h:
 * its bundle in a temporary directory, built and run in a child process, a fault or a hang one
 * line, never a crash; a wrong result refused before anything is saved); lay the instrumented
 * build's trace over the prediction; write the trace (and the Chrome trace). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chrome.h"
#include "cli.h"
#include "backend.h"
#include "codegen.h"
#include "measure.h"
#include "measured.h"
#include "timeline_json.h"

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
    cli_fmt_ns(a->predicted_kernel_ns, t1, sizeof t1);
    cli_fmt_ns(a->measured_kernel_ns, t2, sizeof t2);
    cli_fmt_pct(a->kernel_error_pct, true, p1, sizeof p1);
    printf("  kernel time: predicted %s, measured %s (median of %lld, CUDA events, %s "
           "launches): prediction error %s\n", t1, t2, (long long)k->iters, k->timing[0] ? k->timing : "?", p1);
    cli_fmt_ns(k->plain_ms_min * 1e6, t1, sizeof t1);
    cli_fmt_ns(k->plain_ms_max * 1e6, t2, sizeof t2);
    printf("    spread %s to %s\n", t1, t2);
    if (k->has_cupti) {
        cli_fmt_ns(k->cupti_ms_median * 1e6, t1, sizeof t1);
        cli_fmt_ns(k->cupti_ms_min * 1e6, t2, sizeof t2);
        cli_fmt_ns(k->cupti_ms_max * 1e6, t3, sizeof t3);
        printf("  CUPTI: median %s (min %s, max %s), %lld registers per thread, %lld bytes of "
               "shared memory\n", t1, t2, t3, (long long)k->cupti_registers,
               (long long)k->cupti_smem);
    } else
        printf("  CUPTI: not available (the harness was built without it)\n");
    cli_fmt_ns(k->instr_ms_median * 1e6, t1, sizeof t1);
    cli_fmt_pct(k->overhead_pct, true, p1, sizeof p1);
    printf("  instrumented build: median %s, overhead %s over the plain build\n", t1, p1);
    if (pt_mkernel_overhead_notable(k->overhead_pct))
        printf("    the trace below was recorded in that run: its spans and measured busy %% "
               "describe a kernel %s slower than the plain one\n", p1);
    printf("  trace spans");
    if (!strcmp(m->origin, "cupti_kernel_start")) {
        cli_fmt_ns(m->first_warp_delay_ns, t1, sizeof t1);
        cli_fmt_ns(m->last_warp_gap_ns, t2, sizeof t2);
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
    if (!cli_parse(argc, argv,
                   "hw,tile,set,program,o,chrome,json,target,remote,timeout,build-timeout,q", &o))
        return EXIT_USAGE;
    /* From here on a SIGINT/SIGTERM/SIGHUP stops the run cleanly (signals.c). */
    cli_signals_install();
    if (!o.out || !o.out[0]) {
        cli_error("profile: missing -o TRACE (the trace file to write); see profile --help");
        return EXIT_USAGE;
    }
    pt_error err = {{0}};
    const pt_backend *be;
    if (!pt_backend_lookup(o.target ? o.target : PT_TARGET_DEFAULT, "profile: ", &be, &err)) {
        cli_error("%s", err.msg); /* before any loading: a usage mistake */
        return EXIT_USAGE;
    }
    if (!cli_load_graph(&o, &in) || !cli_load_program(&o, &in)) {
        cli_inputs_free(&in);
        return EXIT_INVALID;
    }
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
    pt_measurement ms;
    pt_measured m = {0};
    pt_alignment a = {0};
    if (!pt_measure_generate(&ms, &in.prog, &in.sg, &in.hw, be->name, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        goto out;
    }
    snprintf(ms.what, sizeof ms.what, "profile %s (%s, kernel %s)", in.graph.name, prog_name,
             ms.kernel.kernel_name);
    const char *what = ms.what;
    char label[520];
    snprintf(label, sizeof label, "profiled%.510s", what + strlen("profile"));
    if (!o.quiet && !o.json && strcmp(o.out, "-") != 0)
        printf("%s: building and running %s...\n", what, o.remote ? "through --remote" : "here");
    fflush(stdout);
    pt_measure_request rq = {.remote = o.remote, .timeout_s = o.timeout_s,
                             .build_timeout_s = o.build_timeout_s, .trace = true,
                             .cancelled = cli_signal_cancelled};
    if (cli_signal_caught())
        goto out;
    if (!pt_measure_run(&ms, &rq, &err) ||
        !pt_measure_align(&ms, &tl, &in.prog, &in.sg, &m, &a, &err)) {
        if (!cli_signal_caught())
            fprintf(stderr, "%s\n", err.msg);
        goto out;
    }
    const pt_harness_result h = ms.h;
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
    pt_measurement_free(&ms); /* also removes the bundle */
    if (cli_signal_caught() && rc != EXIT_OK) /* (a signal after the work was done: it stands) */
        rc = cli_signal_exit("profile");
    pt_alignment_free(&a);
    pt_measured_free(&m);
    pt_timeline_free(&tl);
    cli_inputs_free(&in);
    return rc;
}
