// calibrate.cu — the microbenchmarks behind a calibrated hardware model
// (`pipethreader-cli calibrate`, docs/FORMAT-hw.md "Calibration").
//
// Measures, with every SM busy (one CTA per SM) unless a measurement says otherwise:
//   * TMA: bulk tensor loads of 64/128/256 x 64 f16 tiles (8/16/32 KB, 128B swizzle) issued by
//     one thread per CTA into a ring of stages completing on mbarriers, streaming distinct tiles
//     of a buffer far larger than L2 ("hbm") and of a buffer of half the L2 ("l2"); bulk tensor
//     stores to HBM; the latency of one isolated load (one CTA); the issue time of one load.
//   * wgmma m64nNk16 (f16, bf16) and m64nNk32 (fp8 e4m3), N = 64/128/256, operands in shared
//     memory, one or two warpgroups per SM issuing back to back; one instruction's latency.
//   * CUDA-core pieces of one warpgroup (and of two sharing an SM): row max, exp2, row sum,
//     rescale, elementwise, f32->f16x2 convert, int4->f16 dequant, shared-memory fill, cumsum,
//     exp decay, reduce; the latency of a one-element-per-thread piece.
//   * mbarrier hand-off (producer warp <-> consumer warpgroup) and bar.sync cost.
//   * the SM clock (%clock64 against %globaltimer) during every measurement.
// Prints ONE JSON object on stdout ("format": "pipethreader.calibration"); diagnostics go to
// stderr. Every measurement is warmed up and repeated (median); a failed one becomes an
// "error" string in place of its numbers, never a crash. A watchdog prints what was measured
// so far and exits 3 if the whole run exceeds --timeout.
//
// Build: nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -o calibrate calibrate.cu -lcuda
//        (pt_device.cuh is taken from beside this file, else from ../../codegen/device/)
// Run:   ./calibrate [--date TEXT] [--timeout SECONDS] [--quick] > result.json
#if __cplusplus < 201703L
#error "calibrate.cu needs C++17 (if constexpr): add -std=c++17"
#endif
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <unistd.h>
#include <vector>

#if __has_include("pt_device.cuh")
#include "pt_device.cuh"
#else
#include "../../codegen/device/pt_device.cuh"
#endif

#define DEV __device__ __forceinline__

// =============================================================================================
// Device helpers
// =============================================================================================

// Set when a bounded wait gives up: the kernel finishes and the host reports an error instead
// of hanging.
__device__ unsigned int g_fail;

struct Rec {
    unsigned long long t0, t1; // %globaltimer, ns
    unsigned long long c0, c1; // %clock64 of the same SM
};

DEV unsigned long long gtimer()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
    return t;
}

DEV unsigned long long clk()
{
    unsigned long long c;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
    return c;
}

DEV void rec_begin(Rec &r)
{
    r.t0 = gtimer();
    r.c0 = clk();
}

DEV void rec_end(Rec &r, Rec *out)
{
    r.c1 = clk();
    r.t1 = gtimer();
    out[blockIdx.x] = r;
}

// Parity wait that gives up after 2 s of polling (sets g_fail) instead of hanging the GPU.
DEV bool wait_bounded(uint64_t *bar, uint32_t parity)
{
    if (pt::mbar_try_wait(bar, parity))
        return true;
    unsigned long long start = gtimer();
    for (unsigned n = 1;; n++) {
        if (pt::mbar_try_wait(bar, parity))
            return true;
        if ((n & 255u) == 0 && gtimer() - start > 2000000000ull) {
            atomicOr(&g_fail, 1u);
            return false;
        }
    }
}

DEV unsigned char *align1024(unsigned char *p)
{
    uint32_t a = pt::smem_addr(p);
    return p + ((1024u - (a & 1023u)) & 1023u);
}

DEV void keepf(float &v) { asm volatile("" : "+f"(v)); }

