/* harness.c — the bundle's checking and timing driver (the same file in every bundle).
 *
 * Seeded random inputs; the f32 reference (reference.cubin) and the kernel under test
 * (kernel.cubin) run on them; every output element is compared; then the kernel is timed:
 * CUDA graphs of a batch of launches over rotated input copies, replayed between events.
 * With --baseline (bundles built with `make BASELINE=1`), a vendor library computing the same
 * graph on the same inputs (baseline_cublaslt.c) is checked and timed by the same code,
 * interleaved with the kernel round by round. One JSON result line on stdout (README.md lists
 * its fields). Driver API only; build with the Makefile.
 *
 * What differs between graphs is in graph_table.h, which PipeThreader generates per bundle.
 * In PipeThreader's tree this is codegen/host/harness.c, embedded into the library. */
#include <cuda.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The generated host code: launch.c (the kernel under test), reference_host.c (the f32
 * reference). Both take one device pointer per graph tensor ("slot"). */
int pt_kernel_launch(CUmodule mod, const CUdeviceptr *slots, CUstream stream);
int pt_reference_run(CUmodule mod, const CUdeviceptr *slots, CUstream stream);
/* The instrumented build (kernel_trace.cubin, -DPT_TRACE): the layout of its trace buffer
 * (codegen/trace_abi.h in PipeThreader) and its launch. Weak: a launcher without them
 * still links, and --trace then says so. */
void pt_kernel_trace_layout(unsigned *n_ctas, unsigned *n_roles, unsigned *cap, unsigned *stride,
                            unsigned *grid) __attribute__((weak));
int pt_kernel_launch_traced(CUmodule mod, const CUdeviceptr *slots, CUdeviceptr trace,
                            CUstream stream) __attribute__((weak));

#include "pt_harness.h"
#include "trace_abi.h" /* the instrumented kernel's buffer: written next to this file */

/* Host-side input generation and checking run on every core when the harness is built with
 * OpenMP (the Makefile does): a 470M-element weight takes seconds on one. */
#ifdef _OPENMP
#define PT_PARALLEL_FOR _Pragma("omp parallel for schedule(static)")
#define PT_PRAGMA(x) _Pragma(#x)
#define PT_PARALLEL_FOR_REDUCE(clauses) PT_PRAGMA(omp parallel for schedule(static) clauses)
#else
#define PT_PARALLEL_FOR
#define PT_PARALLEL_FOR_REDUCE(clauses)
#endif

#define MAX_RANK 6

typedef struct {
    const char *name;
    int dtype;            /* graph dtype: inputs are stored in it, the kernel writes outputs in it */
    int role;
    int view_of;          /* tensor whose storage this view re-indexes, or -1 */
    int init;             /* default draw: 0 uniform in [-1, 1); 1 group scales of a 4-bit tensor,
                           * in [0.5, 1.5); 2 a decay's exponent (exp_decay's input, Mamba2's
                           * dA_cumsum): running sums of U[-0.02, 0) along the innermost axis */
    long long elems;
    int rank;
    const char *axis[MAX_RANK];
    long long extent[MAX_RANK];
    double atol, rtol;    /* default tolerance when this is an output */
} tensor_info;

#include "graph_table.h"

/* ---- element types, converted by hand (plain C: no CUDA half headers) ---- */

static float bits_to_f32(uint32_t x)
{
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

/* f32 -> f16, round to nearest even; overflow gives infinity. */
static uint16_t f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u)
        return (uint16_t)(sign | 0x7e00u); /* NaN */
    int e = (int)(ax >> 23) - 127;
    if (e > 15)
        return (uint16_t)(sign | 0x7c00u); /* too large (or infinity) */
    uint32_t m = (ax & 0x7fffffu) | 0x800000u; /* with the implicit bit */
    int shift = e >= -14 ? 13 : 13 + (-14 - e); /* bits dropped from the 24-bit significand */
    if (ax == 0 || shift > 24)
        return sign;
    uint32_t h = m >> shift, rest = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (e >= -14)
        h = ((uint32_t)(e + 15) << 10) | (h & 0x3ffu);
    if (rest > half || (rest == half && (h & 1u)))
        h++; /* a carry into the exponent is the correct rounding, up to infinity */
    return (uint16_t)(sign | h);
}

static float f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 31u, m = h & 0x3ffu;
    if (e == 31)
        return bits_to_f32(sign | 0x7f800000u | (m << 13));
    if (e == 0) {
        float v = ldexpf((float)m, -24);
        return sign ? -v : v;
    }
    return bits_to_f32(sign | ((e + 112) << 23) | (m << 13));
}

/* f32 -> bf16, round to nearest even. */
static uint16_t f32_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40u); /* keep NaN a NaN */
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

static float bf16_to_f32(uint16_t h)
{
    return bits_to_f32((uint32_t)h << 16);
}

/* fp8 e4m3, OCP "fn" variant: bias 7, no infinities, S.1111.111 is NaN. */
static float fp8_to_f32(uint8_t v)
{
    int e = (v >> 3) & 15, m = v & 7;
    if (e == 15 && m == 7)
        return NAN;
    float mag = e == 0 ? ldexpf((float)m, -9) : ldexpf((float)(8 + m), e - 10);
    return (v & 0x80) ? -mag : mag;
}

/* f32 -> fp8 e4m3, round to nearest even, saturating at 448. */
static uint8_t f32_to_fp8(float f)
{
    if (isnan(f))
        return 0x7f;
    uint8_t sign = signbit(f) ? 0x80 : 0;
    float a = fabsf(f);
    if (a >= 448.0f)
        return (uint8_t)(sign | 0x7e);
    int e2;
    frexpf(a, &e2);
    int ex = e2 - 1 < -6 ? -6 : e2 - 1; /* a in [2^ex, 2^(ex+1)); subnormals share 2^-6 */
    int m = (int)rintf(ldexpf(a, 3 - ex)); /* eighths of 2^ex: 8..16 (0..8 subnormal) */
    if (m >= 16) {
        m = 8;
        ex++;
    }
    int code = m < 8 ? m : ((ex + 7) << 3) | (m - 8);
    if (code > 0x7e)
        code = 0x7e;
    return (uint8_t)(sign | code);
}

static float fp4_to_f32(int v)
{
    int e = (v >> 1) & 3, m = v & 1;
    float mag = e == 0 ? 0.5f * (float)m : ldexpf((float)(2 + m), e - 2);
    return (v & 8) ? -mag : mag;
}

static size_t dtype_bytes(int dtype, long long elems)
{
    switch (dtype) {
    case DT_F16: case DT_BF16: return (size_t)elems * 2;
    case DT_F32: return (size_t)elems * 4;
    case DT_FP8_E4M3: return (size_t)elems;
    default: return (size_t)(elems + 1) / 2; /* two 4-bit values per byte */
    }
}

/* Element e of a host buffer holding `dtype`, as float (4-bit: the raw value, no scale). */
static float host_load(const void *buf, int dtype, long long e)
{
    const unsigned char *b = buf;
    switch (dtype) {
    case DT_F16: return f16_to_f32(((const uint16_t *)buf)[e]);
    case DT_BF16: return bf16_to_f32(((const uint16_t *)buf)[e]);
    case DT_F32: return ((const float *)buf)[e];
    case DT_FP8_E4M3: return fp8_to_f32(b[e]);
    default: {
        int v = (b[e >> 1] >> ((e & 1) * 4)) & 15;
        return dtype == DT_INT4 ? (float)(v >= 8 ? v - 16 : v) : fp4_to_f32(v);
    }
    }
}

/* ---- seeded random inputs ---- */

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The n-th value (from 1) of the splitmix64 stream that starts at s0, without the n - 1 before
 * it: the stream only adds a constant to its state, so threads can fill disjoint ranges with
 * exactly the values one sequential pass would give. */
static uint64_t splitmix_nth(uint64_t s0, uint64_t n)
{
    uint64_t s = s0 + (n - 1) * 0x9e3779b97f4a7c15ull;
    return splitmix64(&s);
}

/* Uniform in [lo, hi) from 24 random bits (exact in f32). */
static float uniform_nth(uint64_t s0, uint64_t n, float lo, float hi)
{
    return lo + (hi - lo) * (float)((double)(splitmix_nth(s0, n) >> 40) / 16777216.0);
}

/* --range NAME=LO:HI: an input drawn from [LO, HI) instead of its default range, e.g. to
 * reach a kernel's rarely taken paths. --cumsum NAME=LO:HI: each row along the innermost axis
 * a running sum of such draws, as Mamba2's dA_cumsum is (increments dt * A < 0): a decay
 * exp(dA[l] - dA[s]) steep enough for its factored form to leave f32's range, while the
 * products stay bounded as in a model. */
#define MAX_RANGES 8
static struct {
    int tensor;  /* index in TENSORS */
    float lo, hi;
    bool cumsum;
} input_range[MAX_RANGES];
static int n_input_ranges;

