/* gemm_plan.c — what gfx942's instructions need of a single-matmul kernel program: A row-major
 * and B in either layout (16-byte global loads of whole rows of 8 elements), wave blocks in
 * multiples of the MFMA shape (32x32x8, else 16x16x16), LDS rings within the workgroup's 64 KB,
 * accumulators and load registers within the role's VGPR budget. Refuses, in one line naming
 * the field, what they cannot do. */
#include <stdio.h>
#include <string.h>

#include "gemm.h"
#include "ir/matmul.h"

#define REFUSE(...) return pt_fail(err, "codegen gfx942: " __VA_ARGS__)

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* The graph: one matmul C[m,n] = A[m,k] . B (ir/matmul.c), A row-major, B either layout. */
static bool plan_graph(gfx942_gemm *gm, pt_error *err)
{
    const pt_graph *g = gm->g;
    pt_kmatmul mm;
    if (!pt_kmatmul_read(&mm, g, "gfx942", err))
        return false;
    gm->A = mm.A;
    gm->B = mm.B;
    gm->C = mm.C;
    int m = mm.m, n = mm.n, k = mm.k;
    if (!mm.a_kmajor)
        REFUSE("A (\"%s\") must be stored row-major with the reduction axis innermost ([%s, %s]); "
               "A stored K x M is not generated for gfx942 yet", g->tensors[gm->A].name,
               g->axes[m].name, g->axes[k].name);
    gm->b_kmajor = mm.b_kmajor;
    gm->in_dt = mm.in_dt;
    gm->out_dt = mm.out_dt;
    gm->M = mm.M;
    gm->N = mm.N;
    gm->K = mm.K;
    /* a 16-byte load is 8 elements of one row: rows must start on 16 bytes and hold whole chunks */
    if (gm->K % 8)
        REFUSE("axis %s = %lld; the 16-byte global loads need K to be a multiple of 8",
               g->axes[k].name, (long long)gm->K);
    if (!gm->b_kmajor && gm->N % 8)
        REFUSE("axis %s = %lld; B stored [%s, %s] is loaded in 16-byte rows, so N must be a "
               "multiple of 8", g->axes[n].name, (long long)gm->N, g->axes[k].name, g->axes[n].name);
    if (gm->M * gm->K > INT32_MAX || gm->K * gm->N > INT32_MAX || gm->M * gm->N > INT32_MAX)
        REFUSE("a tensor has more than 2^31 - 1 elements; the kernel indexes with 32-bit ints");
    const pt_tiling *t = &gm->kp->sg->tiling;
    gm->BM = t->tile[m];
    gm->BN = t->tile[n];
    gm->BK = t->tile[k];
    return true;
}

/* Waves and MFMA shape: consumer role w takes rows [w·BM/wgs, ...) of the tile, its two waves
 * the two halves of BN. */
static bool plan_waves(gfx942_gemm *gm, pt_error *err)
{
    int wgs = gm->kp->wgs;
    gm->waves = 2 * wgs;
    gm->threads = 64 * gm->waves;
    if (gm->BM % wgs)
        REFUSE("tile m = %lld does not split between %d consumer roles", (long long)gm->BM, wgs);
    gm->wm = (int)(gm->BM / wgs);
    gm->wn = (int)(gm->BN / 2);
    if (gm->BN % 2 || gm->wm % 16 || gm->wn % 16)
        REFUSE("tile m = %lld, n = %lld gives each wave a %dx%lld block (m / warpgroups x n / 2); "
               "MFMA needs multiples of 16 (of 32 for 32x32x8)", (long long)gm->BM,
               (long long)gm->BN, gm->wm, (long long)gm->BN / 2);
    gm->mfma = gm->wm % 32 == 0 && gm->wn % 32 == 0 ? 32 : 16;
    gm->mk = gm->mfma == 32 ? 8 : 16;
    if (gm->BK % 16 || gm->BK > 256)
        REFUSE("tile k = %lld; expected a multiple of 16 up to 256 (16x16x16 MFMA k steps, 16-byte "
               "loads)", (long long)gm->BK);
    return true;
}

/* The rings: A (BM x BK) and B (BN x BK or BK x BN) in LDS, rows padded by 16 bytes against
 * bank conflicts, in the producer lane's order. */
