// pt_dequant.cuh — PipeThreader's dequantisation sTask for Hopper kernels: a packed 4-bit weight
// tile and its group scales (as TMA landed them in shared memory) turned into the f16/bf16 tile
// a wgmma reads as its K-major B operand.
//
// Formats (the same as the bundle's reference, codegen/reference.c): two elements per byte,
// the even element in the low nibble; int4 is signed two's complement (-8..7); fp4 is e2m1
// (sign, 2 exponent bits with bias 1, 1 mantissa bit: 0, 0.5, 1, 1.5, 2, 3, 4, 6). An element
// is its 4-bit value times the scale of its group of G along k, rounded once to the element
// type, exactly as the reference rounds its dequantised tensor.
//
// Output layout: what TMA's 128-byte swizzle gives a K-major tile of BN rows: 64-column atoms
// BN*128 bytes apart, 128-byte rows, the 16-byte chunk c of row r stored at chunk c ^ (r % 8).
// A chunk is 8 elements (4 packed bytes in, 16 bytes out, one scale); a thread takes four
// chunks of a row with one 16-byte load. The dequantising warps are few (the producer
// warpgroup's three) and latency-bound, so instructions per element are what counts.
//
// With the tensor-core rows on the weights' rows (the sProgram's wg_axis on N), the weights are
// wgmma's A operand and each consumer warpgroup dequantises its own rows straight into the A
// fragments (dequant_frag): no shared-memory tile, and every consumer warp converts. Weights
// packed as "fragments" (src/packing.h) take dequant_frag_packed instead.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <type_traits>

