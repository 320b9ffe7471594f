/* bundle.c — the standalone bundle: generated kernel, its reference, a checking and timing
 * harness, a Makefile that needs only nvcc, and a README.
 *
 * Layout of DIR:
 *   kernel.cu, launch.c          the backend's kernel and host launcher (pt_kernel_launch)
 *   reference.cu, reference_host.c  the f32 reference (pt_reference_run)
 *   harness.c                    generic driver-API main + a generated table of the graph's tensors
 *   Makefile, README.md
 * The harness's fixed part is kept below as text (arrays of lines); only the table of tensors,
 * sizes, tolerances and launch numbers is generated per graph. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "backend.h"
#include "codegen.h"
#include "strbuf.h"
#include "json_util.h"
#include "embedded.h"
#include "trace_abi.h"

/* The harness sizes the trace buffer with these numbers (it stands alone, without
 * trace_abi.h): keep them in step. */
_Static_assert(sizeof(pt_trace_header) == 64, "harness trace_buffer_bytes: header is 64 bytes");
_Static_assert(sizeof(pt_trace_role_header) == 48, "harness trace_buffer_bytes: role header is 48 bytes");
_Static_assert(sizeof(pt_trace_record) == 16, "harness trace_buffer_bytes: a record is 16 bytes");

#define BUNDLE_PATH_MAX 4096

/* A C string literal (quotes included) holding s. */
static void sb_cstr(strbuf *b, const char *s)
{
    sb_printf(b, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            sb_printf(b, "\\%c", c);
        else if (c < 32 || c >= 127)
            sb_printf(b, "\\%03o", c); /* octal: never swallows the next character */
        else
            sb_printf(b, "%c", c);
    }
    sb_printf(b, "\"");
}

/* The harness's fixed part (codegen/host/: harness.c, pt_harness.h, baseline_cublaslt.c) is
 * compiled into the library and written out verbatim; only graph_table.h is generated. */
extern const pt_embedded_file pt_embedded_host[];

static const char *const host_files[] = {"harness.c", "pt_harness.h", "baseline_cublaslt.c"};

/* ---- tolerances ---- */

/* Coarseness of a float format: the check is as loose as the coarsest format the data passes
 * through (an f32 output of a bf16 matmul carries bf16 input rounding). 4-bit inputs do not
 * count: they are exact and their dequantised tensor (f16/bf16) is what is rounded. */
static int coarseness(pt_dtype d)
{
    switch (d) {
    case PT_F16: return 1;
    case PT_BF16: return 2;
    case PT_FP8_E4M3: return 3;
    default: return 0; /* f32, 4-bit */
    }
}

static void tolerance(const pt_graph *g, double *atol, double *rtol)
{
    static const double tol[4] = {1e-3, 1e-2, 3e-2, 1.25e-1}; /* f32, f16, bf16, fp8 */
    int c = 0;
    for (int t = 0; t < g->n_tensors; t++)
        if (coarseness(g->tensors[t].dtype) > c)
            c = coarseness(g->tensors[t].dtype);
    *atol = *rtol = tol[c];
}

/* ---- harness.c ---- */

static const char *dt_enum(pt_dtype d)
{
    switch (d) {
    case PT_F16: return "DT_F16";
    case PT_BF16: return "DT_BF16";
    case PT_F32: return "DT_F32";
    case PT_FP8_E4M3: return "DT_FP8_E4M3";
    case PT_INT4: return "DT_INT4";
    default: return "DT_FP4_E2M1";
    }
}

static const char *role_enum(pt_role r)
{
    return r == PT_ROLE_INPUT ? "ROLE_INPUT" : r == PT_ROLE_OUTPUT ? "ROLE_OUTPUT"
                                                                   : "ROLE_INTERMEDIATE";
}

/* The graph as cuBLASLt sees it (codegen/host/pt_harness.h): one matmul of two rank-2 f16/bf16
 * inputs into a rank-2 output, in column-major terms; anything else gets the reason there is
 * no vendor GEMM baseline. */