/* Element e holds the stream's (e+1)-th draw; 4-bit byte k (two nibbles) its (k+1)-th. */
static void fill_random(void *buf, const tensor_info *t, int index, unsigned long long seed)
{
    const uint64_t s0 = seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(index + 1));
    float lo = t->init == 1 ? 0.5f : t->init == 2 ? -0.02f : -1.0f;
    float hi = t->init == 1 ? 1.5f : t->init == 2 ? 0.0f : 1.0f;
    /* An exponent drawn uniformly would make exp(dA[l] - dA[s]) grow along a row, which no
     * model's decay does: terms up to e^2 whose single bf16 rounding flips (the kernel's
     * exp against the reference's) put a few outputs in 10^7 past the check's atol. */
    bool cumsum = t->init == 2;
    for (int r = 0; r < n_input_ranges; r++)
        if (input_range[r].tensor == index) {
            lo = input_range[r].lo;
            hi = input_range[r].hi;
            cumsum = input_range[r].cumsum;
        }
    unsigned char *b = buf;
    const long long n = t->elems, bytes = (t->elems + 1) / 2;
    if (cumsum) {  /* rows of the innermost axis, each summed in order (parse_range: 16-bit, f32) */
        const long long row = t->rank > 0 && t->extent[t->rank - 1] > 0 ? t->extent[t->rank - 1] : n;
        PT_PARALLEL_FOR
        for (long long r0 = 0; r0 < n; r0 += row) {
            float acc = 0.f;
            for (long long e = r0; e < r0 + row && e < n; e++) {
                acc += uniform_nth(s0, (uint64_t)e + 1, lo, hi);
                if (t->dtype == DT_F32)
                    ((float *)buf)[e] = acc;
                else
                    ((uint16_t *)buf)[e] = t->dtype == DT_F16 ? f32_to_f16(acc) : f32_to_bf16(acc);
            }
        }
        return;
    }
    switch (t->dtype) {
    case DT_F16:
        PT_PARALLEL_FOR
        for (long long e = 0; e < n; e++)
            ((uint16_t *)buf)[e] = f32_to_f16(uniform_nth(s0, (uint64_t)e + 1, lo, hi));
        break;
    case DT_BF16:
        PT_PARALLEL_FOR
        for (long long e = 0; e < n; e++)
            ((uint16_t *)buf)[e] = f32_to_bf16(uniform_nth(s0, (uint64_t)e + 1, lo, hi));
        break;
    case DT_F32:
        PT_PARALLEL_FOR
        for (long long e = 0; e < n; e++)
            ((float *)buf)[e] = uniform_nth(s0, (uint64_t)e + 1, lo, hi);
        break;
    case DT_FP8_E4M3:
        PT_PARALLEL_FOR
        for (long long e = 0; e < n; e++)
            b[e] = f32_to_fp8(uniform_nth(s0, (uint64_t)e + 1, lo, hi));
        break;
    default: /* 4-bit: a random byte is two random nibbles */
        PT_PARALLEL_FOR
        for (long long k = 0; k < bytes; k++)
            b[k] = (unsigned char)(splitmix_nth(s0, (uint64_t)k + 1) >> 56);
        break;
    }
}

/* ---- errors ---- */

static bool json_only;

/* A failed CUDA call ends the run: one line naming the call, exit status 1. */
static void cu_check(CUresult rc, const char *call)
{
    if (rc == CUDA_SUCCESS)
        return;
    const char *name = NULL, *text = NULL;
    if (cuGetErrorName(rc, &name) != CUDA_SUCCESS)
        name = NULL;
    if (cuGetErrorString(rc, &text) != CUDA_SUCCESS)
        text = NULL;
    fprintf(stderr, "harness: %s failed: %s (%s, code %d)\n", call,
            name ? name : "unknown error", text ? text : "no description", (int)rc);
    exit(1);
}

static void *xmalloc(size_t n, const char *what)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "harness: out of host memory (%zu bytes for %s)\n", n, what);
        exit(1);
    }
    return p;
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Human-readable progress on stderr (stdout carries only the JSON line). */
static void note(const char *fmt, ...)
{
    if (json_only)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

/* Progress for a supervising process (--progress): which step is running, so that a hang
 * or a fault can be reported with it. */
static bool progress;

static void step(const char *name)
{
    if (!progress)
        return;
    fprintf(stderr, "PT-STEP %s\n", name);
    fflush(stderr);
}

/* ---- options ---- */

typedef struct {
    unsigned long long seed;
    long long warmup, iters, rotate; /* rotate 0: choose */
    long long placements;            /* fresh buffer sets the timing is repeated on */
    long long batch, replays, rounds; /* launches per graph, timed replays per round, rounds */
    double warmup_ms;                /* sustained load before the first sample */
    double atol, rtol;               /* < 0: by dtype */
    bool check, time, baseline;
    const char *trace_path;          /* --trace FILE: the instrumented build's device buffer */
    bool progress;                   /* --progress: "PT-STEP name" lines on stderr */
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: harness [--seed N] [--warmup N] [--warmup-ms T] [--iters N] [--batch N] [--rounds N]\n"
            "               [--rotate K] [--placements P]\n"
            "               [--atol X] [--rtol X] [--check-only | --no-check] [--baseline]\n"
            "               [--json-only] [--trace FILE] [--progress] [--range NAME=LO:HI]\n"
            "               [--cumsum NAME=LO:HI]\n"
            "Checks the generated kernel against the f32 reference on seeded random inputs,\n"
            "then times it: CUDA graphs of --batch launches (default 20) over --rotate input\n"
            "copies, replayed until --iters launches (default 200) are timed, per round, after\n"
            "--warmup-ms (default 200) of sustained load that lets the clocks settle.\n"
            "--placements P repeats the timing on P fresh sets of input and output buffers\n"
            "(default 1): a kernel's speed can depend on where its buffers lie in memory.\n"
            "--baseline also checks and times the vendor library on the same inputs the same\n"
            "way, alternating with the kernel for --rounds rounds (default 3; needs a harness\n"
            "built with 'make BASELINE=1'). --trace FILE also times the instrumented build\n"
            "(kernel_trace.cubin, 'make trace') and writes the device buffer of one\n"
            "instrumented launch to FILE. One JSON line on stdout; exit 0 correct, 3 wrong\n"
            "results, 1 CUDA error, 2 wrong usage. --range NAME=LO:HI draws input NAME (16-bit,\n"
            "f32 or fp8) uniformly from [LO, HI) instead of [-1, 1) (repeatable). --cumsum\n"
            "NAME=LO:HI makes each row of input NAME (16-bit or f32) along its innermost axis\n"
            "the running sum of such draws (Mamba2's dA_cumsum: LO < HI <= 0).\n");
}

static bool parse_ll(const char *opt, const char *v, long long lo, long long hi, long long *out)
{
    char *end;
    long long x = strtoll(v, &end, 0);
    if (!*v || *end || x < lo || x > hi) {
        fprintf(stderr, "harness: %s %s: expected a whole number from %lld to %lld\n", opt, v, lo,
                hi);
        return false;
    }
    *out = x;
    return true;
}

static bool parse_tol(const char *opt, const char *v, double *out)
{
    char *end;
    double x = strtod(v, &end);
    if (!*v || *end || !(x >= 0) || !isfinite(x)) {
        fprintf(stderr, "harness: %s %s: expected a number >= 0\n", opt, v);
        return false;
    }
    *out = x;
    return true;
}

/* NAME=LO:HI for --range (opt), or --cumsum (cumsum): NAME an input tensor drawn from floats
 * (not 4-bit codes; --cumsum: 16-bit or f32, whose sums are not rounded to fp8), LO < HI. */
static bool parse_input_range(const char *opt, const char *v, bool cumsum)
{
    const char *eq = strchr(v, '=');
    if (!eq || eq == v) {
        fprintf(stderr, "harness: %s %s: expected NAME=LO:HI\n", opt, v);
        return false;
    }
    int t = 0;
    for (; t < N_TENSORS; t++)
        if (strlen(TENSORS[t].name) == (size_t)(eq - v) && !strncmp(TENSORS[t].name, v, (size_t)(eq - v)))
            break;
    if (t == N_TENSORS || TENSORS[t].role != ROLE_INPUT || TENSORS[t].view_of >= 0 ||
        !(TENSORS[t].dtype == DT_F16 || TENSORS[t].dtype == DT_BF16 || TENSORS[t].dtype == DT_F32 ||
          (TENSORS[t].dtype == DT_FP8_E4M3 && !cumsum))) {
        fprintf(stderr, "harness: %s %s: \"%.*s\" is not a %s input of graph %s; inputs:",
                opt, v, (int)(eq - v), v, cumsum ? "16-bit or f32" : "16-bit, f32 or fp8", GRAPH_NAME);
        for (int u = 0; u < N_TENSORS; u++)
            if (TENSORS[u].role == ROLE_INPUT && TENSORS[u].view_of < 0)
                fprintf(stderr, " %s", TENSORS[u].name);
        fprintf(stderr, "\n");
        return false;
    }
    char *end;
    float lo = strtof(eq + 1, &end);
    if (end == eq + 1 || *end != ':') {
        fprintf(stderr, "harness: %s %s: expected NAME=LO:HI with numbers LO and HI\n", opt, v);
        return false;
    }
    const char *h = end + 1;
    float hi = strtof(h, &end);
    if (end == h || *end || !(lo < hi) || !isfinite(lo) || !isfinite(hi)) {
        fprintf(stderr, "harness: %s %s: expected NAME=LO:HI with finite numbers LO < HI\n", opt, v);
        return false;
    }
    if (n_input_ranges == MAX_RANGES) {
        fprintf(stderr, "harness: %s: at most %d (with --range and --cumsum together)\n", opt, MAX_RANGES);
        return false;
    }
    input_range[n_input_ranges].tensor = t;
    input_range[n_input_ranges].lo = lo;
    input_range[n_input_ranges].hi = hi;
    input_range[n_input_ranges].cumsum = cumsum;
    n_input_ranges++;
    return true;
}

