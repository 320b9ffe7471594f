"""single.py BUNDLE — measurement only (not a kernel to keep as is): the factored decay's A
fragment with the column factor rounded to 16 bits and the product rounded again (one HMUL2 a
register pair, one shuffle a pair of registers), instead of afrag_decay's split factor (hi + lo,
one rounding: HMUL2 + HFMA2 and two shuffles). Tells what the per-block CUDA-core instruction
count costs; its error is about 1.4x the split form's."""
import sys

d = sys.argv[1]
h = open(d + "/pt_ssd.cuh").read()
old = """            const uint32_t mh = __shfl_sync(0xffffffffu, hi[q], src);
            const uint32_t ml = __shfl_sync(0xffffffffu, lo[q], src);
            // registers 2 h and 2 h + 1: rows g and g + 8, columns 2t + 8 h and the next
            a[kk][2 * h] = mul2_split_bits<T>(tile[kk][2 * h], mh, ml);
            a[kk][2 * h + 1] = mul2_split_bits<T>(tile[kk][2 * h + 1], mh, ml);"""
new = """            const uint32_t mh = __shfl_sync(0xffffffffu, hi[q], src);
            a[kk][2 * h] = mul2_bits<T>(tile[kk][2 * h], mh);
            a[kk][2 * h + 1] = mul2_bits<T>(tile[kk][2 * h + 1], mh);"""
assert old in h
h = h.replace(old, new)
anchor = "// Every element of the tile (the tile form"
add = """template <typename T> __device__ __forceinline__ uint32_t mul2_bits(uint32_t a, uint32_t b)
{
    if constexpr (sizeof(T) == 2 && std::is_same_v<T, __half>) {
        const __half2 r = __hmul2(*reinterpret_cast<__half2 *>(&a), *reinterpret_cast<__half2 *>(&b));
        return *reinterpret_cast<const uint32_t *>(&r);
    } else {
        const __nv_bfloat162 r = __hmul2(*reinterpret_cast<__nv_bfloat162 *>(&a), *reinterpret_cast<__nv_bfloat162 *>(&b));
        return *reinterpret_cast<const uint32_t *>(&r);
    }
}

"""
assert anchor in h
h = h.replace(anchor, add + anchor, 1)
open(d + "/pt_ssd.cuh", "w").write(h)
print(f"{d}: single rounding")
