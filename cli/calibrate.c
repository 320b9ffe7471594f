/* calibrate.c — the calibrate verb: measure the GPU with bench/micro/calibrate.cu (compiled
 * from the copy embedded in this binary, run in a child process under a timeout), or read a
 * result saved on another machine (--from), and write a hardware-model override whose costs
 * come from the measurements (docs/FORMAT-hw.md, "Calibration").
 *
 * The result JSON is checked field by field: a malformed result is one error line and exit 1;
 * a measurement the benchmark itself reported as failed ({"error": ...}) is a warning and the
 * base model's value stays, so one broken kernel does not throw away a whole run. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "embedded.h"
#include "json_util.h"

extern const pt_embedded_file pt_embedded_calibrate[]; /* bench/micro/calibrate.cu */
extern const pt_embedded_file pt_embedded_device[];    /* codegen/device/pt_device.cuh */

#define MAX_TILES 8
#define MAX_MMA 24
#define MAX_PIECES 24

/* One measured number; ok false: not measured (a warning was printed). */
typedef struct {
    bool ok;
    double v, mhz;
} meas;

typedef struct {
    char device[96], date[48];
    int sm_count;
    int64_t l2_bytes;
    bool complete;
    meas idle_mhz, loaded_mhz;
    int n_tiles;
    struct {
        int rows, bytes;
        meas hbm, l2, store, lat_hbm, lat_l2;
    } tile[MAX_TILES];
    meas tma_issue;
    int n_mma;
    struct {
        pt_dtype dtype;
        int n, k;
        meas wg1, wg2, lat;
    } mma[MAX_MMA];
    int n_pieces;
    struct {
        char name[32];
        meas wg1, wg2, lat;
    } piece[MAX_PIECES];
    meas handoff, named;
} calib;

typedef struct {
    const char *file;
    pt_error *err;
    int warnings;
} reader;

