/* graph_render.c — layered layout and drawing of the sTask-graph (see graph_render.h). */
#include "graph_render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline_render.h"

void pt_gr_layout_free(pt_gr_layout *lo)
{
    free(lo->stask);
    free(lo->iter);
    free(lo->edges);
    free(lo->layer);
    free(lo->order);
    free(lo->x);
    free(lo->y);
    memset(lo, 0, sizeof *lo);
}

typedef struct {
    int node;
    double key;
    int prev;
} sort_item;

static int cmp_item(const void *a, const void *b)
{
    const sort_item *p = a, *q = b;
    if (p->key < q->key)
        return -1;
    if (p->key > q->key)
        return 1;
    return (p->prev > q->prev) - (p->prev < q->prev);
}

static int region_of(const pt_stask_graph *sg, int i)
{
    int r = (int)sg->tasks[i].region;
    return r < 0 || r > 2 ? 1 : r;
}

/* Longest path within each region over same-iteration deps, per sTask (relaxation; n passes
 * at most, which also bounds the work should a cycle ever slip in). */
static void local_layers(const pt_stask_graph *sg, int *local)
{
    int n = sg->n;
    for (int pass = 0; pass < n; pass++) {
        bool changed = false;
        for (int i = 0; i < n; i++)
            for (int d = 0; d < sg->tasks[i].n_deps; d++) {
                const pt_dep *dp = &sg->tasks[i].deps[d];
                if (dp->distance != 0 || dp->from < 0 || dp->from >= n || dp->from == i ||
                    sg->tasks[dp->from].region != sg->tasks[i].region)
                    continue;
                if (local[i] < local[dp->from] + 1) {
                    local[i] = local[dp->from] + 1;
                    changed = true;
                }
            }
        if (!changed)
            break;
    }
}

/* The layout nodes and edges: folded (k = 1) or with k body copies. */
static bool build_nodes(const pt_stask_graph *sg, int k, pt_gr_layout *lo)
{
    int n = sg->n, n_body = 0;
    for (int i = 0; i < n; i++)
        n_body += region_of(sg, i) == 1;
    lo->n = n + (k - 1) * n_body;
    size_t cnt = lo->n > 0 ? (size_t)lo->n : 1;
    lo->stask = calloc(cnt, sizeof(int));
    lo->iter = calloc(cnt, sizeof(int));
    int *node_of = calloc((size_t)(n > 0 ? n : 1) * (size_t)k, sizeof(int)); /* [stask][j] */
    if (!lo->stask || !lo->iter || !node_of) {
        free(node_of);
        return false;
    }
    int v = 0;
    for (int i = 0; i < n; i++) {
        bool body = region_of(sg, i) == 1 && k > 1;
        for (int j = 0; j < (body ? k : 1); j++) {
            lo->stask[v] = i;
            lo->iter[v] = body ? j : -1;
            for (int jj = body ? j : 0; jj < (body ? j + 1 : k); jj++)
                node_of[i * k + jj] = v;
            v++;
        }
    }
    int cap = 0;
    for (int i = 0; i < n; i++)
        cap += sg->tasks[i].n_deps;
    cap = cap * k + 1;
    lo->edges = calloc((size_t)cap, sizeof(pt_gr_edge));
    if (!lo->edges) {
        free(node_of);
        return false;
    }
    for (int t = 0; t < lo->n; t++) {
        int i = lo->stask[t], j = lo->iter[t];
        for (int d = 0; d < sg->tasks[i].n_deps; d++) {
            const pt_dep *dp = &sg->tasks[i].deps[d];
            int u = dp->from;
            if (u < 0 || u >= n || lo->n_edges >= cap)
                continue;
            int from;
            if (k == 1) {
                from = u;
            } else if (region_of(sg, u) == 1 && j >= 0) {
                if (j - dp->distance < 0)
                    continue; /* from an iteration before the ones shown */
                from = node_of[u * k + (j - dp->distance)];
            } else if (region_of(sg, u) == 1) {
                from = node_of[u * k + (k - 1)]; /* into the epilogue: the last copy */
            } else {
                from = node_of[u * k];
            }
            lo->edges[lo->n_edges++] = (pt_gr_edge){from, t, dp->distance, dp->distance != 0};
        }
    }
    free(node_of);
    return true;
}

