/* calibrate_run.c — the calibration benchmark run on this machine (calibration.h): the copy
 * of bench/micro/calibrate.cu embedded in the library is compiled with nvcc and run, each in
 * a supervised child process group (supervise.c) under the caller's timeout, in a private
 * temporary directory that is removed afterwards. */
#include "calibration.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "embedded.h"
#include "json_util.h"
#include "local.h"
#include "run_parts.h"

extern const pt_embedded_file pt_embedded_calibrate[]; /* bench/micro/calibrate.cu */
extern const pt_embedded_file pt_embedded_device[];    /* codegen/device/pt_device.cuh */

static void say(pt_calib_hooks *h, bool warning, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void say(pt_calib_hooks *h, bool warning, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    h->warnings += warning;
    void (*fn)(void *, const char *) = warning ? h->warn : h->note;
    if (fn)
        fn(h->ctx, msg);
}

/* NULL when the driver loads and reports a device; else what is missing. The driver is
 * opened at run time so that nothing here depends on CUDA. */
static const char *find_gpu(char *why, size_t cap)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(why, cap, "no GPU: the CUDA driver (libcuda.so.1) is not installed");
        return why;
    }
    int (*init)(unsigned) = NULL;
    int (*count)(int *) = NULL;
    *(void **)&init = dlsym(lib, "cuInit");
    *(void **)&count = dlsym(lib, "cuDeviceGetCount");
    int n = 0, rc = -1;
    if (!init || !count)
        snprintf(why, cap, "no GPU: libcuda.so.1 lacks cuInit/cuDeviceGetCount");
    else if ((rc = init(0)) != 0)
        snprintf(why, cap, "no GPU: cuInit failed (CUDA driver error %d)", rc);
    else if ((rc = count(&n)) != 0 || n < 1)
        snprintf(why, cap, "no GPU: the CUDA driver reports no device");
    else
        why = NULL;
    dlclose(lib);
    return why;
}

/* One child: argv in dir under timeout_s; its exit status (128 + signal, -1 when it could
 * not start), stdout in *out (malloc'd or NULL), the line of its output that says what went
 * wrong in words[cap]. */
static int run_one(char *const argv[], const char *dir, double timeout_s, bool *timed_out,
                   char **out, char *words, size_t cap)
{
    run_buf o = {0}, e = {0};
    run_child ci;
    pt_error err = {{0}};
    bool ok = run_supervise(argv, dir, -1, timeout_s, timeout_s, false, &o, &e, &ci, NULL, &err);
    *timed_out = ok && ci.timed_out;
    run_last_words(e.n ? &e : &o, words, cap);
    if (!ok)
        snprintf(words, cap, "%.300s", err.msg);
    free(e.s);
    if (out)
        *out = o.s;
    else
        free(o.s);
    return ok ? ci.status : -1;
}

char *pt_calibration_measure(double timeout_s, pt_calib_hooks *hooks, pt_error *err)
{
    pt_calib_hooks none = {0};
    pt_calib_hooks *h = hooks ? hooks : &none;
    char nvcc[1024], why_buf[160];
    bool have_nvcc = pt_find_tool("nvcc", "NVCC", nvcc, sizeof nvcc);
    const char *no_gpu = find_gpu(why_buf, sizeof why_buf);
    if (!have_nvcc || no_gpu) {
        pt_fail(err, "calibrate: cannot measure on this machine: %s%s%s; run "
                     "bench/micro/calibrate.cu on the GPU machine and convert its output with "
                     "--from RESULT.json",
                have_nvcc ? "" : "nvcc is missing (set NVCC or CUDA_HOME, or put it on PATH)",
                !have_nvcc && no_gpu ? " and " : "", no_gpu ? no_gpu : "");
        return NULL;
    }
    const char *src = pt_embedded_find(pt_embedded_calibrate, "calibrate.cu");
    const char *dev = pt_embedded_find(pt_embedded_device, "pt_device.cuh");
    if (!src || !dev) {
        pt_fail(err, "calibrate: this library was built without the embedded benchmark source");
        return NULL;
    }
    char dir[512];
    pt_error e = {{0}};
    if (!pt_make_temp_dir("pt-calibrate", dir, sizeof dir, &e)) {
        pt_fail(err, "calibrate: %s", e.msg);
        return NULL;
    }
    char cu[600], hdr[600], cuda[1024], stubs[1100], lib[1100], words[400];
    char *text = NULL;
    bool timed_out;
    snprintf(cu, sizeof cu, "%s/calibrate.cu", dir);
    snprintf(hdr, sizeof hdr, "%s/pt_device.cuh", dir);
    if (!pt_write_file(cu, src, &e) || !pt_write_file(hdr, dev, &e)) {
        pt_fail(err, "calibrate: %s", e.msg);
        goto cleanup;
    }
    /* CUDA root = nvcc's grandparent: link against its stub libcuda (the real driver is
     * loaded at run time by its soname). */
    snprintf(cuda, sizeof cuda, "%s", nvcc);
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(cuda, '/');
        if (slash)
            *slash = 0;
    }
    snprintf(stubs, sizeof stubs, "-L%s/lib64/stubs", cuda);
    snprintf(lib, sizeof lib, "-L%s/lib64", cuda);
    say(h, false, "compiling the benchmark with %s", nvcc);
    char *cc[] = {nvcc, "-O3", "-std=c++17", "-gencode=arch=compute_90a,code=sm_90a",
                  "-o", "calibrate", "calibrate.cu", stubs, lib, "-lcuda", NULL};
    int rc = run_one(cc, dir, timeout_s, &timed_out, NULL, words, sizeof words);
    if (rc != 0) {
        pt_fail(err, "calibrate: compiling the benchmark %s: %s",
                timed_out ? "timed out" : "failed",
                rc == 127 ? "nvcc could not be started" : words);
        goto cleanup;
    }
    char date[32], timeout_arg[32];
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tmv);
    /* the benchmark's own watchdog fires first, so a slow run still reports what it measured */
    snprintf(timeout_arg, sizeof timeout_arg, "%d", (int)(timeout_s > 40 ? timeout_s - 20 : 20));
    char *run[] = {"./calibrate", "--date", date, "--timeout", timeout_arg, NULL};
    say(h, false, "running the benchmark (timeout %.0f s)", timeout_s);
    rc = run_one(run, dir, timeout_s, &timed_out, &text, words, sizeof words);
    if (!text || !text[0]) {
        pt_fail(err, "calibrate: the benchmark %s (exit %d) and printed no result: %s",
                timed_out ? "timed out" : "failed", rc, words[0] ? words : "no output");
        free(text);
        text = NULL;
        goto cleanup;
    }
    if (rc != 0)
        say(h, true, "the benchmark exited with status %d%s; using what it printed", rc,
            timed_out ? " (timed out)" : "");
cleanup:
    pt_remove_flat_dir(dir);
    return text;
}
