/* sm90a_plan.h — what the Hopper generator reads out of an sProgram before emitting code.
 *
 * sm90a_plan.c checks that the (graph, sTask-graph, sProgram) is one this backend generates
 * correctly and records every decision the code depends on: operand layouts, tile and
 * warpgroup shapes, which warp role issues each sTask and in which order, ring depths, the
 * shared-memory layout, register budgets and the grid. sm90a_emit.c only prints it. */
#ifndef PT_SM90A_PLAN_H
#define PT_SM90A_PLAN_H

#include "codegen.h"

#define SM90A_MAX_WG 3
#define SM90A_MAX_LOADS 4

/* One producer-lane body entry: load `which` (0 = A, 1 = B) at iteration offset. */
typedef struct {
    int which;
    int offset;
} sm90a_load_entry;

typedef struct {
    const pt_graph *g;
    const pt_stask_graph *sg;
    const pt_sprogram *p;
    const pt_hw *hw;
    int op;
    int A, B, C;                 /* tensor indices */
    int64_t M, N, K;
    int64_t BM, BN, BK;
    int wgs;                     /* consumer warpgroups */
    int m_wg;                    /* rows per consumer warpgroup (64 or 128) */
    int mrep;                    /* m64 instructions per k16 step per warpgroup */
    bool b_kmajor;               /* B stored N x K (else K x N: N-major, transposed wgmma) */
    pt_dtype in_dt, out_dt;
    int in_bytes, out_bytes;
    int stages[2];               /* ring depth of A and B */
    int mma_in_flight;           /* stage_hold.h: wgmma groups kept in flight across a k step
                                  * (1: wait_group<1>, a stage released one iteration late;
                                  * 0: wait_group<0>, released in its own iteration) */
    int n_loads;                 /* producer body entries in lane order */
    sm90a_load_entry loads[SM90A_MAX_LOADS];
    int off_min, off_max;        /* offsets over those entries */
    /* sTask and lane indices, for the instrumented build's records */
    int st_load[2], st_store, st_mma[SM90A_MAX_WG], st_cvt[SM90A_MAX_WG];
    int lane_load, lane_store, lane_mma[SM90A_MAX_WG], lane_cvt[SM90A_MAX_WG];
    int store_role;              /* role index issuing the TMA store */
    bool store_by_producer;
    int store_wg;                /* consumer warpgroup that stores, when not the producer */
    int regs_producer;
    int regs_consumer[SM90A_MAX_WG];
    int threads;
    bool persistent;
    pt_raster raster;
    int group;
    int64_t tiles_m, tiles_n, tiles, grid, k_iters;
    unsigned trace_cap;          /* records per (CTA, role) of the instrumented build */
    /* shared memory, bytes from the 1024-aligned base */
    int64_t slot_bytes[2], off_ring[2];
    int c_chunk_cols;            /* output columns per 128-byte swizzled store box */
    int64_t off_c, c_bytes;
    int64_t off_bar;
    int64_t smem_dynamic;        /* including the 1024 bytes of alignment slack */
    char kernel_name[64];
} sm90a_plan;

bool sm90a_make_plan(sm90a_plan *pl, const pt_sprogram *p, const pt_stask_graph *sg,
                     const pt_hw *hw, pt_error *err);
bool sm90a_emit(const sm90a_plan *pl, pt_codegen_result *out, pt_error *err);

#endif
