/* bundle.c — the standalone bundle: generated kernel, its reference, a checking and timing
 * harness, a Makefile that needs only nvcc, and a README.
 *
 * Layout of DIR:
 *   kernel.cu, launch.c          the backend's kernel and host launcher (pt_kernel_launch)
 *   reference.cu, reference_host.c  the f32 reference (pt_reference_run)
 *   harness.c                    generic driver-API main + a generated table of the graph's tensors
 *   Makefile, README.md
 * The harness's fixed part is kept below as text (arrays of lines); only the table of tensors,
 * sizes, tolerances and launch numbers is generated per graph. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "codegen.h"
#include "strbuf.h"
#include "json_util.h"
#include "trace_abi.h"

/* The harness sizes the trace buffer with these numbers (it stands alone, without
 * trace_abi.h): keep them in step. */
_Static_assert(sizeof(pt_trace_header) == 64, "harness trace_buffer_bytes: header is 64 bytes");
_Static_assert(sizeof(pt_trace_role_header) == 48, "harness trace_buffer_bytes: role header is 48 bytes");
_Static_assert(sizeof(pt_trace_record) == 16, "harness trace_buffer_bytes: a record is 16 bytes");

#define BUNDLE_PATH_MAX 4096

/* A C string literal (quotes included) holding s. */
static void sb_cstr(strbuf *b, const char *s)
{
    sb_printf(b, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            sb_printf(b, "\\%c", c);
        else if (c < 32 || c >= 127)
            sb_printf(b, "\\%03o", c); /* octal: never swallows the next character */
        else
            sb_printf(b, "%c", c);
    }
    sb_printf(b, "\"");
}

/* ---- BEGIN fixed harness text ---- */
/* Kept as lines of C so that the generator needs no template files at run time; the codegen
 * test suite compiles the assembled harness.c with -Wall -Wextra -Werror. */

/* Before the generated table: includes, the generated host code's entry points, the table's types. */
static const char *const harness_prelude[] = {
    "#include <cuda.h>",
    "#include <errno.h>",
    "#include <math.h>",
    "#include <stdarg.h>",
    "#include <stdbool.h>",
    "#include <stdint.h>",
    "#include <stdio.h>",
    "#include <stdlib.h>",
    "#include <string.h>",
    "",
    "/* The generated host code: launch.c (the kernel under test), reference_host.c (the f32",
    " * reference). Both take one device pointer per graph tensor (\"slot\"). */",
    "int pt_kernel_launch(CUmodule mod, const CUdeviceptr *slots, CUstream stream);",
    "int pt_reference_run(CUmodule mod, const CUdeviceptr *slots, CUstream stream);",
    "/* The instrumented build (kernel_trace.cubin, -DPT_TRACE): the layout of its trace buffer",
    " * (codegen/trace_abi.h in PipeThreader) and its launch. Weak: a launcher without them",
    " * still links, and --trace then says so. */",
    "void pt_kernel_trace_layout(unsigned *n_ctas, unsigned *n_roles, unsigned *cap, unsigned *stride,",
    "                            unsigned *grid) __attribute__((weak));",
    "int pt_kernel_launch_traced(CUmodule mod, const CUdeviceptr *slots, CUdeviceptr trace,",
    "                            CUstream stream) __attribute__((weak));",
    "",
    "enum { DT_F16, DT_BF16, DT_F32, DT_FP8_E4M3, DT_INT4, DT_FP4_E2M1 };",
    "enum { ROLE_INPUT, ROLE_OUTPUT, ROLE_INTERMEDIATE };",
    "",
    "#define MAX_RANK 6",
    "",
    "typedef struct {",
    "    const char *name;",
    "    int dtype;            /* graph dtype: inputs are stored in it, the kernel writes outputs in it */",
    "    int role;",
    "    int view_of;          /* tensor whose storage this view re-indexes, or -1 */",
    "    int is_scales;        /* group scales of a 4-bit tensor: random in [0.5, 1.5) */",
    "    long long elems;",
    "    int rank;",
    "    const char *axis[MAX_RANK];",
    "    long long extent[MAX_RANK];",
    "    double atol, rtol;    /* default tolerance when this is an output */",
    "} tensor_info;",
};

