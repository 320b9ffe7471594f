/* combine.h — the gfx942 (MI300X) target's view of FlashDecoding's combine (ir/combine.h, a
 * kernel program without a loop): O = sum_s exp(X_s - max X) Y_s / sum_s exp(X_s - max X).
 *
 * combine_plan.c checks what the kernel needs (every split in the tile, one tile row per
 * work-item, 16-byte chunks of f32 columns, the VGPRs that hold a work-item's chunks of every
 * split) and refuses in one line naming the field; combine_emit.c prints the kernel: one
 * consumer role of two waves, each work-item reading its row's log-sum-exps and its chunks of
 * the partial outputs straight into VGPRs in the producer lane's order (AMD's rule: resident
 * tiles take no LDS, src/smem_layout.h), then the role's sTasks once per tile in lane order,
 * one pt_tile_hip.h call each, and the store from the registers. */
#ifndef PT_GFX942_COMBINE_H
#define PT_GFX942_COMBINE_H

#include "codegen.h"
#include "ir/combine.h"
#include "ir/kprog.h"

typedef struct {
    const pt_kprog *kp;
    const pt_graph *g;
    pt_kcombine c;               /* the graph: X, Y, O, axes, sizes (ir/combine.h) */
    int buf_x, buf_y;            /* kp->bufs of X and Y (resident: read into VGPRs) */
    int64_t GT, DT;              /* tile rows and columns */
    int threads;                 /* one consumer role: two waves */
    int tpr;                     /* work-items per tile row: threads / GT, rounded down */
    int chunks;                  /* 16-byte chunks (4 f32 columns) of a tile row: DT / 4 */
    int cols;                    /* chunks per work-item: chunks / tpr, rounded up */
    int64_t tiles_g, tiles_d;
    int vgpr_estimate;
} gfx942_combine;

bool gfx942_combine_plan(gfx942_combine *cb, const pt_kprog *kp, pt_error *err);
bool gfx942_combine_emit(const gfx942_combine *cb, pt_codegen_result *out, pt_error *err);

#endif
