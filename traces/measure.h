/* measure.h — the one way to measure an sProgram on a GPU: write its bundle for a target into
 * a private temporary directory, build and run it through the runner (here or through a
 * remote command), read the harness's result, and refuse what is not correct and timed. The
 * CLI's profile and schedule --measure and the GUI's Compile & Profile all go through it; the
 * profile then lays the instrumented build's trace over the prediction (pt_measure_align).
 *
 * Two steps, so that a caller can name the run after the generated kernel and say what it is
 * about to do before the (long) build:
 *
 *     pt_measurement m;
 *     if (pt_measure_generate(&m, p, sg, hw, target, err)) {
 *         snprintf(m.what, sizeof m.what, "profile %s (kernel %s)", ..., m.kernel.kernel_name);
 *         ok = pt_measure_run(&m, &rq, err);
 *     }
 *     pt_measurement_free(&m);   // also removes the bundle's directory
 */
#ifndef PT_MEASURE_H
#define PT_MEASURE_H

#include "codegen.h"
#include "measured.h"
#include "runner.h"
#include "sim.h"

typedef struct {
    const char *remote;        /* NULL: this machine; else the user command (runner.h) */
    double timeout_s, build_timeout_s; /* <= 0: the runner's defaults */
    bool trace;                /* also build, run and return the instrumented kernel's buffer */
    bool echo;                 /* copy the child's stderr to ours */
    /* for callers with a UI, as in pt_run_request (may be NULL) */
    void (*output)(void *ctx, int fd, const char *data, size_t n);
    bool (*cancelled)(void *ctx);
    void *ctx;
} pt_measure_request;

typedef struct {
    char dir[4096];            /* the bundle (removed by pt_measurement_free); "" when none */
    char what[512];            /* the subject of every message; "<graph> (kernel K)" by default */
    pt_codegen_result kernel;  /* launch shape, entry point and summary (its texts are NULL) */
    pt_run_result run;         /* the harness's JSON line, trace buffer, CUPTI, cache use */
    pt_harness_result h;       /* the JSON line read */
} pt_measurement;

/* Write the bundle of p for target (a backend's name, backend.h) into a new temporary
 * directory. m is initialised here, also on failure: free it either way. */
bool pt_measure_generate(pt_measurement *m, const pt_sprogram *p, const pt_stask_graph *sg,
                         const pt_hw *hw, const char *target, pt_error *err);

/* Build and run m's bundle, read the harness's line into m->h. True only for a correct result
 * with a timing (and, with rq->trace, a trace buffer); else one line prefixed by m->what:
 * what the runner said, the JSON line that could not be read (quoted), or "wrong results: N of
 * M elements differ (max abs err X); not timed, nothing saved". */
bool pt_measure_run(pt_measurement *m, const pt_measure_request *rq, pt_error *err);

/* Both steps, for a caller that has its own subject (what may be NULL: the default). */
bool pt_measure(pt_measurement *m, const pt_sprogram *p, const pt_stask_graph *sg,
                const pt_hw *hw, const char *target, const char *what,
                const pt_measure_request *rq, pt_error *err);

/* The profile: the instrumented build's trace buffer of a traced measurement read into meas
 * (its kernel timing from the harness, placed on the CUPTI kernel span where known) and
 * aligned sTask by sTask with the prediction tl into al. Free meas and al either way. */
bool pt_measure_align(const pt_measurement *m, const pt_timeline *tl, const pt_sprogram *p,
                      const pt_stask_graph *sg, pt_measured *meas, pt_alignment *al,
                      pt_error *err);

/* Free what m holds and remove its bundle's directory. */
void pt_measurement_free(pt_measurement *m);

#endif
