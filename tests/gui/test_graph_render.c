/* test_graph_render.c — the sTask-graph drawing with no display: the flash_attention and
 * gemm_f16 examples are partitioned, laid out and rendered into cairo image surfaces. Checks:
 * one node per sTask (loop body folded), nodes of a layer do not overlap, every
 * same-iteration edge goes downward, the layout is deterministic, hit-testing finds each node
 * at its centre, the surface is not blank and nodes are drawn in their sEU's colour. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embedded.h"
#include "graph.h"
#include "graph_render.h"
#include "propagate.h"
#include "stask.h"
#include "timeline_render.h"

#include "render_check.h"

static void check_example(const char *name)
{
    const char *text = pt_embedded_find(pt_embedded_examples, name);
    CHECK(text != NULL);
    if (!text)
        return;
    pt_graph g;
    pt_error err = {{0}};
    if (!pt_graph_load_text(&g, name, text, strlen(text), NULL, &err)) {
        fprintf(stderr, "%s: %s\n", name, err.msg);
        ptest_failures++;
        return;
    }
    pt_tiling t;
    pt_tiling_defaults(&g, &t);
    pt_stask_graph sg;
    if (!pt_partition(&sg, &g, &t, &err)) {
        fprintf(stderr, "%s: %s\n", name, err.msg);
        ptest_failures++;
        return;
    }
    pt_gr_layout lo, lo2;
    CHECK(pt_gr_layout_compute(&sg, &lo));
    CHECK(pt_gr_layout_compute(&sg, &lo2));
    CHECK(lo.n == sg.n); /* folded: one node per sTask */
    int carried = 0, same = 0;
    for (int i = 0; i < sg.n; i++) {
        CHECK(lo.x[i] == lo2.x[i] && lo.y[i] == lo2.y[i]); /* deterministic */
        CHECK(lo.x[i] >= 0 && lo.x[i] + PT_GR_NODE_W <= lo.content_w);
        CHECK(lo.y[i] >= 0 && lo.y[i] + PT_GR_NODE_H <= lo.content_h);
        for (int j = 0; j < sg.n; j++) {
            if (j == i)
                continue;
            if (lo.layer[i] == lo.layer[j]) {
                CHECK(lo.y[i] == lo.y[j]);
                CHECK(lo.order[i] != lo.order[j]);
                CHECK(fabs(lo.x[i] - lo.x[j]) >= PT_GR_NODE_W); /* no overlap in a layer */
            } else {
                CHECK(fabs(lo.y[i] - lo.y[j]) >= PT_GR_NODE_H);
            }
        }
        for (int d = 0; d < sg.tasks[i].n_deps; d++) {
            int u = sg.tasks[i].deps[d].from;
            if (sg.tasks[i].deps[d].distance == 0) {
                same++;
                CHECK(lo.layer[u] < lo.layer[i]);
                CHECK(lo.y[u] + PT_GR_NODE_H < lo.y[i]); /* edges go downward */
            } else {
                carried++;
            }
        }
        /* Bands: a node lies in its region's band. */
        int r = (int)sg.tasks[i].region;
        CHECK(lo.y[i] >= lo.band_y0[r] && lo.y[i] + PT_GR_NODE_H <= lo.band_y1[r]);
    }
    CHECK(same > 0);
    pt_gr_layout_free(&lo2);

    int W = (int)ceil(lo.content_w), H = (int)ceil(lo.content_h);
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
    cairo_t *cr = cairo_create(s);
    pt_gr_viewport v = {.width = W, .height = H, .selected = 0, .hover = -1, .dark = false};
    int edges = pt_gr_render(cr, &sg, &lo, &v);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    CHECK(edges == same + carried);
    int coloured = 0;
    for (int i = 0; i < sg.n; i++) {
        double cx, cy;
        pt_gr_node_center(&lo, &v, i, &cx, &cy);
        CHECK(pt_gr_hit(&lo, &v, cx, cy) == i);
        /* A point inside the box, left of the (centred) label: the sEU colour. */
        double r, g2, b;
        pt_tl_seu_rgb(sg.tasks[i].seu, false, &r, &g2, &b);
        uint32_t want = ((uint32_t)lround(r * 255) << 16) | ((uint32_t)lround(g2 * 255) << 8) |
                        (uint32_t)lround(b * 255);
        uint32_t got = pixel(s, (int)(lo.x[i] + 3), (int)(lo.y[i] + PT_GR_NODE_H / 2));
        int dr = (int)(got >> 16 & 255) - (int)(want >> 16 & 255);
        int dg = (int)(got >> 8 & 255) - (int)(want >> 8 & 255);
        int db = (int)(got & 255) - (int)(want & 255);
        if (abs(dr) <= 2 && abs(dg) <= 2 && abs(db) <= 2)
            coloured++;
    }
    CHECK(coloured == sg.n);
    CHECK(pt_gr_hit(&lo, &v, 1, 1) == -1);
    /* Scaled down into a small viewport: still hit-testable. */
    pt_gr_viewport small = {.width = W / 2.0, .height = H / 2.0, .selected = -1, .hover = -1};
    for (int i = 0; i < sg.n; i++) {
        double cx, cy;
        pt_gr_node_center(&lo, &small, i, &cx, &cy);
        CHECK(pt_gr_hit(&lo, &small, cx, cy) == i);
    }
    /* Unrolled: k copies of every body sTask, every edge (loop-carried ones included) drawn
     * downward, each copy hit-testable to its sTask. */
    pt_gr_layout un;
    CHECK(pt_gr_layout_compute_unrolled(&sg, 3, &un));
    int body = 0;
    for (int i = 0; i < sg.n; i++)
        body += sg.tasks[i].region == PT_REGION_BODY;
    int k = sg.iterations >= 3 ? 3 : (int)sg.iterations;
    CHECK(un.unroll == k);
    CHECK(un.n == sg.n + (k - 1) * body);
    int carried_down = 0;
    for (int e = 0; e < un.n_edges; e++) {
        const pt_gr_edge *ed = &un.edges[e];
        CHECK(un.y[ed->from] + PT_GR_NODE_H < un.y[ed->to]);
        if (ed->carried) {
            carried_down++;
            CHECK(un.iter[ed->to] == un.iter[ed->from] + ed->distance);
        }
    }
    CHECK(carried > 0 ? carried_down > 0 : 1);
    pt_gr_viewport uv = {.width = un.content_w, .height = un.content_h, .selected = -1,
                         .hover = -1};
    for (int i = 0; i < un.n; i++) {
        double cx, cy;
        pt_gr_node_center(&un, &uv, i, &cx, &cy);
        CHECK(pt_gr_hit(&un, &uv, cx, cy) == un.stask[i]);
    }
    if (getenv("PT_GRAPH_PNG")) {
        cairo_surface_t *us = cairo_image_surface_create(CAIRO_FORMAT_RGB24,
                                                         (int)ceil(un.content_w),
                                                         (int)ceil(un.content_h));
        cairo_t *ucr = cairo_create(us);
        pt_gr_render(ucr, &sg, &un, &uv);
        char path[256];
        snprintf(path, sizeof path, "%s/%s.unrolled.png", getenv("PT_GRAPH_PNG"), name);
        cairo_surface_write_to_png(us, path);
        cairo_destroy(ucr);
        cairo_surface_destroy(us);
    }
    pt_gr_layout_free(&un);
    /* Folded again when asked for one iteration. */
    CHECK(pt_gr_layout_compute_unrolled(&sg, 1, &un) && un.n == sg.n && un.unroll == 1);
    pt_gr_layout_free(&un);
    printf("ok: %s: %d nodes in %d layers, %d same-iteration and %d loop-carried edges, "
           "%dx%d px\n", name, sg.n, lo.n_layers, same, carried, W, H);
    if (getenv("PT_GRAPH_PNG")) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s.graph.png", getenv("PT_GRAPH_PNG"), name);
        cairo_surface_write_to_png(s, path);
    }
    cairo_surface_destroy(s);
    pt_gr_layout_free(&lo);
    pt_stask_graph_free(&sg);
}

int main(void)
{
    check_example("flash_attention");
    check_example("gemm_f16");
    if (ptest_failures)
        fprintf(stderr, "%d check(s) failed\n", ptest_failures);
    return ptest_failures ? 1 : 0;
}