/* After the table: conversions, random inputs, options, check, timing, main. */
static const char *const harness_body[] = {
    "/* ---- element types, converted by hand (plain C: no CUDA half headers) ---- */",
    "",
    "static float bits_to_f32(uint32_t x)",
    "{",
    "    float f;",
    "    memcpy(&f, &x, sizeof f);",
    "    return f;",
    "}",
    "",
    "/* f32 -> f16, round to nearest even; overflow gives infinity. */",
    "static uint16_t f32_to_f16(float f)",
    "{",
    "    uint32_t x;",
    "    memcpy(&x, &f, sizeof x);",
    "    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);",
    "    uint32_t ax = x & 0x7fffffffu;",
    "    if (ax > 0x7f800000u)",
    "        return (uint16_t)(sign | 0x7e00u); /* NaN */",
    "    int e = (int)(ax >> 23) - 127;",
    "    if (e > 15)",
    "        return (uint16_t)(sign | 0x7c00u); /* too large (or infinity) */",
    "    uint32_t m = (ax & 0x7fffffu) | 0x800000u; /* with the implicit bit */",
    "    int shift = e >= -14 ? 13 : 13 + (-14 - e); /* bits dropped from the 24-bit significand */",
    "    if (ax == 0 || shift > 24)",
    "        return sign;",
    "    uint32_t h = m >> shift, rest = m & ((1u << shift) - 1), half = 1u << (shift - 1);",
    "    if (e >= -14)",
    "        h = ((uint32_t)(e + 15) << 10) | (h & 0x3ffu);",
    "    if (rest > half || (rest == half && (h & 1u)))",
    "        h++; /* a carry into the exponent is the correct rounding, up to infinity */",
    "    return (uint16_t)(sign | h);",
    "}",
    "",
    "static float f16_to_f32(uint16_t h)",
    "{",
    "    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 31u, m = h & 0x3ffu;",
    "    if (e == 31)",
    "        return bits_to_f32(sign | 0x7f800000u | (m << 13));",
    "    if (e == 0) {",
    "        float v = ldexpf((float)m, -24);",
    "        return sign ? -v : v;",
    "    }",
    "    return bits_to_f32(sign | ((e + 112) << 23) | (m << 13));",
    "}",
    "",
    "/* f32 -> bf16, round to nearest even. */",
    "static uint16_t f32_to_bf16(float f)",
    "{",
    "    uint32_t x;",
    "    memcpy(&x, &f, sizeof x);",
    "    if ((x & 0x7fffffffu) > 0x7f800000u)",
    "        return (uint16_t)((x >> 16) | 0x40u); /* keep NaN a NaN */",
    "    x += 0x7fffu + ((x >> 16) & 1u);",
    "    return (uint16_t)(x >> 16);",
    "}",
    "",
    "static float bf16_to_f32(uint16_t h)",
    "{",
    "    return bits_to_f32((uint32_t)h << 16);",
    "}",
    "",
    "/* fp8 e4m3, OCP \"fn\" variant: bias 7, no infinities, S.1111.111 is NaN. */",
    "static float fp8_to_f32(uint8_t v)",
    "{",
    "    int e = (v >> 3) & 15, m = v & 7;",
    "    if (e == 15 && m == 7)",
    "        return NAN;",
    "    float mag = e == 0 ? ldexpf((float)m, -9) : ldexpf((float)(8 + m), e - 10);",
    "    return (v & 0x80) ? -mag : mag;",
    "}",
    "",
    "/* f32 -> fp8 e4m3, round to nearest even, saturating at 448. */",
    "static uint8_t f32_to_fp8(float f)",
    "{",
    "    if (isnan(f))",
    "        return 0x7f;",
    "    uint8_t sign = signbit(f) ? 0x80 : 0;",
    "    float a = fabsf(f);",
    "    if (a >= 448.0f)",
    "        return (uint8_t)(sign | 0x7e);",
    "    int e2;",
    "    frexpf(a, &e2);",
    "    int ex = e2 - 1 < -6 ? -6 : e2 - 1; /* a in [2^ex, 2^(ex+1)); subnormals share 2^-6 */",
    "    int m = (int)rintf(ldexpf(a, 3 - ex)); /* eighths of 2^ex: 8..16 (0..8 subnormal) */",
    "    if (m >= 16) {",
    "        m = 8;",
    "        ex++;",
    "    }",
    "    int code = m < 8 ? m : ((ex + 7) << 3) | (m - 8);",
    "    if (code > 0x7e)",
    "        code = 0x7e;",
    "    return (uint8_t)(sign | code);",
    "}",
    "",
    "static float fp4_to_f32(int v)",
    "{",
    "    int e = (v >> 1) & 3, m = v & 1;",
    "    float mag = e == 0 ? 0.5f * (float)m : ldexpf((float)(2 + m), e - 2);",
    "    return (v & 8) ? -mag : mag;",
    "}",
    "",
    "static size_t dtype_bytes(int dtype, long long elems)",
    "{",
    "    switch (dtype) {",
    "    case DT_F16: case DT_BF16: return (size_t)elems * 2;",
    "    case DT_F32: return (size_t)elems * 4;",
    "    case DT_FP8_E4M3: return (size_t)elems;",
    "    default: return (size_t)(elems + 1) / 2; /* two 4-bit values per byte */",
    "    }",
    "}",
    "",
    "/* Element e of a host buffer holding `dtype`, as float (4-bit: the raw value, no scale). */",
    "static float host_load(const void *buf, int dtype, long long e)",
    "{",
    "    const unsigned char *b = buf;",
    "    switch (dtype) {",
    "    case DT_F16: return f16_to_f32(((const uint16_t *)buf)[e]);",
    "    case DT_BF16: return bf16_to_f32(((const uint16_t *)buf)[e]);",
    "    case DT_F32: return ((const float *)buf)[e];",
    "    case DT_FP8_E4M3: return fp8_to_f32(b[e]);",
    "    default: {",
    "        int v = (b[e >> 1] >> ((e & 1) * 4)) & 15;",
    "        return dtype == DT_INT4 ? (float)(v >= 8 ? v - 16 : v) : fp4_to_f32(v);",
    "    }",
    "    }",
    "}",
    "",
    "/* ---- seeded random inputs ---- */",
    "",
    "static uint64_t splitmix64(uint64_t *s)",
    "{",
    "    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);",
    "    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;",
    "    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;",
    "    return z ^ (z >> 31);",
    "}",
    "",
    "/* Uniform in [lo, hi) from 24 random bits (exact in f32). */",
    "static float uniform(uint64_t *s, float lo, float hi)",
    "{",
    "    return lo + (hi - lo) * (float)((double)(splitmix64(s) >> 40) / 16777216.0);",
    "}",
    "",
    "static void fill_random(void *buf, const tensor_info *t, int index, unsigned long long seed)",
    "{",
    "    uint64_t s = seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(index + 1));",
    "    float lo = t->is_scales ? 0.5f : -1.0f, hi = t->is_scales ? 1.5f : 1.0f;",
    "    unsigned char *b = buf;",
    "    for (long long e = 0; e < t->elems; e++) {",
    "        switch (t->dtype) {",
    "        case DT_F16: ((uint16_t *)buf)[e] = f32_to_f16(uniform(&s, lo, hi)); break;",
    "        case DT_BF16: ((uint16_t *)buf)[e] = f32_to_bf16(uniform(&s, lo, hi)); break;",
    "        case DT_F32: ((float *)buf)[e] = uniform(&s, lo, hi); break;",
    "        case DT_FP8_E4M3: b[e] = f32_to_fp8(uniform(&s, lo, hi)); break;",
    "        default: /* 4-bit: a random byte is two random nibbles */",
    "            if ((e & 1) == 0)",
    "                b[e >> 1] = (unsigned char)(splitmix64(&s) >> 56);",
    "            break;",
    "        }",
    "    }",
    "}",
    "",
    "/* ---- errors ---- */",
    "",
    "static bool json_only;",
    "",
    "/* A failed CUDA call ends the run: one line naming the call, exit status 1. */",
    "static void cu_check(CUresult rc, const char *call)",
    "{",
    "    if (rc == CUDA_SUCCESS)",
    "        return;",
    "    const char *name = NULL, *text = NULL;",
    "    if (cuGetErrorName(rc, &name) != CUDA_SUCCESS)",
    "        name = NULL;",
    "    if (cuGetErrorString(rc, &text) != CUDA_SUCCESS)",
    "        text = NULL;",
    "    fprintf(stderr, \"harness: %s failed: %s (%s, code %d)\\n\", call,",
    "            name ? name : \"unknown error\", text ? text : \"no description\", (int)rc);",
    "    exit(1);",
    "}",
    "",
    "static void *xmalloc(size_t n, const char *what)",
    "{",
    "    void *p = malloc(n ? n : 1);",
    "    if (!p) {",
    "        fprintf(stderr, \"harness: out of host memory (%zu bytes for %s)\\n\", n, what);",
    "        exit(1);",
    "    }",
    "    return p;",
    "}",
    "",
    "static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));",
    "",
    "/* Human-readable progress on stderr (stdout carries only the JSON line). */",
    "static void note(const char *fmt, ...)",
    "{",
    "    if (json_only)",
    "        return;",
    "    va_list ap;",
    "    va_start(ap, fmt);",
    "    vfprintf(stderr, fmt, ap);",
    "    va_end(ap);",
    "}",
    "",
    "/* Progress for a supervising process (--progress): which step is running, so that a hang",
    " * or a fault can be reported with it. */",
    "static bool progress;",
    "",
    "static void step(const char *name)",
    "{",
    "    if (!progress)",
    "        return;",
    "    fprintf(stderr, \"PT-STEP %s\\n\", name);",
    "    fflush(stderr);",
    "}",
    "",
    "/* ---- options ---- */",
    "",
    "typedef struct {",
    "    unsigned long long seed;",
    "    long long warmup, iters, rotate; /* rotate 0: choose */",
    "    double atol, rtol;               /* < 0: by dtype */",
    "    bool check, time;",
    "    const char *trace_path;          /* --trace FILE: the instrumented build's device buffer */",
    "    bool progress;                   /* --progress: \"PT-STEP name\" lines on stderr */",
    "} options;",
    "",
    "static void usage(FILE *f)",
    "{",
    "    fprintf(f,",
    "            \"usage: harness [--seed N] [--warmup N] [--iters N] [--rotate K] [--atol X] [--rtol X]\\n\"",
    "            \"               [--check-only | --no-check] [--json-only] [--trace FILE] [--progress]\\n\"",
    "            \"Checks the generated kernel against the f32 reference on seeded random inputs,\\n\"",
    "            \"then times it. --trace FILE also times the instrumented build (kernel_trace.cubin,\\n\"",
    "            \"'make trace') and writes the device buffer of one instrumented launch to FILE.\\n\"",
    "            \"One JSON line on stdout; exit 0 correct, 3 wrong results, 1 CUDA error,\\n\"",
    "            \"2 wrong usage.\\n\");",
    "}",
    "",
    "static bool parse_ll(const char *opt, const char *v, long long lo, long long hi, long long *out)",
    "{",
    "    char *end;",
    "    long long x = strtoll(v, &end, 0);",
    "    if (!*v || *end || x < lo || x > hi) {",
    "        fprintf(stderr, \"harness: %s %s: expected a whole number from %lld to %lld\\n\", opt, v, lo,",
    "                hi);",
    "        return false;",
    "    }",
    "    *out = x;",
    "    return true;",
    "}",
    "",
    "static bool parse_tol(const char *opt, const char *v, double *out)",
    "{",
    "    char *end;",
    "    double x = strtod(v, &end);",
    "    if (!*v || *end || !(x >= 0) || !isfinite(x)) {",
    "        fprintf(stderr, \"harness: %s %s: expected a number >= 0\\n\", opt, v);",
    "        return false;",
    "    }",
    "    *out = x;",
    "    return true;",
    "}",
    "",
    "static int parse_options(int argc, char **argv, options *o)",
    "{",
    "    for (int i = 1; i < argc; i++) {",
    "        const char *a = argv[i], *eq = strchr(a, '=');",
    "        char flag[32];",
    "        snprintf(flag, sizeof flag, \"%.*s\", eq ? (int)(eq - a) : (int)strlen(a), a);",
    "        bool takes = !strcmp(flag, \"--seed\") || !strcmp(flag, \"--warmup\") ||",
    "                     !strcmp(flag, \"--iters\") || !strcmp(flag, \"--rotate\") ||",
    "                     !strcmp(flag, \"--atol\") || !strcmp(flag, \"--rtol\") ||",
    "                     !strcmp(flag, \"--trace\");",
    "        const char *v = NULL;",
    "        if (takes) {",
    "            if (eq)",
    "                v = eq + 1;",
    "            else if (i + 1 < argc)",
    "                v = argv[++i];",
    "            else {",
    "                fprintf(stderr, \"harness: %s needs a value\\n\", flag);",
    "                return 2;",
    "            }",
    "        } else if (eq) {",
    "            fprintf(stderr, \"harness: %s takes no value\\n\", flag);",
    "            return 2;",
    "        }",
    "        long long x;",
    "        if (!strcmp(flag, \"--seed\")) {",
    "            char *end;",
    "            o->seed = strtoull(v, &end, 0);",
    "            if (!*v || *end) {",
    "                fprintf(stderr, \"harness: --seed %s: expected a whole number\\n\", v);",
    "                return 2;",
    "            }",
    "        } else if (!strcmp(flag, \"--warmup\")) {",
    "            if (!parse_ll(flag, v, 0, 1000000, &o->warmup))",
    "                return 2;",
    "        } else if (!strcmp(flag, \"--iters\")) {",
    "            if (!parse_ll(flag, v, 1, 1000000, &o->iters))",
    "                return 2;",
    "        } else if (!strcmp(flag, \"--rotate\")) {",
    "            if (!parse_ll(flag, v, 1, 1024, &x))",
    "                return 2;",
    "            o->rotate = x;",
    "        } else if (!strcmp(flag, \"--atol\")) {",
    "            if (!parse_tol(flag, v, &o->atol))",
    "                return 2;",
    "        } else if (!strcmp(flag, \"--rtol\")) {",
    "            if (!parse_tol(flag, v, &o->rtol))",
    "                return 2;",
    "        } else if (!strcmp(flag, \"--check-only\"))",
    "            o->time = false;",
    "        else if (!strcmp(flag, \"--no-check\"))",
    "            o->check = false;",
    "        else if (!strcmp(flag, \"--json-only\"))",
    "            json_only = true;",
    "        else if (!strcmp(flag, \"--progress\"))",
    "            o->progress = true;",
    "        else if (!strcmp(flag, \"--trace\")) {",
    "            if (!*v) {",
    "                fprintf(stderr, \"harness: --trace needs a file name\\n\");",
    "                return 2;",
    "            }",
    "            o->trace_path = v;",
    "        }",
    "        else if (!strcmp(flag, \"--help\") || !strcmp(flag, \"-h\")) {",
    "            usage(stdout);",
    "            return 0;",
    "        } else {",
    "            fprintf(stderr, \"harness: unknown option \\\"%s\\\"\\n\", a);",
    "            usage(stderr);",
    "            return 2;",
    "        }",
    "    }",
    "    if (!o->check && !o->time) {",
    "        fprintf(stderr, \"harness: --check-only and --no-check leave nothing to do\\n\");",
    "        return 2;",
    "    }",
    "    if (o->trace_path && !o->time) {",
    "        fprintf(stderr, \"harness: --trace needs timing; drop --check-only\\n\");",
    "        return 2;",
    "    }",
    "    return -1; /* go on */",
    "}",
    "",
    "/* ---- JSON ---- */",
    "",
    "static void json_str(const char *s)",
    "{",
    "    putchar('\"');",
    "    for (; *s; s++) {",
    "        unsigned char c = (unsigned char)*s;",
    "        if (c == '\"' || c == '\\\\')",
    "            printf(\"\\\\%c\", c);",
    "        else if (c < 32)",
    "            printf(\"\\\\u%04x\", c);",
    "        else",
    "            putchar(c);",
    "    }",
    "    putchar('\"');",
    "}",
    "",
    "/* A number, or null when there is none (JSON has no NaN or infinity). */",
    "static void json_num(double v, bool have)",
    "{",
    "    if (have && isfinite(v))",
    "        printf(\"%.6g\", v);",
    "    else",
    "        printf(\"null\");",
    "}",
    "",
    "/* ---- check ---- */",
    "",
    "typedef struct {",
    "    long long mismatches, elements;",
    "    int rel_fail;  /* outputs whose relative error ||out - ref|| / ||ref|| exceeds rtol */",
    "    double max_abs, err2, ref2;",
    "    bool finite; /* no NaN/inf difference seen */",
    "} check_result;",
    "",
    "static void coords(const tensor_info *t, long long e, char *out, size_t cap)",
    "{",
    "    long long c[MAX_RANK];",
    "    for (int i = t->rank - 1; i >= 0; i--) {",
    "        c[i] = e % t->extent[i];",
    "        e /= t->extent[i];",
    "    }",
    "    size_t n = (size_t)snprintf(out, cap, \"%s[\", t->name);",
    "    for (int i = 0; i < t->rank && n < cap; i++)",
    "        n += (size_t)snprintf(out + n, cap - n, \"%s%s=%lld\", i ? \", \" : \"\", t->axis[i], c[i]);",
    "    if (n < cap)",
    "        snprintf(out + n, cap - n, \"]\");",
    "}",
    "",
    "static void compare(const tensor_info *t, const float *ref, const void *out, double atol,",
    "                    double rtol, check_result *r)",
    "{",
    "    long long bad = 0;",
    "    double e2 = 0, r2 = 0;",
    "    for (long long e = 0; e < t->elems; e++) {",
    "        double o = host_load(out, t->dtype, e), x = ref[e];",
    "        double d = o == x ? 0.0 : fabs(o - x); /* equal infinities differ by 0 */",
    "        bool ok = d <= atol + rtol * fabs(x);  /* false for any NaN */",
    "        if (!isfinite(d))",
    "            r->finite = false;",
    "        else {",
    "            if (d > r->max_abs)",
    "                r->max_abs = d;",
    "            e2 += d * d;",
    "        }",
    "        if (isfinite(x))",
    "            r2 += x * x;",
    "        if (!ok) {",
    "            if (r->mismatches < 5) {",
    "                char where[512];",
    "                coords(t, e, where, sizeof where);",
    "                note(\"  mismatch %s: kernel %.7g, reference %.7g, |diff| %.3g > %.3g\\n\", where,",
    "                     o, x, d, atol + rtol * fabs(x));",
    "            }",
    "            r->mismatches++;",
    "            bad++;",
    "        }",
    "    }",
    "    r->elements += t->elems;",
    "    r->err2 += e2;",
    "    r->ref2 += r2;",
    "    /* Elementwise bounds alone are weak where outputs are small next to atol (attention",
    "     * outputs are averages): the whole tensor must also be within rtol in the 2-norm. */",
    "    double rel = r2 > 0 ? sqrt(e2 / r2) : (e2 > 0 ? INFINITY : 0.0);",
    "    bool rel_ok = rel <= rtol && r->finite;",
    "    if (!rel_ok)",
    "        r->rel_fail++;",
    "    note(\"check %s: %lld of %lld elements outside |out - ref| <= %g + %g*|ref|; \"",
    "         \"||out - ref|| / ||ref|| = %.3g%s\\n\", t->name, bad, t->elems, atol, rtol, rel,",
    "         rel_ok ? \"\" : \" (above rtol)\");",
    "}",
    "",
    "/* ---- CUPTI kernel activity (make CUPTI=1) ---- */",
    "",
    "/* Kernel records of the generated kernel. Each step (plain timing, instrumented timing, the",
    " * traced launch) is a window of CUPTI timestamps between stream synchronisations: a record",
    " * belongs to the step whose window holds its start, whenever CUPTI delivers it. */",
    "enum { PH_OTHER, PH_PLAIN, PH_TRACED_TIMED, PH_TRACE, PH_COUNT };",
    "",
    "typedef struct {",
    "    uint64_t start, end;          /* ns, the GPU timestamp %globaltimer also reads */",
    "    int phase;",
    "    int registers;",
    "    long long smem;               /* static + dynamic shared memory */",
    "    long long grid, block;",
    "} kernel_record;",
    "",
    "static kernel_record *krec;",
    "static size_t n_krec;",
    "static int cupti_phase = PH_OTHER;",
    "static uint64_t phase_begin[PH_COUNT], phase_end[PH_COUNT];",
    "static bool cupti_on;             /* activity collection works */",
    "",
    "#ifdef PT_CUPTI",
    "#include <cupti.h>",
    "",
    "static size_t cap_krec;",
    "#if CUPTI_API_VERSION >= 130000",
    "typedef CUpti_ActivityKernel10 cupti_kernel_activity;",
    "#else",
    "typedef CUpti_ActivityKernel9 cupti_kernel_activity;",
    "#endif",
    "",
    "static void CUPTIAPI cupti_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)",
    "{",
    "    *size = 1u << 20;",
    "    *buffer = malloc(*size); /* malloc's alignment satisfies CUPTI's 8 bytes */",
    "    *max_records = 0;",
    "}",
    "",
    "static void CUPTIAPI cupti_buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buffer,",
    "                                            size_t size, size_t valid)",
    "{",
    "    (void)ctx;",
    "    (void)stream_id;",
    "    (void)size;",
    "    CUpti_Activity *r = NULL;",
    "    while (buffer && cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS) {",
    "        if (r->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && r->kind != CUPTI_ACTIVITY_KIND_KERNEL)",
    "            continue;",
    "        const cupti_kernel_activity *k = (const cupti_kernel_activity *)r;",
    "        if (!k->name || strcmp(k->name, KERNEL_NAME) != 0)",
    "            continue;",
    "        if (n_krec == cap_krec) {",
    "            size_t cap = cap_krec ? 2 * cap_krec : 256;",
    "            kernel_record *nk = realloc(krec, cap * sizeof *nk);",
    "            if (!nk)",
    "                break;",
    "            krec = nk;",
    "            cap_krec = cap;",
    "        }",
    "        kernel_record *o = &krec[n_krec++];",
    "        o->start = k->start;",
    "        o->end = k->end;",
    "        o->phase = PH_OTHER; /* classified by phase_of() once every record is in */",
    "        o->registers = k->registersPerThread;",
    "        o->smem = (long long)k->staticSharedMemory + k->dynamicSharedMemory;",
    "        o->grid = (long long)k->gridX * k->gridY * k->gridZ;",
    "        o->block = (long long)k->blockX * k->blockY * k->blockZ;",
    "    }",
    "    free(buffer);",
    "}",
    "",
    "static bool cupti_ok(CUptiResult rc, const char *call)",
    "{",
    "    if (rc == CUPTI_SUCCESS)",
    "        return true;",
    "    const char *text = NULL;",
    "    if (cuptiGetResultString(rc, &text) != CUPTI_SUCCESS)",
    "        text = NULL;",
    "    fprintf(stderr, \"harness: %s failed: %s (code %d); no CUPTI numbers\\n\", call,",
    "            text ? text : \"unknown error\", (int)rc);",
    "    return false;",
    "}",
    "",
    "static void cupti_start(void)",
    "{",
    "    cupti_on = cupti_ok(cuptiActivityRegisterCallbacks(cupti_buffer_requested, cupti_buffer_completed),",
    "                        \"cuptiActivityRegisterCallbacks\") &&",
    "               cupti_ok(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),",
    "                        \"cuptiActivityEnable(CONCURRENT_KERNEL)\");",
    "}",
    "",
    "/* Close the window of the step that ends (the stream is synchronised) and open `next`'s. */",
    "static void cupti_step(int next)",
    "{",
    "    uint64_t t = 0;",
    "    if (cupti_on)",
    "        cupti_on = cupti_ok(cuptiGetTimestamp(&t), \"cuptiGetTimestamp\");",
    "    phase_end[cupti_phase] = t;",
    "    phase_begin[next] = t;",
    "    cupti_phase = next;",
    "}",
    "",
    "/* The step a record belongs to. */",
    "static int phase_of(const kernel_record *r)",
    "{",
    "    for (int p = PH_PLAIN; p < PH_COUNT; p++)",
    "        if (phase_end[p] > phase_begin[p] && r->start >= phase_begin[p] && r->start <= phase_end[p])",
    "            return p;",
    "    return PH_OTHER;",
    "}",
    "",
    "/* Every record delivered (a blocking, forced flush), then each tagged with its step. */",
    "static void cupti_stop(void)",
    "{",
    "    cupti_step(PH_OTHER);",
    "    if (cupti_on) {",
    "        cupti_on = cupti_ok(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED),",
    "                            \"cuptiActivityFlushAll\");",
    "        cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);",
    "    }",
    "    for (size_t i = 0; i < n_krec; i++)",
    "        krec[i].phase = phase_of(&krec[i]);",
    "}",
    "#else",
    "static void cupti_start(void)",
    "{",
    "}",
    "",
    "static void cupti_step(int next)",
    "{",
    "    phase_end[cupti_phase] = phase_begin[next] = 0;",
    "    cupti_phase = next;",
    "}",
    "",
    "static void cupti_stop(void)",
    "{",
    "}",
    "#endif",
    "",
    "/* ---- timing ---- */",
    "",
    "static int cmp_float(const void *a, const void *b)",
    "{",
    "    float x = *(const float *)a, y = *(const float *)b;",
    "    return (x > y) - (x < y);",
    "}",
    "",
    "/* The plain kernel (trace == 0) or the instrumented one writing into `trace`. */",
    "static int launch_kernel(CUmodule mod, const CUdeviceptr *slots, CUdeviceptr trace, CUstream stream)",
    "{",
    "    if (trace)",
    "        return pt_kernel_launch_traced(mod, slots, trace, stream);",
    "    return pt_kernel_launch(mod, slots, stream);",
    "}",
    "",
    "/* One launch of the kernel under test, as a CUDA graph when one was captured: replaying a",
    " * graph keeps the launcher's host work (tensor-map encoding) out of the measured time. */",
    "static bool capture(CUmodule mod, const CUdeviceptr *slots, CUdeviceptr trace, CUstream stream,",
    "                    CUgraphExec *exec)",
    "{",
    "    CUgraph graph = NULL;",
    "    if (cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_RELAXED) != CUDA_SUCCESS)",
    "        return false;",
    "    int rc = launch_kernel(mod, slots, trace, stream);",
    "    CUresult end = cuStreamEndCapture(stream, &graph);",
    "    bool ok = rc == 0 && end == CUDA_SUCCESS && graph &&",
    "              cuGraphInstantiate(exec, graph, 0) == CUDA_SUCCESS;",
    "    if (graph)",
    "        cuGraphDestroy(graph);",
    "    return ok;",
    "}",
    "",
    "static void launch(CUmodule mod, const CUdeviceptr *slots, CUdeviceptr trace, CUstream stream,",
    "                   CUgraphExec exec)",
    "{",
    "    if (exec)",
    "        cu_check(cuGraphLaunch(exec, stream), \"cuGraphLaunch\");",
    "    else",
    "        cu_check((CUresult)launch_kernel(mod, slots, trace, stream),",
    "                 trace ? \"pt_kernel_launch_traced\" : \"pt_kernel_launch\");",
    "}",
    "",
    "/* Input copies to rotate between so that inputs come from HBM, not L2: at least 2 x 60 MB",
    " * in all, at most 16 copies, and at most half the free device memory. */",
    "static long long default_rotation(size_t input_bytes)",
    "{",
    "    if (input_bytes == 0)",
    "        return 1;",
    "    size_t want = (2u * 60u * 1000u * 1000u + input_bytes - 1) / input_bytes;",
    "    if (want > 16)",
    "        want = 16;",
    "    size_t free_b = 0, total_b = 0;",
    "    if (cuMemGetInfo(&free_b, &total_b) == CUDA_SUCCESS) {",
    "        size_t fit = 1 + free_b / 2 / input_bytes; /* copy 0 is already allocated */",
    "        if (want > fit)",
    "            want = fit;",
    "    }",
    "    return want < 1 ? 1 : (long long)want;",
    "}",
    "",
    "typedef struct {",
    "    float med, tmin, tmax;",
    "    const char *mode;             /* \"graph\" or \"direct\" */",
    "} timing;",
    "",
    "/* Warm-up, then o->iters launches each between two events, rotating over the input copies",
    " * `all` (rotate sets of N_TENSORS slots). */",
    "static void time_kernel(CUmodule mod, const CUdeviceptr *all, long long rotate, CUdeviceptr trace,",
    "                        CUstream stream, const options *o, int phase, timing *t)",
    "{",
    "    CUgraphExec *exec = xmalloc(sizeof *exec * (size_t)rotate, \"graphs\");",
    "    memset(exec, 0, sizeof *exec * (size_t)rotate);",
    "    bool graphs = true;",
    "    for (long long k = 0; k < rotate && graphs; k++)",
    "        graphs = capture(mod, all + k * N_TENSORS, trace, stream, &exec[k]);",
    "    t->mode = \"graph\";",
    "    if (!graphs) {",
    "        note(\"timing: CUDA graph capture failed; timing direct launches (host work included)\\n\");",
    "        t->mode = \"direct\";",
    "        for (long long k = 0; k < rotate; k++)",
    "            if (exec[k]) {",
    "                cuGraphExecDestroy(exec[k]);",
    "                exec[k] = NULL;",
    "            }",
    "    }",
    "    long long it = 0;",
    "    for (long long w = 0; w < o->warmup; w++, it++)",
    "        launch(mod, all + (it % rotate) * N_TENSORS, trace, stream, exec[it % rotate]);",
    "    cu_check(cuStreamSynchronize(stream), \"cuStreamSynchronize(warm-up)\");",
    "    cupti_step(phase); /* CUPTI: only the timed launches */",
    "    CUevent *ev = xmalloc(sizeof(CUevent) * 2 * (size_t)o->iters, \"events\");",
    "    for (long long i = 0; i < 2 * o->iters; i++)",
    "        cu_check(cuEventCreate(&ev[i], CU_EVENT_DEFAULT), \"cuEventCreate\");",
    "    for (long long i = 0; i < o->iters; i++, it++) {",
    "        cu_check(cuEventRecord(ev[2 * i], stream), \"cuEventRecord\");",
    "        launch(mod, all + (it % rotate) * N_TENSORS, trace, stream, exec[it % rotate]);",
    "        cu_check(cuEventRecord(ev[2 * i + 1], stream), \"cuEventRecord\");",
    "    }",
    "    cu_check(cuStreamSynchronize(stream), trace ? \"cuStreamSynchronize(timing the instrumented kernel)\"",
    "                                                : \"cuStreamSynchronize(timing)\");",
    "    cupti_step(PH_OTHER);",
    "    float *ms = xmalloc(sizeof(float) * (size_t)o->iters, \"times\");",
    "    for (long long i = 0; i < o->iters; i++)",
    "        cu_check(cuEventElapsedTime(&ms[i], ev[2 * i], ev[2 * i + 1]), \"cuEventElapsedTime\");",
    "    qsort(ms, (size_t)o->iters, sizeof *ms, cmp_float);",
    "    t->med = o->iters % 2 ? ms[o->iters / 2] : 0.5f * (ms[o->iters / 2 - 1] + ms[o->iters / 2]);",
    "    t->tmin = ms[0];",
    "    t->tmax = ms[o->iters - 1];",
    "    for (long long i = 0; i < 2 * o->iters; i++)",
    "        cuEventDestroy(ev[i]);",
    "    for (long long k = 0; k < rotate; k++)",
    "        if (exec[k])",
    "            cuGraphExecDestroy(exec[k]);",
    "    free(ms);",
    "    free(ev);",
    "    free(exec);",
    "}",
    "",
    "/* Size of the trace buffer (codegen/trace_abi.h): a 64-byte header, then per sampled CTA and",
    " * warp role a 48-byte role header and `cap` 16-byte records. */",
    "static unsigned long long trace_buffer_bytes(unsigned n_ctas, unsigned n_roles, unsigned cap)",
    "{",
    "    return 64ull + (unsigned long long)n_ctas * n_roles * (48ull + 16ull * cap);",
    "}",
    "",
    "static int cmp_double(const void *a, const void *b)",
    "{",
    "    double x = *(const double *)a, y = *(const double *)b;",
    "    return (x > y) - (x < y);",
    "}",
    "",
    "/* \"cupti\": {...} from the records of the plain timed launches, or null. */",
    "static void json_cupti(void)",
    "{",
    "    size_t n = 0;",
    "    for (size_t i = 0; i < n_krec; i++)",
    "        n += krec[i].phase == PH_PLAIN;",
    "    if (!cupti_on || n == 0) {",
    "        printf(\"null\");",
    "        return;",
    "    }",
    "    double *ms = xmalloc(sizeof(double) * n, \"CUPTI times\");",
    "    const kernel_record *first = NULL;",
    "    size_t k = 0;",
    "    for (size_t i = 0; i < n_krec; i++)",
    "        if (krec[i].phase == PH_PLAIN) {",
    "            if (!first)",
    "                first = &krec[i];",
    "            ms[k++] = (double)(krec[i].end - krec[i].start) * 1e-6;",
    "        }",
    "    qsort(ms, n, sizeof *ms, cmp_double);",
    "    double med = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);",
    "    printf(\"{\\\"median_ms\\\": \");",
    "    json_num(med, true);",
    "    printf(\", \\\"min_ms\\\": \");",
    "    json_num(ms[0], true);",
    "    printf(\", \\\"max_ms\\\": \");",
    "    json_num(ms[n - 1], true);",
    "    printf(\", \\\"records\\\": %zu, \\\"registers\\\": %d, \\\"smem\\\": %lld, \\\"grid\\\": %lld, \\\"block\\\": %lld, \"",
    "           \"\\\"start_ns_first\\\": %llu, \\\"end_ns_first\\\": %llu}\",",
    "           n, first->registers, first->smem, first->grid, first->block,",
    "           (unsigned long long)first->start, (unsigned long long)first->end);",
    "    free(ms);",
    "}",
    "",
    "/* ---- main ---- */",
    "",
    "int main(int argc, char **argv)",
    "{",
    "    options o = {.seed = 1234, .warmup = 10, .iters = 50, .rotate = 0, .atol = -1, .rtol = -1,",
    "                 .check = true, .time = true, .trace_path = NULL, .progress = false};",
    "    int prc = parse_options(argc, argv, &o);",
    "    if (prc >= 0)",
    "        return prc;",
    "    progress = o.progress;",
    "    if (o.trace_path && (!pt_kernel_launch_traced || !pt_kernel_trace_layout)) {",
    "        fprintf(stderr, \"harness: --trace: this bundle's launch.c has no pt_kernel_launch_traced \"",
    "                        \"(regenerate the bundle with a PipeThreader that instruments kernels)\\n\");",
    "        return 2;",
    "    }",
    "",
    "    /* The cubins sit next to the harness binary. */",
    "    char dir[4096] = \".\", path[4200];",
    "    const char *slash = strrchr(argv[0], '/');",
    "    if (slash)",
    "        snprintf(dir, sizeof dir, \"%.*s\", slash == argv[0] ? 1 : (int)(slash - argv[0]), argv[0]);",
    "",
    "    step(\"init\");",
    "    cupti_start();",
    "    CUdevice dev;",
    "    CUcontext ctx;",
    "    char devname[256] = \"?\";",
    "    cu_check(cuInit(0), \"cuInit\");",
    "    cu_check(cuDeviceGet(&dev, 0), \"cuDeviceGet\");",
    "    cu_check(cuDeviceGetName(devname, (int)sizeof devname, dev), \"cuDeviceGetName\");",
    "    /* The primary context: cuCtxCreate changed its signature in CUDA 13. */",
    "    cu_check(cuDevicePrimaryCtxRetain(&ctx, dev), \"cuDevicePrimaryCtxRetain\");",
    "    cu_check(cuCtxSetCurrent(ctx), \"cuCtxSetCurrent\");",
    "    CUmodule kmod, rmod = NULL, tmod = NULL;",
    "    snprintf(path, sizeof path, \"%s/kernel.cubin\", dir);",
    "    cu_check(cuModuleLoad(&kmod, path), \"cuModuleLoad(kernel.cubin)\");",
    "    if (o.check) {",
    "        snprintf(path, sizeof path, \"%s/reference.cubin\", dir);",
    "        cu_check(cuModuleLoad(&rmod, path), \"cuModuleLoad(reference.cubin)\");",
    "    }",
    "    if (o.trace_path) {",
    "        snprintf(path, sizeof path, \"%s/kernel_trace.cubin\", dir);",
    "        cu_check(cuModuleLoad(&tmod, path), \"cuModuleLoad(kernel_trace.cubin; build it with 'make trace')\");",
    "    }",
    "    CUstream stream;",
    "    cu_check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), \"cuStreamCreate\");",
    "    note(\"harness: %s, target %s, on %s (grid %lld, block %d, smem %lld)\\n\", GRAPH_NAME, TARGET,",
    "         devname, GRID, BLOCK, SMEM);",
    "    /* Inputs: seeded random, uploaded once (copy 0). */",
    "    static CUdeviceptr in0[N_TENSORS], kout[N_TENSORS];",
    "    size_t input_bytes = 0;",
    "    for (int t = 0; t < N_TENSORS; t++) {",
    "        const tensor_info *x = &TENSORS[t];",
    "        if (x->view_of >= 0)",
    "            continue;",
    "        size_t bytes = dtype_bytes(x->dtype, x->elems);",
    "        if (x->role == ROLE_INPUT) {",
    "            void *h = xmalloc(bytes, x->name);",
    "            fill_random(h, x, t, o.seed);",
    "            cu_check(cuMemAlloc(&in0[t], bytes), \"cuMemAlloc(input)\");",
    "            cu_check(cuMemcpyHtoD(in0[t], h, bytes), \"cuMemcpyHtoD(input)\");",
    "            free(h);",
    "            input_bytes += bytes;",
    "        } else if (x->role == ROLE_OUTPUT)",
    "            cu_check(cuMemAlloc(&kout[t], bytes), \"cuMemAlloc(output)\");",
    "    }",
    "",
    "    /* The kernel's slots for input copy k: inputs, its own output buffers, no intermediates",
    "     * (the contract: only input and output slots are read), views pointing at their base. */",
    "    long long rotate = 1;",
    "    CUdeviceptr *kslots = xmalloc(sizeof(CUdeviceptr) * N_TENSORS, \"slots\");",
    "    for (int t = 0; t < N_TENSORS; t++)",
    "        kslots[t] = TENSORS[t].role == ROLE_INPUT ? in0[t] : kout[t];",
    "    for (int t = 0; t < N_TENSORS; t++)",
    "        if (TENSORS[t].view_of >= 0)",
    "            kslots[t] = kslots[TENSORS[t].view_of];",
    "",
    "    bool correct = true;",
    "    check_result cr = {0, 0, 0, 0.0, 0.0, 0.0, true};",
    "    if (o.check) {",
    "        step(\"check\");",
    "        /* Reference: f32 slots for everything an op writes. */",
    "        CUdeviceptr rslots[N_TENSORS];",
    "        for (int t = 0; t < N_TENSORS; t++) {",
    "            const tensor_info *x = &TENSORS[t];",
    "            rslots[t] = 0;",
    "            if (x->view_of < 0 && x->role == ROLE_INPUT)",
    "                rslots[t] = in0[t];",
    "            else if (x->view_of < 0)",
    "                cu_check(cuMemAlloc(&rslots[t], (size_t)x->elems * 4), \"cuMemAlloc(reference)\");",
    "        }",
    "        for (int t = 0; t < N_TENSORS; t++)",
    "            if (TENSORS[t].view_of >= 0)",
    "                rslots[t] = rslots[TENSORS[t].view_of];",
    "        cu_check((CUresult)pt_reference_run(rmod, rslots, stream), \"pt_reference_run\");",
    "        cu_check(cuStreamSynchronize(stream), \"cuStreamSynchronize(reference)\");",
    "",
    "        /* The kernel under test writes into poisoned buffers (0xFF bytes are NaN in every",
    "         * float format), so an element it never writes cannot pass. */",
    "        for (int t = 0; t < N_TENSORS; t++)",
    "            if (TENSORS[t].role == ROLE_OUTPUT && TENSORS[t].view_of < 0)",
    "                cu_check(cuMemsetD8(kout[t], 0xff, dtype_bytes(TENSORS[t].dtype,",
    "                                                               TENSORS[t].elems)),",
    "                         \"cuMemsetD8(poison)\");",
    "        cu_check((CUresult)pt_kernel_launch(kmod, kslots, stream), \"pt_kernel_launch\");",
    "        cu_check(cuStreamSynchronize(stream), \"cuStreamSynchronize(kernel)\");",
    "",
    "        for (int t = 0; t < N_TENSORS; t++) {",
    "            const tensor_info *x = &TENSORS[t];",
    "            if (x->role != ROLE_OUTPUT || x->view_of >= 0)",
    "                continue;",
    "            size_t bytes = dtype_bytes(x->dtype, x->elems);",
    "            float *ref = xmalloc((size_t)x->elems * 4, x->name);",
    "            void *out = xmalloc(bytes, x->name);",
    "            cu_check(cuMemcpyDtoH(ref, rslots[t], (size_t)x->elems * 4), \"cuMemcpyDtoH(reference)\");",
    "            cu_check(cuMemcpyDtoH(out, kout[t], bytes), \"cuMemcpyDtoH(output)\");",
    "            compare(x, ref, out, o.atol >= 0 ? o.atol : x->atol, o.rtol >= 0 ? o.rtol : x->rtol,",
    "                    &cr);",
    "            free(ref);",
    "            free(out);",
    "        }",
    "        for (int t = 0; t < N_TENSORS; t++)",
    "            if (TENSORS[t].view_of < 0 && TENSORS[t].role != ROLE_INPUT)",
    "                cu_check(cuMemFree(rslots[t]), \"cuMemFree(reference)\");",
    "        correct = cr.mismatches == 0 && cr.rel_fail == 0;",
    "    }",
    "    double rel_err = cr.ref2 > 0 ? sqrt(cr.err2 / cr.ref2) : (cr.err2 > 0 ? INFINITY : 0.0);",
    "    if (o.check)",
    "        note(\"check: %s: %lld mismatches in %lld elements, max abs err %.3g, rel err %.3g\\n\",",
    "             correct ? \"correct\" : \"WRONG\", cr.mismatches, cr.elements,",
    "             cr.finite ? cr.max_abs : INFINITY, cr.finite ? rel_err : INFINITY);",
    "",
    "    timing tp = {0, 0, 0, \"direct\"}, tt = {0, 0, 0, \"direct\"};",
    "    bool timed = o.time && correct, traced = timed && o.trace_path;",
    "    unsigned long long trace_bytes = 0;",
    "    if (timed) {",
    "        rotate = o.rotate ? o.rotate : default_rotation(input_bytes);",
    "        CUdeviceptr *all = xmalloc(sizeof(CUdeviceptr) * N_TENSORS * (size_t)rotate, \"slots\");",
    "        for (long long k = 0; k < rotate; k++) {",
    "            CUdeviceptr *s = all + k * N_TENSORS;",
    "            memcpy(s, kslots, sizeof(CUdeviceptr) * N_TENSORS);",
    "            for (int t = 0; k > 0 && t < N_TENSORS; t++) {",
    "                const tensor_info *x = &TENSORS[t];",
    "                if (x->role != ROLE_INPUT || x->view_of >= 0)",
    "                    continue;",
    "                size_t bytes = dtype_bytes(x->dtype, x->elems);",
    "                cu_check(cuMemAlloc(&s[t], bytes), \"cuMemAlloc(input copy for --rotate)\");",
    "                cu_check(cuMemcpyDtoD(s[t], in0[t], bytes), \"cuMemcpyDtoD(input copy)\");",
    "            }",
    "            for (int t = 0; t < N_TENSORS; t++)",
    "                if (TENSORS[t].view_of >= 0)",
    "                    s[t] = s[TENSORS[t].view_of];",
    "        }",
    "        step(\"time\");",
    "        time_kernel(kmod, all, rotate, 0, stream, &o, PH_PLAIN, &tp);",
    "        note(\"time: median %.4f ms (min %.4f, max %.4f) over %lld launches after %lld warm-up, \"",
    "             \"%lld input cop%s, %s launches; %.1f TFLOP/s\\n\",",
    "             tp.med, tp.tmin, tp.tmax, o.iters, o.warmup, rotate, rotate == 1 ? \"y\" : \"ies\", tp.mode,",
    "             tp.med > 0 ? USEFUL_FLOPS / (tp.med * 1e-3) / 1e12 : 0.0);",
    "",
    "        if (traced) {",
    "            /* The instrumented build: timed like the plain one (its overhead), then one",
    "             * launch into a zeroed buffer, which is what FILE receives. */",
    "            unsigned n_ctas = 0, n_roles = 0, cap = 0, stride = 0, grid = 0;",
    "            pt_kernel_trace_layout(&n_ctas, &n_roles, &cap, &stride, &grid);",
    "            trace_bytes = trace_buffer_bytes(n_ctas, n_roles, cap);",
    "            CUdeviceptr tbuf;",
    "            cu_check(cuMemAlloc(&tbuf, (size_t)trace_bytes), \"cuMemAlloc(trace buffer)\");",
    "            step(\"trace-time\");",
    "            time_kernel(tmod, all, rotate, tbuf, stream, &o, PH_TRACED_TIMED, &tt);",
    "            step(\"trace\");",
    "            cu_check(cuMemsetD8(tbuf, 0, (size_t)trace_bytes), \"cuMemsetD8(trace buffer)\");",
    "            cu_check(cuStreamSynchronize(stream), \"cuStreamSynchronize(trace buffer)\");",
    "            cupti_step(PH_TRACE);",
    "            cu_check((CUresult)pt_kernel_launch_traced(tmod, kslots, tbuf, stream), \"pt_kernel_launch_traced\");",
    "            cu_check(cuStreamSynchronize(stream), \"cuStreamSynchronize(instrumented kernel)\");",
    "            cupti_step(PH_OTHER);",
    "            unsigned char *host = xmalloc((size_t)trace_bytes, \"trace buffer\");",
    "            cu_check(cuMemcpyDtoH(host, tbuf, (size_t)trace_bytes), \"cuMemcpyDtoH(trace buffer)\");",
    "            FILE *f = fopen(o.trace_path, \"wb\");",
    "            bool wrote = f && fwrite(host, 1, (size_t)trace_bytes, f) == (size_t)trace_bytes;",
    "            if (f && fclose(f) != 0)",
    "                wrote = false;",
    "            if (!wrote) {",
    "                fprintf(stderr, \"harness: --trace %s: cannot write the trace buffer: %s\\n\",",
    "                        o.trace_path, strerror(errno));",
    "                return 1;",
    "            }",
    "            free(host);",
    "            cuMemFree(tbuf);",
    "            note(\"trace: %llu bytes (%u sampled CTAs every %u of %u, %u warp roles, %u records \"",
    "                 \"each) written to %s; instrumented kernel median %.4f ms (%+.1f%%)\\n\",",
    "                 trace_bytes, n_ctas, stride, grid, n_roles, cap, o.trace_path, tt.med,",
    "                 tp.med > 0 ? (tt.med - tp.med) / tp.med * 100.0 : 0.0);",
    "        }",
    "        for (long long k = 1; k < rotate; k++)",
    "            for (int t = 0; t < N_TENSORS; t++)",
    "                if (TENSORS[t].role == ROLE_INPUT && TENSORS[t].view_of < 0)",
    "                    cuMemFree(all[k * N_TENSORS + t]);",
    "        free(all);",
    "    }",
    "    step(\"done\");",
    "    cupti_stop();",
    "",
    "    /* The result: one JSON line. */",
    "    printf(\"{\\\"graph\\\": \");",
    "    json_str(GRAPH_NAME);",
    "    printf(\", \\\"target\\\": \");",
    "    json_str(TARGET);",
    "    printf(\", \\\"kernel\\\": \");",
    "    json_str(KERNEL_NAME);",
    "    printf(\", \\\"correct\\\": %s\", o.check ? (correct ? \"true\" : \"false\") : \"null\");",
    "    printf(\", \\\"mismatches\\\": \");",
    "    json_num((double)cr.mismatches, o.check);",
    "    printf(\", \\\"elements\\\": \");",
    "    json_num((double)cr.elements, o.check);",
    "    printf(\", \\\"max_abs_err\\\": \");",
    "    json_num(cr.max_abs, o.check && cr.finite);",
    "    printf(\", \\\"rel_err\\\": \");",
    "    json_num(rel_err, o.check && cr.finite);",
    "    printf(\", \\\"time_ms_median\\\": \");",
    "    json_num(tp.med, timed);",
    "    printf(\", \\\"time_ms_min\\\": \");",
    "    json_num(tp.tmin, timed);",
    "    printf(\", \\\"time_ms_max\\\": \");",
    "    json_num(tp.tmax, timed);",
    "    printf(\", \\\"tflops\\\": \");",
    "    json_num(tp.med > 0 ? USEFUL_FLOPS / (tp.med * 1e-3) / 1e12 : 0.0, timed && tp.med > 0 && USEFUL_FLOPS > 0);",
    "    printf(\", \\\"grid\\\": %lld, \\\"block\\\": %d, \\\"smem\\\": %lld, \\\"seed\\\": %llu\", GRID, BLOCK, SMEM,",
    "           o.seed);",
    "    printf(\", \\\"rotate\\\": \");",
    "    json_num((double)rotate, timed);",
    "    printf(\", \\\"iters\\\": \");",
    "    json_num((double)o.iters, timed);",
    "    printf(\", \\\"timing\\\": \");",
    "    if (timed)",
    "        json_str(tp.mode);",
    "    else",
    "        printf(\"null\");",
    "    printf(\", \\\"trace_time_ms_median\\\": \");",
    "    json_num(tt.med, traced);",
    "    printf(\", \\\"trace_time_ms_min\\\": \");",
    "    json_num(tt.tmin, traced);",
    "    printf(\", \\\"trace_time_ms_max\\\": \");",
    "    json_num(tt.tmax, traced);",
    "    printf(\", \\\"trace_bytes\\\": \");",
    "    json_num((double)trace_bytes, traced);",
    "    printf(\", \\\"cupti\\\": \");",
    "    json_cupti();",
    "    const kernel_record *tr = NULL;",
    "    for (size_t i = 0; i < n_krec && cupti_on; i++)",
    "        if (krec[i].phase == PH_TRACE)",
    "            tr = &krec[i];",
    "    if (tr)",
    "        printf(\", \\\"trace_kernel_start_ns\\\": %llu, \\\"trace_kernel_end_ns\\\": %llu\",",
    "               (unsigned long long)tr->start, (unsigned long long)tr->end);",
    "    else",
    "        printf(\", \\\"trace_kernel_start_ns\\\": null, \\\"trace_kernel_end_ns\\\": null\");",
    "    printf(\"}\\n\");",
    "    fflush(stdout);",
    "",
    "    for (int t = 0; t < N_TENSORS; t++) {",
    "        if (TENSORS[t].view_of >= 0)",
    "            continue;",
    "        if (in0[t])",
    "            cuMemFree(in0[t]);",
    "        if (kout[t])",
    "            cuMemFree(kout[t]);",
    "    }",
    "    free(kslots);",
    "    free(krec);",
    "    cuStreamDestroy(stream);",
    "    cuModuleUnload(kmod);",
    "    if (rmod)",
    "        cuModuleUnload(rmod);",
    "    if (tmod)",
    "        cuModuleUnload(tmod);",
    "    cuDevicePrimaryCtxRelease(dev);",
    "    return correct ? 0 : 3;",
    "}",
};