DEV float ex2(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// f16x2 {hi, lo} from two floats (one F2FP instruction).
DEV uint32_t pack_f16x2(float lo, float hi)
{
    uint32_t r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}

DEV uint32_t hfma2(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t r;
    asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}

// bf16x2 {hi, lo} from two floats, and a paired bf16 multiply (the factored decay's pieces).
DEV uint32_t pack_bf16x2(float lo, float hi)
{
    uint32_t r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}

DEV uint32_t mul_bf16x2(uint32_t a, uint32_t b)
{
    uint32_t r;
    asm("mul.rn.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}

DEV float ld_volatile(const float *p)
{
    float v;
    asm volatile("ld.volatile.shared.f32 %0, [%1];" : "=f"(v) : "r"(pt::smem_addr(p)) : "memory");
    return v;
}

DEV void st_volatile(uint32_t *p, uint32_t v)
{
    asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"(pt::smem_addr(p)), "r"(v) : "memory");
}

DEV void st_volatile4(float *p, float v)
{
    asm volatile("st.volatile.shared.v4.f32 [%0], {%1, %1, %1, %1};" ::"r"(pt::smem_addr(p)),
                 "f"(v)
                 : "memory");
}

// =============================================================================================
// Clock probe: one thread spins on dependent FMAs for `ns` nanoseconds.
// =============================================================================================

__global__ void clock_probe(unsigned long long ns, Rec *rec, float *out)
{
    if (threadIdx.x != 0)
        return;
    Rec r;
    rec_begin(r);
    float a = 1.0f + (float)blockIdx.x * 1e-9f;
    while (gtimer() - r.t0 < ns)
        for (int i = 0; i < 256; i++)
            a = fmaf(a, 0.9999999f, 1e-7f);
    rec_end(r, rec);
    out[blockIdx.x] = a;
}

// =============================================================================================
// TMA
// =============================================================================================

constexpr int TMA_MAX_STAGES = 16;
constexpr int TMA_STORE_STAGES = 4;
constexpr int TMA_ISSUE_BATCH = 16;

// Tile j of a [tiles_y x tiles_x] grid of `rows` x 64 boxes: element coordinates.
DEV void tile_xy(long long j, int tiles_x, int rows, int &c0, int &c1)
{
    c0 = (int)(j % tiles_x) * 64;
    c1 = (int)(j / tiles_x) * rows;
}

// One thread streams `iters` tiles through a ring of `stages` buffers: it issues load i once
// load i - stages (same buffer) has completed. CTA b reads tiles b, b + grid, ... (mod total),
// so all SMs stream distinct tiles.
__global__ void __launch_bounds__(32, 1)
tma_load_stream(const __grid_constant__ CUtensorMap map, int rows, int tiles_x, long long total,
                int iters, int stages, Rec *rec)
{
    extern __shared__ unsigned char smem_raw[];
    __shared__ __align__(8) uint64_t full[TMA_MAX_STAGES];
    unsigned char *buf = align1024(smem_raw);
    if (threadIdx.x != 0)
        return;
    for (int s = 0; s < stages; s++)
        pt::mbar_init(&full[s], 1);
    pt::mbar_fence_init();
    const uint32_t bytes = (uint32_t)rows * 128u;
    Rec r;
    rec_begin(r);
    long long j = blockIdx.x % total;
    bool ok = true;
    for (int i = 0; i < iters; i++) {
        int s = i % stages;
        if (i >= stages && !(ok = wait_bounded(&full[s], (uint32_t)((i / stages - 1) & 1))))
            break;
        int c0, c1;
        tile_xy(j, tiles_x, rows, c0, c1);
        pt::mbar_arrive_expect_tx(&full[s], bytes);
        pt::tma_load_2d(buf + (size_t)s * bytes, &map, &full[s], c0, c1);
        j += gridDim.x;
        if (j >= total)
            j -= total;
    }
    for (int i = iters > stages ? iters - stages : 0; ok && i < iters; i++)
        ok = wait_bounded(&full[i % stages], (uint32_t)((i / stages) & 1));
    rec_end(r, rec);
}

// One thread streams bulk tensor stores of distinct tiles, at most TMA_STORE_STAGES groups
// still reading shared memory.
__global__ void __launch_bounds__(32, 1)
tma_store_stream(const __grid_constant__ CUtensorMap map, int rows, int tiles_x, long long total,
                 int iters, Rec *rec)
{
    extern __shared__ unsigned char smem_raw[];
    unsigned char *buf = align1024(smem_raw);
    const uint32_t bytes = (uint32_t)rows * 128u;
    uint32_t *w = reinterpret_cast<uint32_t *>(buf);
    for (uint32_t i = threadIdx.x; i < bytes * TMA_STORE_STAGES / 4; i += blockDim.x)
        w[i] = 0x3c003c00u ^ (i * 2654435761u & 0x03ff03ffu); // finite f16 values
    pt::fence_proxy_async();
    __syncwarp();
    if (threadIdx.x != 0)
        return;
    Rec r;
    rec_begin(r);
    long long j = blockIdx.x % total;
    for (int i = 0; i < iters; i++) {
        int c0, c1;
        tile_xy(j, tiles_x, rows, c0, c1);
        pt::tma_store_2d(&map, buf + (size_t)(i % TMA_STORE_STAGES) * bytes, c0, c1);
        pt::tma_store_commit();
        asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(TMA_STORE_STAGES - 1) : "memory");
        j += gridDim.x;
        if (j >= total)
            j -= total;
    }
    pt::tma_store_wait_all();
    rec_end(r, rec);
}

// One CTA, one thread: `reps` loads one at a time, each timed from issue to mbarrier
// completion. Tile r is first + r * step (step 0: the same tile again, an L2 hit).
__global__ void __launch_bounds__(32, 1)
tma_load_latency(const __grid_constant__ CUtensorMap map, int rows, int tiles_x, long long total,
                 long long first, int step, int reps, unsigned *samples, Rec *rec)
{
    extern __shared__ unsigned char smem_raw[];
    __shared__ __align__(8) uint64_t bar;
    unsigned char *buf = align1024(smem_raw);
    if (threadIdx.x != 0)
        return;
    pt::mbar_init(&bar, 1);
    pt::mbar_fence_init();
    const uint32_t bytes = (uint32_t)rows * 128u;
    Rec r;
    rec_begin(r);
    for (int i = 0; i < reps; i++) {
        int c0, c1;
        tile_xy((first + (long long)i * step) % total, tiles_x, rows, c0, c1);
        unsigned long long a = clk();
        pt::mbar_arrive_expect_tx(&bar, bytes);
        pt::tma_load_2d(buf, &map, &bar, c0, c1);
        bool ok = wait_bounded(&bar, (uint32_t)(i & 1));
        unsigned long long b = clk();
        samples[i] = ok ? (unsigned)(b - a) : 0u;
        if (!ok)
            break;
    }
    rec_end(r, rec);
}

// One CTA, one thread: time to issue TMA_ISSUE_BATCH loads (expect_tx + copy) back to back.
__global__ void __launch_bounds__(32, 1)
tma_issue_cost(const __grid_constant__ CUtensorMap map, int rows, int tiles_x, int reps,
               unsigned *samples, Rec *rec)
{
    extern __shared__ unsigned char smem_raw[];
    __shared__ __align__(8) uint64_t bars[TMA_ISSUE_BATCH];
    unsigned char *buf = align1024(smem_raw);
    if (threadIdx.x != 0)
        return;
    for (int q = 0; q < TMA_ISSUE_BATCH; q++)
        pt::mbar_init(&bars[q], 1);
    pt::mbar_fence_init();
    const uint32_t bytes = (uint32_t)rows * 128u;
    Rec r;
    rec_begin(r);
    for (int i = 0; i < reps; i++) {
        unsigned long long a = clk();
#pragma unroll
        for (int q = 0; q < TMA_ISSUE_BATCH; q++) {
            pt::mbar_arrive_expect_tx(&bars[q], bytes);
            pt::tma_load_2d(buf + (size_t)q * bytes, &map, &bars[q], (q % tiles_x) * 64,
                            (q / tiles_x) * rows);
        }
        unsigned long long b = clk();
        bool ok = true;
        for (int q = 0; q < TMA_ISSUE_BATCH; q++)
            ok = ok && wait_bounded(&bars[q], (uint32_t)(i & 1));
        samples[i] = ok ? (unsigned)(b - a) : 0u;
        if (!ok)
            break;
    }
    rec_end(r, rec);
}

// =============================================================================================
// wgmma
// =============================================================================================

#define PT_REGS32 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define PT_REGS64 PT_REGS32 ", " \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define PT_REGS128 PT_REGS64 ", " \
    "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
    "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
    "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, " \
    "%111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, " \
    "%125, %126, %127"
#define PT_D8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), \
    "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define PT_D32(i) PT_D8(i), PT_D8(i + 8), PT_D8(i + 16), PT_D8(i + 24)
#define PT_D64 PT_D32(0), PT_D32(32)
#define PT_D128 PT_D32(0), PT_D32(32), PT_D32(64), PT_D32(96)

enum { DT_F16, DT_BF16, DT_E4M3, N_DT };

// One wgmma with A and B from shared memory (K-major, 128B swizzle), accumulating into d.
template <int N, int DT> struct Mma;
#define PT_MMA(N, DT, TYPE, TAIL, REGS, OPS, IA, IB, IP)                                      \
    template <> struct Mma<N, DT> {                                                          \
        static DEV void run(float (&d)[N / 2], uint64_t a, uint64_t b, uint32_t scale_d)      \
        {                                                                                    \
            asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " IP ", 0;\n"                      \
                         "wgmma.mma_async.sync.aligned." TYPE " {" REGS "}, " IA ", " IB      \
                         ", p, 1, 1" TAIL ";\n}\n"                                           \
                         : OPS                                                               \
                         : "l"(a), "l"(b), "r"(scale_d));                                    \
        }                                                                                    \
    };
PT_MMA(64, DT_F16, "m64n64k16.f32.f16.f16", ", 0, 0", PT_REGS32, PT_D32(0), "%32", "%33", "%34")
PT_MMA(128, DT_F16, "m64n128k16.f32.f16.f16", ", 0, 0", PT_REGS64, PT_D64, "%64", "%65", "%66")
PT_MMA(256, DT_F16, "m64n256k16.f32.f16.f16", ", 0, 0", PT_REGS128, PT_D128, "%128", "%129",
       "%130")
PT_MMA(64, DT_BF16, "m64n64k16.f32.bf16.bf16", ", 0, 0", PT_REGS32, PT_D32(0), "%32", "%33",
       "%34")
PT_MMA(128, DT_BF16, "m64n128k16.f32.bf16.bf16", ", 0, 0", PT_REGS64, PT_D64, "%64", "%65",
       "%66")
PT_MMA(256, DT_BF16, "m64n256k16.f32.bf16.bf16", ", 0, 0", PT_REGS128, PT_D128, "%128", "%129",
       "%130")
PT_MMA(64, DT_E4M3, "m64n64k32.f32.e4m3.e4m3", "", PT_REGS32, PT_D32(0), "%32", "%33", "%34")
PT_MMA(128, DT_E4M3, "m64n128k32.f32.e4m3.e4m3", "", PT_REGS64, PT_D64, "%64", "%65", "%66")
PT_MMA(256, DT_E4M3, "m64n256k32.f32.e4m3.e4m3", "", PT_REGS128, PT_D128, "%128", "%129", "%130")

constexpr int MMA_PER_GROUP = 4; // k16 (k32 fp8) steps of one 128-byte K-tile per commit

// Small non-zero values with random signs and mantissas (data-dependent power is real), two
// or four per 32-bit word; finite products so the accumulators stay finite.
DEV uint32_t operand_word(int dt, uint32_t i)
{
    uint32_t h = i * 2654435761u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    if (dt == DT_F16) // exponent 12..13: 0.125..0.5
        return (h & 0x83ff83ffu) | 0x30003000u | ((h >> 5) & 0x04000400u);
    if (dt == DT_BF16) // exponent 125..126
        return (h & 0x807f807fu) | 0x3e803e80u;
    return (h & 0x87878787u) | 0x30303030u; // e4m3 exponent 6: never the NaN pattern
}

// A (64 x 128 bytes) then B (N x 128 bytes) at sm, written by the whole block and made
// visible to the tensor cores' (async proxy) reads.
template <int N> DEV void fill_operands(unsigned char *sm, int dt)
{
    uint32_t *w = reinterpret_cast<uint32_t *>(sm);
    for (uint32_t i = threadIdx.x; i < (8192u + N * 128u) / 4u; i += blockDim.x)
        w[i] = operand_word(dt, i);
    pt::fence_proxy_async();
    __syncthreads();
}

// d += A(64 x K) * B(N x K)^T, back to back: each iteration one commit group of
// MMA_PER_GROUP instructions over a 128-byte K-tile, at most one group still in flight.
template <int N, int DT>
__global__ void __launch_bounds__(256, 1) wgmma_stream(int iters, Rec *rec, float *out)
{
    extern __shared__ unsigned char smem_raw[];
    unsigned char *sm = align1024(smem_raw);
    const int tid = threadIdx.x;
    fill_operands<N>(sm, DT);
    const uint64_t da = pt::desc_sw128(sm, 16, 1024), db = pt::desc_sw128(sm + 8192, 16, 1024);
    float d[N / 2];
#pragma unroll
    for (int i = 0; i < N / 2; i++)
        d[i] = 0.0f;
    Rec r;
    if (tid == 0)
        rec_begin(r);
    for (int it = 0; it < iters; it++) {
        pt::wgmma_fence();
#pragma unroll
        for (int k = 0; k < MMA_PER_GROUP; k++) // +32 bytes along K = +2 in the >>4 address
            Mma<N, DT>::run(d, da + 2u * k, db + 2u * k, 1u);
        pt::wgmma_commit();
        pt::wgmma_wait<1>();
    }
    pt::wgmma_wait<0>();
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < N / 2; i++) {
        keepf(d[i]); // ordered after the wait: no accumulator read moves above it
        s += d[i];
    }
    __syncthreads();
    if (tid == 0)
        rec_end(r, rec);
    out[blockIdx.x * blockDim.x + tid] = s;
}

// One warpgroup on one SM: a single wgmma timed from before its fence to after wait_group 0.
template <int N, int DT>
__global__ void __launch_bounds__(128, 1) wgmma_latency(int reps, unsigned *samples, Rec *rec,
                                                         float *out)
{
    extern __shared__ unsigned char smem_raw[];
    unsigned char *sm = align1024(smem_raw);
    const int tid = threadIdx.x;
    fill_operands<N>(sm, DT);
    const uint64_t da = pt::desc_sw128(sm, 16, 1024), db = pt::desc_sw128(sm + 8192, 16, 1024);
    float d[N / 2];
#pragma unroll
    for (int i = 0; i < N / 2; i++)
        d[i] = 0.0f;
    Rec r;
    if (tid == 0)
        rec_begin(r);
    for (int i = 0; i < reps; i++) {
        pt::named_sync(1, 128); // the four warps start together
        unsigned long long a = clk();
        pt::wgmma_fence();
        Mma<N, DT>::run(d, da, db, 1u);
        pt::wgmma_commit();
        pt::wgmma_wait<0>();
        unsigned long long b = clk();
        if (tid == 0)
            samples[i] = (unsigned)(b - a);
    }
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < N / 2; i++) {
        keepf(d[i]);
        s += d[i];
    }
    __syncthreads();
    if (tid == 0)
        rec_end(r, rec);
    out[tid] = s;
}

// =============================================================================================
// CUDA-core pieces
// =============================================================================================

enum {
    P_ROW_MAX, P_EXP2, P_ROW_SUM, P_RESCALE, P_ELEMENTWISE, P_CONVERT, P_DEQUANT_INT4, P_FILL,
    P_CUMSUM, P_EXP_DECAY, P_REDUCE, P_DECAY_COLS, P_DECAY_SCALE, N_PIECES
};
static const char *const piece_names[N_PIECES] = {
    "row_max", "exp2", "row_sum", "rescale", "elementwise", "convert_f16x2", "dequant_int4",
    "fill_smem", "cumsum", "exp_decay", "reduce", "decay_cols", "decay_scale"};
// Elements one thread handles per loop iteration (the rate's unit of work).
// (decay_cols counts its columns: 2 a lane, each standing for 16 elements of the tile)
static const int piece_elems[N_PIECES] = {32, 32, 32, 32, 32, 32, 32, 32, 16, 32, 32, 2, 32};
// What each loop iteration does per thread, for the JSON (the rate's meaning).
static const char *const piece_what[N_PIECES] = {
    "x[i] = fmaxf(x[i], x[i+1]): one FMNMX per element, loop-carried, no shuffles",
    "x = ex2.approx(x * 0.5 - 1): FFMA + MUFU.EX2",
    "FADD into 8 running sums, no shuffles",
    "x *= row factor: FMUL",
    "x = max(fma(x, a, b), lo): FFMA + FMNMX",
    "cvt.rn.f16x2.f32: one F2FP per 2 elements",
    "int4 -> f16: shift + LOP3 (magic 0x6400) + HFMA2 per 2 elements, 1 LOP3 per 8 to chain",
    "st.shared.v4 of a value: 4 elements per 16-byte store",
    "4 rows of 4: local scan (3 FADD) + 5-step shfl.up warp scan + carry",
    "factored decay: per 32 elements 18 x (FFMA + range test + MUFU.EX2), then FMUL + mask FMUL",
    "FADD into 8 running sums (as row_sum)",
    "decay as column factors (decay_form.h): a lane's 2 columns (the rate counts columns; each "
    "stands for 16 elements of the tile), each FFMA + range test + MUFU.EX2, a vote",
    "the factored decay's scaled fragment: per 32 elements 2 FMUL (column factor x vector), "
    "1 F2FP.BF16, 8 SHFL, 16 HMUL2.BF16 and 8 LOP3 that keep the results"};

// The loop-carried forms below keep every instruction alive through ptxas (no empty-asm
// sinks, which ptxas would see through): results feed the next iteration.
template <int P>
__global__ void __launch_bounds__(256, 1) piece_stream(int iters, const float *in, float *out,
                                                       Rec *rec)
{
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const int tid = threadIdx.x, lane = tid & 31;
    float x[32], acc[8], mask[32];
    uint32_t q[4], ob[4];
    const float *src = P == P_CUMSUM ? in + 4096 : in; // cumsum scans zeros: stays finite
#pragma unroll
    for (int i = 0; i < 32; i++) {
        x[i] = src[(tid * 32 + i) & 4095];
        mask[i] = ((lane * 7 + i * 3) & 15) < 12 ? 1.0f : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < 8; i++) // cumsum carries start at 0 too, or the scan overflows
        acc[i] = P == P_CUMSUM ? 0.0f : in[8192 + i];
#pragma unroll
    for (int k = 0; k < 4; k++) {
        q[k] = __float_as_uint(x[k]) * 2654435761u;
        ob[k] = 0u;
    }
    const uint32_t scale2 = 0x00010001u; // f16 2^-24: the chained dequant sums stay finite
    float *fill = reinterpret_cast<float *>(smem_raw);
    __syncthreads();
    Rec r;
    if (tid == 0)
        rec_begin(r);
    for (int it = 0; it < iters; it++) {
        if constexpr (P == P_ROW_MAX) {
            // Each element becomes the max of itself and its neighbour: one FMNMX per element,
            // loop-carried (max is associative, so ptxas could hoist a max over unchanging
            // inputs out of the loop).
            float y[32];
#pragma unroll
            for (int i = 0; i < 32; i++)
                y[i] = fmaxf(x[i], x[(i + 1) & 31]);
#pragma unroll
            for (int i = 0; i < 32; i++)
                x[i] = y[i];
        } else if constexpr (P == P_EXP2) {
#pragma unroll
            for (int i = 0; i < 32; i++)
                x[i] = ex2(fmaf(x[i], 0.5f, -1.0f));
        } else if constexpr (P == P_ROW_SUM || P == P_REDUCE) {
#pragma unroll
            for (int i = 0; i < 32; i++)
                keepf(x[i]);
#pragma unroll
            for (int i = 0; i < 32; i++)
                acc[i & 7] += x[i];
        } else if constexpr (P == P_RESCALE) {
#pragma unroll
            for (int i = 0; i < 32; i++)
                x[i] *= i < 16 ? 0.999995f : 1.000005f;
        } else if constexpr (P == P_ELEMENTWISE) {
#pragma unroll
            for (int i = 0; i < 32; i++)
                x[i] = fmaxf(fmaf(x[i], 0.5f, 1.0f), -4.0f);
        } else if constexpr (P == P_CONVERT) {
#pragma unroll
            for (int i = 0; i < 16; i++) // the packed pair becomes the next input: a carried chain
                x[2 * i] = __uint_as_float(pack_f16x2(x[2 * i], x[2 * i + 1]));
        } else if constexpr (P == P_DEQUANT_INT4) {
#pragma unroll
            for (int k = 0; k < 4; k++) {
                uint32_t wq = q[k], b = ob[k];
#pragma unroll
                for (int s = 0; s < 4; s++) // nibbles s and s+4 -> 1024 + n in each f16 half
                    b = hfma2(((wq >> (4 * s)) & 0x000f000fu) | 0x64006400u, scale2, b);
                ob[k] = b;
                q[k] = wq ^ (b & 0x00010001u);
            }
        } else if constexpr (P == P_FILL) {
            float v = x[0];
            keepf(v);
#pragma unroll
            for (int k = 0; k < 8; k++) // consecutive threads, consecutive 16 bytes: no conflicts
                st_volatile4(fill + (k * blockDim.x + tid) * 4, v);
        } else if constexpr (P == P_CUMSUM) {
#pragma unroll
            for (int g = 0; g < 4; g++) {
                float a0 = x[4 * g], s1 = a0 + x[4 * g + 1], s2 = s1 + x[4 * g + 2],
                      s3 = s2 + x[4 * g + 3], t = s3;
#pragma unroll
                for (int dd = 1; dd < 32; dd *= 2) {
                    float v = __shfl_up_sync(0xffffffffu, t, dd);
                    if (lane >= dd)
                        t += v;
                }
                float base = t - s3 + acc[g];
                x[4 * g] = a0 + base;
                x[4 * g + 1] = s1 + base;
                x[4 * g + 2] = s2 + base;
                x[4 * g + 3] = s3 + base;
                acc[g] += __shfl_sync(0xffffffffu, t, 31);
            }
        } else if constexpr (P == P_EXP_DECAY) {
            // the factored decay tile (pt_ssd.cuh): a thread's 32 elements are 2 rows x 16
            // columns; 2 row and 16 column exps, each behind an FFMA and its range test, one
            // vote, then a product and the mask per element
            float rf[2], cf[16];
            bool ok = true;
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const float d = fmaf(x[h], 0.5f, -1.0f);
                ok = ok && d <= 40.0f;
                rf[h] = ex2(d);
            }
#pragma unroll
            for (int j = 0; j < 16; j++) {
                const float c = fmaf(x[2 + j], 0.5f, -1.0f);
                ok = ok && fabsf(c) <= 40.0f;
                cf[j] = ex2(c);
            }
            ok = __all_sync(0xffffffffu, ok);
#pragma unroll
            for (int i = 0; i < 32; i++)
                x[i] = ok ? rf[(i >> 1) & 1] * cf[(i & 1) + 2 * (i >> 2)] * mask[i] : x[i];
        } else if constexpr (P == P_DECAY_COLS) {
            // the factored decay's exp_decay (pt_ssd.cuh decay_cols): a lane's 2 columns of the
            // warp's 64 (32 elements of the 2 x 16 tile a thread covers), each an FFMA, its
            // range test and an exp; one vote
            bool ok = true;
#pragma unroll
            for (int j = 0; j < 2; j++) {
                const float c = fmaf(x[j], 0.5f, -1.0f);
                ok = ok && c <= 40.0f;
                x[j] = ex2(c);
            }
            ok = __all_sync(0xffffffffu, ok);
            x[2] = ok ? x[2] + 1.0f : x[2];
        } else if constexpr (P == P_DECAY_SCALE) {
            // the factored decay's scaled fragment (pt_ssd.cuh afrag_decay): a lane's 2 column
            // products (carried, drifting by 5e-6 an iteration so they stay finite) packed in a
            // pair, 8 shuffles bringing each thread its pairs, each multiplying two fragment
            // registers; one LOP3 per shuffle keeps the results
            x[16] *= 0.999995f;
            x[17] *= 1.000005f;
            const uint32_t w = pack_bf16x2(x[16], x[17]);
#pragma unroll
            for (int k = 0; k < 8; k++) {
                const uint32_t m = __shfl_sync(0xffffffffu, w, (8 * k + (lane & 3)) & 31);
                const uint32_t a = mul_bf16x2(__float_as_uint(x[k]), m);
                const uint32_t b = mul_bf16x2(__float_as_uint(x[8 + k]), m);
                asm("lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(ob[k & 3]) : "r"(a), "r"(b));
            }
        }
    }
    __syncthreads();
    if (tid == 0)
        rec_end(r, rec);
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < 32; i++)
        s += x[i];
#pragma unroll
    for (int i = 0; i < 8; i++)
        s += acc[i];
#pragma unroll
    for (int k = 0; k < 4; k++)
        s += P == P_DECAY_SCALE ? (float)(ob[k] & 0xffu) // bits of bf16 products: any pattern
                                : __half2float(__ushort_as_half((unsigned short)(ob[k] & 0xffffu)));
    out[blockIdx.x * blockDim.x + tid] = s;
}

