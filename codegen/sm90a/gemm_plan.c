/* gemm_plan.c — what the Hopper instructions need of a single-matmul kernel program: A
 * row-major and B in either layout for TMA boxes and wgmma descriptors, 64- or 128-row blocks
 * per consumer warpgroup, n and k tiles of whole 128-byte swizzle atoms, accumulators that fit
 * the registers ptxas may use. Refuses, in one line, what they cannot do. */
#include <stdio.h>
#include <string.h>

#include "gemm.h"
#include "ir/matmul.h"
#include "staging.h"

#define REFUSE(...) return pt_fail(err, "codegen sm90a: " __VA_ARGS__)

/* The graph: one matmul C[m,n] = A . B, A and B in either layout (ir/matmul.c). */
static bool plan_graph(sm90a_gemm *gm, pt_error *err)
{
    const pt_graph *g = gm->g;
    pt_kmatmul mm;
    if (!pt_kmatmul_read(&mm, g, "sm90a", err))
        return false;
    gm->A = mm.A;
    gm->B = mm.B;
    gm->C = mm.C;
    gm->a_kmajor = mm.a_kmajor;
    gm->b_kmajor = mm.b_kmajor;
    gm->in_dt = mm.in_dt;
    gm->out_dt = mm.out_dt;
    gm->in_bytes = 2;
    gm->out_bytes = pt_dtype_bits(mm.out_dt) / 8;
    gm->M = mm.M;
    gm->N = mm.N;
    gm->K = mm.K;
    int m = mm.m, n = mm.n, k = mm.k;
    const pt_tensor *A = &g->tensors[gm->A], *B = &g->tensors[gm->B], *C = &g->tensors[gm->C];
    gm->deq = mm.deq >= 0;
    gm->Bq = mm.Bq;
    gm->Bs = mm.Bs;
    gm->group = mm.group;
    gm->q_dt = mm.q_dt;
    /* TMA: global strides (the rows of every tensor loaded or stored) are multiples of 16
     * bytes. A, B, C and a dequantised B's scales whose rows are not are staged by the
     * launcher (src/staging.h, staging.c); the packed tensor of a dequantised B is read as it
     * lies, so it must be aligned. */
    const pt_tensor *rows[4] = {A, gm->deq ? &g->tensors[mm.Bq] : B, C,
                                gm->deq ? &g->tensors[mm.Bs] : NULL};
    const char *part[4] = {"A", gm->deq ? "the packed B" : "B", "C", "B's scales"};
    for (int i = 0; i < 4 && rows[i]; i++) {
        int inner = rows[i]->axes[rows[i]->rank - 1], bits = pt_dtype_bits(rows[i]->dtype);
        int64_t bytes = (g->axes[inner].extent * bits + 7) / 8;
        if (bytes % 16 && !pt_tensor_staged(g, (int)(rows[i] - g->tensors)))
            REFUSE("rows of %s (\"%s\") are %lld bytes (%s = %lld); TMA needs a multiple of 16 "
                   "bytes and %s is not staged (a matmul's operands and their scales are), so %s must "
                   "be a multiple of %d", part[i], rows[i]->name, (long long)bytes,
                   g->axes[inner].name, (long long)g->axes[inner].extent, part[i],
                   g->axes[inner].name, 128 / bits);
    }
    const pt_tiling *t = &gm->kp->sg->tiling;
    gm->swap = gm->kp->sg->rows_axis == n; /* C is [m, n]: its rows run along one of them */
    gm->rows_kmajor = gm->swap ? gm->b_kmajor : gm->a_kmajor;
    gm->cols_kmajor = gm->swap ? gm->a_kmajor : gm->b_kmajor;
    /* the weights on the tensor-core rows: each warpgroup dequantises its own (gemm_dequant.c) */
    gm->deq_regs = gm->swap && gm->deq;
    gm->BM = t->tile[m];
    gm->BN = t->tile[n];
    gm->BK = t->tile[k];
    return true;
}

