/* ptest_example.h — for unit tests: an embedded example loaded with --set style parameters,
 * tiled with --tile style overrides over its defaults, and partitioned into an sTask-graph; a
 * failure is counted as a check that names the example and the message. */
#ifndef PTEST_EXAMPLE_H
#define PTEST_EXAMPLE_H

#include <string.h>

#include "embedded.h"
#include "propagate.h"
#include "ptest.h"

static bool part(pt_graph *g, pt_stask_graph *sg, const char *ex, const char *set,
                 const char *tile)
{
    const char *text = pt_embedded_find(pt_embedded_examples, ex);
    pt_error err = {{0}};
    pt_tiling t;
    bool ok = text && pt_graph_load_text(g, ex, text, strlen(text), set, &err);
    if (ok) {
        pt_tiling_defaults(g, &t);
        ok = pt_tiling_parse(g, tile, "--tile", &t, &err) && pt_partition(sg, g, &t, &err);
    }
    CHECK_MSG(ok, "%s: %s", ex, err.msg);
    return ok;
}

#endif
