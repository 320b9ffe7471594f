/* kernelcpu.h — the CPU runner of generated sm90a kernels (README.md): a module is a table of the
 * kernels compiled for the CPU, each with a call that unpacks the launch's argument array. */
#ifndef KERNELCPU_H
#define KERNELCPU_H
#include "include/cuda.h"

struct kernelcpu_kernel {
    const char *name;
    void (*call)(void **args); /* the kernel on this thread, its parameters from args */
};
struct kernelcpu_global {
    const char *name;
    void *at;
    size_t bytes;
};
struct kernelcpu_module {
    const kernelcpu_kernel *kernels; /* ends with a null name */
    const kernelcpu_global *globals; /* ends with a null name; may be NULL */
};
/* the bundle's module, written by make_module.py */
extern const kernelcpu_module kernelcpu_bundle;
#endif
