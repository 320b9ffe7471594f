// pt_ssd.cuh — the CUDA-core pieces of a matmul whose A operand is made in registers once per
// k block: Mamba2's ChunkState (xs = x · exp(dA_last - dA_cs) · dt, then states = xsᵀ · B) and
// ChunkScan (P = CB · exp(dA_l - dA_s) · dt, causal, then y += P · x after a prologue
// y = (C · statesᵀ) · exp(dA_l)).
//
// Register layouts, all the wgmma A fragment's (m64k16, A from registers): lane = 4 g + t of
// warp w holds rows 16 w + g and 16 w + g + 8, and k 2t, 2t+1, 2t+8, 2t+9 of each k16 step,
// in registers a0 (row g, k 2t..), a1 (row g+8, k 2t..), a2 (row g, k 2t+8..), a3 (row g+8,
// k 2t+8..). Element e = 2 j + h (0..7) of a k16 step is register j's half h.
//   kvec<KS>:   a vector along k (one value per reduction index), float v[KS][4] holding this
//               thread's k indices 16 kk + 2t + {0, 1, 8, 9}; a vector op is then pointwise
//               on the registers, and scaling a fragment by it needs no shuffles.
//   mvec:       a vector along m (one value per row), float v[2]: rows g and g + 8 — the rows
//               of the accumulators too, so it scales them without shuffles.
//   atile<KS>:  an f32 m x k tile, float v[KS][8], element e of step kk as above.
//   afrag<KS>:  the A operand, uint32_t a[KS][4], two 16-bit elements per register.
// Operands are a scalar (one per tile, broadcast), a shared-memory f32 vector along k (a ring
// stage), a vector along m in shared memory (mrows), or a register value above; a_at reads any
// of them at (kk, e), broadcasting what it lacks.
#pragma once

namespace pt {

enum class Ew { ADD, SUB, MUL, DIV, EXP, NEG };

template <int KS> using kvec = float[KS][4];

// The k index of element j (0..3) of k16 step kk for the thread with t = lane % 4.
__device__ __forceinline__ int kv_index(int kk, int j, int t)
{
    return 16 * kk + 2 * t + (j & 1) + 8 * (j >> 1);
}

__device__ __forceinline__ float kv_at(float s, int, int, int)
{
    return s;
}
__device__ __forceinline__ float kv_at(const float *smem_vec, int kk, int j, int t)
{
    return smem_vec[kv_index(kk, j, t)];
}
template <int KS> __device__ __forceinline__ float kv_at(const float (&v)[KS][4], int kk, int j, int)
{
    return v[kk][j];
}

template <Ew OP> __device__ __forceinline__ float ew(float x, float y)
{
    if constexpr (OP == Ew::ADD)
        return x + y;
    else if constexpr (OP == Ew::SUB)
        return x - y;
    else if constexpr (OP == Ew::MUL)
        return x * y;
    else if constexpr (OP == Ew::DIV)
        return x / y;
    else if constexpr (OP == Ew::EXP)
        return __expf(x);
    else
        return -x;
}

// out = x OP y (y ignored by unary ops) over this thread's k indices.
template <Ew OP, int KS, typename X, typename Y>
__device__ __forceinline__ void kvec_op(float (&out)[KS][4], const X &x, const Y &y, int lane)
{
    const int t = lane % 4;
#pragma unroll
    for (int kk = 0; kk < KS; ++kk)
#pragma unroll
        for (int j = 0; j < 4; ++j)
            out[kk][j] = ew<OP>(kv_at(x, kk, j, t), kv_at(y, kk, j, t));
}

template <typename T> __device__ __forceinline__ float2 unpack2(uint32_t v);
template <> __device__ __forceinline__ float2 unpack2<__nv_bfloat16>(uint32_t v)
{
    return __bfloat1622float2(*reinterpret_cast<__nv_bfloat162 *>(&v));
}
template <> __device__ __forceinline__ float2 unpack2<__half>(uint32_t v)
{
    return __half22float2(*reinterpret_cast<__half2 *>(&v));
}

// The A fragment of this warp's 16 rows (m0 = the warpgroup's first row of the tile + 16 warp)
// from a 128B-swizzled shared-memory tile, every element times a k vector. The tile is stored
// k-major rows of m (MN_MAJOR: [k][m], m innermost, 64-column atoms `atom_bytes` apart — x of
// ChunkState) or m rows of k ([m][k], k innermost, 64-column atoms along k). ldmatrix moves
// four 8x8 blocks per call: block q covers rows (m0 + 8 (q & 1)) and k (16 kk + 8 (q >> 1)),
// which is register a_q of the fragment; .trans turns a stored [k][m] block into it.
// When a tile holds several batch indices between its rows (x[.., l, h, p] with two heads per
// tile, one per warpgroup), row coordinate j of this warpgroup's index lies at 128-byte row
// j * rs + r0.
template <typename T, int KS, bool MN_MAJOR, typename V>
__device__ __forceinline__ void afrag_scaled(uint32_t (&a)[KS][4], const uint8_t *tile, int m0,
                                             uint32_t atom_bytes, const V &scale, int lane,
                                             int rs = 1, int r0 = 0)
{
    const int q = lane / 8, r = lane % 8, t = lane % 4;
#pragma unroll
    for (int kk = 0; kk < KS; ++kk) {
        const int m = m0 + 8 * (q & 1), k = 16 * kk + 8 * (q >> 1);
        uint32_t off;
        if constexpr (MN_MAJOR)  // row k + r of the stored tile, 8 elements from column m
            off = (m / 64) * atom_bytes + sw128_offset((k + r) * rs + r0, (m % 64) * 2);
        else                     // row m + r, 8 elements from column k
            off = (k / 64) * atom_bytes + sw128_offset((m + r) * rs + r0, (k % 64) * 2);
        const uint32_t addr = smem_addr(tile + off);
        ldmatrix_x4<MN_MAJOR>(a[kk], addr);
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            // registers a0, a1 hold k 2t, 2t+1 (kvec elements 0, 1); a2, a3 hold 2t+8, 2t+9 (2, 3)
            const float2 v = unpack2<T>(a[kk][j]);
            const int e = 2 * (j >> 1);
            a[kk][j] = pack2<T>(v.x * kv_at(scale, kk, e, t), v.y * kv_at(scale, kk, e + 1, t));
        }
    }
}

