// pt_tile.cuh — PipeThreader's tile library for Hopper kernels: the CUDA-core sTasks of a
// softmax pipeline and of the epilogue (convert, normalize) as one call each, over a
// warpgroup's 64-row wgmma accumulator tile.
//
// Register layout (the wgmma m64nNk16 accumulator, which every function here assumes): a
// thread holds rows r0 = 16·warp + lane/4 and r0 + 8 of its warpgroup's 64; for each 8-column
// block j it holds columns 8j + 2·(lane%4) + {0, 1}, element [4j + 2h + x] being row r0 + 8h,
// column 8j + 2·(lane%4) + x. A row is spread over the 4 lanes of a quad, so row reductions
// finish with two butterfly shuffles. Scores arrive unscaled; the running max m and the
// subtracted max are kept in log2 units (score · scale · log2 e), so exp is one exp2.
//
// Generated kernels include this after pt_device.cuh and call one function per sTask; an AMD
// backend implements the same names over its own matrix-core layout.
#pragma once

namespace pt {

// Pins every register of an accumulator array at this point: no register code moves across
// (used after a wgmma wait and before a fence).
template <int N> __device__ __forceinline__ void keep_all(float (&a)[N])
{
#pragma unroll
    for (int r = 0; r < N; ++r)
        keep(a[r]);
}

// Scores of key block [n0, n0 + N) that no query may see — keys at or past `keys` and, under
// the causal mask, keys right of the query row — become -inf. Blocks wholly visible to every
// row of the warpgroup (rows from row_lo) skip the loop. row0: this thread's first row.
// mask_keys takes the key count at run time (one piece of a ragged sequence, the last shorter);
// mask_scores has it fixed, and keeps its own body: the bound as a template constant is what
// the measured kernels were compiled from (as a call of mask_keys, nvcc orders the test
// differently).
template <int N, bool CAUSAL>
__device__ __forceinline__ void mask_keys(float (&s)[N / 2], int n0, int keys, int row_lo, int row0, int lane)
{
    if (n0 + N > keys || (CAUSAL && n0 + N - 1 > row_lo)) {
#pragma unroll
        for (int j = 0; j < N / 8; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h)
#pragma unroll
                for (int x = 0; x < 2; ++x) {
                    const int col = n0 + 8 * j + 2 * (lane % 4) + x;
                    if (col >= keys || (CAUSAL && col > row0 + 8 * h))
                        s[4 * j + 2 * h + x] = -INFINITY;
                }
    }
}

template <int N, int SEQ, bool CAUSAL>
__device__ __forceinline__ void mask_scores(float (&s)[N / 2], int n0, int row_lo, int row0, int lane)
{
    if (n0 + N > SEQ || (CAUSAL && n0 + N - 1 > row_lo)) {
#pragma unroll
        for (int j = 0; j < N / 8; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h)
#pragma unroll
                for (int x = 0; x < 2; ++x) {
                    const int col = n0 + 8 * j + 2 * (lane % 4) + x;
                    if (col >= SEQ || (CAUSAL && col > row0 + 8 * h))
                        s[4 * j + 2 * h + x] = -INFINITY;
                }
    }
}

// softmax_max: the running row max over this block. alpha = exp2(m_old - m_new) rescales what
// was summed so far; m_sub is what exp subtracts. A row with nothing visible yet keeps factor
// 1 and subtracts 0 (no inf - inf).
template <int N>
__device__ __forceinline__ void row_max(const float (&s)[N / 2], float scale_log2, float (&m_run)[2],
                                        float (&alpha)[2], float (&m_sub)[2])
{
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        float mx = -INFINITY;
#pragma unroll
        for (int j = 0; j < N / 8; ++j)
            mx = fmaxf(mx, fmaxf(s[4 * j + 2 * h], s[4 * j + 2 * h + 1]));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1)); // the 4 lanes of a row
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
        const float m_new = fmaxf(m_run[h], mx * scale_log2);
        alpha[h] = m_new == -INFINITY ? 1.f : exp2_approx(m_run[h] - m_new);
        m_sub[h] = m_new == -INFINITY ? 0.f : m_new;
        m_run[h] = m_new;
    }
}

