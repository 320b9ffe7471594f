/* sm90a_attn.h — the Hopper generator's plan for attention graphs (matmul → online_softmax →
 * matmul, FlashAttention forward).
 *
 * sm90a_attn_plan.c reads the sProgram into a plan: tensors and shapes, tile, the producer's
 * load order and offsets, ring depths, and per consumer warpgroup a *step program*: the
 * entries of its tensor-core and CUDA-core lanes merged into the one instruction stream the
 * warpgroup runs per loop step (an entry with iteration offset o processes iteration v + o at
 * step v), with the wgmma wait_group depths, shared-memory stage releases and the named
 * barriers of cross-warpgroup Waits placed where the Waits and lane orders put them.
 * sm90a_attn_emit.c prints the plan; it decides nothing. */
#ifndef PT_SM90A_ATTN_H
#define PT_SM90A_ATTN_H

#include "codegen.h"

#define FA_MAX_WG 3
#define FA_MAX_STEP 16    /* entries of one warpgroup's step program */
#define FA_MAX_OPS 48     /* step-program operations (entries, waits, barriers) */
#define FA_MAX_XWAITS 6   /* Waits between consumer warpgroups */
#define FA_MAX_PENDING 8  /* wgmma groups in flight */

typedef enum {
    FA_E_MMA_S,     /* S = Q K^T (wgmma, A and B from shared memory) */
    FA_E_MAX,       /* mask + row max, rescale factor */
    FA_E_EXP,       /* p = exp2(s * scale·log2e - m) */
    FA_E_SUM,       /* l = l * alpha + rowsum(p) */
    FA_E_RESCALE,   /* O *= alpha */
    FA_E_MMA_O,     /* O += P V (wgmma, P from registers) */
    FA_E_KINDS
} fa_entry_kind;

typedef struct {
    fa_entry_kind kind;
    int stask, lane, offset;
} fa_entry;

typedef enum {
    FA_OP_ENTRY,        /* run entry `arg` */
    FA_OP_WAIT,         /* wgmma.wait_group `arg`; then `n_done` groups are complete */
    FA_OP_XSYNC,        /* named-barrier sync for cross Wait `arg` (before the entry after it) */
    FA_OP_XARRIVE,      /* named-barrier arrive for cross Wait `arg` (after the entry before it) */
} fa_op_kind;

/* A wgmma group completed by a wait: the mma entry and the step it was committed in relative
 * to the current one (0 or -1). */
typedef struct {
    int entry;
    int step;
} fa_group;

typedef struct {
    fa_op_kind kind;
    int arg;
    int n_done;
    fa_group done[4];
} fa_op;

/* A Wait between sTasks of two consumer warpgroups: `waiter` (entry of warpgroup wb) may not
 * be issued before `on` (entry of warpgroup wa) of `distance` iterations back was. */
typedef struct {
    int wa, on, wb, waiter, distance;
    int bar_base, ring;   /* named barrier ids bar_base .. bar_base + ring - 1 */
} fa_xwait;

typedef struct {
    int n_entries;
    fa_entry e[FA_MAX_STEP];
    int n_ops;
    fa_op ops[FA_MAX_OPS];
    int n_steady;             /* groups in flight at the start of every steady step */
    fa_group steady[FA_MAX_PENDING];
    int peel;                 /* steady steps printed after the fill before the loop */
    int regs;
    int st_norm, lane_norm;
} fa_wg_program;

typedef struct {
    const pt_graph *g;
    const pt_stask_graph *sg;
    const pt_sprogram *p;
    const pt_hw *hw;
    int Q, K, V, O;                /* tensor indices */
    int op_qk, op_sm, op_pv;
    int ax_m;                      /* the query-row axis */
    int64_t B, H, S, D;            /* batch, heads, sequence (queries = keys), head dim */
    int64_t BM, BN;                /* query rows and key columns per tile */
    int wgs;                       /* consumer warpgroups, 64 query rows each */
    bool causal;
    bool longest_first;            /* tiles launched longest first (pt_sprogram_longest_first) */
    double scale;                  /* softmax scale from the graph */
    pt_dtype in_dt, out_dt;
    int stages_k, stages_v;
    int s_bufs;                    /* S tiles live at once per warpgroup (1 or 2) */
    int m_bufs;                    /* softmax states (row max, factor) live at once (1 or 2) */
    int p_bufs;                    /* P fragments live at once: written by softmax exp, read by
                                      the P.V wgmma until it completes (1 or 2) */
    int unroll;                    /* steps printed per loop turn: the largest ring */
    /* producer lane, in order: Q in the prologue; K and V per step at their offsets */
    int n_loads;
    int load_which[4];             /* 0 = K, 1 = V */
    int load_offset[4];
    int off_min, off_max;          /* offsets over the producer's body loads */
    int c_off_min, c_off_max;      /* offsets over the consumers' entries */
    int st_load_q, st_load_k, st_load_v, st_store;
    int lane_load, lane_store;
    bool store_by_producer;
    int store_wg;
    int regs_producer;
    fa_wg_program wg[FA_MAX_WG];
    int n_xwaits;
    fa_xwait xw[FA_MAX_XWAITS];
    int threads;
    bool persistent;
    int64_t tiles_m, tiles, grid, kv_blocks;
    unsigned trace_cap;            /* records per (CTA, role) of the instrumented build */
    int64_t q_bytes, kv_slot_bytes, off_q, off_k, off_v, off_bar, smem_dynamic;
    /* O's staging tile: its own buffer in a persistent kernel when it fits (the next tile's Q
     * then loads during this tile's epilogue), else over Q's rows */
    bool o_separate;
    int64_t off_o, o_bytes;
    /* persistent and causal: tiles of unequal length are handed out one by one from a global
     * counter (in launch order, longest first) instead of round-robin */
    bool dynamic;
    char kernel_name[64];
} fa_plan;

/* Whether graph g is the attention pattern this plan handles (matmul, online_softmax, matmul). */
bool sm90a_attn_matches(const pt_graph *g);
bool sm90a_attn_make_plan(fa_plan *pl, const pt_sprogram *p, const pt_stask_graph *sg,
                          const pt_hw *hw, pt_error *err);
/* One step of warpgroup w's program with the entries of `present` (NULL: all) from the groups
 * `pend` in flight (updated); the number of ops written, -1 past a limit. */
int sm90a_attn_step(const fa_plan *pl, int w, const bool *present, fa_group *pend, int *np,
                    fa_op *ops);
bool sm90a_attn_same_pending(const fa_group *a, int na, const fa_group *b, int nb);
bool sm90a_attn_emit(const fa_plan *pl, pt_codegen_result *out, pt_error *err);

#endif
