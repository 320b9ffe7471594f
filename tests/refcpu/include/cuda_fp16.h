/* cuda_fp16.h stand-in for refcpu (README.md): the half type is in refcpu_device.h. */
