/* staging.c — the sm90a side of staging (src/staging.h says which tensors and why): for every
 * tensor whose rows are not a multiple of 16 bytes, kernel.cu gets a 16-byte-pitched
 * `__device__` staging buffer and a copy kernel (pt::restride), and launch.c copies an input
 * into its buffer before the kernel, maps the buffer instead of the tensor, and copies an
 * output back after the kernel, all on the caller's stream. The GEMM kernel itself is the
 * aligned one: its tensor maps still have the true extents (TMA zero-fills loads past them and
 * clips stores), only their base and row stride change.
 *
 * The buffers are module globals like the split-K workspace (zeroed at module load, no
 * allocation inside a launch, so launches can be captured into CUDA graphs); as with that
 * workspace, two launches of one module must not run concurrently on different streams. Cost:
 * each staged tensor is read once and written once more per launch, plus one copy-kernel
 * launch (the simulator charges it: pt_staging_cost_of). Nothing here is printed for a kernel
 * without a staged tensor, so aligned kernels are byte-identical to before. */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "staging.h"

/* Is buffer b the first of the program's buffers over its tensor? (one staging buffer each) */
static bool first_of_tensor(const pt_kprog *kp, int b)
{
    for (int o = 0; o < b; o++)
        if (kp->bufs[o].tensor == kp->bufs[b].tensor && kp->bufs[o].staged)
            return false;
    return kp->bufs[b].staged;
}

bool sm90a_staging_any(const pt_kprog *kp)
{
    for (int b = 0; b < kp->n_bufs; b++)
        if (kp->bufs[b].staged)
            return true;
    return false;
}

static const char *uint_type(int bytes)
{
    return bytes == 1 ? "uint8_t" : bytes == 2 ? "uint16_t" : "uint32_t";
}

void sm90a_emit_staging_device(strbuf *sb, const pt_kprog *kp)
{
    if (!sm90a_staging_any(kp))
        return;
    const pt_graph *g = kp->g;
    bool size_used[5] = {false};
    sb_puts(sb, "\n// Staging (src/staging.h): tensors whose rows are not a multiple of 16 bytes are copied\n"
                "// by the launcher to or from these buffers, whose rows are padded to 16 bytes (TMA's\n"
                "// stride rule); the tensor maps above point at them. Zeroed at module load.\n");
    for (int b = 0; b < kp->n_bufs; b++) {
        if (!first_of_tensor(kp, b))
            continue;
        int t = kp->bufs[b].tensor, e = kp->bufs[b].elem_bytes;
        size_used[e] = true;
        sb_printf(sb, "__device__ __align__(1024) %s pt_stage_%d[(size_t)%lld * %lld];  "
                      "// %s: %lld rows of %lld bytes, pitch %lld\n",
                  uint_type(e), t, (long long)pt_tensor_rows(g, t),
                  (long long)(pt_staged_pitch(g, t) / e), g->tensors[t].name,
                  (long long)pt_tensor_rows(g, t), (long long)pt_tensor_row_bytes(g, t),
                  (long long)pt_staged_pitch(g, t));
    }
    for (int e = 1; e <= 4; e++)
        if (size_used[e])
            sb_printf(sb, "extern \"C\" __global__ void __launch_bounds__(256)\n"
                          "pt_restride_%d(const %s *src, long long sp, %s *dst, long long dp, long long rows, long long cols)\n"
                          "{\n    pt::restride(src, sp, dst, dp, rows, cols);\n}\n",
                      e, uint_type(e), uint_type(e));
}

void sm90a_emit_staging_helper(strbuf *sb, const pt_kprog *kp)
{
    if (!sm90a_staging_any(kp))
        return;
    sb_puts(sb, "/* Staging (src/staging.h): copy rows x cols elements between rows sp and dp elements\n"
                " * apart with kernel `fn` (pt::restride, one thread per 16 bytes of a row). */\n"
                "static CUresult restride(CUmodule mod, const char *fn, CUdeviceptr src, long long sp,\n"
                "                         CUdeviceptr dst, long long dp, long long rows, long long cols,\n"
                "                         int elem_bytes, CUstream stream)\n{\n"
                "    CUfunction f;\n"
                "    CUresult r = cuModuleGetFunction(&f, mod, fn);\n"
                "    long long chunks = rows * ((cols * elem_bytes + 15) / 16), blocks = (chunks + 255) / 256;\n"
                "    if (blocks > 4096)  /* grid-stride beyond: a few waves of the chip */\n"
                "        blocks = 4096;\n"
                "    if (r == CUDA_SUCCESS) {\n"
                "        void *args[] = {&src, &sp, &dst, &dp, &rows, &cols};\n"
                "        r = cuLaunchKernel(f, (unsigned)blocks, 1, 1, 256, 1, 1, 0, stream, args, NULL);\n"
                "    }\n"
                "    return r;\n}\n\n");
}

/* One copy between tensor t's own rows and its staging buffer: in (before the kernel) or out. */
static void emit_copy(strbuf *sb, const pt_kprog *kp, int b, bool in)
{
    const pt_graph *g = kp->g;
    int t = kp->bufs[b].tensor, e = kp->bufs[b].elem_bytes;
    long long cols = (long long)(pt_tensor_row_bytes(g, t) / e);
    long long pitch = (long long)(pt_staged_pitch(g, t) / e), rows = (long long)pt_tensor_rows(g, t);
    char own[32], st[32];
    snprintf(own, sizeof own, "slots[%d]", t);
    snprintf(st, sizeof st, "st_%d", t);
    sb_printf(sb, "    if (r == CUDA_SUCCESS)  /* %s %s its staging buffer */\n"
                  "        r = restride(mod, \"pt_restride_%d\", %s, %lldLL, %s, %lldLL, %lldLL, %lldLL, %d, stream);\n",
              g->tensors[t].name, in ? "into" : "back from", e, in ? own : st, in ? cols : pitch,
              in ? st : own, in ? pitch : cols, rows, cols, e);
}

void sm90a_emit_staging_in(strbuf *sb, const pt_kprog *kp)
{
    for (int b = 0; b < kp->n_bufs; b++) {
        if (!first_of_tensor(kp, b))
            continue;
        int t = kp->bufs[b].tensor;
        sb_printf(sb, "    CUdeviceptr st_%d = 0;\n"
                      "    if (r == CUDA_SUCCESS)\n"
                      "        r = cuModuleGetGlobal(&st_%d, NULL, mod, \"pt_stage_%d\");\n",
                  t, t, t);
        if (kp->bufs[b].kind != PT_KBUF_STAGING)
            emit_copy(sb, kp, b, true);
    }
}

void sm90a_emit_staging_out(strbuf *sb, const pt_kprog *kp)
{
    for (int b = 0; b < kp->n_bufs; b++)
        if (first_of_tensor(kp, b) && kp->bufs[b].kind == PT_KBUF_STAGING)
            emit_copy(sb, kp, b, false);
}
