// pt_tile_hip.h — PipeThreader's tile library for gfx942 kernels: the vector-ALU sTasks of a
// softmax pipeline as one call each, under the names of pt_tile.cuh (mask_scores, row_max,
// exp_rows, row_sum, rescale_rows, keep_all), over a wave's 32-query tile of 32x32 MFMA blocks;
// and attention's matrix-core sTasks and epilogue in the same layout (load_q, mma_scores,
// mma_pv, inverse_row_sum, store_rows); FlashDecoding's combine (split_*, per work-item in
// registers, at the end).
//
// Layout assumed by every attention function here. Attention runs transposed on the matrix cores: a wave
// computes S^T = K·Q^T for its 32 query rows with v_mfma_f32_32x32x8, one 32x32 block per 32
// keys, 16 floats per lane. In the D layout (pt_device_hip.h, "MFMA") register g of lane l holds
// key i = 8·(g/4) + 4·(l/32) + g%4 of the block and query j = l % 32. So
//   - a lane owns ONE query row (q0 + l % 32) and 16 of each block's 32 keys; lane l ^ 32 owns
//     the other 16. A row reduction is 16 in-lane steps and one swap_halves, where the
//     untransposed S would spread a row over 32 lanes (five shuffle rounds per row);
//   - registers 4t..4t+3 of a block hold keys 8t + 4·(l/32) + {0..3} for query l % 32: exactly
//     the B operand of the 8-key step t of O^T += V^T·P^T. P never leaves the registers (the
//     AMD counterpart of wgmma's register-A);
//   - O^T's accumulator has the same layout (head-dim rows, query columns): all 16 registers of
//     a lane belong to its query, so rescale is one multiply each.
// A block of N keys is s[N/32] (N/2 floats per lane, as on sm90a); the per-row state (running
// max, alpha, sum) is one float per lane where the sm90a side has two rows per thread. Scores
// arrive unscaled; the max is kept in log2 units (score · scale · log2 e), so exp is one exp2.
//
// Generated kernels include this after pt_device_hip.h and call one function per sTask.
#pragma once

