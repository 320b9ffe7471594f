/* run_parts.h — the runner's pieces, shared by the files of traces/ and nobody outside: buffers,
 * child supervision, the pt-run.sh script, the bundle cache, the tar stream, decoding and the
 * reply's PT- lines (runner.h has the contract; runner.c puts them together). */
#ifndef PT_RUN_PARTS_H
#define PT_RUN_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runner.h"

#define RUN_PATH_MAX 4096
#define STDOUT_MAX ((size_t)512 << 20) /* the reply: a trace buffer in base64 is a few MiB */
#define STDERR_KEEP ((size_t)256 << 10) /* the tail of stderr kept for messages */

/* ---- small buffers (run_buf.c) ---- */

typedef struct {
    char *s;
    size_t n, cap;
    bool full;
} run_buf;

/* Append n bytes; false (and full set) past max bytes or out of memory. */
bool run_buf_add(run_buf *b, const char *p, size_t n, size_t max);
/* Append, keeping only about the last STDERR_KEEP bytes. */
void run_buf_add_tail(run_buf *b, const char *p, size_t n);
/* Monotonic seconds. */
double run_now_s(void);

/* ---- supervising a child (supervise.c) ---- */

typedef struct {
    int status;           /* exit status, 128 + signal when killed by one, -1 unknown */
    bool timed_out;
    bool cancelled;       /* the caller's cancelled() said so: the group was killed */
    bool in_run;          /* "PT-PHASE run" was seen */
    double run_started;   /* run_now_s() then */
    double ended;
    char step[32];        /* the harness's last "PT-STEP" */
} run_child;

/* Run argv in cwd with stdin from in_fd (-1: /dev/null) in a new process group under a
 * watchdog: first_timeout seconds, restarted with run_timeout at "PT-PHASE run" on stdout.
 * stdout collects into out, the tail of stderr into errb (echoed to ours when echo). rq (may
 * be NULL) brings the caller's output and cancelled callbacks. Every child is reaped. */
bool run_supervise(char *const argv[], const char *cwd, int in_fd, double first_timeout,
                   double run_timeout, bool echo, run_buf *out, run_buf *errb, run_child *ci,
                   const pt_run_request *rq, pt_error *err);

/* ---- what runs on the other side (run_script.c, bundle_cache.c, tar.c) ---- */

/* pt-run.sh for this request (malloc'd), or NULL when out of memory. */
char *run_script(const pt_run_request *rq);
/* The cached copy of rq->bundle_dir (cache.../bundles/HASH) into out; *reused says whether its
 * build was complete already. */
bool run_cached_bundle(const pt_run_request *rq, char *out, size_t cap, bool *reused,
                       pt_error *err);
/* An unlinked temporary file holding the bundle and script as a tar stream, at its start; -1
 * on failure. */
int run_tar_bundle(const pt_run_request *rq, const char *script, pt_error *err);

/* ---- what comes back (base64.c, reply.c) ---- */

/* od -tx1 output into a malloc'd buffer; false when malformed. */
bool run_hex_decode(const char *text, size_t len, unsigned char **out, size_t *out_len);

typedef struct {
    bool phase_build, phase_run, build_failed, have_exit, have_cupti;
    int exit_status, cupti;
    char error[256];
    /* The first line that is not what the contract allows: a "PT-" line of no known kind,
     * another PT- marker glued inside a line (a JSON line without its newline), or a
     * PT-RESULT that is not one JSON object. Reported when something expected is missing. */
    bool garbled, garbled_result; /* garbled_result: the PT-RESULT line itself is not JSON */
    char garbled_text[200];    /* its first bytes, escaped */
    char garbled_why[160];     /* what is wrong with it */
} run_reply;

/* Read the PT- lines of the reply in out into ri and r (json, trace); false on a malformed
 * reply, with a one-line error prefixed by what. */
bool run_parse_reply(const run_buf *out, run_reply *ri, pt_run_result *r, const char *what,
                     pt_error *err);
/* The line of stderr that best says what went wrong (into out, cap bytes). */
void run_last_words(const run_buf *errb, char *out, size_t cap);

#endif