// The same piece on one element per thread, as a dependent chain (its latency).
template <int P> DEV uint32_t piece_one(float v, int lane, float m, float *fill)
{
    if constexpr (P == P_ROW_MAX || P == P_ROW_SUM) { // the row's quad reduction (2 shuffles)
        float a = P == P_ROW_MAX ? fmaxf(v, 0.5f) : v + 0.5f;
#pragma unroll
        for (int o = 1; o <= 2; o *= 2) {
            float b = __shfl_xor_sync(0xffffffffu, a, o);
            a = P == P_ROW_MAX ? fmaxf(a, b) : a + b;
        }
        return __float_as_uint(a);
    } else if constexpr (P == P_EXP2) {
        return __float_as_uint(ex2(fmaf(v, 0.5f, -1.0f)));
    } else if constexpr (P == P_RESCALE) {
        return __float_as_uint(v * 0.999995f);
    } else if constexpr (P == P_ELEMENTWISE) {
        return __float_as_uint(fmaxf(fmaf(v, 0.5f, 1.0f), -4.0f));
    } else if constexpr (P == P_CONVERT) {
        return pack_f16x2(v, 1.0f);
    } else if constexpr (P == P_DEQUANT_INT4) {
        uint32_t wq = __float_as_uint(v);
        return hfma2(((wq >> 4) & 0x000f000fu) | 0x64006400u, 0x3c003c00u, 0xe400e400u);
    } else if constexpr (P == P_FILL) {
        st_volatile4(fill + lane * 4, v);
        return 0u;
    } else if constexpr (P == P_CUMSUM) {
        float t = v + v * 0.5f;
#pragma unroll
        for (int dd = 1; dd < 32; dd *= 2) {
            float b = __shfl_up_sync(0xffffffffu, t, dd);
            if (lane >= dd)
                t += b;
        }
        return __float_as_uint(t + v);
    } else if constexpr (P == P_EXP_DECAY) {
        return __float_as_uint(ex2(fmaf(v, 0.5f, -1.0f)) * m);
    } else if constexpr (P == P_DECAY_COLS) {
        return __float_as_uint(ex2(fmaf(v, 0.5f, -1.0f)));
    } else if constexpr (P == P_DECAY_SCALE) {
        return mul_bf16x2(__float_as_uint(v), pack_bf16x2(v * m, v));
    } else { // P_REDUCE: a whole-warp reduction tree (5 shuffles)
        float a = v;
#pragma unroll
        for (int o = 1; o < 32; o *= 2)
            a += __shfl_xor_sync(0xffffffffu, a, o);
        return __float_as_uint(a);
    }
}

