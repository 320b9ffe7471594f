/* calibrate_fit.c — a hardware-model override fitted to the calibration benchmark's
 * measurements (calibration.h): memory rates and latencies from the TMA tiles, tensor-core
 * rates per shape and dtype, the CUDA-core pieces, barrier hand-offs and clocks; whatever was
 * not measured keeps the base model's value, and every number says where it came from. */
#include "calibration.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    const pt_calibration *C;
    const pt_hw *base;
    pt_calib_hooks *hooks;
    int measured, kept;
    char pre[200]; /* "measured DATE on DEVICE (bench/micro/calibrate.cu)" */
} builder;

/* One warning through the caller's hook. */
static void note(builder *B, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(builder *B, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    B->hooks->warnings++;
    if (B->hooks->warn)
        B->hooks->warn(B->hooks->ctx, msg);
}

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
    const pt_calibration *C = B->C;
    double l2[PT_CALIB_MAX_TILES], hbm[PT_CALIB_MAX_TILES], st[PT_CALIB_MAX_TILES], mhz[PT_CALIB_MAX_TILES];
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
    const pt_calibration *C = B->C;
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
            const pt_calib_meas *w[2] = {&C->mma[i].wg1, &C->mma[i].wg2};
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

/* The index of the measured piece called `name` (the last of that name), -1. */
static int piece_index(const pt_calibration *C, const char *name)
{
    int p = -1;
    for (int i = 0; i < C->n_pieces; i++)
        if (!strcmp(C->piece[i].name, name))
            p = i;
    return p;
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
    {"exp_decay", "*", "exp_decay", "the factored decay tile of pt_ssd.cuh: per 32 elements 18 x (FFMA + range test + MUFU.EX2), a vote, then FMUL + mask per element"},
    {"fill", "*", "fill_smem", "16-byte shared-memory stores of a value (a register fill folds "
                               "into its first use)"},
    {"convert", "*", "convert_f16x2", "one F2FP per 2 elements"},
};

static void derive_pieces(builder *B)
{
    const pt_calibration *C = B->C;
    char src[1024], at[32];
    double int4_rate = NAN, int4_lat = NAN;
    for (size_t m = 0; m < sizeof piece_map / sizeof piece_map[0]; m++) {
        int p = piece_index(C, piece_map[m].piece);
        if (p < 0 || !C->piece[p].wg1.ok) {
            B->kept += 2;
            if (p < 0 && C->n_pieces > 0) /* (a missing section was reported already) */
                note(B, "no \"%s\" measurement; %s keeps the base value", piece_map[m].piece,
                     piece_map[m].kind);
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

/* The factored decay's work fractions (hw.h decay_factored_*_work) are kept from the base
 * model: they are fitted on whole ChunkScan kernels (the same schedule in both forms, timed
 * together), and the pieces' own rates say far less about them. The ratios of the pieces that
 * stand for them (exp_decay against 16 x decay_cols, elementwise against decay_scale) promised
 * 15% off the H200's ChunkScan where the kernels differ by 1.4-2.5% (BENCHMARKS.md, session
 * 31). The pieces are still measured and written with the other costs. */
static void derive_decay_factored(builder *B)
{
    B->kept += 3; /* decay_factored_exp_work, _tile_work, _vec_work */
}

static void derive_misc(builder *B)
{
    const pt_calibration *C = B->C;
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

char *pt_calibration_fit(const pt_calibration *C, const pt_hw *base, pt_calib_hooks *hooks,
                         int *measured, int *kept, pt_error *err)
{
    pt_calib_hooks none = {0};
    builder B = {.C = C, .base = base, .hooks = hooks ? hooks : &none};
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
    derive_decay_factored(&B);
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
    if (measured)
        *measured = B.measured;
    if (kept)
        *kept = B.kept;
    /* a file ends with a newline; cJSON's text is freed with cJSON_free, ours with free */
    size_t n = strlen(text);
    char *out = malloc(n + 2);
    if (out) {
        memcpy(out, text, n);
        memcpy(out + n, "\n", 2);
    } else
        pt_fail(err, "calibrate: out of memory");
    cJSON_free(text);
    return out;
}
