/* critical_path.h — which simulated span waited on which, and the critical path through them.
 * Plain C over the core library (no GTK, no cairo), so it is unit-tested without a display.
 *
 * The span graph links each span (one sTask instance of the representative EU) to the spans it
 * waited on: its sTask-graph data dependencies and the sProgram's Waits, mapped across loop
 * iterations exactly as the simulator does (pt_instance_deps), and a buffered load's wait for
 * a free stage of its ring (as the simulator times it, stage_hold.h), and the wait for a
 * shared physical unit that another lane held (two warpgroups' wgmma on the one tensor-core
 * stream, copies on the one TMA, CUDA-core pieces on the SM's one CUDA-core server: sim.c
 * queues each FIFO). The timeline draws the selected bar's arrows from it.
 *
 * The critical path is the chain of spans that determined the kernel's length: start at the
 * span that ends last; step to whichever of its predecessors released it last — a span it
 * waited on (released at that span's end), the span that held its shared unit (released at the
 * end of its occupancy, pt_span_unit_end: without this step a wgmma queued ~300 ns behind the
 * other warpgroup's stepped back to the load it had waited on long before, and the path
 * zig-zagged with gaps nothing explained) or the span before it on its own lane (released at
 * its end, or at its start when the lane issued the next one while it was still running, as an
 * asynchronous unit does); stop at a span with no predecessor. Ties go to the data or Wait
 * dependency (the reason in the schedule), then to the lower span index. */
#ifndef PT_CRITICAL_PATH_H
#define PT_CRITICAL_PATH_H

#include <stdbool.h>
#include <stdint.h>

#include "sim.h"

typedef struct {
    int64_t n_spans;
    int64_t *off;           /* n_spans + 1: span i waited on idx[off[i] .. off[i+1]) */
    int64_t *idx;           /* span indices */
    unsigned char *is_wait; /* per edge: a pt_dep_kind (non-zero: not a data dependency) */
} pt_span_deps;

/* Why a span waited on another. A stage edge goes from a ring's reader to the load that
 * refills the stage it held: load (L, i) waits for each reader R of L's tile to release stage
 * i mod S, at (R, i - S + lag) (src/stage_hold.h) — the wait that is in no sProgram list but
 * in every pipelined kernel (the producer's wait on empty[stage]). */
/* A unit edge goes from a span that was issued but queued (start > issue) to the span on the
 * same physical unit whose occupancy ended at that start: "unit busy". */
typedef enum { PT_DEP_DATA = 0, PT_DEP_WAIT = 1, PT_DEP_STAGE = 2, PT_DEP_UNIT = 3 } pt_dep_kind;

/* When edge e (an index into d->idx) released the span that waited: a unit edge when the
 * holder's occupancy ended, any other at the end of the span waited on. */
double pt_dep_release_ns(const pt_span *spans, const pt_span_deps *d, int64_t e);

/* Build the span graph of a simulated timeline (tl->spans of p on sg). False when out of
 * memory (d is then empty). Free with pt_span_deps_free. */
bool pt_span_deps_build(pt_span_deps *d, const pt_timeline *tl, const pt_sprogram *p,
                        const pt_stask_graph *sg);
void pt_span_deps_free(pt_span_deps *d);

/* The critical path of spans[0..n) (sorted by start) under deps (may be NULL: lane order only).
 * Writes a malloc'd array of span indices in time order (first to last) to *chain and returns
 * its length; 0 with *chain NULL for no spans; -1 when out of memory. */
int64_t pt_critical_path(const pt_span *spans, int64_t n, const pt_span_deps *deps,
                         int64_t **chain);

#endif
