/* graph_render.h — the sTask-graph as a layered DAG, laid out and drawn with cairo only (no
 * GTK), so a test can render it into an image surface with no display.
 *
 * Layout: the loop body is folded (one node per sTask, not per iteration). Nodes are grouped in
 * bands by region (prologue, body, epilogue, top to bottom); within a band the layer of a node
 * is its longest path over same-iteration dependencies, so every such edge points downward.
 * Within a layer nodes are ordered by the barycentre of their predecessors (a few sweeps,
 * ties broken by the previous order: deterministic). Loop-carried edges are drawn dashed and
 * labelled "i-1".
 *
 * Unrolled on demand: with unroll = k > 1 the body band shows k iterations, one copy of every
 * body sTask per iteration stacked top to bottom, and a loop-carried edge of distance d runs
 * from iteration j-d's copy down to iteration j's (dashed, labelled "carried"). Prologue edges
 * reach every copy; edges into the epilogue leave the last copy. */
#ifndef PT_GRAPH_RENDER_H
#define PT_GRAPH_RENDER_H

#include <cairo.h>
#include <stdbool.h>

#include "stask.h"

#define PT_GR_NODE_W 168.0
#define PT_GR_NODE_H 30.0
#define PT_GR_HGAP 22.0
#define PT_GR_LAYER_H 64.0
#define PT_GR_BAND_W 92.0   /* band label column on the left */
#define PT_GR_BAND_GAP 18.0 /* extra space between bands */
#define PT_GR_MARGIN 16.0

#define PT_GR_MAX_UNROLL 8

typedef struct {
    int from, to;          /* layout node indices */
    int distance;          /* the sTask-graph edge's iteration distance */
    bool carried;          /* loop-carried: a dashed arc (folded) or a dashed edge down (unrolled) */
} pt_gr_edge;

typedef struct {
    int n;                 /* layout nodes (folded: one per sTask, node i is sTask i) */
    int *stask;            /* the sTask each node shows */
    int *iter;             /* its iteration when unrolled, else -1 */
    int unroll;            /* iterations shown (1: folded) */
    int n_edges;
    pt_gr_edge *edges;
    int *layer;            /* global layer (bands stacked) */
    int *order;            /* position within its layer */
    double *x, *y;         /* top-left of each node, in content coordinates */
    int n_layers;
    double content_w, content_h;
    double band_y0[3], band_y1[3]; /* per region; y0 >= y1 when the band is empty */
} pt_gr_layout;

typedef struct {
    double width, height;  /* pixels */
    int selected;          /* -1: none; outlined */
    int hover;             /* -1: none */
    bool dark;
    /* The user's view over the fitted graph: zoom 1 with no pan is "fitted" (the whole graph
     * centred, scaled to the widget — down, or up to PT_GR_MAX_FIT); zoom multiplies that scale
     * and pan_x/pan_y (pixels) move it. A zero zoom counts as 1. */
    double zoom, pan_x, pan_y;
} pt_gr_viewport;

#define PT_GR_MAX_FIT 1.6   /* a small graph is enlarged to fit, at most this much */
#define PT_GR_MIN_ZOOM 0.2
#define PT_GR_MAX_ZOOM 8.0

/* Zoom by factor about the widget point (x, y) (it stays put), clamped; pan by (dx, dy) px;
 * fit: zoom 1, no pan. */
void pt_gr_zoom(const pt_gr_layout *lo, pt_gr_viewport *v, double factor, double x, double y);
void pt_gr_pan(pt_gr_viewport *v, double dx, double dy);
void pt_gr_fit(pt_gr_viewport *v);

/* Lay out sg folded; false when out of memory. Free with pt_gr_layout_free. */
bool pt_gr_layout_compute(const pt_stask_graph *sg, pt_gr_layout *lo);
/* Lay out sg with `unroll` loop iterations shown (clamped to 1..PT_GR_MAX_UNROLL and to the
 * trip count; 1 or a graph without a loop body: folded). */
bool pt_gr_layout_compute_unrolled(const pt_stask_graph *sg, int unroll, pt_gr_layout *lo);
void pt_gr_layout_free(pt_gr_layout *lo);
/* Scale and offset from content to pixels: fit the content in the viewport (never enlarged
 * beyond 1:1), centred horizontally. */
void pt_gr_transform(const pt_gr_layout *lo, const pt_gr_viewport *v, double *scale,
                     double *ox, double *oy);
/* The sTask of the node under pixel (x, y), or -1; pt_gr_hit_node gives the layout node. */
int pt_gr_hit(const pt_gr_layout *lo, const pt_gr_viewport *v, double x, double y);
int pt_gr_hit_node(const pt_gr_layout *lo, const pt_gr_viewport *v, double x, double y);
/* Whether (x, y) lies in the loop-body band. */
bool pt_gr_in_body(const pt_gr_layout *lo, const pt_gr_viewport *v, double x, double y);
/* The first layout node showing sTask `stask`, or -1. */
int pt_gr_node_of(const pt_gr_layout *lo, int stask);
/* The pixel centre of layout node i. */
void pt_gr_node_center(const pt_gr_layout *lo, const pt_gr_viewport *v, int i, double *x,
                       double *y);
/* Draw into cr (area 0,0 - width,height). Returns the number of edges drawn. */
int pt_gr_render(cairo_t *cr, const pt_stask_graph *sg, const pt_gr_layout *lo,
                 const pt_gr_viewport *v);

#endif