static void gen_baseline(strbuf *b, const pt_graph *g)
{
    const char *why = NULL;
    const pt_op *op = &g->ops[0];
    if (g->n_ops != 1 || op->kind != PT_OP_MATMUL || op->n_in != 2)
        why = "the graph is not a single matmul: no cuBLASLt baseline (bench/fa times torch's "
              "attention backends; low-bit and Mamba2 graphs have their own bench scripts)";
    const pt_tensor *ta = why ? NULL : &g->tensors[op->in[0]];
    const pt_tensor *tb = why ? NULL : &g->tensors[op->in[1]];
    const pt_tensor *tc = why ? NULL : &g->tensors[op->out];
    if (!why && (ta->rank != 2 || tb->rank != 2 || tc->rank != 2 || op->n_reduce != 1))
        why = "the matmul is batched or not 2-D: no cuBLASLt baseline in the harness";
    else if (!why && (ta->view_of >= 0 || tb->view_of >= 0 || tc->view_of >= 0))
        why = "the matmul's operands are views: no cuBLASLt baseline in the harness";
    else if (!why && (ta->dtype != tb->dtype || (ta->dtype != PT_F16 && ta->dtype != PT_BF16) ||
                      (tc->dtype != PT_F16 && tc->dtype != PT_BF16 && tc->dtype != PT_F32)))
        why = "cuBLASLt baseline: f16 or bf16 inputs (both the same) and an f16, bf16 or f32 "
              "output only";
    if (why) {
        sb_printf(b, "static const baseline_desc BASELINE = {.kind = BASELINE_NONE, .why_none = ");
        sb_cstr(b, why);
        sb_printf(b, "};\n");
        return;
    }
    /* C's outer axis o0 and inner (contiguous) axis o1: D = C viewed column-major is o1 x o0.
     * X is the operand holding o1 (D's rows), Y the one holding o0 (D's columns). */
    int o0 = tc->axes[0], o1 = tc->axes[1], kax = op->reduce_axes[0];
    const pt_tensor *x = ta, *y = tb;
    int xs = op->in[0], ys = op->in[1];
    if (x->axes[0] != o1 && x->axes[1] != o1) {
        x = tb, y = ta;
        xs = op->in[1], ys = op->in[0];
    }
    /* A row-major (p, q) tensor is column-major q x p with leading dimension extent(q). X must
     * act as rows x depth = o1 x k: stored (k, o1) is exactly that; stored (o1, k) is its
     * transpose. Y must act as depth x cols = k x o0: stored (o0, k) is that; (k, o0) transposed. */
    int x_trans = x->axes[0] == o1, y_trans = y->axes[0] == kax;
    long long ext_o0 = (long long)g->axes[o0].extent, ext_o1 = (long long)g->axes[o1].extent;
    long long ext_k = (long long)g->axes[kax].extent;
    long long ldx = (long long)g->axes[x->axes[1]].extent, ldy = (long long)g->axes[y->axes[1]].extent;
    sb_printf(b,
              "static const baseline_desc BASELINE = {.kind = BASELINE_GEMM, .why_none = NULL,\n"
              "    .rows = %lldLL, .cols = %lldLL, .depth = %lldLL, .x_slot = %d, .y_slot = %d, "
              ".d_slot = %d,\n"
              "    .x_trans = %d, .y_trans = %d, .ldx = %lldLL, .ldy = %lldLL, .ldd = %lldLL,\n"
              "    .in_dtype = %s, .out_dtype = %s};\n",
              ext_o1, ext_o0, ext_k, xs, ys, op->out, x_trans, y_trans, ldx, ldy, ext_o1,
              dt_enum(ta->dtype), dt_enum(tc->dtype));
}

/* tensors.json: the graph's tensors in slot order (what pt_kernel_launch's slots hold), for a
 * driver in another language that launches libkernel.so on its own buffers. */
