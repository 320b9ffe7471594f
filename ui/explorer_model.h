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

#define PT_EXPLORER_HISTORY 100

struct pt_explorer_state;
struct pt_trace_s;

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
    pt_tiling tiling;       /* the tiling as given (unpropagated) that sg was partitioned with */
    /* Undo/redo: deep copies of earlier/later states, most recent last. */
    int n_undo, n_redo;
    struct pt_explorer_state *undo[PT_EXPLORER_HISTORY], *redo[PT_EXPLORER_HISTORY];
    bool dirty;             /* edited since loaded or saved */
    /* Which sProgram state is shown and which one is on disk: every edit makes a new state,
     * undo and redo go back to earlier ones, so undoing to the saved state is clean again. A
     * model that is unsaved with no state on disk (a recovered autosave) sets saved_id to
     * UINT64_MAX. */
    uint64_t state_id, saved_id, next_id;
    char save_path[1024];   /* where the sProgram was last saved or opened from ("" if never) */
    /* Measured overlay, from a profiled trace (pt_explorer_model_load_trace). Kept across
     * edits (re-mapped by sTask id and lane name when an edit re-partitions the sTask-graph)
     * and then stale: pt_explorer_model_measured_stale() says so, and the timeline fades it. */
    bool have_measured;
    struct pt_trace_s *overlay;  /* the trace laid over (owned), kept for re-mapping */
    uint64_t measured_state_id;  /* state_id of the sProgram the trace measured (UINT64_MAX:
                                    none of the model's states) */
    /* The sample (issue 18): a partial one (records dropped or unpaired) is marked so. */
    bool measured_partial;
    int64_t measured_dropped, measured_unpaired;
    char measured_sample[200];   /* "8 CTAs (blocks 0, 16, ...) of grid 128, iterations 0-31" */
    bool lane_measured_partial[PT_MAX_LANES];
    double lane_measured_busy_pct[PT_MAX_LANES]; /* busy.h's definition; NaN: none */
    /* How the prediction under the overlay was made: the trace's own graph parameters,
     * hardware and sProgram (true), or the example's defaults (false: the trace did not
     * name them). */
    bool trace_own_prediction;
    int64_t n_measured;
    pt_span *measured;          /* the first sampled CTA's spans, mapped to this model's sTask
                                   and lane indices (by id and name), shifted so that its first
                                   start is the predicted first start; sorted by start */
    int64_t measured_block;     /* blockIdx.x of that CTA */
    double *stask_error_pct;    /* per sTask: pt_error_pct(predicted mean span of the shown
                                   prediction, measured mean) — recomputed after every edit
                                   (NaN: none) */
    double *stask_measured_ns;  /* per sTask: measured mean span, issue -> completion (NaN) */
    double measured_kernel_ns;  /* NaN when unknown */
    double measured_overhead_pct; /* the instrumented build over the plain one; NaN unknown */
    double kernel_error_pct;    /* pt_error_pct(predicted kernel time shown, measured); NaN */
    int64_t trace_iterations;   /* the trace's own loop trip count (its shape may differ from
                                   the embedded example's) */
    /* Every sampled CTA's spans, mapped like `measured` and shifted by the same amount (so the
     * CTAs keep their measured offsets to one another); CTA 0's array is `measured` itself. */
    int n_measured_ctas;
    const pt_span **cta_measured;   /* n_measured_ctas entries; [k > 0] malloc'd */
    int64_t *cta_n_measured;
    int64_t *cta_block;             /* blockIdx.x of each */
} pt_explorer_model;

/* A new, empty model (calloc'd); NULL when out of memory. */
pt_explorer_model *pt_explorer_model_new(void);
void pt_explorer_model_free(pt_explorer_model *m);
/* Drop everything loaded (the model is then empty). */
void pt_explorer_model_clear(pt_explorer_model *m);

/* Load `source` (an existing file, else an embedded example name) on hardware `hw_name`
 * ("H100", "H200", "MI300X" or a JSON file): load, partition with the graph's default tiling
 * made to fit the model (default_tiling.h), default sProgram, validate (a problem is kept in
 * m->warning), simulate. On failure returns false with a one-line message in err and leaves the
 * model empty. */
bool pt_explorer_model_load(pt_explorer_model *m, const char *source, const char *hw_name,
                            pt_error *err);

/* The same with the graph given as JSON text (graph_text, e.g. the copy kept in an autosave),
 * `source` naming it; graph_text NULL: as pt_explorer_model_load. */