static bool plan_tiles(sm90a_gemm *gm, pt_error *err)
{
    const pt_hw *hw = gm->kp->hw;
    gm->wgs = gm->kp->wgs;
    /* the rows of the tensor-core instructions: M's tile, or N's when swapped */
    int64_t rows = gm->swap ? gm->BN : gm->BM;
    const char r = gm->swap ? 'n' : 'm';
    if (rows % gm->wgs)
        REFUSE("tile %c=%lld does not split between %d warpgroups", r, (long long)rows, gm->wgs);
    gm->m_wg = (int)(rows / gm->wgs);
    if (gm->m_wg != 64 && gm->m_wg != 128)
        REFUSE("each consumer warpgroup gets %d rows (%c=%lld / %d); wgmma needs 64 or 128",
               gm->m_wg, r, (long long)rows, gm->wgs);
    gm->mrep = gm->m_wg / 64;
    gm->acc_n = gm->swap ? gm->BM : gm->BN;
    if (!gm->swap && (gm->BN % 64 || gm->BN > 256))
        REFUSE("tile n=%lld; expected a multiple of 64 up to 256 (wgmma N and 128-byte TMA boxes)",
               (long long)gm->BN);
    /* swapped, M's tile is wgmma's N: any multiple of 8 where A's rows are K-major (a box of
     * that many 128-byte rows); M-major A is loaded in 64-column swizzle atoms */
    if (gm->swap && (gm->BM % (gm->a_kmajor ? 8 : 64) || gm->BM > 256))
        REFUSE("tile m=%lld with the tensor-core rows on N: m is wgmma's N, expected a multiple "
               "of %d up to 256%s", (long long)gm->BM, gm->a_kmajor ? 8 : 64,
               gm->a_kmajor ? "" : " (A stored K x M loads in 64-column swizzle atoms)");
    if (gm->BK % 64 || gm->BK > 256)
        REFUSE("tile k=%lld; expected 64, 128, 192 or 256 (whole 128-byte swizzle atoms)",
               (long long)gm->BK);
    if (gm->BM > hw->tma_box_max || gm->BN > hw->tma_box_max)
        REFUSE("a TMA box dimension would exceed %lld", (long long)hw->tma_box_max);
    gm->c_chunk_cols = 128 / gm->out_bytes;
    const pt_stask_graph *sg = gm->kp->sg;
    gm->tiles_m = sg->tile_grid[gm->g->tensors[gm->C].axes[0]];
    gm->tiles_n = sg->tile_grid[gm->g->tensors[gm->C].axes[1]];
    gm->k_iters = sg->iterations;
    return true;
}

/* The tile walk (tile_coords gives tile row tm and column tn) and the buffers' names. */
static void plan_shape(sm90a_gemm *gm)
{
    const pt_graph *g = gm->g;
    sm90a_shape *sh = &gm->sh;
    const pt_op *op = &g->ops[g->n_ops - 1];
    int m = g->tensors[gm->C].axes[0], n = g->tensors[gm->C].axes[1], k = op->reduce_axes[0];
    sh->kp = gm->kp;
    snprintf(sh->origin[m], sizeof sh->origin[m], "tm * BM");
    snprintf(sh->origin[n], sizeof sh->origin[n], "tn * BN");
    snprintf(sh->size[m], sizeof sh->size[m], "BM");
    snprintf(sh->size[n], sizeof sh->size[n], "BN");
    snprintf(sh->size[k], sizeof sh->size[k], "BK");
    sh->coord_decl = "int tm, tn;";
    sh->coord_args = "tm, tn";
    sh->iters = "K_ITERS";
    const int bufs[3] = {gm->ring_a, gm->ring_b, gm->kp->staging};
    for (int i = 0; i < 3; i++)
        if (bufs[i] >= 0)
            snprintf(sh->name[bufs[i]], sizeof sh->name[0], "%c", "abc"[i]);
    if (gm->deq) {
        snprintf(sh->name[gm->ring_q], sizeof sh->name[0], "bq");
        snprintf(sh->name[gm->ring_s], sizeof sh->name[0], "bs");
        sh->plain_inner[gm->ring_q] = gm->coord_q;
        sh->plain_inner[gm->ring_s] = gm->coord_s;
        if (!gm->deq_regs) {
            sh->producer_tasks = sm90a_gemm_emit_dequant;
            sh->view = gm;
        }
    }
}

