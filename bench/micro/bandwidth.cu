// bandwidth.cu — microbenchmark behind the load/store costs of the hardware models: read
// bandwidth of all SMs together from L2 (a buffer that fits in L2, read again and again) and
// from HBM (a buffer 40x larger than L2), with 16-byte loads. Prints one JSON line.
// Build: nvcc -O3 -gencode=arch=compute_90a,code=sm_90a bandwidth.cu -o bandwidth
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>
#include <algorithm>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void read_kernel(const int4 *__restrict__ p, size_t n, int passes, int *sink)
{
    int4 acc = make_int4(0, 0, 0, 0);
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (int r = 0; r < passes; r++)
        for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
            int4 v = __ldcg(p + i);  // cache-global: L2, not L1
            acc.x ^= v.x; acc.y ^= v.y; acc.z ^= v.z; acc.w ^= v.w;
        }
    if ((acc.x ^ acc.y ^ acc.z ^ acc.w) == 0x12345678) *sink = 1;  // keeps the loads alive
}

static double time_read(const int4 *p, size_t n, int passes, int blocks, int *sink)
{
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a)); CHECK(cudaEventCreate(&b));
    read_kernel<<<blocks, 512>>>(p, n, passes, sink);  // warm-up
    CHECK(cudaGetLastError());
    std::vector<float> ms;
    for (int r = 0; r < 15; r++) {
        CHECK(cudaEventRecord(a));
        read_kernel<<<blocks, 512>>>(p, n, passes, sink);
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        float t; CHECK(cudaEventElapsedTime(&t, a, b)); ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

int main()
{
    cudaDeviceProp prop; CHECK(cudaGetDeviceProperties(&prop, 0));
    int sms = prop.multiProcessorCount, blocks = sms * 4;
    size_t l2 = prop.l2CacheSize;
    size_t small = l2 / 2, big = (size_t)l2 * 40;
    int4 *p; int *sink;
    CHECK(cudaMalloc(&p, big)); CHECK(cudaMalloc(&sink, 4));
    CHECK(cudaMemset(p, 0x5a, big));
    int passes = 40;
    double t_l2 = time_read(p, small / 16, passes, blocks, sink);
    double t_hbm = time_read(p, big / 16, 1, blocks, sink);
    double l2_gbps = (double)small * passes / (t_l2 * 1e-3) / 1e9;
    double hbm_gbps = (double)big / (t_hbm * 1e-3) / 1e9;
    printf("{\"device\": \"%s\", \"sms\": %d, \"l2_bytes\": %zu, \"l2_read_gbps\": %.0f, "
           "\"l2_read_bytes_per_ns_per_sm\": %.2f, \"hbm_read_gbps\": %.0f, "
           "\"hbm_read_bytes_per_ns_per_sm\": %.2f}\n", prop.name, sms, l2, l2_gbps,
           l2_gbps / sms, hbm_gbps, hbm_gbps / sms);
    return 0;
}
