/* timeline_render.h — drawing the per-lane timeline: a pure function of (model, viewport)
 * into any cairo context, so the same code paints the widget and a cairo image surface in a
 * test with no display. Also the geometry the widget needs for hit-testing and zooming.
 *
 * Layout: a time axis across the top, one row per lane below it, the lane names in a column
 * on the left. A bar is one sTask instance (busy.h): the solid bar is the unit's occupancy
 * (start -> unit end), a thin line under it the whole span (issue -> completion) where that
 * is longer (queued behind other work, latency). Bars are coloured by sEU kind; idle time within the EU's run (first start to
 * last end) is tinted amber on each lane. Bars narrower than a pixel are merged per lane
 * into one grey block (level of detail), and only spans in the visible time range are visited
 * (binary search on the start-sorted spans), so tens of thousands of spans stay cheap to draw.
 *
 * Optional layers: the critical path (a red strip over its bars and red links between them),
 * the selected bar's dependency arrows (solid: data dependency, dashed: a Wait, dotted violet:
 * a load waiting for a ring stage's release, dash-dot: queued behind another lane's bar on a
 * shared unit) to the bars it
 * waited on and from the bars that waited on it, and lane groups: the same lanes repeated once
 * per CTA or wave, the predicted spans shifted by each group's offset, with each group's own
 * measured spans. */
#ifndef PT_TIMELINE_RENDER_H
#define PT_TIMELINE_RENDER_H

#include <cairo.h>
#include <stdbool.h>
#include <stdint.h>

#include "busy.h"
#include "critical_path.h"
#include "sim.h"

#define PT_TL_AXIS_H 26.0
#define PT_TL_LABEL_W 96.0
#define PT_TL_LANE_H 30.0
#define PT_TL_MIN_BAR_PX 1.0
#define PT_TL_MAX_GROUPS 16
#define PT_TL_MAX_SUBROWS 8      /* asynchronous bars in flight at once drawn apart per lane */
#define PT_TL_MAX_FILL 3.0       /* lanes grow at most this much to fill the view's height */
#define PT_TL_GROUP_H 22.0       /* a lane group's header band (several CTAs) */
#define PT_TL_GROUP_FONT 14.0    /* its text size: readable, as the lane names */
#define PT_TL_OVERVIEW_H 34.0    /* the whole-run strip above the ruler (viewport.overview) */
#define PT_TL_MAX_RINGS 8        /* stage-occupancy tracks drawn under the lanes */
#define PT_TL_RING_H 22.0        /* height of one */

