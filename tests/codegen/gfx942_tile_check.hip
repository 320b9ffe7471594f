// gfx942_tile_check.hip — a compile check of the gfx942 device library (codegen/device/
// pt_device_hip.h and pt_tile_hip.h), NOT a generated kernel: the generated gfx942 kernels come
// with the backend. test_gfx942_compile.sh builds it for gfx942 and reads the assembly. It
// instantiates every function of both headers in the shapes a kernel uses them: a tiled GEMM
// loop with two LDS stages for each MFMA shape and dtype, one softmax pass over a key block
// of attention, and FlashDecoding's combine. Never run (no MI300X here): the results are not
// checked, only the code.
#include "pt_device_hip.h"
#include "pt_tile_hip.h"

namespace {

constexpr int THREADS = 256; // 4 waves
constexpr int BM = 64, BN = 64, BK = 32, LD = BK + 8; // LDS rows padded by 16 bytes

// C[BM x BN] of workgroup (x, y) = A[m0.., :] · B[n0.., :]^T, A and B K-contiguous, C's rows
// ldc apart. Each wave
// owns a 32 x 32 quadrant as (32/M)^2 MFMA blocks. K goes in BK steps through two LDS stages:
// the loads of step kt + 1 are in flight while step kt is multiplied.
template <typename T, int M>
__device__ void gemm_tile(const T *A, const T *B, float *C, int K, int ldc, uint8_t *trace)
{
    constexpr int NB = 32 / M;
    __shared__ T As[2][BM * LD], Bs[2][BN * LD];
    const uint32_t tid = pt::thread_id(), lane = pt::lane_id(), wave = pt::wave_id();
    const int m0 = (int)pt::block_id_x() * BM, n0 = (int)pt::block_id_y() * BN;
    const int wm = (int)(wave / 2) * 32, wn = (int)(wave % 2) * 32;
#ifdef PT_TRACE
    pt::Tracer tr;
    if (lane == 0)
        tr.begin(trace, wave, 4, 64);
#else
    (void)trace;
#endif
    typename pt::acc<M>::type c[NB][NB] = {};
    pt::tile_copy<BM, BK, THREADS, LD> ca, cb;
    ca.load(A + m0 * K, K, tid);
    cb.load(B + n0 * K, K, tid);
    ca.store(As[0], tid);
    cb.store(Bs[0], tid);
    pt::lds_sync();
    const int nk = K / BK;
    for (int kt = 0; kt < nk; ++kt) {
        const int cur = kt & 1;
        if (kt + 1 < nk) { // the next stage's loads, in flight during the MFMAs
            ca.load(A + m0 * K + (kt + 1) * BK, K, tid);
            cb.load(B + n0 * K + (kt + 1) * BK, K, tid);
        }
#ifdef PT_TRACE
        if (lane == 0)
            tr.rec(1, 1 + wave, 0, kt, 0);
#endif
#pragma unroll
        for (int kk = 0; kk < BK; kk += pt::acc<M>::k)
#pragma unroll
            for (int i = 0; i < NB; ++i)
#pragma unroll
                for (int j = 0; j < NB; ++j)
                    pt::mma<T, M>(c[i][j], pt::frag<T, M>(&As[cur][(wm + i * M) * LD], LD, kk, lane),
                                  pt::frag<T, M>(&Bs[cur][(wn + j * M) * LD], LD, kk, lane));
#ifdef PT_TRACE
        if (lane == 0)
            tr.rec(1, 1 + wave, 0, kt, 1);
#endif
        if (kt + 1 < nk) { // the Wait on the loads, then the other stage (read last step) is written
            pt::vm_wait<0>();
            ca.store(As[cur ^ 1], tid);
            cb.store(Bs[cur ^ 1], tid);
        }
        pt::lds_sync();
    }
#pragma unroll
    for (int i = 0; i < NB; ++i)
#pragma unroll
        for (int j = 0; j < NB; ++j)
#pragma unroll
            for (int g = 0; g < (M == 32 ? 16 : 4); ++g)
                C[(m0 + wm + i * M + pt::acc_row<M>(lane, g)) * ldc +
                  n0 + wn + j * M + pt::acc_col<M>(lane)] = c[i][j][g];
#ifdef PT_TRACE
    if (lane == 0)
        tr.end();
#endif
}

// One softmax pass of attention for one wave's 32 queries over one key block of N keys, head
// dim D, in the transposed layout of pt_tile_hip.h: S^T = K·Q^T, mask, max, exp, sum,
// rescale O, O^T += V^T·P^T, then O = O / l. Q [32][D], Kt [N][D] and Vt [D][N] row-major (the
// K-contiguous operands); q0 and n0 (the wave's first query and the block's first key) are run-
// time values, so no mask folds away; SEQ < N so the sequence-end mask has work; causal.
template <typename T, int N, int D, int SEQ>
__device__ void attn_row_pass(const T *Q, const T *Kt, const T *Vt, float *O, float scale_log2,
                              int q0, int n0)
{
    const uint32_t lane = pt::lane_id();
    const int row = q0 + (int)(lane % 32);
    pt::f32x16 s[N / 32] = {}, o[D / 32] = {};
    float m_run = -__builtin_inff(), l_run = 0.f, alpha, m_sub;
#pragma unroll
    for (int b = 0; b < N / 32; ++b)
#pragma unroll
        for (int kk = 0; kk < D; kk += 8)
            pt::mma<T, 32>(s[b], pt::frag<T, 32>(Kt + 32 * b * D, D, kk, lane),
                           pt::frag<T, 32>(Q, D, kk, lane));
    pt::mask_scores<N, SEQ, true>(s, n0, q0, row, lane);
    pt::row_max<N>(s, scale_log2, m_run, alpha, m_sub);
    typename pt::frag4<T>::type p[N / 8];
    pt::exp_rows<N, T>(s, scale_log2, m_sub, p);
    pt::row_sum<N>(s, alpha, l_run);
    pt::rescale_rows<D>(o, alpha);
#pragma unroll
    for (int db = 0; db < D / 32; ++db)
#pragma unroll
        for (int t = 0; t < N / 8; ++t)
            pt::mma<T, 32>(o[db], pt::frag<T, 32>(Vt + 32 * db * N, N, 8 * t, lane), p[t]);
    pt::keep_all(o);
    const float l = l_run + pt::swap_halves(l_run);
#pragma unroll
    for (int db = 0; db < D / 32; ++db)
#pragma unroll
        for (int g = 0; g < 16; ++g)
            O[(lane % 32) * D + 32 * db + pt::acc_row<32>(lane, g)] = o[db][g] / l;
}

} // namespace