// One warpgroup on one SM. Each rep times (a) the piece and (b) a baseline that only loads and
// stores the value; the host subtracts the baseline's median. The value is re-read (volatile)
// each rep so nothing is hoisted, and stored (volatile) so the second clock read comes after
// the result exists.
template <int P>
__global__ void __launch_bounds__(128, 1) piece_latency(int reps, const float *in,
                                                        unsigned *samples, Rec *rec)
{
    __shared__ float vin[128];
    __shared__ uint32_t vout[128];
    __shared__ __align__(16) float fill[128 * 4];
    const int tid = threadIdx.x, lane = tid & 31;
    vin[tid] = in[tid];
    const float m = (lane & 3) != 3 ? 1.0f : 0.0f;
    __syncthreads();
    Rec r;
    if (tid == 0)
        rec_begin(r);
    for (int i = 0; i < reps; i++) {
        pt::named_sync(1, 128);
        float v = ld_volatile(&vin[tid]);
        unsigned long long a = clk();
        st_volatile(&vout[tid], __float_as_uint(v));
        unsigned long long b = clk();
        pt::named_sync(1, 128);
        float u = ld_volatile(&vin[tid]);
        unsigned long long c = clk();
        st_volatile(&vout[tid], piece_one<P>(u, lane, m, fill));
        unsigned long long e = clk();
        if (tid == 0) {
            samples[2 * i] = (unsigned)(b - a);
            samples[2 * i + 1] = (unsigned)(e - c);
        }
    }
    __syncthreads();
    if (tid == 0)
        rec_end(r, rec);
}

