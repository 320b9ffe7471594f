/* timeline_json.h — the trace file: a timeline written to and read from JSON.
 *
 * Format "pipethreader.trace" version 1 (docs/FORMAT-trace.md). A trace names its graph and
 * hardware, lists its lanes and sTask ids, and holds the predicted spans with the kernel
 * summary. The "measured" member is reserved for profiled spans (null until the profiler
 * writes it). A trace is self-contained: span indices refer to its own lane and sTask lists,
 * so it can be read back without the graph it came from. */
#ifndef PT_TIMELINE_JSON_H
#define PT_TIMELINE_JSON_H

#include "sim.h"

#define PT_TRACE_FORMAT "pipethreader.trace"
#define PT_TRACE_VERSION 1
#define PT_TRACE_MAX_STASKS 100000
#define PT_TRACE_MAX_SPANS 5000000

/* Everything a trace file holds. */
typedef struct {
    char graph[PT_NAME_MAX];
    char hw[48];
    char build[16];                                    /* "predicted" */
    int n_lanes;
    char lane_names[PT_MAX_LANES][PT_LANE_NAME_MAX];
    pt_seu_kind lane_seu[PT_MAX_LANES];
    char lane_roles[PT_MAX_LANES][PT_LANE_NAME_MAX];   /* "" when the file gives none */
    int n_stasks;
    char (*stask_ids)[PT_STASK_ID_MAX];                /* malloc'd, n_stasks entries */
    pt_timeline tl;         /* predicted spans + summary; spans index the lists above */
    bool has_measured;      /* "measured" is present and not null (not read by version 1) */
} pt_trace;

/* Write a simulated timeline. p and sg name the lanes and sTasks; hw may be NULL (the
 * program's hw_name is used). Returns malloc'd text, one span per line; NULL when out of
 * memory. */
char *pt_timeline_to_json(const pt_timeline *tl, const pt_sprogram *p, const pt_stask_graph *sg,
                          const pt_hw *hw);

/* Read a trace. On failure returns false, tr is left empty and err holds one line
 * "<name>: <JSON path>: <what is wrong>; expected <what>". Free with pt_trace_free. */
bool pt_trace_load_text(pt_trace *tr, const char *name, const char *text, size_t len,
                        pt_error *err);
bool pt_trace_load_file(pt_trace *tr, const char *path, pt_error *err);
void pt_trace_free(pt_trace *tr);

/* Convenience: only the timeline (caller frees with pt_timeline_free) and the lane names
 * (room for PT_MAX_LANES). */
bool pt_timeline_load_text(pt_timeline *tl, char lane_names[][PT_LANE_NAME_MAX], int *n_lanes,
                           const char *name, const char *text, size_t len, pt_error *err);

#endif
