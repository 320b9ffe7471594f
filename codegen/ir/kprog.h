/* kprog.h — the kernel program: what a generated kernel does, before any target prints it.
 *
 * lower.c builds it from a (graph, sTask-graph, sProgram) by running the passes of this folder
 * in order (one file per pass, like TileLang's phase list):
 *
 *   pass_roles    the warp roles (one producer, the consumer warpgroups), which role issues each
 *                 sTask, the producer's load order, who stores;
 *   pass_bodies   what each consumer sTask computes (its body: mma, row max, exp, ...), where its
 *                 operands live (a shared-memory buffer or a register value) and what it writes;
 *   pass_buffers  the shared-memory buffers (rings of stages, resident tiles, the store's staging
 *                 tile), what holds a ring stage (src/stage_hold.h, decided once), the layout;
 *   pass_step     per consumer role its step program: tasks merged into one issue order, the
 *                 register values' slot rings, and the waits for asynchronous groups with the
 *                 stage releases they allow, from the fill steps to the steady state;
 *   pass_xwaits   the Waits between consumer roles as rings of named barriers;
 *   pass_grid     the tile grid, launch order, persistence and the trace regions' size.
 *
 * A target (codegen/sm90a/) checks what its instructions need (shapes, register caps) and prints
 * the program: one call of its device library per task body, one loop per role. Adding a
 * workload means adding bodies (pass_bodies.c) and their device calls; adding a target means a
 * printer over this program. Refusals name the sTask, lane or buffer at fault. */
#ifndef PT_KPROG_H
#define PT_KPROG_H

#include "sprogram.h"
#include "stage_hold.h"
#include "streamk.h"

#define PT_KP_MAX_WG 4           /* consumer warpgroups */
#define PT_KP_MAX_BUFS 8
#define PT_KP_MAX_VALS 8
#define PT_KP_MAX_TASKS 16       /* tasks of one role's step */
#define PT_KP_MAX_OPS 48         /* operations of one printed step */
#define PT_KP_MAX_XWAITS 6
#define PT_KP_MAX_PENDING 8      /* asynchronous groups in flight */
#define PT_KP_MAX_LOADS 4        /* producer body loads */

/* ---- shared memory ---- */

typedef enum {
    PT_KBUF_RING,       /* a body load: one tile per iteration in a ring of stages (A, B, K, V) */
    PT_KBUF_RESIDENT,   /* a prologue load: one tile per output tile (attention's Q) */
    PT_KBUF_STAGING,    /* the output tile, written by the epilogue and read by the store */
    PT_KBUF_ROWS,       /* a second output of one f32 per row (an online softmax's log-sum-exp),
                           staged apart with the staging tile's barriers and written out by
                           the storing thread with plain stores: 4-byte rows are below TMA's
                           16-byte box and stride rule */
} pt_kbuf_kind;

typedef struct {
    pt_kbuf_kind kind;
    int tensor;          /* graph tensor */
    int stask, lane;     /* its load (store for STAGING) and the lane issuing it */
    int stages;          /* ring depth; RESIDENT: 1, or 2 where a persistent CTA loads the next
                            tile's copy while this tile uses the other (copy n_tile & 1) */
    int elem_bytes;      /* at least 1; elem_bits < 8: packed (two 4-bit elements a byte) */
    int elem_bits;
    bool written;        /* RING written by the producer role's CUDA cores (a dequantised
                            operand: pt_stask_writes_ring), not by TMA */
    int readers;         /* RING: arrivals that release a stage: every consumer warpgroup
                            that reads it, or 1 for the producer's dequantising warps */
    int64_t bytes;       /* one stage; a row of a loaded tile is at least 16 bytes (the
                            granule of a TMA box and of a global -> LDS copy) */
    int64_t row_bytes;   /* bytes of one row (innermost axis) of a stage */
    int64_t box_rows;    /* rows of a TMA box (along the tensor's second-innermost axis): the
                            tile's, or the tensor's extent where that is smaller and the axis is
                            one of the output's (rows past it feed only output rows that are
                            never stored, so they are neither loaded nor zero-filled) */
    int64_t tx_bytes;    /* bytes one stage's loads bring: box_rows of the tile's rows */
    int64_t pitch;       /* stage pitch: bytes rounded up to the 1024 of 128-byte swizzle */
    int64_t offset;      /* from the 1024-aligned base */
    int over;            /* STAGING over RESIDENT buffer `over` (written once the loop is done with
                            it), -1 in a buffer of its own */
    int lag;             /* RING: iterations a stage stays held past its reader (stage_hold.h) */
    bool staged;         /* its tensor's rows are not a multiple of 16 bytes: the launcher maps
                            a 16-byte-aligned staging copy instead (src/staging.h) */
} pt_kbuf;

