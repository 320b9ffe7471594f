// scan_probe.cu — does Mamba2 ChunkScan's traffic stream slower than a copy because of the way
// it writes its output, or the 256-byte rows it reads? The kernel (h 2, l 64, the scheduler's
// pick on the H100) reads per tile C {n 128, l 64} and the head pair's states {n 128, 2 x p 64}
// (once per tile, one resident copy, handed back after the first product), and for each key
// block up to its row block x {p 64, 2 heads, s 64} (256-byte rows 8 KB apart) and CB {s 64,
// l 64}; then it stores out {p 64, 2 heads, l 64} into [b, s, h, p], 256-byte rows 8 KB apart,
// like x. ChunkState, which reads x the same way but writes each tile's states as one contiguous
// 64 KB, streams at 90% of a copy; ChunkScan at 65-70%. Here the same traffic with no
// arithmetic: one producer thread fills a ring of st stages (x and CB) and rc copies of the
// resident C and states, one consumer thread releases them and stores a staging tile per tile
// by TMA (waiting for the previous store's read first): 132 persistent CTAs, runs of 2 launch
// positions, the column walk with the longest row blocks first (as raster.h's column raster and
// codegen/sm90a/ssd_emit.c walk it). The store goes to out's own layout ("strided"), to a
// scratch buffer of tiles in launch order ("contiguous", the same bytes), or nowhere. Forms: the
// kernel's (h 2, st 4, rc 1), st 2 or 3 with one resident copy, st 2 or 4 with two, and 4 heads
// a tile (512-byte rows, st 2). B 8, S 2048, H 64, P 64, N 128, L 256: x and out 134 MB each,
// states 67 MB, median of 8.
#include "probe.h"
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>

enum { Bn = 8, S = 2048, H = 64, P = 64, N = 128, L = 256, BL = 64, BS = 64 };
enum { STORE_NONE, STORE_STRIDED, STORE_CONTIGUOUS };

// st: ring stages; hp: heads per tile (x's and out's rows are hp * 128 bytes); rc: copies of
// the resident C and states (the generated kernel keeps one).
struct Cfg { int st, store, hp, rc; };

constexpr int CB_BYTES = BS * BL * 2, C_BYTES = BL * N * 2;
__host__ __device__ constexpr int x_bytes(int hp) { return BS * hp * P * 2; }
__host__ __device__ constexpr int res_bytes(int hp) { return C_BYTES + hp * P * N * 2; }
__host__ __device__ constexpr int out_bytes(int hp) { return BL * hp * P * 2; }

