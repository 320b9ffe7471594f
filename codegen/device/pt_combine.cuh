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
// Needs <math.h> (INFINITY, expf) and CUDA's float4 before it. Host tests compile it with the
// qualifiers defined away (tests/refcpu/combine_tile.cpp), and tests/kernelcpu runs whole combine
// kernels on the CPU.

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

// reduce_max over the splits: the row's largest log-sum-exp.
template <int S, int GT> __device__ __forceinline__ float split_max(const uint8_t *x, int row)
{
    const float *v = reinterpret_cast<const float *>(x);
    float m = -INFINITY;
#pragma unroll
    for (int s = 0; s < S; ++s)
        m = fmaxf(m, v[s * GT + row]);
    return m;
}

// sub: the row's log-sum-exps less their max.
template <int S, int GT>
__device__ __forceinline__ void split_sub(const uint8_t *x, int row, float m, float (&d)[S])
{
    const float *v = reinterpret_cast<const float *>(x);
#pragma unroll
    for (int s = 0; s < S; ++s)
        d[s] = v[s * GT + row] - m;
}

// exp: the splits' weights, in place.
template <int S> __device__ __forceinline__ void split_exp(float (&w)[S])
{
#pragma unroll
    for (int s = 0; s < S; ++s)
        w[s] = expf(w[s]);
}

// reduce_sum over the splits of the weights.
template <int S> __device__ __forceinline__ float split_sum(const float (&w)[S])
{
    float l = 0.f;
#pragma unroll
    for (int s = 0; s < S; ++s)
        l += w[s];
    return l;
}

// mul: this thread's chunks of Y times their split's weight, in place.
template <int S, int GT, int DT, int TPR, int CH>
__device__ __forceinline__ void split_scale(uint8_t *y, int row, int j, const float (&w)[S])
{
    float4 *v = reinterpret_cast<float4 *>(y) + row * (DT / 4);
#pragma unroll
    for (int k = 0; k < CH; ++k) {
        const int q = split_chunk<DT, TPR>(row, j, k);
        if (q < 0)
            continue;
#pragma unroll
        for (int s = 0; s < S; ++s) {
            float4 e = v[s * GT * (DT / 4) + q];
            e.x *= w[s];
            e.y *= w[s];
            e.z *= w[s];
            e.w *= w[s];
            v[s * GT * (DT / 4) + q] = e;
        }
    }
}

// reduce_sum over the splits of this thread's chunks of Y.
template <int S, int GT, int DT, int TPR, int CH>
__device__ __forceinline__ void split_reduce(const uint8_t *y, int row, int j, float4 (&acc)[CH])
{
    const float4 *v = reinterpret_cast<const float4 *>(y) + row * (DT / 4);
#pragma unroll
    for (int k = 0; k < CH; ++k) {
        acc[k] = make_float4(0.f, 0.f, 0.f, 0.f);
        const int q = split_chunk<DT, TPR>(row, j, k);
        if (q < 0)
            continue;
#pragma unroll
        for (int s = 0; s < S; ++s) {
            const float4 e = v[s * GT * (DT / 4) + q];
            acc[k].x += e.x;
            acc[k].y += e.y;
            acc[k].z += e.z;
            acc[k].w += e.w;
        }
    }
}

// div: the column sums over the weights' sum, converted to T into the [GT][DT] staging tile.
template <typename T, int DT, int TPR, int CH>
__device__ __forceinline__ void split_div_store(const float4 (&acc)[CH], float l, uint8_t *o, int row, int j)
{
    T *v = reinterpret_cast<T *>(o) + row * DT;
#pragma unroll
    for (int k = 0; k < CH; ++k) {
        const int q = split_chunk<DT, TPR>(row, j, k);
        if (q < 0)
            continue;
        v[4 * q + 0] = static_cast<T>(acc[k].x / l);
        v[4 * q + 1] = static_cast<T>(acc[k].y / l);
        v[4 * q + 2] = static_cast<T>(acc[k].z / l);
        v[4 * q + 3] = static_cast<T>(acc[k].w / l);
    }
}

} // namespace pt
