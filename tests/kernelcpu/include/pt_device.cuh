// pt_device.cuh for kernelcpu (README.md): the device library's names, emulated on the CPU, so
// that a generated sm90a kernel.cu compiles as C++ and runs with a fiber per GPU thread.
// Barriers (mbarrier, named, __syncthreads) hold their thread until complete; TMA copies are
// queued to the block's TMA unit, which lands them late and in any order, so a kernel that reads
// a tile before its Wait, or overwrites a staged tile before its store read it, gets wrong
// numbers here as it would on the GPU. Shared memory starts as NaN bytes at every block.
// wgmma (include/pt_wgmma.cuh) reads its operands through their descriptors; ldmatrix, warp
// shuffles and votes gather the warp's values. Not here: clusters.
#ifndef KERNELCPU_PT_DEVICE_CUH
#define KERNELCPU_PT_DEVICE_CUH
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "cuda.h"

#define __global__
#define __device__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
// a reference kernel's __shared__ arrays are one per block: static (the block's threads are
// fibers of one OS thread, and blocks run one after another); a kernel's dynamic shared memory
// is extern
#ifdef KERNELCPU_SHARED_STATIC
#define __shared__ static
#else
#define __shared__
#endif
#define __align__(n) __attribute__((aligned(n)))
#define __grid_constant__

struct kernelcpu_dim3 {
    unsigned x, y, z;
};
extern kernelcpu_dim3 threadIdx, blockIdx;
extern kernelcpu_dim3 blockDim, gridDim;

// 16-bit floats with the conversions a kernel writes (round to nearest even)
uint16_t refcpu_float_to_half(float f); // tests/refcpu/refcpu_half.cpp
float refcpu_half_to_float(uint16_t h);
struct __half {
    uint16_t bits;
    __half() = default;
    __half(float f) : bits(refcpu_float_to_half(f)) {}
    operator float() const { return refcpu_half_to_float(bits); }
};
struct __nv_bfloat16 {
    uint16_t bits;
    __nv_bfloat16() = default;
    __nv_bfloat16(float f)
    {
        uint32_t u;
        std::memcpy(&u, &f, 4);
        u += 0x7fffu + ((u >> 16) & 1u);
        bits = (uint16_t)(u >> 16);
    }
    operator float() const
    {
        uint32_t u = (uint32_t)bits << 16;
        float f;
        std::memcpy(&f, &u, 4);
        return f;
    }
};

struct float4 {
    float x, y, z, w;
};
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
struct float2 {
    float x, y;
};
inline float2 make_float2(float x, float y) { return float2{x, y}; }
struct uint4 {
    uint32_t x, y, z, w;
};
inline uint4 make_uint4(uint32_t x, uint32_t y, uint32_t z, uint32_t w) { return uint4{x, y, z, w}; }
struct __half2 {
    __half x, y;
};
struct __nv_bfloat162 {
    __nv_bfloat16 x, y;
};
inline __half2 __floats2half2_rn(float a, float b) { return __half2{__half(a), __half(b)}; }
inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b)
{
    return __nv_bfloat162{__nv_bfloat16(a), __nv_bfloat16(b)};
}

inline float __half2float(__half h) { return float(h); }
inline float __bfloat162float(__nv_bfloat16 h) { return float(h); }
inline __half __float2half_rn(float f) { return __half(f); }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }

// 16-bit pairs as the half2 instructions do them: each result rounded once
inline float2 __half22float2(__half2 v) { return float2{float(v.x), float(v.y)}; }
inline float2 __bfloat1622float2(__nv_bfloat162 v) { return float2{float(v.x), float(v.y)}; }
inline __half2 __float2half2_rn(float a) { return __half2{__half(a), __half(a)}; }
inline __nv_bfloat162 __float2bfloat162_rn(float a) { return __nv_bfloat162{__nv_bfloat16(a), __nv_bfloat16(a)}; }
inline __half2 __half2half2(__half a) { return __half2{a, a}; }
inline __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 a) { return __nv_bfloat162{a, a}; }
// the exact product (and sum) in double, then one rounding to 16 bits
template <typename H, typename H2> inline H2 kernelcpu_fma2(H2 a, H2 b, H2 c, bool add)
{
    const double x = (double)float(a.x) * float(b.x) + (add ? (double)float(c.x) : 0.0);
    const double y = (double)float(a.y) * float(b.y) + (add ? (double)float(c.y) : 0.0);
    return H2{H((float)x), H((float)y)};
}
inline __half2 __hmul2(__half2 a, __half2 b) { return kernelcpu_fma2<__half>(a, b, a, false); }
inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return kernelcpu_fma2<__half>(a, b, c, true); }
inline __half2 __hsub2(__half2 a, __half2 b)
{
    return __half2{__half(float(a.x) - float(b.x)), __half(float(a.y) - float(b.y))};
}
inline __nv_bfloat162 __hmul2(__nv_bfloat162 a, __nv_bfloat162 b)
{
    return kernelcpu_fma2<__nv_bfloat16>(a, b, a, false);
}
inline __nv_bfloat162 __hfma2(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c)
{
    return kernelcpu_fma2<__nv_bfloat16>(a, b, c, true);
}
inline __nv_bfloat162 __hsub2(__nv_bfloat162 a, __nv_bfloat162 b)
{
    return __nv_bfloat162{__nv_bfloat16(float(a.x) - float(b.x)), __nv_bfloat16(float(a.y) - float(b.y))};
}
// PRMT's default mode: byte i of the result is byte (s >> 4i) & 7 of {y, x}
inline uint32_t __byte_perm(uint32_t x, uint32_t y, uint32_t s)
{
    const uint64_t v = (uint64_t)y << 32 | x;
    uint32_t r = 0;
    for (int i = 0; i < 4; ++i)
        r |= (uint32_t)((v >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
    return r;
}
inline float __expf(float x) { return std::exp(x); }

// served by kernelcpu_run.cpp
extern uint8_t smem_raw[];
void kernelcpu_named_sync(int id, int threads);
void kernelcpu_named_arrive(int id, int threads);
void kernelcpu_warp_sync();      // the calling thread's warp (its 32 threads)
void kernelcpu_warpgroup_sync(); // the calling thread's warpgroup (its 128 threads)
uint32_t kernelcpu_shfl_xor(uint32_t v, int lane_mask);
uint32_t kernelcpu_shfl_idx(uint32_t v, int src_lane);
bool kernelcpu_all(bool p);
// ldmatrix .x4 (codegen/device/pt_device.cuh), the warp's 32 row addresses gathered
void kernelcpu_ldmatrix_x4(uint32_t (&r)[4], uint32_t addr, bool trans);
// element (mn, k) of a wgmma operand in shared memory, as the 16-bit pattern, from its
// descriptor: K-major (k contiguous) or MN-major (mn contiguous), 128-byte swizzle
uint16_t kernelcpu_wgmma_operand(uint64_t desc, int mn, int k, bool mn_major);
void kernelcpu_fence();
void kernelcpu_mbar_init(uint64_t *bar, uint32_t arrivals);
void kernelcpu_mbar_arrive(uint64_t *bar, uint32_t tx_bytes);
void kernelcpu_mbar_wait(uint64_t *bar, uint32_t parity);
void kernelcpu_tma_load(void *dst, const CUtensorMap *map, uint64_t *bar, const int *c, int n);
void kernelcpu_tma_store(const CUtensorMap *map, const void *src, const int *c, int n);
void kernelcpu_tma_store_wait();

inline void __syncthreads() { kernelcpu_named_sync(0, (int)blockDim.x); }
inline void __syncwarp(unsigned = 0xffffffffu) { kernelcpu_warp_sync(); }
template <typename T> inline T __shfl_xor_sync(unsigned, T v, int lane_mask)
{
    static_assert(sizeof(T) == 4, "32-bit shuffles");
    uint32_t u;
    std::memcpy(&u, &v, 4);
    u = kernelcpu_shfl_xor(u, lane_mask);
    std::memcpy(&v, &u, 4);
    return v;
}
template <typename T> inline T __shfl_sync(unsigned, T v, int src_lane)
{
    static_assert(sizeof(T) == 4, "32-bit shuffles");
    uint32_t u;
    std::memcpy(&u, &v, 4);
    u = kernelcpu_shfl_idx(u, src_lane);
    std::memcpy(&v, &u, 4);
    return v;
}
inline bool __all_sync(unsigned, bool p) { return kernelcpu_all(p); }
inline void __threadfence() { kernelcpu_fence(); }
template <typename T> inline T __ldcg(const T *p)
{
    kernelcpu_fence();
    return *p;
}
unsigned atomicAdd(unsigned *p, unsigned v);
unsigned atomicExch(unsigned *p, unsigned v);

namespace pt {
// the offset in the block's shared memory, as the hardware's shared window gives it
inline uint32_t smem_addr(const void *p) { return (uint32_t)((const uint8_t *)p - smem_raw); }
inline void mbar_init(uint64_t *bar, uint32_t arrivals) { kernelcpu_mbar_init(bar, arrivals); }
inline void mbar_fence_init() {}
inline void mbar_arrive_expect_tx(uint64_t *bar, uint32_t bytes) { kernelcpu_mbar_arrive(bar, bytes); }
inline void mbar_arrive(uint64_t *bar) { kernelcpu_mbar_arrive(bar, 0); }
inline void mbar_wait(uint64_t *bar, uint32_t parity) { kernelcpu_mbar_wait(bar, parity); }
inline void prefetch_tensormap(const CUtensorMap *) {}
inline void tma_load_1d(void *dst, const CUtensorMap *m, uint64_t *bar, int c0)
{
    const int c[1] = {c0};
    kernelcpu_tma_load(dst, m, bar, c, 1);
}
inline void tma_load_2d(void *dst, const CUtensorMap *m, uint64_t *bar, int c0, int c1)
{
    const int c[2] = {c0, c1};
    kernelcpu_tma_load(dst, m, bar, c, 2);
}
inline void tma_load_3d(void *dst, const CUtensorMap *m, uint64_t *bar, int c0, int c1, int c2)
{
    const int c[3] = {c0, c1, c2};
    kernelcpu_tma_load(dst, m, bar, c, 3);
}
inline void tma_store_2d(const CUtensorMap *m, const void *src, int c0, int c1)
{
    const int c[2] = {c0, c1};
    kernelcpu_tma_store(m, src, c, 2);
}
inline void tma_store_3d(const CUtensorMap *m, const void *src, int c0, int c1, int c2)
{
    const int c[3] = {c0, c1, c2};
    kernelcpu_tma_store(m, src, c, 3);
}
inline void tma_store_commit() {}
inline void tma_store_wait_read() { kernelcpu_tma_store_wait(); }
inline void tma_store_wait_all() { kernelcpu_tma_store_wait(); }
inline void fence_proxy_async() {}
template <int Regs> inline void regs_increase() {}
template <int Regs> inline void regs_decrease() {}
inline void named_sync(int id, int threads) { kernelcpu_named_sync(id, threads); }
inline void named_arrive(int id, int threads) { kernelcpu_named_arrive(id, threads); }
inline void grid_launch_dependents() {}
template <bool TRANS> inline void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) { kernelcpu_ldmatrix_x4(r, addr, TRANS); }
inline uint32_t and_xor(uint32_t a, uint32_t b, uint32_t c) { return (a & b) ^ c; }
inline void grid_dependency_wait() {}
inline void tma_load_4d(void *dst, const CUtensorMap *m, uint64_t *bar, int c0, int c1, int c2, int c3)
{
    const int c[4] = {c0, c1, c2, c3};
    kernelcpu_tma_load(dst, m, bar, c, 4);
}
inline void tma_load_5d(void *dst, const CUtensorMap *m, uint64_t *bar, int c0, int c1, int c2, int c3,
                        int c4)
{
    const int c[5] = {c0, c1, c2, c3, c4};
    kernelcpu_tma_load(dst, m, bar, c, 5);
}
inline void tma_store_4d(const CUtensorMap *m, const void *src, int c0, int c1, int c2, int c3)
{
    const int c[4] = {c0, c1, c2, c3};
    kernelcpu_tma_store(m, src, c, 4);
}
inline void tma_store_5d(const CUtensorMap *m, const void *src, int c0, int c1, int c2, int c3, int c4)
{
    const int c[5] = {c0, c1, c2, c3, c4};
    kernelcpu_tma_store(m, src, c, 5);
}

// wgmma issue and completion: each thread's part of an emulated wgmma (pt_wgmma.cuh) is done
// when its call returns, the warpgroup's when all of them are: wgmma_wait is where the
// warpgroup meets, after which no thread reads the operands any more (so a ring stage released
// then is free, as on the GPU)
inline void wgmma_fence() {}
inline void wgmma_commit() {}
template <int InFlight> inline void wgmma_wait() { kernelcpu_warpgroup_sync(); }
inline uint64_t opaque(uint64_t x) { return x; }
inline void keep(float &) {}

// The library's own layout helpers, as codegen/device/pt_device.cuh states them (the
// hardware's swizzle is kernelcpu_run.cpp's, stated apart)
inline uint64_t desc_sw128(const void *start, uint32_t lead_bytes, uint32_t stride_bytes)
{
    uint64_t d = (uint64_t)((smem_addr(start) & 0x3FFFF) >> 4);
    d |= (uint64_t)((lead_bytes & 0x3FFFF) >> 4) << 16;
    d |= (uint64_t)((stride_bytes & 0x3FFFF) >> 4) << 32;
    d |= (uint64_t)1 << 62;
    return d;
}
template <typename T> inline uint32_t pack2(float a, float b)
{
    const T h[2] = {T(a), T(b)};
    uint32_t u;
    std::memcpy(&u, h, 4);
    return u;
}
// ex2.approx.ftz: 2^x to about 2 ulp, subnormal results flushed to zero
inline float exp2_approx(float x)
{
    const float y = std::exp2(x);
    return std::fpclassify(y) == FP_SUBNORMAL ? 0.f : y;
}
inline uint32_t sw128_offset(uint32_t row, uint32_t col_bytes)
{
    return row * 128 + ((((col_bytes >> 4) ^ (row & 7)) << 4) | (col_bytes & 15));
}
// the staging copy of a tensor whose rows are not 16-byte multiples (one element at a time here)
template <typename T>
inline void restride(const T *src, long long sp, T *dst, long long dp, long long rows, long long cols)
{
    constexpr int V = 16 / sizeof(T);
    const long long per_row = (cols + V - 1) / V, n = rows * per_row;
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        const long long r = i / per_row, c0 = i % per_row * V;
        for (int j = 0; j < V; ++j)
            if (c0 + j < cols)
                dst[r * dp + c0 + j] = src[r * sp + c0 + j];
            else if (c0 + j < dp) /* the padding of a destination row reads as zero */
                dst[r * dp + c0 + j] = T(0);
    }
}
} // namespace pt
#endif