static char *gen_tensors_json(const pt_stask_graph *sg, const pt_codegen_result *k)
{
    const pt_graph *g = sg->graph;
    strbuf b = {0};
    sb_printf(&b, "{\"graph\": ");
    sb_cstr(&b, g->name);
    sb_printf(&b, ", \"kernel\": ");
    sb_cstr(&b, k->kernel_name);
    sb_printf(&b, ", \"useful_flops\": %.17g, \"grid\": %lld, \"block\": %d, \"smem\": %lld,\n"
                  " \"tensors\": [\n",
              pt_stask_graph_total_flops(sg), (long long)k->grid, k->block_threads,
              (long long)k->smem_bytes);
    for (int t = 0; t < g->n_tensors; t++) {
        const pt_tensor *x = &g->tensors[t];
        sb_printf(&b, "  {\"name\": ");
        sb_cstr(&b, x->name);
        sb_printf(&b, ", \"dtype\": \"%s\", \"role\": \"%s\", \"view_of\": %d, \"shape\": [",
                  pt_dtype_name(x->dtype),
                  x->role == PT_ROLE_INPUT ? "input" : x->role == PT_ROLE_OUTPUT ? "output" : "intermediate",
                  x->view_of);
        for (int i = 0; i < x->rank; i++)
            sb_printf(&b, "%s%lld", i ? ", " : "", (long long)g->axes[x->axes[i]].extent);
        sb_printf(&b, "], \"axes\": [");
        for (int i = 0; i < x->rank; i++) {
            sb_printf(&b, "%s", i ? ", " : "");
            sb_cstr(&b, g->axes[x->axes[i]].name);
        }
        sb_printf(&b, "]}%s\n", t + 1 < g->n_tensors ? "," : "");
    }
    sb_printf(&b, "],\n \"ops\": [\n");
    for (int i = 0; i < g->n_ops; i++) {
        const pt_op *op = &g->ops[i];
        sb_printf(&b, "  {\"name\": ");
        sb_cstr(&b, op->name);
        sb_printf(&b, ", \"op\": \"%s\", \"scale\": %.17g, \"causal\": %s}%s\n",
                  pt_op_kind_name(op->kind), op->scale, op->causal ? "true" : "false",
                  i + 1 < g->n_ops ? "," : "");
    }
    sb_printf(&b, "]}\n");
    return sb_take(&b);
}

/* graph_table.h: what the fixed harness needs to know about this graph and kernel. */
static char *gen_graph_table(const pt_stask_graph *sg, const pt_codegen_result *k, const char *target)
{
    const pt_graph *g = sg->graph;
    strbuf b = {0};
    char name[PT_NAME_MAX + 8];
    sb_printf(&b,
              "/* graph_table.h — generated by PipeThreader for graph \"%s\", target %s: the "
              "graph's\n * tensors, launch numbers, tolerances and vendor baseline, read by "
              "harness.c. */\n",
              pt_codegen_comment_safe(g->name, name, sizeof name), target);

    double atol, rtol;
    tolerance(g, &atol, &rtol);
    sb_printf(&b, "static const char GRAPH_NAME[] = ");
    sb_cstr(&b, g->name);
    sb_printf(&b, ";\nstatic const char TARGET[] = ");
    sb_cstr(&b, target);
    sb_printf(&b, ";\n/* The kernel's entry point (CUPTI records are matched by it). */\n"
                  "static const char KERNEL_NAME[] = ");
    sb_cstr(&b, k->kernel_name);
    sb_printf(&b, ";\n/* Useful flops of the graph (matmuls; causal masks halve the masked loop). */\n"
                  "static const double USEFUL_FLOPS = %.17g;\n",
              pt_stask_graph_total_flops(sg));
    sb_printf(&b,
              "static const long long GRID = %lldLL;\n"
              "static const int BLOCK = %d;\n"
              "static const long long SMEM = %lldLL;\n",
              (long long)k->grid, k->block_threads, (long long)k->smem_bytes);
    sb_printf(&b, "#define N_TENSORS %d\n", g->n_tensors);
    sb_printf(&b, "/* name, dtype, role, view_of, is_scales, elements, rank, axes, extents, "
                  "atol, rtol */\n");
    sb_printf(&b, "static const tensor_info TENSORS[N_TENSORS] = {\n");
    for (int t = 0; t < g->n_tensors; t++) {
        const pt_tensor *x = &g->tensors[t];
        bool is_scales = false;
        for (int u = 0; u < g->n_tensors; u++)
            if (g->tensors[u].scales == t)
                is_scales = true;
        sb_printf(&b, "    {");
        sb_cstr(&b, x->name);
        sb_printf(&b, ", %s, %s, %d, %d, %lldLL, %d, {", dt_enum(x->dtype), role_enum(x->role),
                  x->view_of, is_scales ? 1 : 0, (long long)pt_tensor_elems(g, x), x->rank);
        for (int i = 0; i < x->rank; i++) {
            sb_printf(&b, "%s", i ? ", " : "");
            sb_cstr(&b, g->axes[x->axes[i]].name);
        }
        if (x->rank == 0)
            sb_printf(&b, "NULL");
        sb_printf(&b, "}, {");
        for (int i = 0; i < x->rank; i++)
            sb_printf(&b, "%s%lldLL", i ? ", " : "", (long long)g->axes[x->axes[i]].extent);
        if (x->rank == 0)
            sb_printf(&b, "0");
        sb_printf(&b, "}, %g, %g},\n", atol, rtol);
    }
    sb_printf(&b, "};\n\n");
    gen_baseline(&b, g);
    return sb_take(&b); /* NULL when out of memory */
}

