/* calibrate_read.c — the calibration benchmark's result read into a pt_calibration, checked
 * field by field (calibration.h). */
#include "calibration.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "json_util.h"

typedef struct {
    const char *file;
    pt_error *err;
    pt_calib_hooks *hooks;
} reader;

/* One warning through the caller's hook. */
static void warn(reader *R, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(reader *R, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    R->hooks->warnings++;
    if (R->hooks->warn)
        R->hooks->warn(R->hooks->ctx, msg);
}

/* ---- reading the benchmark's result --------------------------------------------------- */

/* parent[key] is a measurement: {field: number, "sm_mhz": number, ...} or {"error": "..."}.
 * Absent: an error when `required` (a complete run has every measurement), else a warning. */
static bool get_meas(reader *R, const cJSON *parent, const char *key, const char *ppath,
                     const char *field, double lo, double hi, bool required, pt_calib_meas *out)
{
    char path[PT_PATH_MAX];
    pt_path_key(path, ppath, key);
    out->ok = false;
    out->mhz = NAN;
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(parent, key);
    if (!m) {
        if (required)
            return pt_fail(R->err, "%s: %s: missing; expected a measurement {\"%s\": ...} or "
                           "{\"error\": \"...\"}", R->file, path, field);
        warn(R, "%s: %s: not measured (the run stopped early); the base value is kept",
             R->file, path);
        return true;
    }
    if (!cJSON_IsObject(m))
        return pt_fail(R->err, "%s: %s: is %s; expected a measurement object {\"%s\": ...}",
                       R->file, path, pt_json_type(m), field);
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(m, "error");
    if (e) {
        if (!cJSON_IsString(e))
            return pt_fail(R->err, "%s: %s.error: is %s; expected a string", R->file, path,
                           pt_json_type(e));
        warn(R, "%s: %s: not measured (%.200s); the base value is kept", R->file, path,
             e->valuestring);
        return true;
    }
    if (!pt_json_get_number(m, field, true, lo, hi, R->file, path, &out->v, R->err) ||
        !pt_json_get_number(m, "sm_mhz", false, 1, 1e5, R->file, path, &out->mhz, R->err))
        return false;
    out->ok = true;
    return true;
}

/* A section that is an object, an array, absent (only when the run did not complete) or a
 * failed measurement {"error": ...}. Returns false on a malformed result; *sec NULL when the
 * section is to be skipped. */
static bool get_section(reader *R, const cJSON *root, const char *key, bool array, bool required,
                        const cJSON **sec)
{
    char path[PT_PATH_MAX];
    pt_path_key(path, "$", key);
    *sec = NULL;
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(root, key);
    if (!s) {
        if (required)
            return pt_fail(R->err, "%s: %s: missing; expected %s", R->file, path,
                           array ? "an array" : "an object");
        warn(R, "%s: %s: not measured (the run stopped early); the base values are kept",
             R->file, path);
        return true;
    }
    if (cJSON_IsObject(s) && cJSON_GetObjectItemCaseSensitive(s, "error")) {
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(s, "error");
        if (!cJSON_IsString(e))
            return pt_fail(R->err, "%s: %s.error: is %s; expected a string", R->file, path,
                           pt_json_type(e));
        warn(R, "%s: %s: not measured (%.200s); the base values are kept", R->file, path,
             e->valuestring);
        return true;
    }
    if (array ? !cJSON_IsArray(s) : !cJSON_IsObject(s))
        return pt_fail(R->err, "%s: %s: is %s; expected %s", R->file, path, pt_json_type(s),
                       array ? "an array" : "an object");
    *sec = s;
    return true;
}

/* Entry i of the array at JSON path `at` (count of them read so far): its path in `path`;
 * refused past `max` entries (named `what`) or when it is not an object. */
static bool array_entry(reader *R, const char *at, int i, int count, int max, const char *what,
                        const cJSON *e, char path[PT_PATH_MAX])
{
    pt_path_idx(path, at, i);
    if (count == max)
        return pt_fail(R->err, "%s: %s: more than %d %s; expected at most %d", R->file, path, max,
                       what, max);
    if (!cJSON_IsObject(e))
        return pt_fail(R->err, "%s: %s: is %s; expected an object", R->file, path,
                       pt_json_type(e));
    return true;
}

static bool read_tma(reader *R, const cJSON *root, bool req, pt_calibration *C)
{
    const cJSON *tma, *tiles, *t;
    bool ok;
    if (!get_section(R, root, "tma", false, req, &tma))
        return false;
    if (!tma)
        return true;
    if (!(tiles = pt_json_get_array(tma, "tiles", true, R->file, "$.tma", &ok, R->err)))
        return false;
    int i = 0;
    cJSON_ArrayForEach(t, tiles)
    {
        char path[PT_PATH_MAX];
        if (!array_entry(R, "$.tma.tiles", i++, C->n_tiles, PT_CALIB_MAX_TILES, "tiles", t, path))
            return false;
        int64_t rows, bytes;
        if (!pt_json_get_int(t, "rows", true, 1, 256, R->file, path, &rows, R->err) ||
            !pt_json_get_int(t, "bytes", true, 128, 1 << 20, R->file, path, &bytes, R->err))
            return false;
        int k = C->n_tiles++;
        C->tile[k].rows = (int)rows;
        C->tile[k].bytes = (int)bytes;
        if (!get_meas(R, t, "hbm", path, "bytes_per_ns_per_sm", 1e-6, 1e6, req, &C->tile[k].hbm) ||
            !get_meas(R, t, "l2", path, "bytes_per_ns_per_sm", 1e-6, 1e6, req, &C->tile[k].l2) ||
            !get_meas(R, t, "store_hbm", path, "bytes_per_ns_per_sm", 1e-6, 1e6, req,
                      &C->tile[k].store) ||
            !get_meas(R, t, "latency_hbm", path, "ns", 0, 1e7, req, &C->tile[k].lat_hbm) ||
            !get_meas(R, t, "latency_l2", path, "ns", 0, 1e7, req, &C->tile[k].lat_l2))
            return false;
    }
    return get_meas(R, tma, "issue", "$.tma", "ns", 0, 1e6, req, &C->tma_issue);
}

static bool read_wgmma(reader *R, const cJSON *root, bool req, pt_calibration *C)
{
    const cJSON *arr, *e;
    if (!get_section(R, root, "wgmma", true, req, &arr))
        return false;
    if (!arr)
        return true;
    int i = 0;
    cJSON_ArrayForEach(e, arr)
    {
        char path[PT_PATH_MAX];
        if (!array_entry(R, "$.wgmma", i++, C->n_mma, PT_CALIB_MAX_MMA, "entries", e, path))
            return false;
        const char *dt;
        int64_t n, k;
        pt_dtype d;
        if (!pt_json_get_string(e, "dtype", true, R->file, path, &dt, R->err) ||
            !pt_json_get_int(e, "n", true, 8, 256, R->file, path, &n, R->err) ||
            !pt_json_get_int(e, "k", true, 8, 64, R->file, path, &k, R->err))
            return false;
        if (!pt_dtype_parse(dt, &d) || (d != PT_F16 && d != PT_BF16 && d != PT_FP8_E4M3))
            return pt_fail(R->err, "%s: %s.dtype: \"%.40s\" is not a measured wgmma input type; "
                           "expected \"f16\", \"bf16\" or \"fp8-e4m3\"", R->file, path, dt);
        int m = C->n_mma++;
        C->mma[m].dtype = d;
        C->mma[m].n = (int)n;
        C->mma[m].k = (int)k;
        if (!get_meas(R, e, "wg1", path, "flops_per_ns_per_sm", 1e-3, 1e9, req, &C->mma[m].wg1) ||
            !get_meas(R, e, "wg2", path, "flops_per_ns_per_sm", 1e-3, 1e9, req, &C->mma[m].wg2) ||
            !get_meas(R, e, "latency", path, "ns", 0, 1e7, req, &C->mma[m].lat))
            return false;
    }
    return true;
}

static bool read_pieces(reader *R, const cJSON *root, bool req, pt_calibration *C)
{
    const cJSON *arr, *e;
    if (!get_section(R, root, "cuda_core", true, req, &arr))
        return false;
    if (!arr)
        return true;
    int i = 0;
    cJSON_ArrayForEach(e, arr)
    {
        char path[PT_PATH_MAX];
        if (!array_entry(R, "$.cuda_core", i++, C->n_pieces, PT_CALIB_MAX_PIECES, "entries", e, path))
            return false;
        int p = C->n_pieces++;
        if (!pt_json_get_name(e, "piece", true, R->file, path, C->piece[p].name,
                              sizeof C->piece[p].name, R->err) ||
            !get_meas(R, e, "wg1", path, "elems_per_ns_per_wg", 1e-6, 1e6, req,
                      &C->piece[p].wg1) ||
            !get_meas(R, e, "wg2", path, "elems_per_ns_per_wg", 1e-6, 1e6, req,
                      &C->piece[p].wg2) ||
            !get_meas(R, e, "latency", path, "ns", 0, 1e7, req, &C->piece[p].lat))
            return false;
    }
    return true;
}

static bool read_result(const char *file, const char *text, size_t len, pt_calibration *C, reader *R)
{
    memset(C, 0, sizeof *C);
    cJSON *root = pt_json_parse(file, text, len, R->err);
    if (!root)
        return false;
    bool ok = false;
    const char *fmt, *device, *date;
    int64_t version, sms, l2;
    const cJSON *c;
    if (!cJSON_IsObject(root)) {
        pt_fail(R->err, "%s: $: is %s; expected the JSON object printed by "
                "bench/micro/calibrate.cu", file, pt_json_type(root));
        goto done;
    }
    if (!pt_json_expect_kind(root, PT_FILE_CALIBRATION, file, R->err) ||
        !pt_json_get_string(root, "format", true, file, "$", &fmt, R->err))
        goto done;
    /* A run that failed before measuring anything says why in "error". */
    const cJSON *early = cJSON_GetObjectItemCaseSensitive(root, "error");
    if (cJSON_IsString(early) && !cJSON_GetObjectItemCaseSensitive(root, "sm_count")) {
        pt_fail(R->err, "%s: the benchmark failed before measuring: %.300s", file,
                early->valuestring);
        goto done;
    }
    if (strcmp(fmt, "pipethreader.calibration") != 0) {
        pt_fail(R->err, "%s: $.format: is \"%.40s\"; expected \"pipethreader.calibration\"", file,
                fmt);
        goto done;
    }
    if (!pt_json_get_int(root, "version", true, 1, 1, file, "$", &version, R->err) ||
        !pt_json_get_string(root, "device", true, file, "$", &device, R->err) ||
        !pt_json_get_string(root, "date", true, file, "$", &date, R->err) ||
        !pt_json_get_int(root, "sm_count", true, 1, 4096, file, "$", &sms, R->err) ||
        !pt_json_get_int(root, "l2_bytes", true, 0, (int64_t)1 << 40, file, "$", &l2, R->err))
        goto done;
    snprintf(C->device, sizeof C->device, "%s", device);
    snprintf(C->date, sizeof C->date, "%s", date);
    for (char *p = C->device; *p; p++) /* the name ends up in JSON strings and messages */
        if ((unsigned char)*p < 0x20 || *p == '"' || *p == '\\')
            *p = ' ';
    for (char *p = C->date; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == '"' || *p == '\\')
            *p = ' ';
    C->sm_count = (int)sms;
    C->l2_bytes = l2;
    C->complete = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "complete"));
    if (!C->complete) {
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(root, "error");
        warn(R, "%s: the run did not complete (%.200s); what it measured is used",
             file, cJSON_IsString(e) ? e->valuestring : "no \"complete\": true");
    }
    c = cJSON_GetObjectItemCaseSensitive(root, "context_lost");
    if (cJSON_IsString(c))
        warn(R, "%s: the CUDA context was lost during the run (%.200s); later measurements "
             "are missing", file, c->valuestring);
    bool req = C->complete;
    const cJSON *bar;
    if (!get_meas(R, root, "clock_idle", "$", "sm_mhz", 1, 1e5, req, &C->idle_mhz) ||
        !get_meas(R, root, "clock_loaded", "$", "median_mhz", 1, 1e5, req, &C->loaded_mhz) ||
        !get_section(R, root, "barriers", false, req, &bar) ||
        (bar && (!get_meas(R, bar, "mbarrier_handoff", "$.barriers", "ns", 0, 1e6, req,
                           &C->handoff) ||
                 !get_meas(R, bar, "named_barrier", "$.barriers", "ns", 0, 1e6, req,
                           &C->named))) ||
        !read_tma(R, root, req, C) || !read_wgmma(R, root, req, C) ||
        !read_pieces(R, root, req, C))
        goto done;
    ok = true;
done:
    cJSON_Delete(root);
    return ok;
}

bool pt_calibration_read(pt_calibration *C, const char *name, const char *text, size_t len,
                         pt_calib_hooks *hooks, pt_error *err)
{
    pt_calib_hooks none = {0};
    reader R = {.file = name, .err = err, .hooks = hooks ? hooks : &none};
    return read_result(name, text, len, C, &R);
}
