/* explorer_model.h — what one explorer window shows: an operator graph loaded from a file or
 * an embedded example, partitioned into its sTask-graph, given the default sProgram and
 * simulated on the chosen hardware model. Plain C over the core library (no GTK), so the
 * GUI's data path can be exercised without a display. */
#ifndef PT_EXPLORER_MODEL_H
#define PT_EXPLORER_MODEL_H

#include <stdbool.h>

#include "graph.h"
#include "hw.h"
#include "sim.h"
#include "sprogram.h"
#include "stask.h"

typedef struct {
    char source[1024];      /* the file path or embedded example name it came from */
    char title[256];        /* for the window title: graph name */
    char warning[PT_ERROR_MAX]; /* validation problem of the default sProgram ("" if none):
                                   shown, but the timeline is still simulated */
    bool have_graph, have_sg, have_prog, have_tl;
    pt_graph graph;
    pt_hw hw;
    pt_stask_graph sg;
    pt_sprogram prog;
    pt_timeline tl;
} pt_explorer_model;

/* A new, empty model (calloc'd); NULL when out of memory. */
pt_explorer_model *pt_explorer_model_new(void);
void pt_explorer_model_free(pt_explorer_model *m);
/* Drop everything loaded (the model is then empty). */
void pt_explorer_model_clear(pt_explorer_model *m);

/* Load `source` (an existing file, else an embedded example name) on hardware `hw_name`
 * ("H100", "H200", "MI300X" or a JSON file): load, partition with the graph's default tiling,
 * default sProgram, validate (a problem is kept in m->warning), simulate. On failure returns false with a one-line message in
 * err and leaves the model empty. */
bool pt_explorer_model_load(pt_explorer_model *m, const char *source, const char *hw_name,
                            pt_error *err);

/* Mean predicted duration (ns) of an sTask's instances; NaN when it has none. */
double pt_explorer_model_mean_ns(const pt_explorer_model *m, int stask, int64_t *count);

#endif
