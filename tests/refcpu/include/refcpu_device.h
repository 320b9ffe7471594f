/* refcpu_device.h — force-included (-include) when a generated reference.cu is compiled as
 * C++ for the CPU (README.md): CUDA's kernel qualifiers, thread indices, __syncthreads and the
 * 16-bit float types, so that the reference kernels run unchanged, a block's threads as CPU
 * threads that meet at a barrier. */
#ifndef REFCPU_DEVICE_H
#define REFCPU_DEVICE_H
#include <cmath>
#include <math.h> /* expf, logf, ldexpf at global scope, as CUDA has them */
#include <cstdint>
#include <cstring>

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
/* one instance per kernel, which the block's threads share; blocks run one after another */
#define __shared__ static

struct refcpu_dim3 {
    unsigned x, y, z;
};
extern thread_local refcpu_dim3 threadIdx, blockIdx;
extern refcpu_dim3 blockDim, gridDim;
void __syncthreads();

inline float __int_as_float(int i)
{
    float f;
    std::memcpy(&f, &i, 4);
    return f;
}

struct __half {
    uint16_t bits;
};
struct __nv_bfloat16 {
    uint16_t bits;
};
float refcpu_half_to_float(uint16_t h);
uint16_t refcpu_float_to_half(float f);
inline float __half2float(__half h) { return refcpu_half_to_float(h.bits); }
inline float __bfloat162float(__nv_bfloat16 b)
{
    uint32_t u = (uint32_t)b.bits << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
inline __half __float2half(float f) { return __half{refcpu_float_to_half(f)}; }
inline __half __float2half_rn(float f) { return __float2half(f); }
inline __nv_bfloat16 __float2bfloat16(float f)
{
    uint32_t u;
    std::memcpy(&u, &f, 4);
    u += 0x7fffu + ((u >> 16) & 1u); /* round to nearest even */
    return __nv_bfloat16{(uint16_t)(u >> 16)};
}
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __float2bfloat16(f); }
#endif