// softmax_exp: p = exp2(s · scale - m_sub) in place, then P as 16-bit pairs in the wgmma
// A-fragment order — the accumulator layout of S is the A layout of the next wgmma, four
// registers per k16 step.
template <int N, typename T>
__device__ __forceinline__ void exp_rows(float (&s)[N / 2], float scale_log2, const float (&m_sub)[2],
                                         uint32_t (&p)[N / 16][4])
{
#pragma unroll
    for (int j = 0; j < N / 8; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int x = 0; x < 2; ++x) {
                float &v = s[4 * j + 2 * h + x];
                v = exp2_approx(fmaf(v, scale_log2, -m_sub[h]));
            }
#pragma unroll
    for (int kk = 0; kk < N / 16; ++kk)
#pragma unroll
        for (int q = 0; q < 4; ++q)
            p[kk][q] = pack2<T>(s[8 * kk + 2 * q], s[8 * kk + 2 * q + 1]);
}

// softmax_sum: l = l · alpha + this thread's part of the row sum (the quad's parts are added
// once, at the end of the tile).
template <int N>
__device__ __forceinline__ void row_sum(const float (&s)[N / 2], const float (&alpha)[2], float (&l_run)[2])
{
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        float sum = 0.f;
#pragma unroll
        for (int j = 0; j < N / 8; ++j)
            sum += s[4 * j + 2 * h] + s[4 * j + 2 * h + 1];
        l_run[h] = fmaf(l_run[h], alpha[h], sum);
    }
}

// rescale: the output accumulator's rows times alpha (the max moved).
template <int D> __device__ __forceinline__ void rescale_rows(float (&o)[D / 2], const float (&alpha)[2])
{
#pragma unroll
    for (int j = 0; j < D / 8; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            o[4 * j + 2 * h] *= alpha[h];
            o[4 * j + 2 * h + 1] *= alpha[h];
        }
}

// ---- epilogue: accumulators into the staging tile the TMA store reads ----

// Two f32 values converted to T and stored at p (4 bytes for f16 and bf16, 8 for f32).
template <typename T> __device__ __forceinline__ void store_pair(uint8_t *p, float a, float b);
template <> __device__ __forceinline__ void store_pair<float>(uint8_t *p, float a, float b)
{
    *reinterpret_cast<float2 *>(p) = make_float2(a, b);
}
template <> __device__ __forceinline__ void store_pair<__half>(uint8_t *p, float a, float b)
{
    *reinterpret_cast<__half2 *>(p) = __floats2half2_rn(a, b);
}
template <> __device__ __forceinline__ void store_pair<__nv_bfloat16>(uint8_t *p, float a, float b)
{
    *reinterpret_cast<__nv_bfloat162 *>(p) = __floats2bfloat162_rn(a, b);
}

// convert: one 64-row wgmma accumulator block of N f32 columns (this thread's rows `row` and
// row + 8) converted to T into a 128B-swizzled staging tile, in boxes of CHUNK columns that lie
// box_bytes apart (one TMA store box each); with `scale` (normalize: O / l), row row + 8h is
// multiplied by scale[h] first.
//
// f32 pairs are 8-byte stores, which shared memory serves a half-warp at a time: rows q and
// q ^ 1 of a half-warp land on the same 32 banks of the swizzled tile when they store the same
// column block, so odd rows store block j ^ 2 while even rows store j (the same box of four):
// every half-warp then covers the 32 banks once, two wavefronts an instruction instead of four.
template <typename T, int N, int CHUNK, bool SCALED>
__device__ __forceinline__ void store_rows_sw128_impl(const float (&acc)[N / 2], uint8_t *stage,
                                                      int box_bytes, int row, int lane,
                                                      const float *scale)
{
    constexpr bool kSpread = sizeof(T) == 4 && CHUNK * sizeof(T) == 128 && N % 32 == 0;
    const bool odd = kSpread && (row & 1);
#pragma unroll
    for (int j = 0; j < N / 8; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int jo = kSpread ? (j ^ 2) : j;  // the block an odd row stores at this step
            const int js = odd ? jo : j;
            const int col = js * 8 + (lane % 4) * 2;
            uint8_t *chunk = stage + (col / CHUNK) * box_bytes;
            const uint32_t off = sw128_offset(row + 8 * h, (col % CHUNK) * sizeof(T));
            float a = odd ? acc[4 * jo + 2 * h] : acc[4 * j + 2 * h];
            float b = odd ? acc[4 * jo + 2 * h + 1] : acc[4 * j + 2 * h + 1];
            if constexpr (SCALED) {
                a *= scale[h];
                b *= scale[h];
            }
            store_pair<T>(chunk + off, a, b);
        }
}

