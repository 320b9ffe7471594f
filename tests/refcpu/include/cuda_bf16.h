/* cuda_bf16.h stand-in for refcpu (README.md): the bfloat16 type is in refcpu_device.h. */
