// probe_time.h — what the TMA probes of this folder share: a CUDA error check, and the timing of
// a launch with CUDA events (the first run warms up and is dropped; median and best of the rest).
#pragma once
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>

#define CK(x) do { auto e_ = (x); if (e_ != 0) { printf("error %d at %s:%d\n", (int)e_, __FILE__, __LINE__); exit(1); } } while (0)

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