/* ---- Makefile ---- */

static char *gen_makefile(const pt_graph *g, const char *target)
{
    strbuf b = {0};
    char name[PT_NAME_MAX + 8];
    sb_printf(&b,
              "# Makefile — builds and runs the PipeThreader bundle of graph \"%s\" (target %s).\n"
              "# Needs only nvcc (CUDA 12.3 or newer; it drives the host C compiler) and, to run, "
              "an\n"
              "# sm_90a GPU (H100/H200).  make | make run | make check | make sass | make clean\n"
              "CUDA_PATH ?= /usr/local/cuda\n"
              "NVCC ?= nvcc\n"
              "CUOBJDUMP ?= cuobjdump\n"
              "# Extra harness arguments for 'make run', e.g. RUN_ARGS=\"--iters 200 --seed 7\"\n"
              "RUN_ARGS ?=\n"
              "# make CUPTI=1: the harness also reports CUPTI kernel activity records.\n"
              "CUPTI ?= 0\n"
              "KERNEL_FLAGS = -cubin -O3 -gencode=arch=compute_90a,code=sm_90a -lineinfo\n"
              "REFERENCE_FLAGS = -cubin -O3 -arch=sm_90\n"
              "# The driver library: link against the toolkit's stub, the driver's libcuda.so.1 "
              "is\n"
              "# loaded at run time.\n"
              "HOST_FLAGS = -O2 -I$(CUDA_PATH)/include\n"
              "HOST_LIBS = -L$(CUDA_PATH)/lib64/stubs -L$(CUDA_PATH)/lib64 -lcuda -lm\n"
              "ifeq ($(CUPTI),1)\n"
              "CUPTI_DIRS = $(CUDA_PATH)/extras/CUPTI $(CUDA_PATH)/targets/x86_64-linux "
              "$(CUDA_PATH)/targets/sbsa-linux\n"
              "CUPTI_INC = $(firstword $(foreach d,$(CUPTI_DIRS),$(if $(wildcard "
              "$(d)/include/cupti.h),$(d)/include)))\n"
              "CUPTI_LIB = $(firstword $(foreach d,$(CUPTI_DIRS),$(if $(wildcard "
              "$(d)/lib64/libcupti.so),$(d)/lib64) $(if $(wildcard $(d)/lib/libcupti.so),$(d)/lib)))\n"
              "ifeq ($(CUPTI_INC)$(CUPTI_LIB),)\n"
              "$(error CUPTI=1: no cupti.h / libcupti.so under $(CUPTI_DIRS))\n"
              "endif\n"
              "HOST_FLAGS += -DPT_CUPTI -I$(CUPTI_INC)\n"
              "HOST_LIBS += -L$(CUPTI_LIB) -lcupti -Xlinker -rpath=$(CUPTI_LIB)\n"
              "endif\n"
              "# make BASELINE=1: the harness can also time cuBLASLt on the same GEMM (--baseline).\n"
              "BASELINE ?= 0\n"
              "HOST_SRCS = harness.c launch.c reference_host.c\n"
              "ifeq ($(BASELINE),1)\n"
              "HOST_SRCS += baseline_cublaslt.c\n"
              "HOST_LIBS += -lcublasLt -Xlinker -rpath=$(CUDA_PATH)/lib64\n"
              "endif\n"
              "\n"
              ".PHONY: all trace run run-trace check sass lib clean FORCE\n"
              "\n"
              "all: kernel.cubin reference.cubin harness\n"
              "\n"
              "# The instrumented build (same flags, -DPT_TRACE): ./harness --trace FILE uses it.\n"
              "trace: kernel_trace.cubin harness\n"
              "\n"
              "# ptxas's report (registers, shared memory, spills) is kept in kernel.ptxas.txt.\n"
              "kernel.cubin: kernel.cu\n"
              "\t$(NVCC) $(KERNEL_FLAGS) -Xptxas -v -o $@ kernel.cu 2> kernel.ptxas.txt || "
              "{ cat kernel.ptxas.txt; exit 1; }\n"
              "\t@cat kernel.ptxas.txt\n"
              "\n"
              "kernel_trace.cubin: kernel.cu\n"
              "\t$(NVCC) $(KERNEL_FLAGS) -DPT_TRACE -Xptxas -v -o $@ kernel.cu 2> "
              "kernel_trace.ptxas.txt || { cat kernel_trace.ptxas.txt; exit 1; }\n"
              "\n"
              "reference.cubin: reference.cu\n"
              "\t$(NVCC) $(REFERENCE_FLAGS) -o $@ reference.cu\n"
              "\n"
              "# host.flags changes when the flags do (make CUPTI=1 after make), rebuilding the "
              "harness.\n"
              "host.flags: FORCE\n"
              "\t@echo '$(HOST_FLAGS) $(HOST_LIBS)' | cmp -s - $@ || echo '$(HOST_FLAGS) "
              "$(HOST_LIBS)' > $@\n"
              "\n"
              "harness: $(HOST_SRCS) pt_harness.h graph_table.h host.flags\n"
              "\t$(NVCC) $(HOST_FLAGS) -o $@ $(HOST_SRCS) $(HOST_LIBS)\n"
              "\n"
              "# The launcher as a shared library (pt_kernel_launch), for drivers in other languages\n"
              "# (bench/fa times it from Python next to torch, in one process).\n"
              "lib: kernel.cubin libkernel.so\n"
              "libkernel.so: launch.c\n"
              "\t$(NVCC) $(HOST_FLAGS) -Xcompiler -fPIC -shared -o $@ launch.c $(HOST_LIBS)\n"
              "\n"
              "run: all\n"
              "\t./harness $(RUN_ARGS)\n"
              "\n"
              "run-trace: all trace\n"
              "\t./harness --trace trace.bin $(RUN_ARGS)\n"
              "\n"
              "check: all\n"
              "\t./harness --check-only $(RUN_ARGS)\n"
              "\n"
              "sass: kernel.cubin\n"
              "\t$(CUOBJDUMP) --dump-sass kernel.cubin > kernel.sass\n"
              "\n"
              "clean:\n"
              "\trm -f kernel.cubin kernel_trace.cubin reference.cubin harness host.flags "
              "kernel.sass kernel.ptxas.txt kernel_trace.ptxas.txt trace.bin libkernel.so\n",
              pt_codegen_comment_safe(g->name, name, sizeof name), target);
    return sb_take(&b); /* NULL when out of memory */
}

