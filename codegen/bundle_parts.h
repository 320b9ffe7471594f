/* bundle_parts.h — the pieces of the bundle writer (bundle.c) that a target on another runtime
 * reuses for its own bundle (bundle_hip.c: gfx942): the generated graph table and tensor list,
 * the Makefile and README filled from a given template, and the file writing. */
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
bool pt_bundle_make_dirs(const char *dir, pt_error *err);
/* DIR/FILE := text (NULL text: out of memory). */
bool pt_bundle_write(const char *dir, const char *file, const char *text, pt_error *err);

/* The whole bundle of a HIP target (bundle_hip.c): kernel.hip, launch.c, reference.hip, the
 * device library, harness.hip with its table, Makefile for hipcc, README. */
/* reference.hip of a HIP bundle (reference_hip.c): malloc'd, or NULL with err set. */
char *pt_reference_hip(const pt_graph *g, pt_error *err);
bool pt_bundle_hip(const char *dir, const pt_sprogram *p, const pt_stask_graph *sg,
                   const pt_hw *hw, const pt_backend *be, pt_codegen_result *info, pt_error *err);

#endif
