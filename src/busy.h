/* busy.h — what a span of a lane means, and the one way busy % and prediction errors are
 * computed (docs/FORMAT-trace.md, "Spans, occupancy and busy %").
 *
 * A span is issue -> completion: from the moment the lane's warp role issued the sTask to the
 * moment its result is available to dependants. For an asynchronous unit (TMA copy, wgmma) the
 * warp role is free again right after issuing, and the unit itself is busy only for part of
 * the span: its *occupancy*, [start_ns, unit_end_ns] (predicted only: the trace cannot see it).
 * The instrumented kernel stamps the same issue -> completion (start record before the issue,
 * end record when the issuing side sees the result), so a lane's busy % means the same thing
 * predicted and measured:
 *
 *   busy % = length of the union of the lane's spans within a window / window length * 100
 *
 * with the window the EU's first issue to last completion (predicted) or one sampled CTA's
 * first record to last (measured, then averaged over CTAs). Occupancy % is the same over the
 * occupancy intervals (predicted lanes only). Every caller (CLI summary, profile output,
 * alignment, explorer) goes through pt_busy_pct(). */
#ifndef PT_BUSY_H
#define PT_BUSY_H

#include <stdint.h>

#include "sim.h"

typedef struct {
    double lo, hi;
} pt_interval;

/* Length of the union of n intervals clipped to [lo, hi] (v is sorted in place). */
double pt_interval_union_ns(pt_interval *v, int64_t n, double lo, double hi);
/* The one busy %: union of the intervals within [lo, hi] over hi - lo, in percent; NaN when
 * the window is empty or not finite. v is sorted in place. */
double pt_busy_pct(pt_interval *v, int64_t n, double lo, double hi);

/* The end of the unit's occupancy of a span (start_ns .. unit_end_ns); end_ns when unknown
 * (a measured span, or a span read from a trace written before occupancy was recorded). */
double pt_span_unit_end(const pt_span *s);

/* A predicted lane's busy % (union of issue -> completion spans over the EU window: first
 * issue to last completion) and occupancy % (union of start -> unit_end). NaN for an empty
 * timeline or a lane out of range. */
double pt_timeline_lane_busy_pct(const pt_timeline *tl, int lane);
double pt_timeline_lane_occupancy_pct(const pt_timeline *tl, int lane);
/* The union lengths behind them (ns), for the trace's lanes and the simulator's summary. */
double pt_timeline_lane_busy_ns(const pt_timeline *tl, int lane);
double pt_timeline_lane_occupied_ns(const pt_timeline *tl, int lane);

/* Both unions for every lane in one pass (the simulator's summary): busy[L], occupied[L] for
 * L < PT_MAX_LANES (0 for lanes without spans). False when out of memory. */
bool pt_timeline_lane_unions(const pt_timeline *tl, double *busy, double *occupied);

/* The one prediction error, in percent: (predicted - measured) / measured * 100 — negative
 * when the model predicts too little. NaN when measured is not > 0 or either is not finite.
 * Used for kernel times, per-sTask durations and per-lane figures in the CLI, the trace file
 * and the explorer. */
double pt_error_pct(double predicted, double measured);

#endif
