/* pack.c — `pipethreader-cli pack`: a bf16 (or f16) weight matrix turned into the packed 4-bit
 * layout the low-bit GEMM graphs read (gemm_w4a16, gemm_wfp4a16: Wq [n, k] and Ws [n, k/G]),
 * so a user can bring real weights.
 *
 * Formats (the reference's, codegen/reference.c): two elements per byte, the even element (along
 * k) in the low nibble; int4 is signed (-8..7), fp4 is e2m1 (0, 0.5, 1, 1.5, 2, 3, 4, 6 and their
 * negatives). Quantisation is symmetric per group of G along k: the scale is the group's largest
 * magnitude over the format's (7 for int4, 6 for fp4), stored in the weights' own type, and each
 * weight is the nearest representable value of w / scale. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dtype.h"
#include "packing.h"

static float bf16_to_f32(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint16_t f32_to_bf16(float f) /* round to nearest even; NaN stays NaN */
{
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
}

static float f16_to_f32(uint16_t h)
{
    int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY)
                                                       : ldexpf((float)(m | 1024), e - 25);
    return s ? -v : v;
}

static uint16_t f32_to_f16(float f) /* round to nearest even, saturating to the largest finite */
{
    if (isnan(f))
        return 0x7e00;
    int s = signbit(f) ? 0x8000 : 0;
    float a = fabsf(f);
    if (a >= 65520.f)
        return (uint16_t)(s | 0x7bff);
    if (a < ldexpf(1, -14)) /* subnormal: multiples of 2^-24 */
        return (uint16_t)(s | (int)nearbyintf(a * ldexpf(1, 24)));
    int e;
    float m = frexpf(a, &e); /* a = m 2^e, m in [0.5, 1) */
    int mant = (int)nearbyintf(m * 2048.f) - 1024; /* 10 bits after the leading one */
    int exp = e - 1 + 15;
    if (mant == 1024) {
        mant = 0;
        exp++;
    }
    return (uint16_t)(s | (exp << 10) | mant);
}

static const float FP4[8] = {0.f, 0.5f, 1.f, 1.5f, 2.f, 3.f, 4.f, 6.f};

/* The nibble of the representable value nearest to x (already divided by the scale). */
static unsigned quantise(float x, bool fp4)
{
    if (!fp4) {
        float r = nearbyintf(x);
        r = r < -8.f ? -8.f : r > 7.f ? 7.f : r;
        return (unsigned)((int)r & 15);
    }
    float a = fabsf(x);
    int best = 0;
    for (int i = 1; i < 8; i++)
        if (fabsf(FP4[i] - a) < fabsf(FP4[best] - a))
            best = i;
    return (unsigned)(best | (signbit(x) && best ? 8 : 0));
}

static float nibble_value(unsigned v, bool fp4)
{
    if (!fp4)
        return (float)(v >= 8 ? (int)v - 16 : (int)v);
    return (v & 8 ? -1.f : 1.f) * FP4[v & 7];
}