// ---- A-shaped operands of any form at element (kk, e) ----

// A vector along m in shared memory, p pointing at this warp's first row.
struct mrows {
    const float *p;
};

__device__ __forceinline__ float a_at(float s, int, int, int)
{
    return s;
}
// (a template on the pointee, so an array in registers binds to its own overload rather than
// decaying to this pointer)
template <typename F, typename R = float> struct only_float {};
template <typename R> struct only_float<float, R> {
    using type = R;
};
template <typename F>
__device__ __forceinline__ typename only_float<F>::type a_at(const F *kvec_smem, int kk, int e, int lane)
{
    return kvec_smem[16 * kk + 2 * (lane % 4) + (e & 1) + 8 * (e >> 2)];
}
__device__ __forceinline__ float a_at(mrows r, int, int e, int lane)
{
    return r.p[lane / 4 + 8 * ((e >> 1) & 1)];
}
__device__ __forceinline__ float a_at(const float (&v)[2], int, int e, int)
{
    return v[(e >> 1) & 1];
}
template <int KS> __device__ __forceinline__ float a_at(const float (&v)[KS][4], int kk, int e, int)
{
    return v[kk][2 * (e >> 2) + (e & 1)];
}
template <int KS> __device__ __forceinline__ float a_at(const float (&v)[KS][8], int kk, int e, int)
{
    return v[kk][e];
}

// Four 8x8 blocks of k16 step kk of a 128B-swizzled tile (see afrag_scaled): register q of the
// A fragment of this warp's rows m0 .. m0 + 15.
template <int KS, bool MN_MAJOR>
__device__ __forceinline__ void ldm_afrag(uint32_t (&a)[4], const uint8_t *tile, int m0,
                                          uint32_t atom_bytes, int kk, int lane)
{
    const int q = lane / 8, r = lane % 8;
    const int m = m0 + 8 * (q & 1), k = 16 * kk + 8 * (q >> 1);
    uint32_t off;
    if constexpr (MN_MAJOR)
        off = (m / 64) * atom_bytes + sw128_offset(k + r, (m % 64) * 2);
    else
        off = (k / 64) * atom_bytes + sw128_offset(m + r, (k % 64) * 2);
    const uint32_t addr = smem_addr(tile + off);
    ldmatrix_x4<MN_MAJOR>(a, addr);
}

