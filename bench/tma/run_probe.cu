// run_probe.cu — does a TMA ring read packed low-bit weights slower when each stage takes a
// shorter run of every row? A memory-bound W4A16 GEMM at small M streams a band of bn weight
// rows along k: a k tile of 128 int4 elements is 64 bytes of each row, 256 elements 128 bytes.
// Here: rows of W bytes (2 KB: K = 4096 at 4 bits), one band of bn rows per CTA and pass, each
// stage one box {run, bn} (64-byte swizzle for 64-byte runs, 128-byte for 128), st stages, a
// consumer warp that only releases; grid 112 (Llama-3-8B gate_up at n 256) or 132 CTAs.
#include "probe.h"
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>
#include <algorithm>


struct Cfg { int bn, st, run, kblocks; long bands; };

__global__ void __launch_bounds__(64, 1) probe(const __grid_constant__ CUtensorMap m, Cfg c)
{
    extern __shared__ __align__(1024) uint8_t smem_raw[];
    uint8_t *smem = probe_smem(smem_raw);
    const int sb = c.bn * c.run;
    uint64_t *full = (uint64_t *)(smem + (size_t)sb * c.st);
    uint64_t *empty = full + 8;
    probe_ring_init(full, empty, c.st);
    uint32_t cnt = 0;
    for (long band = blockIdx.x; band < c.bands; band += gridDim.x)
        for (int kb = 0; kb < c.kblocks; ++kb, ++cnt) {
            const uint32_t s = cnt % c.st, ph = (cnt / c.st) & 1;
            if (threadIdx.x == 0) {
                pt::mbar_wait(&empty[s], ph ^ 1);
                pt::mbar_arrive_expect_tx(&full[s], sb);
                pt::tma_load_2d(smem + (size_t)s * sb, &m, &full[s], kb * (c.run / 2), (int)(band * c.bn));
            } else if (threadIdx.x == 32) {
                pt::mbar_wait(&full[s], ph);
                pt::mbar_arrive(&empty[s]);
            }
        }
}

int main()
{
    const long W = 2048;                  // row bytes
    const long bytes = 1L << 30, rows = bytes / W;
    uint8_t *k;
    CK(cudaMalloc(&k, bytes));
    CK(cudaMemset(k, 1, bytes));
    CK(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
    auto go = [&](int grid, int bn, int run, int st, int promo) {
        CUtensorMap m;
        cuuint64_t d[2] = {(cuuint64_t)(W / 2), (cuuint64_t)rows}, s[1] = {(cuuint64_t)W};
        cuuint32_t box[2] = {(cuuint32_t)(run / 2), (cuuint32_t)bn}, es[2] = {1, 1};
        const CUtensorMapL2promotion P[4] = {CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_64B,
                                             CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B};
        CUresult r = cuTensorMapEncodeTiled(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, k, d, s, box, es,
                                            CU_TENSOR_MAP_INTERLEAVE_NONE,
                                            run == 64 ? CU_TENSOR_MAP_SWIZZLE_64B : CU_TENSOR_MAP_SWIZZLE_128B,
                                            P[promo], CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
        if (r) { printf("encode failed (%d)\n", (int)r); return; }
        Cfg c{bn, st, run, (int)(W / run), rows / bn};
        const long smem = (long)bn * run * st + 1024 + 256;
        if (smem > 227 * 1024) return;
        const float med = probe_time(9, [&](int) { probe<<<grid, 64, smem>>>(m, c); }).median_ms;
        const double nb = (double)c.bands * bn * W;
        printf("grid %3d bn %3d run %3d B st %d (%3ld KB in flight) promo %d  %7.1f us  %.3f TB/s  %.1f GB/s per CTA\n",
               grid, bn, run, st, (long)bn * run * st / 1024, promo, med * 1e3,
               nb / (med * 1e-3) / 1e12, nb / (med * 1e-3) / 1e9 / grid);
        fflush(stdout);
    };
    for (int grid : {112, 132})
        for (int bn : {256, 128})
            for (int run : {64, 128})
                for (int st : {2, 3, 4, 6})
                    go(grid, bn, run, st, 3);
    for (int run : {64, 128})
        for (int promo : {0, 2})
            go(112, 256, run, 4, promo);
    CK(cudaDeviceSynchronize());
    return 0;
}
