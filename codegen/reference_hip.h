/* reference_hip.h — reference.hip of a HIP bundle (reference_hip.c), the f32 reference its
 * harness checks the kernel against; written by the HIP bundle (bundle_hip.c). */
#ifndef PT_REFERENCE_HIP_H
#define PT_REFERENCE_HIP_H

#include "graph.h"
#include "pt_error.h"

/* reference.hip of a HIP bundle: malloc'd, or NULL with err set. */
char *pt_reference_hip(const pt_graph *g, pt_error *err);

#endif
