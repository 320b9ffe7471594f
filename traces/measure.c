/* measure.c — one sProgram measured on a GPU: bundle, run, result (measure.h). What the CLI's
 * profile and schedule --measure and the GUI's Compile & Profile share, so that they refuse,
 * clean up and word their failures the same way. */
#include "measure.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "local.h"

bool pt_measure_generate(pt_measurement *m, const pt_sprogram *p, const pt_stask_graph *sg,
                         const pt_hw *hw, const char *target, pt_error *err)
{
    memset(m, 0, sizeof *m);
    if (!pt_make_temp_dir("pt-measure", m->dir, sizeof m->dir, err)) {
        m->dir[0] = '\0';
        return false;
    }
    if (!pt_codegen_bundle(m->dir, p, sg, hw, target, &m->kernel, err))
        return false;
    snprintf(m->what, sizeof m->what, "%s (kernel %s)", sg->graph->name, m->kernel.kernel_name);
    return true;
}

bool pt_measure_run(pt_measurement *m, const pt_measure_request *rq, pt_error *err)
{
    pt_run_request q = {.bundle_dir = m->dir, .remote = rq->remote, .timeout_s = rq->timeout_s,
                        .build_timeout_s = rq->build_timeout_s, .trace = rq->trace,
                        .what = m->what, .echo = rq->echo, .output = rq->output,
                        .cancelled = rq->cancelled, .ctx = rq->ctx};
    if (!pt_runner_run(&q, &m->run, err))
        return false;
    pt_error e = {{0}};
    if (!pt_harness_parse(&m->h, "the harness's JSON line", m->run.json, strlen(m->run.json),
                          &e)) {
        /* say what came, not only what is wrong with it */
        char got[200];
        pt_excerpt(m->run.json, strlen(m->run.json), 96, got, sizeof got);
        return pt_fail(err, "%s: %s; received \"%s\"", m->what, e.msg, got);
    }
    const pt_harness_result *h = &m->h;
    if (h->correct != 1 || m->run.harness_status == 3) {
        char mx[40] = "not finite";
        if (isfinite(h->max_abs_err))
            snprintf(mx, sizeof mx, "%.3g", h->max_abs_err);
        return pt_fail(err, "%s: wrong results: %lld of %lld elements differ (max abs err %s); "
                            "not timed, nothing saved", m->what, (long long)h->mismatches,
                       (long long)h->elements, mx);
    }
    if (!isfinite(h->time_ms_median) || (rq->trace && !m->run.trace))
        return pt_fail(err, "%s: the harness reported no %s", m->what,
                       isfinite(h->time_ms_median) ? "trace buffer" : "timing");
    return true;
}

bool pt_measure(pt_measurement *m, const pt_sprogram *p, const pt_stask_graph *sg,
                const pt_hw *hw, const char *target, const char *what,
                const pt_measure_request *rq, pt_error *err)
{
    if (!pt_measure_generate(m, p, sg, hw, target, err))
        return false;
    if (what)
        snprintf(m->what, sizeof m->what, "%s", what);
    return pt_measure_run(m, rq, err);
}

bool pt_measure_align(const pt_measurement *m, const pt_timeline *tl, const pt_sprogram *p,
                      const pt_stask_graph *sg, pt_measured *meas, pt_alignment *al,
                      pt_error *err)
{
    char name[160];
    pt_error e = {{0}};
    snprintf(name, sizeof name, "the trace buffer of %s", m->kernel.kernel_name);
    if (!pt_measured_parse(meas, name, m->run.trace, m->run.trace_len, sg->n, p->n_lanes, &e))
        return pt_fail(err, "%s: %s", m->what, e.msg);
    pt_harness_to_mkernel(&m->h, &meas->kernel);
    if (m->h.has_trace_kernel)
        pt_measured_place(meas, m->h.trace_kernel_start_ns, m->h.trace_kernel_end_ns);
    if (!pt_align(al, tl, meas, sg->n, p->n_lanes, &e))
        return pt_fail(err, "%s: %s", m->what, e.msg);
    return true;
}

void pt_measurement_free(pt_measurement *m)
{
    if (m->dir[0])
        pt_remove_flat_dir(m->dir);
    m->dir[0] = '\0';
    pt_run_result_free(&m->run);
    pt_codegen_result_free(&m->kernel);
}
