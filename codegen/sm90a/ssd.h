/* ssd.h — the Hopper target's view of a matmul whose A operand is made on the consumers' CUDA
 * cores once per k block: Mamba2's ChunkState (states = (x · exp(dA_last - dA_cs) · dt)ᵀ · B)
 * and ChunkScan (y = (C · statesᵀ) · exp(dA_l) before the loop, then y += (CB · decay · dt) · x
 * over the causal k blocks, the sum stored).
 *
 * ssd_plan.c reads the graph and the kernel program: the matmul's operands (A a register value
 * made by a pointwise op of a loaded tile and a vector along the reduction axis; B a loaded
 * tile read N-major), the vector ops before it, the batch axes and the tile walk, and refuses
 * in one line what the instructions cannot do; ssd_emit.c prints the kernel: the producer's
 * full-rank TMA loads, each consumer's step program (one device call per sTask, pt_ssd.cuh),
 * the f32 or 16-bit output staged and stored. */
#ifndef PT_SM90A_SSD_H
#define PT_SM90A_SSD_H

#include "codegen.h"
#include "decay_form.h"
#include "ir/kprog.h"
#include "shape.h"

/* What a register value holds in the kernel. */
typedef enum {
    SSD_KVEC,      /* a vector along k in the A fragment's k order (pt::kvec) */
    SSD_AFRAG,     /* the A operand's fragment */
    SSD_ACC,       /* the f32 accumulators (a prologue product and what scales it, the loop's
                      sum: one register tile, since the epilogue adds them) */
    SSD_MVEC,      /* a vector along m: this thread's two rows (pt::a_at's float[2]) */
    SSD_ATILE,     /* an f32 m x k tile in the A fragment's order (float[KS][8]) */
    SSD_DCOLS,     /* the factored decay's column factors, a lane's pairs (pt::decay_cols) */
} ssd_val_kind;

typedef struct {
    const pt_kprog *kp;
    const pt_graph *g;
    int op_mm;                   /* the matmul */
    int A, B, C;                 /* tensors: A a value made in the loop, B loaded, C the product */
    int out;                     /* the stored tensor: C, or the epilogue's sum (ChunkScan) */
    /* ChunkScan: a product over another axis before the loop, both operands resident tiles
     * read K-major (C[m][pk], states[n][pk]), into the accumulators */
    bool scan;
    int op_pro, ax_pk, res_a, res_b;
    int64_t PK;
    /* The prologue product issued a tile ahead (offset 1 on its lane): the next tile's C .
     * statesᵀ goes into a second accumulator once this tile's loop is done, in flight over this
     * tile's epilogue (ssd_emit.c) */
    bool pro_ahead;
    int op_decay;                /* exp_decay along (m, k), -1 */
    /* The sProgram's decay "factored" (src/decay_form.h): exp_decay makes column factors, the
     * tile's multiply (chain.op_tile) its A fragment unscaled, the vector's (chain.op_vec) the
     * A fragment; the row factor scales the accumulators (pt::decay_pivot). */
    bool factored;
    /* The factored decay's exp_decay runs while a wgmma group may be in flight (the chain an
     * iteration ahead of its mma): a warp leaving the factored form owes its multiply back,
     * paid before its warpgroup's next mma, where no group is in flight (ssd_plan.c). */
    bool decay_defer;
    pt_decay_chain chain;
    bool mvec_buf[PT_KP_MAX_BUFS];   /* a resident f32 vector along m, read into registers */
    char row_tile[16];
    char iters[32];              /* the trip count's expression (sh.iters) */           /* the tile index along m in the kernel ("g3", or "0") */
    int ax_m, ax_n, ax_k;
    /* Warpgroups on a batch axis (sProgram wg_axis; -1: they split the rows): warpgroup w takes
     * batch index w of the tile, its own 64 x n product, while the operands without that axis
     * (ChunkState's B, shared by heads) are loaded once for all of them. wg_off[b]: elements
     * between consecutive batch indices in buffer b's box (0: the buffer lacks the axis);
     * x_rows / x_wg_rows: 128-byte rows of the loaded tile A is made from per step of its row
     * coordinate (k, or m when stored [m][k]) and per batch index. */
    int ax_wg;
    int64_t wg_off[PT_KP_MAX_BUFS];
    int64_t x_rows, x_wg_rows;
    /* 128-byte rows between the warpgroups' batch indices in a swizzled buffer that wgmma reads
     * with descriptors or that stages the output (ChunkScan's x, states and out: the map puts
     * the batch axis outside the tile's rows, shape.h dims); 0: the warpgroups share it */
    int64_t wg_rows[PT_KP_MAX_BUFS];
    int src;                     /* the loaded tile A is made from (x) */
    bool src_mn_major;           /* src stored [k][m] (m innermost) rather than [m][k] */
    int ring_src, ring_b;
    int64_t M, N, K, BM, BN, BK;
    int wgs;
    pt_dtype in_dt, out_dt;
    ssd_val_kind vkind[PT_KP_MAX_VALS];
    char vname[PT_KP_MAX_VALS][8];
    int tiled[PT_MAX_AXES], n_tiled;   /* axes with more than one tile, graph order */
    sm90a_shape sh;
    char coord_decl[256], coord_args[192];
    char origin_flat[PT_KP_MAX_BUFS][160];
} sm90a_ssd;

/* Is g a matmul after pointwise ops that make its A from a loaded tile (ChunkState)? */
bool sm90a_ssd_matches(const pt_graph *g);
/* Shapes no schedule of such a graph can take (ChunkScan's chunk length), named with the rule;
 * checked before lowering, so that every candidate gives this reason and not a later one. */
bool sm90a_ssd_check_shape(const pt_graph *g, pt_error *err);
bool sm90a_ssd_plan(sm90a_ssd *sd, const pt_kprog *kp, pt_error *err);
bool sm90a_ssd_emit(const sm90a_ssd *sd, pt_codegen_result *out, pt_error *err);

#endif
