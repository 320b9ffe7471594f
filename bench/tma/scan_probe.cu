// scan_probe.cu — does Mamba2 ChunkScan's traffic stream slower than a copy because of the way
// it writes its output? The kernel (h 2, l 64, the scheduler's pick on the H100) reads per tile
// C {n 128, l 64} and the head pair's states {n 128, 2 x p 64} (once per tile), and for each
// key block up to its row block x {p 64, 2 heads, s 64} (256-byte rows 8 KB apart) and
// CB {s 64, l 64}; then it stores out {p 64, 2 heads, l 64} into [b, s, h, p], 256-byte rows
// 8 KB apart, like x. ChunkState, which reads x the same way but writes each tile's states as
// one contiguous 64 KB, streams at 90% of a copy; ChunkScan at 65-70%. Here the same traffic with no arithmetic: one producer
// thread fills a ring of st stages (x and CB) and a 2-copy resident buffer (C and states), one
// consumer thread releases them and stores a 16-KB staging tile per tile by TMA (waiting for
// the previous store's read first): 132 persistent CTAs, runs of 2 launch positions, the
// column walk with the longest row blocks first (as raster.h's column raster and
// codegen/sm90a/ssd_emit.c walk it). The store goes to out's own layout ("strided"), to a
// scratch buffer of 16-KB tiles in launch order ("contiguous", the same bytes), or nowhere.
// B 8, S 2048, H 64, P 64, N 128, L 256: x and out 134 MB each, states 67 MB, median of 8.
#include "probe.h"
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>

enum { Bn = 8, S = 2048, H = 64, P = 64, N = 128, L = 256, BL = 64, BS = 64 };
enum { STORE_NONE, STORE_STRIDED, STORE_CONTIGUOUS };

struct Cfg { int st, store; };

constexpr int X_BYTES = BS * 2 * P * 2, CB_BYTES = BS * BL * 2, STAGE = X_BYTES + CB_BYTES;
constexpr int C_BYTES = BL * N * 2, ST_BYTES = 2 * P * N * 2, RES = C_BYTES + ST_BYTES;
constexpr int OUT_BYTES = BL * 2 * P * 2;

__global__ void __launch_bounds__(64, 1) probe(const __grid_constant__ CUtensorMap mx,
                                               const __grid_constant__ CUtensorMap mcb,
                                               const __grid_constant__ CUtensorMap mc,
                                               const __grid_constant__ CUtensorMap mst,
                                               const __grid_constant__ CUtensorMap mo,
                                               const __grid_constant__ CUtensorMap mo2, Cfg c)
{
    extern __shared__ __align__(1024) uint8_t smem_raw[];
    uint8_t *smem = probe_smem(smem_raw);
    uint8_t *res = smem + (size_t)STAGE * c.st, *out = res + 2 * RES;
    uint64_t *full = (uint64_t *)(out + OUT_BYTES), *empty = full + 8;
    uint64_t *rfull = empty + 8, *rempty = rfull + 2;
    probe_ring_init(full, empty, c.st);
    probe_ring_init(rfull, rempty, 2);
    constexpr int chunks = S / L, pairs = H / 2, rows = L / BL, plane = pairs * rows;
    const long tiles = (long)Bn * chunks * plane;
    uint32_t cnt = 0, n_tile = 0;
    for (long run = blockIdx.x; run < tiles / 2; run += gridDim.x)
        for (long q = run * 2; q < run * 2 + 2; ++q, ++n_tile) {
            const long pl = q / plane;  /* the (b, c) plane; within it heads fastest */
            const int b = (int)(pl / chunks), ch = (int)(pl % chunks);
            const int hp = (int)(q % plane % pairs), lt = rows - 1 - (int)(q % plane / pairs);
            const int n_iter = lt + 1, row0 = b * S + ch * L;
            const uint32_t slot = n_tile & 1, rph = (n_tile >> 1) & 1;
            if (threadIdx.x == 0) {
                pt::mbar_wait(&rempty[slot], rph ^ 1);
                pt::mbar_arrive_expect_tx(&rfull[slot], RES);
                uint8_t *r = res + (size_t)slot * RES;
                pt::tma_load_2d(r, &mc, &rfull[slot], 0, row0 + lt * BL);
                pt::tma_load_2d(r + C_BYTES, &mst, &rfull[slot], 0, ((b * chunks + ch) * H + hp * 2) * P);
                for (int i = 0; i < n_iter; ++i, ++cnt) {
                    const uint32_t s = cnt % c.st, ph = (cnt / c.st) & 1;
                    pt::mbar_wait(&empty[s], ph ^ 1);
                    pt::mbar_arrive_expect_tx(&full[s], STAGE);
                    pt::tma_load_3d(smem + (size_t)s * STAGE, &mx, &full[s], 0, hp * 2, row0 + i * BS);
                    pt::tma_load_2d(smem + (size_t)s * STAGE + X_BYTES, &mcb, &full[s], i * BS, row0 + lt * BL);
                }
            } else if (threadIdx.x == 32) {
                pt::mbar_wait(&rfull[slot], rph);
                for (int i = 0; i < n_iter; ++i, ++cnt) {
                    const uint32_t s = cnt % c.st, ph = (cnt / c.st) & 1;
                    pt::mbar_wait(&full[s], ph);
                    pt::mbar_arrive(&empty[s]);
                }
                pt::mbar_arrive(&rempty[slot]);
                if (c.store != STORE_NONE) {
                    pt::tma_store_wait_read();
                    pt::fence_proxy_async();
                    if (c.store == STORE_STRIDED)
                        pt::tma_store_3d(&mo, out, 0, hp * 2, row0 + lt * BL);
                    else
                        pt::tma_store_2d(&mo2, out, 0, (int)q * BL);
                    pt::tma_store_commit();
                }
            }
        }
    if (threadIdx.x == 32)
        pt::tma_store_wait_all();
}

