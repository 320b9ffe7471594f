/* passes.h — the lowering passes lower.c runs, in order (see kprog.h for what each decides).
 * Private to codegen/ir/: targets see only kprog.h. Each pass reads what the earlier ones
 * wrote and refuses, as "codegen <who>: ...", what cannot be generated correctly. */
#ifndef PT_KPASSES_H
#define PT_KPASSES_H

#include "kprog.h"

#define KREFUSE(...) return pt_fail(err, "codegen " __VA_ARGS__)

bool pt_kpass_buffers(pt_kprog *kp, const char *who, pt_error *err);
bool pt_kpass_roles(pt_kprog *kp, const char *who, pt_error *err);
bool pt_kpass_bodies(pt_kprog *kp, const char *who, pt_error *err);
bool pt_kpass_order(pt_kprog *kp, const char *who, pt_error *err);
bool pt_kpass_xwaits(pt_kprog *kp, const char *who, pt_error *err);
bool pt_kpass_step(pt_kprog *kp, const char *who, pt_error *err);
bool pt_kpass_grid(pt_kprog *kp, const char *who, pt_error *err);

/* Does sTask b depend on a, through the graph or a Wait of the sProgram? *distance = its
 * iteration distance. */
bool pt_kprog_depends(const pt_kprog *kp, int b, int a, int *distance);

#endif