static bool parse_range(const char *v)
{
    return parse_input_range("--range", v, false);
}

static int parse_options(int argc, char **argv, options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *eq = strchr(a, '=');
        char flag[32];
        snprintf(flag, sizeof flag, "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
        bool takes = !strcmp(flag, "--seed") || !strcmp(flag, "--warmup") ||
                     !strcmp(flag, "--iters") || !strcmp(flag, "--rotate") ||
                     !strcmp(flag, "--placements") ||
                     !strcmp(flag, "--batch") || !strcmp(flag, "--rounds") ||
                     !strcmp(flag, "--warmup-ms") ||
                     !strcmp(flag, "--atol") || !strcmp(flag, "--rtol") ||
                     !strcmp(flag, "--trace") || !strcmp(flag, "--range") ||
                     !strcmp(flag, "--cumsum");
        const char *v = NULL;
        if (takes) {
            if (eq)
                v = eq + 1;
            else if (i + 1 < argc)
                v = argv[++i];
            else {
                fprintf(stderr, "harness: %s needs a value\n", flag);
                return 2;
            }
        } else if (eq) {
            fprintf(stderr, "harness: %s takes no value\n", flag);
            return 2;
        }
        long long x;
        if (!strcmp(flag, "--seed")) {
            char *end;
            o->seed = strtoull(v, &end, 0);
            if (!*v || *end) {
                fprintf(stderr, "harness: --seed %s: expected a whole number\n", v);
                return 2;
            }
        } else if (!strcmp(flag, "--warmup")) {
            if (!parse_ll(flag, v, 0, 1000000, &o->warmup))
                return 2;
        } else if (!strcmp(flag, "--iters")) {
            if (!parse_ll(flag, v, 1, 1000000, &o->iters))
                return 2;
        } else if (!strcmp(flag, "--batch")) {
            if (!parse_ll(flag, v, 1, 1000, &o->batch))
                return 2;
        } else if (!strcmp(flag, "--warmup-ms")) {
            if (!parse_ll(flag, v, 0, 600000, &x))
                return 2;
            o->warmup_ms = (double)x;
        } else if (!strcmp(flag, "--rounds")) {
            if (!parse_ll(flag, v, 1, 16, &o->rounds))
                return 2;
        } else if (!strcmp(flag, "--placements")) {
            if (!parse_ll(flag, v, 1, 8, &o->placements))
                return 2;
        } else if (!strcmp(flag, "--rotate")) {
            if (!parse_ll(flag, v, 1, 1024, &x))
                return 2;
            o->rotate = x;
        } else if (!strcmp(flag, "--atol")) {
            if (!parse_tol(flag, v, &o->atol))
                return 2;
        } else if (!strcmp(flag, "--rtol")) {
            if (!parse_tol(flag, v, &o->rtol))
                return 2;
        } else if (!strcmp(flag, "--check-only"))
            o->time = false;
        else if (!strcmp(flag, "--no-check"))
            o->check = false;
        else if (!strcmp(flag, "--baseline"))
            o->baseline = true;
        else if (!strcmp(flag, "--json-only"))
            json_only = true;
        else if (!strcmp(flag, "--progress"))
            o->progress = true;
        else if (!strcmp(flag, "--range")) {
            if (!parse_range(v))
                return 2;
        } else if (!strcmp(flag, "--cumsum")) {
            if (!parse_input_range("--cumsum", v, true))
                return 2;
        } else if (!strcmp(flag, "--trace")) {
            if (!*v) {
                fprintf(stderr, "harness: --trace needs a file name\n");
                return 2;
            }
            o->trace_path = v;
        }
        else if (!strcmp(flag, "--help") || !strcmp(flag, "-h")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "harness: unknown option \"%s\"\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!o->check && !o->time) {
        fprintf(stderr, "harness: --check-only and --no-check leave nothing to do\n");
        return 2;
    }
    if (o->baseline && !o->time) {
        fprintf(stderr, "harness: --baseline needs timing; drop --check-only\n");
        return 2;
    }
    if (o->rounds == 0)
        o->rounds = o->baseline ? 3 : 1;
    o->replays = (o->iters + o->batch - 1) / o->batch;
    if (o->trace_path && !o->time) {
        fprintf(stderr, "harness: --trace needs timing; drop --check-only\n");
        return 2;
    }
    return -1; /* go on */
}

/* ---- JSON ---- */

static void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 32)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

/* A number, or null when there is none (JSON has no NaN or infinity). */
static void json_num(double v, bool have)
{
    if (have && isfinite(v))
        printf("%.6g", v);
    else
        printf("null");
}

/* ---- check ---- */

typedef struct {
    long long mismatches, elements;
    int rel_fail;  /* outputs whose relative error ||out - ref|| / ||ref|| exceeds rtol */
    double max_abs, err2, ref2;
    bool finite; /* no NaN/inf difference seen */
} check_result;

static void coords(const tensor_info *t, long long e, char *out, size_t cap)
{
    long long c[MAX_RANK];
    for (int i = t->rank - 1; i >= 0; i--) {
        c[i] = e % t->extent[i];
        e /= t->extent[i];
    }
    size_t n = (size_t)snprintf(out, cap, "%s[", t->name);
    for (int i = 0; i < t->rank && n < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "%s%s=%lld", i ? ", " : "", t->axis[i], c[i]);
    if (n < cap)
        snprintf(out + n, cap - n, "]");
}

static void compare(const tensor_info *t, const float *ref, const void *out, double atol,
                    double rtol, check_result *r)
{
    long long bad = 0;
    double e2 = 0, r2 = 0, max_abs = r->max_abs;
    int finite = r->finite;
    /* One parallel pass for the counts and norms ... */
    PT_PARALLEL_FOR_REDUCE(reduction(+ : bad, e2, r2) reduction(max : max_abs) reduction(&& : finite))
    for (long long e = 0; e < t->elems; e++) {
        double o = host_load(out, t->dtype, e), x = ref[e];
        double d = o == x ? 0.0 : fabs(o - x); /* equal infinities differ by 0 */
        bool ok = d <= atol + rtol * fabs(x);  /* false for any NaN */
        if (!isfinite(d))
            finite = 0;
        else {
            if (d > max_abs)
                max_abs = d;
            e2 += d * d;
        }
        if (isfinite(x))
            r2 += x * x;
        if (!ok)
            bad++;
    }
    /* ... then, only when something is wrong, the first few mismatches in order. */
    long long shown = 0;
    for (long long e = 0; bad > 0 && r->mismatches + shown < 5 && e < t->elems; e++) {
        double o = host_load(out, t->dtype, e), x = ref[e];
        double d = o == x ? 0.0 : fabs(o - x);
        if (d <= atol + rtol * fabs(x))
            continue;
        char where[512];
        coords(t, e, where, sizeof where);
        note("  mismatch %s: kernel %.7g, reference %.7g, |diff| %.3g > %.3g\n", where, o, x, d,
             atol + rtol * fabs(x));
        shown++;
    }
    r->mismatches += bad;
    r->max_abs = max_abs;
    r->finite = finite;
    r->elements += t->elems;
    r->err2 += e2;
    r->ref2 += r2;
    /* Elementwise bounds alone are weak where outputs are small next to atol (attention
     * outputs are averages): the whole tensor must also be within rtol in the 2-norm. */
    double rel = r2 > 0 ? sqrt(e2 / r2) : (e2 > 0 ? INFINITY : 0.0);
    bool rel_ok = rel <= rtol && r->finite;
    if (!rel_ok)
        r->rel_fail++;
    note("check %s: %lld of %lld elements outside |out - ref| <= %g + %g*|ref|; "
         "||out - ref|| / ||ref|| = %.3g%s\n", t->name, bad, t->elems, atol, rtol, rel,
         rel_ok ? "" : " (above rtol)");
}

