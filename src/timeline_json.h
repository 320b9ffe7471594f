/* timeline_json.h — the trace file: a timeline written to and read from JSON.
 *
 * Format "pipethreader.trace" (docs/FORMAT-trace.md): version 1 for a predicted timeline
 * alone, version 2 with a measured side; both are read. A trace names its graph and hardware, lists its lanes and sTask ids, and holds the
 * predicted spans with the kernel summary. A profiled trace adds "measured" (spans of sampled
 * CTAs from the instrumented build, and the kernel's timing from both builds) and "alignment"
 * (predicted against measured, sTask by sTask and lane by lane). A trace is self-contained:
 * span indices refer to its own lane and sTask lists, so it can be read back without the
 * graph it came from. */
#ifndef PT_TIMELINE_JSON_H
#define PT_TIMELINE_JSON_H

#include "busy.h"
#include "sim.h"

#define PT_TRACE_FORMAT "pipethreader.trace"
#define PT_TRACE_FILE_VERSION 2 /* newest written (with a measured side); 1 and 2 are read */
#define PT_TRACE_FILE_MAX_CTAS 1024
#define PT_TRACE_MAX_STASKS 100000
#define PT_TRACE_MAX_SPANS 5000000

/* One measured sTask instance on one lane of a sampled CTA. Times are ns from the measured
 * origin (pt_measured.origin). */
typedef struct {
    int stask;
    int lane;
    int tile;              /* tile number within the CTA (persistent kernels run several) */
    int64_t iter;          /* loop iteration (0 for prologue/epilogue sTasks) */
    double start_ns;
    double end_ns;
} pt_mspan;

typedef struct {
    int64_t block;         /* blockIdx.x */
    int64_t smid;          /* the SM it ran on */
    int64_t dropped;       /* records that did not fit the device buffer */
    int64_t unpaired;      /* start or end records without their partner */
    int64_t n_spans;
    pt_mspan *spans;       /* sorted by start, then lane */
    uint32_t unpaired_lanes; /* bit L: an unpaired record was on lane L */
    int64_t iter_first, iter_last; /* loop iterations its spans cover (-1, -1: none) */
} pt_mcta;

/* The kernel's timing, from both builds. Milliseconds per launch; NaN where unknown (written
 * as null). */
typedef struct {
    char timing[16];               /* "graph" (CUDA graph replay) or "direct"; "" unknown */
    int64_t iters;                 /* timed launches per build */
    double plain_ms_median, plain_ms_min, plain_ms_max;       /* CUDA events, plain build */
    double instr_ms_median, instr_ms_min, instr_ms_max;       /* CUDA events, instrumented */
    double overhead_pct;           /* (instrumented - plain) / plain * 100, medians */
    bool has_cupti;                /* the CUPTI numbers below are known */
    double cupti_ms_median, cupti_ms_min, cupti_ms_max;      /* CUPTI kernel records, plain */
    int64_t cupti_registers;       /* per thread */
    int64_t cupti_smem;            /* static + dynamic bytes */
    int64_t cupti_grid, cupti_block;
    double traced_kernel_ns;       /* CUPTI duration of the instrumented launch traced */
} pt_mkernel;

/* The measured side of a trace. */
typedef struct {
    bool present;
    char build[16];                /* "instrumented": the build the spans come from */
    char origin[24];               /* time 0: "cupti_kernel_start" (the traced launch's CUPTI
                                      start, same clock as %globaltimer), "kernel_start_aligned"
                                      (clocks disagreed: earliest record put at the kernel
                                      start) or "first_record" (no CUPTI) */
    double first_warp_delay_ns;    /* earliest record - kernel start (NaN: unknown) */
    double last_warp_gap_ns;       /* kernel end - latest record (NaN: unknown) */
    uint64_t origin_globaltimer;   /* %globaltimer of time 0 (not stored in the file: 0) */
    int n_ctas;
    pt_mcta *ctas;                 /* malloc'd */
    pt_mkernel kernel;
    /* The sample, as the buffer's header states it (0 where the file does not say): every
     * stride-th CTA of grid, n sampled, each warp role keeping its first `cap` records (so
     * every iteration until the buffer is full; the rest are counted as dropped). */
    int64_t sample_grid, sample_stride, sample_ctas, sample_cap;
} pt_measured;

/* Records lost over the whole sample. */
int64_t pt_measured_dropped(const pt_measured *m);
int64_t pt_measured_unpaired(const pt_measured *m);
/* Whether the sample is partial: records were dropped or left unpaired. Busy % and means from
 * a partial sample describe the records kept, not the whole run, and are marked so. */