bool pt_gr_layout_compute_unrolled(const pt_stask_graph *sg, int unroll, pt_gr_layout *lo)
{
    memset(lo, 0, sizeof *lo);
    int k = unroll < 1 ? 1 : unroll > PT_GR_MAX_UNROLL ? PT_GR_MAX_UNROLL : unroll;
    if (sg->iterations > 0 && k > sg->iterations)
        k = (int)sg->iterations;
    bool has_body = false;
    for (int i = 0; i < sg->n; i++)
        has_body |= region_of(sg, i) == 1;
    if (!has_body || k < 1)
        k = 1;
    lo->unroll = k;
    size_t sn = sg->n > 0 ? (size_t)sg->n : 1;
    int *local_st = calloc(sn, sizeof(int));
    if (!local_st || !build_nodes(sg, k, lo)) {
        free(local_st);
        pt_gr_layout_free(lo);
        return false;
    }
    int n = lo->n;
    size_t cnt = n > 0 ? (size_t)n : 1;
    lo->layer = calloc(cnt, sizeof(int));
    lo->order = calloc(cnt, sizeof(int));
    lo->x = calloc(cnt, sizeof(double));
    lo->y = calloc(cnt, sizeof(double));
    int *local = calloc(cnt, sizeof(int));
    sort_item *items = calloc(cnt, sizeof(sort_item));
    int *count = NULL;
    if (!lo->layer || !lo->order || !lo->x || !lo->y || !local || !items)
        goto oom;
    local_layers(sg, local_st);
    /* Stack the bands; unrolled iterations stack inside the body band. */
    int depth[3] = {0, 0, 0};
    bool has[3] = {false, false, false};
    for (int i = 0; i < sg->n; i++) {
        int r = region_of(sg, i);
        has[r] = true;
        if (local_st[i] + 1 > depth[r])
            depth[r] = local_st[i] + 1;
    }
    int body_depth = depth[1];
    depth[1] *= k;
    int base[3], acc = 0;
    for (int r = 0; r < 3; r++) {
        base[r] = acc;
        acc += depth[r];
    }
    lo->n_layers = acc;
    for (int v = 0; v < n; v++) {
        int i = lo->stask[v];
        int it = lo->iter[v] > 0 ? lo->iter[v] : 0;
        lo->layer[v] = base[region_of(sg, i)] + it * body_depth + local_st[i];
    }
    /* Any edge drawn downward that would point up: push its head down. */
    for (int pass = 0; pass < n; pass++) {
        bool changed = false;
        for (int e = 0; e < lo->n_edges; e++) {
            const pt_gr_edge *ed = &lo->edges[e];
            if ((ed->carried && k == 1) || ed->from == ed->to)
                continue;
            if (lo->layer[ed->to] <= lo->layer[ed->from]) {
                lo->layer[ed->to] = lo->layer[ed->from] + 1;
                changed = true;
            }
        }
        if (!changed)
            break;
    }
    for (int i = 0; i < n; i++)
        if (lo->layer[i] + 1 > lo->n_layers)
            lo->n_layers = lo->layer[i] + 1;
    /* Initial order: node index within each layer. */
    int maxw = 0;
    for (int L = 0; L < lo->n_layers; L++) {
        int c = 0;
        for (int i = 0; i < n; i++)
            if (lo->layer[i] == L)
                lo->order[i] = c++;
        if (c > maxw)
            maxw = c;
    }
    /* Barycentre sweeps, top to bottom, over predecessors (edges drawn downward). */
    for (int sweep = 0; sweep < 4; sweep++)
        for (int L = 1; L < lo->n_layers; L++) {
            int c = 0;
            for (int i = 0; i < n; i++) {
                if (lo->layer[i] != L)
                    continue;
                double sum = 0;
                int np = 0;
                for (int e = 0; e < lo->n_edges; e++) {
                    const pt_gr_edge *ed = &lo->edges[e];
                    if (ed->to == i && ed->from != i && !(ed->carried && k == 1)) {
                        sum += lo->order[ed->from];
                        np++;
                    }
                }
                items[c].node = i;
                items[c].prev = lo->order[i];
                items[c].key = np ? sum / np : lo->order[i];
                c++;
            }
            qsort(items, (size_t)c, sizeof *items, cmp_item);
            for (int j = 0; j < c; j++)
                lo->order[items[j].node] = j;
        }
    /* Coordinates: each layer centred across the widest. */
    double row_w = maxw * (PT_GR_NODE_W + PT_GR_HGAP) - PT_GR_HGAP;
    if (row_w < PT_GR_NODE_W)
        row_w = PT_GR_NODE_W;
    count = calloc((size_t)(lo->n_layers > 0 ? lo->n_layers : 1), sizeof(int));
    if (!count)
        goto oom;
    for (int i = 0; i < n; i++)
        count[lo->layer[i]]++;
    for (int i = 0; i < n; i++) {
        int L = lo->layer[i];
        int r = 0;
        for (int q = 0; q < 3; q++)
            if (L >= base[q])
                r = q;
        double lw = count[L] * (PT_GR_NODE_W + PT_GR_HGAP) - PT_GR_HGAP;
        lo->x[i] = PT_GR_MARGIN + PT_GR_BAND_W + (row_w - lw) / 2 +
                   lo->order[i] * (PT_GR_NODE_W + PT_GR_HGAP);
        lo->y[i] = PT_GR_MARGIN + L * PT_GR_LAYER_H + r * PT_GR_BAND_GAP + 10;
    }
    for (int r = 0; r < 3; r++) {
        lo->band_y0[r] = PT_GR_MARGIN + base[r] * PT_GR_LAYER_H + r * PT_GR_BAND_GAP;
        lo->band_y1[r] = has[r] ? lo->band_y0[r] + depth[r] * PT_GR_LAYER_H : lo->band_y0[r];
    }
    lo->content_w = 2 * PT_GR_MARGIN + PT_GR_BAND_W + row_w + 40; /* room for loop arcs */
    lo->content_h = 2 * PT_GR_MARGIN + lo->n_layers * PT_GR_LAYER_H + 2 * PT_GR_BAND_GAP;
    free(count);
    free(local);
    free(local_st);
    free(items);
    return true;
oom:
    free(count);
    free(local);
    free(local_st);
    free(items);
    pt_gr_layout_free(lo);
    return false;
}

