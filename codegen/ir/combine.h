/* combine.h — FlashDecoding's combine graph as every target's combine printer reads it:
 * O = sum_s exp(X_s - max_s X) Y_s / sum_s exp(X_s - max_s X), X the splits' log-sum-exps
 * [batch..., s, g] and Y their partial outputs [batch..., s, g, d], both f32 (the ops
 * reduce_max, sub, exp, reduce_sum, mul, reduce_sum, div over the split axis s). The pattern
 * and the shapes every target needs alike are checked here once (as attention.h does for
 * attention); what a target's instructions need beyond that (TMA strides, VGPRs) its planner
 * adds. The reference printers (codegen/reference_hip.c) read the graph through it too. */
#ifndef PT_KCOMBINE_H
#define PT_KCOMBINE_H

#include "graph.h"
#include "kprog.h"
#include "pt_error.h"

typedef struct {
    int X, Y, O;                 /* log-sum-exps, partial outputs, output */
    int ax_s, ax_g, ax_d;        /* the split axis, the rows (query heads), the head dim */
    int64_t B, S, G, D;          /* batch entries (O's batch axes flattened), splits, rows, d */
    pt_dtype out_dt;
} pt_kcombine;

/* Is g the combine's seven ops over one split axis? */
bool pt_kcombine_matches(const pt_graph *g);

/* Reads a matching graph; false with "codegen <who>: ..." naming the tensor at fault. */
bool pt_kcombine_read(pt_kcombine *c, const pt_graph *g, const char *who, pt_error *err);

/* The kernel program's first consumer role runs the six combine ops (reduce_max .. reduce_sum,
 * kprog op 0..5) once each, in the sProgram's order, then the one writing O (op 6, tensor O): what every
 * target's combine printer prints. `role` names that role in the message ("warpgroup 0"). */
bool pt_kcombine_check_role(const pt_kprog *kp, int O, const char *who, const char *role,
                            pt_error *err);

#endif