/* ---- CUPTI kernel activity (make CUPTI=1) ---- */

/* Kernel records of the generated kernel. Each step (plain timing, instrumented timing, the
 * traced launch) is a window of CUPTI timestamps between stream synchronisations: a record
 * belongs to the step whose window holds its start, whenever CUPTI delivers it. */
enum { PH_OTHER, PH_PLAIN, PH_TRACED_TIMED, PH_TRACE, PH_COUNT };

typedef struct {
    uint64_t start, end;          /* ns, the GPU timestamp %globaltimer also reads */
    int phase;
    int registers;
    long long smem;               /* static + dynamic shared memory */
    long long grid, block;
} kernel_record;

static kernel_record *krec;
static size_t n_krec;
static int cupti_phase = PH_OTHER;
static uint64_t phase_begin[PH_COUNT], phase_end[PH_COUNT];
static bool cupti_on;             /* activity collection works */

#ifdef PT_CUPTI
#include <cupti.h>

static size_t cap_krec;
#if CUPTI_API_VERSION >= 130000
typedef CUpti_ActivityKernel10 cupti_kernel_activity;
#else
typedef CUpti_ActivityKernel9 cupti_kernel_activity;
#endif

static void CUPTIAPI cupti_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *size = 1u << 20;
    *buffer = malloc(*size); /* malloc's alignment satisfies CUPTI's 8 bytes */
    *max_records = 0;
}

static void CUPTIAPI cupti_buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buffer,
                                            size_t size, size_t valid)
{
    (void)ctx;
    (void)stream_id;
    (void)size;
    CUpti_Activity *r = NULL;
    while (buffer && cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS) {
        if (r->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && r->kind != CUPTI_ACTIVITY_KIND_KERNEL)
            continue;
        const cupti_kernel_activity *k = (const cupti_kernel_activity *)r;
        if (!k->name || strcmp(k->name, KERNEL_NAME) != 0)
            continue;
        if (n_krec == cap_krec) {
            size_t cap = cap_krec ? 2 * cap_krec : 256;
            kernel_record *nk = realloc(krec, cap * sizeof *nk);
            if (!nk)
                break;
            krec = nk;
            cap_krec = cap;
        }
        kernel_record *o = &krec[n_krec++];
        o->start = k->start;
        o->end = k->end;
        o->phase = PH_OTHER; /* classified by phase_of() once every record is in */
        o->registers = k->registersPerThread;
        o->smem = (long long)k->staticSharedMemory + k->dynamicSharedMemory;
        o->grid = (long long)k->gridX * k->gridY * k->gridZ;
        o->block = (long long)k->blockX * k->blockY * k->blockZ;
    }
    free(buffer);
}

static bool cupti_ok(CUptiResult rc, const char *call)
{
    if (rc == CUPTI_SUCCESS)
        return true;
    const char *text = NULL;
    if (cuptiGetResultString(rc, &text) != CUPTI_SUCCESS)
        text = NULL;
    fprintf(stderr, "harness: %s failed: %s (code %d); no CUPTI numbers\n", call,
            text ? text : "unknown error", (int)rc);
    return false;
}

static void cupti_start(void)
{
    cupti_on = cupti_ok(cuptiActivityRegisterCallbacks(cupti_buffer_requested, cupti_buffer_completed),
                        "cuptiActivityRegisterCallbacks") &&
               cupti_ok(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
                        "cuptiActivityEnable(CONCURRENT_KERNEL)");
}

/* Close the window of the step that ends (the stream is synchronised) and open `next`'s. */
static void cupti_step(int next)
{
    uint64_t t = 0;
    if (cupti_on)
        cupti_on = cupti_ok(cuptiGetTimestamp(&t), "cuptiGetTimestamp");
    phase_end[cupti_phase] = t;
    phase_begin[next] = t;
    cupti_phase = next;
}

/* The step a record belongs to. */
static int phase_of(const kernel_record *r)
{
    for (int p = PH_PLAIN; p < PH_COUNT; p++)
        if (phase_end[p] > phase_begin[p] && r->start >= phase_begin[p] && r->start <= phase_end[p])
            return p;
    return PH_OTHER;
}

/* Every record delivered (a blocking, forced flush), then each tagged with its step. */
static void cupti_stop(void)
{
    cupti_step(PH_OTHER);
    if (cupti_on) {
        cupti_on = cupti_ok(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED),
                            "cuptiActivityFlushAll");
        cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    }
    for (size_t i = 0; i < n_krec; i++)
        krec[i].phase = phase_of(&krec[i]);
}
#else
static void cupti_start(void)
{
}

static void cupti_step(int next)
{
    phase_end[cupti_phase] = phase_begin[next] = 0;
    cupti_phase = next;
}

static void cupti_stop(void)
{
}
#endif

/* ---- timing ---- */

/* How every subject is timed, the kernel under test and the vendor baseline alike (a ratio is
 * only as honest as the slower side's timing): a CUDA graph holding `batch` launches back to
 * back, launch i reading input copy i mod `rotate` (so inputs come from HBM, not L2), is
 * replayed between two events; one sample is the replay's time over `batch`. Capturing keeps
 * host work (the launcher's tensor-map encoding, a library's dispatch) out of the numbers, as a
 * framework's CUDA graph would. The kernel and the baseline alternate round by round, so clock
 * and thermal drift reach both. */

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static float median_of(float *v, long long n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_float);
    return n % 2 ? v[n / 2] : 0.5f * (v[n / 2 - 1] + v[n / 2]);
}

/* The plain kernel (trace == 0) or the instrumented one writing into `trace`. */
static int launch_kernel(CUmodule mod, const CUdeviceptr *slots, CUdeviceptr trace, CUstream stream)
{
    if (trace)
        return pt_kernel_launch_traced(mod, slots, trace, stream);
    return pt_kernel_launch(mod, slots, stream);
}

/* What is timed: the generated kernel (plain or instrumented) or the vendor baseline. */
typedef struct {
    const char *what;   /* for messages */
    CUmodule mod;
    CUdeviceptr trace;  /* the instrumented build's buffer, or 0 */
    bool baseline;
    CUgraphExec exec;   /* the captured batch, or NULL: launched directly */
} subject;

static int launch_subject(const subject *s, const CUdeviceptr *slots, CUstream stream)
{
    if (s->baseline)
        return pt_baseline_launch(slots, stream);
    return launch_kernel(s->mod, slots, s->trace, stream);
}

/* `batch` launches, launch i on input copy i mod rotate (`all`: rotate sets of N_TENSORS). */
static int launch_batch(const subject *s, const CUdeviceptr *all, long long rotate,
                        long long batch, CUstream stream)
{
    for (long long i = 0; i < batch; i++) {
        int rc = launch_subject(s, all + (i % rotate) * N_TENSORS, stream);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Capture the batch as a CUDA graph; false (and s->exec NULL) when capture fails. */
static bool capture_batch(subject *s, const CUdeviceptr *all, long long rotate, long long batch,
                          CUstream stream)
{
    CUgraph graph = NULL;
    s->exec = NULL;
    if (cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_RELAXED) != CUDA_SUCCESS)
        return false;
    int rc = launch_batch(s, all, rotate, batch, stream);
    CUresult end = cuStreamEndCapture(stream, &graph);
    bool ok = rc == 0 && end == CUDA_SUCCESS && graph &&
              cuGraphInstantiate(&s->exec, graph, 0) == CUDA_SUCCESS;
    if (graph)
        cuGraphDestroy(graph);
    if (!ok)
        s->exec = NULL;
    return ok;
}

static void replay(const subject *s, const CUdeviceptr *all, long long rotate, long long batch,
                   CUstream stream)
{
    if (s->exec)
        cu_check(cuGraphLaunch(s->exec, stream), "cuGraphLaunch");
    else
        cu_check((CUresult)launch_batch(s, all, rotate, batch, stream), s->what);
}

/* Input copies to rotate between so that inputs come from HBM, not L2: at least 2 x 60 MB
 * in all, at most 16 copies, and at most half the free device memory. */
static long long default_rotation(size_t input_bytes)
{
    if (input_bytes == 0)
        return 1;
    size_t want = (2u * 60u * 1000u * 1000u + input_bytes - 1) / input_bytes;
    if (want > 16)
        want = 16;
    size_t free_b = 0, total_b = 0;
    if (cuMemGetInfo(&free_b, &total_b) == CUDA_SUCCESS) {
        size_t fit = 1 + free_b / 2 / input_bytes; /* copy 0 is already allocated */
        if (want > fit)
            want = fit;
    }
    return want < 1 ? 1 : (long long)want;
}

/* A subject's samples over all its rounds (ms per launch, one per timed replay). */
typedef struct {
    float *ms;
    long long n;
    float round_med[16];
    int rounds;
    float place_med[8];           /* median of each placement's samples */
    int places;
    float med, tmin, tmax;
    const char *mode;             /* "graph" or "direct" */
} timing;

/* One round of a subject: warm-up replays, then o->replays timed ones. */
static void time_round(const subject *s, const CUdeviceptr *all, long long rotate, CUstream stream,
                       const options *o, int phase, timing *t)
{
    long long warm = (o->warmup + o->batch - 1) / o->batch;
    for (long long w = 0; w < (warm > 0 ? warm : 1); w++)
        replay(s, all, rotate, o->batch, stream);
    cu_check(cuStreamSynchronize(stream), "cuStreamSynchronize(warm-up)");
    if (phase != PH_OTHER)
        cupti_step(phase); /* CUPTI: only the timed launches */
    CUevent *ev = xmalloc(sizeof(CUevent) * 2 * (size_t)o->replays, "events");
    for (long long i = 0; i < 2 * o->replays; i++)
        cu_check(cuEventCreate(&ev[i], CU_EVENT_DEFAULT), "cuEventCreate");
    for (long long i = 0; i < o->replays; i++) {
        cu_check(cuEventRecord(ev[2 * i], stream), "cuEventRecord");
        replay(s, all, rotate, o->batch, stream);
        cu_check(cuEventRecord(ev[2 * i + 1], stream), "cuEventRecord");
    }
    cu_check(cuStreamSynchronize(stream), s->trace ? "cuStreamSynchronize(timing the instrumented kernel)"
                                                   : "cuStreamSynchronize(timing)");
    if (phase != PH_OTHER)
        cupti_step(PH_OTHER);
    float *round = xmalloc(sizeof(float) * (size_t)o->replays, "times");
    for (long long i = 0; i < o->replays; i++) {
        float ms;
        cu_check(cuEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]), "cuEventElapsedTime");
        round[i] = ms / (float)o->batch;
        t->ms[t->n++] = round[i];
    }
    if (t->rounds < (int)(sizeof t->round_med / sizeof t->round_med[0]))
        t->round_med[t->rounds] = median_of(round, o->replays);
    t->rounds++;
    for (long long i = 0; i < 2 * o->replays; i++)
        cuEventDestroy(ev[i]);
    free(round);
    free(ev);
}

