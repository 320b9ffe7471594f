// pt_combine.cuh — FlashDecoding's combine on CUDA cores: the sTasks of one tile of GT rows x DT
// columns over S splits, one call each (codegen/sm90a/combine_emit.c prints the calls).
//
// X (the splits' log-sum-exps) is [S][GT] f32 and Y (their partial outputs) [S][GT][DT] f32 in
// shared memory, unswizzled, rows of DT f32 (DT a multiple of 32: every row starts a bank line).
// A warpgroup thread owns one row and CH chunks of 4 columns of it: chunk j + TPR·k of the row
// (k < CH, while that is below DT / 4), rotated by TPR·row. Y is read as 16-byte vectors; the
// rotation puts the rows a warp's quarter reads together (32 / TPR of them when TPR < 8) on
// different 16-byte bank groups. Unrotated, equal chunks of rows a whole number of bank lines
// apart would hit the same banks: 2 ways at GT 8, 8 at GT 32, 32 at GT 128.
//
// Parts (P > 1, where a row has at least twice as many threads as chunks and GT is a power of
// two): thread j of a row owns chunk j % NQ (NQ = DT / 4) of the splits s = p, p + P, ... with
// p = j / NQ, so that P threads share the splits of a column chunk instead of one walking all S
// (a row's max and sum, and each chunk's sum, are then put together by xor shuffles within the
// warp: a row's first P x NQ <= 32 threads lie in one). Threads with p >= P have no splits.
// A quarter warp's 8 reads are one row's 8 consecutive chunks of one split: no bank conflicts.
//
// Needs <math.h> (INFINITY, expf) and CUDA's float4 and __shfl_xor_sync before it. Host tests
// compile it with the qualifiers defined away (tests/refcpu/combine_tile.cpp), and
// tests/kernelcpu runs whole combine kernels on the CPU.