bool pt_gr_layout_compute(const pt_stask_graph *sg, pt_gr_layout *lo)
{
    return pt_gr_layout_compute_unrolled(sg, 1, lo);
}

void pt_gr_transform(const pt_gr_layout *lo, const pt_gr_viewport *v, double *scale,
                     double *ox, double *oy)
{
    double s = PT_GR_MAX_FIT;
    if (lo->content_w > 0 && v->width / lo->content_w < s)
        s = v->width / lo->content_w;
    if (lo->content_h > 0 && v->height / lo->content_h < s)
        s = v->height / lo->content_h;
    if (s < 0.05)
        s = 0.05;
    s *= v->zoom > 0 ? v->zoom : 1;
    *scale = s;
    /* Centred, then moved by the user's pan. */
    *ox = (v->width - lo->content_w * s) / 2 + v->pan_x;
    *oy = (v->height - lo->content_h * s) / 2 + v->pan_y;
}

void pt_gr_zoom(const pt_gr_layout *lo, pt_gr_viewport *v, double factor, double x, double y)
{
    double s, ox, oy;
    pt_gr_transform(lo, v, &s, &ox, &oy);
    double cx = (x - ox) / s, cy = (y - oy) / s; /* the content point under (x, y) */
    double z = (v->zoom > 0 ? v->zoom : 1) * factor;
    v->zoom = z < PT_GR_MIN_ZOOM ? PT_GR_MIN_ZOOM : z > PT_GR_MAX_ZOOM ? PT_GR_MAX_ZOOM : z;
    double s2, ox2, oy2;
    pt_gr_transform(lo, v, &s2, &ox2, &oy2);
    v->pan_x += x - (ox2 + cx * s2);
    v->pan_y += y - (oy2 + cy * s2);
}

