/* calibrate.c — the calibrate verb: measure the GPU with bench/micro/calibrate.cu (compiled
 * from the copy embedded in the library, run in a child process under a timeout), or read a
 * result saved on another machine (--from), and write a hardware-model override whose costs
 * come from the measurements (docs/FORMAT-hw.md, "Calibration"). The reading, the fitting and
 * the running are traces/calibration.h; this file is options, messages and files.
 *
 * A malformed result is one error line and exit 1; a measurement the benchmark itself reported
 * as failed ({"error": ...}) is a warning and the base model's value stays. */
#include <stdlib.h>
#include <string.h>

#include "calibration.h"
#include "cli.h"
#include "json_util.h"

static void print_warning(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "pipethreader-cli: calibrate: warning: %s\n", msg);
}

static void print_note(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "pipethreader-cli: calibrate: %s\n", msg);
}

int verb_calibrate(int argc, char **argv)
{
    cli_opts o = {.verb = "calibrate", .no_graph = true};
    if (!cli_parse(argc, argv, "hw,o,from,timeout", &o))
        return EXIT_USAGE;
    if (!o.out || !o.out[0]) {
        cli_error("calibrate: missing -o HW.json (the hardware model to write); see calibrate "
                  "--help");
        return EXIT_USAGE;
    }
    double timeout_s = o.timeout_s > 0 ? o.timeout_s : 900; /* cli_parse checked the range */
    if (timeout_s < 10) {
        cli_error("calibrate: --timeout %g: expected at least 10 seconds (compiling alone takes "
                  "several)", timeout_s);
        return EXIT_USAGE;
    }
    /* The override's "base" must be a builtin (docs/FORMAT-hw.md), and an NVIDIA one. */
    const char *base_name = o.hw ? o.hw : "H200";
    pt_hw base;
    pt_error err = {{0}};
    if (!pt_hw_builtin_json(base_name)) {
        cli_error("calibrate: --hw %s: not a built-in model; expected one of H100, H200 (the "
                  "calibrated file overrides a builtin)", base_name);
        return EXIT_INVALID;
    }
    if (!pt_hw_load(&base, base_name, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return EXIT_INVALID;
    }
    if (strcmp(base.vendor, "nvidia") != 0) {
        cli_error("calibrate: --hw %s: an %s model; the benchmark measures NVIDIA sm_90a GPUs",
                  base.name, base.vendor);
        return EXIT_INVALID;
    }

    pt_calib_hooks hooks = {.warn = print_warning, .note = print_note};
    char *text = NULL;
    size_t len = 0;
    const char *label = o.calib_from;
    if (o.calib_from) {
        if (!pt_read_file(o.calib_from, &text, &len, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return EXIT_INVALID;
        }
    } else {
        if (!(text = pt_calibration_measure(timeout_s, &hooks, &err))) {
            cli_error("%s", err.msg);
            return EXIT_INVALID;
        }
        len = strlen(text);
        label = "calibrate result";
    }

    pt_calibration C;
    if (!pt_calibration_read(&C, label, text, len, &hooks, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        free(text);
        return EXIT_INVALID;
    }
    if (C.sm_count != base.eu_count)
        fprintf(stderr, "pipethreader-cli: calibrate: warning: %s has %d SMs, the %s model %d; "
                "eu_count follows the device\n", C.device, C.sm_count, base.name, base.eu_count);
    int measured = 0, kept = 0;
    char *out_text = pt_calibration_fit(&C, &base, &hooks, &measured, &kept, &err);
    if (!out_text) {
        fprintf(stderr, "%s\n", err.msg);
        free(text);
        return EXIT_INVALID;
    }
    fprintf(stderr, "pipethreader-cli: calibrate: %d constants measured, %d kept from %s\n",
            measured, kept, base.name);

    /* The written model must load: a model the simulator cannot use is not written. */
    pt_hw check;
    int rc = EXIT_OK;
    if (!pt_hw_load_text(&check, "calibrated model", out_text, strlen(out_text), &err)) {
        fprintf(stderr, "%s\n", err.msg);
        rc = EXIT_INVALID;
    } else if (!cli_write(o.out, out_text)) {
        rc = EXIT_INVALID;
    } else {
        /* Keep the raw measurements beside the model when they were taken here. */
        char saved[1100] = "";
        if (!o.calib_from && strcmp(o.out, "-") != 0) {
            size_t n = strlen(o.out);
            int keep = (n > 5 && !strcmp(o.out + n - 5, ".json")) ? (int)(n - 5) : (int)n;
            snprintf(saved, sizeof saved, "%.*s.result.json", keep, o.out);
            if (!pt_write_file(saved, text, &err)) {
                fprintf(stderr, "%s\n", err.msg);
                saved[0] = 0;
            }
        }
        if (strcmp(o.out, "-") != 0)
            printf("wrote %s: %s from %s (%s)%s%s\n", o.out, check.name, C.device, C.date,
                   saved[0] ? "; raw measurements in " : "", saved);
    }
    free(out_text);
    free(text);
    return rc;
}
