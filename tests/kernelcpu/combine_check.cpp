/* combine_check.cpp — one generated sm90a FlashDecoding combine (kernel.cu and launch.c of its
 * bundle, compiled for the CPU against include/) run through its own launcher on random
 * inputs, every element of O checked against the combine in double precision.
 *   combine_check NAME BH S G D f16|bf16 NSLOTS SLOT_Y SLOT_X SLOT_O
 * BH: the batch entries (O's batch axes flattened); the slots are the graph's tensors, in order
 * (tensors.json); the kernel's module is make_module.py's. Exit 0 when every element agrees, 1
 * otherwise. */
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
    if (argc != 11) {
        std::fprintf(stderr, "usage: combine_check NAME BH S G D f16|bf16 NSLOTS SLOT_Y SLOT_X SLOT_O\n");
        return 2;
    }
    const char *name = argv[1];
    const long BH = atol(argv[2]), S = atol(argv[3]), G = atol(argv[4]), D = atol(argv[5]);
    const bool bf16 = std::strcmp(argv[6], "bf16") == 0;
    const int nslots = atoi(argv[7]), sy = atoi(argv[8]), sx = atoi(argv[9]), so = atoi(argv[10]);
    auto alloc = [](size_t bytes) { return (uint8_t *)alloc_device_like(bytes); };
    float *y = (float *)alloc(sizeof(float) * BH * S * G * D), *x = (float *)alloc(sizeof(float) * BH * S * G);
    uint16_t *o = (uint16_t *)alloc(2 * BH * G * D);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> lse(-6.f, 6.f), val(-2.f, 2.f);
    for (long i = 0; i < BH * S * G; i++)
        x[i] = lse(rng);
    for (long i = 0; i < BH * S * G * D; i++)
        y[i] = val(rng);
    std::memset(o, 0xff, 2 * BH * G * D); /* NaN until written */
    std::vector<CUdeviceptr> slots(nslots, 0);
    slots[sy] = (CUdeviceptr)(uintptr_t)y;
    slots[sx] = (CUdeviceptr)(uintptr_t)x;
    slots[so] = (CUdeviceptr)(uintptr_t)o;
    if (pt_kernel_launch((CUmodule)&kernelcpu_bundle, slots.data(), nullptr) != CUDA_SUCCESS) {
        std::printf("FAIL %s: the launch failed\n", name);
        return 1;
    }
    const double tol = bf16 ? 1.0 / 128 : 1.0 / 512; /* the output's rounding, with room for f32 sums */
    long bad = 0;
    for (long b = 0; b < BH; b++)
        for (long g = 0; g < G; g++) {
            double m = -INFINITY, l = 0;
            for (long s = 0; s < S; s++)
                m = std::fmax(m, (double)x[(b * S + s) * G + g]);
            for (long s = 0; s < S; s++)
                l += std::exp((double)x[(b * S + s) * G + g] - m);
            for (long d = 0; d < D; d++) {
                double acc = 0;
                for (long s = 0; s < S; s++)
                    acc += std::exp((double)x[(b * S + s) * G + g] - m) * y[((b * S + s) * G + g) * D + d];
                const double want = acc / l;
                const uint16_t bits = o[(b * G + g) * D + d];
                const float got = value16(bits, bf16);
                if (!(std::fabs(got - want) <= tol * std::fmax(1.0, std::fabs(want)))) {
                    if (bad < 5)
                        std::printf("  %s: O[%ld][%ld][%ld] = %g, expected %g\n", name, b, g, d, got, want);
                    bad++;
                }
            }
        }
    if (bad)
        std::printf("FAIL %s: %ld of %ld elements of O differ\n", name, bad, BH * G * D);
    else
        std::printf("ok   %s (%ld elements)\n", name, BH * G * D);
    return bad ? 1 : 0;
}
