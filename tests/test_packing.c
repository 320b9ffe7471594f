/* test_packing.c — the "fragments" packing of 4-bit tensors (src/packing.h): a bijection of
 * nibbles within each block of 16 rows by 64 k, and, emulating what the generated kernel does
 * (pt_dequant.cuh frag_packed_load and frag_pair_bits, with TMA's swizzle of the stage rows),
 * every lane's register receives the two elements wgmma's A fragment layout puts there. */
#include <stdlib.h>
#include <string.h>

#include "packing.h"
#include "ptest.h"

static void test_names(void)
{
    pt_packing p;
    CHECK(pt_packing_parse("rows", &p) && p == PT_PACK_ROWS);
    CHECK(pt_packing_parse("fragments", &p) && p == PT_PACK_FRAGMENTS);
    CHECK(!pt_packing_parse("Fragments", &p));
    CHECK(!strcmp(pt_packing_name(PT_PACK_FRAGMENTS), "fragments"));
    pt_error err = {{0}};
    CHECK(pt_packing_fits(PT_PACK_FRAGMENTS, 32, 128, "Wq", &err));
    CHECK(!pt_packing_fits(PT_PACK_FRAGMENTS, 40, 128, "Wq", &err));
    CHECK(strstr(err.msg, "Wq: 40 rows") && strstr(err.msg, "multiple of 16"));
    CHECK(!pt_packing_fits(PT_PACK_FRAGMENTS, 32, 96, "Wq", &err));
    CHECK(strstr(err.msg, "96 elements a row") && strstr(err.msg, "multiple of 64"));
    CHECK(pt_packing_fits(PT_PACK_ROWS, 3, 6, "Wq", &err));
    CHECK(pt_packed_nibble(PT_PACK_ROWS, 3, 5, 6) == 23);
}

/* Every nibble of a [48, 192] tensor is taken exactly once, inside its own 16 x 64 block. */
static void test_bijection(void)
{
    enum { N = 48, K = 192 };
    static unsigned char seen[N * K];
    memset(seen, 0, sizeof seen);
    for (int n = 0; n < N; n++)
        for (int k = 0; k < K; k++) {
            int64_t x = pt_packed_nibble(PT_PACK_FRAGMENTS, n, k, K);
            CHECK(x >= 0 && x < N * K);
            if (x < 0 || x >= N * K)
                continue;
            seen[x]++;
            int64_t byte = x / 2, row = byte / (K / 2), col = byte % (K / 2);
            CHECK(row / 16 == n / 16 && col / 32 == k / 64);
        }
    int once = 0;
    for (int i = 0; i < N * K; i++)
        once += seen[i] == 1;
    CHECK(once == N * K);
}

/* The swizzle TMA applies to a stage of P-byte rows: 16-byte unit u of a row at address bits
 * 4.. XOR the bits from 7 on (CUTLASS's Swizzle<log2(P/16), 4, 3>). */
static uint32_t swizzled(uint32_t a, int P)
{
    return a ^ (((a >> 7) & (uint32_t)(P / 16 - 1)) << 4);
}

/* A stage of BN rows by BK k packed as "fragments" (a tile of the tensor at block-aligned
 * coordinates is the same layout), swizzled as TMA stores it; each lane of each warp loads as
 * the kernel does and extracts its pairs; compare with the m16n8k16 A layout: register j of
 * k16 step t holds row r + 8 (j & 1) and k 16t + 2q + 8 (j >> 1), +1 in its high half. */
static void check_stage(int BN, int BK)
{
    const int P = BK / 2;
    unsigned char *val = malloc((size_t)BN * BK), *packed = calloc((size_t)BN * P, 1),
                  *stage = calloc((size_t)BN * P, 1);
    uint32_t rng = 12345;
    for (int i = 0; i < BN * BK; i++) {
        rng = rng * 1664525u + 1013904223u;
        val[i] = (unsigned char)(rng >> 28);
    }
    for (int n = 0; n < BN; n++)
        for (int k = 0; k < BK; k++) {
            int64_t x = pt_packed_nibble(PT_PACK_FRAGMENTS, n, k, BK);
            packed[x / 2] |= (unsigned char)(val[n * BK + k] << (4 * (x % 2)));
        }
    for (int a = 0; a < BN * P; a++)
        stage[swizzled((uint32_t)a, P)] = packed[a];
    int bad = 0;
    for (int warp = 0; warp < BN / 16; warp++)
        for (int lane = 0; lane < 32; lane++) {
            int r = warp * 16 + lane / 4, q = lane % 4;
            for (int c = 0; c < BK / 32; c++) {
                uint32_t a = swizzled((uint32_t)((warp * 16 + lane % 16) * P + 16 * ((c / 2) * 2 + lane / 16)), P);
                uint32_t w[4];
                memcpy(w, stage + a, 16);
                for (int s = 0; s < 2; s++) {
                    uint32_t word = w[2 * (c % 2) + s];
                    for (int j = 0; j < 4; j++) {
                        uint32_t bits = (word >> (4 * j)) & 0x000F000Fu;
                        int t = j / 2, h = j % 2, k = c * 32 + 16 * t + 2 * q + 8 * h;
                        int row = r + 8 * s;
                        bad += (int)(bits & 15) != val[row * BK + k];
                        bad += (int)(bits >> 16) != val[row * BK + k + 1];
                    }
                }
            }
        }
    CHECK_MSG(bad == 0, "BN %d BK %d: %d elements in the wrong register half", BN, BK, bad);
    free(val);
    free(packed);
    free(stage);
}

static void test_fragments(void)
{
    check_stage(64, 64);
    check_stage(128, 128);
    check_stage(192, 256);
}

int main(void)
{
    PTEST_RUN(test_names);
    PTEST_RUN(test_bijection);
    PTEST_RUN(test_fragments);
    PTEST_END();
}