// out = x OP y, an f32 tile in A-fragment order.
template <Ew OP, int KS, typename X, typename Y>
__device__ __forceinline__ void atile_op(float (&out)[KS][8], const X &x, const Y &y, int lane)
{
#pragma unroll
    for (int kk = 0; kk < KS; ++kk)
#pragma unroll
        for (int e = 0; e < 8; ++e)
            out[kk][e] = ew<OP>(a_at(x, kk, e, lane), a_at(y, kk, e, lane));
}

// The column operand's value at the k block's first column, which every thread of the warp
// shares: a scalar, a shared-memory vector along k, or a register kvec (lane 0 holds k index 0).
__device__ __forceinline__ float col_pivot(float s, int)
{
    return s;
}
template <typename F>
__device__ __forceinline__ typename only_float<F>::type col_pivot(const F *kvec_smem, int)
{
    return kvec_smem[0];
}
template <int KS> __device__ __forceinline__ float col_pivot(const float (&v)[KS][4], int)
{
    return __shfl_sync(0xffffffffu, v[0][0], 0);
}

// The factored decay's exponents stay within this many nats: a row factor up to e^40 times a
// column factor up to e^40 is finite, and a row factor that underflows stands for a product
// below e^-47.
constexpr float DECAY_FACTOR_RANGE = 40.f;

// Is every column value of the k block within DECAY_FACTOR_RANGE of the pivot p (false for a
// NaN)? In shared memory the warp's 32 lanes test the block's 16 KS columns between them,
// (KS + 1) / 2 each, rather than each lane its own 4 KS (every group of 8 lanes holds the same
// columns); the caller's vote then covers the block.
template <int KS, typename F>
__device__ __forceinline__ typename only_float<F, bool>::type cols_near(const F *y, float p, int lane)
{
    bool ok = true;
#pragma unroll
    for (int i = 0; i < (KS + 1) / 2; ++i)
        if (32 * (i + 1) <= 16 * KS || lane + 32 * i < 16 * KS)
            ok = ok && fabsf(p - y[lane + 32 * i]) <= DECAY_FACTOR_RANGE;
    return ok;
}
template <int KS> __device__ __forceinline__ bool cols_near(float y, float p, int)
{
    return fabsf(p - y) <= DECAY_FACTOR_RANGE;
}
template <int KS> __device__ __forceinline__ bool cols_near(const float (&y)[KS][4], float p, int)
{
    bool ok = true;
#pragma unroll
    for (int kk = 0; kk < KS; ++kk)
#pragma unroll
        for (int j = 0; j < 4; ++j)
            ok = ok && fabsf(p - y[kk][j]) <= DECAY_FACTOR_RANGE;
    return ok;
}

// The decay tile and a vector along k as values, so the direct form below can take and return
// them through a call.
template <int KS> struct atile_val {
    float v[KS][8];
};
template <int KS> struct kvec_val {
    float v[KS][4];
};

// exp(x_r - y_c) element by element, 0 where col > row when mask: the direct form, for a k
// block whose factors would leave their range. Out of line: it is rarely run, and inlined at
// every call site it lengthens each consumer warpgroup's loop (a ChunkScan ran 1-2% slower so;
// BENCHMARKS.md, session 23). Its arguments and result pass through the call's registers.
template <int KS>
__device__ __noinline__ atile_val<KS> exp_decay_direct(float x0, float x1, kvec_val<KS> ys,
                                                      int row0, int col0, bool mask, int lane)
{
    const int g = lane / 4, t = lane % 4;
    atile_val<KS> out;
#pragma unroll
    for (int kk = 0; kk < KS; ++kk)
#pragma unroll
        for (int e = 0; e < 8; ++e) {
            const int row = row0 + g + 8 * ((e >> 1) & 1);
            const int col = col0 + 16 * kk + 2 * t + (e & 1) + 8 * (e >> 2);
            const float y = ys.v[kk][(e & 1) + 2 * (e >> 2)];  // the column's kvec element
            const float v = __expf(((e >> 1) & 1 ? x1 : x0) - y);
            out.v[kk][e] = mask && col > row ? 0.f : v;
        }
    return out;
}

