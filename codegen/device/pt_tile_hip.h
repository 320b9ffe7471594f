// pt_tile_hip.h — PipeThreader's tile library for gfx942 kernels: the vector-ALU sTasks of a
// softmax pipeline as one call each, under the names of pt_tile.cuh (mask_scores, row_max,
// exp_rows, row_sum, rescale_rows, keep_all), over a wave's 32-query tile of 32x32 MFMA blocks.
//
// Layout assumed by every function here. Attention runs transposed on the matrix cores: a wave
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

// Scores of key block [n0, n0 + N) that no query may see — keys past the sequence and, under
// the causal mask, keys right of the query row — become -inf. Blocks wholly visible to every
// row of the wave (rows from row_lo) skip the loop. row: this lane's query row.
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

} // namespace pt