#define GEMM(name, T, M)                                                                           \
    extern "C" __global__ void PT_LAUNCH_BOUNDS(THREADS)                                           \
        name(const T *A, const T *B, float *C, int K, int ldc, uint8_t *trace)                            \
    {                                                                                              \
        gemm_tile<T, M>(A, B, C, K, ldc, trace);                                                       \
    }
GEMM(gemm_f16_32x32x8, _Float16, 32)
GEMM(gemm_f16_16x16x16, _Float16, 16)
GEMM(gemm_bf16_32x32x8, pt::bf16, 32)
GEMM(gemm_bf16_16x16x16, pt::bf16, 16)

#define ATTN(name, T)                                                                              \
    extern "C" __global__ void PT_LAUNCH_BOUNDS(64)                                                \
        name(const T *Q, const T *Kt, const T *Vt, float *O, float scale_log2, int q0, int n0)    \
    {                                                                                              \
        attn_row_pass<T, 64, 128, 50>(Q, Kt, Vt, O, scale_log2, q0, n0);                           \
    }
ATTN(attn_pass_f16, _Float16)
ATTN(attn_pass_bf16, pt::bf16)

// FlashDecoding's combine (the split_* calls of pt_tile_hip.h, in the graph's order) for one
// tile row per work-item: 7 splits, a 40-column tile of a 100-column row, 3 work-items a row
// with 4 chunks each, so some chunks are past the tile and past d at run time (d0).
extern "C" __global__ void PT_LAUNCH_BOUNDS(128) combine_f16(const float *X, const float *Y, _Float16 *O,
                                                             int g, int d0)
{
    constexpr int S = 7, G = 5, D = 100, TPR = 3, COLS = 4, CHUNKS = 10;
    const int j = (int)pt::thread_id() % TPR;
    float x[S], w[S];
    pt::f32x4 y[S][COLS], acc[COLS];
    pt::load_splits<S, G>(x, X, g);
    pt::load_split_rows<S, G, D, TPR, COLS, CHUNKS>(y, Y, g, d0, j);
    pt::loads_issued();
    const float mx = pt::split_max<S>(x);
    pt::split_sub<S>(x, mx, w);
    pt::split_exp<S>(w);
    const float l = pt::split_sum<S>(w);
    pt::split_scale<S, COLS>(y, w);
    pt::split_reduce<S, COLS>(y, acc);
    pt::split_div_store<_Float16, D, TPR, COLS, CHUNKS>(acc, l, O + g * D, d0, j);
}
