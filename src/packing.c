/* packing.c — the nibble order of 4-bit tensors (see packing.h for the layouts). */
#include "packing.h"

#include <string.h>

const char *pt_packing_name(pt_packing p)
{
    return p == PT_PACK_FRAGMENTS ? "fragments" : "rows";
}

bool pt_packing_parse(const char *name, pt_packing *out)
{
    if (!strcmp(name, "rows"))
        *out = PT_PACK_ROWS;
    else if (!strcmp(name, "fragments"))
        *out = PT_PACK_FRAGMENTS;
    else
        return false;
    return true;
}

int64_t pt_packed_nibble(pt_packing p, int64_t n, int64_t k, int64_t K)
{
    if (p != PT_PACK_FRAGMENTS)
        return n * K + k;
    int64_t nb = n / 16, kb = k / 64;
    int rr = (int)(n % 16), kk = (int)(k % 64);
    int slot = rr / 8, chunk = kk / 32, kc = kk % 32;
    int t = kc / 16, kt = kc % 16, h = kt / 8, q = (kt % 8) / 2, e = kt % 2;
    int lane = 4 * (rr % 8) + q;
    int word = 2 * chunk + slot, pair = 2 * t + h, nib = pair + 4 * e;
    int64_t row = nb * 16 + lane % 16;
    int64_t byte = row * (K / 2) + kb * 32 + 16 * (lane / 16) + 4 * word + nib / 2;
    return byte * 2 + nib % 2;
}

bool pt_packing_fits(pt_packing p, int64_t rows, int64_t K, const char *what, pt_error *err)
{
    if (p != PT_PACK_FRAGMENTS)
        return true;
    if (rows % PT_PACK_FRAG_ROWS)
        return pt_fail(err, "%s: %lld rows; the \"fragments\" packing needs a multiple of %d (it "
                            "re-orders blocks of 16 rows by 64 k)", what, (long long)rows,
                       PT_PACK_FRAG_ROWS);
    if (K % PT_PACK_FRAG_K)
        return pt_fail(err, "%s: %lld elements a row; the \"fragments\" packing needs a multiple of "
                            "%d (it re-orders blocks of 16 rows by 64 k)", what, (long long)K,
                       PT_PACK_FRAG_K);
    return true;
}
