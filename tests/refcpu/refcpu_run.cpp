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