static void warn(reader *R, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(reader *R, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("pipethreader-cli: calibrate: warning: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    R->warnings++;
}

/* ---- reading the benchmark's result --------------------------------------------------- */

/* parent[key] is a measurement: {field: number, "sm_mhz": number, ...} or {"error": "..."}.
 * Absent: an error when `required` (a complete run has every measurement), else a warning. */
static bool get_meas(reader *R, const cJSON *parent, const char *key, const char *ppath,
                     const char *field, double lo, double hi, bool required, meas *out)
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

static bool read_tma(reader *R, const cJSON *root, bool req, calib *C)
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
        if (!array_entry(R, "$.tma.tiles", i++, C->n_tiles, MAX_TILES, "tiles", t, path))
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

static bool read_wgmma(reader *R, const cJSON *root, bool req, calib *C)
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
        if (!array_entry(R, "$.wgmma", i++, C->n_mma, MAX_MMA, "entries", e, path))
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

static bool read_pieces(reader *R, const cJSON *root, bool req, calib *C)
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
        if (!array_entry(R, "$.cuda_core", i++, C->n_pieces, MAX_PIECES, "entries", e, path))
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

static bool read_result(const char *file, const char *text, size_t len, calib *C, reader *R)
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

/* ---- deriving the model ---------------------------------------------------------------- */

static double sig4(double v) /* 4 significant digits: the measurements are not better */
{
    if (!(v != 0) || !isfinite(v))
        return 0;
    double s = pow(10, 3 - floor(log10(fabs(v))));
    return round(v * s) / s;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double max_of(const double *v, int n)
{
    double m = NAN;
    for (int i = 0; i < n; i++)
        if (!(v[i] <= m))
            m = v[i];
    return m;
}

static double median_of(double *v, int n)
{
    if (n <= 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct {
    cJSON *root, *costs, *sources;
    const calib *C;
    const pt_hw *base;
    int measured, kept;
    char pre[200]; /* "measured DATE on DEVICE (bench/micro/calibrate.cu)" */
} builder;

static void add_cost(builder *B, const char *kind, const char *dtype, double rate, double lat,
                     const char *source)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "kind", kind);
    cJSON_AddStringToObject(e, "dtype", dtype);
    if (isfinite(rate))
        cJSON_AddNumberToObject(e, "rate", sig4(rate));
    if (isfinite(lat))
        cJSON_AddNumberToObject(e, "latency_ns", sig4(lat));
    cJSON_AddStringToObject(e, "source", source);
    cJSON_AddItemToArray(B->costs, e);
    B->measured += isfinite(rate) + isfinite(lat);
}

static void set_top(builder *B, const char *key, double v, const char *source)
{
    cJSON_AddNumberToObject(B->root, key, sig4(v));
    cJSON_AddStringToObject(B->sources, key, source);
    B->measured++;
}

static void mhz_text(char *out, size_t cap, double mhz)
{
    if (isfinite(mhz))
        snprintf(out, cap, " at %.0f MHz", mhz);
    else
        out[0] = 0;
}

/* load / store: the L2 re-read rate per SM (tiles are re-read by many CTAs; compulsory HBM
 * traffic bounds the kernel through the DRAM floor, as in the builtin H200); latency: the
 * fixed part of an isolated HBM load, the intercept of latency against tile bytes. */
static void derive_memory(builder *B)
{
    const calib *C = B->C;
    double l2[MAX_TILES], hbm[MAX_TILES], st[MAX_TILES], mhz[MAX_TILES];
    int nl2 = 0, nhbm = 0, nst = 0, nmhz = 0;
    char l2s[160] = "", hbms[160] = "", sts[160] = "", lats[200] = "";
    for (int i = 0; i < C->n_tiles; i++) {
        size_t n;
        int kb = C->tile[i].bytes / 1024;
        if (C->tile[i].l2.ok) {
            l2[nl2++] = C->tile[i].l2.v;
            n = strlen(l2s);
            snprintf(l2s + n, sizeof l2s - n, "%s%d KB %.1f", n ? ", " : "", kb, C->tile[i].l2.v);
            if (isfinite(C->tile[i].l2.mhz))
                mhz[nmhz++] = C->tile[i].l2.mhz;
        }
        if (C->tile[i].hbm.ok) {
            hbm[nhbm++] = C->tile[i].hbm.v;
            n = strlen(hbms);
            snprintf(hbms + n, sizeof hbms - n, "%s%d KB %.1f", n ? ", " : "", kb,
                     C->tile[i].hbm.v);
        }
        if (C->tile[i].store.ok) {
            st[nst++] = C->tile[i].store.v;
            n = strlen(sts);
            snprintf(sts + n, sizeof sts - n, "%s%d KB %.1f", n ? ", " : "", kb,
                     C->tile[i].store.v);
        }
        if (C->tile[i].lat_hbm.ok) {
            n = strlen(lats);
            snprintf(lats + n, sizeof lats - n, "%s%d KB %.0f ns", n ? ", " : "", kb,
                     C->tile[i].lat_hbm.v);
        }
    }
    /* The load rate is the bandwidth the largest tiles reach: smaller tiles fall short because
     * few bytes are in flight per copy, which the simulator already charges through the
     * latency and the in-flight limit (a median over sizes double-counted that). */
    double rate = max_of(l2, nl2), hrate = median_of(hbm, nhbm), srate = median_of(st, nst);
    char at[32], src[1024];
    mhz_text(at, sizeof at, median_of(mhz, nmhz));

    /* Latency: least-squares line through (bytes, isolated HBM latency); its intercept is the
     * fixed part. With one tile, or a non-positive slope (noise), subtract bytes / rate. */
    double sx = 0, sy = 0, sxx = 0, sxy = 0, lat = NAN, min_fixed = INFINITY;
    int nl = 0;
    for (int i = 0; i < C->n_tiles; i++)
        if (C->tile[i].lat_hbm.ok) {
            double x = C->tile[i].bytes, y = C->tile[i].lat_hbm.v;
            sx += x, sy += y, sxx += x * x, sxy += x * y, nl++;
            double f = y - (isfinite(rate) ? x / rate : 0);
            if (f < min_fixed)
                min_fixed = f;
        }
    const char *how = "";
    if (nl >= 2 && nl * sxx - sx * sx > 0) {
        double slope = (nl * sxy - sx * sy) / (nl * sxx - sx * sx);
        if (slope > 0) {
            lat = (sy - slope * sx) / nl;
            how = "intercept of the isolated HBM load latency against tile bytes";
        }
    }
    if (!isfinite(lat) && nl >= 1) {
        lat = min_fixed;
        how = "isolated HBM load latency minus bytes / rate";
    }
    if (isfinite(lat) && lat < 0)
        lat = 0;

    if (isfinite(rate) || isfinite(lat)) {
        snprintf(src, sizeof src,
                 "%s: rate = TMA loads re-read from L2 with every SM streaming, the largest over "
                 "tile sizes (%s B/ns per SM%s; smaller copies are limited by latency and copies in "
                 "flight, which the simulator models): GEMM/attention tiles are re-read by many CTAs and "
                 "mostly hit L2, while compulsory HBM traffic bounds the kernel through the DRAM "
                 "floor (hbm_gbps); HBM streaming measured %s B/ns per SM; latency = %s (%s)",
                 B->pre, nl2 ? l2s : "not measured", at, nhbm ? hbms : "not measured",
                 how[0] ? how : "not measured", nl ? lats : "-");
        add_cost(B, "load", "*", rate, lat, src);
    }
    if (!isfinite(rate) || !isfinite(lat))
        B->kept++;
    if (isfinite(srate)) {
        snprintf(src, sizeof src,
                 "%s: rate = TMA bulk tensor stores streaming to HBM with every SM, median over "
                 "tile sizes (%s B/ns per SM); latency kept from %s (not measured)",
                 B->pre, sts, B->base->name);
        add_cost(B, "store", "*", srate, NAN, src);
    }
    B->kept += 1 + !isfinite(srate); /* store latency is never measured */
    if (isfinite(rate)) {
        snprintf(src, sizeof src, "%s: L2 re-read rate %.2f B/ns per SM x %d SMs (TMA loads)",
                 B->pre, rate, C->sm_count);
        set_top(B, "l2_gbps", rate * C->sm_count, src);
    }
    if (isfinite(hrate)) {
        snprintf(src, sizeof src, "%s: TMA load streaming from HBM, %.2f B/ns per SM x %d SMs "
                 "(read only; a copy reads and writes)", B->pre, hrate, C->sm_count);
        set_top(B, "hbm_gbps", hrate * C->sm_count, src);
    }
}

static void derive_mma(builder *B)
{
    const calib *C = B->C;
    static const pt_dtype dts[] = {PT_F16, PT_BF16, PT_FP8_E4M3};
    double bf16_rate = NAN, bf16_lat = NAN;
    char src[1024];
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
        double best = NAN, best_mhz = NAN;
        int best_n = 0, best_wg = 0, lat_n = 0, k = 16;
        double lat_ns = NAN;
        for (int i = 0; i < C->n_mma; i++) {
            if (C->mma[i].dtype != dts[d])
                continue;
            const meas *w[2] = {&C->mma[i].wg1, &C->mma[i].wg2};
            for (int g = 0; g < 2; g++)
                if (w[g]->ok && !(w[g]->v <= best)) {
                    best = w[g]->v;
                    best_mhz = w[g]->mhz;
                    best_n = C->mma[i].n;
                    best_wg = g + 1;
                }
            if (C->mma[i].lat.ok && C->mma[i].n > lat_n) {
                lat_n = C->mma[i].n;
                lat_ns = C->mma[i].lat.v;
                k = C->mma[i].k;
            }
        }
        const char *name = pt_dtype_name(dts[d]);
        if (!isfinite(best)) {
            B->kept += 2;
            continue;
        }
        /* the fixed part: one instruction's latency less its time at the streaming rate */
        double lat = NAN;
        if (isfinite(lat_ns)) {
            lat = lat_ns - 2.0 * 64 * lat_n * k / best;
            if (lat < 0)
                lat = 0;
        } else
            B->kept++;
        char at[32];
        mhz_text(at, sizeof at, best_mhz);
        snprintf(src, sizeof src,
                 "%s: rate = wgmma m64nNk%d %s from shared memory, back to back on every SM, best "
                 "of N = 64/128/256 x 1/2 warpgroups (N = %d, %d warpgroup%s%s); latency = one "
                 "m64n%dk%d issue -> wait_group 0 (%.0f ns) minus its time at that rate",
                 B->pre, k, name, best_n, best_wg, best_wg > 1 ? "s" : "", at, lat_n, k, lat_ns);
        add_cost(B, "mma", name, best, lat, src);
        if (dts[d] == PT_BF16) {
            bf16_rate = best;
            bf16_lat = lat;
        }
    }
    /* tf32 is not measured: keep the builtin's ratio to bf16 (datasheet 495 / 989). */
    if (isfinite(bf16_rate)) {
        snprintf(src, sizeof src, "estimate: half the measured bf16 rate (datasheet ratio 495 / "
                 "989 TFLOP/s; tf32 wgmma not measured), %s", B->pre);
        add_cost(B, "mma", "f32", bf16_rate / 2, bf16_lat, src);
    }
    B->kept += 2; /* f32 is never measured directly */
}

/* Which measured piece each CUDA-core sTask kind is costed from. */
static const struct {
    const char *kind, *dtype, *piece, *note;
} piece_map[] = {
    {"softmax_max", "*", "row_max", "FMNMX per element; latency: the row's 2-step quad shuffle"},
    {"softmax_exp", "*", "exp2", "FFMA + MUFU.EX2 per element"},
    {"softmax_sum", "*", "row_sum", "FADD per element; latency: the row's 2-step quad shuffle"},
    {"rescale", "*", "rescale", "FMUL per element"},
    {"normalize", "*", "rescale", "one FMUL per element as rescale (the reciprocal is per row)"},
    {"elementwise", "*", "elementwise", "FFMA + FMNMX per element"},
    {"reduce", "*", "reduce", "FADD per element; latency: a 5-step warp shuffle tree"},
    {"dequant", "int4", "dequant_int4", "shift + LOP3 magic-number unpack + HFMA2 with the scale"},
    {"cumsum", "*", "cumsum", "local scan + 5-step shfl.up warp scan + carry"},
    {"exp_decay", "*", "exp_decay", "FFMA + MUFU.EX2 + mask FMUL per element"},
    {"fill", "*", "fill_smem", "16-byte shared-memory stores of a value (a register fill folds "
                               "into its first use)"},
    {"convert", "*", "convert_f16x2", "one F2FP per 2 elements"},
};

static void derive_pieces(builder *B)
{
    const calib *C = B->C;
    char src[1024], at[32];
    double int4_rate = NAN, int4_lat = NAN;
    for (size_t m = 0; m < sizeof piece_map / sizeof piece_map[0]; m++) {
        int p = -1;
        for (int i = 0; i < C->n_pieces; i++)
            if (!strcmp(C->piece[i].name, piece_map[m].piece))
                p = i;
        if (p < 0 || !C->piece[p].wg1.ok) {
            B->kept += 2;
            if (p < 0 && C->n_pieces > 0) /* (a missing section was reported already) */
                fprintf(stderr, "pipethreader-cli: calibrate: warning: no \"%s\" measurement; "
                        "%s keeps the base value\n", piece_map[m].piece, piece_map[m].kind);
            continue;
        }
        double rate = C->piece[p].wg1.v, lat = NAN, lat_ns = NAN;
        if (C->piece[p].lat.ok) {
            lat_ns = C->piece[p].lat.v;
            lat = lat_ns - 128.0 / rate; /* the piece had one element per thread */
            if (lat < 0)
                lat = 0;
        } else
            B->kept++;
        char two[64] = "";
        if (C->piece[p].wg2.ok)
            snprintf(two, sizeof two, "; two warpgroups sharing the SM: %.1f each",
                     C->piece[p].wg2.v);
        mhz_text(at, sizeof at, C->piece[p].wg1.mhz);
        snprintf(src, sizeof src,
                 "%s: rate = piece %s (%s), elements/ns of one warpgroup alone on each SM%s%s; "
                 "latency = a one-element-per-thread piece (%.0f ns) minus 128 elements at the rate",
                 B->pre, piece_map[m].piece, piece_map[m].note, at, two, lat_ns);
        add_cost(B, piece_map[m].kind, piece_map[m].dtype, rate, lat, src);
        if (!strcmp(piece_map[m].piece, "dequant_int4")) {
            int4_rate = rate;
            int4_lat = lat;
        }
    }
    /* Other packed types (fp4) take a slower generic path that is not measured: keep the base's
     * ratio of generic to int4 cost. */
    const pt_cost *gi = &B->base->cost[PT_ST_DEQUANT][PT_INT4];
    const pt_cost *gf = &B->base->cost[PT_ST_DEQUANT][PT_FP4_E2M1];
    if (isfinite(int4_rate) && gi->rate > 0 && gf->rate > 0) {
        double ratio = gf->rate / gi->rate;
        snprintf(src, sizeof src, "estimate: the measured int4 dequant rate x %.3f (the %s "
                 "builtin's ratio of the generic 4-bit path to int4; not measured), %s", ratio,
                 B->base->name, B->pre);
        add_cost(B, "dequant", "*", int4_rate * ratio, int4_lat, src);
    }
    B->kept += 2;
}

static void derive_misc(builder *B)
{
    const calib *C = B->C;
    char src[512], at[32];
    if (C->handoff.ok) {
        mhz_text(at, sizeof at, C->handoff.mhz);
        snprintf(src, sizeof src, "%s: mbarrier arrive by a producer warp -> consumer warpgroup "
                 "waking on try_wait.parity, half a ping-pong round trip, every SM%s", B->pre, at);
        set_top(B, "barrier_ns", C->handoff.v, src);
    } else
        B->kept++;
    if (C->loaded_mhz.ok) {
        snprintf(src, sizeof src, "%s: median SM clock (clock64 / globaltimer) over the full-chip "
                 "runs; the measured rates hold at this clock (informational)", B->pre);
        set_top(B, "clock_ghz", C->loaded_mhz.v / 1000.0, src);
    } else
        B->kept++;
    snprintf(src, sizeof src, "%s: cudaGetDeviceProperties multiProcessorCount", B->pre);
    set_top(B, "eu_count", C->sm_count, src);
    if (C->l2_bytes > 0) {
        snprintf(src, sizeof src, "%s: cudaGetDeviceProperties l2CacheSize", B->pre);
        cJSON_AddNumberToObject(B->root, "l2_bytes", (double)C->l2_bytes);
        cJSON_AddStringToObject(B->sources, "l2_bytes", src);
        B->measured++;
    }
    if (C->tma_issue.ok) {
        cJSON *seus = cJSON_AddObjectToObject(B->root, "seus");
        cJSON *tma = cJSON_AddObjectToObject(seus, "tma");
        cJSON_AddNumberToObject(tma, "issue_ns", sig4(C->tma_issue.v));
        snprintf(src, sizeof src, "%s: issue_ns = one thread issuing 16 TMA loads (expect_tx + "
                 "copy) back to back, per load; max_in_flight kept from %s (not measured)",
                 B->pre, B->base->name);
        cJSON_AddStringToObject(tma, "source", src);
        B->measured++;
    } else
        B->kept++;
    B->kept++; /* max_in_flight */
}

/* The override text, or NULL with err set. */
static char *build_model(const calib *C, const pt_hw *base, pt_error *err)
{
    builder B = {.C = C, .base = base};
    snprintf(B.pre, sizeof B.pre, "measured %.40s on %.60s (bench/micro/calibrate.cu)", C->date,
             C->device);
    B.root = cJSON_CreateObject();
    if (!B.root) {
        pt_fail(err, "calibrate: out of memory");
        return NULL;
    }
    char name[48], source[256];
    snprintf(name, sizeof name, "%.30s-calibrated", base->name);
    snprintf(source, sizeof source, "calibrated on %.60s %.40s by pipethreader-cli calibrate "
             "(bench/micro/calibrate.cu); %.30s builtin for everything not measured", C->device,
             C->date, base->name);
    cJSON_AddStringToObject(B.root, "format", "pipethreader.hw");
    cJSON_AddNumberToObject(B.root, "version", 1);
    cJSON_AddStringToObject(B.root, "base", base->name);
    cJSON_AddStringToObject(B.root, "name", name);
    cJSON_AddStringToObject(B.root, "source", source);
    B.sources = cJSON_AddObjectToObject(B.root, "sources");
    B.costs = cJSON_CreateArray();
    derive_misc(&B);
    derive_memory(&B);
    derive_mma(&B);
    derive_pieces(&B);
    int n_costs = cJSON_GetArraySize(B.costs);
    cJSON_AddItemToObject(B.root, "costs", B.costs);
    char *text = cJSON_Print(B.root);
    cJSON_Delete(B.root);
    if (!text) {
        pt_fail(err, "calibrate: out of memory");
        return NULL;
    }
    if (n_costs == 0 && !C->handoff.ok && !C->tma_issue.ok) { /* device facts alone: no */
        cJSON_free(text);
        pt_fail(err, "calibrate: the result holds no usable measurement; nothing to write");
        return NULL;
    }
    fprintf(stderr, "pipethreader-cli: calibrate: %d constants measured, %d kept from %s\n",
            B.measured, B.kept, base->name);
    return text;
}

/* ---- running the benchmark ------------------------------------------------------------- */

static bool executable(const char *p)
{
    struct stat st;
    return p && p[0] && stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

/* $NVCC, $CUDA_HOME/bin, $CUDA_PATH/bin, PATH, /usr/local/cuda/bin. */
static bool find_nvcc(char *out, size_t cap)
{
    const char *env = getenv("NVCC");
    if (executable(env)) {
        snprintf(out, cap, "%s", env);
        return true;
    }
    const char *homes[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH")};
    for (size_t i = 0; i < 2; i++)
        if (homes[i] && homes[i][0]) {
            snprintf(out, cap, "%s/bin/nvcc", homes[i]);
            if (executable(out))
                return true;
        }
    const char *path = getenv("PATH");
    while (path && *path) {
        const char *colon = strchr(path, ':');
        size_t n = colon ? (size_t)(colon - path) : strlen(path);
        if (n > 0 && n < cap - 6) {
            snprintf(out, cap, "%.*s/nvcc", (int)n, path);
            if (executable(out))
                return true;
        }
        path = colon ? colon + 1 : NULL;
    }
    snprintf(out, cap, "/usr/local/cuda/bin/nvcc");
    return executable(out);
}

/* NULL when the driver loads and reports a device; else what is missing. The driver is
 * opened at run time so that the CLI itself never depends on CUDA. */
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

/* Runs argv with stdout/stderr into files, in its own process group (nvcc's helpers and the
 * benchmark are ended together on timeout). Returns the exit status, 128 + signal, or -1
 * when it could not start; *timed_out tells a timeout. */
static int run_child(char *const argv[], const char *out, const char *errf, double timeout_s,
                     bool *timed_out)
{
    *timed_out = false;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        setpgid(0, 0);
        int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = strcmp(out, errf) == 0 ? fo : open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
            _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    setpgid(pid, pid); /* also here: no race with the child's own call */
    struct timespec nap = {0, 20 * 1000 * 1000};
    double waited = 0;
    int status = 0;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            break;
        if (r < 0 && errno != EINTR)
            return -1;
        if (waited >= timeout_s && !*timed_out) {
            *timed_out = true;
            kill(-pid, SIGTERM);
            for (int i = 0; i < 100 && waitpid(pid, &status, WNOHANG) == 0; i++)
                nanosleep(&nap, NULL);
            kill(-pid, SIGKILL);
            waitpid(pid, &status, 0);
            break;
        }
        nanosleep(&nap, NULL);
        waited += 0.02;
    }
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

/* The last non-empty line of a file (for one-line error reports). */
static void last_line(const char *file, char *out, size_t cap)
{
    char *text = NULL;
    size_t len = 0;
    pt_error e;
    out[0] = 0;
    if (!pt_read_file(file, &text, &len, &e))
        return;
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r' || text[len - 1] == ' '))
        text[--len] = 0;
    char *nl = strrchr(text, '\n');
    snprintf(out, cap, "%.300s", nl ? nl + 1 : text);
    free(text);
}

static bool write_text(const char *dir, const char *name, const char *text, char *path,
                       size_t cap, pt_error *err)
{
    snprintf(path, cap, "%s/%s", dir, name);
    return pt_write_file(path, text, err);
}

/* Compiles and runs the embedded benchmark; returns its stdout (malloc'd) or NULL after
 * printing one error line. */
static char *measure_here(double timeout_s)
{
    char nvcc[1024], why_buf[160];
    bool have_nvcc = find_nvcc(nvcc, sizeof nvcc);
    const char *no_gpu = find_gpu(why_buf, sizeof why_buf);
    if (!have_nvcc || no_gpu) {
        cli_error("calibrate: cannot measure on this machine: %s%s%s; run bench/micro/calibrate.cu "
                  "on the GPU machine and convert its output with --from RESULT.json",
                  have_nvcc ? "" : "nvcc is missing (set NVCC or CUDA_HOME, or put it on PATH)",
                  !have_nvcc && no_gpu ? " and " : "", no_gpu ? no_gpu : "");
        return NULL;
    }
    const char *src = pt_embedded_find(pt_embedded_calibrate, "calibrate.cu");
    const char *dev = pt_embedded_find(pt_embedded_device, "pt_device.cuh");
    if (!src || !dev) {
        cli_error("calibrate: this binary was built without the embedded benchmark source");
        return NULL;
    }
    const char *tmpdir = getenv("TMPDIR");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/pt-calibrate-XXXXXX", tmpdir && tmpdir[0] ? tmpdir : "/tmp");
    if (!mkdtemp(dir)) {
        cli_error("calibrate: cannot create a temporary directory in %s: %s",
                  tmpdir && tmpdir[0] ? tmpdir : "/tmp", strerror(errno));
        return NULL;
    }
    char cu[600], hdr[600], exe[600], res[600], log[600], cuda[1024], stubs[1100], lib[1100];
    char *text = NULL;
    pt_error err = {{0}};
    bool timed_out;
    snprintf(exe, sizeof exe, "%s/calibrate", dir);
    snprintf(res, sizeof res, "%s/result.json", dir);
    snprintf(log, sizeof log, "%s/log.txt", dir);
    if (!write_text(dir, "calibrate.cu", src, cu, sizeof cu, &err) ||
        !write_text(dir, "pt_device.cuh", dev, hdr, sizeof hdr, &err)) {
        cli_error("calibrate: %s", err.msg);
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
    fprintf(stderr, "pipethreader-cli: calibrate: compiling the benchmark with %s\n", nvcc);
    char *cc[] = {nvcc, "-O3", "-std=c++17", "-gencode=arch=compute_90a,code=sm_90a",
                  "-o", exe, cu, stubs, lib, "-lcuda", NULL};
    int rc = run_child(cc, log, log, timeout_s, &timed_out);
    if (rc != 0) {
        char line[320];
        last_line(log, line, sizeof line);
        cli_error("calibrate: compiling the benchmark %s: %s", timed_out ? "timed out" : "failed",
                  rc == 127 ? "nvcc could not be started" : line);
        goto cleanup;
    }
    char date[32], timeout_arg[32];
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tmv);
    /* the benchmark's own watchdog fires first, so a slow run still reports what it measured */
    snprintf(timeout_arg, sizeof timeout_arg, "%d", (int)(timeout_s > 40 ? timeout_s - 20 : 20));
    char *run[] = {exe, "--date", date, "--timeout", timeout_arg, NULL};
    fprintf(stderr, "pipethreader-cli: calibrate: running the benchmark (timeout %.0f s)\n",
            timeout_s);
    rc = run_child(run, res, log, timeout_s, &timed_out);
    size_t len = 0;
    if (!pt_read_file(res, &text, &len, &err) || len == 0) {
        char line[320];
        last_line(log, line, sizeof line);
        cli_error("calibrate: the benchmark %s (exit %d) and printed no result: %s",
                  timed_out ? "timed out" : "failed", rc, line[0] ? line : "no output");
        free(text);
        text = NULL;
        goto cleanup;
    }
    if (rc != 0)
        fprintf(stderr, "pipethreader-cli: calibrate: warning: the benchmark exited with status %d%s; "
                "using what it printed\n", rc, timed_out ? " (timed out)" : "");
cleanup:
    unlink(cu);
    unlink(hdr);
    unlink(exe);
    unlink(res);
    unlink(log);
    rmdir(dir);
    return text;
}

/* ---- the verb ---------------------------------------------------------------------------- */

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

    char *text = NULL;
    size_t len = 0;
    const char *label = o.calib_from;
    if (o.calib_from) {
        if (!pt_read_file(o.calib_from, &text, &len, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return EXIT_INVALID;
        }
    } else {
        if (!(text = measure_here(timeout_s)))
            return EXIT_INVALID;
        len = strlen(text);
        label = "calibrate result";
    }

    calib C;
    reader R = {.file = label, .err = &err};
    if (!read_result(label, text, len, &C, &R)) {
        fprintf(stderr, "%s\n", err.msg);
        free(text);
        return EXIT_INVALID;
    }
    if (C.sm_count != base.eu_count)
        fprintf(stderr, "pipethreader-cli: calibrate: warning: %s has %d SMs, the %s model %d; "
                "eu_count follows the device\n", C.device, C.sm_count, base.name, base.eu_count);
    char *model = build_model(&C, &base, &err);
    if (!model) {
        fprintf(stderr, "%s\n", err.msg);
        free(text);
        return EXIT_INVALID;
    }
    size_t mlen = strlen(model);
    char *out_text = malloc(mlen + 2);
    if (!out_text) {
        cJSON_free(model);
        free(text);
        cli_error("calibrate: out of memory");
        return EXIT_INVALID;
    }
    memcpy(out_text, model, mlen);
    memcpy(out_text + mlen, "\n", 2);
    cJSON_free(model);

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