/* What is drawn: borrowed pointers, owned by the caller. */
typedef struct {
    int n_lanes;
    const char *lane_names[PT_MAX_LANES];
    pt_seu_kind lane_seu[PT_MAX_LANES];
    int64_t n_spans;
    const pt_span *spans;            /* sorted by start */
    int n_stasks;
    const char *const *stask_labels; /* n_stasks entries (may be NULL: no labels) */
    const pt_seu_kind *stask_seu;    /* n_stasks entries (may be NULL: colour by lane) */
    /* Measured overlay (may be empty): spans of one sampled CTA, sorted by start, drawn as
     * thinner outlined magenta bars under the predicted ones, which then take the upper part
     * of each lane. */
    int64_t n_measured;
    const pt_span *measured;
    /* Per sTask (n_stasks entries, may be NULL): measured mean duration and prediction error,
     * for tooltips. */
    const double *stask_measured_ns, *stask_error_pct;
    /* Which span waited on which (may be NULL: no arrows). Indices into spans. */
    const pt_span_deps *deps;
    /* Critical path: span indices in time order (may be empty). */
    int64_t n_critical;
    const int64_t *critical;
    /* Lane groups (0 or 1: just the lanes). Group g shows spans shifted by group_offset_ns[g]
     * and its measured spans (group 0: measured above; others: group_measured[g]). Arrows
     * are drawn in the selected bar's group, the critical path in group 0 and in every group
     * with spans of its own (group_critical). */
    int n_groups;
    double group_offset_ns[PT_TL_MAX_GROUPS];
    const char *group_labels[PT_TL_MAX_GROUPS];
    int64_t group_n_measured[PT_TL_MAX_GROUPS];
    const pt_span *group_measured[PT_TL_MAX_GROUPS];
    /* Issue 19 (compare two schedules): group g > 0 may show its own predicted spans
     * (group_spans[g], sorted by start, lanes and sTasks in this model's indices; NULL: the
     * shared spans) — another sProgram's timeline aligned on the same time axis, or the tiles
     * of EUs that run fewer of them (several CTAs). Such a group's bars take their sub-rows from
     * group_span_subrow[g] (NULL: all 0; lane_subrows covers every group) and their arrows from
     * group_deps[g] (NULL: none); pt_tl_hit_group answers with indices into group_spans[g]. */
    int64_t group_n_spans[PT_TL_MAX_GROUPS];
    const pt_span *group_spans[PT_TL_MAX_GROUPS];
    const uint8_t *group_span_subrow[PT_TL_MAX_GROUPS];
    const pt_span_deps *group_deps[PT_TL_MAX_GROUPS];
    /* and its critical path (indices into group_spans[g], time order; NULL: none drawn) */
    int64_t group_n_critical[PT_TL_MAX_GROUPS];
    const int64_t *group_critical[PT_TL_MAX_GROUPS];
    /* Idle stretches (the amber tint) of group g when it repeats one CTA's tile (several CTAs,
     * cta_pack.h): group_idle[g][t * group_idle_lanes[g] + l] is lane l's first bar to last bar
     * in tile t (lo > hi: none), group_n_idle[g] entries. NULL: each lane from its first bar to
     * its last over all the group's spans. Per tile, a lane busy a moment in each tile (GEMM's
     * epilogue CUDA-core lanes) is not tinted across the whole run. */
    int64_t group_n_idle[PT_TL_MAX_GROUPS];
    int group_idle_lanes[PT_TL_MAX_GROUPS];
    const pt_interval *group_idle[PT_TL_MAX_GROUPS];
    double max_span_ns;      /* longest span and measured span (0: found when drawn) */
    /* The sProgram cannot run as shown (the generator refuses it, it is invalid on this
     * hardware, or it is over a limit): the plot gets a red frame and a "NOT EXECUTABLE"
     * mark so that a prediction of it never passes for a valid schedule. */
    bool flagged;
    /* Sub-rows (like Perfetto's async slices): bars of one lane that overlap in time (TMA loads
     * in flight together) are stacked, each in its own sub-row of the lane. span_subrow (may be
     * NULL: all 0) gives each span's sub-row, lane_subrows[l] how many lane l has (0 = 1);
     * pt_tl_assign_subrows fills both. */
    const uint8_t *span_subrow;
    int lane_subrows[PT_MAX_LANES];
    /* Issue 18. The measured overlay was taken on another sProgram than the one shown (an
     * edit since): drawn faded and marked STALE. It comes from a partial sample (records
     * dropped or unpaired): marked PARTIAL. */
    bool measured_stale, measured_partial;
    /* Per-lane busy % (busy.h: issue -> completion), the unit's own occupancy %, and the
     * measured busy % (NaN: none; lane_measured_partial: from a partial sample), written
     * under each lane's name when have_lane_busy. */
    bool have_lane_busy;
    double lane_busy_pct[PT_MAX_LANES], lane_unit_pct[PT_MAX_LANES];
    double lane_measured_pct[PT_MAX_LANES];
    bool lane_measured_partial[PT_MAX_LANES];
    /* Stage-occupancy tracks (idle.h's pt_ring_occupancy), one per ring under the lanes: ring r
     * has ring_stages[r] stages, and from ring_t[r][k] on ring_filled[r][k] of them are filled
     * (ring_n[r] steps, times ascending, on group 0's time line). */
    int n_rings;
    const char *ring_names[PT_TL_MAX_RINGS];
    int ring_stages[PT_TL_MAX_RINGS];
    int64_t ring_n[PT_TL_MAX_RINGS];
    const double *ring_t[PT_TL_MAX_RINGS];
    const int *ring_filled[PT_TL_MAX_RINGS];
} pt_tl_model;