// out = exp(x[row] - y[col]), and 0 where col > row when CAUSAL: row0 is this warp's first
// row and col0 the k block's first column, both counted along the chunk as the mask is.
//
// exp(x_r - y_c) = exp(x_r - p) * exp(p - y_c) with p = y at the block's first column: a
// thread's 32 elements of a k64 block need 2 row and 16 column exps and one multiply each,
// instead of 32 exps behind a subtract and a scale. Where an exponent leaves the range above
// (a steep decay within one block, or an input that is not finite) the warp takes the direct
// form, so any input gives what exp(x_r - y_c) gives.
template <bool CAUSAL, int KS, typename X, typename Y>
__device__ __forceinline__ void atile_exp_decay(float (&out)[KS][8], const X &x, const Y &y,
                                                int row0, int col0, int lane)
{
    const int g = lane / 4, t = lane % 4;
    // (warp-uniform) every column past this warp's last row: all zero, no exp; every column at
    // or before its first row: no mask
    if (CAUSAL && col0 > row0 + 15) {
#pragma unroll
        for (int kk = 0; kk < KS; ++kk)
#pragma unroll
            for (int e = 0; e < 8; ++e)
                out[kk][e] = 0.f;
        return;
    }
    const bool mask = CAUSAL && col0 + 16 * KS - 1 > row0;
    constexpr float LOG2E = 1.4426950408889634f;
    const float p = col_pivot(y, lane);
    // (a NaN exponent fails its test; an infinite pivot makes its own column's NaN, which a
    // lane of the warp holds)
    float rf[2], cf[KS][4];
    kvec_val<KS> ys;  // the column values, for the direct form
    bool ok = cols_near<KS>(y, p, lane);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const float d = a_at(x, 0, 2 * h, lane) - p;
        ok = ok && d <= DECAY_FACTOR_RANGE;
        rf[h] = exp2_approx(d * LOG2E);
    }
#pragma unroll
    for (int kk = 0; kk < KS; ++kk)
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            // element e = (j & 1) + 4 (j >> 1) of step kk: k index 16 kk + 2t + (j & 1) + 8 (j >> 1)
            ys.v[kk][j] = a_at(y, kk, (j & 1) + 4 * (j >> 1), lane);
            cf[kk][j] = exp2_approx((p - ys.v[kk][j]) * LOG2E);
        }
    // The factored form always, then (rarely) the direct form over it: no branch between the
    // exps and the products, which the compiler then schedules together (3-5% faster than
    // branching to one form or the other first; BENCHMARKS.md, session 23).
#pragma unroll
    for (int kk = 0; kk < KS; ++kk)
#pragma unroll
        for (int e = 0; e < 8; ++e) {
            const int row = row0 + g + 8 * ((e >> 1) & 1);
            const int col = col0 + 16 * kk + 2 * t + (e & 1) + 8 * (e >> 2);
            const float v = rf[(e >> 1) & 1] * cf[kk][(e & 1) + 2 * (e >> 2)];
            out[kk][e] = mask && col > row ? 0.f : v;
        }
    if (__builtin_expect(!__all_sync(0xffffffffu, ok), 0)) {
        const atile_val<KS> d = exp_decay_direct<KS>(a_at(x, 0, 0, lane), a_at(x, 0, 2, lane), ys,
                                                    row0, col0, mask, lane);
#pragma unroll
        for (int kk = 0; kk < KS; ++kk)
#pragma unroll
            for (int e = 0; e < 8; ++e)
                out[kk][e] = d.v[kk][e];
    }
}

// out = tile OP y in f32: the loaded 16-bit tile (ldmatrix, as afrag_scaled reads it) with
// another A-shaped operand.
template <typename T, int KS, bool MN_MAJOR, Ew OP, typename Y>
__device__ __forceinline__ void atile_from_tile(float (&out)[KS][8], const uint8_t *tile, int m0,
                                                uint32_t atom_bytes, const Y &y, int lane)
{
#pragma unroll
    for (int kk = 0; kk < KS; ++kk) {
        uint32_t a[4];
        ldm_afrag<KS, MN_MAJOR>(a, tile, m0, atom_bytes, kk, lane);
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const float2 v = unpack2<T>(a[j]);
            out[kk][2 * j] = ew<OP>(v.x, a_at(y, kk, 2 * j, lane));
            out[kk][2 * j + 1] = ew<OP>(v.y, a_at(y, kk, 2 * j + 1, lane));
        }
    }
}

