/* cuda_bf16.h stand-in for kernelcpu (README.md): the 16-bit types and conversions live in
 * pt_device.cuh, which a generated reference.cu or device header gets through this name. */
#include "pt_device.cuh"
