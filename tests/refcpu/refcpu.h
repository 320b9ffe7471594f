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
#endif
