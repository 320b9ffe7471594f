/* common.c — the pieces both Hopper printers share (see common.h). */
#include <stdio.h>
#include <string.h>

#include "embedded.h"
#include "common.h"
#include "ir/combine.h"
#include "trace_abi.h"
#include "validate.h"

extern const pt_embedded_file pt_embedded_device[];

bool sm90a_check_target(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                        pt_error *err)
{
    pt_validation v;
    pt_error verr;
    if (!pt_validate(p, sg, hw, &v, &verr))
        return pt_fail(err, "codegen sm90a: the sProgram is not valid: %s", verr.msg);
    if (strcmp(hw->arch, "sm_90a") != 0)
        return pt_fail(err, "codegen sm90a: hardware model %s is %s; expected an sm_90a part "
                            "(H100, H200)", hw->name, hw->arch);
    return true;
}

const char *sm90a_cuda_type(pt_dtype d)
{
    return d == PT_BF16 ? "__nv_bfloat16" : d == PT_F16 ? "__half" : "float";
}

void sm90a_emit_device_header(strbuf *sb, bool tile)
{
    sb_printf(sb, "// The device library, written next to this file by the bundle (codegen/device/):\n"
                  "// PTX wrappers, wgmma per shape%s, and the tile raster walk the simulator uses\n"
                  "// (src/raster.h).\n"
                  "#include \"pt_device.cuh\"\n#include \"pt_wgmma.cuh\"\n%s"
                  "#define PT_RASTER_INT int\n"
                  "#include \"raster.h\"\n\n",
              tile ? ", the tile library (softmax row operations)" : "",
              tile ? "#include \"pt_tile.cuh\"\n" : "");
}

void sm90a_emit_entry_points(strbuf *sb, int64_t grid, int n_roles, unsigned cap)
{
    sb_printf(sb, "int pt_kernel_launch(CUmodule mod, const CUdeviceptr *slots, CUstream stream)\n{\n"
                  "    return launch(mod, slots, 0, stream);\n}\n\n"
                  "/* Instrumented build (kernel compiled with -DPT_TRACE): the trace buffer of\n"
                  " * codegen/trace_abi.h holds n_ctas sampled CTAs x n_roles warp roles x cap records. */\n"
                  "void pt_kernel_trace_layout(unsigned *n_ctas, unsigned *n_roles, unsigned *cap,\n"
                  "                            unsigned *stride, unsigned *grid)\n{\n"
                  "    *grid = %lldu;\n"
                  "    *n_ctas = *grid < %uu ? *grid : %uu;\n"
                  "    *stride = *grid / *n_ctas;\n"
                  "    *n_roles = %du;\n"
                  "    *cap = %uu;\n}\n\n"
                  "int pt_kernel_launch_traced(CUmodule mod, const CUdeviceptr *slots, CUdeviceptr trace,\n"
                  "                            CUstream stream)\n{\n"
                  "    return launch(mod, slots, trace, stream);\n}\n",
              (long long)grid, PT_TRACE_MAX_CTAS, PT_TRACE_MAX_CTAS, n_roles, cap);
}

sm90a_pdl sm90a_pdl_role(const pt_kprog *kp)
{
    if (pt_kcombine_matches(kp->g))
        return SM90A_PDL_DEPENDENT;
    return kp->g->split_combine[0] ? SM90A_PDL_PRIMARY : SM90A_PDL_NONE;
}

void sm90a_emit_launch_tail(strbuf *sb, const char *args, const char *after, int64_t smem,
                            int64_t grid, int threads, bool dependent)
{
    sb_printf(sb, "    if (r == CUDA_SUCCESS)\n"
                  "        r = cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, %lld);\n"
                  "    if (r == CUDA_SUCCESS) {\n"
                  "        void *args[] = {%s, &trace};\n",
              (long long)smem, args);
    if (dependent)  /* the kernel waits (griddepcontrol.wait) before it touches global memory */
        sb_printf(sb, "        /* launched as the dependent of the kernel before it on the stream: its launch and\n"
                      "         * prologue overlap that kernel's tail */\n"
                      "        CUlaunchAttribute pdl = {0};\n"
                      "        pdl.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;\n"
                      "        pdl.value.programmaticStreamSerializationAllowed = 1;\n"
                      "        CUlaunchConfig cfg = {0};\n"
                      "        cfg.gridDimX = %lld;\n"
                      "        cfg.gridDimY = cfg.gridDimZ = 1;\n"
                      "        cfg.blockDimX = %d;\n"
                      "        cfg.blockDimY = cfg.blockDimZ = 1;\n"
                      "        cfg.sharedMemBytes = %lld;\n"
                      "        cfg.hStream = stream;\n"
                      "        cfg.attrs = &pdl;\n"
                      "        cfg.numAttrs = 1;\n"
                      "        r = cuLaunchKernelEx(&cfg, f, args, NULL);\n",
                  (long long)grid, threads, (long long)smem);
    else
        sb_printf(sb, "        r = cuLaunchKernel(f, %lld, 1, 1, %d, 1, 1, %lld, stream, args, NULL);\n",
                  (long long)grid, threads, (long long)smem);
    sb_printf(sb, "    }\n"
                  "%s"
                  "    return (int)r;\n}\n\n",
              after);
}

bool sm90a_finish_result(pt_codegen_result *out, strbuf *kernel, strbuf *host, const char *name,
                         int64_t grid, int threads, int64_t smem, pt_error *err)
{
    memset(out, 0, sizeof *out);
    out->kernel_cu = sb_take(kernel);
    out->host_c = sb_take(host);
    if (!out->kernel_cu || !out->host_c) {
        pt_codegen_result_free(out);
        return pt_fail(err, "codegen sm90a: out of memory");
    }
    snprintf(out->kernel_name, sizeof out->kernel_name, "%s", name);
    out->grid = grid;
    out->block_threads = threads;
    out->smem_bytes = smem;
    return true;
}

bool sm90a_one_resident_copy(const pt_kprog *kp, const char *workload, pt_error *err)
{
    for (int b = 0; b < kp->n_bufs; b++)
        if (kp->bufs[b].kind == PT_KBUF_RESIDENT && kp->bufs[b].stages > 1)
            return pt_fail(err, "codegen sm90a: stages of %s = %d; %s kernels keep one copy of a "
                                "resident tile (two copies, the next tile's loaded during this "
                                "one, are generated for attention's Q)",
                           kp->g->tensors[kp->bufs[b].tensor].name, kp->bufs[b].stages, workload);
    return true;
}
