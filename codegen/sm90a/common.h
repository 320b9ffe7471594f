/* common.h — what the two Hopper printers share (single matmuls: gemm_*.c; attention:
 * attn_*.c): the check that an sProgram is valid and targets an sm_90a part, the device
 * library's #include lines, and the launcher's exported entry points. */
#ifndef PT_SM90A_COMMON_H
#define PT_SM90A_COMMON_H

#include "codegen.h"
#include "ir/kprog.h"
#include "strbuf.h"

/* The sProgram validates and hw is an sm_90a part; else false with a one-line reason. */
bool sm90a_check_target(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                        pt_error *err);

/* The CUDA type of a dtype's elements ("__half", "__nv_bfloat16", "float"). */
const char *sm90a_cuda_type(pt_dtype d);

/* The #include lines of the device library (codegen/device/: pt_device.cuh, and pt_tile.cuh
 * with `tile`), which the bundle writes next to kernel.cu. */
void sm90a_emit_device_header(strbuf *sb, bool tile);

/* A kernel's part in a chain of two of our kernels on one stream (programmatic dependent
 * launch): the first of a split graph (FlashDecoding's partial: its graph names a combine) lets
 * its dependent launch early; the combine is launched as that dependent and waits for the
 * first grid before it reads. Any other kernel takes no part. */
typedef enum { SM90A_PDL_NONE, SM90A_PDL_PRIMARY, SM90A_PDL_DEPENDENT } sm90a_pdl;
sm90a_pdl sm90a_pdl_role(const pt_kprog *kp);

/* The end of launch.c's static `launch`: the dynamic shared-memory attribute, then the launch of
 * a 1-D grid with the kernel arguments `args` (C names, e.g. "&ta, &tb") — cuLaunchKernelEx with
 * programmatic stream serialisation for a dependent (sm90a_pdl_role), else cuLaunchKernel —
 * then `after` (statements run once the kernel is queued: staging copies back, or ""). */
void sm90a_emit_launch_tail(strbuf *sb, const char *args, const char *after, int64_t smem,
                            int64_t grid, int threads, bool dependent);

/* Staging of tensors whose rows are not 16-byte multiples (staging.c, src/staging.h). Each
 * prints nothing for a program without a staged buffer. */
bool sm90a_staging_any(const pt_kprog *kp);
/* kernel.cu: the staging buffers and their copy kernels. */
void sm90a_emit_staging_device(strbuf *sb, const pt_kprog *kp);
/* launch.c: the static copy helper `restride`, before `launch`. */
void sm90a_emit_staging_helper(strbuf *sb, const pt_kprog *kp);
/* launch.c, inside `launch`: each staging buffer's address, and the copies of inputs into them. */
void sm90a_emit_staging_in(strbuf *sb, const pt_kprog *kp);
/* launch.c, after the kernel's launch: the copies of outputs back from their buffers. */
void sm90a_emit_staging_out(strbuf *sb, const pt_kprog *kp);

/* Hands the kernel and host text to out with the launch shape; false (out emptied) when a buffer
 * ran out of memory. */
bool sm90a_finish_result(pt_codegen_result *out, strbuf *kernel, strbuf *host, const char *name,
                         int64_t grid, int threads, int64_t smem, pt_error *err);

/* pt_kernel_launch, pt_kernel_trace_layout and pt_kernel_launch_traced of launch.c, over the
 * file's own static `launch(mod, slots, trace, stream)`: grid CTAs, 1 + consumer warpgroups
 * trace roles. */
void sm90a_emit_entry_points(strbuf *sb, int64_t grid, int n_roles, unsigned cap);

/* A second copy of a resident tile (stages 2: the next tile's loaded during this one) is
 * generated for attention's Q only; the other workloads refuse it, naming the tensor. */
bool sm90a_one_resident_copy(const pt_kprog *kp, const char *workload, pt_error *err);

#endif
