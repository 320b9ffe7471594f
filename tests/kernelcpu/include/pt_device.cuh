// pt_device.cuh for kernelcpu (README.md): the device library's names, emulated on the CPU, so
// that a generated sm90a kernel.cu compiles as C++ and runs with one CPU thread per GPU thread.
// Barriers (mbarrier, named, __syncthreads) block their thread until complete; TMA copies are
// queued to a per-block thread that runs them after a random delay, so a kernel that reads a
// tile before its Wait, or overwrites a staged tile before its store read it, gets wrong
// numbers here as it would on the GPU. Shared memory starts as NaN bytes at every block.
// Only what the generated kernels without wgmma use (the combine): no wgmma, no swizzle.
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
#define __launch_bounds__(...)
#define __shared__
#define __align__(n) __attribute__((aligned(n)))
#define __grid_constant__

struct kernelcpu_dim3 {
    unsigned x, y, z;
};
extern thread_local kernelcpu_dim3 threadIdx, blockIdx;
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

// served by kernelcpu_run.cpp
void kernelcpu_named_sync(int id, int threads);
void kernelcpu_mbar_init(uint64_t *bar, uint32_t arrivals);
void kernelcpu_mbar_arrive(uint64_t *bar, uint32_t tx_bytes);
void kernelcpu_mbar_wait(uint64_t *bar, uint32_t parity);
void kernelcpu_tma_load(void *dst, const CUtensorMap *map, uint64_t *bar, const int *c, int n);
void kernelcpu_tma_store(const CUtensorMap *map, const void *src, const int *c, int n);
void kernelcpu_tma_store_wait();

inline void __syncthreads() { kernelcpu_named_sync(0, (int)blockDim.x); }

namespace pt {
inline uint32_t smem_addr(const void *p) { return (uint32_t)(uintptr_t)p; }
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
inline void grid_launch_dependents() {}
inline void grid_dependency_wait() {}
} // namespace pt
#endif
