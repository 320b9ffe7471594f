// harness.hip — the checking and timing driver of a gfx942 (MI300X) bundle (the same file in
// every gfx942 bundle; NEVER RUN: PipeThreader has no MI300X, see README.md).
//
// The structure of the CUDA bundles' harness.c, on HIP: seeded random inputs (the same
// generator, so the same inputs for the same seed), the f32 reference (reference.hip, compiled
// in) and the kernel under test (kernel.hsaco, loaded with hipModuleLoad and launched by
// launch.c's pt_kernel_launch) run on them; every element of every output (attention's O and
// its log-sum-exp: the reference writes them one after another, in tensor order) is compared with
// |out - ref| <= atol + rtol * |ref|; then the kernel is timed: --rounds rounds of --batch
// launches between two hipEvents, after a warm-up; the median round gives the time per launch.
// One JSON result line on stdout. What differs between graphs is in graph_table.h.
#include <hip/hip_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_harness_hip.h"
#include "graph_table.h"

extern "C" int pt_kernel_launch(hipModule_t mod, const hipDeviceptr_t *slots, hipStream_t stream);
int pt_reference_run(void *const *slots, float *ref_out, hipStream_t stream); // reference.hip

static void check(hipError_t rc, const char *call)
{
    if (rc == hipSuccess)
        return;
    fprintf(stderr, "harness: %s failed: %s\n", call, hipGetErrorString(rc));
    printf("{\"graph\": \"%s\", \"target\": \"%s\", \"error\": \"%s: %s\"}\n", GRAPH_NAME, TARGET,
           call, hipGetErrorName(rc));
    exit(1);
}

// ---- element types and seeded random inputs (as harness.c) ----
static float bits_f32(uint32_t x) { float f; memcpy(&f, &x, 4); return f; }
static uint16_t f32_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40u);
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
static float bf16_to_f32(uint16_t h) { return bits_f32((uint32_t)h << 16); }
static uint16_t f32_to_f16(float f) { _Float16 h = (_Float16)f; uint16_t u; memcpy(&u, &h, 2); return u; }
static float f16_to_f32(uint16_t u) { _Float16 h; memcpy(&h, &u, 2); return (float)h; }

static uint64_t splitmix_nth(uint64_t s0, uint64_t n)
{
    uint64_t z = s0 + n * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// Element e holds the stream's (e+1)-th draw, uniform in [-1, 1): harness.c's inputs.
static void fill_random(void *buf, const tensor_info *t, int index, unsigned long long seed)
{
    const uint64_t s0 = seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(index + 1));
    for (long long e = 0; e < t->elems; e++) {
        float v = -1.0f + 2.0f * (float)((double)(splitmix_nth(s0, (uint64_t)e + 1) >> 40) / 16777216.0);
        if (t->dtype == DT_F16)
            ((uint16_t *)buf)[e] = f32_to_f16(v);
        else if (t->dtype == DT_BF16)
            ((uint16_t *)buf)[e] = f32_to_bf16(v);
        else
            ((float *)buf)[e] = v;
    }
}

static size_t bytes_of(const tensor_info *t) { return (size_t)t->elems * (t->dtype == DT_F32 ? 4 : 2); }

static float load_elem(const void *buf, int dtype, long long e)
{
    if (dtype == DT_F16)
        return f16_to_f32(((const uint16_t *)buf)[e]);
    if (dtype == DT_BF16)
        return bf16_to_f32(((const uint16_t *)buf)[e]);
    return ((const float *)buf)[e];
}

// Every element of output t against the reference; the count of mismatches, the worst error.
static long long compare(const tensor_info *t, const float *ref, const void *out, double *max_err)
{
    long long bad = 0;
    *max_err = 0;
    for (long long e = 0; e < t->elems; e++) {
        double r = ref[e], o = load_elem(out, t->dtype, e), err = fabs(o - r);
        if (!(err <= t->atol + t->rtol * fabs(r))) { // NaN fails too
            if (bad < 5)
                fprintf(stderr, "harness: %s[%lld] = %g, reference %g\n", t->name, e, o, r);
            bad++;
        }
        *max_err = err > *max_err || err != err ? err : *max_err;
    }
    return bad;
}

struct options {
    unsigned long long seed = 1;
    int rounds = 20, batch = 20;
    bool check_only = false;
};

static options parse(int argc, char **argv)
{
    options o;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            o.seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            o.rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--batch") && i + 1 < argc)
            o.batch = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--check-only"))
            o.check_only = true;
        else {
            fprintf(stderr, "usage: %s [--seed N] [--rounds N] [--batch N] [--check-only]\n", argv[0]);
            exit(2);
        }
    }
    if (o.rounds < 1 || o.batch < 1) {
        fprintf(stderr, "harness: --rounds and --batch must be at least 1\n");
        exit(2);
    }
    return o;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