/* ---- END fixed harness text ---- */

/* ---- tolerances ---- */

/* Coarseness of a float format: the check is as loose as the coarsest format the data passes
 * through (an f32 output of a bf16 matmul carries bf16 input rounding). 4-bit inputs do not
 * count: they are exact and their dequantised tensor (f16/bf16) is what is rounded. */
static int coarseness(pt_dtype d)
{
    switch (d) {
    case PT_F16: return 1;
    case PT_BF16: return 2;
    case PT_FP8_E4M3: return 3;
    default: return 0; /* f32, 4-bit */
    }
}

static void tolerance(const pt_graph *g, double *atol, double *rtol)
{
    static const double tol[4] = {1e-3, 1e-2, 3e-2, 1.25e-1}; /* f32, f16, bf16, fp8 */
    int c = 0;
    for (int t = 0; t < g->n_tensors; t++)
        if (coarseness(g->tensors[t].dtype) > c)
            c = coarseness(g->tensors[t].dtype);
    *atol = *rtol = tol[c];
}

/* ---- harness.c ---- */

static const char *dt_enum(pt_dtype d)
{
    switch (d) {
    case PT_F16: return "DT_F16";
    case PT_BF16: return "DT_BF16";
    case PT_F32: return "DT_F32";
    case PT_FP8_E4M3: return "DT_FP8_E4M3";
    case PT_INT4: return "DT_INT4";
    default: return "DT_FP4_E2M1";
    }
}

