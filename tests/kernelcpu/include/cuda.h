/* cuda.h stand-in for kernelcpu (README.md): the driver API names a generated sm90a launcher
 * (launch.c) uses, served by kernelcpu_run.cpp on the CPU. A tensor map is a plain description
 * of the tensor and its box, which the emulated TMA (include/pt_device.cuh) walks. */
#ifndef KERNELCPU_CUDA_H
#define KERNELCPU_CUDA_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
typedef int CUresult;
#define CUDA_SUCCESS 0
typedef unsigned long long CUdeviceptr;
typedef uint32_t cuuint32_t;
typedef uint64_t cuuint64_t;
typedef struct kernelcpu_module *CUmodule;
typedef const struct kernelcpu_kernel *CUfunction;
typedef void *CUstream;

typedef enum {
    CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0,
    CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6,
    CU_TENSOR_MAP_DATA_TYPE_FLOAT32 = 7,
    CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9
} CUtensorMapDataType;
typedef enum { CU_TENSOR_MAP_INTERLEAVE_NONE = 0 } CUtensorMapInterleave;
typedef enum {
    CU_TENSOR_MAP_SWIZZLE_NONE = 0,
    CU_TENSOR_MAP_SWIZZLE_32B,
    CU_TENSOR_MAP_SWIZZLE_64B,
    CU_TENSOR_MAP_SWIZZLE_128B
} CUtensorMapSwizzle;
typedef enum {
    CU_TENSOR_MAP_L2_PROMOTION_NONE = 0,
    CU_TENSOR_MAP_L2_PROMOTION_L2_64B,
    CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
    CU_TENSOR_MAP_L2_PROMOTION_L2_256B
} CUtensorMapL2promotion;
typedef enum { CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0 } CUtensorMapFloatOOBfill;

typedef struct {
    void *base;
    uint32_t rank, elem_bytes;
    uint64_t dims[5], strides[5]; /* strides in bytes; strides[0] = elem_bytes */
    uint32_t box[5];
    int swizzle;
} CUtensorMap;

CUresult cuTensorMapEncodeTiled(CUtensorMap *map, CUtensorMapDataType type, cuuint32_t rank,
                                void *base, const cuuint64_t *dims, const cuuint64_t *strides,
                                const cuuint32_t *box, const cuuint32_t *elem_strides,
                                CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                CUtensorMapL2promotion promotion, CUtensorMapFloatOOBfill fill);

typedef enum { CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8 } CUfunction_attribute;
CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute attr, int value);
CUresult cuModuleGetFunction(CUfunction *f, CUmodule mod, const char *name);
CUresult cuModuleGetGlobal(CUdeviceptr *ptr, size_t *bytes, CUmodule mod, const char *name);

typedef enum { CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 5 } CUlaunchAttributeID;
typedef struct {
    CUlaunchAttributeID id;
    union {
        int programmaticStreamSerializationAllowed;
        char pad[64];
    } value;
} CUlaunchAttribute;
typedef struct {
    unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
    CUstream hStream;
    CUlaunchAttribute *attrs;
    unsigned numAttrs;
} CUlaunchConfig;
CUresult cuLaunchKernelEx(const CUlaunchConfig *cfg, CUfunction f, void **args, void **extra);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned smem, CUstream stream, void **args,
                        void **extra);

/* what the harness (harness.c, reference_host.c) calls, for its check: memory is host memory,
 * a module is chosen by its file's name (kernelcpu_driver.cpp), a stream runs each launch at
 * once; events and graphs exist only so that the timing code compiles (a harness here runs with
 * --check-only) */
#define CUDA_ERROR_NOT_SUPPORTED 801
#define CUDA_ERROR_FILE_NOT_FOUND 301
#define CUDA_ERROR_OUT_OF_MEMORY 2
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUevent;
typedef void *CUgraph;
typedef void *CUgraphExec;
#define CU_EVENT_DEFAULT 0
#define CU_STREAM_NON_BLOCKING 1
typedef enum { CU_STREAM_CAPTURE_MODE_RELAXED = 2 } CUstreamCaptureMode;
CUresult cuInit(unsigned flags);
CUresult cuDeviceGet(CUdevice *dev, int ordinal);
CUresult cuDeviceGetName(char *name, int len, CUdevice dev);
CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev);
CUresult cuDevicePrimaryCtxRelease(CUdevice dev);
CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuGetErrorName(CUresult rc, const char **name);
CUresult cuGetErrorString(CUresult rc, const char **text);
CUresult cuModuleLoad(CUmodule *mod, const char *path);
CUresult cuModuleUnload(CUmodule mod);
CUresult cuStreamCreate(CUstream *stream, unsigned flags);
CUresult cuStreamDestroy(CUstream stream);
CUresult cuStreamSynchronize(CUstream stream);
CUresult cuStreamBeginCapture(CUstream stream, CUstreamCaptureMode mode);
CUresult cuStreamEndCapture(CUstream stream, CUgraph *graph);
CUresult cuGraphInstantiate(CUgraphExec *exec, CUgraph graph, unsigned long long flags);
CUresult cuGraphLaunch(CUgraphExec exec, CUstream stream);
CUresult cuGraphDestroy(CUgraph graph);
CUresult cuGraphExecDestroy(CUgraphExec exec);
CUresult cuEventCreate(CUevent *ev, unsigned flags);
CUresult cuEventDestroy(CUevent ev);
CUresult cuEventRecord(CUevent ev, CUstream stream);
CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end);
CUresult cuMemGetInfo(size_t *free_bytes, size_t *total_bytes);
CUresult cuMemAlloc(CUdeviceptr *ptr, size_t bytes);
CUresult cuMemFree(CUdeviceptr ptr);
CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes);
CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes);
CUresult cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
CUresult cuMemsetD8(CUdeviceptr ptr, unsigned char value, size_t n);
#ifdef __cplusplus
}
#endif
#endif
