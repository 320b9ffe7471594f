/* runner.h — build a generated bundle and run its harness in a child process, on this machine
 * or on another one through a user command; read back the harness's JSON line and the trace
 * buffer of the instrumented build.
 *
 * The harness always runs in a child process group under a watchdog, so a kernel that faults
 * (illegal address) or hangs (an mbarrier deadlock) is reported as one line saying what was
 * running, and never takes the caller down; on expiry the whole group is killed and reaped.
 *
 * Both modes run the same script, pt-run.sh, which the runner adds to the bundle: it builds
 * with make (CUPTI=1 where CUPTI is installed; `make all trace` when tracing), runs
 * `./harness --json-only --progress [--trace FILE]` under `timeout`, and prints its results on
 * stdout as lines starting with "PT-" (everything else goes to stderr):
 *
 *     PT-PHASE build | PT-PHASE run      what it is doing (the watchdog's clock restarts at run)
 *     PT-BUILD-FAILED                    make failed (its output went to stderr)
 *     PT-ERROR <text>                    something the script needs is missing (nvcc, make)
 *     PT-CUPTI 0|1                       whether the harness was built with CUPTI
 *     PT-EXIT <status>                   the harness's exit status (124: timeout expired)
 *     PT-RESULT <json>                   the harness's JSON line
 *     PT-TRACE base64|hex <bytes>        the trace buffer follows, base64 (or od -tx1 hex)
 *     ...data lines...                   lines of the encoding
 *     PT-TRACE-END
 *
 * The build runs under `timeout` too (build_timeout_s; a PT-ERROR says it expired). A line
 * that breaks this contract (an unknown PT- line, a PT- line glued to another, a PT-RESULT
 * that is not one JSON object) is quoted, escaped, in the error when what it should have
 * carried is missing.
 *
 * Remote contract (--remote 'CMD'): CMD is run with /bin/sh -c on this machine; its stdin is an
 * uncompressed tar stream of the bundle (flat: kernel.cu, launch.c, harness.c, reference.cu,
 * reference_host.c, Makefile, README.md, pt-run.sh). CMD must unpack it into an empty
 * directory on a machine with an sm_90a GPU, nvcc and make, run `sh pt-run.sh` there, and copy
 * that script's stdout back to its own stdout (stderr is shown to the user on failure). Lines
 * that do not start with "PT-" (banners) are ignored. For example:
 *
 *     ssh gpu 'd=$(mktemp -d) && tar -xf - -C "$d" && cd "$d" && sh pt-run.sh; s=$?; rm -rf "$d"; exit $s'
 *
 * Local mode: the bundle is copied into a cache directory named by a hash of its build inputs
 * ($XDG_CACHE_HOME/pipethreader/bundles/HASH, else ~/.cache/pipethreader/bundles/HASH), so an
 * unchanged kernel is not rebuilt: make finds its outputs up to date. */
#ifndef PT_RUNNER_H
#define PT_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_error.h"
#include "timeline_json.h"

typedef struct {
    const char *bundle_dir;    /* written by pt_codegen_bundle */
    const char *remote;        /* NULL: this machine; else the user command (contract above) */
    double timeout_s;          /* limit of the harness run (default 60) */
    double build_timeout_s;    /* limit of the build (default 900): pt-run.sh ends make after it
                                  (with `timeout`, where it is installed), and the watchdog
                                  here 10 s later */
    bool trace;                /* also build and run the instrumented kernel */
    const char *what;          /* what is running, for messages: "gemm_f16 (kernel K)" */
    const char *cache_dir;     /* NULL: $XDG_CACHE_HOME/pipethreader or ~/.cache/pipethreader */
    bool echo;                 /* copy the child's stderr (build log, notes) to ours */
    /* For callers with a UI (both may be NULL, called on the calling thread): output gets the
     * child's output as it comes (fd 1: stdout, the PT- reply; fd 2: stderr, the build log);
     * cancelled is asked a few times a second, and true kills the child's process group and
     * fails the run with "<what>: cancelled". */
    void (*output)(void *ctx, int fd, const char *data, size_t n);
    bool (*cancelled)(void *ctx);
    void *ctx;
} pt_run_request;