// The A fragment = x OP y, rounded to T.
template <typename T, Ew OP, int KS, typename X, typename Y>
__device__ __forceinline__ void afrag_op(uint32_t (&a)[KS][4], const X &x, const Y &y, int lane)
{
#pragma unroll
    for (int kk = 0; kk < KS; ++kk)
#pragma unroll
        for (int j = 0; j < 4; ++j)
            a[kk][j] = pack2<T>(ew<OP>(a_at(x, kk, 2 * j, lane), a_at(y, kk, 2 * j, lane)),
                                ew<OP>(a_at(x, kk, 2 * j + 1, lane), a_at(y, kk, 2 * j + 1, lane)));
}

// out = x OP y along m (this thread's two rows).
template <Ew OP, typename X, typename Y>
__device__ __forceinline__ void mvec_op(float (&out)[2], const X &x, const Y &y, int lane)
{
#pragma unroll
    for (int h = 0; h < 2; ++h)
        out[h] = ew<OP>(a_at(x, 0, 2 * h, lane), a_at(y, 0, 2 * h, lane));
}

// The accumulators (wgmma's D: d[r] is row g + 8 ((r >> 1) & 1)) OP a vector along m, in place.
template <Ew OP, int R, typename Y>
__device__ __forceinline__ void acc_rows_op(float (&d)[R], const Y &y, int lane)
{
#pragma unroll
    for (int r = 0; r < R; ++r)
        d[r] = ew<OP>(d[r], a_at(y, 0, r & 3, lane));
}

// ---- the factored decay (src/decay_form.h: the sProgram's "decay": "factored") ----
//
// P = T · exp(x_r - y_c) · w_c (causal: 0 where c > r) feeds a matmul over c, so the row factor
// exp(x_r - p) can scale the accumulators instead of every element: each warp takes the pivot
// p = x at its first row, divides its accumulator rows by exp(x_r - p) before the loop and
// multiplies them back before the store. Each k block then needs only the column factors
// exp(p - y_c) w_c, and a column's factor is the same for every row: the warp's lanes make them
// a pair of columns each (dcols: pair q of a lane is pair P = lane + 32 q of the block, P = 8 kk
// + 4 h + t covering columns 16 kk + 8 h + 2 t and the next, which lane P % 32 holds in its own
// kvec), and each thread takes its pairs' products from their lanes by shuffles, then scales
// two fragment registers by each in a paired multiply and fused add (the factor in two 16-bit
// parts, so the product is rounded once, as the tile form's is).
// The factors stay within FACTORED_RANGE nats of 1 (bf16: the tile form's range; f16: a product
// with the tile must stay below 65504). Where the rows leave it the warp computes every element
// of the tile (the tile form) and leaves its accumulators in their own units; where a k block's
// columns leave it, the warp multiplies its accumulators back before that block's wgmma: at once
// where no wgmma group is in flight, or, where the previous block's wgmma may still be (its CUDA
// work an iteration ahead), at the step's next wait for every group (decay_settle): the wait is
// the warpgroup's, so a warp cannot take it alone (ssd_plan.c refuses a step with no such wait).

template <typename T> constexpr float FACTORED_RANGE = 40.f;
template <> constexpr float FACTORED_RANGE<__half> = 4.f;

// Pairs of columns a lane holds for a k block of 16 KS columns.
template <int KS> constexpr int DPAIRS = (8 * KS + 31) / 32;

struct decay_pivot {
    float p;      // x at the warp's first row
    float rf[2];  // exp(x_r - p) of this thread's two rows
    bool on;      // factored; else every element of the tile, the accumulators in their own units
    bool owed;    // left the factored form, the accumulators not yet multiplied back (decay_settle)
};

