/* bundle_parts.h — the pieces of a bundle (bundle_parts.c) that the CUDA bundle writer
 * (bundle.c) and a target on another runtime (bundle_hip.c: gfx942) both use: the generated
 * graph table and tensor list, the Makefile and README filled from a given template, and the
 * file writing. */
#ifndef PT_BUNDLE_PARTS_H
#define PT_BUNDLE_PARTS_H

#include "backend.h"

/* graph_table.h and tensors.json (malloc'd, NULL when out of memory). */
char *pt_bundle_graph_table(const pt_stask_graph *sg, const pt_codegen_result *k, const char *target);
char *pt_bundle_tensors_json(const pt_stask_graph *sg, const pt_codegen_result *k);
/* The Makefile / README from template `tmpl` (called tmpl_name in errors), filled in. */
char *pt_bundle_makefile(const pt_graph *g, const pt_backend *be, const char *tmpl_name,
                         const char *tmpl, pt_error *err);
char *pt_bundle_readme(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                       const pt_codegen_result *k, const pt_backend *be, const char *tmpl_name,
                       const char *tmpl, pt_error *err);
/* DIR/FILE := text (NULL text: out of memory). */
bool pt_bundle_write(const char *dir, const char *file, const char *text, pt_error *err);

#endif
