// probe.h — what the TMA probes of this folder share: a CUDA error check, the set-up of a ring
// (aligned shared memory, its full / empty barriers), and the timing of a launch with CUDA
// events (the first run warms up and is dropped; median and best of the rest).
#pragma once
#include "pt_device.cuh"
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>

#define CK(x) do { auto e_ = (x); if (e_ != 0) { printf("error %d at %s:%d\n", (int)e_, __FILE__, __LINE__); exit(1); } } while (0)

// The dynamic shared memory's base rounded up to 1024 bytes (128-byte swizzled boxes need it).
__device__ __forceinline__ uint8_t *probe_smem(uint8_t *raw)
{
    return (uint8_t *)(((uintptr_t)raw + 1023) & ~(uintptr_t)1023);
}

// The barriers of a ring of st stages: full[s] completed by one arrival (and the load's bytes),
// empty[s] by `releases` arrivals; every thread of the block waits until they are made.
__device__ __forceinline__ void probe_ring_init(uint64_t *full, uint64_t *empty, int st, uint32_t releases = 1)
{
    if (threadIdx.x == 0) {
        for (int s = 0; s < st; ++s) {
            pt::mbar_init(&full[s], 1);
            pt::mbar_init(&empty[s], releases);
        }
        pt::mbar_fence_init();
    }
    __syncthreads();
}

struct ProbeTimes {
    float median_ms, best_ms;
};

// launch(r) issues run r (0 .. runs - 1) on the default stream.
template <class Launch> ProbeTimes probe_time(int runs, Launch launch)
{
    static cudaEvent_t e0, e1;
    static bool made = false;
    if (!made) {
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
        made = true;
    }
    std::vector<float> ts;
    for (int r = 0; r < runs; ++r) {
        CK(cudaEventRecord(e0));
        launch(r);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (r)
            ts.push_back(ms);
    }
    std::sort(ts.begin(), ts.end());
    return {ts[ts.size() / 2], ts[0]};
}