namespace pt {

enum class Quant { INT4, FP4_E2M1 };

// The element pair of byte j of a packed word w (its low nibble the even element, its high
// nibble the odd one) as the bits pair_value takes; w_hi is w >> 4, shifted once per word by
// the caller where the form needs it.
//  - int4 in f16: byte j in both halves; the low nibble read in the low half as 0x6400 | m
//    (1024 + m) and the high nibble, at bits 4..7 of the high half, as 0x5400 | m << 4
//    (64 + m): no shift. The xor turns two's complement n into m = n + 8.
//  - int4 in bf16: bit 7 is bf16's lowest exponent bit, so the high nibble comes from w_hi
//    into bits 0..3 of the high half; both halves read as 0x4300 | m (128 + m).
//  - fp4: the two nibbles at bits 0..3 and 16..19, the rest zero.
template <typename T, Quant QK>
__device__ __forceinline__ uint32_t pair_bits(uint32_t w, uint32_t w_hi, int j)
{
    if constexpr (QK == Quant::INT4 && std::is_same<T, __half>::value)
        return and_xor(__byte_perm(w, 0, j * 0x1111), 0x00F0000Fu, 0x54806408u);
    else if constexpr (QK == Quant::INT4)
        return and_xor(__byte_perm(w, w_hi, j | ((j + 4) << 8)), 0x000F000Fu, 0x43084308u);
    else
        return __byte_perm(w, w_hi, j | ((j + 4) << 8)) & 0x000F000Fu;
}

template <typename T> struct dequant_math;

template <> struct dequant_math<__half> {
    using pair = __half2;
    // int4 bits from pair_bits: (1024 + m, 64 + m) minus (1032, 72) is n exactly
    __device__ static __forceinline__ __half2 int4_pair(uint32_t bits)
    {
        return __hsub2(*reinterpret_cast<const __half2 *>(&bits), __floats2half2_rn(1032.f, 72.f));
    }
    // fp4: the 3 magnitude bits placed at f16 bits 9..11 read as 2^(E-15)(1 + M/2) (E > 0) or
    // M·2^-15 (E = 0, subnormal); times 2^14 (exact) that is the e2m1 value.
    __device__ static __forceinline__ __half2 fp4_pair(uint32_t x)
    {
        const uint32_t bits = ((x & 0x00070007u) << 9) | ((x & 0x00080008u) << 12);
        return __hmul2(*reinterpret_cast<const __half2 *>(&bits), __float2half2_rn(16384.f));
    }
    // the exact value times the scale, rounded once, as the reference rounds
    __device__ static __forceinline__ uint32_t scale_pair(__half2 v, __half s)
    {
        const __half2 r = __hmul2(v, __half2half2(s));
        return *reinterpret_cast<const uint32_t *>(&r);
    }
};

template <> struct dequant_math<__nv_bfloat16> {
    // int4 bits from pair_bits: 128 + m minus 136 is n exactly
    __device__ static __forceinline__ __nv_bfloat162 int4_pair(uint32_t bits)
    {
        return __hsub2(*reinterpret_cast<const __nv_bfloat162 *>(&bits), __float2bfloat162_rn(136.f));
    }
    // fp4 without f32: the 3 magnitude bits at bf16 bits 6..8 read as the e2m1 value times
    // 2^-126 (E = 0 a bf16 subnormal, as e2m1's is); times 2^126 is exact
    __device__ static __forceinline__ __nv_bfloat162 fp4_pair(uint32_t x)
    {
        const uint32_t bits = ((x & 0x00070007u) << 6) | ((x & 0x00080008u) << 12);
        return __hmul2(*reinterpret_cast<const __nv_bfloat162 *>(&bits), __float2bfloat162_rn(0x1p126f));
    }
    // an exact value (at most 4 significant bits) times a bf16 scale rounds once, as the
    // reference's f32 product of two bf16 values rounded to bf16 does
    __device__ static __forceinline__ uint32_t scale_pair(__nv_bfloat162 v, __nv_bfloat16 s)
    {
        const __nv_bfloat162 r = __hmul2(v, __bfloat162bfloat162(s));
        return *reinterpret_cast<const uint32_t *>(&r);
    }
};

// One element pair (bits from pair_bits) times the scale: the pair as the 32-bit register a
// wgmma fragment holds (the lower k in the low half).
template <typename T, Quant QK>
__device__ __forceinline__ uint32_t pair_value(uint32_t bits, T scale)
{
    using M = dequant_math<T>;
    return QK == Quant::INT4 ? M::scale_pair(M::int4_pair(bits), scale)
                             : M::scale_pair(M::fp4_pair(bits), scale);
}

// 8 elements (one 32-bit word of nibbles) times their group's scale, as 16 bytes.
template <typename T, Quant QK>
__device__ __forceinline__ uint4 dequant8(uint32_t packed, T scale)
{
    const uint32_t hi = packed >> 4;
    uint32_t o[4];
#pragma unroll
    for (int j = 0; j < 4; ++j)
        o[j] = pair_value<T, QK>(pair_bits<T, QK>(packed, hi, j), scale);
    return make_uint4(o[0], o[1], o[2], o[3]);
}

// dequant.W into wgmma's A fragments (m64 x k16, as mma.m16n8k16's A per warp): one chunk of 32
// k of the thread's rows r and r + 8 (16 packed bytes each, frag_load), for two k16 steps t.
// Register f[t][j] holds the pair (k 16t + 2q, +1) of row r (j = 0) or r + 8 (j = 1), and the
// pair (k 16t + 2q + 8, +9) of row r (j = 2) or r + 8 (j = 3), q = lane % 4. The pair is byte
// q of the chunk's 4-byte word 2t (j 0, 1) or 2t + 1 (j 2, 3): the four lanes of a row read the
// same 16 bytes (one broadcast load) and each keeps its byte of every word. The 32 k share one
// scale per row (a group is a multiple of 32).
// The packed bytes of one chunk are loaded apart (frag_load), so a block's loads can all be in
// flight before the first conversion.
struct frag_words {
    uint4 r0, r1;  // 32 k of rows r and r + 8
};

__device__ __forceinline__ frag_words frag_load(const uint8_t *row0, const uint8_t *row1)
{
    return {*reinterpret_cast<const uint4 *>(row0), *reinterpret_cast<const uint4 *>(row1)};
}

template <typename T, Quant QK>
__device__ __forceinline__ void dequant_frag(const frag_words &pk, int q, T s0, T s1,
                                             uint32_t (&f)[2][4])
{
    const uint4 a = pk.r0, b = pk.r1;
    const uint32_t wa[4] = {a.x, a.y, a.z, a.w}, wb[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
    for (int w = 0; w < 4; ++w) {
        f[w / 2][(w % 2) * 2] = pair_value<T, QK>(pair_bits<T, QK>(wa[w], wa[w] >> 4, q), s0);
        f[w / 2][(w % 2) * 2 + 1] = pair_value<T, QK>(pair_bits<T, QK>(wb[w], wb[w] >> 4, q), s1);
    }
}

// dequant.W from the "fragments" packing (src/packing.h): a lane's 16 bytes hold its rows r and
// r + 8 for two chunks of 32 k (word 2 * chunk + row slot), pair j of a word at nibbles j and
// j + 4. So a pair is one shift and one mask (int4: the mask and the exponent bits in one LOP3)
// from its word, with no byte permute, and every lane loads only its own bytes.
//  - int4 in f16: both halves read as 0x6400 | m (1024 + m), m = n + 8;
//  - int4 in bf16: both halves 0x4300 | m (128 + m);
//  - fp4: the two nibbles at bits 0..3 and 16..19, as pair_bits gives them.
template <typename T, Quant QK>
__device__ __forceinline__ uint32_t frag_pair_bits(uint32_t w, int j)
{
    const uint32_t x = w >> (4 * j);
    if constexpr (QK == Quant::INT4 && std::is_same<T, __half>::value)
        return and_xor(x, 0x000F000Fu, 0x64086408u);
    else if constexpr (QK == Quant::INT4)
        return and_xor(x, 0x000F000Fu, 0x43084308u);
    else
        return x & 0x000F000Fu;
}

template <typename T, Quant QK>
__device__ __forceinline__ uint32_t frag_pair_value(uint32_t bits, T scale)
{
    using M = dequant_math<T>;
    if constexpr (QK == Quant::FP4_E2M1)
        return M::scale_pair(M::fp4_pair(bits), scale);
    else if constexpr (std::is_same<T, __half>::value)  // (1024 + m) - 1032 in both halves
        return M::scale_pair(__hsub2(*reinterpret_cast<const __half2 *>(&bits), __float2half2_rn(1032.f)), scale);
    else
        return M::scale_pair(M::int4_pair(bits), scale);
}

// The 16 bytes of lane unit `unit` (2 per 64 k) of stage row `row`, P bytes a row, where TMA's
// P-byte swizzle put them: 16-byte unit u of a row sits at u ^ (address bits 7.. of the row).
template <int P>
__device__ __forceinline__ uint4 frag_packed_load(const uint8_t *q, int row, int unit)
{
    static_assert(P == 32 || P == 64 || P == 128, "a swizzle span: k tiles of 64, 128 or 256");
    uint32_t a = row * P + unit * 16;
    a ^= ((a >> 7) & (P / 16 - 1)) << 4;
    return *reinterpret_cast<const uint4 *>(q + a);
}

// A fragments (as dequant_frag fills them) of chunk `odd` (0 or 1) of a lane's 16 bytes v.
template <typename T, Quant QK>
__device__ __forceinline__ void dequant_frag_packed(const uint4 &v, int odd, T s0, T s1, uint32_t (&f)[2][4])
{
    const uint32_t w0 = odd ? v.z : v.x, w1 = odd ? v.w : v.y;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        f[j / 2][(j % 2) * 2] = frag_pair_value<T, QK>(frag_pair_bits<T, QK>(w0, j), s0);
        f[j / 2][(j % 2) * 2 + 1] = frag_pair_value<T, QK>(frag_pair_bits<T, QK>(w1, j), s1);
    }
}

// The first group column of a scales stage: TMA's innermost box coordinate must be a multiple
// of 16 bytes, so the box starts at the group of kbase rounded down to 8 groups.
template <int G> __device__ __forceinline__ int scale_col0(int kbase)
{
    return (kbase / G) & ~7;
}

// dequant.W: the BN x BK tile at k = kbase. q: the packed stage (BN rows of Q_ROW bytes);
// s: the scales stage (BN rows of S_COLS groups from scale_col0); w: the swizzled output
// stage. Threads tid = 0 .. THREADS-1 of the dequantising warps share the work.
template <typename T, Quant QK, int BN, int BK, int G, int Q_ROW, int S_COLS, int THREADS>
__device__ __forceinline__ void dequant_tile(uint8_t *w, const uint8_t *q, const T *s, int kbase,
                                             int tid)
{
    static_assert(BK % 64 == 0 && G % 8 == 0, "whole swizzle atoms, chunks within one group");
    constexpr int CHUNKS = BK / 8;
    const int g0 = scale_col0<G>(kbase);
    // four chunks of a row per thread and 16-byte load (BK is a multiple of 64: 8 chunks a row
    // at least): a quarter of the loads and four independent conversions in flight
#pragma unroll 2
    for (int u = tid; u < BN * CHUNKS / 4; u += THREADS) {
        const int r = u / (CHUNKS / 4), c0 = (u % (CHUNKS / 4)) * 4;
        const uint4 pk = *reinterpret_cast<const uint4 *>(q + r * Q_ROW + c0 * 4);
        const uint32_t pw[4] = {pk.x, pk.y, pk.z, pk.w};
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int c = c0 + j;
            const T scale = s[r * S_COLS + (kbase + c * 8) / G - g0];
            *reinterpret_cast<uint4 *>(w + (c / 8) * (BN * 128) + r * 128 + (((c % 8) ^ (r % 8)) * 16)) =
                dequant8<T, QK>(pw[j], scale);
        }
    }
}

}  // namespace pt