/* ---- register values ---- */

typedef enum {
    PT_KVAL_ITER,       /* one per iteration (score tile, softmax state, P): a ring of slots */
    PT_KVAL_CARRIED,    /* carried over the loop (accumulators, running sums): one */
} pt_kval_kind;

typedef struct {
    pt_kval_kind kind;
    int tensor;          /* graph tensor it holds a tile of, -1 for an op's internal state */
    int op;              /* tensor -1: the op whose state it is (softmax: row max, row sum) */
    int slots;           /* ITER: iterations live at once per role (1 or 2) */
} pt_kval;

/* ---- consumer tasks ---- */

typedef enum {
    PT_KB_MMA,          /* tensor core: out (+)= a . b */
    PT_KB_ROW_MAX,      /* causal mask, row max of a score tile, rescale factor -> softmax state */
    PT_KB_EXP_ROWS,     /* p = exp2(s·scale - m): the next mma's operand */
    PT_KB_ROW_SUM,      /* l = l·alpha + rowsum(p) */
    PT_KB_RESCALE,      /* acc *= alpha */
    PT_KB_CONVERT,      /* epilogue: accumulators -> output dtype into the staging tile */
    PT_KB_NORMALIZE,    /* epilogue: acc / l -> output dtype into the staging tile */
    PT_KB_DEQUANT,      /* producer CUDA cores: packed 4-bit tile x group scales -> f16/bf16
                           tile in a shared-memory ring an mma reads */
    PT_KB_LSE,          /* epilogue: m + log(l) per row (natural log) into the ROWS buffer */
    PT_KB_REDUCE,       /* loop-free: max or sum of a tile over one of its axes (the op says) */
    PT_KB_EWISE,        /* an elementwise op (sub, exp, mul, div, ...) of its inputs, broadcast
                           over the axes an input lacks: loop-free (the output's if epilogue),
                           once per iteration in a loop body (Mamba2's scaling), once per tile
                           before the loop (a prologue value) or the epilogue's sum */
    PT_KB_EXP_DECAY,    /* exp(a[row] - b[col]) of a row and a column vector, 0 past the diagonal
                           when causal: Mamba2 ChunkScan's decay tile */
    PT_KB_KINDS
} pt_kbody;

const char *pt_kbody_name(pt_kbody b);

typedef enum { PT_KSRC_NONE, PT_KSRC_BUF, PT_KSRC_VAL } pt_ksrc_kind;

typedef struct {
    pt_ksrc_kind kind;
    int index;           /* into bufs or vals */
} pt_ksrc;

#define PT_KTASK_INS 3

typedef struct {
    pt_kbody body;
    int stask, lane, offset;  /* the sTask, its lane and iteration offset */
    int op;                   /* graph op */
    bool async;               /* completes at a wait (a tensor-core group), not when issued */
    int n_in;
    pt_ksrc in[PT_KTASK_INS]; /* mma: A, B; others: the values read */
    int out;                  /* value written, -1 */
    int out_buf;              /* ring written (dequant), -1 */
} pt_ktask;

/* A group of asynchronous work completed by a wait: the task and the step it was issued in,
 * relative to the current one (0, -1, ...). */