/* Room for every sample of `places` placements. */
static void timing_start(timing *t, const options *o, long long places)
{
    memset(t, 0, sizeof *t);
    t->ms = xmalloc(sizeof(float) * (size_t)(o->replays * o->rounds * places), "times");
    t->mode = "graph";
}

/* The median of the samples from index n0 on: one placement's. */
static void timing_place(timing *t, long long n0)
{
    if (t->places < (int)(sizeof t->place_med / sizeof t->place_med[0]) && t->n > n0) {
        float *v = xmalloc(sizeof(float) * (size_t)(t->n - n0), "times");
        memcpy(v, t->ms + n0, sizeof(float) * (size_t)(t->n - n0));
        t->place_med[t->places++] = median_of(v, t->n - n0);
        free(v);
    }
}

static void timing_finish(timing *t)
{
    if (t->n == 0)
        return;
    t->med = median_of(t->ms, t->n); /* sorts: min and max are the ends */
    t->tmin = t->ms[0];
    t->tmax = t->ms[t->n - 1];
}

/* ms of one replay of each subject, from one timed replay (after an untimed one). */
static float replay_ms(const subject *s, const CUdeviceptr *all, long long rotate, long long batch,
                       CUstream stream)
{
    CUevent e0, e1;
    float ms = 0;
    cu_check(cuEventCreate(&e0, CU_EVENT_DEFAULT), "cuEventCreate");
    cu_check(cuEventCreate(&e1, CU_EVENT_DEFAULT), "cuEventCreate");
    replay(s, all, rotate, batch, stream);
    cu_check(cuEventRecord(e0, stream), "cuEventRecord");
    replay(s, all, rotate, batch, stream);
    cu_check(cuEventRecord(e1, stream), "cuEventRecord");
    cu_check(cuStreamSynchronize(stream), "cuStreamSynchronize(warm-up)");
    cu_check(cuEventElapsedTime(&ms, e0, e1), "cuEventElapsedTime");
    cuEventDestroy(e0);
    cuEventDestroy(e1);
    return ms;
}

/* The GPU's clocks settle under sustained load (an idle H200 sits at a few hundred MHz and a
 * busy one can throttle): the subjects run alternately for o->warmup_ms before any sample is
 * taken, so the first round is not timed at a different clock than the last. */
static void warm_up(const subject *k, const subject *b, const CUdeviceptr *all, long long rotate,
                    CUstream stream, const options *o)
{
    float per = replay_ms(k, all, rotate, o->batch, stream);
    if (b)
        per += replay_ms(b, all, rotate, o->batch, stream);
    long long n = per > 0 ? (long long)(o->warmup_ms / per) + 1 : 1;
    if (n > 100000)
        n = 100000;
    for (long long i = 0; i < n; i++) {
        replay(k, all, rotate, o->batch, stream);
        if (b)
            replay(b, all, rotate, o->batch, stream);
    }
    cu_check(cuStreamSynchronize(stream), "cuStreamSynchronize(warm-up)");
}

/* Bytes of the graph's outputs (their own buffers, views excluded). */
static size_t output_bytes(void)
{
    size_t n = 0;
    for (int t = 0; t < N_TENSORS; t++)
        if (TENSORS[t].role == ROLE_OUTPUT && TENSORS[t].view_of < 0)
            n += dtype_bytes(TENSORS[t].dtype, TENSORS[t].elems);
    return n;
}

/* Placements beyond the first cost `rotate` input sets and the outputs each: as many of the
 * wanted ones as half the free memory holds. */
static long long placements_that_fit(long long want, long long rotate, size_t input_bytes)
{
    size_t each = (size_t)rotate * input_bytes + output_bytes(), free_b = 0, total_b = 0;
    if (want > 1 && each > 0 && cuMemGetInfo(&free_b, &total_b) == CUDA_SUCCESS &&
        (size_t)(want - 1) * each > free_b / 2) {
        long long fit = 1 + (long long)(free_b / 2 / each);
        note("timing: %lld placements wanted, %lld fit in half the free memory\n", want, fit);
        want = fit;
    }
    return want;
}

/* One placement's slot sets (rotate x N_TENSORS). Input copy k > 0 is always a fresh copy of
 * copy 0; with `fresh`, copy 0 and the outputs are fresh allocations as well. */
static CUdeviceptr *placement_alloc(const CUdeviceptr *kslots, const CUdeviceptr *in0,
                                    long long rotate, bool fresh)
{
    CUdeviceptr *all = xmalloc(sizeof(CUdeviceptr) * N_TENSORS * (size_t)rotate, "slots");
    for (long long k = 0; k < rotate; k++) {
        CUdeviceptr *s = all + k * N_TENSORS;
        memcpy(s, kslots, sizeof(CUdeviceptr) * N_TENSORS);
        for (int t = 0; t < N_TENSORS; t++) {
            const tensor_info *x = &TENSORS[t];
            if (x->view_of >= 0)
                continue;
            size_t bytes = dtype_bytes(x->dtype, x->elems);
            if (x->role == ROLE_INPUT && (k > 0 || fresh)) {
                cu_check(cuMemAlloc(&s[t], bytes), "cuMemAlloc(input copy)");
                cu_check(cuMemcpyDtoD(s[t], in0[t], bytes), "cuMemcpyDtoD(input copy)");
            } else if (x->role == ROLE_OUTPUT && fresh) {
                if (k == 0)
                    cu_check(cuMemAlloc(&s[t], bytes), "cuMemAlloc(output of a placement)");
                else
                    s[t] = all[t]; /* one output set per placement */
            }
        }
        for (int t = 0; t < N_TENSORS; t++)
            if (TENSORS[t].view_of >= 0)
                s[t] = s[TENSORS[t].view_of];
    }
    return all;
}

static void placement_free(CUdeviceptr *all, long long rotate, bool fresh)
{
    for (long long k = 0; k < rotate; k++)
        for (int t = 0; t < N_TENSORS; t++) {
            const tensor_info *x = &TENSORS[t];
            if (x->view_of >= 0)
                continue;
            if ((x->role == ROLE_INPUT && (k > 0 || fresh)) ||
                (x->role == ROLE_OUTPUT && fresh && k == 0))
                cuMemFree(all[k * N_TENSORS + t]);
        }
    free(all);
}

