/* runner.c — build a bundle and run its harness in a supervised child process, locally (from
 * a cache of built bundles) or through a user command, and turn what comes back into a result
 * or one line saying what went wrong (runner.h). The pieces are in run_parts.h's files.
 *
 * The child is the only thing that touches the GPU: it runs in its own process group, its
 * stdout and stderr are read through pipes with poll(), and a watchdog kills the whole group
 * (SIGKILL) when the build or the run outlives its limit. Every child is reaped. */
#include "runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_util.h"
#include "run_parts.h"

static const char *step_words(const char *step)
{
    if (!strcmp(step, "check"))
        return "checking the kernel against the reference";
    if (!strcmp(step, "time"))
        return "timing the kernel";
    if (!strcmp(step, "trace-time"))
        return "timing the instrumented kernel";
    if (!strcmp(step, "trace"))
        return "recording the trace";
    if (!strcmp(step, "init"))
        return "loading the kernel";
    return step[0] ? step : "starting the harness";
}

void pt_run_result_free(pt_run_result *r)
{
    if (!r)
        return;
    free(r->json);
    free(r->trace);
    memset(r, 0, sizeof *r);
}

bool pt_runner_run(const pt_run_request *rq, pt_run_result *r, pt_error *err)
{
    memset(r, 0, sizeof *r);
    const char *what = rq->what ? rq->what : rq->bundle_dir;
    double timeout = rq->timeout_s > 0 ? rq->timeout_s : 60;
    double build_timeout = rq->build_timeout_s > 0 ? rq->build_timeout_s : 900;
    pt_run_request q = *rq;
    q.timeout_s = timeout;
    q.build_timeout_s = build_timeout;
    char *script = run_script(&q);
    if (!script)
        return pt_fail(err, "%s: out of memory", what);
    pt_error e = {{0}};
    int in_fd = -1;
    char *argv[4] = {NULL};
    const char *cwd = NULL;
    if (!rq->remote) {
        char sp[RUN_PATH_MAX + 16];
        if (!run_cached_bundle(rq, r->run_dir, sizeof r->run_dir, &r->reused, &e)) {
            free(script);
            return pt_fail(err, "%s: %s", what, e.msg);
        }
        snprintf(sp, sizeof sp, "%s/pt-run.sh", r->run_dir);
        if (!pt_write_file(sp, script, &e)) {
            free(script);
            return pt_fail(err, "%s: %s", what, e.msg);
        }
        argv[0] = "/bin/sh";
        argv[1] = "pt-run.sh";
        cwd = r->run_dir;
    } else {
        in_fd = run_tar_bundle(rq, script, &e);
        if (in_fd < 0) {
            free(script);
            return pt_fail(err, "%s: %s", what, e.msg);
        }
        argv[0] = "/bin/sh";
        argv[1] = "-c";
        argv[2] = (char *)rq->remote;
    }
    free(script);
    run_buf out = {0}, errb = {0};
    run_child ci;
    /* the watchdogs here let the script's own timeouts (and their 5 s grace) act first: they
     * also end a remote build or run on its machine, and say so */
    bool ok = run_supervise(argv, cwd, in_fd, build_timeout + 10, timeout + 10, rq->echo, &out, &errb,
                        &ci, rq, &e);
    if (in_fd >= 0)
        close(in_fd);
    if (!ok) {
        free(out.s);
        free(errb.s);
        return pt_fail(err, "%s: %s", what, e.msg);
    }
    run_reply ri;
    char words[400];
    run_last_words(&errb, words, sizeof words);
    const char *via = rq->remote ? " (through --remote)" : "";
    if (ci.cancelled) {
        ok = pt_fail(err, "%s: cancelled", what);
    } else if (ci.timed_out) {
        if (ci.in_run)
            ok = pt_fail(err, "%s: timed out after %g s: the kernel hung (mbarrier deadlock?) "
                         "while %s%s", what, timeout, step_words(ci.step), via);
        else
            ok = pt_fail(err, "%s: the build%s did not finish in %g s (killed)", what, via,
                         build_timeout);
    } else if (!run_parse_reply(&out, &ri, r, what, err))
        ok = false;
    else if (ri.error[0])
        ok = pt_fail(err, "%s: %s", what, ri.error);
    else if (ri.build_failed)
        ok = pt_fail(err, "%s: the build failed%s: %s", what, via,
                     words[0] ? words : "(no output)");
    else if (!ri.have_exit) {
        if (rq->remote && !ri.phase_build)
            ok = pt_fail(err, "%s: the remote command exited with status %d without running "
                         "pt-run.sh (no PT- lines on its stdout)%s%s", what, ci.status,
                         words[0] ? ": " : "", words);
        else
            ok = pt_fail(err, "%s: the run ended (status %d) without the harness's exit "
                         "status%s%s", what, ci.status, words[0] ? ": " : "", words);
    } else {
        r->harness_status = ri.exit_status;
        r->cupti = ri.have_cupti && ri.cupti;
        int st = ri.exit_status;
        if (st == 124 || (st == 137 && ci.in_run && ci.ended - ci.run_started >= timeout))
            ok = pt_fail(err, "%s: timed out after %g s: the kernel hung (mbarrier deadlock?) "
                         "while %s%s", what, timeout, step_words(ci.step), via);
        else if (st > 128 && st < 160)
            ok = pt_fail(err, "%s: the harness crashed (signal %d) while %s%s%s", what, st - 128,
                         step_words(ci.step), words[0] ? ": " : "", words);
        else if (st != 0 && st != 3)
            ok = pt_fail(err, "%s: the harness failed (exit %d) while %s: %s", what, st,
                         step_words(ci.step), words[0] ? words : "(no message)");
        else if (!r->json && ri.garbled)
            ok = pt_fail(err, "%s: the harness's JSON line did not arrive (exit %d): expected "
                         "\"PT-RESULT {...}\" on a line of its own; received \"%s\" (%s)", what,
                         st, ri.garbled_text, ri.garbled_why);
        else if (!r->json)
            ok = pt_fail(err, "%s: the harness printed no JSON line (exit %d)", what, st);
        else if (ri.garbled_result)
            ok = pt_fail(err, "%s: the harness's JSON line is garbled: expected \"PT-RESULT\" "
                         "and one JSON object on a line of its own; received \"%s\"", what,
                         ri.garbled_text);
        else if (st == 0 && rq->trace && !r->trace && ri.garbled)
            ok = pt_fail(err, "%s: the trace buffer did not arrive: expected a line \"PT-TRACE "
                         "base64|hex BYTES\", its data and \"PT-TRACE-END\"; received a garbled "
                         "line \"%s\" (%s)", what, ri.garbled_text, ri.garbled_why);
        else if (st == 0 && rq->trace && !r->trace)
            ok = pt_fail(err, "%s: the harness wrote no trace buffer (no \"PT-TRACE base64|hex "
                         "BYTES\" line in the reply)", what);
    }
    free(out.s);
    free(errb.s);
    if (!ok)
        pt_run_result_free(r);
    return ok;
}