template <typename T, int N, int CHUNK>
__device__ __forceinline__ void store_rows_sw128(const float (&acc)[N / 2], uint8_t *stage, int box_bytes,
                                                 int row, int lane)
{
    store_rows_sw128_impl<T, N, CHUNK, false>(acc, stage, box_bytes, row, lane, nullptr);
}

template <typename T, int N, int CHUNK>
__device__ __forceinline__ void store_rows_sw128(const float (&acc)[N / 2], uint8_t *stage, int box_bytes,
                                                 int row, int lane, const float (&scale)[2])
{
    store_rows_sw128_impl<T, N, CHUNK, true>(acc, stage, box_bytes, row, lane, scale);
}

// convert, transposed: the same accumulator block when its rows are the staging tile's
// columns (a matmul computed as C^T = B . A^T, the tensor-core rows on N): this thread's rows
// `col` and col + 8 are output columns, its N accumulator columns output rows. The quad pairs
// of rows col, col + 1 (lanes 4 apart) swap one value each, so that every thread holds two
// values adjacent along an output row and stores them as one pair: 8 distinct rows of a
// 128B-swizzled tile per instruction, no bank conflicts.
template <typename T, int N, int CHUNK>
__device__ __forceinline__ void store_cols_sw128(const float (&acc)[N / 2], uint8_t *stage, int box_bytes,
                                                 int col, int lane)
{
    const int odd = (lane / 4) & 1;
#pragma unroll
    for (int j = 0; j < N / 8; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const float v0 = acc[4 * j + 2 * h], v1 = acc[4 * j + 2 * h + 1];
            // an even row gives its second value and takes its odd neighbour's first
            const float got = __shfl_xor_sync(0xffffffffu, odd ? v0 : v1, 4);
            const int row = j * 8 + (lane % 4) * 2 + odd;     // the output row (M)
            const int c = col + 8 * h - odd;                  // the pair's first column (even)
            uint8_t *chunk = stage + (c / CHUNK) * box_bytes;
            store_pair<T>(chunk + sw128_offset(row, (c % CHUNK) * sizeof(T)), odd ? got : v0,
                          odd ? v1 : got);
        }
}

// normalize, first half: 1 / l of this thread's two rows (the four lanes of a row add their
// partial sums first); 0 for a row that saw no key.
__device__ __forceinline__ void inverse_row_sums(float (&l_run)[2])
{
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        float l = l_run[h];
        l += __shfl_xor_sync(0xffffffffu, l, 1);
        l += __shfl_xor_sync(0xffffffffu, l, 2);
        l_run[h] = l > 0.f ? 1.f / l : 0.f;
    }
}

// lse: the log-sum-exp of this thread's two rows in natural-log units, (m + log2 l) · ln 2 (the
// running max m is kept in log2 units; the four lanes of a row add their partial sums first, so
// every lane must call it), -inf for a row that saw no key.
__device__ __forceinline__ void lse_rows(const float (&m_run)[2], const float (&l_run)[2], float (&v)[2])
{
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        float l = l_run[h];
        l += __shfl_xor_sync(0xffffffffu, l, 1);
        l += __shfl_xor_sync(0xffffffffu, l, 2);
        v[h] = l > 0.f ? (m_run[h] + log2f(l)) * 0.69314718055994531f : -INFINITY;
    }
}

// The quad's first lane writes rows `row` and row + 8 of lse_rows' values straight to global
// memory (dst: the tile's first row; rows from n on are past the sequence). Rows of 4 bytes are
// below TMA's 16-byte rule, and a copy through shared memory by another thread would have to be
// ordered after these writes by a barrier both take part in.
__device__ __forceinline__ void store_lse_rows(float *dst, const float (&v)[2], int row, int lane, int n)
{
#pragma unroll
    for (int h = 0; h < 2; ++h)
        if (lane % 4 == 0 && row + 8 * h < n)
            dst[row + 8 * h] = v[h];
}

} // namespace pt