// The warp's pivot and row factors, and its accumulator rows divided by them (the accumulators
// hold the prologue's product; no wgmma group may be in flight).
template <typename T, int R, typename X>
__device__ __forceinline__ decay_pivot decay_pivot_make(const X &x, float (&acc)[R], int lane)
{
    constexpr float LOG2E = 1.4426950408889634f;
    decay_pivot f;
    const float x0 = a_at(x, 0, 0, lane), x1 = a_at(x, 0, 2, lane);
    f.owed = false;
    f.p = __shfl_sync(0xffffffffu, x0, 0);  // lane 0 holds row g = 0
    const float d0 = x0 - f.p, d1 = x1 - f.p;
    // (a NaN row fails: the tile form then gives what exp gives)
    f.on = __all_sync(0xffffffffu, fabsf(d0) <= FACTORED_RANGE<T> && fabsf(d1) <= FACTORED_RANGE<T>);
    f.rf[0] = exp2_approx(d0 * LOG2E);
    f.rf[1] = exp2_approx(d1 * LOG2E);
    if (f.on) {
        const float inv[2] = {exp2_approx(-d0 * LOG2E), exp2_approx(-d1 * LOG2E)};
        acc_rows_op<Ew::MUL>(acc, inv, lane);
    }
    return f;
}

// The accumulators back in their own units before the store (a no-op for a warp that left the
// factored form).
template <int R> __device__ __forceinline__ void decay_unpivot(const decay_pivot &f, float (&acc)[R], int lane)
{
    if (f.on)
        acc_rows_op<Ew::MUL>(acc, f.rf, lane);
}

// After a wait for every wgmma group: the multiply back that decay_cols<..., true> owes.
template <int R> __device__ __forceinline__ void decay_settle(decay_pivot &f, float (&acc)[R], int lane)
{
    if (f.owed) {
        acc_rows_op<Ew::MUL>(acc, f.rf, lane);
        f.owed = false;
    }
}

// Pair q of this lane: its k16 step kk and its kvec elements 2 h, 2 h + 1 (t = lane % 4, as the
// kvec of this lane has them); false past the block's pairs.
template <int KS> __device__ __forceinline__ bool dpair(int lane, int q, int &kk, int &h)
{
    const int P = lane + 32 * q;
    kk = P / 8;
    h = (P / 4) % 2;
    return P < 8 * KS;
}

// exp_decay, factored: this lane's pairs of column factors exp(p - y), or the column values
// themselves once the warp computes every element. row0 is the warp's first row and col0 the k
// block's first column, both counted along the chunk as the mask is. IN_FLIGHT: a wgmma group may
// be in flight on the accumulators, so leaving the factored form only owes the multiply back.
template <bool CAUSAL, typename T, int KS, bool IN_FLIGHT = false, int R, typename Y>
__device__ __forceinline__ void decay_cols(float (&out)[DPAIRS<KS>][2], decay_pivot &f,
                                           float (&acc)[R], const Y &y, int row0, int col0, int lane)
{
    constexpr float LOG2E = 1.4426950408889634f;
    const int t = lane % 4;
    if (CAUSAL && col0 > row0 + 15)  // every column past the warp's rows: the fragment is zero
        return;
    bool ok = true;
#pragma unroll
    for (int q = 0; q < DPAIRS<KS>; ++q) {
        int kk, h;
        if (!dpair<KS>(lane, q, kk, h))
            continue;
#pragma unroll
        for (int e = 0; e < 2; ++e) {
            out[q][e] = kv_at(y, kk, 2 * h + e, t);
            // columns past the warp's last row are masked: their factors may be anything
            if (!CAUSAL || col0 + kv_index(kk, 2 * h + e, t) <= row0 + 15)
                ok = ok && f.p - out[q][e] <= FACTORED_RANGE<T>;
        }
    }
    if (f.on && __builtin_expect(!__all_sync(0xffffffffu, ok), 0)) {
        if (IN_FLIGHT)
            f.owed = true;
        else
            acc_rows_op<Ew::MUL>(acc, f.rf, lane);
        f.on = false;
    }
    if (f.on)
#pragma unroll
        for (int q = 0; q < DPAIRS<KS>; ++q)
#pragma unroll
            for (int e = 0; e < 2; ++e)
                out[q][e] = exp2_approx((f.p - out[q][e]) * LOG2E);
}

