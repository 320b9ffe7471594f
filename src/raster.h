/* raster.h — the launch order of a tiled kernel: which tile of a plane of S slow-axis by F
 * fast-axis tiles runs at launch position q. One definition, read by the wave model (waves.c)
 * and compiled into every generated kernel (the bundle carries a copy that kernel.cu
 * includes), so the order the simulator predicts is the order the kernel runs.
 *
 * Plain C that CUDA C++ also compiles. The integer type is the includer's (PT_RASTER_INT):
 * int64_t in the model, int in kernels, where 64-bit division would cost instructions. */
#ifndef PT_RASTER_H
#define PT_RASTER_H

#if defined(__CUDACC__) || defined(__HIP__) /* nvcc, or clang -x hip (gfx942) */
#define PT_RASTER_FN __host__ __device__ __forceinline__
#else
#define PT_RASTER_FN static inline
#endif
#ifndef PT_RASTER_INT
#include <stdint.h>
#define PT_RASTER_INT int64_t
#endif

/* raster: 0 row (fast axis fastest), 1 column (slow axis fastest), 2 grouped (bands of `group`
 * slow-axis rows, each walked column by column, for L2 reuse of the fast axis's operand).
 * q < S * F; the position of the plane itself (other axes) is the caller's. */
PT_RASTER_FN void pt_raster_walk(PT_RASTER_INT q, int raster, PT_RASTER_INT group,
                                 PT_RASTER_INT S, PT_RASTER_INT F, PT_RASTER_INT *s,
                                 PT_RASTER_INT *f)
{
    if (raster == 0) {
        *s = q / F;
        *f = q % F;
    } else if (raster == 1) {
        *s = q % S;
        *f = q / S;
    } else {
        const PT_RASTER_INT band = group * F, first = q / band * group;
        const PT_RASTER_INT rows = S - first < group ? S - first : group;
        *s = first + (q % band) % rows;
        *f = (q % band) / rows;
    }
}

#endif
