// promotion_probe.cu — which TMA box shapes read HBM at the bulk-copy rate? One tensor, each CTA a
// contiguous band, st stages of a ring, a consumer warp that only releases. Modes:
//  0 two boxes {64, bn} (128-B rows of 256-B rows, 128B swizzle): the decode kernel's K/V
//  1 one 3-D box {64, bn, 2} over dims {64, rows, 2} strides {256, 128}: the same smem layout
//  2 alternating {64, h} boxes, half 0 then half 1 of each h rows: the same smem layout
//  3 one box {64, 2 bn} over 128-B rows (contiguous 28-32 KB; another smem layout)
//  4 no swizzle, one box {128, bn} (contiguous; row-major smem)
//  5 1-D bulk copy of the stage's bytes
//  6 wide rows (W = 4096 f16, 8 KB): a band of bn rows streamed along k, KA 128-B atoms per stage,
//    one {64, bn} box per atom (a memory-bound GEMM's B tile)
//  7 as 6 with alternating {64, h} boxes: for each h rows, its KA atoms
// promo: L2 promotion 0 none, 1 64B, 2 128B, 3 256B.
#include "probe.h"
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>
#include <algorithm>


struct Cfg { int mode, bn, st, h, ka; long nb; };  // nb: stages' worth of work in the tensor

__global__ void __launch_bounds__(64, 1) probe(const __grid_constant__ CUtensorMap m, const uint8_t *g, Cfg c)
{
    extern __shared__ __align__(1024) uint8_t smem_raw[];
    uint8_t *smem = probe_smem(smem_raw);
    const int sb = c.mode >= 6 ? c.bn * 128 * c.ka : c.bn * 256;
    uint64_t *full = (uint64_t *)(smem + (size_t)sb * c.st);
    uint64_t *empty = full + 8;
    probe_ring_init(full, empty, c.st);
    const long b0 = c.nb * blockIdx.x / gridDim.x, b1 = c.nb * (blockIdx.x + 1) / gridDim.x;
    if (threadIdx.x == 0) {
        uint32_t cnt = 0;
        for (long b = b0; b < b1; ++b, ++cnt) {
            const uint32_t s = cnt % c.st, ph = (cnt / c.st) & 1;
            pt::mbar_wait(&empty[s], ph ^ 1);
            pt::mbar_arrive_expect_tx(&full[s], sb);
            uint8_t *dst = smem + (size_t)s * sb;
            uint64_t *bar = &full[s];
            const int row = (int)(b * c.bn);
            switch (c.mode) {
            case 0:
                for (int a = 0; a < 2; ++a) pt::tma_load_2d(dst + a * c.bn * 128, &m, bar, a * 64, row);
                break;
            case 1:
                pt::tma_load_3d(dst, &m, bar, 0, row, 0);
                break;
            case 2:
                for (int r = 0; r < c.bn; r += c.h)
                    for (int a = 0; a < 2; ++a) pt::tma_load_2d(dst + a * c.bn * 128 + r * 128, &m, bar, a * 64, row + r);
                break;
            case 3:
                pt::tma_load_2d(dst, &m, bar, 0, 2 * row);
                break;
            case 4:
                pt::tma_load_2d(dst, &m, bar, 0, row);
                break;
            case 5:
                asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                             ::"r"(pt::smem_addr(dst)), "l"(g + (long)row * 256), "r"(sb), "r"(pt::smem_addr(bar)) : "memory");
                break;
            default: {
                // wide rows: stage b is k block (b % kblocks) of band (b / kblocks)
                const int kblocks = 64 / c.ka;  // 4096 f16 = 64 atoms per row
                const int band = (int)(b / kblocks), kb = (int)(b % kblocks);
                if (c.mode == 6) {
                    for (int a = 0; a < c.ka; ++a)
                        pt::tma_load_2d(dst + a * c.bn * 128, &m, bar, (kb * c.ka + a) * 64, band * c.bn);
                } else {
                    for (int r = 0; r < c.bn; r += c.h)
                        for (int a = 0; a < c.ka; ++a)
                            pt::tma_load_2d(dst + a * c.bn * 128 + r * 128, &m, bar, (kb * c.ka + a) * 64, band * c.bn + r);
                }
            }
            }
        }
    } else if (threadIdx.x == 32) {
        uint32_t cnt = 0;
        for (long b = b0; b < b1; ++b, ++cnt) {
            const uint32_t s = cnt % c.st, ph = (cnt / c.st) & 1;
            pt::mbar_wait(&full[s], ph);
            pt::mbar_arrive(&empty[s]);
        }
    }
}

static const CUtensorMapL2promotion PROMO[4] = {CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_64B,
                                                 CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B};