typedef struct {
    int harness_status;        /* 0 correct, 3 wrong results (other statuses are errors) */
    char *json;                /* the harness's JSON line (malloc'd), or NULL */
    unsigned char *trace;      /* the trace buffer (malloc'd), or NULL */
    size_t trace_len;
    bool cupti;                /* the harness was built with CUPTI */
    bool reused;               /* local: the cached build was complete before this run */
    char run_dir[4096];        /* local: the cached bundle's directory */
} pt_run_result;

/* What profiling on this machine needs, checked before anything runs: the NVIDIA driver
 * (libcuda.so.1), a GPU (nvidia-smi -L), nvcc and make. False with one line saying which is
 * missing, e.g. "no NVIDIA driver (libcuda.so.1 not found)". */
bool pt_runner_check_local(pt_error *err);

/* Build and run (trace: also the instrumented build). True when the harness ran to the end:
 * exit status 0 (correct) or 3 (wrong results: r->json says how wrong). False with one line,
 * prefixed by rq->what, for a failed build, a fault, a hang (timed out after N s: the kernel
 * hung (mbarrier deadlock?)), a missing result, or a malformed reply. Free with
 * pt_run_result_free. */
bool pt_runner_run(const pt_run_request *rq, pt_run_result *r, pt_error *err);
void pt_run_result_free(pt_run_result *r);

/* The cache directory (no trailing slash) into out; false when neither $XDG_CACHE_HOME nor
 * $HOME is set. */
bool pt_runner_cache_root(char *out, size_t cap);

/* The first max bytes of s[0..len) as printable text for a message (into out, cap bytes,
 * always terminated): quotes and backslashes escaped, \n \r \t as such, other control and
 * non-ASCII bytes as \xNN, and "..." when it was cut. */
void pt_excerpt(const char *s, size_t len, size_t max, char *out, size_t cap);

/* ---- the harness's JSON line ---- */

typedef struct {
    char graph[64], kernel[64], timing[16];
    int correct;                       /* 1, 0, or -1 (not checked) */
    int64_t mismatches, elements;
    double max_abs_err, rel_err;       /* NaN: unknown (null) */
    double time_ms_median, time_ms_min, time_ms_max;              /* plain build */
    double trace_time_ms_median, trace_time_ms_min, trace_time_ms_max; /* instrumented */
    int64_t iters, grid, block, smem, trace_bytes;
    bool has_cupti;
    double cupti_median_ms, cupti_min_ms, cupti_max_ms;
    int64_t cupti_records, cupti_registers, cupti_smem, cupti_grid, cupti_block;
    uint64_t cupti_start_ns_first, cupti_end_ns_first;
    bool has_trace_kernel;             /* trace_kernel_start_ns / _end_ns are known */
    uint64_t trace_kernel_start_ns, trace_kernel_end_ns;
} pt_harness_result;

/* Parse one JSON line of the bundle harness (README.md of a bundle lists the fields); GPU
 * timestamps are read exactly (they do not fit a double). One-line errors name `name` and the
 * field. */
bool pt_harness_parse(pt_harness_result *h, const char *name, const char *text, size_t len,
                      pt_error *err);
/* The kernel timing of a measured trace from a harness result. */
void pt_harness_to_mkernel(const pt_harness_result *h, pt_mkernel *k);

/* base64 (RFC 4648, whitespace ignored) into a malloc'd buffer; false when malformed. */
bool pt_base64_decode(const char *text, size_t len, unsigned char **out, size_t *out_len);
/* The reverse, malloc'd text with a newline every 76 characters (tests, fixtures). */
char *pt_base64_encode(const unsigned char *data, size_t len);

#endif