typedef struct {
    int task;
    int step;
} pt_kgroup;

typedef enum {
    PT_KOP_TASK,        /* issue task `arg` */
    PT_KOP_WAIT,        /* wait until `arg` groups remain in flight; `done` completed */
    PT_KOP_XSYNC,       /* named-barrier sync of cross Wait `arg` (before its waiter) */
    PT_KOP_XARRIVE,     /* named-barrier arrive of cross Wait `arg` (after what it waits on) */
} pt_kop_kind;

typedef struct {
    pt_kop_kind kind;
    int arg;
    int n_done;
    pt_kgroup done[4];
} pt_kop;

/* A Wait between tasks of two consumer roles: `waiter` (task of role wb) is not issued before
 * `on` (task of role wa) of `distance` iterations back was. */
typedef struct {
    int wa, on, wb, waiter, distance;
    int bar_base, ring;  /* named barriers bar_base .. bar_base + ring - 1 */
} pt_kxwait;

/* ---- roles ---- */

typedef struct {
    int wg;              /* consumer warpgroup, -1 for the producer */
    /* the producer: its CUDA-core tasks (dequant), run by its warps other than the TMA
     * thread's, once per iteration; consumers: the step program below */
    int role;            /* the sProgram's role */
    int regs;            /* register budget per thread */
    bool stores;         /* issues the store of the staging tile */
    /* consumer: the step program */
    int n_tasks;
    pt_ktask tasks[PT_KP_MAX_TASKS];   /* in issue order within a step */
    int n_ops;
    pt_kop ops[PT_KP_MAX_OPS];         /* the steady step */
    int n_steady;
    pt_kgroup steady[PT_KP_MAX_PENDING]; /* groups in flight at the start of a steady step */
    int release_with[PT_KP_MAX_TASKS]; /* a CUDA-core task's ring stages: handed back when the
                                          group of this asynchronous task of the same iteration
                                          completes, or -1: once read, after a proxy fence
                                          (pass_step.c, decision 4) */
    int peel;            /* steady steps printed after the fill before the loop */
    int n_pro;           /* prologue tasks: once per tile before the loop (a loop graph's
                            compute sTasks of the prologue region: Mamba2 ChunkScan's C.states),
                            in the sTask-graph's order, which follows the data */
    pt_ktask pro[PT_KP_MAX_TASKS];
    pt_ktask epilogue;   /* convert or normalize: after the loop, once per tile */
    pt_ktask rows_task;  /* the log-sum-exp into the ROWS buffer (stask -1: none), once per
                            tile like the epilogue */
} pt_krole;

/* How a printer runs a role's steps: NONE, a graph without a reduction loop (FlashDecoding's
 * combine): the role's tasks run once per tile in lane order, all synchronous; GUARDED, one loop over all iterations with run-time
 * guards on the releases (each role's step is its mma alone at offset 0, no register rings);
 * PEELED, fill copies, peeled steps, the steady loop and drain copies with every
 * task present or absent at print time (different offsets, or register rings). */
typedef enum { PT_KLOOP_GUARDED, PT_KLOOP_PEELED, PT_KLOOP_NONE } pt_kloop;