static void map(CUtensorMap *m, CUtensorMapDataType t, int rank, void *p, const cuuint64_t *dims,
                const cuuint64_t *strides, const cuuint32_t *box, CUtensorMapSwizzle sw,
                CUtensorMapL2promotion pr)
{
    const cuuint32_t es[3] = {1, 1, 1};
    CK(cuTensorMapEncodeTiled(m, t, rank, p, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                              sw, pr, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
}

int main()
{
    const CUtensorMapDataType BF = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    const size_t rows_all = (size_t)Bn * S;
    const size_t xbytes = rows_all * H * P * 2, cbbytes = rows_all * L * 2, cbytes = rows_all * N * 2;
    const size_t stbytes = (size_t)Bn * (S / L) * H * P * N * 2;
    const long tiles = (long)Bn * (S / L) * (H / 2) * (L / BL);
    void *x, *cb, *cm, *st, *o, *o2;
    CK(cudaMalloc(&x, xbytes));
    CK(cudaMalloc(&cb, cbbytes));
    CK(cudaMalloc(&cm, cbytes));
    CK(cudaMalloc(&st, stbytes));
    CK(cudaMalloc(&o, xbytes));
    CK(cudaMalloc(&o2, (size_t)tiles * OUT_BYTES));
    CK(cudaMemset(x, 1, xbytes));
    CK(cudaMemset(cb, 1, cbbytes));
    CK(cudaMemset(cm, 1, cbytes));
    CK(cudaMemset(st, 1, stbytes));
    CK(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
    CUtensorMap mx, mcb, mc, mst, mo, mo2;
    const cuuint64_t dx[3] = {P, H, rows_all}, sx[2] = {P * 2, H * P * 2};
    const cuuint32_t bx[3] = {P, 2, BS}, bo[3] = {P, 2, BL};
    map(&mx, BF, 3, x, dx, sx, bx, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
    map(&mo, BF, 3, o, dx, sx, bo, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE);
    const cuuint64_t dcb[2] = {L, rows_all}, scb[1] = {L * 2};
    const cuuint32_t bcb[2] = {BS, BL};
    map(&mcb, BF, 2, cb, dcb, scb, bcb, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
    const cuuint64_t dc[2] = {N, rows_all}, sc[1] = {N * 2};
    const cuuint32_t bc[2] = {N, BL};
    map(&mc, BF, 2, cm, dc, sc, bc, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
    const cuuint64_t dst[2] = {N, (cuuint64_t)Bn * (S / L) * H * P}, sst[1] = {N * 2};
    const cuuint32_t bst[2] = {N, 2 * P};
    map(&mst, BF, 2, st, dst, sst, bst, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
    const cuuint64_t do2[2] = {2 * P, (cuuint64_t)tiles * BL}, so2[1] = {2 * P * 2};
    const cuuint32_t bo2[2] = {2 * P, BL};
    map(&mo2, BF, 2, o2, do2, so2, bo2, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE);
    const double compulsory = (double)xbytes + stbytes + cbytes + cbbytes * 10.0 / 16;  /* CB: 10 of 16 blocks */
    auto go = [&](int stages, int store) {
        const long smem = (long)STAGE * stages + 2 * RES + OUT_BYTES + 1024 + 256;
        if (smem > 227 * 1024)
            return;
        Cfg c{stages, store};
        const double us = probe_time(9, [&](int) { probe<<<132, 64, smem>>>(mx, mcb, mc, mst, mo, mo2, c); }).median_ms * 1e3;
        const double dram = compulsory + (store != STORE_NONE ? (double)xbytes : 0);
        printf("st %d  store %-10s  %7.1f us  %.3f TB/s of compulsory DRAM bytes\n", stages,
               store == STORE_NONE ? "none" : store == STORE_STRIDED ? "strided" : "contiguous", us,
               dram / us / 1e6);
        fflush(stdout);
    };
    for (int rep = 0; rep < 2; ++rep)  /* twice, interleaved: drift */
        for (int stages : {2, 4})
            for (int store : {STORE_STRIDED, STORE_CONTIGUOUS, STORE_NONE})
                go(stages, store);
    CK(cudaDeviceSynchronize());
    return 0;
}