__global__ void __launch_bounds__(64, 1) probe(const __grid_constant__ CUtensorMap mx,
                                               const __grid_constant__ CUtensorMap mcb,
                                               const __grid_constant__ CUtensorMap mc,
                                               const __grid_constant__ CUtensorMap mst,
                                               const __grid_constant__ CUtensorMap mo,
                                               const __grid_constant__ CUtensorMap mo2, Cfg c)
{
    extern __shared__ __align__(1024) uint8_t smem_raw[];
    uint8_t *smem = probe_smem(smem_raw);
    const int X_BYTES = x_bytes(c.hp), STAGE = X_BYTES + CB_BYTES, RES = res_bytes(c.hp);
    uint8_t *res = smem + (size_t)STAGE * c.st, *out = res + c.rc * RES;
    uint64_t *full = (uint64_t *)(out + out_bytes(c.hp)), *empty = full + 8;
    uint64_t *rfull = empty + 8, *rempty = rfull + 2;
    probe_ring_init(full, empty, c.st);
    probe_ring_init(rfull, rempty, c.rc);
    constexpr int chunks = S / L, rows = L / BL;
    const int pairs = H / c.hp, plane = pairs * rows;
    const long tiles = (long)Bn * chunks * plane;
    uint32_t cnt = 0, n_tile = 0;
    for (long run = blockIdx.x; run < tiles / 2; run += gridDim.x)
        for (long q = run * 2; q < run * 2 + 2; ++q, ++n_tile) {
            const long pl = q / plane;  /* the (b, c) plane; within it heads fastest */
            const int b = (int)(pl / chunks), ch = (int)(pl % chunks);
            const int hp = (int)(q % plane % pairs), lt = rows - 1 - (int)(q % plane / pairs);
            const int n_iter = lt + 1, row0 = b * S + ch * L;
            const uint32_t slot = n_tile % c.rc, rph = (n_tile / c.rc) & 1;
            if (threadIdx.x == 0) {
                pt::mbar_wait(&rempty[slot], rph ^ 1);
                pt::mbar_arrive_expect_tx(&rfull[slot], RES);
                uint8_t *r = res + (size_t)slot * RES;
                pt::tma_load_2d(r, &mc, &rfull[slot], 0, row0 + lt * BL);
                pt::tma_load_2d(r + C_BYTES, &mst, &rfull[slot], 0, ((b * chunks + ch) * H + hp * c.hp) * P);
                for (int i = 0; i < n_iter; ++i, ++cnt) {
                    const uint32_t s = cnt % c.st, ph = (cnt / c.st) & 1;
                    pt::mbar_wait(&empty[s], ph ^ 1);
                    pt::mbar_arrive_expect_tx(&full[s], STAGE);
                    pt::tma_load_3d(smem + (size_t)s * STAGE, &mx, &full[s], 0, hp * c.hp, row0 + i * BS);
                    pt::tma_load_2d(smem + (size_t)s * STAGE + X_BYTES, &mcb, &full[s], i * BS, row0 + lt * BL);
                }
            } else if (threadIdx.x == 32) {
                pt::mbar_wait(&rfull[slot], rph);
                pt::mbar_arrive(&rempty[slot]);  // the kernel's first product reads C and states
                for (int i = 0; i < n_iter; ++i, ++cnt) {
                    const uint32_t s = cnt % c.st, ph = (cnt / c.st) & 1;
                    pt::mbar_wait(&full[s], ph);
                    pt::mbar_arrive(&empty[s]);
                }
                if (c.store != STORE_NONE) {
                    pt::tma_store_wait_read();
                    pt::fence_proxy_async();
                    if (c.store == STORE_STRIDED)
                        pt::tma_store_3d(&mo, out, 0, hp * c.hp, row0 + lt * BL);
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
    const long tiles2 = (long)Bn * (S / L) * (H / 2) * (L / BL);  /* the most tiles (2 heads each) */
    void *x, *cb, *cm, *st, *o, *o2;
    CK(cudaMalloc(&x, xbytes));
    CK(cudaMalloc(&cb, cbbytes));
    CK(cudaMalloc(&cm, cbytes));
    CK(cudaMalloc(&st, stbytes));
    CK(cudaMalloc(&o, xbytes));
    CK(cudaMalloc(&o2, (size_t)tiles2 * out_bytes(2)));
    CK(cudaMemset(x, 1, xbytes));
    CK(cudaMemset(cb, 1, cbbytes));
    CK(cudaMemset(cm, 1, cbytes));
    CK(cudaMemset(st, 1, stbytes));
    CK(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
    /* x and out as [rows, H, P]; states as [B * chunks * H * P, N]; the contiguous scratch
     * as one hp * P-wide row per output row, tile after tile */
    CUtensorMap mx[2], mo[2], mst[2], mo2[2], mcb, mc;
    const cuuint64_t dx[3] = {P, H, rows_all}, sx[2] = {P * 2, H * P * 2};
    const cuuint64_t dst[2] = {N, (cuuint64_t)Bn * (S / L) * H * P}, sst[1] = {N * 2};
    for (int v = 0; v < 2; ++v) {
        const cuuint32_t hp = 2 << v, tiles = (cuuint32_t)(tiles2 * 2 / hp);
        const cuuint32_t bx[3] = {P, hp, BS}, bo[3] = {P, hp, BL}, bst[2] = {N, hp * P};
        map(&mx[v], BF, 3, x, dx, sx, bx, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
        map(&mo[v], BF, 3, o, dx, sx, bo, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE);
        map(&mst[v], BF, 2, st, dst, sst, bst, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
        const cuuint64_t do2[2] = {hp * P, (cuuint64_t)tiles * BL}, so2[1] = {hp * P * 2};
        const cuuint32_t bo2[2] = {hp * P, BL};
        map(&mo2[v], BF, 2, o2, do2, so2, bo2, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE);
    }
    const cuuint64_t dcb[2] = {L, rows_all}, scb[1] = {L * 2};
    const cuuint32_t bcb[2] = {BS, BL};
    map(&mcb, BF, 2, cb, dcb, scb, bcb, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
    const cuuint64_t dc[2] = {N, rows_all}, sc[1] = {N * 2};
    const cuuint32_t bc[2] = {N, BL};
    map(&mc, BF, 2, cm, dc, sc, bc, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
    const double compulsory = (double)xbytes + stbytes + cbytes + cbbytes * 10.0 / 16;  /* CB: 10 of 16 blocks */
    /* heads per tile, stages, resident copies: the kernel's form first */
    static const int forms[][3] = {{2, 4, 1}, {2, 3, 1}, {2, 2, 1}, {2, 2, 2}, {2, 4, 2}, {4, 2, 1}};
    auto go = [&](int hp, int stages, int rc, int store) {
        const long smem = (long)(x_bytes(hp) + CB_BYTES) * stages + (long)rc * res_bytes(hp) + out_bytes(hp) + 1024 + 256;
        if (smem > 227 * 1024)
            return;
        Cfg c{stages, store, hp, rc};
        const int v = hp == 4;
        const double us = probe_time(9, [&](int) { probe<<<132, 64, smem>>>(mx[v], mcb, mc, mst[v], mo[v], mo2[v], c); }).median_ms * 1e3;
        const double dram = compulsory + (store != STORE_NONE ? (double)xbytes : 0);
        printf("h %d  st %d  rc %d  store %-10s  %7.1f us  %.3f TB/s of compulsory DRAM bytes\n", hp, stages,
               rc, store == STORE_NONE ? "none" : store == STORE_STRIDED ? "strided" : "contiguous", us,
               dram / us / 1e6);
        fflush(stdout);
    };
    for (int rep = 0; rep < 2; ++rep)  /* twice, interleaved: drift */
        for (const auto &k : forms)
            for (int store : {STORE_STRIDED, STORE_CONTIGUOUS, STORE_NONE})
                go(k[0], k[1], k[2], store);
    CK(cudaDeviceSynchronize());
    return 0;
}
