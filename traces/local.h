/* local.h — what this machine offers the profiling layer: the one tool lookup, the one
 * temporary directory maker and remover that every profiling and measuring caller uses.
 * (pt_runner_check_local, in runner.h, is built on these.) */
#ifndef PT_LOCAL_H
#define PT_LOCAL_H

#include <stdbool.h>
#include <stddef.h>

#include "pt_error.h"

/* The executable prog into out[cap]: $env_var when it names an executable (env_var may be
 * NULL: "NVCC" lets a user pick the compiler), else the first in PATH, else under
 * $CUDA_PATH/bin, $CUDA_HOME/bin and /usr/local/cuda/bin (the toolkit is often not in PATH).
 * False when there is none. */
bool pt_find_tool(const char *prog, const char *env_var, char *out, size_t cap);

/* A new private directory $TMPDIR/PREFIX-XXXXXX (TMPDIR unset: /tmp) into out[cap]. */
bool pt_make_temp_dir(const char *prefix, char *out, size_t cap, pt_error *err);

/* Remove dir and the files directly in it (bundles and scratch directories are flat: a
 * subdirectory is left, and so is dir then). Quiet: the caller is cleaning up. */
void pt_remove_flat_dir(const char *dir);

#endif