/* ---- README.md ---- */

static char *gen_readme(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                        const pt_codegen_result *k, const char *target)
{
    const pt_graph *g = sg->graph;
    strbuf b = {0};
    char name[PT_NAME_MAX + 8];
    pt_codegen_comment_safe(g->name, name, sizeof name);
    double atol, rtol;
    tolerance(g, &atol, &rtol);
    sb_printf(&b, "# %s — PipeThreader bundle (target %s)\n\n", name, target);
    sb_printf(&b, "Generated by PipeThreader from the operator graph `%s` and its sProgram for "
                  "the %s hardware model.\n\n%s\n\n", name, hw->name, k->summary);
    sb_printf(&b, "| | |\n|---|---|\n| tile |");
    for (int a = 0; a < g->n_axes; a++)
        sb_printf(&b, "%s %s=%lld", a ? "," : "", g->axes[a].name, (long long)sg->tiling.tile[a]);
    sb_printf(&b, " (%d consumer warpgroup%s) |\n| stages |", sg->tiling.warpgroups,
              sg->tiling.warpgroups == 1 ? "" : "s");
    bool any = false;
    for (int t = 0; t < g->n_tensors; t++)
        if (p->stages[t] > 0) {
            sb_printf(&b, "%s %s: %d", any ? "," : "", g->tensors[t].name, p->stages[t]);
            any = true;
        }
    if (!any)
        sb_printf(&b, " none");
    sb_printf(&b, " |\n| launch | grid %lld CTAs, %d threads per CTA, %lld bytes of dynamic "
                  "shared memory (`%s`) |\n",
              (long long)k->grid, k->block_threads, (long long)k->smem_bytes, k->kernel_name);
    sb_printf(&b, "| partition | raster %s, group %d, %s |\n",
              pt_raster_name(p->partition.raster), p->partition.group,
              p->partition.persistent ? "persistent" : "one CTA per tile");
    sb_printf(&b, "| useful work | %.4g GFLOP |\n\n", pt_stask_graph_total_flops(sg) / 1e9);
    sb_printf(&b,
              "## Files\n\n"
              "- `kernel.cu`, `launch.c`: the generated kernel and its host launcher "
              "(`pt_kernel_launch`).\n"
              "- `reference.cu`, `reference_host.c`: the naive f32 reference, one kernel per op "
              "(`pt_reference_run`).\n"
              "- `harness.c`, `pt_harness.h`, `graph_table.h`: checks the kernel against the "
              "reference, then times it (`graph_table.h` describes this graph; the rest is the "
              "same in every bundle).\n"
              "- `tensors.json`: the graph's tensors in slot order, for drivers that launch "
              "`libkernel.so` (`make lib`) on their own buffers.\n"
              "- `baseline_cublaslt.c`: with `make BASELINE=1`, `./harness --baseline` also checks "
              "and times cuBLASLt on the same GEMM, the same way.\n"
              "- `Makefile`: needs only nvcc (CUDA 12.3 or newer).\n\n"
              "## Build and run\n\n"
              "```sh\n"
              "make          # kernel.cubin (ptxas report in kernel.ptxas.txt), reference.cubin, "
              "harness\n"
              "make run      # check every output element, then time; one JSON line on stdout\n"
              "make check    # check only\n"
              "make trace    # kernel_trace.cubin: the instrumented build (-DPT_TRACE)\n"
              "make run-trace  # also time the instrumented build; its trace buffer in trace.bin\n"
              "make CUPTI=1  # the harness also reports CUPTI kernel activity records\n"
              "make BASELINE=1  # links cuBLASLt: ./harness --baseline times it next to the kernel\n"
              "make lib      # libkernel.so: pt_kernel_launch for drivers in other languages\n"
              "make sass     # kernel.sass: look for HGMMA, UTMALDG, SYNCS\n"
              "make NVCC=/path/to/nvcc CUDA_PATH=/path/to/cuda   # another toolkit\n"
              "```\n\n"
              "How it times: a CUDA graph holding `--batch` launches back to back (default 20), launch "
              "i reading input copy i mod `--rotate`, is replayed between two CUDA events; a sample "
              "is the replay's time over the batch; the median of the samples is reported. "
              "With `--baseline` the vendor library is captured and timed by the same code, and "
              "the two alternate for `--rounds` rounds (default 3). Before the first sample the "
              "subjects run alternately for `--warmup-ms` (default 200) so that the clocks "
              "settle.\n\n"
              "`./harness` options: `--seed N` (inputs; default 1234), `--warmup N` (launches, "
              "default 10), `--iters N` (timed launches per round, default 200), `--batch N`, "
              "`--rounds N`, `--warmup-ms T`, `--baseline`, `--rotate K` (input copies rotated so "
              "that inputs do not sit in L2; default enough for 2 x 60 MB, at most 16), "
              "`--atol X`, `--rtol X` (tolerances), `--check-only`, `--no-check` (for profilers), "
              "`--json-only` (nothing on stderr but errors), `--trace FILE` (after the plain "
              "kernel, time the instrumented build the same way and write the device buffer of "
              "one instrumented launch, raw bytes, to FILE; needs `make trace`), `--progress` "
              "(`PT-STEP name` lines on stderr as it goes, for a supervising process). Exit status: 0 correct, 3 wrong "
              "results (no timing then), 1 CUDA error (one line naming the call), 2 wrong "
              "usage.\n\n"
              "## Check\n\n"
              "Inputs are uniform in [-1, 1) (group scales in [0.5, 1.5), 4-bit values random "
              "nibbles), generated from the seed. The reference computes every op in f32; the "
              "kernel writes into output buffers first filled with 0xFF bytes (NaN), so an "
              "element it never writes fails. An element passes when "
              "|out - ref| <= atol + rtol * |ref| (NaN never passes), and each output tensor must "
              "also have ||out - ref|| / ||ref|| <= rtol. Default tolerance for this graph "
              "(set by the coarsest float format in it: f16 1e-2, bf16 3e-2, fp8 0.125, "
              "f32 only 1e-3): atol %g, rtol %g.\n\n",
              atol, rtol);
    sb_printf(&b,
              "## The JSON line\n\n"
              "| field | meaning |\n|---|---|\n"
              "| `graph`, `target` | what was built |\n"
              "| `correct` | every output element within tolerance and every output's relative error "
              "within rtol (null with `--no-check`) |\n"
              "| `mismatches`, `elements` | elements outside tolerance, elements checked |\n"
              "| `max_abs_err` | largest abs(out - ref) (null if any is NaN or infinite) |\n"
              "| `rel_err` | sqrt(sum (out - ref)^2 / sum ref^2) over all outputs |\n"
              "| `time_ms_median`, `time_ms_min`, `time_ms_max` | per launch: median, min and max "
              "of the samples (null with `--check-only` or when wrong) |\n"
              "| `batch`, `replays`, `rounds`, `round_medians_ms` | launches per graph, timed "
              "replays per round, rounds, the median of each round |\n"
              "| `baseline` | null without `--baseline`; else `name` (library, algorithm), "
              "`why_none` (why there is none), `correct`, `rel_err`, `time_ms_median`, "
              "`time_ms_min`, `time_ms_max`, `tflops`, `round_medians_ms`, `timing`, `speedup` "
              "(baseline time / kernel time: above 1 the kernel is faster) |\n"
              "| `tflops` | the graph's useful flops / median time |\n"
              "| `grid`, `block`, `smem` | launch shape and dynamic shared memory |\n"
              "| `seed` | input seed |\n"
              "| `rotate`, `iters`, `timing` | input copies, timed launches per round, `graph` (CUDA "
              "graph replay: launcher host work excluded) or `direct` |\n"
              "| `kernel` | the kernel's entry point |\n"
              "| `trace_time_ms_median`, `trace_time_ms_min`, `trace_time_ms_max` | the instrumented "
              "build, timed like the plain one (null without `--trace`) |\n"
              "| `trace_bytes` | size of the trace buffer written to FILE |\n"
              "| `cupti` | with `make CUPTI=1`: `median_ms`, `min_ms`, `max_ms` of the plain timed "
              "launches from CUPTI kernel records, `records`, `registers` (per thread), `smem` "
              "(static + dynamic bytes), `grid`, `block`, `start_ns_first`, `end_ns_first` (GPU "
              "timestamps of the first timed launch); null otherwise |\n"
              "| `trace_kernel_start_ns`, `trace_kernel_end_ns` | CUPTI start and end of the "
              "instrumented launch whose buffer was saved (the clock `%%globaltimer` reads); "
              "null without CUPTI |\n");
    return sb_take(&b); /* NULL when out of memory */
}

