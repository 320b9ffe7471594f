/* kernelcpu_driver.cpp — the rest of the driver API a bundle's own harness (harness.c with
 * --check-only) calls, for running it on the CPU (README.md): device memory is host memory, a
 * stream runs each launch when it is made, and cuModuleLoad picks the kernel's or the
 * reference's module (kernelcpu_bundle, kernelcpu_reference) by the file's name. Events and
 * graphs are refused (CUDA_ERROR_NOT_SUPPORTED): nothing here is timed. */
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "kernelcpu.h"

extern const kernelcpu_module kernelcpu_reference; /* reference.cu's, written by make_module.py */

extern "C" {
CUresult cuInit(unsigned) { return CUDA_SUCCESS; }
CUresult cuDeviceGet(CUdevice *dev, int) { return *dev = 0, CUDA_SUCCESS; }
CUresult cuDeviceGetName(char *name, int len, CUdevice)
{
    std::snprintf(name, (size_t)len, "kernelcpu (the CPU)");
    return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice) { return *ctx = nullptr, CUDA_SUCCESS; }
CUresult cuDevicePrimaryCtxRelease(CUdevice) { return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }
CUresult cuGetErrorName(CUresult rc, const char **name)
{
    *name = rc == CUDA_ERROR_NOT_SUPPORTED ? "CUDA_ERROR_NOT_SUPPORTED"
            : rc == CUDA_ERROR_FILE_NOT_FOUND ? "CUDA_ERROR_FILE_NOT_FOUND"
            : rc == CUDA_ERROR_OUT_OF_MEMORY  ? "CUDA_ERROR_OUT_OF_MEMORY"
                                              : "kernelcpu error";
    return CUDA_SUCCESS;
}
CUresult cuGetErrorString(CUresult rc, const char **text) { return cuGetErrorName(rc, text); }

CUresult cuModuleLoad(CUmodule *mod, const char *path)
{
    const char *base = std::strrchr(path, '/');
    base = base ? base + 1 : path;
    if (std::strcmp(base, "kernel.cubin") == 0)
        *mod = const_cast<kernelcpu_module *>(&kernelcpu_bundle);
    else if (std::strcmp(base, "reference.cubin") == 0)
        *mod = const_cast<kernelcpu_module *>(&kernelcpu_reference);
    else
        return CUDA_ERROR_FILE_NOT_FOUND;
    return CUDA_SUCCESS;
}
CUresult cuModuleUnload(CUmodule) { return CUDA_SUCCESS; }

CUresult cuStreamCreate(CUstream *stream, unsigned) { return *stream = nullptr, CUDA_SUCCESS; }
CUresult cuStreamDestroy(CUstream) { return CUDA_SUCCESS; }
CUresult cuStreamSynchronize(CUstream) { return CUDA_SUCCESS; }
CUresult cuStreamBeginCapture(CUstream, CUstreamCaptureMode) { return CUDA_ERROR_NOT_SUPPORTED; }
CUresult cuStreamEndCapture(CUstream, CUgraph *) { return CUDA_ERROR_NOT_SUPPORTED; }
CUresult cuGraphInstantiate(CUgraphExec *, CUgraph, unsigned long long) { return CUDA_ERROR_NOT_SUPPORTED; }
CUresult cuGraphLaunch(CUgraphExec, CUstream) { return CUDA_ERROR_NOT_SUPPORTED; }
CUresult cuGraphDestroy(CUgraph) { return CUDA_SUCCESS; }
CUresult cuGraphExecDestroy(CUgraphExec) { return CUDA_SUCCESS; }
CUresult cuEventCreate(CUevent *, unsigned) { return CUDA_ERROR_NOT_SUPPORTED; }
CUresult cuEventDestroy(CUevent) { return CUDA_SUCCESS; }
CUresult cuEventRecord(CUevent, CUstream) { return CUDA_ERROR_NOT_SUPPORTED; }
CUresult cuEventElapsedTime(float *, CUevent, CUevent) { return CUDA_ERROR_NOT_SUPPORTED; }

CUresult cuMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    *free_bytes = *total_bytes = (size_t)8 << 30;
    return CUDA_SUCCESS;
}
CUresult cuMemAlloc(CUdeviceptr *ptr, size_t bytes)
{
    /* 256-byte aligned as the driver's; unwritten bytes read as 0xff (NaN for floats) */
    void *p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    std::memset(p, 0xff, bytes);
    *ptr = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}
CUresult cuMemFree(CUdeviceptr ptr)
{
    std::free((void *)(uintptr_t)ptr);
    return CUDA_SUCCESS;
}
CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes)
{
    std::memcpy((void *)(uintptr_t)dst, src, bytes);
    return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes)
{
    std::memcpy(dst, (const void *)(uintptr_t)src, bytes);
    return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t bytes)
{
    std::memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
    return CUDA_SUCCESS;
}
CUresult cuMemsetD8(CUdeviceptr ptr, unsigned char value, size_t n)
{
    std::memset((void *)(uintptr_t)ptr, value, n);
    return CUDA_SUCCESS;
}
}
