/* refcpu_run.cpp — runs a generated reference backend (codegen/reference.c: reference.cu and
 * reference_host.c) on the CPU: the driver API calls of reference_host.c are served here, and
 * each launch runs its kernel with blockDim.x CPU threads that take the grid's blocks in turn
 * and meet at a barrier for __syncthreads (README.md says why). */
#include <barrier>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "refcpu.h"

thread_local refcpu_dim3 threadIdx, blockIdx;
refcpu_dim3 blockDim, gridDim;
static std::barrier<> *block_barrier;

void __syncthreads()
{
    block_barrier->arrive_and_wait();
}

float refcpu_half_to_float(uint16_t h)
{
    const uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023;
    uint32_t u;
    if (e == 0 && m == 0)
        u = s;
    else if (e == 0) { /* subnormal: m * 2^-24 */
        float f = std::ldexp((float)m, -24);
        return s ? -f : f;
    } else if (e == 31)
        u = s | 0x7f800000u | (m << 13);
    else
        u = s | ((e + 112) << 23) | (m << 13);
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

uint16_t refcpu_float_to_half(float f)
{
    /* round to nearest even through the exact value's binary expansion: scale into the
     * half's grid and let rint do the rounding */
    if (std::isnan(f))
        return 0x7e00;
    const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
    float a = std::fabs(f);
    if (a >= 65520.0f)
        return sign | 0x7c00;
    int e;
    std::frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    int q = e - 11 < -24 ? -24 : e - 11; /* the grid step 2^q: 11 bits, or the subnormals' */
    float r = std::rint(std::ldexp(a, -q)); /* a whole number of steps */
    float v = std::ldexp(r, q);
    if (v >= 65520.0f)
        return sign | 0x7c00;
    if (v < std::ldexp(1.0f, -14)) /* subnormal (or zero): the step count is the mantissa */
        return sign | (uint16_t)(int)std::ldexp(v, 24);
    int ve;
    float vm = std::frexp(v, &ve); /* v = vm * 2^ve, vm in [0.5, 1) */
    uint16_t mant = (uint16_t)((int)std::ldexp(vm, 11) - 1024);
    return sign | (uint16_t)((ve - 1 + 15) << 10) | mant;
}

extern "C" CUresult cuModuleGetFunction(CUfunction *f, CUmodule mod, const char *name)
{
    for (const refcpu_kernel *k = mod->kernels; k->name; k++)
        if (std::strcmp(k->name, name) == 0) {
            *f = k;
            return CUDA_SUCCESS;
        }
    std::fprintf(stderr, "refcpu: no kernel %s in the module\n", name);
    return 1;
}

/* Every reference kernel takes its tensors' pointers, then the work item count. */
static void call(const refcpu_kernel *k, void **args)
{
    const long long n = *(long long *)args[k->pointers];
    void *p[6] = {0};
    for (int i = 0; i < k->pointers && i < 6; i++)
        p[i] = (void *)(uintptr_t) * (CUdeviceptr *)args[i];
    switch (k->pointers) {
    case 1: ((void (*)(void *, long long))k->fn)(p[0], n); break;
    case 2: ((void (*)(void *, void *, long long))k->fn)(p[0], p[1], n); break;
    case 3: ((void (*)(void *, void *, void *, long long))k->fn)(p[0], p[1], p[2], n); break;
    case 4: ((void (*)(void *, void *, void *, void *, long long))k->fn)(p[0], p[1], p[2], p[3], n); break;
    case 5: ((void (*)(void *, void *, void *, void *, void *, long long))k->fn)(p[0], p[1], p[2], p[3], p[4], n); break;
    default: std::fprintf(stderr, "refcpu: %s: %d pointers not handled\n", k->name, k->pointers);
    }
}

extern "C" CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned, unsigned, unsigned bx,
                                   unsigned, unsigned, unsigned, CUstream, void **args, void **)
{
    /* the kernels loop over the work items beyond the grid: a few blocks exercise that */
    gridDim = {gx < REFCPU_MAX_BLOCKS ? gx : REFCPU_MAX_BLOCKS, 1, 1};
    blockDim = {bx, 1, 1};
    std::barrier<> bar((std::ptrdiff_t)bx);
    block_barrier = &bar;
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < bx; t++)
        threads.emplace_back([=, &bar] {
            threadIdx = {t, 0, 0};
            for (unsigned b = 0; b < gridDim.x; b++) {
                blockIdx = {b, 0, 0};
                call(f, args);
                bar.arrive_and_wait(); /* the next block starts from fresh shared memory */
            }
        });
    for (auto &t : threads)
        t.join();
    return CUDA_SUCCESS;
}
