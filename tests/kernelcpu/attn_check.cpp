/* attn_check.cpp — one generated sm90a attention forward (FlashAttention, or grouped-query: Q with
 * GROUP query heads per K/V head) run on the CPU through its own launcher on random inputs,
 * every element of O checked against softmax(Q K^T * scale) V in double precision.
 *   attn_check NAME BQ GROUP M N D SCALE CAUSAL f16|bf16 NSLOTS SLOT_Q SLOT_K SLOT_V SLOT_O
 * BQ: Q's batch entries (its batch axes flattened); K and V have BQ / GROUP, entry q / GROUP
 * serving q. CAUSAL 1: query m sees keys n <= m (M = N). The kernel's P is rounded to 16 bits
 * before P V, which the tolerance allows for. Exit 0 when every element agrees, 1 otherwise. */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "include/pt_device.cuh"
#include "check_util.h"
#include "kernelcpu.h"

extern "C" int pt_kernel_launch(CUmodule mod, const CUdeviceptr *slots, CUstream stream);

int main(int argc, char **argv)
{
    if (argc != 15) {
        std::fprintf(stderr, "usage: attn_check NAME BQ GROUP M N D SCALE CAUSAL f16|bf16 NSLOTS SLOT_Q SLOT_K SLOT_V SLOT_O\n");
        return 2;
    }
    const char *name = argv[1];
    const long BQ = atol(argv[2]), G = atol(argv[3]), M = atol(argv[4]), N = atol(argv[5]), D = atol(argv[6]);
    const double scale = atof(argv[7]);
    const bool causal = atoi(argv[8]) != 0, bf16 = std::strcmp(argv[9], "bf16") == 0;
    const int nslots = atoi(argv[10]), sq = atoi(argv[11]), sk = atoi(argv[12]), sv = atoi(argv[13]),
              so = atoi(argv[14]);
    const long BK = BQ / G;
    auto alloc = [](size_t n) { return (uint16_t *)alloc_device_like(2 * n); };
    uint16_t *q = alloc(BQ * M * D), *k = alloc(BK * N * D), *v = alloc(BK * N * D), *o = alloc(BQ * M * D);
    std::mt19937 rng(5);
    /* scores spread over a few units, so that each key's weight shows in O */
    std::uniform_real_distribution<float> wide(-2.f, 2.f), unit(-1.f, 1.f);
    for (long i = 0; i < BQ * M * D; i++)
        q[i] = bits16(wide(rng), bf16);
    for (long i = 0; i < BK * N * D; i++) {
        k[i] = bits16(wide(rng), bf16);
        v[i] = bits16(unit(rng), bf16);
    }
    std::memset(o, 0xff, 2 * BQ * M * D); /* NaN until written */
    std::vector<CUdeviceptr> slots(nslots, 0);
    slots[sq] = (CUdeviceptr)(uintptr_t)q;
    slots[sk] = (CUdeviceptr)(uintptr_t)k;
    slots[sv] = (CUdeviceptr)(uintptr_t)v;
    slots[so] = (CUdeviceptr)(uintptr_t)o;
    if (pt_kernel_launch((CUmodule)&kernelcpu_bundle, slots.data(), nullptr) != CUDA_SUCCESS) {
        std::printf("FAIL %s: the launch failed\n", name);
        return 1;
    }
    const double abs_tol = bf16 ? 1.5e-2 : 2e-3, rel = 1.0 / 256;
    long bad = 0;
    std::vector<double> s(N), acc(D);
    for (long b = 0; b < BQ; b++) {
        const long kb = b / G;
        for (long m = 0; m < M; m++) {
            double mx = -INFINITY, l = 0;
            const long last = causal ? m : N - 1;
            for (long n = 0; n <= last; n++) {
                double dot = 0;
                for (long d = 0; d < D; d++)
                    dot += (double)value16(q[(b * M + m) * D + d], bf16) * value16(k[(kb * N + n) * D + d], bf16);
                s[n] = dot * scale;
                mx = std::fmax(mx, s[n]);
            }
            std::fill(acc.begin(), acc.end(), 0.0);
            for (long n = 0; n <= last; n++) {
                const double p = std::exp(s[n] - mx);
                l += p;
                for (long d = 0; d < D; d++)
                    acc[d] += p * value16(v[(kb * N + n) * D + d], bf16);
            }
            for (long d = 0; d < D; d++) {
                const double want = acc[d] / l, got = value16(o[(b * M + m) * D + d], bf16);
                if (!(std::fabs(got - want) <= abs_tol + rel * std::fabs(want))) {
                    if (bad < 5)
                        std::printf("  %s: O[%ld][%ld][%ld] = %g, expected %g\n", name, b, m, d, got, want);
                    bad++;
                }
            }
        }
    }
    if (bad)
        std::printf("FAIL %s: %ld of %ld elements of O differ\n", name, bad, BQ * M * D);
    else
        std::printf("ok   %s (%ld elements)\n", name, BQ * M * D);
    return bad ? 1 : 0;
}
