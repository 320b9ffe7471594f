/* codegen.h — code generation from an sProgram: the backends' common contract.
 *
 * A backend turns (graph, sTask-graph, sProgram, hardware) into CUDA/HIP source text plus the C
 * host code that launches it. Generated host code works on "tensor slots": slot i is graph
 * tensor i (pt_graph.tensors[i]); the harness allocates one device buffer per slot.
 *
 * Kernel side (backend-specific), host side (C, CUDA driver API) exports:
 *     int pt_kernel_launch(CUmodule mod, const CUdeviceptr *slots, CUstream stream);
 *   returns 0 or a CUresult; it encodes tensor maps (cuTensorMapEncodeTiled), sets the
 *   dynamic shared memory attribute, and launches. Only input and output slots are read.
 *
 * The reference backend exports, in its own host code:
 *     int pt_reference_run(CUmodule mod, const CUdeviceptr *slots, CUstream stream);
 *   where input slots hold the inputs in their graph dtype, and intermediate and output slots
 *   are f32 buffers of the tensor's element count (the reference computes everything in f32).
 */
#ifndef PT_CODEGEN_H
#define PT_CODEGEN_H

#include "sprogram.h"

typedef struct {
    char *kernel_cu;       /* device source (malloc'd) */
    char *host_c;          /* C source defining pt_kernel_launch (malloc'd) */
    char kernel_name[64];  /* the __global__ entry point */
    int64_t grid;          /* CTAs launched */
    int block_threads;     /* threads per CTA */
    int64_t smem_bytes;    /* dynamic shared memory per CTA */
    char summary[512];     /* one paragraph for people: what the kernel does */
} pt_codegen_result;

void pt_codegen_result_free(pt_codegen_result *r);

/* Hopper sm_90a: TMA producer warp + wgmma consumer warpgroups from the sProgram. Refuses
 * (false, one-line reason) what it cannot generate correctly. */
bool pt_codegen_sm90a(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                      pt_codegen_result *out, pt_error *err);

/* Would pt_codegen_sm90a accept this sProgram? (The sm90a backend's accepts: backend.h.) */
bool pt_codegen_sm90a_check(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                            pt_error *err);

/* The reference: one kernel per op, one thread per output element (matmul: per 64x64
 * tile), f32 accumulation.
 * kernel_cu holds the kernels, host_c defines pt_reference_run. */
bool pt_codegen_reference(const pt_graph *g, pt_codegen_result *out, pt_error *err);
/* The same for a kernel whose decayed tile is rounded as `decay` says (decay_form.h): with
 * PT_DECAY_FACTORED, that operand is rounded where the factored form rounds it, whose column
 * walk goes in blocks of the tiling's tile of the decay's columns (NULL or 0: one block). */
bool pt_codegen_reference_for(const pt_graph *g, pt_decay_form decay, const pt_tiling *tiling,
                              pt_codegen_result *out, pt_error *err);

/* `in` made safe inside a C, CUDA or Makefile comment and in Markdown of generated text,
 * written into out[cap]; returns out. Only letters, digits, space and . _ - + = , : ( ) [ ]
 * # pass; anything else (a comment terminator, '\\' line splicing, "??/" trigraphs, quotes,
 * control bytes) becomes '_'. Every name the generators put in a comment goes through it. */
const char *pt_codegen_comment_safe(const char *in, char *out, size_t cap);
/* A valid C identifier for any name: `prefix` then the name with every byte that is not a
 * letter, digit or '_' replaced by '_' ("pt_" + "gemm-f16.v2" -> "pt_gemm_f16_v2"), written
 * into out[cap]; returns out. The one way generated code derives identifiers from names. */
const char *pt_codegen_c_ident(const char *prefix, const char *name, char *out, size_t cap);

/* Standalone bundle in `dir` (created if missing): the files of pt_bundle_files (kernel,
 * reference, harness with its generated graph_table.h and optional cuBLASLt baseline,
 * Makefile needing only nvcc, README.md). Inputs are seeded random, every output element is
 * checked against the reference, timing replays CUDA graphs of batched launches over rotated
 * inputs, and the harness prints one JSON result line. `info` (may be NULL) receives the launch shape and summary of the kernel
 * (its text members are NULL). */
/* mkdir -p DIR; false (naming the directory) if a part cannot be made or DIR is not a directory. */
bool pt_bundle_make_dirs(const char *dir, pt_error *err);
/* Every file a bundle holds, NULL-terminated, kernel.cu first: what a build depends on and what
 * profiling ships to the machine that builds it. */
extern const char *const pt_bundle_files[];

/* "kernel.cu launch.c ...": the list for messages. */
const char *pt_bundle_file_list(void);
/* The files of a HIP target's bundle (gfx942: codegen/bundle_hip.c), for messages. */
extern const char pt_bundle_hip_file_list[];

/* target: a backend's name (backend.h: pt_backend_find); an unknown one is refused with the
 * valid names, a hardware model of another arch with the reason. */
bool pt_codegen_bundle(const char *dir, const pt_sprogram *p, const pt_stask_graph *sg,
                       const pt_hw *hw, const char *target, pt_codegen_result *info,
                       pt_error *err);

#endif