bool pt_explorer_model_load_graph_text(pt_explorer_model *m, const char *source,
                                       const char *graph_text, const char *hw_name,
                                       pt_error *err);

/* Switch the hardware model ("H100", "H200", "MI300X" or a JSON file) under the loaded
 * sProgram: re-validated (a problem goes to m->warning) and re-simulated; the sProgram, its
 * undo history and any measured overlay are kept. False with err (model unchanged) when the
 * model does not load or the simulation fails. */
bool pt_explorer_model_set_hw(pt_explorer_model *m, const char *hw_name, pt_error *err);

/* Mean predicted duration (ns) of an sTask's instances; NaN when it has none. */
double pt_explorer_model_mean_ns(const pt_explorer_model *m, int stask, int64_t *count);

/* Load a saved sProgram file: its "graph" must name an embedded example, unless graph_source
 * (a graph file or example name) is given. Validated and simulated; false with err on failure
 * (model empty). */
bool pt_explorer_model_load_sprogram(pt_explorer_model *m, const char *path,
                                     const char *graph_source, const char *hw_name,
                                     pt_error *err);

/* The same from text already read (an autosave's sProgram): `path` names it in errors; the
 * model's save_path is left empty. With graph_source, graph_text (may be NULL) is that graph's
 * JSON, used instead of reading the file. */
bool pt_explorer_model_load_sprogram_text(pt_explorer_model *m, const char *path,
                                          const char *text, size_t len,
                                          const char *graph_source, const char *graph_text,
                                          const char *hw_name, pt_error *err);

/* Issue 19 (compare two schedules): load the saved sProgram at path into b as the second
 * schedule to compare with a — on a's graph (a's graph file, or the shipped example of the
 * same name) and hardware hw_name — or a profiled trace of a's graph (as
 * pt_explorer_model_load_trace loads it: its own prediction with the measured spans over it).
 * A file that is neither, or one of another graph, is refused with a message naming both
 * ("... is an sProgram of graph 'X'; the shown sProgram is of graph 'Y'"). False with err (b
 * empty) on failure. */
bool pt_explorer_model_load_compare(pt_explorer_model *b, const pt_explorer_model *a,
                                    const char *path, const char *hw_name, pt_error *err);

/* Load a trace file (pipethreader.trace v1 or v2): its graph must be an embedded example, which
 * is loaded with the default sProgram on the trace's hardware (else hw_name) and simulated;
 * when the trace has a measured side, the overlay fields above are filled. False with err on
 * failure (model empty). */
bool pt_explorer_model_load_trace(pt_explorer_model *m, const char *path, const char *hw_name,
                                  pt_error *err);
/* Lay the measured side of a profiled trace file over the model as it is (its sProgram is kept),
 * matching sTasks by id and lanes by name. The trace must be of the model's graph. False with
 * err (the model unchanged but any earlier overlay dropped) on failure. */
bool pt_explorer_model_overlay_trace(pt_explorer_model *m, const char *path, pt_error *err);
/* The overlay was measured on another sProgram than the one shown (an edit since). */
bool pt_explorer_model_measured_stale(const pt_explorer_model *m);
/* Per-lane busy % of the shown prediction (busy.h: issue -> completion) and the unit's own
 * occupancy %; NaN when unknown. */
double pt_explorer_model_lane_busy_pct(const pt_explorer_model *m, int lane);
double pt_explorer_model_lane_unit_pct(const pt_explorer_model *m, int lane);

/* Predicted (the shown timeline) against the overlay's measured spans, sTask by sTask and
 * lane by lane, in the model's indices — through pt_align (traces/measured.h), so the numbers
 * are those of `pipethreader-cli report`. False when there is no overlay (a is zeroed). */
struct pt_alignment_s;
bool pt_explorer_model_align(const pt_explorer_model *m, struct pt_alignment_s *a);

/* Whether path is a trace file (a JSON object whose "format" is "pipethreader.trace"). */
bool pt_explorer_is_trace_file(const char *path);

/* Whether path is a saved sProgram (a JSON object whose "format" is "pipethreader.sprogram"),
 * not a graph or a trace. */
bool pt_explorer_is_sprogram_file(const char *path);
/* Whether the saved sProgram at path names a shipped example as its graph (else the graph
 * file must be given to pt_explorer_model_load_sprogram). */
bool pt_explorer_sprogram_graph_embedded(const char *path);

/* Edits. Each validates and re-simulates at once; an edit that leaves the sProgram invalid
 * (deadlock, memory over the limit, sTask on a wrong sEU, ...) is refused: false with the reason
 * in err and the model unchanged. A successful edit is pushed on the undo stack (redo cleared)
 * and sets dirty. */