static const char *role_enum(pt_role r)
{
    return r == PT_ROLE_INPUT ? "ROLE_INPUT" : r == PT_ROLE_OUTPUT ? "ROLE_OUTPUT"
                                                                   : "ROLE_INTERMEDIATE";
}

static void sb_lines(strbuf *b, const char *const *lines, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sb_printf(b, "%s\n", lines[i]);
}

static char *gen_harness(const pt_stask_graph *sg, const pt_codegen_result *k, const char *target)
{
    const pt_graph *g = sg->graph;
    strbuf b = {0};
    char name[PT_NAME_MAX + 8];
    sb_printf(&b,
              "/* harness.c — generated by PipeThreader for graph \"%s\", target %s.\n"
              " *\n"
              " * Seeded random inputs; the f32 reference (reference.cubin) and the kernel under "
              "test\n"
              " * (kernel.cubin) run on them; every output element is compared; then the kernel "
              "is timed\n"
              " * with CUDA events. One JSON result line on stdout (README.md lists its fields). "
              "Driver API\n"
              " * only; build with the Makefile. */\n",
              pt_codegen_comment_safe(g->name, name, sizeof name), target);
    sb_lines(&b, harness_prelude, sizeof harness_prelude / sizeof harness_prelude[0]);

    double atol, rtol;
    tolerance(g, &atol, &rtol);
    sb_printf(&b, "/* ---- the graph (generated) ---- */\n");
    sb_printf(&b, "static const char GRAPH_NAME[] = ");
    sb_cstr(&b, g->name);
    sb_printf(&b, ";\nstatic const char TARGET[] = ");
    sb_cstr(&b, target);
    sb_printf(&b, ";\n/* The kernel's entry point (CUPTI records are matched by it). */\n"
                  "static const char KERNEL_NAME[] = ");
    sb_cstr(&b, k->kernel_name);
    sb_printf(&b, ";\n/* Useful flops of the graph (matmuls; causal masks halve the masked loop). */\n"
                  "static const double USEFUL_FLOPS = %.17g;\n",
              pt_stask_graph_total_flops(sg));
    sb_printf(&b,
              "static const long long GRID = %lldLL;\n"
              "static const int BLOCK = %d;\n"
              "static const long long SMEM = %lldLL;\n",
              (long long)k->grid, k->block_threads, (long long)k->smem_bytes);
    sb_printf(&b, "#define N_TENSORS %d\n", g->n_tensors);
    sb_printf(&b, "/* name, dtype, role, view_of, is_scales, elements, rank, axes, extents, "
                  "atol, rtol */\n");
    sb_printf(&b, "static const tensor_info TENSORS[N_TENSORS] = {\n");
    for (int t = 0; t < g->n_tensors; t++) {
        const pt_tensor *x = &g->tensors[t];
        bool is_scales = false;
        for (int u = 0; u < g->n_tensors; u++)
            if (g->tensors[u].scales == t)
                is_scales = true;
        sb_printf(&b, "    {");
        sb_cstr(&b, x->name);
        sb_printf(&b, ", %s, %s, %d, %d, %lldLL, %d, {", dt_enum(x->dtype), role_enum(x->role),
                  x->view_of, is_scales ? 1 : 0, (long long)pt_tensor_elems(g, x), x->rank);
        for (int i = 0; i < x->rank; i++) {
            sb_printf(&b, "%s", i ? ", " : "");
            sb_cstr(&b, g->axes[x->axes[i]].name);
        }
        if (x->rank == 0)
            sb_printf(&b, "NULL");
        sb_printf(&b, "}, {");
        for (int i = 0; i < x->rank; i++)
            sb_printf(&b, "%s%lldLL", i ? ", " : "", (long long)g->axes[x->axes[i]].extent);
        if (x->rank == 0)
            sb_printf(&b, "0");
        sb_printf(&b, "}, %g, %g},\n", atol, rtol);
    }
    sb_printf(&b, "};\n\n");
    sb_lines(&b, harness_body, sizeof harness_body / sizeof harness_body[0]);
    return sb_take(&b); /* NULL when out of memory */
}