// =============================================================================================
// Barriers
// =============================================================================================

// Warps 0-3 (a consumer warpgroup) and warp 4 (a producer): ping-pong over two mbarriers.
// full: producer -> consumers (1 arrival); empty: consumers -> producer (one lane per warp,
// after the whole warp has seen `full`). One round trip = two hand-offs.
__global__ void __launch_bounds__(160, 1) mbar_handoff(int iters, Rec *rec,
                                                       unsigned long long *cycles)
{
    __shared__ __align__(8) uint64_t full, empty;
    const int tid = threadIdx.x, warp = tid / 32, lane = tid & 31;
    if (tid == 0) {
        pt::mbar_init(&full, 1);
        pt::mbar_init(&empty, 4);
        pt::mbar_fence_init();
    }
    __syncthreads();
    if (warp == 4) {
        if (lane != 0)
            return;
        Rec r;
        rec_begin(r);
        for (int i = 0; i < iters; i++) {
            pt::mbar_arrive(&full);
            if (!wait_bounded(&empty, (uint32_t)(i & 1)))
                break;
        }
        rec_end(r, rec);
        cycles[blockIdx.x] = r.c1 - r.c0;
    } else {
        for (int i = 0; i < iters; i++) {
            if (!wait_bounded(&full, (uint32_t)(i & 1)))
                break;
            __syncwarp();
            if (lane == 0)
                pt::mbar_arrive(&empty);
        }
    }
}

// 160 threads meet at named barrier 1, `iters` times.
__global__ void __launch_bounds__(160, 1) named_barrier(int iters, Rec *rec,
                                                        unsigned long long *cycles)
{
    Rec r;
    if (threadIdx.x == 0)
        rec_begin(r);
    for (int i = 0; i < iters; i++)
        pt::named_sync(1, 160);
    if (threadIdx.x == 0) {
        rec_end(r, rec);
        cycles[blockIdx.x] = r.c1 - r.c0;
    }
}

// =============================================================================================
// Host: output (with a watchdog that can print what was measured so far)
// =============================================================================================

static char g_out[1 << 20];
static volatile sig_atomic_t g_out_len;
static char g_section[96] = "start";

static void emit(const std::string &frag)
{
    size_t n = std::min(frag.size(), sizeof g_out - 64 - (size_t)g_out_len);
    memcpy(g_out + g_out_len, frag.data(), n);
    g_out_len = (sig_atomic_t)(g_out_len + (sig_atomic_t)n);
}

static void put(const char *s) { (void)!write(1, s, strlen(s)); }

static void on_alarm(int)
{
    (void)!write(1, g_out, (size_t)g_out_len);
    put("\"error\": \"watchdog: --timeout reached during ");
    put(g_section);
    put("\", \"complete\": false}\n");
    _exit(3);
}

static void section(const char *name)
{
    snprintf(g_section, sizeof g_section, "%s", name);
    fprintf(stderr, "calibrate: %s\n", name);
}

static std::string jstr(const std::string &s)
{
    std::string o = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            o += '\\';
            o += (char)c;
        } else if (c < 0x20) {
            char b[8];
            snprintf(b, sizeof b, "\\u%04x", c);
            o += b;
        } else
            o += (char)c;
    }
    return o + "\"";
}

static std::string jnum(double v)
{
    if (!std::isfinite(v))
        return "null";
    char b[40];
    snprintf(b, sizeof b, "%.6g", v);
    return b;
}

static std::string jerr(const std::string &e) { return "{\"error\": " + jstr(e) + "}"; }

// =============================================================================================
// Host: running kernels
// =============================================================================================

#define CK(x) cuda_check((x), #x, __LINE__)

static bool g_dead;          // the context is lost: later measurements are skipped
static std::string g_dead_why;
static int g_sms, g_smem_optin, g_reps = 7;
static double g_idle_mhz;    // clock of one lightly loaded SM (latency conversions)
static double g_target_ns = 1e7; // each throughput run lasts about this long
static std::vector<double> g_loaded_mhz;
static Rec *d_rec;
static unsigned *d_samples;
static unsigned long long *d_cycles;
static float *d_out, *d_in;
constexpr int MAX_SAMPLES = 8192;

struct Fail {
    std::string msg;
};

static void cuda_check(cudaError_t e, const char *what, int line)
{
    if (e == cudaSuccess)
        return;
    std::string msg = std::string(cudaGetErrorString(e)) + " (" + what + ", line " +
                      std::to_string(line) + ")";
    (void)cudaGetLastError();
    if (cudaDeviceSynchronize() != cudaSuccess || cudaGetLastError() != cudaSuccess) {
        g_dead = true; // a sticky error: every later CUDA call would fail too
        g_dead_why = msg;
    }
    throw Fail{msg};
}