// The loaded tile's A fragment as it is stored (the factored form scales it later).
template <int KS, bool MN_MAJOR>
__device__ __forceinline__ void afrag_tile(uint32_t (&a)[KS][4], const uint8_t *tile, int m0,
                                           uint32_t atom_bytes, int lane)
{
#pragma unroll
    for (int kk = 0; kk < KS; ++kk)
        ldm_afrag<KS, MN_MAJOR>(a[kk], tile, m0, atom_bytes, kk, lane);
}

// a * (hi + lo) for pairs, rounded once: the fused multiply-add adds a * lo (itself rounded, but
// 2^-9 of the product) to the exact a * hi. Rounding the factor to 16 bits and then the product
// again would be two roundings where the tile form has one (about 1.4x its error).
template <typename T> __device__ __forceinline__ uint32_t mul2_split_bits(uint32_t a, uint32_t hi, uint32_t lo);
template <> __device__ __forceinline__ uint32_t mul2_split_bits<__nv_bfloat16>(uint32_t a, uint32_t hi, uint32_t lo)
{
    const __nv_bfloat162 x = *reinterpret_cast<__nv_bfloat162 *>(&a);
    const __nv_bfloat162 r = __hfma2(x, *reinterpret_cast<__nv_bfloat162 *>(&hi),
                                     __hmul2(x, *reinterpret_cast<__nv_bfloat162 *>(&lo)));
    return *reinterpret_cast<const uint32_t *>(&r);
}
template <> __device__ __forceinline__ uint32_t mul2_split_bits<__half>(uint32_t a, uint32_t hi, uint32_t lo)
{
    const __half2 x = *reinterpret_cast<__half2 *>(&a);
    const __half2 r = __hfma2(x, *reinterpret_cast<__half2 *>(&hi), __hmul2(x, *reinterpret_cast<__half2 *>(&lo)));
    return *reinterpret_cast<const uint32_t *>(&r);
}

// Every element of the tile (the tile form, for a warp out of the factored range): exp(x_r -
// y_c) T w_c in f32, rounded once; the column values come from the lanes that hold them. Inline,
// unlike exp_decay_direct: as a call its arguments (the tile, the columns and w, passed as
// values) spilled with three consumer warpgroups (128 registers).
template <typename T, int KS, typename W>
__device__ __forceinline__ void afrag_decay_direct(uint32_t (&a)[KS][4], const uint32_t (&tile)[KS][4],
                                                   const float (&cols)[DPAIRS<KS>][2], const W &w,
                                                   float x0, float x1, int row0, int col0,
                                                   bool mask, int lane)
{
    const int g = lane / 4, t = lane % 4;
#pragma unroll
    for (int kk = 0; kk < KS; ++kk)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            // pair 8 kk + 4 h + t: lane (8 kk + 4 h + t) % 32, slot (8 kk + 4 h) / 32
            const int src = (8 * kk + 4 * h + t) % 32, q = (8 * kk + 4 * h) / 32;
            const float y0 = __shfl_sync(0xffffffffu, cols[q][0], src);
            const float y1 = __shfl_sync(0xffffffffu, cols[q][1], src);
#pragma unroll
            for (int r = 0; r < 2; ++r) {  // register 2 h + r: row g + 8 r
                const int j = 2 * h + r, row = row0 + g + 8 * r;
                const int col = col0 + 16 * kk + 2 * t + 8 * h;
                const float xr = r ? x1 : x0;
                const float2 v = unpack2<T>(tile[kk][j]);
                const float p0 = __expf(xr - y0) * v.x * kv_at(w, kk, 2 * h, t);
                const float p1 = __expf(xr - y1) * v.y * kv_at(w, kk, 2 * h + 1, t);
                a[kk][j] = pack2<T>(mask && col > row ? 0.f : p0, mask && col + 1 > row ? 0.f : p1);
            }
        }
}