void pt_gr_pan(pt_gr_viewport *v, double dx, double dy)
{
    v->pan_x += dx;
    v->pan_y += dy;
}

void pt_gr_fit(pt_gr_viewport *v)
{
    v->zoom = 1;
    v->pan_x = v->pan_y = 0;
}

int pt_gr_hit_node(const pt_gr_layout *lo, const pt_gr_viewport *v, double x, double y)
{
    double s, ox, oy;
    pt_gr_transform(lo, v, &s, &ox, &oy);
    double cx = (x - ox) / s, cy = (y - oy) / s;
    for (int i = 0; i < lo->n; i++)
        if (cx >= lo->x[i] && cx <= lo->x[i] + PT_GR_NODE_W && cy >= lo->y[i] &&
            cy <= lo->y[i] + PT_GR_NODE_H)
            return i;
    return -1;
}

int pt_gr_hit(const pt_gr_layout *lo, const pt_gr_viewport *v, double x, double y)
{
    int node = pt_gr_hit_node(lo, v, x, y);
    return node >= 0 ? lo->stask[node] : -1;
}

bool pt_gr_in_body(const pt_gr_layout *lo, const pt_gr_viewport *v, double x, double y)
{
    double s, ox, oy;
    pt_gr_transform(lo, v, &s, &ox, &oy);
    double cx = (x - ox) / s, cy = (y - oy) / s;
    return lo->band_y1[1] > lo->band_y0[1] && cy >= lo->band_y0[1] && cy <= lo->band_y1[1] &&
           cx >= 0 && cx <= lo->content_w;
}

int pt_gr_node_of(const pt_gr_layout *lo, int stask)
{
    for (int i = 0; i < lo->n; i++)
        if (lo->stask[i] == stask)
            return i;
    return -1;
}

void pt_gr_node_center(const pt_gr_layout *lo, const pt_gr_viewport *v, int i, double *x,
                       double *y)
{
    double s, ox, oy;
    pt_gr_transform(lo, v, &s, &ox, &oy);
    *x = ox + (lo->x[i] + PT_GR_NODE_W / 2) * s;
    *y = oy + (lo->y[i] + PT_GR_NODE_H / 2) * s;
}

static void rounded_rect(cairo_t *cr, double x, double y, double w, double h, double r)
{
    cairo_new_sub_path(cr);
    cairo_arc(cr, x + w - r, y + r, r, -M_PI / 2, 0);
    cairo_arc(cr, x + w - r, y + h - r, r, 0, M_PI / 2);
    cairo_arc(cr, x + r, y + h - r, r, M_PI / 2, M_PI);
    cairo_arc(cr, x + r, y + r, r, M_PI, 3 * M_PI / 2);
    cairo_close_path(cr);
}

static void arrow_head(cairo_t *cr, double x, double y, double ang)
{
    cairo_move_to(cr, x, y);
    cairo_line_to(cr, x - 8 * cos(ang - 0.4), y - 8 * sin(ang - 0.4));
    cairo_line_to(cr, x - 8 * cos(ang + 0.4), y - 8 * sin(ang + 0.4));
    cairo_close_path(cr);
    cairo_fill(cr);
}