static double median(std::vector<double> v)
{
    if (v.empty())
        return NAN;
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Timing {
    double span_ns; // first CTA start to last CTA end (%globaltimer)
    double mhz;     // median over CTAs of clock64 / globaltimer
};

// Synchronise, check errors and the watchdog flag, read `nrec` records back.
template <typename Launch> static Timing run_kernel(int nrec, Launch launch)
{
    if (g_dead)
        throw Fail{"skipped: the CUDA context was lost earlier: " + g_dead_why};
    unsigned zero = 0;
    CK(cudaMemcpyToSymbol(g_fail, &zero, sizeof zero));
    CK(cudaMemset(d_rec, 0, sizeof(Rec) * (size_t)nrec));
    launch();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    unsigned fail = 0;
    CK(cudaMemcpyFromSymbol(&fail, g_fail, sizeof fail));
    if (fail)
        throw Fail{"an mbarrier wait in the kernel gave up after 2 s (a lost TMA completion "
                   "or arrival)"};
    std::vector<Rec> rec((size_t)nrec);
    CK(cudaMemcpy(rec.data(), d_rec, sizeof(Rec) * (size_t)nrec, cudaMemcpyDeviceToHost));
    unsigned long long lo = ~0ull, hi = 0;
    std::vector<double> mhz;
    for (const Rec &r : rec) {
        if (r.t1 <= r.t0 || r.c1 <= r.c0)
            continue;
        lo = std::min(lo, r.t0);
        hi = std::max(hi, r.t1);
        mhz.push_back((double)(r.c1 - r.c0) * 1e3 / (double)(r.t1 - r.t0));
    }
    if ((int)mhz.size() < nrec)
        throw Fail{"only " + std::to_string(mhz.size()) + " of " + std::to_string(nrec) +
                   " CTAs recorded a time span"};
    return Timing{(double)(hi - lo), median(mhz)};
}

// A rate measurement: `run(iters)` launches one run over the whole chip and returns its
// timing; work(iters) / span_ns / divisor is the rate. The first (warm-up) run also scales
// `iters` so that each run lasts about g_target_ns.
struct Rate {
    double value, spread, mhz;
};

template <typename Run, typename Work>
static Rate measure_rate(int iters, Run run, Work work, double divisor)
{
    Timing w = run(iters);
    double scale = g_target_ns / std::max(w.span_ns, 1.0);
    iters = (int)std::min(1e8, std::max(1.0, iters * std::min(scale, 1e4)));
    std::vector<double> rates, mhz;
    for (int i = 0; i < g_reps; i++) {
        Timing t = run(iters);
        rates.push_back(work(iters) / t.span_ns / divisor);
        mhz.push_back(t.mhz);
    }
    double med = median(rates);
    double lo = *std::min_element(rates.begin(), rates.end());
    double hi = *std::max_element(rates.begin(), rates.end());
    if (!(med > 0) || !std::isfinite(med))
        throw Fail{"non-positive or non-finite rate " + jnum(med)};
    double m = median(mhz);
    g_loaded_mhz.push_back(m);
    return Rate{med, (hi - lo) / med, m};
}

static std::string rate_json(const char *key, const Rate &r)
{
    return "{\"" + std::string(key) + "\": " + jnum(r.value) + ", \"spread\": " +
           jnum(r.spread) + ", \"sm_mhz\": " + jnum(r.mhz) + "}";
}

// Median cycles of samples[skip..n) (pairs: odd minus even medians when `paired`), in ns at
// the kernel's own clock when it ran long enough to measure one, else the idle clock.
struct Lat {
    double ns, cycles, mhz;
};

static Lat latency_from(const Timing &t, int n, int skip, bool paired, double per = 1.0)
{
    std::vector<unsigned> s((size_t)n);
    CK(cudaMemcpy(s.data(), d_samples, sizeof(unsigned) * (size_t)n, cudaMemcpyDeviceToHost));
    std::vector<double> a, b;
    for (int i = skip; i < n; i++) {
        if (s[(size_t)i] == 0 && !paired) // 0 marks a load or wgmma that never completed
            throw Fail{"a timed operation did not complete"};
        if (paired && i % 2 == 0)
            b.push_back(s[(size_t)i]);
        else
            a.push_back(s[(size_t)i]);
    }
    double cyc = (median(a) - (paired ? median(b) : 0.0)) / per;
    double mhz = t.span_ns >= 5e5 ? t.mhz : g_idle_mhz;
    if (!std::isfinite(cyc) || !(mhz > 0))
        throw Fail{"no usable samples"};
    if (cyc < 0)
        cyc = 0; // below the baseline's noise
    return Lat{cyc * 1e3 / mhz, cyc, mhz};
}

static std::string lat_json(const Lat &l)
{
    return "{\"ns\": " + jnum(l.ns) + ", \"cycles\": " + jnum(l.cycles) + ", \"sm_mhz\": " +
           jnum(l.mhz) + "}";
}

// Median over repeated latency kernels.
template <typename Once> static std::string latency_json(Once once)
{
    try {
        std::vector<Lat> v;
        for (int i = 0; i < std::max(3, g_reps / 2); i++)
            v.push_back(once());
        std::sort(v.begin(), v.end(), [](const Lat &a, const Lat &b) { return a.ns < b.ns; });
        return lat_json(v[v.size() / 2]);
    } catch (const Fail &f) {
        return jerr(f.msg);
    }
}

template <typename K> static void allow_smem(K kernel)
{
    CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            g_smem_optin));
}

// Dynamic shared memory every kernel asks for: most of the SM, so one CTA per SM.
static size_t dyn_smem() { return (size_t)g_smem_optin; }

// =============================================================================================
// Host: sections
// =============================================================================================

static std::string measure_clock_idle()
{
    try {
        Timing t = run_kernel(1, [] { clock_probe<<<1, 32>>>(20000000ull, d_rec, d_out); });
        g_idle_mhz = t.mhz;
        if (!(g_idle_mhz > 100 && g_idle_mhz < 10000))
            throw Fail{"implausible clock " + jnum(g_idle_mhz) + " MHz"};
        return "{\"sm_mhz\": " + jnum(t.mhz) + ", \"how\": \"one SM spinning for 20 ms\"}";
    } catch (const Fail &f) {
        g_idle_mhz = NAN;
        return jerr(f.msg);
    }
}

static std::string measure_barriers()
{
    std::string o = "{";
    const int iters = 20000;
    try {
        allow_smem(mbar_handoff);
        std::vector<double> ns;
        double mhz = 0;
        for (int rep = 0; rep < g_reps + 1; rep++) {
            Timing t = run_kernel(g_sms, [&] {
                mbar_handoff<<<g_sms, 160, dyn_smem()>>>(iters, d_rec, d_cycles);
            });
            std::vector<unsigned long long> c((size_t)g_sms);
            CK(cudaMemcpy(c.data(), d_cycles, sizeof(unsigned long long) * (size_t)g_sms,
                          cudaMemcpyDeviceToHost));
            std::vector<double> per;
            for (unsigned long long x : c)
                per.push_back((double)x / (2.0 * iters));
            if (rep > 0) {
                ns.push_back(median(per) * 1e3 / t.mhz);
                mhz = t.mhz;
            }
        }
        double v = median(ns);
        o += "\"mbarrier_handoff\": {\"ns\": " + jnum(v) + ", \"cycles\": " +
             jnum(v * mhz / 1e3) + ", \"sm_mhz\": " + jnum(mhz) +
             ", \"how\": \"producer warp arrive -> consumer warpgroup wakes, half a round trip, "
             "all SMs\"}";
    } catch (const Fail &f) {
        o += "\"mbarrier_handoff\": " + jerr(f.msg);
    }
    try {
        allow_smem(named_barrier);
        std::vector<double> ns;
        double mhz = 0;
        for (int rep = 0; rep < g_reps + 1; rep++) {
            Timing t = run_kernel(g_sms, [&] {
                named_barrier<<<g_sms, 160, dyn_smem()>>>(iters, d_rec, d_cycles);
            });
            std::vector<unsigned long long> c((size_t)g_sms);
            CK(cudaMemcpy(c.data(), d_cycles, sizeof(unsigned long long) * (size_t)g_sms,
                          cudaMemcpyDeviceToHost));
            std::vector<double> per;
            for (unsigned long long x : c)
                per.push_back((double)x / iters);
            if (rep > 0) {
                ns.push_back(median(per) * 1e3 / t.mhz);
                mhz = t.mhz;
            }
        }
        double v = median(ns);
        o += ", \"named_barrier\": {\"ns\": " + jnum(v) + ", \"cycles\": " +
             jnum(v * mhz / 1e3) + ", \"sm_mhz\": " + jnum(mhz) +
             ", \"how\": \"bar.sync 1, 160 back to back (one warpgroup + one warp), all SMs\"}";
    } catch (const Fail &f) {
        o += ", \"named_barrier\": " + jerr(f.msg);
    }
    return o + "}";
}

typedef CUresult (*EncodeFn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,
                             const cuuint64_t *, const cuuint64_t *, const cuuint32_t *,
                             const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
                             CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

constexpr int ROW_ELEMS = 4096; // f16 elements per tensor row: an 8 KB row pitch

// A 2-D f16 view [rows_total x ROW_ELEMS] of `base` with box {64, box_rows}, 128B swizzle.
static CUtensorMap make_map(void *base, size_t bytes, int box_rows)
{
    CUtensorMap map;
    cuuint64_t dims[2] = {(cuuint64_t)ROW_ELEMS, (cuuint64_t)(bytes / (ROW_ELEMS * 2))};
    cuuint64_t strides[1] = {(cuuint64_t)ROW_ELEMS * 2};
    cuuint32_t box[2] = {64, (cuuint32_t)box_rows}, estr[2] = {1, 1};
    CUresult r = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, base, dims,
                                        strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                        CU_TENSOR_MAP_SWIZZLE_128B,
                                        CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        const char *s = nullptr;
        cuGetErrorString(r, &s);
        throw Fail{std::string("cuTensorMapEncodeTiled: ") + (s ? s : "error")};
    }
    return map;
}

