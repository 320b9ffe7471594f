/* combine.h — the Hopper target's view of FlashDecoding's combine (codegen/ir/kprog.h, a program
 * without a loop): O = sum_s exp(X_s - max_s X) Y_s / sum_s exp(X_s - max_s X), X the splits'
 * log-sum-exps [batch..., s, g] and Y their partial outputs [batch..., s, g, d], both f32.
 *
 * combine_plan.c checks the graph is that pattern (reduce_max, sub, exp, reduce_sum, mul,
 * reduce_sum, div over the split axis s) and what the instructions need; combine_emit.c prints
 * the producer (X and Y of a tile by TMA, unswizzled, then the store of O) and the warpgroup's
 * tasks once per tile, one device call each.
 *
 * Any group count G >= 1: X's rows (G f32 along g, one per split) are a TMA stride only when G
 * is a multiple of 4 (16 bytes), and a tile's box of them only when GT is; otherwise (MHA's
 * G = 1, G = 3, 5, 7 ..., or MQA's 32 rows in tiles of 1 or 2 for more CTAs) the warpgroup reads
 * the tile's S x GT log-sum-exps itself with plain loads into X's buffer (x_plain), a few
 * hundred bytes that would not pay for a staging copy's launch. Tiles of any row count up to
 * 128 work: a row is TPR = 128 / GT threads, and the threads past GT rows (128 % GT of them)
 * only join the barriers (idle). */
#ifndef PT_SM90A_COMBINE_H
#define PT_SM90A_COMBINE_H

#include "codegen.h"
#include "ir/kprog.h"
#include "shape.h"

typedef struct {
    const pt_kprog *kp;
    const pt_graph *g;
    int X, Y, O;                /* log-sum-exps, partial outputs, output */
    int buf_x, buf_y;
    int ax_s, ax_g, ax_d;       /* the split axis, the rows (query heads), the head dim */
    int64_t B, S, G, D;         /* batch entries (O's batch axes flattened), splits, rows, d */
    int64_t GT, DT;             /* tile rows and columns */
    int64_t tiles_g, tiles_d;
    int tpr;                    /* threads of the warpgroup per tile row: 128 / GT */
    bool idle;                  /* 128 % GT != 0: threads past the tile's rows skip the tasks */
    int parts;                  /* P threads share a chunk's splits (pt_combine.cuh); 1: one walks all */
    bool x_plain;               /* X read by the warpgroup with plain loads (G or GT % 4 != 0) */
    pt_dtype out_dt;
    sm90a_shape sh;
} sm90a_combine;

bool sm90a_combine_matches(const pt_graph *g);
bool sm90a_combine_plan(sm90a_combine *c, const pt_kprog *kp, pt_error *err);
bool sm90a_combine_emit(const sm90a_combine *c, pt_codegen_result *out, pt_error *err);

#endif