/* ---- Makefile ---- */

static char *gen_makefile(const pt_graph *g, const char *target)
{
    strbuf b = {0};
    char name[PT_NAME_MAX + 8];
    sb_printf(&b,
              "# Makefile — builds and runs the PipeThreader bundle of graph \"%s\" (target %s).\n"
              "# Needs only nvcc (CUDA 12.3 or newer; it drives the host C compiler) and, to run, "
              "an\n"
              "# sm_90a GPU (H100/H200).  make | make run | make check | make sass | make clean\n"
              "CUDA_PATH ?= /usr/local/cuda\n"
              "NVCC ?= nvcc\n"
              "CUOBJDUMP ?= cuobjdump\n"
              "# Extra harness arguments for 'make run', e.g. RUN_ARGS=\"--iters 200 --seed 7\"\n"
              "RUN_ARGS ?=\n"
              "# make CUPTI=1: the harness also reports CUPTI kernel activity records.\n"
              "CUPTI ?= 0\n"
              "KERNEL_FLAGS = -cubin -O3 -gencode=arch=compute_90a,code=sm_90a -lineinfo\n"
              "REFERENCE_FLAGS = -cubin -O3 -arch=sm_90\n"
              "# The driver library: link against the toolkit's stub, the driver's libcuda.so.1 "
              "is\n"
              "# loaded at run time.\n"
              "HOST_FLAGS = -O2 -I$(CUDA_PATH)/include\n"
              "HOST_LIBS = -L$(CUDA_PATH)/lib64/stubs -L$(CUDA_PATH)/lib64 -lcuda -lm\n"
              "ifeq ($(CUPTI),1)\n"
              "CUPTI_DIRS = $(CUDA_PATH)/extras/CUPTI $(CUDA_PATH)/targets/x86_64-linux "
              "$(CUDA_PATH)/targets/sbsa-linux\n"
              "CUPTI_INC = $(firstword $(foreach d,$(CUPTI_DIRS),$(if $(wildcard "
              "$(d)/include/cupti.h),$(d)/include)))\n"
              "CUPTI_LIB = $(firstword $(foreach d,$(CUPTI_DIRS),$(if $(wildcard "
              "$(d)/lib64/libcupti.so),$(d)/lib64) $(if $(wildcard $(d)/lib/libcupti.so),$(d)/lib)))\n"
              "ifeq ($(CUPTI_INC)$(CUPTI_LIB),)\n"
              "$(error CUPTI=1: no cupti.h / libcupti.so under $(CUPTI_DIRS))\n"
              "endif\n"
              "HOST_FLAGS += -DPT_CUPTI -I$(CUPTI_INC)\n"
              "HOST_LIBS += -L$(CUPTI_LIB) -lcupti -Xlinker -rpath=$(CUPTI_LIB)\n"
              "endif\n"
              "\n"
              ".PHONY: all trace run run-trace check sass clean FORCE\n"
              "\n"
              "all: kernel.cubin reference.cubin harness\n"
              "\n"
              "# The instrumented build (same flags, -DPT_TRACE): ./harness --trace FILE uses it.\n"
              "trace: kernel_trace.cubin harness\n"
              "\n"
              "# ptxas's report (registers, shared memory, spills) is kept in kernel.ptxas.txt.\n"
              "kernel.cubin: kernel.cu\n"
              "\t$(NVCC) $(KERNEL_FLAGS) -Xptxas -v -o $@ kernel.cu 2> kernel.ptxas.txt || "
              "{ cat kernel.ptxas.txt; exit 1; }\n"
              "\t@cat kernel.ptxas.txt\n"
              "\n"
              "kernel_trace.cubin: kernel.cu\n"
              "\t$(NVCC) $(KERNEL_FLAGS) -DPT_TRACE -Xptxas -v -o $@ kernel.cu 2> "
              "kernel_trace.ptxas.txt || { cat kernel_trace.ptxas.txt; exit 1; }\n"
              "\n"
              "reference.cubin: reference.cu\n"
              "\t$(NVCC) $(REFERENCE_FLAGS) -o $@ reference.cu\n"
              "\n"
              "# host.flags changes when the flags do (make CUPTI=1 after make), rebuilding the "
              "harness.\n"
              "host.flags: FORCE\n"
              "\t@echo '$(HOST_FLAGS) $(HOST_LIBS)' | cmp -s - $@ || echo '$(HOST_FLAGS) "
              "$(HOST_LIBS)' > $@\n"
              "\n"
              "harness: harness.c launch.c reference_host.c host.flags\n"
              "\t$(NVCC) $(HOST_FLAGS) -o $@ harness.c launch.c reference_host.c $(HOST_LIBS)\n"
              "\n"
              "run: all\n"
              "\t./harness $(RUN_ARGS)\n"
              "\n"
              "run-trace: all trace\n"
              "\t./harness --trace trace.bin $(RUN_ARGS)\n"
              "\n"
              "check: all\n"
              "\t./harness --check-only $(RUN_ARGS)\n"
              "\n"
              "sass: kernel.cubin\n"
              "\t$(CUOBJDUMP) --dump-sass kernel.cubin > kernel.sass\n"
              "\n"
              "clean:\n"
              "\trm -f kernel.cubin kernel_trace.cubin reference.cubin harness host.flags "
              "kernel.sass kernel.ptxas.txt kernel_trace.ptxas.txt trace.bin\n",
              pt_codegen_comment_safe(g->name, name, sizeof name), target);
    return sb_take(&b); /* NULL when out of memory */
}

