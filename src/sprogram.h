/* sprogram.h — the sProgram: a schedule of one sTask-graph on the sEUs of an EU.
 *
 * sProg[lane][order]: each lane is one sEU as issued by one warp role (`tma` by the
 * producer, `tc.wg0`/`cuda.wg0` by consumer warpgroup 0, ...). Its entries are issued in
 * order: prologue sTasks first, then the loop body once per iteration (an entry with
 * offset o runs, in loop step v, the sTask of iteration v + o: this is how software
 * pipelining is written), then epilogue sTasks. Waits are the cross-lane dependencies;
 * each becomes a barrier-sTask in code. Also holds the tiling, the stages of each buffered
 * tile, the warp roles' register budgets and the inter-EU partition. */
#ifndef PT_SPROGRAM_H
#define PT_SPROGRAM_H

#include "decay_form.h"
#include "hw.h"
#include "stask.h"

#define PT_MAX_LANES 16
#define PT_MAX_ROLES (PT_MAX_WARPGROUPS + 1) /* the producer and the consumers */
#define PT_LANE_NAME_MAX 32

typedef struct {
    int stask;
    int offset;            /* iteration offset within the loop (body sTasks only) */
} pt_lane_entry;

typedef struct {
    char name[PT_LANE_NAME_MAX];
    pt_seu_kind seu;
    int role;              /* index into roles */
    int n, cap;
    pt_lane_entry *entries;
} pt_lane;

typedef struct {
    char name[PT_LANE_NAME_MAX];   /* "producer", "wg0", ... */
    int threads;                   /* 128: one warpgroup */
    int regs;                      /* per-thread budget (setmaxnreg) */
    int wg;                        /* consumer warpgroup index, -1 for the producer */
} pt_role_def;

typedef struct {
    int stask;             /* the waiting sTask */
    int on;                /* the sTask waited for */
    int distance;          /* iterations back: 0 = same iteration */
} pt_wait_entry;       /* (named apart from the function pt_wait: C has one namespace) */

typedef enum { PT_RASTER_ROW, PT_RASTER_COLUMN, PT_RASTER_GROUPED } pt_raster;

/* Launch order of the tiles over the raster: as rastered, or (under a causal mask) the longest
 * query tiles first. auto: longest first when the graph is causal. */
typedef enum { PT_ORDER_AUTO, PT_ORDER_RASTER, PT_ORDER_LONGEST_FIRST } pt_tile_order;

/* Where the output tile is staged for its store: in a buffer of its own, or over the largest
 * resident tile (attention's Q) once the loop is done with it. auto: apart only in a
 * persistent program where both fit (the next tile's Q then loads during this tile's store). */
typedef enum { PT_STAGING_AUTO, PT_STAGING_APART, PT_STAGING_OVER_RESIDENT } pt_staging;

typedef enum { PT_SPLIT_REDUCE_WORKSPACE, PT_SPLIT_REDUCE_CLUSTER } pt_split_reduce;

#define PT_MAX_RUN 4096 /* partition.run: launch positions a persistent CTA takes in a row */

typedef struct {
    pt_raster raster;
    int group;             /* grouped rasterisation: tiles per group along the slow axis */
    bool persistent;       /* one CTA per EU looping over tiles */
    pt_tile_order order;
    pt_staging staging;
    /* split-K (splitk.h): each output tile's reduction loop cut into split_k chunks run as
     * separate work items, their partial tiles summed by the chunk that finishes last;
     * 1 = no split. 0 (a program built in code that never set it) reads as 1. */
    int split_k;
    /* how the chunks' partial tiles meet (splitk.h): through a global workspace and a ticket
     * (the default), or, with split_k 2..8 on a grid of one tile per CTA, through the
     * distributed shared memory of a thread-block cluster of the tile's chunks */
    pt_split_reduce split_reduce;
    /* stream-K (streamk.h): a persistent grid of stream_k CTAs; the tiles past the last whole
     * wave have their (tile, k-iteration) work split evenly over the CTAs, tiles shared by
     * several CTAs fixed up by the last to finish; 0 = off. */
    int stream_k;
    /* how a persistent CTA walks the launch positions: in runs of `run` consecutive ones, the
     * runs strided over the grid (CTA i takes run i, i + grid, ...); 0 or 1 = one position at a
     * time. Within a run a ring that holds all of a tile's iterations keeps them for the next
     * tile when their coordinates are the same (ring_reuse.h): Mamba2's B, shared by a
     * chunk's heads. */
    int run;
} pt_partition_spec;

/* A graph parameter the schedule chose (the scheduler's split count: graph.h split_param). */
#define PT_SPROGRAM_MAX_PARAMS 4
typedef struct {
    char name[PT_NAME_MAX];
    int64_t value;
} pt_sprogram_param;