/* The consumers' loop is printed as one guarded loop: the mma alone at offset 0. */
static bool plan_roles(sm90a_gemm *gm, pt_error *err)
{
    const pt_kprog *kp = gm->kp;
    gm->ring_a = pt_kprog_buf_of(kp, gm->A);
    gm->ring_b = gm->deq_regs ? -1 : pt_kprog_buf_of(kp, gm->B);
    if (gm->ring_a < 0 || kp->bufs[gm->ring_a].kind != PT_KBUF_RING ||
        (!gm->deq_regs && (gm->ring_b < 0 || kp->bufs[gm->ring_b].kind != PT_KBUF_RING)))
        REFUSE("A and B must be loaded per k block into rings of stages");
    for (int w = 0; w < kp->wgs; w++) {
        const pt_krole *R = &kp->consumer[w];
        int mma = -1, deq = -1;
        for (int i = 0; i < R->n_tasks; i++) {
            if (R->tasks[i].offset != 0)
                REFUSE("%s has iteration offset %d; offsets are generated on loads only so far",
                       kp->sg->tasks[R->tasks[i].stask].id, R->tasks[i].offset);
            if (R->tasks[i].body == PT_KB_MMA)
                mma = i;
            else if (R->tasks[i].body == PT_KB_DEQUANT)
                deq = i;
        }
        if (gm->deq_regs) {
            if (R->n_tasks != 2 || mma < 0 || deq < 0 || R->epilogue.body != PT_KB_CONVERT)
                REFUSE("warpgroup %d's loop must be the dequantisation of its rows of %s and its "
                       "mma, and its epilogue the convert", w, gm->g->tensors[gm->B].name);
        } else if (kp->loop != PT_KLOOP_GUARDED || R->n_tasks != 1 || mma != 0 ||
                   R->epilogue.body != PT_KB_CONVERT) {
            REFUSE("warpgroup %d's loop must be its mma alone and its epilogue the convert", w);
        }
        if (w == 0) {
            gm->mma_i = mma;
            gm->deq_i = deq;
        } else if (mma != gm->mma_i || deq != gm->deq_i) {
            REFUSE("warpgroup %d issues its loop's sTasks in another order than warpgroup 0", w);
        }
    }
    return true;
}

/* ptxas compiles every role under the cap __launch_bounds__(threads, 1) gives, 64K registers
 * over the CTA's threads, whatever setmaxnreg grants later: a wgmma needs its accumulators
 * plus about 26 registers of addresses and descriptors live at once (ptxas C7602 for m64n256
 * f32 in a 512-thread CTA: "register target of 154 or higher"). */
static bool plan_registers(const sm90a_gemm *gm, pt_error *err)
{
    int acc_regs = gm->mrep * (int)gm->acc_n / 2;
    int cap = 65536 / (128 * (1 + gm->wgs));
    if (acc_regs + 26 > cap)
        REFUSE("%d consumer warpgroups with %d accumulator registers per thread (tile %lldx%lld): "
               "ptxas compiles a %d-thread CTA with at most %d registers per thread and the wgmma "
               "needs about %d; use a narrower n tile or fewer consumer warpgroups",
               gm->wgs, acc_regs, (long long)gm->BM, (long long)gm->BN, 128 * (1 + gm->wgs), cap,
               acc_regs + 26);
    /* dequantising its rows, a warpgroup also holds two chunks of A fragments (8 registers
     * per 64 rows each) and the unpacking's temporaries */
    int need = acc_regs + 24 + (gm->deq_regs ? 16 * gm->mrep + 24 : 0);
    for (int w = 0; w < gm->wgs; w++)
        if (gm->kp->consumer[w].regs < need)
            REFUSE("consumer warpgroup %d has %d registers per thread; its %d accumulators%s "
                   "need at least %d", w, gm->kp->consumer[w].regs, acc_regs,
                   gm->deq_regs ? " and A fragments" : "", need);
    return true;
}

bool sm90a_gemm_plan(sm90a_gemm *gm, const pt_kprog *kp, pt_error *err)
{
    memset(gm, 0, sizeof *gm);
    gm->kp = kp;
    gm->g = kp->g;
    if (!plan_graph(gm, err) || !plan_tiles(gm, err) || !plan_roles(gm, err) ||
        !plan_registers(gm, err) || (gm->deq && !sm90a_gemm_plan_dequant(gm, err)))
        return false;
    plan_shape(gm);
    return true;
}
