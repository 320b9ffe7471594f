/* calibration.h — hardware-model fitting: the result of the calibration benchmark
 * (bench/micro/calibrate.cu, JSON "pipethreader.calibration") read and checked field by
 * field, and a hardware-model override (docs/FORMAT-hw.md, "Calibration") derived from it;
 * also running the benchmark on this machine. The CLI's calibrate verb is a thin layer over
 * this.
 *
 * A malformed result is one error line; a measurement the benchmark itself reported as failed
 * ({"error": ...}) is a warning (through the caller's warn hook) and the base model's value
 * stays, so one broken kernel does not throw away a whole run. */
#ifndef PT_CALIBRATION_H
#define PT_CALIBRATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw.h"
#include "pt_error.h"

#define PT_CALIB_MAX_TILES 8
#define PT_CALIB_MAX_MMA 24
#define PT_CALIB_MAX_PIECES 24

/* One measured number; ok false: not measured (a warning was printed). */
typedef struct {
    bool ok;
    double v, mhz;
} pt_calib_meas;

typedef struct {
    char device[96], date[48];
    int sm_count;
    int64_t l2_bytes;
    bool complete;
    pt_calib_meas idle_mhz, loaded_mhz;
    int n_tiles;
    struct {
        int rows, bytes;
        pt_calib_meas hbm, l2, store, lat_hbm, lat_l2;
    } tile[PT_CALIB_MAX_TILES];
    pt_calib_meas tma_issue;
    int n_mma;
    struct {
        pt_dtype dtype;
        int n, k;
        pt_calib_meas wg1, wg2, lat;
    } mma[PT_CALIB_MAX_MMA];
    int n_pieces;
    struct {
        char name[32];
        pt_calib_meas wg1, wg2, lat;
    } piece[PT_CALIB_MAX_PIECES];
    pt_calib_meas handoff, named;
} pt_calibration;

/* Where the library's words go (one line each, no newline; either may be NULL): warnings
 * (a measurement not used, and why) and notes (what it is doing: compiling, running). */
typedef struct {
    void (*warn)(void *ctx, const char *msg);
    void (*note)(void *ctx, const char *msg);
    void *ctx;
    int warnings;              /* out: how many warnings were given */
} pt_calib_hooks;

/* Read the benchmark's JSON (text[len], named name in messages) into C. */
bool pt_calibration_read(pt_calibration *C, const char *name, const char *text, size_t len,
                         pt_calib_hooks *hooks, pt_error *err);

/* The hardware-model override (malloc'd JSON text ending in a newline) whose costs come from C
 * over the builtin base; NULL with err when nothing usable was measured. *measured and *kept
 * (may be NULL) count the constants measured and those kept from base. */
char *pt_calibration_fit(const pt_calibration *C, const pt_hw *base, pt_calib_hooks *hooks,
                         int *measured, int *kept, pt_error *err);

/* Compile the embedded benchmark (bench/micro/calibrate.cu) with nvcc ($NVCC, PATH,
 * $CUDA_PATH, $CUDA_HOME, /usr/local/cuda: traces/local.h) and run it here under timeout_s,
 * each in a supervised child process group; its stdout (malloc'd), or NULL with one line
 * saying what is missing or what failed. A run that exited badly but printed a result is a
 * warning, and what it printed is returned. */
char *pt_calibration_measure(double timeout_s, pt_calib_hooks *hooks, pt_error *err);

#endif