/* ---- writing ---- */

/* mkdir -p: each missing component is created; an existing non-directory is an error. */
static bool make_dirs(const char *dir, pt_error *err)
{
    char path[BUNDLE_PATH_MAX];
    size_t n = strlen(dir);
    if (n == 0)
        return pt_fail(err, "bundle: the output directory name is empty");
    if (n >= sizeof path)
        return pt_fail(err, "%.80s...: directory name too long", dir);
    memcpy(path, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != 0)
            continue;
        char keep = path[i];
        path[i] = 0;
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return pt_fail(err, "%s: cannot create directory: %s", path, strerror(errno));
        path[i] = keep;
    }
    struct stat st;
    if (stat(dir, &st) != 0)
        return pt_fail(err, "%s: cannot create directory: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return pt_fail(err, "%s: exists and is not a directory", dir);
    return true;
}

static bool write_in(const char *dir, const char *file, const char *text, pt_error *err)
{
    char path[BUNDLE_PATH_MAX];
    if (!text)
        return pt_fail(err, "%s/%s: out of memory generating it", dir, file);
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, file) >= sizeof path)
        return pt_fail(err, "%.80s...: path too long", dir);
    return pt_write_file(path, text, err);
}

const char *const pt_bundle_files[] = {"kernel.cu", "launch.c", "reference.cu", "reference_host.c",
                                       "harness.c", "pt_harness.h", "graph_table.h",
                                       "baseline_cublaslt.c", "tensors.json", "Makefile", "README.md", NULL};