typedef struct pt_kprog {
    const pt_graph *g;
    const pt_stask_graph *sg;
    const pt_sprogram *p;
    const pt_hw *hw;
    int wgs;                     /* consumer roles */
    pt_krole producer;
    pt_krole consumer[PT_KP_MAX_WG];
    int lane_load;               /* the producer's TMA lane */
    int n_loads;                 /* producer body loads, lane order */
    int load_buf[PT_KP_MAX_LOADS];
    int load_offset[PT_KP_MAX_LOADS];
    int off_min, off_max;        /* offsets over those loads */
    int n_res;                   /* resident (once per tile) loads, lane order */
    int res_buf[PT_KP_MAX_BUFS];
    int c_off_min, c_off_max;    /* offsets over the consumers' tasks */
    int n_bufs;
    pt_kbuf bufs[PT_KP_MAX_BUFS];
    int staging;                 /* the STAGING buffer */
    int rows;                    /* the ROWS buffer, -1 */
    int store_stask, store_lane, store_wg; /* store_wg -1: the producer stores */
    bool wg_stores;              /* each consumer warpgroup stores its own rows (tiling
                                    wg_stores): wg_store_stask[w] from lane wg_store_lane[w];
                                    store_* above are warpgroup 0's */
    int wg_store_stask[PT_KP_MAX_WG], wg_store_lane[PT_KP_MAX_WG];
    int n_vals;
    pt_kval vals[PT_KP_MAX_VALS];
    int n_xwaits;
    pt_kxwait xw[PT_KP_MAX_XWAITS];
    int carry;                   /* async groups kept in flight across steps (stage_hold) */
    pt_stage_hold hold;          /* the contract on ring stages (src/stage_hold.h) */
    pt_kloop loop;
    int unroll;                  /* steps printed per loop turn: the largest value ring */
    /* shared memory: barriers after the buffers */
    int64_t off_bar, bar_bytes, smem_dynamic;
    /* grid: work items are output tiles, or with split-K (partition.split_k, src/splitk.h)
     * tiles x split_k chunks of their reduction loop, adjacent in launch order */
    int64_t tiles, grid, iters;  /* iters: loop trip count of a full tile */
    int split_k;
    bool cluster;                /* partition.split_k_reduce cluster (src/splitk.h): a tile's chunks
                                    are one thread-block cluster; the others' partial tiles go to
                                    the leader's shared memory: split_k - 1 slots at off_cluster
                                    (after the barriers, or over the rings: cluster_over_rings,
                                    the others then wait for the leader's loop to end), its
                                    arrival and "rings free" barriers at off_clbar */
    bool cluster_over_rings;
    int64_t off_cluster, off_clbar;
    int64_t items;
    int64_t workspace_bytes;     /* split-K: the partial f32 tiles of the non-last chunks;
                                    stream-K: two slots per stream-K CTA */
    int stream_k;                /* partition.stream_k (0: off): the CTAs asked for */
    pt_stream_k sk;              /* stream-K: the partition (grid, DP and SK tiles, src/streamk.h) */
    bool persistent, dynamic, longest_first, causal;
    int run;                     /* partition.run: a CTA takes runs of this many positions */
    uint32_t kept;               /* tensors whose rings a run keeps across tiles
                                    (src/ring_reuse.h), bit t for tensor t */
    pt_raster raster;
    int group;
    int threads;
    unsigned trace_cap;          /* records per (CTA, role) of the instrumented build */
    char kernel_name[64];
} pt_kprog;

/* Runs the passes; false with a one-line reason ("codegen <who>: ...") for what cannot be
 * generated correctly. The sProgram must validate (the caller checks). */
bool pt_kprog_build(pt_kprog *kp, const pt_sprogram *p, const pt_stask_graph *sg,
                    const pt_hw *hw, const char *who, pt_error *err);

/* One step of consumer role w with the tasks of `present` (NULL: all) from the groups `pend`
 * in flight (updated); the number of ops written to ops, -1 past a limit. Printers call it to
 * print fill and drain copies; pass_step uses it to find the steady state. */
int pt_kprog_step(const pt_kprog *kp, int w, const bool *present, pt_kgroup *pend, int *np,
                  pt_kop *ops);
bool pt_kprog_same_pending(const pt_kgroup *a, int na, const pt_kgroup *b, int nb);

/* The task of role w that is sTask s, -1. */
int pt_kprog_task_of(const pt_krole *r, int stask);
/* The buffer of tensor t, -1. */
int pt_kprog_buf_of(const pt_kprog *kp, int tensor);
/* Ring buffers task t reads from shared memory (waited for before it, released after it):
 * written to rings[], count returned. */
int pt_kprog_task_rings(const pt_kprog *kp, const pt_ktask *t, int *rings);

#endif
