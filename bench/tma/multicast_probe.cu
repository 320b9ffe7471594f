// multicast_probe.cu — does TMA multicast across a thread-block cluster raise the rate at which
// SMs can stream a shared operand out of L2? The load pattern of a small-M GEMM (M = 128): every
// CTA streams its own panel of B from HBM and the same A (L2-resident) along k. Modes:
//   B only          — the HBM part alone;
//   A + B           — each CTA loads all of A itself (what the generator emits today);
//   A mc/C + B      — the C CTAs of a cluster (adjacent n tiles, same k range) each load 1/C of
//                     A's rows and multicast it to all C; every stage's empty barrier then
//                     gathers the consumers of all C CTAs before any producer refills it.
// One producer thread issues, one consumer warp only waits and releases (no math), so the
// time is the loads'. Times: CUDA events, median of 9 launches after one warm-up.
#include "probe.h"
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>
#include <algorithm>


struct Cfg { int bm, bn, stages, mode, csize, splits, k_iters, gather, wait_cl, arrive_cta; };  // mode 0 B, 1 A+B, 2 A mc + B, 3 A only, 4 A mc only

__device__ __forceinline__ void tma_load_2d_mc(void *dst, const CUtensorMap *map, uint64_t *bar, int c0, int c1,
                                               uint16_t mask)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
                 " [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(pt::smem_addr(dst)),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(pt::smem_addr(bar)), "r"(c0), "r"(c1), "h"(mask)
                 : "memory");
}

__device__ __forceinline__ uint32_t cluster_rank()
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}

__global__ void __launch_bounds__(64, 1) probe(const __grid_constant__ CUtensorMap ma, const __grid_constant__ CUtensorMap mah,
                                             const __grid_constant__ CUtensorMap mb, Cfg c)
{
    extern __shared__ __align__(1024) uint8_t smem_raw[];
    uint8_t *smem = probe_smem(smem_raw);
    const bool has_a = c.mode >= 1, has_b = c.mode <= 2, mc = c.mode == 2 || c.mode == 4;
    const int a_bytes = c.bm * 128, b_bytes = c.bn * 128;  // 64 bf16 columns a row
    const int sb = (has_a ? a_bytes : 0) + (has_b ? b_bytes : 0);
    uint64_t *full = (uint64_t *)(smem + (size_t)sb * c.stages);
    uint64_t *empty = full + 8;
    const uint32_t rank = c.csize > 1 ? cluster_rank() : 0;
    probe_ring_init(full, empty, c.stages, c.gather ? c.csize : 1);
    if (c.csize > 1) { pt::cluster_arrive(); pt::cluster_wait(); }
    // tiles: cluster cl, rank r -> n tile (cl % (clusters per split)) * C + r, k range cl / that
    const int cl = blockIdx.x / c.csize, per_split = gridDim.x / c.csize / c.splits;
    const int n_tile = (cl % per_split) * c.csize + rank, ks = cl / per_split;
    const int k0 = ks * c.k_iters;
    if (threadIdx.x == 0) {
        for (int i = 0; i < c.k_iters; ++i) {
            const uint32_t s = i % c.stages, ph = (i / c.stages) & 1;
            if (c.wait_cl) pt::mbar_wait_cluster(&empty[s], ph ^ 1); else pt::mbar_wait(&empty[s], ph ^ 1);
            pt::mbar_arrive_expect_tx(&full[s], sb);
            uint8_t *dst = smem + (size_t)s * sb;
            const int kc = (k0 + i) * 64;
            if (has_a) {
                if (mc) {
                    const int rows = c.bm / c.csize;
                    tma_load_2d_mc(dst + rank * rows * 128, &mah, &full[s], kc, rank * rows, (uint16_t)((1u << c.csize) - 1));
                } else {
                    pt::tma_load_2d(dst, &ma, &full[s], kc, 0);
                }
            }
            if (has_b)
                pt::tma_load_2d(dst + (has_a ? a_bytes : 0), &mb, &full[s], kc, n_tile * c.bn);
        }
    } else if (threadIdx.x == 32) {
        for (int i = 0; i < c.k_iters; ++i) {
            const uint32_t s = i % c.stages, ph = (i / c.stages) & 1;
            pt::mbar_wait(&full[s], ph);
            if (c.gather)
                for (int r = 0; r < c.csize; ++r) {
                    if (c.arrive_cta)  // release at CTA scope (the PTX default), as CUTLASS's consumer_release
                        asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(pt::cluster_map(&empty[s], r)) : "memory");
                    else
                        pt::cluster_arrive_remote(pt::cluster_map(&empty[s], r));
                }
            else
                pt::mbar_arrive(&empty[s]);
        }
    }
    __syncthreads();
    if (c.csize > 1) { pt::cluster_arrive(); pt::cluster_wait(); }  // no CTA leaves while a peer may still write to it
}