// a * b for pairs: the factor already rounded to 16 bits, the product rounded again (decay
// "factored16": one paired multiply where mul2_split_bits takes two).
template <typename T> __device__ __forceinline__ uint32_t mul2_bits(uint32_t a, uint32_t b);
template <> __device__ __forceinline__ uint32_t mul2_bits<__nv_bfloat16>(uint32_t a, uint32_t b)
{
    const __nv_bfloat162 r = __hmul2(*reinterpret_cast<__nv_bfloat162 *>(&a), *reinterpret_cast<__nv_bfloat162 *>(&b));
    return *reinterpret_cast<const uint32_t *>(&r);
}
template <> __device__ __forceinline__ uint32_t mul2_bits<__half>(uint32_t a, uint32_t b)
{
    const __half2 r = __hmul2(*reinterpret_cast<__half2 *>(&a), *reinterpret_cast<__half2 *>(&b));
    return *reinterpret_cast<const uint32_t *>(&r);
}

// The A fragment: the tile times the column factors (decay_cols) times the vector w along k, 0
// where col > row when CAUSAL; or, once the warp left the factored form, every element. Each
// lane multiplies its pairs' factors by w and packs them; each thread takes the pairs of its
// columns from their lanes (two shuffles per pair: the factor in two parts, mul2_split_bits) and
// scales two fragment registers with each. ROUND16 (decay "factored16"): the factor's 16-bit
// part alone, one shuffle and one paired multiply (the element rounded twice).
template <bool CAUSAL, typename T, int KS, bool ROUND16 = false, typename W, typename X>
__device__ __forceinline__ void afrag_decay(uint32_t (&a)[KS][4], const uint32_t (&tile)[KS][4],
                                            const float (&cols)[DPAIRS<KS>][2], const W &w,
                                            const decay_pivot &f, const X &x, int row0, int col0,
                                            int lane)
{
    const int g = lane / 4, t = lane % 4;
    if (CAUSAL && col0 > row0 + 15) {
#pragma unroll
        for (int kk = 0; kk < KS; ++kk)
#pragma unroll
            for (int j = 0; j < 4; ++j)
                a[kk][j] = 0u;
        return;
    }
    const bool mask = CAUSAL && col0 + 16 * KS - 1 > row0;
    if (__builtin_expect(!f.on, 0)) {
        afrag_decay_direct<T, KS>(a, tile, cols, w, a_at(x, 0, 0, lane), a_at(x, 0, 2, lane), row0,
                                  col0, mask, lane);
        return;
    }
    uint32_t hi[DPAIRS<KS>], lo[DPAIRS<KS>];  // this lane's pairs, packed, and what that rounding left
#pragma unroll
    for (int q = 0; q < DPAIRS<KS>; ++q) {
        int kk, h;
        hi[q] = lo[q] = 0u;
        if (dpair<KS>(lane, q, kk, h)) {
            const float f0 = cols[q][0] * kv_at(w, kk, 2 * h, t), f1 = cols[q][1] * kv_at(w, kk, 2 * h + 1, t);
            hi[q] = pack2<T>(f0, f1);
            if constexpr (!ROUND16) {
                const float2 r = unpack2<T>(hi[q]);
                lo[q] = pack2<T>(f0 - r.x, f1 - r.y);
            }
        }
    }
#pragma unroll
    for (int kk = 0; kk < KS; ++kk)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int src = (8 * kk + 4 * h + t) % 32, q = (8 * kk + 4 * h) / 32;
            const uint32_t mh = __shfl_sync(0xffffffffu, hi[q], src);
            // registers 2 h and 2 h + 1: rows g and g + 8, columns 2t + 8 h and the next
            if constexpr (ROUND16) {
                a[kk][2 * h] = mul2_bits<T>(tile[kk][2 * h], mh);
                a[kk][2 * h + 1] = mul2_bits<T>(tile[kk][2 * h + 1], mh);
            } else {
                const uint32_t ml = __shfl_sync(0xffffffffu, lo[q], src);
                a[kk][2 * h] = mul2_split_bits<T>(tile[kk][2 * h], mh, ml);
                a[kk][2 * h + 1] = mul2_split_bits<T>(tile[kk][2 * h + 1], mh, ml);
            }
        }
    if (mask)
#pragma unroll
        for (int kk = 0; kk < KS; ++kk)
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const int row = row0 + g + 8 * (j & 1);
                const int col = col0 + 16 * kk + 2 * t + 8 * (j >> 1);
                a[kk][j] &= (col > row ? 0u : 0xffffu) | (col + 1 > row ? 0u : 0xffff0000u);
            }
}

}  // namespace pt