bool pt_measured_partial(const pt_measured *m);
/* Whether lane L's measured figures are partial: any record dropped (the buffer does not say
 * of which lane), or an unpaired record on that lane. */
bool pt_measured_lane_partial(const pt_measured *m, int lane);
/* Whether the instrumented build ran so much slower than the plain one (overhead_pct, NaN
 * unknown) that the spans and measured busy describe a different kernel than the one timed:
 * above 10%, `profile` and the explorer say so. */
bool pt_mkernel_overhead_notable(double overhead_pct);

/* Predicted against measured, one sTask. Durations are means over instances; "first start"
 * is the start of the sTask's first instance relative to the EU start (predicted: the
 * earliest predicted span; measured: the earliest span of each (CTA, tile), averaged).
 * error_pct = (predicted - measured) / measured * 100. NaN where there is nothing to compare. */
typedef struct {
    int stask;
    int64_t predicted_count, measured_count;
    double predicted_mean_ns, measured_mean_ns, error_pct;
    double predicted_first_start_ns, measured_first_start_ns, start_error_ns;
    double measured_min_ns, measured_max_ns, measured_stddev_ns; /* spread over instances */
} pt_align_stask;

/* One lane: busy = union of its spans over the EU time (predicted) / over each sampled CTA's
 * first start to last end, averaged over CTAs (measured), in percent. */
typedef struct {
    int lane;
    double predicted_busy_pct, measured_busy_pct;
    double predicted_occupancy_pct; /* the unit's own occupancy (busy.h); NaN: unknown */
    bool measured_partial;         /* from a partial sample (pt_measured_lane_partial) */
} pt_align_lane;

typedef struct pt_alignment_s {
    bool present;
    double predicted_kernel_ns;    /* simulator, launch included */
    double measured_kernel_ns;     /* plain build, median of CUDA events */
    double kernel_error_pct;
    int n_stasks;
    pt_align_stask *stasks;        /* malloc'd, one per sTask of the trace */
    int n_lanes;
    pt_align_lane lanes[PT_MAX_LANES];
    bool partial;                  /* the measured sample is partial (pt_measured_partial) */
} pt_alignment;

void pt_measured_free(pt_measured *m);
void pt_alignment_free(pt_alignment *a);

/* Everything a trace file holds. */
typedef struct pt_trace_s {
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
    /* What the prediction was made from, so that a reader can re-simulate the trace's own
     * graph (docs/FORMAT-trace.md "params", "sprogram"); absent in older files. */
    int n_params;                                      /* -1: the file names none */
    char param_names[PT_MAX_PARAMS][PT_NAME_MAX];
    int64_t param_values[PT_MAX_PARAMS];
    char *sprogram_json;    /* malloc'd sProgram JSON text; NULL when the file holds none */
    int version;            /* of the file read */
    bool has_measured;      /* "measured" is present and not null (version 1: not read) */
    pt_measured measured;   /* version 2: read when present */
    pt_alignment alignment; /* version 2: read when present */
} pt_trace;

/* Write a simulated timeline. p and sg name the lanes and sTasks; hw may be NULL (the
 * program's hw_name is used). Returns malloc'd text, one span per line; NULL when out of
 * memory. */
char *pt_timeline_to_json(const pt_timeline *tl, const pt_sprogram *p, const pt_stask_graph *sg,
                          const pt_hw *hw);
/* The same with the measured side and the alignment (either may be NULL or not present:
 * written as null). Measured spans are checked against sg's sTasks and p's lanes; NULL when
 * out of memory or an index is out of range. */
char *pt_profile_to_json(const pt_timeline *tl, const pt_sprogram *p, const pt_stask_graph *sg,
                         const pt_hw *hw, const pt_measured *m, const pt_alignment *a);

/* Read a trace. On failure returns false, tr is left empty and err holds one line
 * "<name>: <JSON path>: <what is wrong>; expected <what>". Free with pt_trace_free. */
bool pt_trace_load_text(pt_trace *tr, const char *name, const char *text, size_t len,
                        pt_error *err);
bool pt_trace_load_file(pt_trace *tr, const char *path, pt_error *err);
void pt_trace_free(pt_trace *tr);
/* The trace's graph parameters as --set takes them ("M=512,N=512"; "" when it names none),
 * truncated to cap: what a reader re-simulating the trace's own graph passes as overrides. */
void pt_trace_params_text(const pt_trace *tr, char *out, size_t cap);

/* Convenience: only the timeline (caller frees with pt_timeline_free) and the lane names
 * (room for PT_MAX_LANES). */
bool pt_timeline_load_text(pt_timeline *tl, char lane_names[][PT_LANE_NAME_MAX], int *n_lanes,
                           const char *name, const char *text, size_t len, pt_error *err);

#endif