static void make_map(CUtensorMap *m, void *base, long rows, long cols, int box_rows)
{
    cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
    cuuint64_t strides[1] = {(cuuint64_t)cols * 2};
    cuuint32_t box[2] = {64, (cuuint32_t)box_rows};
    cuuint32_t es[2] = {1, 1};
    CK(cuTensorMapEncodeTiled(m, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base, dims, strides, box, es,
                              CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                              CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
}

int main()
{
    const long K = 8192, N = 8192, M = 128;
    uint8_t *a, *b;
    const int nbuf = 4;  // B rotated over 4 copies (537 MB) so each launch streams it from HBM
    CK(cudaMalloc(&a, M * K * 2));
    CK(cudaMalloc(&b, nbuf * N * K * 2));
    CK(cudaMemset(a, 1, M * K * 2));
    CK(cudaMemset(b, 2, nbuf * N * K * 2));
    CK(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
    CK(cudaFuncSetAttribute(probe, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    printf("M %ld, N %ld, K %ld bf16: A %.1f MB (L2-resident), B %.1f MB (HBM, 4 copies rotated)\n", M, N, K,
           M * K * 2 / 1e6, N * K * 2 / 1e6);
    const char *names[] = {"B only", "A + B", "A mc + B", "A only", "A mc only"};
    auto run = [&](int bn, int splits, int mode, int cs, int gather, int wait_cl, int st, int arrive_cta) {
        const int tiles = (int)(N / bn) * splits;
        const int bm = 128;
        const int sb = ((mode >= 1) ? bm * 128 : 0) + ((mode <= 2) ? bn * 128 : 0);
        const size_t smem = (size_t)sb * st + 1024 + 256;
        CUtensorMap ma, mah, mb[nbuf];
        make_map(&ma, a, M, K, bm);
        make_map(&mah, a, M, K, bm / cs);
        for (int j = 0; j < nbuf; ++j) make_map(&mb[j], b + (size_t)j * N * K * 2, N, K, bn);
        Cfg c{bm, bn, st, mode, cs, splits, (int)(K / 64 / splits), gather, wait_cl, arrive_cta};
        cudaLaunchConfig_t lc = {};
        lc.gridDim = dim3(tiles);
        lc.blockDim = dim3(64);
        lc.dynamicSmemBytes = smem;
        cudaLaunchAttribute at[1];
        at[0].id = cudaLaunchAttributeClusterDimension;
        at[0].val.clusterDim.x = cs;
        at[0].val.clusterDim.y = 1;
        at[0].val.clusterDim.z = 1;
        lc.attrs = at;
        lc.numAttrs = 1;
        const ProbeTimes t = probe_time(13, [&](int r) { CK(cudaLaunchKernelEx(&lc, probe, ma, mah, mb[r % nbuf], c)); });
        const double us = t.median_ms * 1e3;
        const double per_cta = (double)c.k_iters * sb;  // bytes landing in each CTA
        printf("bn %3d split %d %-10s cluster %d gather %d wait_cl %d arrive_cta %d st %d: %7.2f us (best %.2f), %5.1f B/ns landing per CTA, B %.2f TB/s\n",
               bn, splits, names[mode], cs, gather, wait_cl, arrive_cta, st, us, t.best_ms * 1e3, per_cta / (us * 1e3),
               mode <= 2 ? (double)N * K * 2 / (us * 1e-6) / 1e12 : 0.0);
        fflush(stdout);
    };
    // isolate the release's cost: own loads with the release gathered across the cluster, at
    // cluster and at CTA scope; then multicast with the gathered release (never without: racy)
    run(128, 2, 3, 1, 0, 0, 4, 0);
    run(128, 2, 3, 2, 1, 0, 4, 1);
    run(128, 2, 4, 2, 1, 0, 4, 1);
    run(128, 2, 4, 4, 1, 0, 4, 1);
    for (int splits : {1, 2, 4})
        for (int bn : {128, 256}) {
            if ((N / bn) * splits > 132) continue;
            const int st = bn == 128 ? 4 : 3;
            run(bn, splits, 0, 1, 0, 0, st, 0);
            run(bn, splits, 1, 1, 0, 0, st, 0);
            run(bn, splits, 2, 2, 1, 0, st, 1);
            if ((N / bn) * splits % 4 == 0) run(bn, splits, 2, 4, 1, 0, st, 1);
        }
    CK(cudaDeviceSynchronize());
    return 0;
}
