/* ptest_example.h — for unit tests: an embedded example loaded with --set style parameters,
 * tiled with --tile style overrides over its defaults, and partitioned into an sTask-graph; a
 * failure is counted as a check that names the example and the message. task() and task_index() find
 * an sTask of it by id. */
#ifndef PTEST_EXAMPLE_H
#define PTEST_EXAMPLE_H

#include <string.h>

#include "embedded.h"
#include "propagate.h"
#include "ptest.h"

/* The embedded example ex loaded with set (a failed check naming both when it does not load). */
static inline bool load_example(pt_graph *g, const char *ex, const char *set, pt_error *err)
{
    const char *text = pt_embedded_find(pt_embedded_examples, ex);
    bool ok = text && pt_graph_load_text(g, ex, text, strlen(text), set, err);
    CHECK_MSG(ok, "%s %s: %s", ex, set ? set : "", text ? err->msg : "no such example");
    return ok;
}

static bool part(pt_graph *g, pt_stask_graph *sg, const char *ex, const char *set,
                 const char *tile)
{
    pt_error err = {{0}};
    pt_tiling t;
    if (!load_example(g, ex, set, &err))
        return false;
    pt_tiling_defaults(g, &t);
    bool ok = pt_tiling_parse(g, tile, "--tile", &t, &err) && pt_partition(sg, g, &t, &err);
    CHECK_MSG(ok, "%s: %s", ex, err.msg);
    return ok;
}

/* The index of the sTask named id, and the sTask itself (a failed check, and the first sTask,
 * when there is none). */
static inline int task_index(const pt_stask_graph *sg, const char *id)
{
    int s = pt_stask_find(sg, id);
    CHECK_MSG(s >= 0, "no sTask %s", id);
    return s < 0 ? 0 : s;
}

static inline const pt_stask *task(const pt_stask_graph *sg, const char *id)
{
    return &sg->tasks[task_index(sg, id)];
}

#endif
