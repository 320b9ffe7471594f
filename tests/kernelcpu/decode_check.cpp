/* decode_check.cpp — one generated sm90a FlashDecoding partial (split-KV attention: each piece of
 * a sequence's keys its own CTAs, writing the piece's normalised output and log-sum-exp) run on
 * the CPU through its own launcher on random inputs, every element of Opart and LSE checked
 * against the piece's attention in double precision.
 *   decode_check NAME BH G S SPLITS D SCALE f16|bf16 NSLOTS SLOT_Q SLOT_K SLOT_V SLOT_OPART SLOT_LSE
 * K and V are [BH, S, D] whatever the pieces; piece p holds keys p N .. (p + 1) N - 1, N =
 * ceil(S / SPLITS), the last piece shorter where SPLITS does not divide S. LSE = max + ln(sum).
 * Exit 0 when every element agrees, 1 otherwise. */
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
        std::fprintf(stderr, "usage: decode_check NAME BH G S SPLITS D SCALE f16|bf16 NSLOTS SLOT_Q SLOT_K "
                             "SLOT_V SLOT_OPART SLOT_LSE\n");
        return 2;
    }
    const char *name = argv[1];
    const long BH = atol(argv[2]), G = atol(argv[3]), S = atol(argv[4]), P = atol(argv[5]), D = atol(argv[6]);
    const long N = (S + P - 1) / P;
    const double scale = atof(argv[7]);
    const bool bf16 = std::strcmp(argv[8], "bf16") == 0;
    const int nslots = atoi(argv[9]), sq = atoi(argv[10]), sk = atoi(argv[11]), sv = atoi(argv[12]),
              so = atoi(argv[13]), sl = atoi(argv[14]);
    auto alloc = [](size_t bytes) { return (uint8_t *)alloc_device_like(bytes); };
    uint16_t *q = (uint16_t *)alloc(2 * BH * G * D), *k = (uint16_t *)alloc(2 * BH * S * D),
             *v = (uint16_t *)alloc(2 * BH * S * D);
    float *opart = (float *)alloc(4 * BH * P * G * D), *lse = (float *)alloc(4 * BH * P * G);
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> wide(-2.f, 2.f), unit(-1.f, 1.f);
    for (long i = 0; i < BH * G * D; i++)
        q[i] = bits16(wide(rng), bf16);
    for (long i = 0; i < BH * S * D; i++) {
        k[i] = bits16(wide(rng), bf16);
        v[i] = bits16(unit(rng), bf16);
    }
    std::memset(opart, 0xff, 4 * BH * P * G * D); /* NaN until written */
    std::memset(lse, 0xff, 4 * BH * P * G);
    std::vector<CUdeviceptr> slots(nslots, 0);
    slots[sq] = (CUdeviceptr)(uintptr_t)q;
    slots[sk] = (CUdeviceptr)(uintptr_t)k;
    slots[sv] = (CUdeviceptr)(uintptr_t)v;
    slots[so] = (CUdeviceptr)(uintptr_t)opart;
    slots[sl] = (CUdeviceptr)(uintptr_t)lse;
    if (pt_kernel_launch((CUmodule)&kernelcpu_bundle, slots.data(), nullptr) != CUDA_SUCCESS) {
        std::printf("FAIL %s: the launch failed\n", name);
        return 1;
    }
    /* P is rounded to 16 bits before P V */
    const double abs_tol = bf16 ? 1.5e-2 : 2e-3, rel = 1.0 / 256;
    long bad = 0;
    auto check = [&](double got, double want, double tol, const char *what, long at) {
        if (!(std::fabs(got - want) <= tol)) {
            if (bad < 5)
                std::printf("  %s: %s[%ld] = %g, expected %g\n", name, what, at, got, want);
            bad++;
        }
    };
    std::vector<double> s(N), acc(D);
    for (long bh = 0; bh < BH; bh++)
        for (long p = 0; p < P; p++)
            for (long g = 0; g < G; g++) {
                const long n0 = p * N, n1 = n0 + N < S ? n0 + N : S;
                double m = -INFINITY, sum = 0;
                for (long n = n0; n < n1; n++) {
                    double dot = 0;
                    for (long d = 0; d < D; d++)
                        dot += (double)value16(q[(bh * G + g) * D + d], bf16) * value16(k[(bh * S + n) * D + d], bf16);
                    s[n - n0] = dot * scale;
                    m = std::fmax(m, s[n - n0]);
                }
                std::fill(acc.begin(), acc.end(), 0.0);
                for (long n = n0; n < n1; n++) {
                    const double e = std::exp(s[n - n0] - m);
                    sum += e;
                    for (long d = 0; d < D; d++)
                        acc[d] += e * value16(v[(bh * S + n) * D + d], bf16);
                }
                const long at = (bh * P + p) * G + g;
                check(lse[at], m + std::log(sum), 1e-3 * (1 + std::fabs(m)), "LSE", at);
                for (long d = 0; d < D; d++)
                    check(opart[at * D + d], acc[d] / sum, abs_tol + rel * std::fabs(acc[d] / sum), "Opart",
                          at * D + d);
            }
    if (bad)
        std::printf("FAIL %s: %ld of %ld elements of Opart and LSE differ\n", name, bad, BH * P * G * (D + 1));
    else
        std::printf("ok   %s (%ld elements)\n", name, BH * P * G * (D + 1));
    return bad ? 1 : 0;
}