/* ---- README.md ---- */

static char *gen_readme(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                        const pt_codegen_result *k, const char *target)
{
    const pt_graph *g = sg->graph;
    strbuf b = {0};
    char name[PT_NAME_MAX + 8];
    pt_codegen_comment_safe(g->name, name, sizeof name);
    double atol, rtol;
    tolerance(g, &atol, &rtol);
    sb_printf(&b, "# %s — PipeThreader bundle (target %s)\n\n", name, target);
    sb_printf(&b, "Generated by PipeThreader from the operator graph `%s` and its sProgram for "
                  "the %s hardware model.\n\n%s\n\n", name, hw->name, k->summary);
    sb_printf(&b, "| | |\n|---|---|\n| tile |");
    for (int a = 0; a < g->n_axes; a++)
        sb_printf(&b, "%s %s=%lld", a ? "," : "", g->axes[a].name, (long long)sg->tiling.tile[a]);
    sb_printf(&b, " (%d consumer warpgroup%s) |\n| stages |", sg->tiling.warpgroups,
              sg->tiling.warpgroups == 1 ? "" : "s");
    bool any = false;
    for (int t = 0; t < g->n_tensors; t++)
        if (p->stages[t] > 0) {
            sb_printf(&b, "%s %s: %d", any ? "," : "", g->tensors[t].name, p->stages[t]);
            any = true;
        }
    if (!any)
        sb_printf(&b, " none");
    sb_printf(&b, " |\n| launch | grid %lld CTAs, %d threads per CTA, %lld bytes of dynamic "
                  "shared memory (`%s`) |\n",
              (long long)k->grid, k->block_threads, (long long)k->smem_bytes, k->kernel_name);
    sb_printf(&b, "| partition | raster %s, group %d, %s |\n",
              pt_raster_name(p->partition.raster), p->partition.group,
              p->partition.persistent ? "persistent" : "one CTA per tile");
    sb_printf(&b, "| useful work | %.4g GFLOP |\n\n", pt_stask_graph_total_flops(sg) / 1e9);
    sb_printf(&b,
              "## Files\n\n"
              "- `kernel.cu`, `launch.c`: the generated kernel and its host launcher "
              "(`pt_kernel_launch`).\n"
              "- `reference.cu`, `reference_host.c`: the naive f32 reference, one kernel per op "
              "(`pt_reference_run`).\n"
              "- `harness.c`: checks the kernel against the reference, then times it.\n"
              "- `Makefile`: needs only nvcc (CUDA 12.3 or newer).\n\n"
              "## Build and run\n\n"
              "```sh\n"
              "make          # kernel.cubin (ptxas report in kernel.ptxas.txt), reference.cubin, "
              "harness\n"
              "make run      # check every output element, then time; one JSON line on stdout\n"
              "make check    # check only\n"
              "make trace    # kernel_trace.cubin: the instrumented build (-DPT_TRACE)\n"
              "make run-trace  # also time the instrumented build; its trace buffer in trace.bin\n"
              "make CUPTI=1  # the harness also reports CUPTI kernel activity records\n"
              "make sass     # kernel.sass: look for HGMMA, UTMALDG, SYNCS\n"
              "make NVCC=/path/to/nvcc CUDA_PATH=/path/to/cuda   # another toolkit\n"
              "```\n\n"
              "`./harness` options: `--seed N` (inputs; default 1234), `--warmup N` (default 10), "
              "`--iters N` (timed launches, default 50), `--rotate K` (input copies rotated so "
              "that inputs do not sit in L2; default enough for 2 x 60 MB, at most 16), "
              "`--atol X`, `--rtol X` (tolerances), `--check-only`, `--no-check` (for profilers), "
              "`--json-only` (nothing on stderr but errors), `--trace FILE` (after the plain "
              "kernel, time the instrumented build the same way and write the device buffer of "
              "one instrumented launch, raw bytes, to FILE; needs `make trace`), `--progress` "
              "(`PT-STEP name` lines on stderr as it goes, for a supervising process). Exit status: 0 correct, 3 wrong "
              "results (no timing then), 1 CUDA error (one line naming the call), 2 wrong "
              "usage.\n\n"
              "## Check\n\n"
              "Inputs are uniform in [-1, 1) (group scales in [0.5, 1.5), 4-bit values random "
              "nibbles), generated from the seed. The reference computes every op in f32; the "
              "kernel writes into output buffers first filled with 0xFF bytes (NaN), so an "
              "element it never writes fails. An element passes when "
              "|out - ref| <= atol + rtol * |ref| (NaN never passes), and each output tensor must "
              "also have ||out - ref|| / ||ref|| <= rtol. Default tolerance for this graph "
              "(set by the coarsest float format in it: f16 1e-2, bf16 3e-2, fp8 0.125, "
              "f32 only 1e-3): atol %g, rtol %g.\n\n",
              atol, rtol);
    sb_printf(&b,
              "## The JSON line\n\n"
              "| field | meaning |\n|---|---|\n"
              "| `graph`, `target` | what was built |\n"
              "| `correct` | every output element within tolerance and every output's relative error "
              "within rtol (null with `--no-check`) |\n"
              "| `mismatches`, `elements` | elements outside tolerance, elements checked |\n"
              "| `max_abs_err` | largest abs(out - ref) (null if any is NaN or infinite) |\n"
              "| `rel_err` | sqrt(sum (out - ref)^2 / sum ref^2) over all outputs |\n"
              "| `time_ms_median`, `time_ms_min`, `time_ms_max` | per launch, from CUDA events "
              "(null with `--check-only` or when wrong) |\n"
              "| `tflops` | the graph's useful flops / median time |\n"
              "| `grid`, `block`, `smem` | launch shape and dynamic shared memory |\n"
              "| `seed` | input seed |\n"
              "| `rotate`, `iters`, `timing` | input copies, timed launches, `graph` (CUDA graph "
              "replay: launcher host work excluded) or `direct` |\n"
              "| `kernel` | the kernel's entry point |\n"
              "| `trace_time_ms_median`, `trace_time_ms_min`, `trace_time_ms_max` | the instrumented "
              "build, timed like the plain one (null without `--trace`) |\n"
              "| `trace_bytes` | size of the trace buffer written to FILE |\n"
              "| `cupti` | with `make CUPTI=1`: `median_ms`, `min_ms`, `max_ms` of the plain timed "
              "launches from CUPTI kernel records, `records`, `registers` (per thread), `smem` "
              "(static + dynamic bytes), `grid`, `block`, `start_ns_first`, `end_ns_first` (GPU "
              "timestamps of the first timed launch); null otherwise |\n"
              "| `trace_kernel_start_ns`, `trace_kernel_end_ns` | CUPTI start and end of the "
              "instrumented launch whose buffer was saved (the clock `%%globaltimer` reads); "
              "null without CUPTI |\n");
    return sb_take(&b); /* NULL when out of memory */
}

