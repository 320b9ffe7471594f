/* timeline_range.h — what a time range of the timeline holds, as a trace viewer's area
 * selection reports it (Perfetto, Nsight Systems): each lane's busy time within the range and,
 * per sTask, how many of its bars overlap the range, their time inside it and their mean
 * duration. Also each lane's busy share of the EU's run for the lane headers. Pure functions
 * of the drawn model (no GTK, no cairo): the window shows the text, tests check the numbers. */
#ifndef PT_TIMELINE_RANGE_H
#define PT_TIMELINE_RANGE_H

#include "timeline_render.h"

typedef struct {
    int stask;
    int64_t count;          /* bars overlapping the range */
    double in_range_ns;     /* their time inside the range */
    double mean_ns;         /* their mean (whole) duration */
} pt_tl_stask_agg;

typedef struct {
    double t0_ns, t1_ns;
    int n_lanes;
    double lane_busy_ns[PT_MAX_LANES]; /* union of the lane's bars, clipped to the range */
    int n_stasks;                      /* sTasks with a bar in the range */
    pt_tl_stask_agg *stasks;           /* most time in the range first (malloc'd) */
} pt_tl_range_stats;

/* Each lane's busy time (union of its predicted bars) within [t0, t1]: busy[n_lanes]. */
void pt_tl_lane_busy(const pt_tl_model *m, double t0, double t1, double *busy);
/* Each lane's busy share (0..1) of the EU's run, first bar start to last bar end: what a lane
 * header's "87%" says. */
void pt_tl_lane_busy_share(const pt_tl_model *m, double *share);
/* Aggregates of [t0, t1] (t0 < t1); false when out of memory. Free with ..._clear. */
bool pt_tl_range_stats_compute(const pt_tl_model *m, double t0, double t1,
                               pt_tl_range_stats *out);
void pt_tl_range_stats_clear(pt_tl_range_stats *rs);
/* Plain text for the sidebar: duration, per-lane busy, then at most max_stasks sTasks (count,
 * time in range, mean). malloc'd. */
char *pt_tl_range_stats_format(const pt_tl_model *m, const pt_tl_range_stats *rs,
                               int max_stasks);

#endif