int pt_gr_render(cairo_t *cr, const pt_stask_graph *sg, const pt_gr_layout *lo,
                 const pt_gr_viewport *v)
{
    double bg[3] = {1, 1, 1}, fg[3] = {0.13, 0.13, 0.15};
    if (v->dark) {
        bg[0] = 0.14, bg[1] = 0.14, bg[2] = 0.15;
        fg[0] = fg[1] = fg[2] = 0.92;
    }
    cairo_save(cr);
    cairo_rectangle(cr, 0, 0, v->width, v->height);
    cairo_clip(cr);
    cairo_set_source_rgb(cr, bg[0], bg[1], bg[2]);
    cairo_paint(cr);
    double s, ox, oy;
    pt_gr_transform(lo, v, &s, &ox, &oy);
    cairo_translate(cr, ox, oy);
    cairo_scale(cr, s, s);
    cairo_select_font_face(cr, "Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);

    /* Region bands. */
    static const char *const band_names[3] = {"prologue", "loop body", "epilogue"};
    for (int r = 0; r < 3; r++) {
        if (!(lo->band_y1[r] > lo->band_y0[r]))
            continue;
        cairo_set_source_rgba(cr, fg[0], fg[1], fg[2], r == 1 ? 0.07 : 0.035);
        rounded_rect(cr, PT_GR_MARGIN / 2, lo->band_y0[r], lo->content_w - PT_GR_MARGIN,
                     lo->band_y1[r] - lo->band_y0[r], 8);
        cairo_fill(cr);
        cairo_set_source_rgba(cr, fg[0], fg[1], fg[2], 0.75);
        cairo_set_font_size(cr, 12);
        cairo_move_to(cr, PT_GR_MARGIN, lo->band_y0[r] + 18);
        cairo_show_text(cr, band_names[r]);
        if (r == 1 && sg->iterations > 1) {
            char buf[48];
            if (lo->unroll > 1)
                snprintf(buf, sizeof buf, "%d of %lld iter.", lo->unroll, (long long)sg->iterations);
            else
                snprintf(buf, sizeof buf, "× %lld iter.", (long long)sg->iterations);
            cairo_set_font_size(cr, 10);
            cairo_move_to(cr, PT_GR_MARGIN, lo->band_y0[r] + 32);
            cairo_show_text(cr, buf);
        }
    }

    /* Iteration labels of an unrolled body. */
    if (lo->unroll > 1 && lo->band_y1[1] > lo->band_y0[1]) {
        double h = (lo->band_y1[1] - lo->band_y0[1]) / lo->unroll;
        cairo_set_font_size(cr, 10);
        for (int j = 0; j < lo->unroll; j++) {
            char buf[32];
            snprintf(buf, sizeof buf, "iteration %d", j);
            cairo_set_source_rgba(cr, fg[0], fg[1], fg[2], 0.6);
            cairo_move_to(cr, PT_GR_MARGIN, lo->band_y0[1] + j * h + (j ? 14 : 46));
            cairo_show_text(cr, buf);
            if (j) {
                double dash[2] = {2, 3};
                cairo_set_dash(cr, dash, 2, 0);
                cairo_set_line_width(cr, 1);
                cairo_move_to(cr, PT_GR_MARGIN, lo->band_y0[1] + j * h);
                cairo_line_to(cr, lo->content_w - PT_GR_MARGIN, lo->band_y0[1] + j * h);
                cairo_stroke(cr);
                cairo_set_dash(cr, NULL, 0, 0);
            }
        }
    }

    /* Edges under the nodes. */
    int edges = 0;
    cairo_set_line_width(cr, 1.3);
    for (int e = 0; e < lo->n_edges; e++) {
        const pt_gr_edge *ed = &lo->edges[e];
        int u = ed->from, i = ed->to;
        if (u < 0 || u >= lo->n || i < 0 || i >= lo->n)
            continue;
        bool sel = v->selected >= 0 && (lo->stask[u] == v->selected || lo->stask[i] == v->selected);
        cairo_set_source_rgba(cr, fg[0], fg[1], fg[2], sel ? 0.95 : 0.45);
        cairo_set_line_width(cr, sel ? 2.2 : 1.3);
        if (!ed->carried) {
            /* Same iteration: downward. */
            double x0 = lo->x[u] + PT_GR_NODE_W / 2, y0 = lo->y[u] + PT_GR_NODE_H;
            double x1 = lo->x[i] + PT_GR_NODE_W / 2, y1 = lo->y[i];
            double my = (y0 + y1) / 2;
            double dash[2] = {5, 4};
            cairo_set_dash(cr, ed->carried ? dash : NULL, ed->carried ? 2 : 0, 0);
            cairo_move_to(cr, x0, y0);
            cairo_curve_to(cr, x0, my, x1, my, x1, y1 - 6);
            cairo_stroke(cr);
            cairo_set_dash(cr, NULL, 0, 0);
            arrow_head(cr, x1, y1, M_PI / 2);
        } else {
            /* Loop-carried: a dashed arc out of the right side of u into the right of i (folded:
             * back up to itself or an earlier node; unrolled: down to the next copy), clear of
             * the nodes between. */
            double x0 = lo->x[u] + PT_GR_NODE_W, y0 = lo->y[u] + PT_GR_NODE_H / 2;
            double x1 = lo->x[i] + PT_GR_NODE_W, y1 = lo->y[i] + PT_GR_NODE_H / 2 + 4;
            double bulge = 30 + 6 * (e % 3);
            double cxp = (x0 > x1 ? x0 : x1) + bulge;
            double dash[2] = {5, 4};
            cairo_set_dash(cr, dash, 2, 0);
            cairo_move_to(cr, x0, y0);
            cairo_curve_to(cr, cxp, y0, cxp, y1, x1 + 6, y1);
            cairo_stroke(cr);
            cairo_set_dash(cr, NULL, 0, 0);
            arrow_head(cr, x1, y1, M_PI);
            char buf[16];
            snprintf(buf, sizeof buf, lo->unroll > 1 ? "+%d" : "i-%d", ed->distance);
            cairo_set_font_size(cr, 10);
            cairo_move_to(cr, cxp - 10, (y0 + y1) / 2 + 3);
            cairo_show_text(cr, buf);
        }
        edges++;
    }
    cairo_set_dash(cr, NULL, 0, 0);

    /* Nodes. */
    cairo_set_font_size(cr, 11);
    for (int i = 0; i < lo->n; i++) {
        double r, g, b;
        int t = lo->stask[i];
        pt_tl_seu_rgb(sg->tasks[t].seu, v->dark, &r, &g, &b);
        rounded_rect(cr, lo->x[i], lo->y[i], PT_GR_NODE_W, PT_GR_NODE_H, 7);
        cairo_set_source_rgb(cr, r, g, b);
        cairo_fill(cr);
        if (t == v->selected || t == v->hover) {
            rounded_rect(cr, lo->x[i] - 2.5, lo->y[i] - 2.5, PT_GR_NODE_W + 5, PT_GR_NODE_H + 5,
                         9);
            cairo_set_source_rgb(cr, fg[0], fg[1], fg[2]);
            cairo_set_line_width(cr, t == v->selected ? 3 : 1.5);
            cairo_stroke(cr);
        }
        cairo_save(cr);
        cairo_rectangle(cr, lo->x[i] + 4, lo->y[i], PT_GR_NODE_W - 8, PT_GR_NODE_H);
        cairo_clip(cr);
        char name[PT_STASK_ID_MAX + 16];
        if (lo->iter[i] >= 0)
            snprintf(name, sizeof name, "%s [%d]", sg->tasks[t].id, lo->iter[i]);
        else
            snprintf(name, sizeof name, "%s", sg->tasks[t].id);
        cairo_text_extents_t te;
        cairo_text_extents(cr, name, &te);
        double tx = lo->x[i] + (PT_GR_NODE_W - te.x_advance) / 2;
        if (tx < lo->x[i] + 6)
            tx = lo->x[i] + 6;
        pt_tl_label_rgb(sg->tasks[t].seu, v->dark, &r, &g, &b); /* >= 4.5:1 on the fill */
        cairo_set_source_rgb(cr, r, g, b);
        cairo_move_to(cr, tx, lo->y[i] + PT_GR_NODE_H / 2 + 4);
        cairo_show_text(cr, name);
        cairo_restore(cr);
    }
    cairo_restore(cr);
    return edges;
}
