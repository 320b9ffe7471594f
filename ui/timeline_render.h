/* timeline_render.h — drawing the per-lane timeline: a pure function of (model, viewport)
 * into any cairo context, so the same code paints the widget and a cairo image surface in a
 * test with no display. Also the geometry the widget needs for hit-testing and zooming.
 *
 * Layout: a time axis across the top, one row per lane below it, the lane names in a column
 * on the left. Bars are coloured by sEU kind; idle time shows as the lane's background.
 * Bars narrower than half a pixel are merged per lane into one grey block (level of detail),
 * so tens of thousands of spans stay cheap to draw. */
#ifndef PT_TIMELINE_RENDER_H
#define PT_TIMELINE_RENDER_H

#include <cairo.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim.h"

#define PT_TL_AXIS_H 26.0
#define PT_TL_LABEL_W 96.0
#define PT_TL_LANE_H 30.0
#define PT_TL_MIN_BAR_PX 0.5

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
} pt_tl_model;

/* Where we look. */
typedef struct {
    double t0_ns, t1_ns;     /* visible time range (t1 > t0) */
    double width, height;    /* pixels */
    int selected_stask;      /* -1: none; its bars get a thick outline */
    int64_t hover_span;      /* -1: none */
    bool dark;               /* dark style colours */
} pt_tl_viewport;

typedef struct {
    int64_t measured;        /* measured bars drawn */
    int64_t bars;            /* bars drawn individually */
    int64_t merged;          /* merged blocks drawn */
    int64_t labels;          /* labels drawn */
} pt_tl_stats;

/* The colour of an sEU kind (bars, lane marks and the sTask-graph's nodes share it). */
void pt_tl_seu_rgb(pt_seu_kind k, bool dark, double *r, double *g, double *b);
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
/* Height the whole timeline needs. */
double pt_tl_content_height(const pt_tl_model *m);
/* The span under (x, y), or -1. */
int64_t pt_tl_hit(const pt_tl_model *m, const pt_tl_viewport *v, double x, double y);

/* Draw everything into cr (the area 0,0 - width,height). stats may be NULL. */
void pt_tl_render(cairo_t *cr, const pt_tl_model *m, const pt_tl_viewport *v, pt_tl_stats *stats);

#endif
