// combine_tile.cpp — the combine's CUDA-core tasks (codegen/device/pt_combine.cuh) run on the CPU
// for tiles of every row count the sm90a generator takes, one warpgroup's 128 threads one after
// another (a task's threads touch only their own elements of Y, so their order does not matter
// between the barriers the kernel has). Checks, per tile shape:
//   - every element of the tile belongs to exactly one thread, chunk slot and row;
//   - O = sum_s exp(X_s - max X) Y_s / sum_s exp(X_s - max X) against double precision;
//   - the 16-byte reads of Y are free of bank conflicts where a warp's rows fall evenly
//     (GT a power of two): every quarter warp's 8 reads in distinct 16-byte bank groups.
// Exit 0 when every shape passes; the failures are printed.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#define __device__
#define __forceinline__ inline
struct float4 {
    float x, y, z, w;
};
static inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
// the parts form (P > 1) puts its threads' sums together by shuffles: one thread at a time cannot
// run it, so it is only declared here (tests/kernelcpu runs those tiles in whole kernels)
float __shfl_xor_sync(unsigned mask, float v, int lane_mask);

#include "pt_combine.cuh"

static int fails = 0;

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        std::printf("FAIL S=%d GT=%d DT=%d: ", S, GT, DT);                                         \
        std::printf(__VA_ARGS__);                                                                  \
        std::printf("\n");                                                                         \
        fails++;                                                                                   \
        return;                                                                                    \
    } while (0)

template <int S, int GT, int DT> static void run(unsigned seed)
{
    constexpr int TPR = 128 / GT, CH = (DT / 4 + TPR - 1) / TPR;
    // ownership: each element once
    std::vector<int> owner(GT * DT, 0);
    for (int tid = 0; tid < GT * TPR; tid++)
        for (int k = 0; k < CH; k++) {
            int q = pt::split_chunk<DT, TPR>(tid / TPR, tid % TPR, k);
            if (q >= DT / 4)
                FAIL("chunk %d past the row's %d", q, DT / 4);
            for (int e = 0; q >= 0 && e < 4; e++)
                owner[(tid / TPR) * DT + 4 * q + e]++;
        }
    for (int i = 0; i < GT * DT; i++)
        if (owner[i] != 1)
            FAIL("element (%d, %d) owned %d times", i / DT, i % DT, owner[i]);
    // bank groups of each quarter warp's reads, chunk slot by chunk slot (the same s)
    bool even = (GT & (GT - 1)) == 0;
    for (int w0 = 0; even && w0 < 128; w0 += 8)
        for (int k = 0; k < CH; k++) {
            int used = 0;
            for (int tid = w0; tid < w0 + 8; tid++) {
                int row = tid / TPR, q = pt::split_chunk<DT, TPR>(row, tid % TPR, k);
                if (row >= GT || q < 0)
                    continue;
                int group = (row * (DT / 4) + q) % 8;
                if (used & (1 << group))
                    FAIL("threads %d-%d: two reads in bank group %d (chunk slot %d)", w0, w0 + 7,
                         group, k);
                used |= 1 << group;
            }
        }
    // the tasks in the kernel's order, against double precision
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> lse(-8.f, 8.f), val(-2.f, 2.f);
    alignas(16) static float x[S * GT], y[S * GT * DT], o[GT * DT];
    std::vector<float> y0(S * GT * DT);
    for (auto &v : x)
        v = lse(rng);
    for (int i = 0; i < S * GT * DT; i++)
        y0[i] = y[i] = val(rng);
    std::memset(o, 0, sizeof o);
    for (int tid = 0; tid < 128; tid++) {
        int row = tid / TPR, j = tid % TPR;
        if (row >= GT)
            continue;
        float mx, l, w[S];
        float4 acc[CH];
        mx = pt::split_max<S, GT>((uint8_t *)x, row);
        pt::split_sub<S, GT>((uint8_t *)x, row, mx, w);
        pt::split_exp<S>(w);
        l = pt::split_sum<S>(w);
        pt::split_reduce<S, GT, DT, TPR, CH>((uint8_t *)y, row, j, w, acc);
        pt::split_div_store<float, DT, TPR, CH>(acc, l, (uint8_t *)o, row, j);
    }
    for (int r = 0; r < GT; r++) {
        double m = -INFINITY, sw = 0;
        for (int s = 0; s < S; s++)
            m = std::fmax(m, (double)x[s * GT + r]);
        for (int s = 0; s < S; s++)
            sw += std::exp((double)x[s * GT + r] - m);
        for (int d = 0; d < DT; d++) {
            double sum = 0;
            for (int s = 0; s < S; s++)
                sum += std::exp((double)x[s * GT + r] - m) * y0[(s * GT + r) * DT + d];
            double want = sum / sw, got = o[r * DT + d];
            if (std::fabs(got - want) > 1e-5 * (1 + std::fabs(want)))
                FAIL("O[%d][%d] = %.7g, expected %.7g", r, d, got, want);
        }
    }
}

int main()
{
    run<1, 1, 32>(1);     // one row over 128 threads: 8 of them hold a chunk
    run<2, 4, 64>(2);     // FlashDecoding's G 4 at 2 splits
    run<16, 4, 64>(3);    // the B 1 pick of round 166: 16 splits, tile 4 x 64
    run<128, 8, 32>(4);   // MQA's 128 splits, tile 8 x 32: two rows a warp
    run<7, 3, 96>(5);     // 3 rows (42 threads each, 2 idle), columns not a power of two
    run<5, 12, 128>(6);   // 10 threads a row, 8 idle
    run<13, 32, 32>(7);   // 4 threads a row: 8 rows a warp, 2 a quarter
    run<3, 64, 256>(8);   // 2 threads a row, 32 chunks each
    run<9, 128, 32>(9);   // one thread a row, 8 chunks
    run<4, 40, 64>(10);   // 3 threads a row, 8 idle
    run<32, 16, 256>(11); // 8 threads a row, 8 chunks each
    if (fails)
        std::printf("%d tile shape(s) failed\n", fails);
    else
        std::printf("all tile shapes agree\n");
    return fails ? 1 : 0;
}
