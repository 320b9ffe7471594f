/* idle.h — what a lane waits for: the reason of the idle gap before an sTask instance on a
 * predicted timeline (issue 18). An instance is issued when its lane has issued the one before
 * it, every sTask it depends on or Waits on has completed, and (a buffered load) a stage of its
 * ring is free (the rule of stage_hold.h). The binding constraint is the one met last. */
#ifndef PT_IDLE_H
#define PT_IDLE_H

#include "sim.h"

typedef enum {
    PT_WAIT_NOTHING,   /* issued as soon as its lane had issued the instance before it */
    PT_WAIT_DATA,      /* a data dependency of the sTask-graph */
    PT_WAIT_WAIT,      /* a Wait of the sProgram */
    PT_WAIT_STAGE,     /* a free stage of its ring: the release by a reader (stage_hold.h) */
} pt_wait_kind;

typedef struct {
    pt_wait_kind kind;
    int stask;         /* the instance waited on (DATA, WAIT: the dependency; STAGE: the reader
                          whose release freed the stage); -1 for NOTHING */
    int64_t iter;
    int tensor;        /* STAGE: the ring's tensor; else -1 */
    int stage, stages; /* STAGE: the slot (iteration mod stages) and the ring's depth */
    double ready_ns;   /* when that constraint was met */
    double gap_ns;     /* idle time on the lane right before this instance (0: none) */
    double fence_ns;   /* of it, the barrier wait its warp role paid after the constraint was
                          met (pt_span.fence_ns: hw barrier_wait_ns) */
} pt_wait_reason;

/* The reason for span `span` of tl (simulated from p and sg). False when out of range. */
bool pt_span_wait_reason(const pt_sprogram *p, const pt_stask_graph *sg, const pt_timeline *tl,
                         int64_t span, pt_wait_reason *out);
/* One line, e.g. "waits 120 ns for load.B[3] on tma (Wait)" or "waits 80 ns for a free stage
 * of ring A (stage 1 of 3, released by mma.C.wg0[2] on tc.wg0)"; a barrier wait is named
 * after it ("..., then 240 ns at the barrier (barrier_wait_ns)"). */
void pt_wait_reason_text(const pt_wait_reason *r, const pt_sprogram *p, const pt_stask_graph *sg,
                         char *out, size_t cap);

/* Stage occupancy of a ring (issue 18): how many stages of buffered tensor `tensor` are filled
 * over time on a predicted timeline. The stage a body load of iteration i fills is taken when
 * the load is issued and given back when its readers release it (stage_hold.h: the reader's
 * completion of iteration i, and with lag 1 also its issue of iteration i + 1; the last
 * iteration at its completion). Writes a step function — at times[k] the count becomes
 * filled[k], times ascending — into malloc'd arrays and returns its length (0: the tensor has
 * no ring or no loads; -1: out of memory). *stages gets the ring's depth. */
int64_t pt_ring_occupancy(const pt_sprogram *p, const pt_stask_graph *sg, const pt_timeline *tl,
                          int tensor, double **times, int **filled, int *stages);

#endif
