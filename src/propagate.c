/* propagate.c — Propagate(graph, tileShape): every tensor's tile from the output tile and
 * the reduction tile, and parsing of tilings given on the command line or in files. */
#include "propagate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pt_tiling_defaults(const pt_graph *g, pt_tiling *out)
{
    memset(out, 0, sizeof *out);
    for (int a = 0; a < g->n_axes; a++)
        out->tile[a] = g->default_tile[a];
    out->warpgroups = g->default_warpgroups > 0 ? g->default_warpgroups : 1;
}

bool pt_tiling_parse(const pt_graph *g, const char *spec, const char *what, pt_tiling *t,
                     pt_error *err)
{
    const char *s = spec;
    while (*s) {
        size_t n = strcspn(s, ",");
        char item[96];
        if (n >= sizeof item)
            return pt_fail(err, "%s: \"%.40s...\" is too long; expected axis=N", what, s);
        memcpy(item, s, n);
        item[n] = 0;
        if (strncmp(item, "wg_axis=", 8) == 0) { /* the axis the warpgroups split, by name */
            int a = pt_graph_find_axis(g, item + 8);
            if (a < 0)
                return pt_fail(err, "%s: \"%s\": \"%s\" is not an axis of %s", what, item,
                               item + 8, g->name);
            t->wg_axis = a + 1;
            s += n;
            if (*s == ',')
                s++;
            continue;
        }
        char *eq = strchr(item, '=');
        char *end = NULL;
        long v = eq ? strtol(eq + 1, &end, 10) : 0;
        if (!eq || end == eq + 1 || *end)
            return pt_fail(err, "%s: \"%s\": expected axis=N with N a whole number", what, item);
        *eq = 0;
        if (strcmp(item, "wg_stores") == 0) {
            if (v != 0 && v != 1)
                return pt_fail(err, "%s: wg_stores=%ld: expected 0 (one store of the tile) or 1 "
                               "(each warpgroup stores its own rows)", what, v);
            t->wg_stores = v == 1;
        } else if (strcmp(item, "wg") == 0 || strcmp(item, "warpgroups") == 0) {
            if (v < 1 || v > PT_MAX_WARPGROUPS)
                return pt_fail(err, "%s: wg=%ld: expected 1 to %d consumer warpgroups", what, v,
                               PT_MAX_WARPGROUPS);
            t->warpgroups = (int)v;
        } else {
            int a = pt_graph_find_axis(g, item);
            if (a < 0) {
                char names[PT_MAX_AXES * (PT_NAME_MAX + 2)] = "";
                for (int i = 0; i < g->n_axes; i++) {
                    strcat(names, i ? ", " : "");
                    strcat(names, g->axes[i].name);
                }
                return pt_fail(err, "%s: \"%s\" is not an axis of %s; expected one of: %s, wg, "
                               "wg_axis, wg_stores",
                               what, item, g->name, names);
            }
            if (v < 1 || v > PT_MAX_TILE)
                return pt_fail(err, "%s: %s=%ld: expected a tile from 1 to %d", what, item, v,
                               PT_MAX_TILE);
            t->tile[a] = v;
        }
        s += n;
        if (*s == ',')
            s++;
    }
    return true;
}

/* Axes share names across tensors, so a tile given for an output axis (or the reduction
 * axis) is already the tile of that axis in every operand: A gets BM x BK and B BK x BN from
 * C's BM x BN and the reduction tile BK. What remains is the rule for axes nobody tiled: a
 * batch axis is walked one index at a time (tile 1), any other is taken whole. */
bool pt_propagate(const pt_graph *g, const pt_tiling *in, pt_tiling *out, pt_error *err)
{
    *out = *in;
    if (out->warpgroups < 1 || out->warpgroups > PT_MAX_WARPGROUPS)
        return pt_fail(err, "%s: tiling: %d consumer warpgroups; expected 1 to %d", g->file,
                       out->warpgroups, PT_MAX_WARPGROUPS);
    for (int a = 0; a < g->n_axes; a++) {
        if (out->tile[a] < 0 || out->tile[a] > PT_MAX_TILE)
            return pt_fail(err, "%s: tiling: axis \"%s\" has tile %lld; expected 1 to %d",
                           g->file, g->axes[a].name, (long long)out->tile[a], PT_MAX_TILE);
        if (out->tile[a] == 0)
            out->tile[a] = g->axes[a].batch ? 1 : g->axes[a].extent;
    }
    /* A tile may be larger than its axis (it is padded), so the graph's element limit does
     * not bound a tile's product: six tiles of 4096 are 2^72 elements. Checked here, once,
     * so that partition and validation multiply tile sizes without overflow. */
    for (int t = 0; t < g->n_tensors; t++) {
        const pt_tensor *x = &g->tensors[t];
        int64_t elems = 1;
        for (int i = 0; i < x->rank; i++)
            if (__builtin_mul_overflow(elems, out->tile[x->axes[i]], &elems) ||
                elems > PT_MAX_ELEMS)
                return pt_fail(err, "%s: tiling: the tile of tensor \"%s\" has more than 2^46 "
                               "elements; expected smaller tiles", g->file, x->name);
    }
    return true;
}

void pt_tiling_tensor_tile(const pt_graph *g, const pt_tiling *t, int tensor, int64_t *shape)
{
    const pt_tensor *x = &g->tensors[tensor];
    for (int i = 0; i < x->rank; i++)
        shape[i] = t->tile[x->axes[i]];
}