/* The kernel (and, with a baseline, the baseline after it) for o->rounds rounds. */
static void time_subjects(subject *k, subject *b, const CUdeviceptr *all, long long rotate,
                          CUstream stream, const options *o, int phase, timing *tk, timing *tb)
{
    if (!capture_batch(k, all, rotate, o->batch, stream))
        note("timing: CUDA graph capture of the kernel failed; timing direct launches (host work included)\n");
    if (!k->exec)
        tk->mode = "direct";
    if (b) {
        if (!capture_batch(b, all, rotate, o->batch, stream))
            note("timing: CUDA graph capture of the baseline failed; timing direct launches\n");
        if (!b->exec)
            tb->mode = "direct";
    }
    long long nk = tk->n, nb = b ? tb->n : 0;
    warm_up(k, b, all, rotate, stream, o);
    for (long long r = 0; r < o->rounds; r++) {
        time_round(k, all, rotate, stream, o, r == 0 ? phase : PH_OTHER, tk);
        if (b)
            time_round(b, all, rotate, stream, o, PH_OTHER, tb);
    }
    timing_place(tk, nk);
    if (k->exec)
        cuGraphExecDestroy(k->exec);
    k->exec = NULL;
    if (b) {
        timing_place(tb, nb);
        if (b->exec)
            cuGraphExecDestroy(b->exec);
        b->exec = NULL;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* "cupti": {...} from the records of the plain timed launches, or null. */
static void json_cupti(void)
{
    size_t n = 0;
    for (size_t i = 0; i < n_krec; i++)
        n += krec[i].phase == PH_PLAIN;
    if (!cupti_on || n == 0) {
        printf("null");
        return;
    }
    double *ms = xmalloc(sizeof(double) * n, "CUPTI times");
    const kernel_record *first = NULL;
    size_t k = 0;
    for (size_t i = 0; i < n_krec; i++)
        if (krec[i].phase == PH_PLAIN) {
            if (!first)
                first = &krec[i];
            ms[k++] = (double)(krec[i].end - krec[i].start) * 1e-6;
        }
    qsort(ms, n, sizeof *ms, cmp_double);
    double med = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
    printf("{\"median_ms\": ");
    json_num(med, true);
    printf(", \"min_ms\": ");
    json_num(ms[0], true);
    printf(", \"max_ms\": ");
    json_num(ms[n - 1], true);
    printf(", \"records\": %zu, \"registers\": %d, \"smem\": %lld, \"grid\": %lld, \"block\": %lld, "
           "\"start_ns_first\": %llu, \"end_ns_first\": %llu}",
           n, first->registers, first->smem, first->grid, first->block,
           (unsigned long long)first->start, (unsigned long long)first->end);
    free(ms);
}

/* Per-round medians of a subject, a JSON array (null when not timed). */
static void json_floats(const float *v, int n, bool have)
{
    if (!have) {
        printf("null");
        return;
    }
    printf("[");
    for (int r = 0; r < n; r++) {
        printf("%s", r ? ", " : "");
        json_num(v[r], true);
    }
    printf("]");
}

/* A subject's per-launch times and the graph's useful TFLOP/s at the median (null: not timed). */
static void json_times(const timing *t, bool have)
{
    printf(", \"time_ms_median\": ");
    json_num(t->med, have);
    printf(", \"time_ms_min\": ");
    json_num(t->tmin, have);
    printf(", \"time_ms_max\": ");
    json_num(t->tmax, have);
    printf(", \"tflops\": ");
    json_num(t->med > 0 ? USEFUL_FLOPS / (t->med * 1e-3) / 1e12 : 0.0,
             have && t->med > 0 && USEFUL_FLOPS > 0);
}

/* How a subject was launched ("graph" or "direct") and each round's median. */
static void json_method(const timing *t, bool have)
{
    printf(", \"timing\": ");
    if (have)
        json_str(t->mode);
    else
        printf("null");
    printf(", \"round_medians_ms\": ");
    json_floats(t->round_med, t->rounds < 16 ? t->rounds : 16, have);
    printf(", \"placement_medians_ms\": ");
    json_floats(t->place_med, t->places, have);
}

/* Output buffers filled with 0xFF bytes (NaN in every float format): an element the kernel
 * (or the baseline) never writes cannot pass the check. */
static void poison_outputs(const CUdeviceptr *out)
{
    for (int t = 0; t < N_TENSORS; t++)
        if (TENSORS[t].role == ROLE_OUTPUT && TENSORS[t].view_of < 0)
            cu_check(cuMemsetD8(out[t], 0xff, dtype_bytes(TENSORS[t].dtype, TENSORS[t].elems)),
                     "cuMemsetD8(poison)");
}

/* Every output element of `out` against the f32 reference in `ref`. */
static void compare_outputs(const CUdeviceptr *ref_slots, const CUdeviceptr *out_slots,
                            const options *o, check_result *cr)
{
    for (int t = 0; t < N_TENSORS; t++) {
        const tensor_info *x = &TENSORS[t];
        if (x->role != ROLE_OUTPUT || x->view_of >= 0)
            continue;
        size_t bytes = dtype_bytes(x->dtype, x->elems);
        float *ref = xmalloc((size_t)x->elems * 4, x->name);
        void *out = xmalloc(bytes, x->name);
        cu_check(cuMemcpyDtoH(ref, ref_slots[t], (size_t)x->elems * 4), "cuMemcpyDtoH(reference)");
        cu_check(cuMemcpyDtoH(out, out_slots[t], bytes), "cuMemcpyDtoH(output)");
        compare(x, ref, out, o->atol >= 0 ? o->atol : x->atol, o->rtol >= 0 ? o->rtol : x->rtol, cr);
        free(ref);
        free(out);
    }
}

/* ---- main ---- */

/* The device, the cubins and the buffers that main's steps share. */
typedef struct {
    CUdevice dev;
    CUmodule kmod;               /* kernel.cubin */
    CUmodule rmod, tmod;         /* reference.cubin (checking), kernel_trace.cubin (--trace), or NULL */
    CUstream stream;
    CUdeviceptr in0[N_TENSORS];  /* copy 0 of the inputs (0 for other tensors) */
    CUdeviceptr kout[N_TENSORS]; /* the kernel's output buffers (0 for other tensors) */
    CUdeviceptr *kslots;         /* the kernel's slots on copy 0 */
    size_t input_bytes;
} run_state;

/* What the run found: the steps fill it, print_result writes it as the JSON line. */
typedef struct {
    const char *no_baseline;     /* why there is no baseline (the JSON line says it), or NULL */
    bool use_baseline;
    bool correct, baseline_correct;
    check_result cr, br;         /* the kernel's check, the baseline's */
    double rel_err;
    bool timed, traced, base_timed;
    timing tp, tt, tb;           /* the kernel, its instrumented build, the baseline */
    long long rotate;
    unsigned long long trace_bytes;
} run_result;

/* The device's primary context, the cubins and a stream. */
static void open_device(const char *argv0, const options *o, run_state *s)
{
    /* The cubins sit next to the harness binary. */
    char dir[4096] = ".", path[4200];
    const char *slash = strrchr(argv0, '/');
    if (slash)
        snprintf(dir, sizeof dir, "%.*s", slash == argv0 ? 1 : (int)(slash - argv0), argv0);

    step("init");
    cupti_start();
    CUcontext ctx;
    char devname[256] = "?";
    cu_check(cuInit(0), "cuInit");
    cu_check(cuDeviceGet(&s->dev, 0), "cuDeviceGet");
    cu_check(cuDeviceGetName(devname, (int)sizeof devname, s->dev), "cuDeviceGetName");
    /* The primary context: cuCtxCreate changed its signature in CUDA 13. */
    cu_check(cuDevicePrimaryCtxRetain(&ctx, s->dev), "cuDevicePrimaryCtxRetain");
    cu_check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    s->rmod = s->tmod = NULL;
    snprintf(path, sizeof path, "%s/kernel.cubin", dir);
    cu_check(cuModuleLoad(&s->kmod, path), "cuModuleLoad(kernel.cubin)");
    if (o->check) {
        snprintf(path, sizeof path, "%s/reference.cubin", dir);
        cu_check(cuModuleLoad(&s->rmod, path), "cuModuleLoad(reference.cubin)");
    }
    if (o->trace_path) {
        snprintf(path, sizeof path, "%s/kernel_trace.cubin", dir);
        cu_check(cuModuleLoad(&s->tmod, path), "cuModuleLoad(kernel_trace.cubin; build it with 'make trace')");
    }
    cu_check(cuStreamCreate(&s->stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    note("harness: %s, target %s, on %s (grid %lld, block %d, smem %lld)\n", GRAPH_NAME, TARGET,
         devname, GRID, BLOCK, SMEM);
}

/* Inputs: seeded random, uploaded once (copy 0); the kernel's output buffers and its slots. */
static void upload_inputs(const options *o, run_state *s)
{
    s->input_bytes = 0;
    for (int t = 0; t < N_TENSORS; t++) {
        const tensor_info *x = &TENSORS[t];
        if (x->view_of >= 0)
            continue;
        size_t bytes = dtype_bytes(x->dtype, x->elems);
        if (x->role == ROLE_INPUT) {
            void *h = xmalloc(bytes, x->name);
            fill_random(h, x, t, o->seed);
            cu_check(cuMemAlloc(&s->in0[t], bytes), "cuMemAlloc(input)");
            cu_check(cuMemcpyHtoD(s->in0[t], h, bytes), "cuMemcpyHtoD(input)");
            free(h);
            s->input_bytes += bytes;
        } else if (x->role == ROLE_OUTPUT)
            cu_check(cuMemAlloc(&s->kout[t], bytes), "cuMemAlloc(output)");
    }

    /* The kernel's slots for input copy k: inputs, its own output buffers, no intermediates
     * (the contract: only input and output slots are read), views pointing at their base. */
    s->kslots = xmalloc(sizeof(CUdeviceptr) * N_TENSORS, "slots");
    for (int t = 0; t < N_TENSORS; t++)
        s->kslots[t] = TENSORS[t].role == ROLE_INPUT ? s->in0[t] : s->kout[t];
    for (int t = 0; t < N_TENSORS; t++)
        if (TENSORS[t].view_of >= 0)
            s->kslots[t] = s->kslots[TENSORS[t].view_of];
}

/* With --baseline: the vendor baseline, or why there is none. The baseline chooses its
 * algorithm on copy 0 of the inputs (it times its candidates). */
static void start_baseline(const options *o, const run_state *s, run_result *r)
{
    static char baseline_why[512];
    if (o->baseline && BASELINE.kind == BASELINE_NONE)
        r->no_baseline = BASELINE.why_none;
    else if (o->baseline && !pt_baseline_init)
        r->no_baseline = "this harness was built without the vendor baseline: rebuild it with "
                         "'make BASELINE=1'";
    r->use_baseline = o->baseline && !r->no_baseline;
    if (r->use_baseline) {
        step("baseline");
        if (pt_baseline_init(&BASELINE, s->kslots, s->stream, baseline_why, sizeof baseline_why) != 0) {
            r->use_baseline = false;
            r->no_baseline = baseline_why;
        } else
            note("baseline: %s\n", pt_baseline_describe());
    }
    if (o->baseline && r->no_baseline)
        note("baseline: none: %s\n", r->no_baseline);
}

/* Does the f32 reference allocate a slot of its own for tensor x (what an op writes; inputs
 * and views share another's)? */
static bool ref_owns_slot(const tensor_info *x)
{
    return x->view_of < 0 && x->role != ROLE_INPUT;
}

/* The f32 reference, then the kernel (and the baseline) on the same inputs, every output
 * element compared. */
static void check_run(const options *o, run_state *s, run_result *r)
{
    step("check");
    /* Reference: f32 slots for everything an op writes. Say first, by name, when they cannot
     * fit (a large Mamba2 shape's intermediates are tens of GB), rather than fail in the middle. */
    CUdeviceptr rslots[N_TENSORS];
    size_t need = 0, big = 0, free_b = 0, total_b = 0;
    int biggest = -1;
    for (int t = 0; t < N_TENSORS; t++) {
        const tensor_info *x = &TENSORS[t];
        if (!ref_owns_slot(x))
            continue;
        size_t b = (size_t)x->elems * 4;
        need += b;
        if (b > big) {
            big = b;
            biggest = t;
        }
    }
    if (cuMemGetInfo(&free_b, &total_b) == CUDA_SUCCESS && need > free_b) {
        fprintf(stderr,
                "harness: the f32 reference needs %.1f GB for the tensors the graph's ops write "
                "(the largest, %s, %.1f GB) and the GPU has %.1f GB free: check a smaller shape, "
                "or time this one with --no-check\n",
                need / 1e9, biggest >= 0 ? TENSORS[biggest].name : "?", big / 1e9, free_b / 1e9);
        exit(1);
    }
    for (int t = 0; t < N_TENSORS; t++) {
        const tensor_info *x = &TENSORS[t];
        rslots[t] = 0;
        if (ref_owns_slot(x))
            cu_check(cuMemAlloc(&rslots[t], (size_t)x->elems * 4), "cuMemAlloc(reference)");
        else if (x->view_of < 0)
            rslots[t] = s->in0[t];
    }
    for (int t = 0; t < N_TENSORS; t++)
        if (TENSORS[t].view_of >= 0)
            rslots[t] = rslots[TENSORS[t].view_of];
    cu_check((CUresult)pt_reference_run(s->rmod, rslots, s->stream), "pt_reference_run");
    cu_check(cuStreamSynchronize(s->stream), "cuStreamSynchronize(reference)");

    /* The kernel under test writes into poisoned buffers (0xFF bytes are NaN in every
     * float format), so an element it never writes cannot pass. */
    poison_outputs(s->kout);
    cu_check((CUresult)pt_kernel_launch(s->kmod, s->kslots, s->stream), "pt_kernel_launch");
    cu_check(cuStreamSynchronize(s->stream), "cuStreamSynchronize(kernel)");

    compare_outputs(rslots, s->kout, o, &r->cr);
    r->correct = r->cr.mismatches == 0 && r->cr.rel_fail == 0;
    if (r->use_baseline) {
        /* The baseline must compute the same function: checked the same way. */
        note("baseline check:\n");
        poison_outputs(s->kout);
        cu_check((CUresult)pt_baseline_launch(s->kslots, s->stream), "pt_baseline_launch");
        cu_check(cuStreamSynchronize(s->stream), "cuStreamSynchronize(baseline)");
        compare_outputs(rslots, s->kout, o, &r->br);
        r->baseline_correct = r->br.mismatches == 0 && r->br.rel_fail == 0;
    }
    for (int t = 0; t < N_TENSORS; t++)
        if (ref_owns_slot(&TENSORS[t]))
            cu_check(cuMemFree(rslots[t]), "cuMemFree(reference)");
}

/* The instrumented build: timed like the plain one (its overhead), then one launch into a
 * zeroed buffer, which is what the --trace file receives. False: the file was not written. */
static bool trace_run(const options *o, const run_state *s, const CUdeviceptr *all, run_result *r)
{
    unsigned n_ctas = 0, n_roles = 0, cap = 0, stride = 0, grid = 0;
    pt_kernel_trace_layout(&n_ctas, &n_roles, &cap, &stride, &grid);
    r->trace_bytes = pt_trace_buffer_bytes(n_ctas, n_roles, cap);
    CUdeviceptr tbuf;
    cu_check(cuMemAlloc(&tbuf, (size_t)r->trace_bytes), "cuMemAlloc(trace buffer)");
    step("trace-time");
    subject ts = {.what = "pt_kernel_launch_traced", .mod = s->tmod, .trace = tbuf};
    options once = *o;
    once.rounds = 1;
    timing_start(&r->tt, &once, 1);
    time_subjects(&ts, NULL, all, r->rotate, s->stream, &once, PH_TRACED_TIMED, &r->tt, NULL);
    timing_finish(&r->tt);
    step("trace");
    cu_check(cuMemsetD8(tbuf, 0, (size_t)r->trace_bytes), "cuMemsetD8(trace buffer)");
    cu_check(cuStreamSynchronize(s->stream), "cuStreamSynchronize(trace buffer)");
    cupti_step(PH_TRACE);
    cu_check((CUresult)pt_kernel_launch_traced(s->tmod, s->kslots, tbuf, s->stream), "pt_kernel_launch_traced");
    cu_check(cuStreamSynchronize(s->stream), "cuStreamSynchronize(instrumented kernel)");
    cupti_step(PH_OTHER);
    unsigned char *host = xmalloc((size_t)r->trace_bytes, "trace buffer");
    cu_check(cuMemcpyDtoH(host, tbuf, (size_t)r->trace_bytes), "cuMemcpyDtoH(trace buffer)");
    FILE *f = fopen(o->trace_path, "wb");
    bool wrote = f && fwrite(host, 1, (size_t)r->trace_bytes, f) == (size_t)r->trace_bytes;
    if (f && fclose(f) != 0)
        wrote = false;
    if (!wrote) {
        fprintf(stderr, "harness: --trace %s: cannot write the trace buffer: %s\n",
                o->trace_path, strerror(errno));
        return false;
    }
    free(host);
    cuMemFree(tbuf);
    note("trace: %llu bytes (%u sampled CTAs every %u of %u, %u warp roles, %u records "
         "each) written to %s; instrumented kernel median %.4f ms (%+.1f%%)\n",
         r->trace_bytes, n_ctas, stride, grid, n_roles, cap, o->trace_path, r->tt.med,
         r->tp.med > 0 ? (r->tt.med - r->tp.med) / r->tp.med * 100.0 : 0.0);
    return true;
}

/* The kernel (and the baseline, interleaved) timed on each placement of the inputs; with
 * --trace, the instrumented build after them. False: the trace file was not written. */
static bool time_run(const options *o, const run_state *s, run_result *r)
{
    r->rotate = o->rotate ? o->rotate : default_rotation(s->input_bytes);
    long long places = placements_that_fit(o->placements, r->rotate, s->input_bytes);
    /* Placement p: `rotate` input sets; placement 0 reads the checked buffers (copy 0) and
     * writes the checked outputs, later ones are all fresh allocations, kept until the end
     * so that each lies elsewhere in memory. */
    CUdeviceptr **place = xmalloc(sizeof(CUdeviceptr *) * (size_t)places, "placements");
    for (long long p = 0; p < places; p++)
        place[p] = placement_alloc(s->kslots, s->in0, r->rotate, p > 0);
    step("time");
    subject ks = {.what = "pt_kernel_launch", .mod = s->kmod};
    subject bs = {.what = "pt_baseline_launch", .baseline = true};
    timing_start(&r->tp, o, places);
    timing_start(&r->tb, o, places);
    for (long long p = 0; p < places; p++)
        time_subjects(&ks, r->base_timed ? &bs : NULL, place[p], r->rotate, s->stream, o, PH_PLAIN,
                      &r->tp, &r->tb);
    timing_finish(&r->tp);
    timing_finish(&r->tb);
    const timing *tp = &r->tp, *tb = &r->tb;
    note("time: median %.4f ms (min %.4f, max %.4f) per launch over %lld rounds of %lld "
         "replays of %lld launches, %lld input cop%s, %lld placement%s, %s launches; "
         "%.1f TFLOP/s\n",
         tp->med, tp->tmin, tp->tmax, o->rounds, o->replays, o->batch, r->rotate,
         r->rotate == 1 ? "y" : "ies", places, places == 1 ? "" : "s", tp->mode,
         tp->med > 0 ? USEFUL_FLOPS / (tp->med * 1e-3) / 1e12 : 0.0);
    if (r->base_timed)
        note("baseline: median %.4f ms (min %.4f, max %.4f), %s launches; %.1f TFLOP/s; "
             "kernel / baseline speed %.3fx\n",
             tb->med, tb->tmin, tb->tmax, tb->mode,
             tb->med > 0 ? USEFUL_FLOPS / (tb->med * 1e-3) / 1e12 : 0.0,
             tp->med > 0 ? tb->med / tp->med : 0.0);

    if (r->traced && !trace_run(o, s, place[0], r))
        return false;
    for (long long p = 0; p < places; p++)
        placement_free(place[p], r->rotate, p > 0);
    free(place);
    return true;
}

/* "baseline": {...} of the JSON line (null without --baseline). */
static void json_baseline(const options *o, const run_result *r)
{
    printf(", \"baseline\": ");
    if (!o->baseline) {
        printf("null");
        return;
    }
    printf("{\"name\": ");
    if (r->use_baseline)
        json_str(pt_baseline_describe());
    else
        printf("null");
    printf(", \"why_none\": ");
    if (r->no_baseline)
        json_str(r->no_baseline);
    else
        printf("null");
    printf(", \"correct\": %s",
           r->use_baseline && o->check ? (r->baseline_correct ? "true" : "false") : "null");
    printf(", \"rel_err\": ");
    const check_result *br = &r->br;
    double brel = br->ref2 > 0 ? sqrt(br->err2 / br->ref2) : 0.0;
    json_num(brel, r->use_baseline && o->check && br->finite && br->ref2 > 0);
    json_times(&r->tb, r->base_timed);
    json_method(&r->tb, r->base_timed);
    /* > 1: the generated kernel is faster */
    printf(", \"speedup\": ");
    json_num(r->tp.med > 0 ? r->tb.med / r->tp.med : 0.0, r->base_timed && r->tp.med > 0);
    printf("}");
}

/* The result: one JSON line on stdout (README.md lists its fields). */
static void print_result(const options *o, const run_result *r)
{
    const check_result *cr = &r->cr;
    printf("{\"graph\": ");
    json_str(GRAPH_NAME);
    printf(", \"target\": ");
    json_str(TARGET);
    printf(", \"kernel\": ");
    json_str(KERNEL_NAME);
    printf(", \"correct\": %s", o->check ? (r->correct ? "true" : "false") : "null");
    printf(", \"mismatches\": ");
    json_num((double)cr->mismatches, o->check);
    printf(", \"elements\": ");
    json_num((double)cr->elements, o->check);
    printf(", \"max_abs_err\": ");
    json_num(cr->max_abs, o->check && cr->finite);
    printf(", \"rel_err\": ");
    json_num(r->rel_err, o->check && cr->finite);
    json_times(&r->tp, r->timed);
    printf(", \"grid\": %lld, \"block\": %d, \"smem\": %lld, \"seed\": %llu", GRID, BLOCK, SMEM,
           o->seed);
    printf(", \"rotate\": ");
    json_num((double)r->rotate, r->timed);
    printf(", \"iters\": ");
    json_num((double)o->iters, r->timed);
    printf(", \"batch\": ");
    json_num((double)o->batch, r->timed);
    printf(", \"replays\": ");
    json_num((double)o->replays, r->timed);
    printf(", \"rounds\": ");
    json_num((double)o->rounds, r->timed);
    json_method(&r->tp, r->timed);
    json_baseline(o, r);
    printf(", \"trace_time_ms_median\": ");
    json_num(r->tt.med, r->traced);
    printf(", \"trace_time_ms_min\": ");
    json_num(r->tt.tmin, r->traced);
    printf(", \"trace_time_ms_max\": ");
    json_num(r->tt.tmax, r->traced);
    printf(", \"trace_bytes\": ");
    json_num((double)r->trace_bytes, r->traced);
    printf(", \"cupti\": ");
    json_cupti();
    const kernel_record *tr = NULL;
    for (size_t i = 0; i < n_krec && cupti_on; i++)
        if (krec[i].phase == PH_TRACE)
            tr = &krec[i];
    if (tr)
        printf(", \"trace_kernel_start_ns\": %llu, \"trace_kernel_end_ns\": %llu",
               (unsigned long long)tr->start, (unsigned long long)tr->end);
    else
        printf(", \"trace_kernel_start_ns\": null, \"trace_kernel_end_ns\": null");
    printf("}\n");
    fflush(stdout);
}

/* Everything the run holds, given back (the buffers, the baseline, the stream, the modules and
 * the context). */
static void close_run(run_state *s, run_result *r)
{
    for (int t = 0; t < N_TENSORS; t++) {
        if (TENSORS[t].view_of >= 0)
            continue;
        if (s->in0[t])
            cuMemFree(s->in0[t]);
        if (s->kout[t])
            cuMemFree(s->kout[t]);
    }
    free(s->kslots);
    free(krec);
    free(r->tp.ms);
    free(r->tt.ms);
    free(r->tb.ms);
    if (r->use_baseline && pt_baseline_fini)
        pt_baseline_fini();
    cuStreamDestroy(s->stream);
    cuModuleUnload(s->kmod);
    if (s->rmod)
        cuModuleUnload(s->rmod);
    if (s->tmod)
        cuModuleUnload(s->tmod);
    cuDevicePrimaryCtxRelease(s->dev);
}

int main(int argc, char **argv)
{
    options o = {.seed = 1234, .warmup = 10, .iters = 200, .rotate = 0, .placements = 1,
                 .batch = 20, .rounds = 0, .warmup_ms = 200, .atol = -1, .rtol = -1,
                 .check = true, .time = true, .baseline = false, .trace_path = NULL,
                 .progress = false};
    int prc = parse_options(argc, argv, &o);
    if (prc >= 0)
        return prc;
    progress = o.progress;
    if (o.trace_path && (!pt_kernel_launch_traced || !pt_kernel_trace_layout)) {
        fprintf(stderr, "harness: --trace: this bundle's launch.c has no pt_kernel_launch_traced "
                        "(regenerate the bundle with a PipeThreader that instruments kernels)\n");
        return 2;
    }
    static run_state s;
    run_result r = {.correct = true, .baseline_correct = true, .rotate = 1,
                    .cr = {0, 0, 0, 0.0, 0.0, 0.0, true}, .br = {0, 0, 0, 0.0, 0.0, 0.0, true},
                    .tp = {.mode = "direct"}, .tt = {.mode = "direct"}, .tb = {.mode = "direct"}};

    open_device(argv[0], &o, &s);
    upload_inputs(&o, &s);
    start_baseline(&o, &s, &r);
    if (o.check)
        check_run(&o, &s, &r);
    const check_result *cr = &r.cr;
    r.rel_err = cr->ref2 > 0 ? sqrt(cr->err2 / cr->ref2) : (cr->err2 > 0 ? INFINITY : 0.0);
    if (o.check)
        note("check: %s: %lld mismatches in %lld elements, max abs err %.3g, rel err %.3g\n",
             r.correct ? "correct" : "WRONG", cr->mismatches, cr->elements,
             cr->finite ? cr->max_abs : INFINITY, cr->finite ? r.rel_err : INFINITY);

    r.timed = o.time && r.correct;
    r.traced = r.timed && o.trace_path;
    r.base_timed = r.timed && r.use_baseline && r.baseline_correct;
    if (r.timed && !time_run(&o, &s, &r))
        return 1;
    step("done");
    cupti_stop();
    print_result(&o, &r);
    close_run(&s, &r);
    return r.correct ? 0 : 3;
}