namespace pt {

// Key index of register g of block b in a key block starting at n0, for this lane.
__device__ __forceinline__ int score_key(int n0, int b, int g, uint32_t lane)
{
    return n0 + 32 * b + 8 * (g / 4) + 4 * (int)(lane / 32) + g % 4;
}

// A scheduling fence at this point: nothing is moved across, so the vector-ALU and MFMA work
// stay in the order the sProgram gives. On sm90a keep_all is needed for correctness (ptxas would
// serialise wgmma); here it is not — the compiler tracks MFMA results and hazards itself — and
// the name is kept so both targets print the same step.
template <int N> __device__ __forceinline__ void keep_all(f32x16 (&a)[N])
{
    (void)a;
    __builtin_amdgcn_sched_barrier(0);
}

// Scores of key block [n0, n0 + N) that no query may see — keys at or past `keys` and, under
// the causal mask, keys right of the query row — become -inf. Blocks wholly visible to every
// row of the wave (rows from row_lo) skip the loop. row: this lane's query row. mask_keys takes
// the key count at run time (one piece of a ragged sequence, the last shorter); mask_scores has
// it fixed, with its own body, as the kernels generated before mask_keys had it.
template <int N, bool CAUSAL>
__device__ __forceinline__ void mask_keys(f32x16 (&s)[N / 32], int n0, int keys, int row_lo, int row,
                                          uint32_t lane)
{
    if (n0 + N > keys || (CAUSAL && n0 + N - 1 > row_lo)) {
#pragma unroll
        for (int b = 0; b < N / 32; ++b)
#pragma unroll
            for (int g = 0; g < 16; ++g) {
                const int key = score_key(n0, b, g, lane);
                if (key >= keys || (CAUSAL && key > row))
                    s[b][g] = -__builtin_inff();
            }
    }
}

template <int N, int SEQ, bool CAUSAL>
__device__ __forceinline__ void mask_scores(f32x16 (&s)[N / 32], int n0, int row_lo, int row,
                                            uint32_t lane)
{
    if (n0 + N > SEQ || (CAUSAL && n0 + N - 1 > row_lo)) {
#pragma unroll
        for (int b = 0; b < N / 32; ++b)
#pragma unroll
            for (int g = 0; g < 16; ++g) {
                const int key = score_key(n0, b, g, lane);
                if (key >= SEQ || (CAUSAL && key > row))
                    s[b][g] = -__builtin_inff();
            }
    }
}

// softmax_max: the running row max over this block. alpha = exp2(m_old - m_new) rescales what
// was summed so far; m_sub is what exp subtracts. A row with nothing visible yet keeps factor
// 1 and subtracts 0 (no inf - inf).
template <int N>
__device__ __forceinline__ void row_max(const f32x16 (&s)[N / 32], float scale_log2, float &m_run,
                                        float &alpha, float &m_sub)
{
    float mx = -__builtin_inff();
#pragma unroll
    for (int b = 0; b < N / 32; ++b)
#pragma unroll
        for (int g = 0; g < 16; ++g)
            mx = __builtin_fmaxf(mx, s[b][g]);
    mx = __builtin_fmaxf(mx, swap_halves(mx)); // the row's other 16 keys per block
    const float m_new = __builtin_fmaxf(m_run, mx * scale_log2);
    alpha = m_new == -__builtin_inff() ? 1.f : exp2_approx(m_run - m_new);
    m_sub = m_new == -__builtin_inff() ? 0.f : m_new;
    m_run = m_new;
}

// softmax_exp: p = exp2(s · scale - m_sub) in place, then P as 16-bit MFMA operands: p[4b + t]
// is the B operand of key step t (8 keys) of block b in O^T += V^T·P^T.
template <int N, typename T>
__device__ __forceinline__ void exp_rows(f32x16 (&s)[N / 32], float scale_log2, float m_sub,
                                         typename frag4<T>::type (&p)[N / 8])
{
#pragma unroll
    for (int b = 0; b < N / 32; ++b) {
#pragma unroll
        for (int g = 0; g < 16; ++g)
            s[b][g] = exp2_approx(__builtin_fmaf(s[b][g], scale_log2, -m_sub));
#pragma unroll
        for (int t = 0; t < 4; ++t)
            p[4 * b + t] = pack4<T>(s[b][4 * t], s[b][4 * t + 1], s[b][4 * t + 2], s[b][4 * t + 3]);
    }
}

// softmax_sum: l = l · alpha + this lane's part of the row sum (the two halves of the wave are
// added once, at the end of the tile: l + swap_halves(l)).
template <int N>
__device__ __forceinline__ void row_sum(const f32x16 (&s)[N / 32], float alpha, float &l_run)
{
    float sum = 0.f;
#pragma unroll
    for (int b = 0; b < N / 32; ++b)
#pragma unroll
        for (int g = 0; g < 16; ++g)
            sum += s[b][g];
    l_run = __builtin_fmaf(l_run, alpha, sum);
}

// rescale: the output accumulator's row (this lane's query) times alpha (the max moved).
template <int D> __device__ __forceinline__ void rescale_rows(f32x16 (&o)[D / 32], float alpha)
{
#pragma unroll
    for (int b = 0; b < D / 32; ++b)
        o[b] *= alpha;
}

// ---- the matrix-core sTasks and the epilogue of attention ----
// The MFMA operand layouts these rely on (pt_device_hip.h, "MFMA"; CDNA3 ISA, 32x32x8):
//   A[i][k]: lane l holds i = l % 32, k = 4·(l / 32) + e; B[k][j]: lane l holds j = l % 32,
//   k = 4·(l / 32) + e; D[i][j] register g: j = l % 32, i = 8·(g/4) + 4·(l/32) + g%4.

// load.Q into registers: this wave's 32 query rows from q0 as the B operand of S^T = K·Q^T,
// one fragment per 8-column k step: lane l reads row q0 + l % 32, columns 8·kk + 4·(l / 32)
// .. +3 (8 bytes). A row past the sequence reads row 0 of the head (which exists) and is
// zeroed: its scores are never stored. q: the head's first row (SEQ rows of D).
template <int D, int SEQ, typename T>
__device__ __forceinline__ void load_q(typename frag4<T>::type (&q)[D / 8], const T *head, int q0,
                                       uint32_t lane)
{
    const int row = q0 + (int)(lane % 32);
    const bool in = row < SEQ;
    const T *p = head + (in ? row : 0) * D + 4 * (int)(lane / 32);
#pragma unroll
    for (int kk = 0; kk < D / 8; ++kk) {
        q[kk] = *reinterpret_cast<const typename frag4<T>::mem *>(p + 8 * kk);
        if (!in)
            q[kk] = typename frag4<T>::type{};
    }
}

// mma.S: S^T[key][query] of one key block = K·Q^T over the head dim, from K's stage in LDS
// (N rows of D, ld apart; the A operand, read as rows: frag) and Q in registers (the B operand).
// s[b] is keys [32b, 32b + 32) against this wave's 32 queries.
template <int N, int D, typename T>
__device__ __forceinline__ void mma_scores(f32x16 (&s)[N / 32], const T *k_stage, int ld,
                                           const typename frag4<T>::type (&q)[D / 8], uint32_t lane)
{
#pragma unroll
    for (int b = 0; b < N / 32; ++b) {
        s[b] = 0.f;
#pragma unroll
        for (int kk = 0; kk < D / 8; ++kk)
            mma<T, 32>(s[b], frag<T, 32>(k_stage + 32 * b * ld, ld, 8 * kk, lane), q[kk]);
    }
}

// mma.O: O^T[d][query] += V^T·P^T over the key block. A = V^T: lane l needs V[key 4·(l/32)+e]
// [d l % 32] — four keys of one column, gathered from V's stage (N rows of D, ld apart) by
// frag_kn; B = P^T: p[t] from exp_rows is exactly key step t's B operand (see the layout note
// at the top). o[c] is head-dim rows [32c, 32c + 32) against this wave's 32 queries.
template <int N, int D, typename T>
__device__ __forceinline__ void mma_pv(f32x16 (&o)[D / 32], const T *v_stage, int ld,
                                       const typename frag4<T>::type (&p)[N / 8], uint32_t lane)
{
#pragma unroll
    for (int t = 0; t < N / 8; ++t)
#pragma unroll
        for (int c = 0; c < D / 32; ++c)
            mma<T, 32>(o[c], frag_kn<T, 32>(v_stage + 32 * c, ld, 8 * t, lane), p[t]);
}

// O's row sums: each lane summed its 16 keys per block (row_sum); the other half of the wave
// holds the rest of the row. 1 / l, or 0 for a row that saw nothing (never stored).
__device__ __forceinline__ float inverse_row_sum(float l_run)
{
    const float l = l_run + swap_halves(l_run);
    return l > 0.f ? 1.f / l : 0.f;
}

// lse: the log-sum-exp of this lane's row in natural-log units, (m + log2 l) · ln 2 (the max m
// is kept in log2 units; the two half-waves' sums added first, so every lane must call it);
// -inf for a row that saw no key. The sm90a lse_rows' formula.
__device__ __forceinline__ float row_lse(float m_run, float l_run)
{
    const float l = l_run + swap_halves(l_run);
    return l > 0.f ? (m_run + __builtin_amdgcn_logf(l)) * 0.69314718055994531f : -__builtin_inff();
}

// Four consecutive output elements (one 8- or 16-byte store).
template <typename O> struct out4;
template <> struct out4<_Float16> {
    typedef f16x4_mem mem;
    static __device__ __forceinline__ f16x4 pack(float a, float b, float c, float d)
    {
        return pack4<_Float16>(a, b, c, d);
    }
};
template <> struct out4<short> { // bf16 bits
    typedef bf16x4_mem mem;
    static __device__ __forceinline__ bf16x4 pack(float a, float b, float c, float d)
    {
        return pack4<bf16>(a, b, c, d);
    }
};
template <> struct out4<float> {
    typedef f32x4 __attribute__((may_alias, aligned(16))) mem;
    static __device__ __forceinline__ f32x4 pack(float a, float b, float c, float d)
    {
        return f32x4{a, b, c, d};
    }
};

// normalize + store: O = O^T's column of this lane's query times 1/l, converted, written
// straight from the registers (no staging tile). Registers 4u..4u+3 of block c are head dims
// 32c + 8u + 4·(l/32) + {0..3}: four consecutive elements of the row, one store each.
template <int D, typename O>
__device__ __forceinline__ void store_rows(const f32x16 (&o)[D / 32], O *row, float inv_l,
                                           uint32_t lane)
{
#pragma unroll
    for (int c = 0; c < D / 32; ++c)
#pragma unroll
        for (int u = 0; u < 4; ++u)
            *reinterpret_cast<typename out4<O>::mem *>(row + 32 * c + 8 * u + 4 * (int)(lane / 32)) =
                out4<O>::pack(o[c][4 * u] * inv_l, o[c][4 * u + 1] * inv_l, o[c][4 * u + 2] * inv_l,
                              o[c][4 * u + 3] * inv_l);
}

// ---- FlashDecoding's combine (no matrix product; the graph's ops over the split axis s) ----
// O[g][d] = sum_s exp(X[s][g] - max_s X) Y[s][g][d] / sum_s exp(X[s][g] - max_s X), with X the
// splits' log-sum-exps and Y their partial outputs, both f32. A work-item owns one row g of
// the tile and the 16-byte chunks c = j + TPR·k (k < COLS) of its columns, so a row's TPR
// work-items read adjacent chunks (one coalesced access per split). Nothing passes through
// LDS: each work-item reads what it alone uses (its row's S log-sum-exps, its chunks of Y in
// every split) straight into VGPRs, and the compiler's vmcnt waits before the first use of a
// register are the Waits on the loads. The names are pt_tile.cuh's split_* calls.
typedef f32x4 f32x4_mem __attribute__((may_alias, aligned(16)));

// After the producer lane's loads: nothing is scheduled across, so every load is issued before
// the first sTask runs and stays in flight until its first use (its vmcnt wait), as the lane's
// order says. Without it clang sinks each load toward its use to save VGPRs, leaving one or
// two in flight at a time.
__device__ __forceinline__ void loads_issued() { __builtin_amdgcn_sched_barrier(0); }

// load.X: the row's log-sum-exp in every split; xb: the batch entry's [S][G].
template <int S, int G> __device__ __forceinline__ void load_splits(float (&x)[S], const float *xb, int g)
{
#pragma unroll
    for (int s = 0; s < S; ++s)
        x[s] = xb[s * G + g];
}

// load.Y: this work-item's chunks of row g in every split; yb: the batch entry's [S][G][D], d0
// the tile's first column. A chunk past the tile (c >= CHUNKS) or past D reads the row's
// chunk at d0 (which exists) and is never stored, so every work-item issues S·COLS loads.
template <int S, int G, int D, int TPR, int COLS, int CHUNKS>
__device__ __forceinline__ void load_split_rows(f32x4 (&y)[S][COLS], const float *yb, int g, int d0, int j)
{
#pragma unroll
    for (int s = 0; s < S; ++s)
#pragma unroll
        for (int k = 0; k < COLS; ++k) {
            const int c = j + TPR * k, col = d0 + 4 * c;
            const bool in = c < CHUNKS && col < D;
            y[s][k] = *reinterpret_cast<const f32x4_mem *>(yb + ((size_t)s * G + g) * D + (in ? col : d0));
        }
}

// reduce_max over the splits.
template <int S> __device__ __forceinline__ float split_max(const float (&x)[S])
{
    float m = -__builtin_inff();
#pragma unroll
    for (int s = 0; s < S; ++s)
        m = __builtin_fmaxf(m, x[s]);
    return m;
}

// sub: the row's log-sum-exps less their max.
template <int S> __device__ __forceinline__ void split_sub(const float (&x)[S], float m, float (&d)[S])
{
#pragma unroll
    for (int s = 0; s < S; ++s)
        d[s] = x[s] - m;
}

// exp: the splits' weights, in place (natural exp as one v_exp_f32: e^x = 2^(x·log2 e)).
template <int S> __device__ __forceinline__ void split_exp(float (&w)[S])
{
#pragma unroll
    for (int s = 0; s < S; ++s)
        w[s] = exp2_approx(w[s] * 1.44269504088896341f);
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

// mul: this work-item's chunks of Y times their split's weight, in place.
template <int S, int COLS> __device__ __forceinline__ void split_scale(f32x4 (&y)[S][COLS], const float (&w)[S])
{
#pragma unroll
    for (int s = 0; s < S; ++s)
#pragma unroll
        for (int k = 0; k < COLS; ++k)
            y[s][k] *= w[s];
}

// reduce_sum over the splits of this work-item's chunks. The sums are pinned here (an empty
// asm reading them): a chunk's store is conditional (past the tile or past d), and without the
// pin clang sinks that chunk's loads and sums into the store's branch, after the other sTasks,
// so they would no longer be in flight from load.Y on.
template <int S, int COLS>
__device__ __forceinline__ void split_reduce(const f32x4 (&y)[S][COLS], f32x4 (&acc)[COLS])
{
#pragma unroll
    for (int k = 0; k < COLS; ++k) {
        acc[k] = y[0][k];
#pragma unroll
        for (int s = 1; s < S; ++s)
            acc[k] += y[s][k];
        __asm__ volatile("" ::"v"(acc[k]));
    }
}

// div + store: the chunks over the weights' sum, converted to O and written straight from the
// registers into row o (D elements), chunks past the tile or past D skipped (as loaded).
template <typename O, int D, int TPR, int COLS, int CHUNKS>
__device__ __forceinline__ void split_div_store(const f32x4 (&acc)[COLS], float l, O *o, int d0, int j)
{
    const float inv = 1.f / l;
#pragma unroll
    for (int k = 0; k < COLS; ++k) {
        const int c = j + TPR * k, col = d0 + 4 * c;
        if (c < CHUNKS && col < D)
            *reinterpret_cast<typename out4<O>::mem *>(o + col) =
                out4<O>::pack(acc[k][0] * inv, acc[k][1] * inv, acc[k][2] * inv, acc[k][3] * inv);
    }
}

} // namespace pt
