/* refcpu.h — the CPU runner of generated reference backends (README.md): a module is a table of
 * the reference kernels compiled for the CPU, by the names reference_host.c asks for. */
#ifndef REFCPU_H
#define REFCPU_H
#include "include/refcpu_device.h"
#include "include/cuda.h"

/* Blocks a launch runs at most: the grid-stride loops cover the rest. */
#define REFCPU_MAX_BLOCKS 8

struct refcpu_kernel {
    const char *name;
    void *fn;
    int pointers; /* tensor pointers before the work item count */
};
struct refcpu_module {
    const refcpu_kernel *kernels; /* ends with a null name */
};

/* Test inputs: uniform in [lo, hi) from a xorshift generator (the same sequence every run). */
inline float refcpu_uniform(float lo, float hi)
{
    static uint64_t x = 0x9e3779b97f4a7c15ull;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return lo + (hi - lo) * (float)((x >> 11) * (1.0 / 9007199254740992.0));
}
#endif