const char *pt_bundle_file_list(void)
{
    static char list[256];
    if (!list[0])
        for (int i = 0; pt_bundle_files[i]; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? " " : "",
                     pt_bundle_files[i]);
    return list;
}

/* The harness's fixed files, as compiled into the library. */
static bool write_host_files(const char *dir, pt_error *err)
{
    for (size_t i = 0; i < sizeof host_files / sizeof host_files[0]; i++) {
        const char *text = pt_embedded_find(pt_embedded_host, host_files[i]);
        if (!text)
            return pt_fail(err, "codegen: %s is missing from this build of the library", host_files[i]);
        if (!write_in(dir, host_files[i], text, err))
            return false;
    }
    return true;
}

bool pt_codegen_bundle(const char *dir, const pt_sprogram *p, const pt_stask_graph *sg,
                       const pt_hw *hw, const char *target, pt_codegen_result *info,
                       pt_error *err)
{
    const pt_backend *be;
    if (!pt_backend_lookup(target, "codegen: ", &be, err))
        return false;
    if (strcmp(hw->arch, be->arch) != 0)
        return pt_fail(err, "codegen: target %s needs an %s hardware model; \"%s\" is %s",
                       be->name, be->arch, hw->name, hw->arch);
    const pt_graph *g = sg->graph;
    for (int t = 0; t < g->n_tensors; t++)
        if (g->tensors[t].role == PT_ROLE_OUTPUT && pt_dtype_is_4bit(g->tensors[t].dtype))
            return pt_fail(err, "codegen: output \"%s\" is %s; the harness checks f16, bf16, "
                                "f32 and fp8 outputs only", g->tensors[t].name,
                           pt_dtype_name(g->tensors[t].dtype));

    pt_codegen_result k, r;
    memset(&k, 0, sizeof k);
    memset(&r, 0, sizeof r);
    if (!be->generate(p, sg, hw, &k, err))
        return false;
    if (!pt_codegen_reference(g, &r, err)) {
        pt_codegen_result_free(&k);
        return false;
    }
    char *table = gen_graph_table(sg, &k, target);
    char *tensors = gen_tensors_json(sg, &k);
    char *makefile = gen_makefile(g, target);
    char *readme = gen_readme(p, sg, hw, &k, target);
    bool ok = make_dirs(dir, err) && write_in(dir, "kernel.cu", k.kernel_cu, err) &&
              write_in(dir, "launch.c", k.host_c, err) &&
              write_in(dir, "reference.cu", r.kernel_cu, err) &&
              write_in(dir, "reference_host.c", r.host_c, err) &&
              write_in(dir, "graph_table.h", table, err) && write_host_files(dir, err) &&
              write_in(dir, "tensors.json", tensors, err) &&
              write_in(dir, "Makefile", makefile, err) && write_in(dir, "README.md", readme, err);
    free(table);
    free(tensors);
    free(makefile);
    free(readme);
    pt_codegen_result_free(&k);
    pt_codegen_result_free(&r);
    if (ok && info) {
        *info = k; /* launch shape and summary; the texts were freed above */
    }
    return ok;
}