/* Move sTask `stask` to lane `lane` at `position` (-1: the end), keeping its iteration offset. */
bool pt_explorer_model_append(pt_explorer_model *m, int stask, int lane, int position,
                              pt_error *err);
/* Give a placed loop-body sTask iteration offset `offset` in its lane (look-ahead: +1 issues
 * the next iteration's instance in this loop step), keeping its lane and position. */
bool pt_explorer_model_set_offset(pt_explorer_model *m, int stask, int offset, pt_error *err);
bool pt_explorer_model_wait_add(pt_explorer_model *m, int stask, int on, int distance,
                                pt_error *err);
bool pt_explorer_model_wait_remove(pt_explorer_model *m, int stask, int on, int distance,
                                   pt_error *err);
/* Ring depth of buffered tensor `tensor` (graph tensor name). */
bool pt_explorer_model_set_stages(pt_explorer_model *m, const char *tensor, int stages,
                                  pt_error *err);
/* partition.split_k (splitk.h): the loop of each output tile cut into split_k chunks run by
 * separate work items, 1 = none; refused where the validator refuses it (no loop to split, a
 * loop carrying more than sums, fewer iterations than chunks). */
bool pt_explorer_model_set_split_k(pt_explorer_model *m, int split_k, pt_error *err);
/* partition.split_k_reduce: the chunks' partial tiles through a thread-block cluster (true) or
 * the global workspace; refused where the validator refuses it (no split, a persistent grid,
 * a cluster size the hardware model does not list). */
bool pt_explorer_model_set_split_cluster(pt_explorer_model *m, bool cluster, pt_error *err);
/* partition.stream_k (streamk.h): a persistent grid of that many CTAs splitting the loops of
 * the last partial wave evenly (persistent set with it), 0 = off; refused where the validator
 * refuses it (a loop that cannot be split, split-K on, more CTAs than EUs). */
bool pt_explorer_model_set_stream_k(pt_explorer_model *m, int stream_k, pt_error *err);
/* partition.run (ring_reuse.h): a persistent CTA takes runs of that many consecutive tiles,
 * keeping the tiles that repeat (persistent set with it), 1 = one at a time; refused where the
 * validator refuses it (split-K or stream-K on). */
bool pt_explorer_model_set_run(pt_explorer_model *m, int run, pt_error *err);
/* The sProgram's "decay" (decay_form.h): exp_decay as a tile or factored (its row factor on
 * the accumulators); refused for a graph without the exp_decay chain, with the reason. */
bool pt_explorer_model_set_decay(pt_explorer_model *m, pt_decay_form form, pt_error *err);
/* The sProgram's "release" (stage_hold.h): how CUDA-core readers hand ring stages back. */
bool pt_explorer_model_set_release(pt_explorer_model *m, pt_release_form form, pt_error *err);
/* Re-tile with a spec like "m=128,n=128,k=64,wg=2" applied over the current tiling: Propagate
 * and re-partition; the placement and waits are kept where every sTask id survives, else the
 * default sProgram of the new sTask-graph. */
bool pt_explorer_model_retile(pt_explorer_model *m, const char *spec, pt_error *err);

/* Where a bar of `stask` dropped at time t_ns on lane `lane` goes: before the first other entry
 * of the lane whose bars start after t_ns (counted without stask itself), -1 for the end. */
int pt_explorer_model_drop_position(const pt_explorer_model *m, int stask, int lane, double t_ns);

/* Replace the whole sProgram (e.g. by the automatic scheduler's choice): p with the sTask-graph
 * sg it refers to, for this model's graph. Re-partitioned with p's tiling, validated and
 * simulated, pushed on the undo stack like any edit; refused (model unchanged) otherwise. */
bool pt_explorer_model_replace_program(pt_explorer_model *m, const pt_sprogram *p,
                                       const pt_stask_graph *sg, pt_error *err);

bool pt_explorer_model_can_undo(const pt_explorer_model *m);
bool pt_explorer_model_can_redo(const pt_explorer_model *m);
bool pt_explorer_model_undo(pt_explorer_model *m, pt_error *err);
bool pt_explorer_model_redo(pt_explorer_model *m, pt_error *err);

/* The sProgram as JSON (malloc'd), or NULL. */
char *pt_explorer_model_to_json(const pt_explorer_model *m);
/* Write the sProgram to path; clears dirty and remembers the path. */
bool pt_explorer_model_save(pt_explorer_model *m, const char *path, pt_error *err);

#endif
