/* check_util.h — what the checkers (*_check.cpp) share: 16-bit values to and from float, and
 * buffers aligned as cudaMalloc's are (TMA needs 16 bytes). */
#ifndef KERNELCPU_CHECK_UTIL_H
#define KERNELCPU_CHECK_UTIL_H
#include <cstdlib>
#include <cstring>

#include "include/pt_device.cuh"

inline float value16(uint16_t bits, bool bf16)
{
    if (bf16) {
        __nv_bfloat16 v;
        std::memcpy(&v, &bits, 2);
        return (float)v;
    }
    return refcpu_half_to_float(bits);
}

inline uint16_t bits16(float f, bool bf16) { return bf16 ? __nv_bfloat16(f).bits : refcpu_float_to_half(f); }

inline void *alloc_device_like(size_t bytes) { return std::aligned_alloc(256, (bytes + 255) / 256 * 256); }
#endif