// The median of `rounds` rounds of `batch` back-to-back launches, in ms per launch.
static float time_kernel(hipModule_t mod, void *const *slots, hipStream_t s, const options &o)
{
    hipEvent_t e0, e1;
    check(hipEventCreate(&e0), "hipEventCreate");
    check(hipEventCreate(&e1), "hipEventCreate");
    for (int i = 0; i < 3 * o.batch; i++) // warm-up: clocks up, code object resident
        check((hipError_t)pt_kernel_launch(mod, slots, s), "pt_kernel_launch");
    float *ms = (float *)malloc(sizeof(float) * (size_t)o.rounds);
    for (int r = 0; r < o.rounds; r++) {
        check(hipEventRecord(e0, s), "hipEventRecord");
        for (int i = 0; i < o.batch; i++)
            check((hipError_t)pt_kernel_launch(mod, slots, s), "pt_kernel_launch");
        check(hipEventRecord(e1, s), "hipEventRecord");
        check(hipEventSynchronize(e1), "hipEventSynchronize");
        check(hipEventElapsedTime(&ms[r], e0, e1), "hipEventElapsedTime");
        ms[r] /= (float)o.batch;
    }
    qsort(ms, (size_t)o.rounds, sizeof(float), cmp_float);
    float med = ms[o.rounds / 2];
    free(ms);
    return med;
}

int main(int argc, char **argv)
{
    options o = parse(argc, argv);
    hipModule_t mod;
    hipStream_t s;
    check(hipModuleLoad(&mod, "kernel.hsaco"), "hipModuleLoad(kernel.hsaco)");
    check(hipStreamCreate(&s), "hipStreamCreate");
    void *slots[N_TENSORS] = {0};
    long long ref_elems = 0; // the reference writes every output, in tensor order, into one buffer
    for (int t = 0; t < N_TENSORS; t++) {
        const tensor_info *ti = &TENSORS[t];
        if (ti->role == ROLE_INTERMEDIATE)
            continue; // never materialised by the kernel or the reference (attention's S and P)
        check(hipMalloc(&slots[t], bytes_of(ti)), "hipMalloc");
        if (ti->role == ROLE_OUTPUT)
            ref_elems += ti->elems;
        if (ti->role != ROLE_INPUT)
            continue;
        void *host = malloc(bytes_of(ti));
        fill_random(host, ti, t, o.seed);
        check(hipMemcpy(slots[t], host, bytes_of(ti), hipMemcpyHostToDevice), "hipMemcpy");
        free(host);
    }
    float *ref_d, *ref = (float *)malloc(sizeof(float) * (size_t)ref_elems);
    check(hipMalloc((void **)&ref_d, sizeof(float) * (size_t)ref_elems), "hipMalloc");
    check((hipError_t)pt_reference_run(slots, ref_d, s), "pt_reference_run");
    for (int t = 0; t < N_TENSORS; t++) // NaN: an element the kernel leaves unwritten fails
        if (TENSORS[t].role == ROLE_OUTPUT)
            check(hipMemsetAsync(slots[t], 0xff, bytes_of(&TENSORS[t]), s), "hipMemset");
    check((hipError_t)pt_kernel_launch(mod, slots, s), "pt_kernel_launch");
    check(hipStreamSynchronize(s), "hipStreamSynchronize");
    check(hipMemcpy(ref, ref_d, sizeof(float) * (size_t)ref_elems, hipMemcpyDeviceToHost), "hipMemcpy");
    double max_err = 0;
    long long bad = 0, at = 0;
    for (int t = 0; t < N_TENSORS; t++) { // every element of every output
        const tensor_info *to = &TENSORS[t];
        if (to->role != ROLE_OUTPUT)
            continue;
        void *got = malloc(bytes_of(to));
        check(hipMemcpy(got, slots[t], bytes_of(to), hipMemcpyDeviceToHost), "hipMemcpy");
        double e;
        bad += compare(to, ref + at, got, &e);
        max_err = e > max_err || e != e ? e : max_err;
        at += to->elems;
        free(got);
    }
    float ms = bad || o.check_only ? 0.f : time_kernel(mod, slots, s, o);
    printf("{\"graph\": \"%s\", \"target\": \"%s\", \"kernel\": \"%s\", \"check\": \"%s\", "
           "\"mismatches\": %lld, \"elements\": %lld, \"max_abs_err\": %g, \"ms\": %.6f, \"tflops\": %.2f, "
           "\"method\": \"median of %d rounds of %d launches between hipEvents\"}\n",
           GRAPH_NAME, TARGET, KERNEL_NAME, bad ? "fail" : "pass", bad, ref_elems, max_err, ms,
           ms > 0 ? USEFUL_FLOPS / (ms * 1e-3) / 1e12 : 0.0, o.rounds, o.batch);
    return bad ? 1 : 0;
}
