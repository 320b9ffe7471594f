/* gemm_check.cpp — one generated sm90a GEMM (its bundle's kernel.cu and launch.c compiled for the
 * CPU against include/, the module by make_module.py) run through its own launcher on random
 * inputs, every element of C checked against the product in double precision.
 *   gemm_check NAME M N K mk|km kn|nk f16|bf16 NSLOTS SLOT_A SLOT_B SLOT_C
 * mk / km: A stored [m][k] or [k][m]; kn / nk: B stored [k][n] or [n][k]. Exit 0 when every
 * element agrees, 1 otherwise. */
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
    if (argc != 12) {
        std::fprintf(stderr, "usage: gemm_check NAME M N K mk|km kn|nk f16|bf16 NSLOTS SLOT_A SLOT_B SLOT_C\n");
        return 2;
    }
    const char *name = argv[1];
    const long M = atol(argv[2]), N = atol(argv[3]), K = atol(argv[4]);
    const bool a_km = std::strcmp(argv[5], "km") == 0, b_nk = std::strcmp(argv[6], "nk") == 0;
    const bool bf16 = std::strcmp(argv[7], "bf16") == 0;
    const int nslots = atoi(argv[8]), sa = atoi(argv[9]), sb = atoi(argv[10]), sc = atoi(argv[11]);
    auto alloc = [](size_t n) { return (uint16_t *)alloc_device_like(2 * n); };
    uint16_t *a = alloc(M * K), *b = alloc(K * N), *c = alloc(M * N);
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (long i = 0; i < M * K; i++)
        a[i] = bits16(u(rng), bf16);
    for (long i = 0; i < K * N; i++)
        b[i] = bits16(u(rng), bf16);
    std::memset(c, 0xff, 2 * M * N); /* NaN until written */
    std::vector<CUdeviceptr> slots(nslots, 0);
    slots[sa] = (CUdeviceptr)(uintptr_t)a;
    slots[sb] = (CUdeviceptr)(uintptr_t)b;
    slots[sc] = (CUdeviceptr)(uintptr_t)c;
    if (pt_kernel_launch((CUmodule)&kernelcpu_bundle, slots.data(), nullptr) != CUDA_SUCCESS) {
        std::printf("FAIL %s: the launch failed\n", name);
        return 1;
    }
    /* the output's rounding (half an ulp, relative) with room for f32 sums in another order */
    const double rel = bf16 ? 1.0 / 128 : 1.0 / 512, abs_tol = 1e-4 * std::sqrt((double)K);
    long bad = 0;
    std::vector<double> arow(K);
    for (long m = 0; m < M; m++) {
        for (long k = 0; k < K; k++)
            arow[k] = value16(a[a_km ? k * M + m : m * K + k], bf16);
        for (long n = 0; n < N; n++) {
            double want = 0;
            for (long k = 0; k < K; k++)
                want += arow[k] * value16(b[b_nk ? n * K + k : k * N + n], bf16);
            const double got = value16(c[m * N + n], bf16);
            if (!(std::fabs(got - want) <= rel * std::fabs(want) + abs_tol)) {
                if (bad < 5)
                    std::printf("  %s: C[%ld][%ld] = %g, expected %g\n", name, m, n, got, want);
                bad++;
            }
        }
    }
    if (bad)
        std::printf("FAIL %s: %ld of %ld elements of C differ\n", name, bad, M * N);
    else
        std::printf("ok   %s (%ld elements)\n", name, M * N);
    return bad ? 1 : 0;
}
