// pt_wgmma.cuh for kernelcpu (README.md): wgmma m64nNk16 with f32 accumulators, as
// codegen/device/pt_wgmma.cuh names its forms, done by each thread for its own accumulators:
// thread t of the warpgroup (warp w = t / 32, lane l) holds rows 16w + l/4 and that + 8, and
// in each 8-column block j the columns 8j + 2(l % 4) and the next, d[4j + 2h + x]. Operands
// in shared memory are read through their descriptors (kernelcpu_wgmma_operand); an A in
// registers is the m64k16 fragment (a[0]: row, k 2(l%4)..+1; a[1]: row + 8; a[2], a[3]: k + 8),
// gathered from the whole warpgroup. wgmma is .sync.aligned: the warpgroup's threads meet at
// every call, so none runs more than one call ahead of the others (as on the GPU, where a lead
// thread that releases a ring stage after its wgmma cannot leave a warp behind the phase).
#pragma once
#include <cstring>

namespace pt {

template <typename T> inline float wg_value(uint16_t bits)
{
    T v;
    std::memcpy(&v, &bits, 2);
    return (float)v;
}

// d (+)= A . B for this thread's accumulators; a(r, k) and b(k, c) give the operands
template <int N, typename FA, typename FB> inline void wg_mma(float (&d)[N / 2], FA a, FB b)
{
    const int t = threadIdx.x % 128, w = t / 32, l = t % 32;
    for (int j = 0; j < N / 8; ++j)
        for (int h = 0; h < 2; ++h)
            for (int x = 0; x < 2; ++x) {
                const int r = 16 * w + l / 4 + 8 * h, c = 8 * j + 2 * (l % 4) + x;
                float s = 0.f;
                for (int k = 0; k < 16; ++k)
                    s += a(r, k) * b(k, c);
                d[4 * j + 2 * h + x] += s;
            }
}

template <int N, typename T, int TA = 0, int TB = 0> struct wgmma_ss {
    static void mma(float (&d)[N / 2], uint64_t da, uint64_t db)
    {
        kernelcpu_warpgroup_sync();
        wg_mma<N>(
            d, [&](int r, int k) { return wg_value<T>(kernelcpu_wgmma_operand(da, r, k, TA == 1)); },
            [&](int k, int c) { return wg_value<T>(kernelcpu_wgmma_operand(db, c, k, TB == 1)); });
    }
};

template <int N, typename T> struct wgmma_ss_zero {
    static void mma(float (&d)[N / 2], uint64_t da, uint64_t db, int accumulate)
    {
        if (!accumulate)
            for (int i = 0; i < N / 2; ++i)
                d[i] = 0.f;
        wgmma_ss<N, T, 0, 0>::mma(d, da, db);
    }
};

// every warpgroup's A fragments while its threads compute (one warpgroup per 128 threads)
inline uint32_t wg_frag[8][128][4];

template <int N, typename T, int TB = 1> struct wgmma_rs {
    static void mma(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t db)
    {
        const int g = (int)(threadIdx.x / 128), t = threadIdx.x % 128;
        std::memcpy(wg_frag[g][t], a, sizeof a);
        kernelcpu_warpgroup_sync();
        wg_mma<N>(
            d,
            [&](int r, int k) {
                const int holder = 32 * (r / 16) + 4 * (r % 8) + (k % 8) / 2;
                const uint32_t word = wg_frag[g][holder][2 * (k / 8) + (r % 16) / 8];
                return wg_value<T>((uint16_t)(k % 2 ? word >> 16 : word & 0xffffu));
            },
            [&](int k, int c) { return wg_value<T>(kernelcpu_wgmma_operand(db, c, k, TB == 1)); });
        kernelcpu_warpgroup_sync(); // the fragments are read before the next call writes them
    }
};

} // namespace pt