namespace pt {

// The tile's chunk (of 4 columns) that chunk slot k of thread j of row `row` owns, or -1.
template <int DT, int TPR>
__device__ __forceinline__ int split_chunk(int row, int j, int k)
{
    constexpr int NQ = DT / 4;
    const int q = j + TPR * k;
    return q < NQ ? (q + TPR * row) % NQ : -1;
}

// X read by the warpgroup's 128 threads from global memory into its [S][GT] tile, when its rows
// (G f32 per split) are not a TMA stride (G not a multiple of 4). src is the tile's first row of
// the first split; rows past the group's end (rows <= r) read as 0 and are never stored.
template <int S, int GT, int G>
__device__ __forceinline__ void split_load_x(uint8_t *x, const float *src, int rows, int tid)
{
    float *v = reinterpret_cast<float *>(x);
    for (int i = tid; i < S * GT; i += 128) {
        const int s = i / GT, r = i % GT;
        v[i] = r < rows ? src[(int64_t)s * G + r] : 0.f;
    }
}

// The splits thread j of a row walks: (S + P - 1) / P of them, the i-th being p + P i when
// that is below S (p = j / NQ; every split when P = 1). A thread with p >= P (a row of more
// than P x NQ threads) walks part 0 again and its results are dropped (split_mine), so that
// every walk is the same straight-line code: where P divides S no step is tested.
template <int P, int NQ> __device__ __forceinline__ int split_part(int j)
{
    return P > 1 && j / NQ < P ? j / NQ : 0;
}
template <int P, int NQ> __device__ __forceinline__ bool split_mine(int j)
{
    return P == 1 || j / NQ < P;
}
template <int S, int P> __device__ __forceinline__ bool split_has(int p, int i)
{
    return S % P == 0 || p + P * i < S;
}

// v combined over the P threads that share a chunk (lanes NQ, 2 NQ, ... apart) by op
template <int P, int NQ, typename Op> __device__ __forceinline__ float parts_all(float v, Op op)
{
#pragma unroll
    for (int o = NQ; o < NQ * P; o <<= 1)
        v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

// reduce_max over the splits: the row's largest log-sum-exp.
template <int S, int GT, int P = 1, int NQ = 1>
__device__ __forceinline__ float split_max(const uint8_t *x, int row, int j = 0)
{
    const float *v = reinterpret_cast<const float *>(x);
    const int p = split_part<P, NQ>(j);
    float m = -INFINITY;
#pragma unroll
    for (int i = 0; i < (S + P - 1) / P; ++i)
        if (split_has<S, P>(p, i))
            m = fmaxf(m, v[(p + P * i) * GT + row]);
    if constexpr (P > 1) {
        if (!split_mine<P, NQ>(j))
            m = -INFINITY;
        m = parts_all<P, NQ>(m, [](float a, float b) { return fmaxf(a, b); });
    }
    return m;
}

// sub: the row's log-sum-exps (of this thread's splits) less their max.
template <int S, int GT, int P = 1, int NQ = 1>
__device__ __forceinline__ void split_sub(const uint8_t *x, int row, float m, float (&d)[(S + P - 1) / P],
                                          int j = 0)
{
    const float *v = reinterpret_cast<const float *>(x);
    const int p = split_part<P, NQ>(j);
    const bool mine = split_mine<P, NQ>(j);
#pragma unroll
    for (int i = 0; i < (S + P - 1) / P; ++i)
        d[i] = mine && split_has<S, P>(p, i) ? v[(p + P * i) * GT + row] - m : -INFINITY;
}

// exp: the splits' weights, in place (a split this thread does not have weighs 0).
template <int SP> __device__ __forceinline__ void split_exp(float (&w)[SP])
{
#pragma unroll
    for (int s = 0; s < SP; ++s)
        w[s] = expf(w[s]);
}

// reduce_sum over the splits of the weights.
template <int SP, int P = 1, int NQ = 1> __device__ __forceinline__ float split_sum(const float (&w)[SP])
{
    float l = 0.f;
#pragma unroll
    for (int s = 0; s < SP; ++s)
        l += w[s];
    if constexpr (P > 1)
        l = parts_all<P, NQ>(l, [](float a, float b) { return a + b; });
    return l;
}

// The chunk of 4 columns thread j of a row owns in parts (P > 1), or -1.
template <int DT, int P> __device__ __forceinline__ int part_chunk(int j)
{
    return j / (DT / 4) < P ? j % (DT / 4) : -1;
}

// mul and reduce_sum together: this thread's chunks of Y, each split's times its weight, summed
// over the splits (in parts: over its splits, then over the P threads of its chunk, every one
// of which then holds the sum). The products are never stored: writing them back to Y and
// reading them again would put a store between every two loads of the walk.
template <int S, int GT, int DT, int TPR, int CH, int P = 1>
__device__ __forceinline__ void split_reduce(const uint8_t *y, int row, int j, const float (&w)[(S + P - 1) / P],
                                             float4 (&acc)[CH])
{
    const float4 *v = reinterpret_cast<const float4 *>(y) + row * (DT / 4);
    if constexpr (P > 1) {
        static_assert(CH == 1, "a thread owns one chunk in parts");
        const int q = part_chunk<DT, P>(j), p = split_part<P, DT / 4>(j);
        acc[0] = make_float4(0.f, 0.f, 0.f, 0.f);
        if (q >= 0) {
#pragma unroll
            for (int i = 0; i < (S + P - 1) / P; ++i) {
                if (!split_has<S, P>(p, i))
                    continue;
                const float4 e = v[(p + P * i) * GT * (DT / 4) + q];
                acc[0].x = fmaf(w[i], e.x, acc[0].x);
                acc[0].y = fmaf(w[i], e.y, acc[0].y);
                acc[0].z = fmaf(w[i], e.z, acc[0].z);
                acc[0].w = fmaf(w[i], e.w, acc[0].w);
            }
        }
        const auto add = [](float a, float b) { return a + b; };
        acc[0].x = parts_all<P, DT / 4>(acc[0].x, add);
        acc[0].y = parts_all<P, DT / 4>(acc[0].y, add);
        acc[0].z = parts_all<P, DT / 4>(acc[0].z, add);
        acc[0].w = parts_all<P, DT / 4>(acc[0].w, add);
    } else {
#pragma unroll
        for (int k = 0; k < CH; ++k) {
            acc[k] = make_float4(0.f, 0.f, 0.f, 0.f);
            const int q = split_chunk<DT, TPR>(row, j, k);
            if (q < 0)
                continue;
#pragma unroll
            for (int s = 0; s < S; ++s) {
                const float4 e = v[s * GT * (DT / 4) + q];
                acc[k].x = fmaf(w[s], e.x, acc[k].x);
                acc[k].y = fmaf(w[s], e.y, acc[k].y);
                acc[k].z = fmaf(w[s], e.z, acc[k].z);
                acc[k].w = fmaf(w[s], e.w, acc[k].w);
            }
        }
    }
}

// div: the column sums over the weights' sum, converted to T into the [GT][DT] staging tile (in
// parts, by the chunk's first thread).
template <typename T, int DT, int TPR, int CH, int P = 1>
__device__ __forceinline__ void split_div_store(const float4 (&acc)[CH], float l, uint8_t *o, int row, int j)
{
    T *v = reinterpret_cast<T *>(o) + row * DT;
#pragma unroll
    for (int k = 0; k < CH; ++k) {
        const int q = P > 1 ? (j < DT / 4 ? j : -1) : split_chunk<DT, TPR>(row, j, k);
        if (q < 0)
            continue;
        v[4 * q + 0] = static_cast<T>(acc[k].x / l);
        v[4 * q + 1] = static_cast<T>(acc[k].y / l);
        v[4 * q + 2] = static_cast<T>(acc[k].z / l);
        v[4 * q + 3] = static_cast<T>(acc[k].w / l);
    }
}

} // namespace pt