static bool parse_int(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

int verb_pack(int argc, char **argv)
{
    const char *in = NULL, *out = NULL, *format = "int4", *dtype = "bf16", *packing = "rows";
    const char *scales = "padded";
    long long n = 0, k = 0, group = 128;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = true;
        if (!strcmp(a, "--rows") && v)
            ok = parse_int(v, 1, 1LL << 31, &n), i++;
        else if (!strcmp(a, "--cols") && v)
            ok = parse_int(v, 2, 1LL << 31, &k), i++;
        else if (!strcmp(a, "--group") && v)
            ok = parse_int(v, 2, 1 << 20, &group), i++;
        else if (!strcmp(a, "--format") && v)
            format = v, i++;
        else if (!strcmp(a, "--dtype") && v)
            dtype = v, i++;
        else if (!strcmp(a, "--packing") && v)
            packing = v, i++;
        else if (!strcmp(a, "--scales") && v)
            scales = v, i++;
        else if (!strcmp(a, "-o") && v)
            out = v, i++;
        else if (a[0] != '-' && !in)
            in = a;
        else {
            cli_error("pack: unexpected argument \"%s\" (pipethreader-cli pack --help)", a);
            return EXIT_USAGE;
        }
        if (!ok) {
            cli_error("pack: %s %s: expected a whole number in range", a, v);
            return EXIT_USAGE;
        }
    }
    bool fp4 = !strcmp(format, "fp4-e2m1");
    bool f16 = !strcmp(dtype, "f16");
    if (!in || !out || !n || !k) {
        cli_error("pack: expected IN --rows N --cols K -o PREFIX (pipethreader-cli pack --help)");
        return EXIT_USAGE;
    }
    if (!fp4 && strcmp(format, "int4")) {
        cli_error("pack: --format %s; expected int4 or fp4-e2m1", format);
        return EXIT_USAGE;
    }
    if (!f16 && strcmp(dtype, "bf16")) {
        cli_error("pack: --dtype %s; expected bf16 or f16", dtype);
        return EXIT_USAGE;
    }
    bool exact = !strcmp(scales, "exact");
    if (!exact && strcmp(scales, "padded")) {
        cli_error("pack: --scales %s; expected padded or exact", scales);
        return EXIT_USAGE;
    }
    pt_packing pk;
    if (!pt_packing_parse(packing, &pk)) {
        cli_error("pack: --packing %s; expected rows or fragments", packing);
        return EXIT_USAGE;
    }
    pt_error perr = {{0}};
    if (!pt_packing_fits(pk, n, k, "pack: --rows/--cols", &perr)) {
        cli_error("%s", perr.msg);
        return EXIT_INVALID;
    }
    if (k % 2 || k % group) {
        cli_error("pack: --cols %lld must be even and a multiple of --group %lld", k, group);
        return EXIT_INVALID;
    }
    FILE *f = fopen(in, "rb");
    if (!f) {
        cli_error("%s: cannot open: %s", in, strerror(errno));
        return EXIT_INVALID;
    }
    size_t count = (size_t)n * (size_t)k;
    /* a row of scales: K / G of them, padded with zeros to whole 16 bytes unless --scales exact
     * (the examples declare the padded rows, which TMA maps as they lie: graph_load.c) */
    long long groups = k / group, pitch = exact ? groups : (groups + 7) / 8 * 8;
    uint16_t *w = malloc(count * 2);
    uint8_t *q = calloc(count / 2 + 1, 1);
    uint16_t *s = calloc((size_t)n * (size_t)pitch, 2);
    if (!w || !q || !s) {
        fclose(f);
        free(w), free(q), free(s);
        cli_error("pack: out of memory for a %lld x %lld matrix", n, k);
        return EXIT_INVALID;
    }
    size_t got = fread(w, 2, count, f);
    int extra = fgetc(f);
    fclose(f);
    int rc = EXIT_OK;
    if (got != count || extra != EOF) {
        cli_error("%s: holds %s %zu bytes; expected exactly %lld x %lld %s elements (%zu bytes, "
                  "row-major, little-endian)", in, got != count ? "only" : "more than",
                  got != count ? got * 2 : count * 2 + 1, n, k, dtype, count * 2);
        rc = EXIT_INVALID;
    }
    double err2 = 0, ref2 = 0;
    for (long long r = 0; rc == EXIT_OK && r < n; r++)
        for (long long g = 0; g < k / group; g++) {
            const uint16_t *row = w + r * k + g * group;
            float amax = 0;
            for (long long j = 0; j < group; j++) {
                float x = f16 ? f16_to_f32(row[j]) : bf16_to_f32(row[j]);
                if (!isfinite(x)) {
                    cli_error("%s: element [%lld, %lld] is not finite", in, r, g * group + j);
                    rc = EXIT_INVALID;
                    break;
                }
                amax = fabsf(x) > amax ? fabsf(x) : amax;
            }
            if (rc != EXIT_OK)
                break;
            uint16_t sh = f16 ? f32_to_f16(amax / (fp4 ? 6.f : 7.f))
                              : f32_to_bf16(amax / (fp4 ? 6.f : 7.f));
            float sc = f16 ? f16_to_f32(sh) : bf16_to_f32(sh);
            if (sc == 0) { /* an all-zero group: any scale gives zeros; 1 keeps it finite */
                sh = f16 ? 0x3c00 : 0x3f80;
                sc = 1;
            }
            s[r * pitch + g] = sh;
            for (long long j = 0; j < group; j++) {
                float x = f16 ? f16_to_f32(row[j]) : bf16_to_f32(row[j]);
                unsigned v = quantise(x / sc, fp4);
                size_t e = (size_t)pt_packed_nibble(pk, r, g * group + j, k);
                q[e / 2] = (uint8_t)(e % 2 ? (q[e / 2] & 0x0f) | (v << 4) : (q[e / 2] & 0xf0) | v);
                double d = nibble_value(v, fp4) * sc - x;
                err2 += d * d;
                ref2 += (double)x * x;
            }
        }
    char path[4096];
    const struct {
        const char *ext;
        const void *data;
        size_t bytes;
    } files[2] = {{"wq", q, count / 2}, {"ws", s, (size_t)n * (size_t)pitch * 2}};
    for (int i = 0; rc == EXIT_OK && i < 2; i++) {
        snprintf(path, sizeof path, "%s.%s", out, files[i].ext);
        FILE *o = fopen(path, "wb");
        if (!o || fwrite(files[i].data, 1, files[i].bytes, o) != files[i].bytes || fclose(o)) {
            cli_error("%s: write failed: %s", path, strerror(errno));
            rc = EXIT_INVALID;
        }
    }
    if (rc == EXIT_OK)
        printf("packed %lld x %lld %s weights as %s (%s packing) with one %s scale per %lld along k: "
               "%s.wq (%zu bytes, Wq [%lld, %lld]), %s.ws (%zu bytes, Ws [%lld, %lld]); relative RMS "
               "error of the dequantised weights %.4f\n", n, k, dtype, format, pt_packing_name(pk), dtype, group, out,
               count / 2, n, k, out, (size_t)n * (size_t)pitch * 2, n, pitch,
               ref2 > 0 ? sqrt(err2 / ref2) : 0.0);
    free(w);
    free(q);
    free(s);
    return rc;
}