static std::string measure_tma(char *buf, size_t big, size_t l2_bytes)
{
    std::string o = "{\"row_pitch_bytes\": " + std::to_string(ROW_ELEMS * 2) +
                    ", \"swizzle\": \"128B\", \"l2_promotion\": \"256B\", \"hbm_buffer_bytes\": " +
                    std::to_string(big) + ", \"l2_buffer_bytes\": " + std::to_string(l2_bytes / 2) +
                    ", \"tiles\": [";
    static const int tile_rows[3] = {64, 128, 256};
    const size_t pitch = (size_t)ROW_ELEMS * 2;
    try {
        allow_smem(tma_load_stream);
        allow_smem(tma_store_stream);
        allow_smem(tma_load_latency);
        allow_smem(tma_issue_cost);
    } catch (const Fail &) {
        // reported by each measurement below
    }
    for (int ti = 0; ti < 3; ti++) {
        const int rows = tile_rows[ti];
        const int bytes = rows * 128;
        const int stages = std::min(TMA_MAX_STAGES, 196608 / bytes); // ~192 KB in flight
        const int tiles_x = ROW_ELEMS / 64;
        char sec[96];
        snprintf(sec, sizeof sec, "tma %dx64 tiles", rows);
        section(sec);
        o += std::string(ti ? ", " : "") + "{\"rows\": " + std::to_string(rows) +
             ", \"cols\": 64, \"bytes\": " + std::to_string(bytes) + ", \"stages\": " +
             std::to_string(stages);
        // The region each measurement reads: the whole big buffer (HBM) or its first L2 / 2.
        struct View {
            const char *key;
            size_t bytes;
        } views[2] = {{"hbm", big}, {"l2", l2_bytes / 2}};
        for (const View &v : views) {
            std::string val;
            try {
                size_t rows_total = v.bytes / pitch / (size_t)rows * (size_t)rows;
                long long total = (long long)(rows_total / (size_t)rows) * tiles_x;
                if (total < g_sms)
                    throw Fail{"buffer too small"};
                if (!strcmp(v.key, "hbm") && v.bytes < 8 * l2_bytes)
                    throw Fail{"could not allocate a buffer 8x the L2 size"};
                CUtensorMap map = make_map(buf, rows_total * pitch, rows);
                Rate r = measure_rate(
                    256,
                    [&](int iters) {
                        return run_kernel(g_sms, [&] {
                            tma_load_stream<<<g_sms, 32, dyn_smem()>>>(map, rows, tiles_x, total,
                                                                       iters, stages, d_rec);
                        });
                    },
                    [&](int iters) { return (double)iters * bytes * g_sms; }, (double)g_sms);
                val = rate_json("bytes_per_ns_per_sm", r);
            } catch (const Fail &f) {
                val = jerr(f.msg);
            }
            o += std::string(", \"") + v.key + "\": " + val;
        }
        // Stores stream to the HBM buffer.
        {
            std::string val;
            try {
                size_t rows_total = big / pitch / (size_t)rows * (size_t)rows;
                long long total = (long long)(rows_total / (size_t)rows) * tiles_x;
                CUtensorMap map = make_map(buf, rows_total * pitch, rows);
                Rate r = measure_rate(
                    256,
                    [&](int iters) {
                        return run_kernel(g_sms, [&] {
                            tma_store_stream<<<g_sms, 32, dyn_smem()>>>(map, rows, tiles_x, total,
                                                                        iters, d_rec);
                        });
                    },
                    [&](int iters) { return (double)iters * bytes * g_sms; }, (double)g_sms);
                val = rate_json("bytes_per_ns_per_sm", r);
            } catch (const Fail &f) {
                val = jerr(f.msg);
            }
            o += ", \"store_hbm\": " + val;
        }
        // Isolated latency: one CTA, one load at a time. HBM: fresh tiles (every other one, so
        // the 256-byte L2 promotion of a neighbour never serves the next), after flushing L2
        // by writing a region twice its size elsewhere in the buffer.
        const int reps = 2048, skip = 32;
        for (int level = 0; level < 2; level++) {
            std::string val = latency_json([&] {
                size_t rows_total = (level == 0 ? big : l2_bytes / 2) / pitch / (size_t)rows *
                                    (size_t)rows;
                long long total = (long long)(rows_total / (size_t)rows) * tiles_x;
                CUtensorMap map = make_map(buf, rows_total * pitch, rows);
                long long first = 0;
                int step = 0;
                if (level == 0) {
                    if (big < 8 * l2_bytes)
                        throw Fail{"could not allocate a buffer 8x the L2 size"};
                    CK(cudaMemset(buf + big - 2 * l2_bytes, ti + 1, 2 * l2_bytes));
                    first = total / 4; // far from the flushed tail
                    step = 2;
                }
                Timing t = run_kernel(1, [&] {
                    tma_load_latency<<<1, 32, dyn_smem()>>>(map, rows, tiles_x, total, first,
                                                            step, reps, d_samples, d_rec);
                });
                return latency_from(t, reps, skip, false);
            });
            o += std::string(level == 0 ? ", \"latency_hbm\": " : ", \"latency_l2\": ") + val;
        }
        o += "}";
    }
    o += "]";
    // Issue time of one load (8 KB tiles re-read from L2).
    section("tma issue time");
    std::string val = latency_json([&] {
        const int rows = 64, reps = 512;
        CUtensorMap map = make_map(buf, l2_bytes / 2 / ((size_t)ROW_ELEMS * 2) / 64 * 64 *
                                            ((size_t)ROW_ELEMS * 2), rows);
        Timing t = run_kernel(1, [&] {
            tma_issue_cost<<<1, 32, dyn_smem()>>>(map, rows, ROW_ELEMS / 64, reps, d_samples,
                                                  d_rec);
        });
        return latency_from(t, reps, 16, false, (double)TMA_ISSUE_BATCH);
    });
    o += ", \"issue\": " + val + "}";
    return o;
}

template <int N, int DT> static std::string measure_wgmma_one()
{
    static const char *const dt_names[N_DT] = {"f16", "bf16", "fp8-e4m3"};
    const int k = DT == DT_E4M3 ? 32 : 16;
    std::string o = "{\"dtype\": \"" + std::string(dt_names[DT]) + "\", \"n\": " +
                    std::to_string(N) + ", \"k\": " + std::to_string(k);
    const double flops_per_iter = 2.0 * 64 * N * k * MMA_PER_GROUP; // per warpgroup
    try {
        allow_smem(wgmma_stream<N, DT>);
        allow_smem(wgmma_latency<N, DT>);
    } catch (const Fail &) {
    }
    for (int wg = 1; wg <= 2; wg++) {
        std::string val;
        try {
            Rate r = measure_rate(
                64,
                [&](int iters) {
                    return run_kernel(g_sms, [&] {
                        wgmma_stream<N, DT><<<g_sms, 128 * wg, dyn_smem()>>>(iters, d_rec,
                                                                             d_out);
                    });
                },
                [&](int iters) { return (double)iters * flops_per_iter * wg * g_sms; },
                (double)g_sms);
            std::vector<float> out((size_t)g_sms * 128 * wg);
            CK(cudaMemcpy(out.data(), d_out, sizeof(float) * out.size(), cudaMemcpyDeviceToHost));
            for (float f : out)
                if (!std::isfinite(f))
                    throw Fail{"non-finite accumulator"};
            val = rate_json("flops_per_ns_per_sm", r);
        } catch (const Fail &f) {
            val = jerr(f.msg);
        }
        o += std::string(wg == 1 ? ", \"wg1\": " : ", \"wg2\": ") + val;
    }
    o += ", \"latency\": " + latency_json([&] {
        const int reps = 512;
        Timing t = run_kernel(1, [&] {
            wgmma_latency<N, DT><<<1, 128, dyn_smem()>>>(reps, d_samples, d_rec, d_out);
        });
        return latency_from(t, reps, 16, false);
    });
    return o + "}";
}

template <int DT> static std::string measure_wgmma_dtype()
{
    static const char *const dt_names[N_DT] = {"f16", "bf16", "fp8-e4m3"};
    std::string s = std::string("wgmma ") + dt_names[DT];
    section(s.c_str());
    std::string o = measure_wgmma_one<64, DT>(); // one statement each: measured in order
    o += ", " + measure_wgmma_one<128, DT>();
    o += ", " + measure_wgmma_one<256, DT>();
    return o;
}

typedef void (*PieceStream)(int, const float *, float *, Rec *);
typedef void (*PieceLatency)(int, const float *, unsigned *, Rec *);

template <int P> struct PieceTable {
    static void fill(PieceStream *s, PieceLatency *l)
    {
        s[P] = piece_stream<P>;
        l[P] = piece_latency<P>;
        PieceTable<P + 1>::fill(s, l);
    }
};
template <> struct PieceTable<N_PIECES> {
    static void fill(PieceStream *, PieceLatency *) {}
};