static bool plan_rings(gfx942_gemm *gm, pt_error *err)
{
    const pt_kprog *kp = gm->kp;
    if (kp->n_loads != 2)
        REFUSE("the producer lane has %d body loads; expected load.A and load.B", kp->n_loads);
    gm->lds_bytes = 0;
    for (int e = 0; e < 2; e++) {
        const pt_kbuf *b = &kp->bufs[kp->load_buf[e]];
        gfx942_ring *r = &gm->ring[e];
        if (b->kind != PT_KBUF_RING || (b->tensor != gm->A && b->tensor != gm->B))
            REFUSE("load %d of the producer lane must fill the ring of A or B", e);
        if (kp->load_offset[e] != 0)
            REFUSE("load.%s has iteration offset %d; on gfx942 the ring's stages set how far ahead "
                   "it is loaded, so offsets must be 0", gm->g->tensors[b->tensor].name,
                   kp->load_offset[e]);
        bool is_a = b->tensor == gm->A;
        r->buf = kp->load_buf[e];
        r->tensor = b->tensor;
        r->name = is_a ? 'a' : 'b';
        r->stages = b->stages;
        r->mode = r->stages >= 3 ? GFX942_RING_EARLY : r->stages == 2 ? GFX942_RING_LATE
                                                                       : GFX942_RING_SERIAL;
        bool kcontig = is_a || gm->b_kmajor;
        r->rows = (int)(kcontig ? (is_a ? gm->BM : gm->BN) : gm->BK);
        r->cols = (int)(kcontig ? gm->BK : gm->BN);
        r->ld = r->cols + 8;
        r->stage_bytes = (int64_t)r->rows * r->ld * 2;
        r->chunks_per_thread = (int)ceil_div((int64_t)r->rows * r->cols / 8, gm->threads);
        gm->lds_bytes += r->stage_bytes * r->stages;
    }
    if (gm->ring[0].name == gm->ring[1].name)
        REFUSE("the producer lane loads %s twice; expected load.A and load.B",
               gm->g->tensors[gm->ring[0].tensor].name);
    if (gm->lds_bytes > kp->hw->smem_per_block)
        REFUSE("stages A %d, B %d of tile %lldx%lldx%lld need %lld bytes of LDS (rows padded by 16 "
               "bytes); %s has %lld per workgroup: use fewer stages or a smaller tile",
               gm->ring[gm->ring[0].name == 'a' ? 0 : 1].stages,
               gm->ring[gm->ring[0].name == 'b' ? 0 : 1].stages, (long long)gm->BM,
               (long long)gm->BN, (long long)gm->BK, (long long)gm->lds_bytes, kp->hw->name,
               (long long)kp->hw->smem_per_block);
    return true;
}

/* The consumers' loop is the mma alone at offset 0, the epilogue the convert. */
static bool plan_roles(const gfx942_gemm *gm, pt_error *err)
{
    const pt_kprog *kp = gm->kp;
    if (kp->split_k > 1)
        REFUSE("partition.split_k = %d; split-K is generated for sm90a only so far (expected 1)",
               kp->split_k);
    if (kp->stream_k)
        REFUSE("partition.stream_k = %d; stream-K is generated for sm90a only so far "
               "(expected 0)", kp->stream_k);
    for (int w = 0; w < kp->wgs; w++) {
        const pt_krole *R = &kp->consumer[w];
        for (int i = 0; i < R->n_tasks; i++)
            if (R->tasks[i].offset != 0)
                REFUSE("%s has iteration offset %d; expected 0 (offsets are generated on loads of "
                       "sm90a only)", kp->sg->tasks[R->tasks[i].stask].id, R->tasks[i].offset);
        if (kp->loop != PT_KLOOP_GUARDED || R->n_tasks != 1 || R->tasks[0].body != PT_KB_MMA ||
            R->epilogue.body != PT_KB_CONVERT)
            REFUSE("consumer role %d's loop must be its mma alone and its epilogue the convert", w);
    }
    return true;
}

/* VGPRs per lane: the accumulators (f32), the registers a tile's 16-byte loads land in before
 * they are written to LDS, one k step's A and B fragments (2 VGPRs each) and about 40 for
 * addresses and indices. A wave has at most 512 (256 arch + 256 AccVGPRs); the program's
 * budget is the largest role's (on AMD one budget holds for the whole kernel). */
static bool plan_registers(gfx942_gemm *gm, pt_error *err)
{
    const pt_kprog *kp = gm->kp;
    int acc = gm->wm * gm->wn / 64;
    int loads = 4 * (gm->ring[0].chunks_per_thread + gm->ring[1].chunks_per_thread);
    int frags = 2 * (gm->wm / gm->mfma + gm->wn / gm->mfma);
    gm->vgpr_estimate = acc + loads + frags + 40;
    int budget = 0;
    for (int w = 0; w < kp->wgs; w++)
        budget = kp->consumer[w].regs > budget ? kp->consumer[w].regs : budget;
    if (gm->vgpr_estimate > kp->hw->max_regs_per_thread || gm->vgpr_estimate > budget)
        REFUSE("roles[].regs: a wave's %dx%d block needs about %d VGPRs per lane (%d accumulators, "
               "%d for tile loads in flight, %d for fragments, 40 for addresses); the program grants "
               "%d and %s has %d: use a smaller tile or more warpgroups", gm->wm, gm->wn,
               gm->vgpr_estimate, acc, loads, frags, budget, kp->hw->name,
               kp->hw->max_regs_per_thread);
    return true;
}

bool gfx942_gemm_plan(gfx942_gemm *gm, const pt_kprog *kp, pt_error *err)
{
    memset(gm, 0, sizeof *gm);
    gm->kp = kp;
    gm->g = kp->g;
    if (!plan_graph(gm, err) || !plan_waves(gm, err) || !plan_rings(gm, err) ||
        !plan_roles(gm, err) || !plan_registers(gm, err))
        return false;
    gm->tiles_m = ceil_div(gm->M, gm->BM);
    gm->tiles_n = ceil_div(gm->N, gm->BN);
    gm->k_iters = ceil_div(gm->K, gm->BK);
    return true;
}
