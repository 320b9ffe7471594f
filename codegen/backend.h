/* backend.h — the code generation targets: one interface, one registry.
 *
 * A backend is one target ("sm90a"; later "gfx942"): it says whether it can generate an
 * sProgram (the scheduler's "only what the generator emits" filter asks the same question),
 * generates the kernel and its host launcher, and states what a bundle's build needs to know
 * about it. Everything that chooses a target does so by name through pt_backend_find, so a
 * new target is one new file (like sm90a/backend.c) plus one line in backend.c's table.
 * Modelled on Halide's CodeGen_GPU_Dev: callers see the interface, never a target's
 * internals. The naive reference (pt_codegen_reference) is not a target: every bundle carries
 * it to check the target's kernel. */
#ifndef PT_BACKEND_H
#define PT_BACKEND_H

#include "codegen.h"

/* The target used when none is named (CLI --target absent, the GUI). */
#define PT_TARGET_DEFAULT "sm90a"

typedef struct pt_backend {
    const char *name;          /* what --target takes: "sm90a" */
    const char *arch;          /* the hardware model's arch it generates for: "sm_90a" */
    const char *gpus;          /* for people: "H100/H200" */
    /* The bundle's build contract (codegen/host/Makefile.in): nvcc's flags that compile the
     * kernel for this target, "-gencode=arch=compute_90a,code=sm_90a" */
    const char *nvcc_arch_flags;
    /* The bundle is HIP (kernel.hip, hipcc; codegen/bundle_hip.c), not CUDA; nvcc_arch_flags
     * then holds hipcc's flags ("--offload-arch=gfx942"). */
    bool hip;
    /* Would generate() accept this (valid) sProgram? false with the reason in why. Cheap
     * enough to run on every scheduler candidate: plans, does not print. */
    bool (*accepts)(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                    pt_error *why);
    /* The kernel (kernel_cu) and its host launcher (host_c, defining pt_kernel_launch, see
     * codegen.h), or false with a one-line reason. */
    bool (*generate)(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                     pt_codegen_result *out, pt_error *err);
} pt_backend;

/* The backend called name, or NULL. */
const pt_backend *pt_backend_find(const char *name);

/* The target that generates for a hardware model's arch ("sm_90a"), or NULL where none does
 * (MI300X today). */
const pt_backend *pt_backend_for_arch(const char *arch);

/* The registered targets' names, "sm90a" or "sm90a, gfx942", for messages. */
const char *pt_backend_names(void);

/* pt_backend_find, or false with "unknown target \"X\"; valid targets: ..." (prefixed by
 * `who`: "codegen: ") in err. */
bool pt_backend_lookup(const char *name, const char *who, const pt_backend **out, pt_error *err);

#endif
