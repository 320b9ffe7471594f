/* kernelcpu.h — the CPU runner of generated sm90a kernels (README.md): a module is a table of the
 * kernels compiled for the CPU, each with a call that unpacks the launch's argument array. */
#ifndef KERNELCPU_H
#define KERNELCPU_H
#include "include/cuda.h"

struct kernelcpu_kernel {
    const char *name;
    void (*call)(void **args); /* the kernel on this thread, its parameters from args */
};
struct kernelcpu_module {
    const kernelcpu_kernel *kernels; /* ends with a null name */
};
#endif
