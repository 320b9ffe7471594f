/* cuda.h stand-in for refcpu (README.md): the few driver API names a generated
 * reference_host.c uses, served by refcpu_run.cpp on the CPU. */
#ifndef REFCPU_CUDA_H
#define REFCPU_CUDA_H
#include <stddef.h> /* NULL, which the real cuda.h brings */
#ifdef __cplusplus
extern "C" {
#endif
typedef int CUresult;
#define CUDA_SUCCESS 0
typedef unsigned long long CUdeviceptr;
typedef struct refcpu_module *CUmodule;
typedef const struct refcpu_kernel *CUfunction;
typedef void *CUstream;
CUresult cuModuleGetFunction(CUfunction *f, CUmodule mod, const char *name);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned smem, CUstream stream, void **args,
                        void **extra);
#ifdef __cplusplus
}
#endif
#endif