/* Where we look. */
typedef struct {
    double t0_ns, t1_ns;     /* visible time range (t1 > t0) */
    double width, height;    /* pixels */
    int selected_stask;      /* -1: none; its bars get a thick outline */
    int64_t hover_span;      /* -1: none */
    int hover_group;         /* the lane group hover_span is in (its index is into that group's
                                spans when it has its own) */
    bool dark;               /* dark style colours */
    int64_t selected_span;   /* the bar whose arrows are drawn (-1, or not of selected_stask:
                                none) */
    int selected_group;      /* the lane group selected_span is in (as hover_group) */
    bool show_critical;      /* draw the critical path */
    bool fill_height;        /* lanes grow (up to PT_TL_MAX_FILL) to use the whole height */
    const uint8_t *match;    /* per sTask (n_stasks entries, may be NULL): a search matched it;
                                its bars get a yellow outline */
    /* A time-range selection (drag on the ruler, Shift+drag on the lanes): a shaded band with
     * its duration in the ruler. Shown when range_t1_ns > range_t0_ns. */
    double range_t0_ns, range_t1_ns;
    /* Perfetto's overview: a strip of the whole run above the ruler, the visible range a
     * rectangle in it (PT_TL_OVERVIEW_H tall; the ruler and lanes move down by that). */
    bool overview;
    /* Lane groups folded to their header (bit g: group g). */
    uint32_t collapsed_groups;
    /* Lane headers give each lane's busy share of the EU's run (first start to last end). */
    bool busy_pct;
} pt_tl_viewport;

typedef struct {
    int64_t measured;        /* measured bars drawn */
    int64_t bars;            /* bars drawn individually */
    int64_t merged;          /* merged blocks drawn */
    int64_t labels;          /* labels drawn */
    int64_t arrows;          /* dependency arrows drawn */
    int64_t stage_arrows;    /* of them: a load's wait for a free ring stage (dotted) */
    int64_t unit_arrows;     /* of them: a wait for a shared unit another lane held (dash-dot) */
    int64_t critical;        /* critical-path bars drawn */
    int64_t matches;         /* bars outlined as search matches */
    int64_t visited;         /* spans looked at (culling keeps this near the visible count) */
    int64_t rings;           /* stage-occupancy tracks drawn */
} pt_tl_stats;

/* The colour of an sEU kind (bars, lane marks and the sTask-graph's nodes share it). */
void pt_tl_seu_rgb(pt_seu_kind k, bool dark, double *r, double *g, double *b);
/* The text colour of a label on a bar of kind k: the one of near-black and white that
 * contrasts more with the fill (at least 4.5:1 for every kind, light and dark). */
void pt_tl_label_rgb(pt_seu_kind k, bool dark, double *r, double *g, double *b);
/* WCAG 2 relative luminance of an sRGB colour (0..1 channels) and the contrast ratio of two. */
double pt_tl_luminance(double r, double g, double b);
double pt_tl_contrast(double r1, double g1, double b1, double r2, double g2, double b2);
/* Time range of all spans (0..1 when empty). */
void pt_tl_extent(const pt_tl_model *m, double *t0, double *t1);
/* Set v's time range to show everything, with a small margin. */
void pt_tl_fit(const pt_tl_model *m, pt_tl_viewport *v);
/* Pixel x <-> time (ns) in the plot area. */
double pt_tl_time_to_x(const pt_tl_viewport *v, double t);
double pt_tl_x_to_time(const pt_tl_viewport *v, double x);
/* Zoom by `factor` (>1 zooms in) keeping the time under pixel x fixed; pan by a fraction of
 * the visible range. Both clamp the range to a sane minimum width. */
void pt_tl_zoom(pt_tl_viewport *v, double factor, double x);
void pt_tl_pan(pt_tl_viewport *v, double fraction);
/* Height above the first lane: the overview strip (when shown) and the time ruler. */
double pt_tl_header_h(const pt_tl_viewport *v);
/* What lies under (x, y): the lane-name column, the overview strip, the ruler or the lanes. */
typedef enum { PT_TL_AT_LABELS, PT_TL_AT_OVERVIEW, PT_TL_AT_RULER, PT_TL_AT_LANES } pt_tl_part;
pt_tl_part pt_tl_part_at(const pt_tl_viewport *v, double x, double y);
/* The overview maps the whole run (pt_tl_extent) onto the plot's width. */
double pt_tl_overview_time_to_x(const pt_tl_model *m, const pt_tl_viewport *v, double t);
double pt_tl_overview_x_to_time(const pt_tl_model *m, const pt_tl_viewport *v, double x);
/* The lane group whose header band (several groups only) is at y, or -1. */
int pt_tl_group_header_at(const pt_tl_model *m, const pt_tl_viewport *v, double y);
/* Height the whole timeline needs (lanes, then the stage-occupancy tracks; without the
 * overview strip). */