/* ---- writing ---- */

/* mkdir -p: each missing component is created; an existing non-directory is an error. */
static bool make_dirs(const char *dir, pt_error *err)
{
    char path[BUNDLE_PATH_MAX];
    size_t n = strlen(dir);
    if (n == 0)
        return pt_fail(err, "bundle: the output directory name is empty");
    if (n >= sizeof path)
        return pt_fail(err, "%.80s...: directory name too long", dir);
    memcpy(path, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != 0)
            continue;
        char keep = path[i];
        path[i] = 0;
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return pt_fail(err, "%s: cannot create directory: %s", path, strerror(errno));
        path[i] = keep;
    }
    struct stat st;
    if (stat(dir, &st) != 0)
        return pt_fail(err, "%s: cannot create directory: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return pt_fail(err, "%s: exists and is not a directory", dir);
    return true;
}

static bool write_in(const char *dir, const char *file, const char *text, pt_error *err)
{
    char path[BUNDLE_PATH_MAX];
    if (!text)
        return pt_fail(err, "%s/%s: out of memory generating it", dir, file);
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, file) >= sizeof path)
        return pt_fail(err, "%.80s...: path too long", dir);
    return pt_write_file(path, text, err);
}

bool pt_codegen_bundle(const char *dir, const pt_sprogram *p, const pt_stask_graph *sg,
                       const pt_hw *hw, const char *target, pt_codegen_result *info,
                       pt_error *err)
{
    if (!target || strcmp(target, "sm90a") != 0)
        return pt_fail(err, "codegen: unknown target \"%.40s\"; valid targets: sm90a",
                       target ? target : "");
    if (strcmp(hw->arch, "sm_90a") != 0)
        return pt_fail(err, "codegen: target sm90a needs an sm_90a hardware model; \"%s\" is %s",
                       hw->name, hw->arch);
    const pt_graph *g = sg->graph;
    for (int t = 0; t < g->n_tensors; t++)
        if (g->tensors[t].role == PT_ROLE_OUTPUT && pt_dtype_is_4bit(g->tensors[t].dtype))
            return pt_fail(err, "codegen: output \"%s\" is %s; the harness checks f16, bf16, "
                                "f32 and fp8 outputs only", g->tensors[t].name,
                           pt_dtype_name(g->tensors[t].dtype));

    pt_codegen_result k, r;
    memset(&k, 0, sizeof k);
    memset(&r, 0, sizeof r);
    if (!pt_codegen_sm90a(p, sg, hw, &k, err))
        return false;
    if (!pt_codegen_reference(g, &r, err)) {
        pt_codegen_result_free(&k);
        return false;
    }
    char *harness = gen_harness(sg, &k, target);
    char *makefile = gen_makefile(g, target);
    char *readme = gen_readme(p, sg, hw, &k, target);
    bool ok = make_dirs(dir, err) && write_in(dir, "kernel.cu", k.kernel_cu, err) &&
              write_in(dir, "launch.c", k.host_c, err) &&
              write_in(dir, "reference.cu", r.kernel_cu, err) &&
              write_in(dir, "reference_host.c", r.host_c, err) &&
              write_in(dir, "harness.c", harness, err) &&
              write_in(dir, "Makefile", makefile, err) && write_in(dir, "README.md", readme, err);
    free(harness);
    free(makefile);
    free(readme);
    pt_codegen_result_free(&k);
    pt_codegen_result_free(&r);
    if (ok && info) {
        *info = k; /* launch shape and summary; the texts were freed above */
    }
    return ok;
}
