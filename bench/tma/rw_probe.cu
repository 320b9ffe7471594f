// rw_probe.cu — does a TMA ring that reads further ahead stream slower when the kernel also
// writes as much as it reads? Mamba2's ChunkState does: per tile (a chunk, two heads) it reads
// x in boxes {p 64, 2 heads, l} from [b, s, h, p] bf16 (128-byte rows 8 KB apart, from HBM) and
// B in boxes {n 128, l} from [b, s, n] (one box feeds the 32 head pairs of a chunk: L2 hits),
// then stores 64 KB of f32 states. Here the same traffic with no arithmetic: one producer
// thread fills st stages (x and B each), one consumer thread releases them and, after a tile's
// last step, stores a 64-KB staging buffer by TMA (waiting for the previous store's read
// first); 132 persistent CTAs, runs of 2 tiles. Rings 2-4 deep at l 64, 2 deep at l 128, with
// and without the store, with and without B. B 8, S 2048, H 64, P 64, N 128: x 134 MB, states
// 134 MB a launch, median of 8.
#include "probe.h"
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>
#include <algorithm>


enum { Bn = 8, S = 2048, H = 64, P = 64, N = 128, L = 256 };

struct Cfg { int l, st, store, bm; };

__global__ void __launch_bounds__(64, 1) probe(const __grid_constant__ CUtensorMap mx,
                                               const __grid_constant__ CUtensorMap mb,
                                               const __grid_constant__ CUtensorMap mo, Cfg c)
{
    extern __shared__ __align__(1024) uint8_t smem_raw[];
    uint8_t *smem = probe_smem(smem_raw);
    const int xb = c.l * 2 * P * 2, bb = c.bm ? c.l * N * 2 : 0, sb = xb + bb;
    uint8_t *out = smem + (size_t)sb * c.st;             /* 64 KB staging of the states */
    uint64_t *full = (uint64_t *)(out + 65536);
    uint64_t *empty = full + 8;
    probe_ring_init(full, empty, c.st);
    const int chunks = S / L, pairs = H / 2, steps = L / c.l;
    const long tiles = (long)Bn * chunks * pairs;
    uint32_t cnt = 0;
    for (long run = blockIdx.x; run < tiles / 2; run += gridDim.x)
        for (long t = run * 2; t < run * 2 + 2; ++t) {
            const int b = (int)(t / (chunks * pairs)), ch = (int)(t / pairs % chunks), hp = (int)(t % pairs);
            for (int i = 0; i < steps; ++i, ++cnt) {
                const uint32_t s = cnt % c.st, ph = (cnt / c.st) & 1;
                const int row = b * S + ch * L + i * c.l;
                if (threadIdx.x == 0) {
                    pt::mbar_wait(&empty[s], ph ^ 1);
                    pt::mbar_arrive_expect_tx(&full[s], sb);
                    pt::tma_load_3d(smem + (size_t)s * sb, &mx, &full[s], 0, hp * 2, row);
                    if (c.bm)
                        pt::tma_load_2d(smem + (size_t)s * sb + xb, &mb, &full[s], 0, row);
                } else if (threadIdx.x == 32) {
                    pt::mbar_wait(&full[s], ph);
                    pt::mbar_arrive(&empty[s]);
                    if (i == steps - 1 && c.store) {
                        pt::tma_store_wait_read();
                        pt::fence_proxy_async();
                        const int orow = (int)t * 2 * P; /* [tile, 2 heads x P rows, N] f32 */
                        pt::tma_store_2d(&mo, out, 0, orow);
                        pt::tma_store_2d(&mo, out + 32768, 0, orow + 64);
                        pt::tma_store_commit();
                    }
                }
            }
        }
    if (threadIdx.x == 32)
        pt::tma_store_wait_all();
}

int main()
{
    const size_t xbytes = (size_t)Bn * S * H * P * 2, bbytes = (size_t)Bn * S * N * 2;
    const long tiles = (long)Bn * (S / L) * (H / 2);
    const size_t obytes = (size_t)tiles * 2 * P * N * 4;
    void *x, *bm, *o;
    CK(cudaMalloc(&x, xbytes));
    CK(cudaMalloc(&bm, bbytes));
    CK(cudaMalloc(&o, obytes));
    CK(cudaMemset(x, 1, xbytes));
    CK(cudaMemset(bm, 1, bbytes));
    CK(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
    auto go = [&](int l, int st, int store, int bmon) {
        CUtensorMap mx, mb, mo;
        cuuint32_t es3[3] = {1, 1, 1}, es2[2] = {1, 1};
        cuuint64_t dx[3] = {P, H, (cuuint64_t)Bn * S}, sx[2] = {P * 2, H * P * 2};
        cuuint32_t bx[3] = {P, 2, (cuuint32_t)l};
        CK(cuTensorMapEncodeTiled(&mx, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 3, x, dx, sx, bx, es3,
                                  CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                  CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
        cuuint64_t db[2] = {N, (cuuint64_t)Bn * S}, sbs[1] = {N * 2};
        cuuint32_t bbox[2] = {N, (cuuint32_t)l};
        CK(cuTensorMapEncodeTiled(&mb, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, bm, db, sbs, bbox, es2,
                                  CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                  CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
        cuuint64_t dout[2] = {N, (cuuint64_t)tiles * 2 * P}, so[1] = {N * 4};
        cuuint32_t bo[2] = {N, 64};
        CK(cuTensorMapEncodeTiled(&mo, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, o, dout, so, bo, es2,
                                  CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                  CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
        Cfg c{l, st, store, bmon};
        const long stage = (long)l * 2 * P * 2 + (bmon ? (long)l * N * 2 : 0);
        const long smem = stage * st + 65536 + 1024 + 256;
        if (smem > 227 * 1024) return;
        const double us = probe_time(9, [&](int) { probe<<<132, 64, smem>>>(mx, mb, mo, c); }).median_ms * 1e3, dram = (double)xbytes + (store ? (double)obytes : 0);
        printf("l %3d st %d (%3ld KB in flight) B %s store %s  %7.1f us  %.3f TB/s of DRAM (x%s)\n", l, st,
               stage * st / 1024, bmon ? "on " : "off", store ? "on " : "off", us, dram / us / 1e6,
               store ? " + states" : "");
        fflush(stdout);
    };
    for (int store : {1, 0})
        for (int bmon : {1, 0}) {
            for (int st : {2, 3, 4})
                go(64, st, store, bmon);
            go(128, 2, store, bmon);
        }
    for (int st : {2, 3, 4, 2, 3, 4}) /* again, interleaved: drift */
        go(64, st, 1, 1);
    CK(cudaDeviceSynchronize());
    return 0;
}