static bool enc(CUtensorMap *m, void *base, int rank, const cuuint64_t *dims, const cuuint64_t *strides,
                const cuuint32_t *box, CUtensorMapSwizzle sw, int promo)
{
    cuuint32_t es[3] = {1, 1, 1};
    CUresult r = cuTensorMapEncodeTiled(m, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, rank, base, dims, strides, box, es,
                              CU_TENSOR_MAP_INTERLEAVE_NONE, sw, PROMO[promo], CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r) printf("encode failed (%d): rank %d box %u %u\n", (int)r, rank, box[0], box[1]);
    return r == 0;
}

int main()
{
    const long bytes = 1L << 30;
    const long rows = bytes / 256;
    uint8_t *k;
    CK(cudaMalloc(&k, bytes));
    CK(cudaMemset(k, 1, bytes));
    CK(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
    auto run = [&](int mode, int bn, int st, int h, int ka, int promo) {
        CUtensorMap m;
        const CUtensorMapSwizzle S = CU_TENSOR_MAP_SWIZZLE_128B;
        long nb;
        if (mode == 0 || mode == 5) {
            cuuint64_t d[2] = {128, (cuuint64_t)rows}, s[1] = {256};
            cuuint32_t b[2] = {64, (cuuint32_t)bn};
            if (!enc(&m, k, 2, d, s, b, S, promo)) return;
            nb = rows / bn;
        } else if (mode == 1) {
            cuuint64_t d[3] = {64, (cuuint64_t)rows, 2}, s[2] = {256, 128};
            cuuint32_t b[3] = {64, (cuuint32_t)bn, 2};
            if (!enc(&m, k, 3, d, s, b, S, promo)) return;
            nb = rows / bn;
        } else if (mode == 2) {
            cuuint64_t d[2] = {128, (cuuint64_t)rows}, s[1] = {256};
            cuuint32_t b[2] = {64, (cuuint32_t)h};
            if (!enc(&m, k, 2, d, s, b, S, promo)) return;
            nb = rows / bn;
        } else if (mode == 3) {
            cuuint64_t d[2] = {64, (cuuint64_t)(2 * rows)}, s[1] = {128};
            cuuint32_t b[2] = {64, (cuuint32_t)(2 * bn)};
            if (2 * bn > 256) return;
            if (!enc(&m, k, 2, d, s, b, S, promo)) return;
            nb = rows / bn;
        } else if (mode == 4) {
            cuuint64_t d[2] = {128, (cuuint64_t)rows}, s[1] = {256};
            cuuint32_t b[2] = {128, (cuuint32_t)bn};
            if (!enc(&m, k, 2, d, s, b, CU_TENSOR_MAP_SWIZZLE_NONE, promo)) return;
            nb = rows / bn;
        } else {
            const long wrows = bytes / 8192;
            cuuint64_t d[2] = {4096, (cuuint64_t)wrows}, s[1] = {8192};
            cuuint32_t b[2] = {64, (cuuint32_t)(mode == 6 ? bn : h)};
            if (!enc(&m, k, 2, d, s, b, S, promo)) return;
            nb = (wrows / bn) * (64 / ka);
        }
        Cfg c{mode, bn, st, h, ka, nb};
        const long sb = mode >= 6 ? (long)bn * 128 * ka : (long)bn * 256;
        const long smem = sb * st + 1024 + 256;
        if (smem > 227 * 1024) return;
        const double nbytes = (double)nb * sb;
        const ProbeTimes t = probe_time(9, [&](int) { probe<<<132, 64, smem>>>(m, k, c); });
        printf("mode %d bn %3d st %d h %3d ka %d promo %d  %7.1f us  %.3f TB/s (best %.3f)\n", mode, bn, st, h, ka, promo,
               t.median_ms * 1e3, nbytes / (t.median_ms * 1e-3) / 1e12, nbytes / (t.best_ms * 1e-3) / 1e12);
        fflush(stdout);
    };
    for (int promo = 0; promo < 4; ++promo) run(0, 128, 4, 0, 0, promo);
    run(0, 112, 4, 0, 0, 3);
    run(5, 128, 4, 0, 0, 3);
    for (int promo : {0, 3}) run(1, 128, 4, 0, 0, promo);
    for (int h : {8, 16, 32, 64})
        for (int promo : {0, 3}) run(2, 128, 4, h, 0, promo);
    run(2, 112, 4, 8, 0, 3);
    run(2, 112, 4, 16, 0, 3);
    for (int promo : {0, 3}) run(3, 128, 4, 0, 0, promo);
    for (int promo : {0, 3}) run(4, 128, 4, 0, 0, promo);
    // a memory-bound GEMM's B tile: bn rows, ka atoms of 128 B per stage
    for (int ka : {1, 2, 4})
        for (int promo : {0, 3}) {
            const int bn = ka == 1 ? 256 : ka == 2 ? 128 : 64;
            run(6, bn, 4, 0, ka, promo);
            run(7, bn, 4, 8, ka, promo);
            run(7, bn, 4, 32, ka, promo);
        }
    run(6, 128, 4, 0, 4, 3);
    run(7, 128, 4, 8, 4, 3);
    CK(cudaDeviceSynchronize());
    return 0;
}