double pt_tl_content_height(const pt_tl_model *m);
/* Give every span a sub-row of its lane so that no two bars of a sub-row overlap in time
 * (greedy over the start-sorted spans: the first sub-row free at its start); out[n_spans],
 * lane_subrows[PT_MAX_LANES] gets the count per lane. More than PT_TL_MAX_SUBROWS at once share
 * the sub-row that frees first. */
void pt_tl_assign_subrows(const pt_span *spans, int64_t n_spans, int n_lanes, uint8_t *out,
                          int *lane_subrows);
/* Vertical layout: row r (lane r % n_lanes of group r / n_lanes) from pt_tl_row_top to
 * + pt_tl_row_height; pt_tl_row_at: the row under y, or -1. The bars of a span lie within
 * pt_tl_span_y .. + h. */
double pt_tl_row_top(const pt_tl_model *m, const pt_tl_viewport *v, int row);
double pt_tl_row_height(const pt_tl_model *m, const pt_tl_viewport *v, int row);
int pt_tl_row_at(const pt_tl_model *m, const pt_tl_viewport *v, double y);
void pt_tl_span_y(const pt_tl_model *m, const pt_tl_viewport *v, int64_t span, int group,
                  double *y, double *h);
/* The predicted spans group g shows (its own or m->spans), their sub-rows (may be NULL) and
 * dependencies (may be NULL). */
const pt_span *pt_tl_group_spans(const pt_tl_model *m, int g, int64_t *n);
const uint8_t *pt_tl_group_subrows(const pt_tl_model *m, int g);
const pt_span_deps *pt_tl_group_deps(const pt_tl_model *m, int g);
/* Group g's critical path (indices into its spans; NULL, *n 0: none drawn there). */
const int64_t *pt_tl_group_critical(const pt_tl_model *m, int g, int64_t *n);
/* Number of groups drawn (at least 1) and rows (lanes × groups). */
int pt_tl_groups(const pt_tl_model *m);
int pt_tl_rows(const pt_tl_model *m);
/* The span under (x, y), or -1; *group (may be NULL) gets the lane group it was hit in.
 * pt_tl_hit answers only with indices into m->spans (-1 over a group with its own spans);
 * pt_tl_hit_group's index is into the hit group's spans (pt_tl_group_spans). */
int64_t pt_tl_hit(const pt_tl_model *m, const pt_tl_viewport *v, double x, double y);
int64_t pt_tl_hit_group(const pt_tl_model *m, const pt_tl_viewport *v, double x, double y,
                        int *group);
/* First index of spans[0..n) (sorted by start) whose start is >= t. */
int64_t pt_tl_lower_bound(const pt_span *spans, int64_t n, double t);
/* Each lane's first bar start and last bar end (first > last: the lane has no bar): the amber
 * idle tint covers only that stretch of a lane. first[], last[]: PT_MAX_LANES entries. */
void pt_tl_lane_span_extent(const pt_tl_model *m, double *first, double *last);
/* Whether lane `lane` of group g is waiting at time t (on the group's own axis, offset not
 * added): within a stretch the amber tint covers (group_idle, or its first to last bar). The
 * tint and the idle-gap tooltip both ask this. */
bool pt_tl_lane_waiting(const pt_tl_model *m, int g, int lane, double t);
/* Colours of the critical path and of idle gaps (for tests and the legend). */
void pt_tl_critical_rgb(bool dark, double *r, double *g, double *b);

/* The outline colour of bars a search matched. */
void pt_tl_match_rgb(bool dark, double *r, double *g, double *b);
/* The colour of the dotted arrows of a load's wait for a free ring stage. */
void pt_tl_stage_rgb(bool dark, double *r, double *g, double *b);
/* The colour of a time-range selection (ruler bar, band edges, overview). */
void pt_tl_range_rgb(bool dark, double *r, double *g, double *b);
/* The colour of the flagged frame. */
void pt_tl_flag_rgb(bool dark, double *r, double *g, double *b);

/* Draw everything into cr (the area 0,0 - width,height). stats may be NULL. */
void pt_tl_render(cairo_t *cr, const pt_tl_model *m, const pt_tl_viewport *v, pt_tl_stats *stats);

#endif