static std::string measure_pieces()
{
    PieceStream streams[N_PIECES];
    PieceLatency lats[N_PIECES];
    PieceTable<0>::fill(streams, lats);
    std::string o = "[";
    for (int p = 0; p < N_PIECES; p++) {
        std::string sec = std::string("cuda-core ") + piece_names[p];
        section(sec.c_str());
        o += std::string(p ? ", " : "") + "{\"piece\": \"" + piece_names[p] +
             "\", \"elems_per_thread\": " + std::to_string(piece_elems[p]) + ", \"what\": " +
             jstr(piece_what[p]);
        try {
            allow_smem(streams[p]);
        } catch (const Fail &) {
        }
        for (int wg = 1; wg <= 2; wg++) {
            std::string val;
            try {
                const int threads = 128 * wg;
                Rate r = measure_rate(
                    256,
                    [&](int iters) {
                        return run_kernel(g_sms, [&] {
                            streams[p]<<<g_sms, threads, dyn_smem()>>>(iters, d_in, d_out, d_rec);
                        });
                    },
                    [&](int iters) { return (double)iters * piece_elems[p] * threads * g_sms; },
                    (double)g_sms * wg);
                std::vector<float> out((size_t)g_sms * threads);
                CK(cudaMemcpy(out.data(), d_out, sizeof(float) * out.size(),
                              cudaMemcpyDeviceToHost));
                for (float f : out)
                    if (!std::isfinite(f))
                        throw Fail{"non-finite result"};
                // At most two elements per lane per clock on 128 lanes: more means the compiler
                // removed work and the number is meaningless.
                if (r.value > 256.0 * r.mhz / 1e3 * 1.05)
                    throw Fail{"implausible rate " + jnum(r.value) +
                               " elements/ns (over 2 per lane per clock): work was optimised away"};
                val = rate_json("elems_per_ns_per_wg", r);
            } catch (const Fail &f) {
                val = jerr(f.msg);
            }
            o += std::string(wg == 1 ? ", \"wg1\": " : ", \"wg2\": ") + val;
        }
        o += ", \"latency\": " + latency_json([&] {
            const int reps = 1024;
            Timing t = run_kernel(1, [&] { lats[p]<<<1, 128>>>(reps, d_in, d_samples, d_rec); });
            return latency_from(t, 2 * reps, 32, true);
        });
        o += "}";
    }
    return o + "]";
}

// =============================================================================================
// main
// =============================================================================================

int main(int argc, char **argv)
{
    std::string date;
    int timeout_s = 600;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--date") && i + 1 < argc)
            date = argv[++i];
        else if (!strcmp(argv[i], "--timeout") && i + 1 < argc)
            timeout_s = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quick")) {
            g_reps = 3;
            g_target_ns = 2e6;
        } else {
            fprintf(stderr, "usage: %s [--date TEXT] [--timeout SECONDS] [--quick]\n", argv[0]);
            return 2;
        }
    }
    if (date.empty()) {
        char b[32];
        time_t now = time(nullptr);
        struct tm tmv;
        gmtime_r(&now, &tmv);
        strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tmv);
        date = b;
    }
    emit("{\"format\": \"pipethreader.calibration\", \"version\": 1, \"program\": "
         "\"bench/micro/calibrate.cu\", \"date\": " + jstr(date) + ", ");
    signal(SIGALRM, on_alarm); // from here on the output is valid JSON at every emit()
    alarm((unsigned)std::max(10, timeout_s));
    cudaDeviceProp prop;
    int dev_count = 0;
    if (cudaGetDeviceCount(&dev_count) != cudaSuccess || dev_count < 1 ||
        cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
        emit("\"error\": \"no CUDA device\", \"complete\": false}\n");
        (void)!write(1, g_out, (size_t)g_out_len);
        return 1;
    }
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    g_sms = prop.multiProcessorCount;
    g_smem_optin = (int)prop.sharedMemPerBlockOptin - 2048; // room for static shared memory
    size_t l2 = (size_t)prop.l2CacheSize;
    emit("\"device\": " + jstr(prop.name) + ", \"cc\": \"" + std::to_string(prop.major) + "." +
         std::to_string(prop.minor) + "\", \"sm_count\": " + std::to_string(g_sms) +
         ", \"l2_bytes\": " + std::to_string(l2) + ", \"smem_per_block_optin\": " +
         std::to_string(prop.sharedMemPerBlockOptin) + ", \"driver_version\": " +
         std::to_string(drv) + ", \"runtime_version\": " + std::to_string(rt) +
         ", \"repeats\": " + std::to_string(g_reps) + ", \"run_ns\": " + jnum(g_target_ns) + ", ");
    if (prop.major != 9)
        emit("\"warning\": \"not a compute capability 9.x GPU: the sm_90a kernels cannot run\", ");
    fprintf(stderr, "calibrate: %s, %d SMs, L2 %zu bytes\n", prop.name, g_sms, l2);

    // Buffers: one large one for HBM streaming (its first L2/2 bytes serve the L2 runs).
    char *buf = nullptr;
    size_t big = 0;
    try {
        CK(cudaMalloc(&d_rec, sizeof(Rec) * (size_t)std::max(g_sms, 1)));
        CK(cudaMalloc(&d_samples, sizeof(unsigned) * MAX_SAMPLES));
        CK(cudaMalloc(&d_cycles, sizeof(unsigned long long) * (size_t)g_sms));
        CK(cudaMalloc(&d_out, sizeof(float) * (size_t)g_sms * 256));
        CK(cudaMalloc(&d_in, sizeof(float) * (8192 + 64)));
        std::vector<float> in(8192 + 64);
        for (size_t i = 0; i < in.size(); i++) // cumsum reads [4096, 8192): zeros
            in[i] = i < 4096 ? 0.25f + 0.5f * (float)((i * 2654435761u) % 1000u) / 1000.0f
                             : (i < 8192 ? 0.0f : 0.5f);
        CK(cudaMemcpy(d_in, in.data(), sizeof(float) * in.size(), cudaMemcpyHostToDevice));
        size_t free_b = 0, total_b = 0;
        CK(cudaMemGetInfo(&free_b, &total_b));
        const size_t unit = (size_t)ROW_ELEMS * 2 * 256; // whole 256-row tiles
        big = std::min((size_t)4 << 30, free_b / 2) / unit * unit;
        if (big < l2 + unit)
            throw Fail{"could not allocate a buffer larger than the L2"};
        CK(cudaMalloc(&buf, big));
        CK(cudaMemset(buf, 0x3c, big)); // 0x3c3c: a finite f16
    } catch (const Fail &f) {
        emit("\"error\": " + jstr("setup: " + f.msg) + ", \"complete\": false}\n");
        (void)!write(1, g_out, (size_t)g_out_len);
        return 1;
    }

    section("clock");
    emit("\"clock_idle\": " + measure_clock_idle() + ", ");
    section("barriers");
    emit("\"barriers\": " + measure_barriers() + ", ");
    std::string tma;
    try {
        tma = measure_tma(buf, big, l2);
    } catch (const Fail &f) {
        tma = jerr(f.msg);
    }
    emit("\"tma\": " + tma + ", ");
    std::string mma = measure_wgmma_dtype<DT_F16>();
    mma += ", " + measure_wgmma_dtype<DT_BF16>();
    mma += ", " + measure_wgmma_dtype<DT_E4M3>();
    emit("\"wgmma\": [" + mma + "], ");
    emit("\"cuda_core\": " + measure_pieces() + ", ");

    std::vector<double> m = g_loaded_mhz;
    std::sort(m.begin(), m.end());
    emit("\"clock_loaded\": {\"median_mhz\": " + jnum(median(m)) + ", \"min_mhz\": " +
         jnum(m.empty() ? NAN : m.front()) + ", \"max_mhz\": " + jnum(m.empty() ? NAN : m.back()) +
         ", \"how\": \"clock64 / globaltimer of every full-chip throughput run\"}, ");
    emit(std::string("\"context_lost\": ") + (g_dead ? jstr(g_dead_why) : "null") +
         ", \"complete\": true}\n");
    alarm(0);
    (void)!write(1, g_out, (size_t)g_out_len);
    fprintf(stderr, "calibrate: done\n");
    return 0;
}