/* How a CUDA-core sTask that reads a ring stage into registers hands it back (stage_hold.h):
 * GROUP with the wgmma group that consumed what it made, where the rings still progress so
 * (else as FENCE); FENCE behind a proxy fence right after its own reads. */
typedef enum { PT_RELEASE_GROUP = 0, PT_RELEASE_FENCE = 1 } pt_release_form;

const char *pt_release_form_name(pt_release_form f);
bool pt_release_form_parse(const char *s, pt_release_form *out);

typedef struct {
    char graph_name[PT_NAME_MAX];
    char hw_name[48];
    /* "params": graph parameters this schedule was made for; the graph it is read against must
     * have been loaded with these values (the CLI applies them: sprogram_params.h) */
    int n_params;
    pt_sprogram_param params[PT_SPROGRAM_MAX_PARAMS];
    pt_tiling tiling;              /* as given (unpropagated tiles are 0) */
    int stages[PT_MAX_TENSORS];    /* ring depth per buffered tensor, 0 = not buffered */
    int n_roles;
    pt_role_def roles[PT_MAX_ROLES];
    int n_lanes;
    pt_lane lanes[PT_MAX_LANES];
    int n_waits, cap_waits;
    pt_wait_entry *waits;
    pt_partition_spec partition;
    pt_decay_form decay;           /* "decay": how exp_decay's tile is lowered (decay_form.h) */
    pt_release_form release;       /* "release": how a CUDA-core reader hands a ring stage back
                                      (stage_hold.h) */
} pt_sprogram;

const char *pt_raster_name(pt_raster r);
bool pt_raster_parse(const char *s, pt_raster *out);
const char *pt_tile_order_name(pt_tile_order o);
bool pt_tile_order_parse(const char *s, pt_tile_order *out);
const char *pt_staging_name(pt_staging s);
bool pt_staging_parse(const char *s, pt_staging *out);

/* An empty program for sg: roles producer + one per warpgroup, lanes tma, tc.wgN, cuda.wgN,
 * stages 2 on every buffered tensor, no entries and no waits. */
void pt_sprogram_init(pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw);
void pt_sprogram_free(pt_sprogram *p);
bool pt_sprogram_copy(pt_sprogram *dst, const pt_sprogram *src);

int pt_sprogram_find_lane(const pt_sprogram *p, const char *name);
/* A new empty lane of sEU kind `seu` run by role `role`; its index, or -1 when the name is
 * taken, the role does not exist or PT_MAX_LANES are in use. */
int pt_sprogram_add_lane(pt_sprogram *p, const char *name, pt_seu_kind seu, int role);
/* Where an sTask is placed: returns false if nowhere. */
bool pt_sprogram_placement(const pt_sprogram *p, int stask, int *lane, int *pos);

/* Append(sTask, lane[, position]): place (or move) an sTask; position -1 = at the end. */
bool pt_append(pt_sprogram *p, const pt_stask_graph *sg, int stask, int lane, int position,
               int offset, pt_error *err);
/* Remove an sTask from its lane (it is then unplaced: validation will say so). */
bool pt_unplace(pt_sprogram *p, int stask);
/* Wait(sTask, list): stask may not start until each of on[i] (distance[i] iterations back;
 * distance may be NULL = all 0) has completed. Duplicates are ignored. */
bool pt_wait(pt_sprogram *p, const pt_stask_graph *sg, int stask, const int *on,
             const int *distance, int n, pt_error *err);
bool pt_unwait(pt_sprogram *p, int stask, int on, int distance);
bool pt_has_wait(const pt_sprogram *p, int stask, int on, int distance);

/* The deterministic default: every sTask on its natural lane in topological order, a Wait
 * for every cross-lane dependency, stages from the graph's defaults (2 if none). */
/* The lane an sTask runs on when nobody says otherwise: tma; tc.wgN; cuda.wgN (warpgroup 0 for
 * an sTask of the whole EU); a dequantised operand on cuda.producer where the program has it.
 * -1 when the program lacks that lane. */
int pt_sprogram_natural_lane(const pt_sprogram *p, const pt_stask *t);
bool pt_sprogram_default(pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                         pt_error *err);

/* JSON (docs/FORMATS.md §3). Loading re-partitions `g` with the file's tiling into sg
 * (caller frees with pt_stask_graph_free) and resolves sTask ids against it. */
bool pt_sprogram_load_file(pt_sprogram *p, pt_stask_graph *sg, const pt_graph *g,
                           const char *path, pt_error *err);
bool pt_sprogram_load_text(pt_sprogram *p, pt_stask_graph *sg, const pt_graph *g,
                           const char *name, const char *text, size_t len, pt_error *err);
/* malloc'd JSON text, stable key order, one entry per line where it helps diffs. */
char *pt_sprogram_to_json(const pt_sprogram *p, const pt_stask_graph *sg);

#endif
