/* sm90a_plan.c — reads a validated sProgram into the decisions of the Hopper generator, and
 * refuses (one line, saying what and why) what the generator cannot yet produce correctly. */
#include <stdio.h>
#include <string.h>

#include "sm90a_plan.h"
#include "sm90a_common.h"
#include "stage_hold.h"

#define REFUSE(...) return pt_fail(err, "codegen sm90a: " __VA_ARGS__)

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

static int64_t align_up(int64_t x, int64_t a)
{
    return (x + a - 1) / a * a;
}

static int find(const pt_stask_graph *sg, const char *fmt, const char *name, int wg, bool split)
{
    char id[PT_STASK_ID_MAX + 8];
    if (split)
        snprintf(id, sizeof id, "%s%s.wg%d", fmt, name, wg);
    else
        snprintf(id, sizeof id, "%s%s", fmt, name);
    return pt_stask_find(sg, id);
}

/* The graph: one matmul C[m,n] = A[m,k] . B, A row-major, B either layout. */
static bool plan_graph(sm90a_plan *pl, pt_error *err)
{
    const pt_graph *g = pl->g;
    if (g->n_ops != 1 || g->ops[0].kind != PT_OP_MATMUL)
        REFUSE("graph \"%s\" has %d ops; this backend generates single matmuls and attention "
               "(matmul, online_softmax, matmul) so far (dequantising and Mamba2 kernels are later "
               "work)", g->name, g->n_ops);
    const pt_op *op = &g->ops[0];
    pl->op = 0;
    pl->A = op->in[0];
    pl->B = op->in[1];
    pl->C = op->out;
    const pt_tensor *A = &g->tensors[pl->A], *B = &g->tensors[pl->B], *C = &g->tensors[pl->C];
    if (A->rank != 2 || B->rank != 2 || C->rank != 2 || op->n_reduce != 1)
        REFUSE("matmul \"%s\" must be two-dimensional (A[m,k] . B -> C[m,n]); batch axes are not "
               "generated yet", op->name);
    int k = op->reduce_axes[0], m = C->axes[0], n = C->axes[1];
    if (A->axes[0] != m || A->axes[1] != k)
        REFUSE("A (\"%s\") must be stored row-major with the reduction axis innermost "
               "([%s, %s])", A->name, g->axes[m].name, g->axes[k].name);
    if (B->axes[0] == n && B->axes[1] == k)
        pl->b_kmajor = true;
    else if (B->axes[0] == k && B->axes[1] == n)
        pl->b_kmajor = false;
    else
        REFUSE("B (\"%s\") must be [%s, %s] or [%s, %s]", B->name, g->axes[k].name,
               g->axes[n].name, g->axes[n].name, g->axes[k].name);
    pl->in_dt = A->dtype;
    pl->out_dt = C->dtype;
    if ((A->dtype != PT_F16 && A->dtype != PT_BF16) || B->dtype != A->dtype)
        REFUSE("A and B must both be f16 or both bf16 (they are %s and %s)",
               pt_dtype_name(A->dtype), pt_dtype_name(B->dtype));
    if (C->dtype != PT_F16 && C->dtype != PT_BF16 && C->dtype != PT_F32)
        REFUSE("the output must be f16, bf16 or f32 (it is %s)", pt_dtype_name(C->dtype));
    if (op->acc != PT_F32)
        REFUSE("only f32 accumulation is generated (the op asks for %s)", pt_dtype_name(op->acc));
    pl->in_bytes = 2;
    pl->out_bytes = pt_dtype_bits(C->dtype) / 8;
    pl->M = g->axes[m].extent;
    pl->N = g->axes[n].extent;
    pl->K = g->axes[k].extent;
    /* TMA: global strides are multiples of 16 bytes. */
    if ((pl->K * pl->in_bytes) % 16)
        REFUSE("rows of A are %lld bytes (K = %lld); TMA needs a multiple of 16 bytes, so K must "
               "be a multiple of 8", (long long)(pl->K * 2), (long long)pl->K);
    if ((pl->N * pl->in_bytes) % 16 || (pl->N * pl->out_bytes) % 16)
        REFUSE("rows of B or C are not a multiple of 16 bytes (N = %lld); TMA needs N to be a "
               "multiple of 8", (long long)pl->N);
    const pt_tiling *t = &pl->sg->tiling;
    pl->BM = t->tile[m];
    pl->BN = t->tile[n];
    pl->BK = t->tile[k];
    return true;
}

static bool plan_tiles(sm90a_plan *pl, pt_error *err)
{
    pl->wgs = pl->sg->tiling.warpgroups;
    if (pl->wgs > SM90A_MAX_WG)
        REFUSE("%d consumer warpgroups; expected 1 to %d", pl->wgs, SM90A_MAX_WG);
    if (pl->BM % pl->wgs)
        REFUSE("tile m=%lld does not split between %d warpgroups", (long long)pl->BM, pl->wgs);
    pl->m_wg = (int)(pl->BM / pl->wgs);
    if (pl->m_wg != 64 && pl->m_wg != 128)
        REFUSE("each consumer warpgroup gets %d rows (m=%lld / %d); wgmma needs 64 or 128",
               pl->m_wg, (long long)pl->BM, pl->wgs);
    pl->mrep = pl->m_wg / 64;
    if (pl->BN % 64 || pl->BN > 256)
        REFUSE("tile n=%lld; expected a multiple of 64 up to 256 (wgmma N and 128-byte TMA boxes)",
               (long long)pl->BN);
    if (pl->BK % 64 || pl->BK > 256)
        REFUSE("tile k=%lld; expected 64, 128, 192 or 256 (whole 128-byte swizzle atoms)",
               (long long)pl->BK);
    if (pl->BM > pl->hw->tma_box_max || pl->BN > pl->hw->tma_box_max)
        REFUSE("a TMA box dimension would exceed %lld", (long long)pl->hw->tma_box_max);
    if (pl->hw->mma_m != 64)
        REFUSE("hardware model %s is not a Hopper-class part (mma m = %d)", pl->hw->name,
               pl->hw->mma_m);
    return true;
}

/* Where each sTask sits, in which order the producer issues loads, who stores. */
static bool plan_lanes(sm90a_plan *pl, pt_error *err)
{
    const pt_sprogram *p = pl->p;
    const pt_stask_graph *sg = pl->sg;
    const pt_graph *g = pl->g;
    bool split = pl->wgs > 1;
    int loadA = find(sg, "load.", g->tensors[pl->A].name, 0, false);
    int loadB = find(sg, "load.", g->tensors[pl->B].name, 0, false);
    int store = find(sg, "store.", g->tensors[pl->C].name, 0, false);
    if (loadA < 0 || loadB < 0 || store < 0)
        REFUSE("the sTask-graph lacks load/store sTasks of %s, %s, %s", g->tensors[pl->A].name,
               g->tensors[pl->B].name, g->tensors[pl->C].name);
    int lane, pos;
    /* Loads: on the producer's TMA lane, in its order, with its offsets. */
    int prod_lane = -1;
    for (int which = 0; which < 2; which++) {
        int s = which ? loadB : loadA;
        if (!pt_sprogram_placement(p, s, &lane, &pos))
            REFUSE("sTask %s is not placed", sg->tasks[s].id);
        const pt_role_def *r = &p->roles[p->lanes[lane].role];
        if (r->wg >= 0)
            REFUSE("%s is on lane %s of role %s; loads are generated on the producer role",
                   sg->tasks[s].id, p->lanes[lane].name, r->name);
        if (prod_lane >= 0 && prod_lane != lane)
            REFUSE("the loads sit on two lanes (%s and %s); expected one TMA lane",
                   p->lanes[prod_lane].name, p->lanes[lane].name);
        prod_lane = lane;
        pl->st_load[which] = s;
    }
    pl->lane_load = prod_lane;
    const pt_lane *L = &p->lanes[prod_lane];
    pl->n_loads = 0;
    pl->off_min = pl->off_max = 0;
    for (int e = 0; e < L->n; e++) {
        int s = L->entries[e].stask;
        if (s != loadA && s != loadB)
            continue;
        sm90a_load_entry *le = &pl->loads[pl->n_loads++];
        le->which = s == loadB;
        le->offset = L->entries[e].offset;
        if (le->offset < pl->off_min)
            pl->off_min = le->offset;
        if (le->offset > pl->off_max)
            pl->off_max = le->offset;
    }
    pl->regs_producer = p->roles[L->role].regs;
    /* Each warpgroup's mma on a tensor-core lane of its own role, its convert on a CUDA-core
     * lane of its own role: the accumulators live in that warpgroup's registers. */
    for (int w = 0; w < pl->wgs; w++) {
        int mma = find(sg, "mma.", g->tensors[pl->C].name, w, split);
        int cvt = find(sg, "convert.", g->tensors[pl->C].name, w, split);
        if (mma < 0 || cvt < 0)
            REFUSE("the sTask-graph lacks mma/convert sTasks for warpgroup %d", w);
        int roles[2];
        for (int k = 0; k < 2; k++) {
            int s = k ? cvt : mma;
            if (!pt_sprogram_placement(p, s, &lane, &pos))
                REFUSE("sTask %s is not placed", sg->tasks[s].id);
            roles[k] = p->lanes[lane].role;
            if (p->roles[roles[k]].wg != w)
                REFUSE("%s is on lane %s of role %s; it must run on consumer warpgroup %d, whose "
                       "registers hold its accumulators", sg->tasks[s].id, p->lanes[lane].name,
                       p->roles[roles[k]].name, w);
            if (p->lanes[lane].entries[pos].offset != 0)
                REFUSE("%s has iteration offset %d; offsets are generated on loads only so far",
                       sg->tasks[s].id, p->lanes[lane].entries[pos].offset);
            if (k) {
                pl->st_cvt[w] = s;
                pl->lane_cvt[w] = lane;
            } else {
                pl->st_mma[w] = s;
                pl->lane_mma[w] = lane;
            }
        }
        pl->regs_consumer[w] = p->roles[roles[0]].regs;
    }
    if (!pt_sprogram_placement(p, store, &lane, &pos))
        REFUSE("sTask %s is not placed", sg->tasks[store].id);
    pl->st_store = store;
    pl->lane_store = lane;
    pl->store_role = p->lanes[lane].role;
    pl->store_by_producer = p->roles[pl->store_role].wg < 0;
    pl->store_wg = p->roles[pl->store_role].wg;
    return true;
}

static bool plan_memory(sm90a_plan *pl, pt_error *err)
{
    const pt_sprogram *p = pl->p;
    pl->stages[0] = p->stages[pl->A];
    pl->stages[1] = p->stages[pl->B];
    for (int i = 0; i < 2; i++)
        if (pl->stages[i] < 1 || pl->stages[i] > 16)
            REFUSE("stages of %s = %d; expected 1 to 16", pl->g->tensors[i ? pl->B : pl->A].name,
                   pl->stages[i]);
    /* What holds a stage is the contract's decision, read here as by the validator and the
     * simulator: one wgmma group kept in flight only where the rings still progress with it. */
    pt_stage_hold hold;
    pt_stage_hold_decide(p, pl->sg, &hold);
    if (!hold.progress)
        REFUSE("the rings of %s and %s cannot make progress with stages %d / %d and this "
               "producer order (validate the sProgram for the stage count it needs)",
               pl->g->tensors[pl->A].name, pl->g->tensors[pl->B].name, pl->stages[0],
               pl->stages[1]);
    if (hold.lag[pl->A] != hold.lag[pl->B] || hold.lag[pl->A] != hold.mma_in_flight)
        REFUSE("stages of %s and %s would be released at different iterations; one wgmma "
               "wait releases both", pl->g->tensors[pl->A].name, pl->g->tensors[pl->B].name);
    pl->mma_in_flight = hold.mma_in_flight;
    pl->slot_bytes[0] = pl->BM * pl->BK * pl->in_bytes;
    pl->slot_bytes[1] = pl->BN * pl->BK * pl->in_bytes;
    int64_t off = 0;
    for (int i = 0; i < 2; i++) {
        pl->off_ring[i] = off;
        off += pl->stages[i] * align_up(pl->slot_bytes[i], 1024);
    }
    pl->c_chunk_cols = 128 / pl->out_bytes;
    pl->off_c = off;
    pl->c_bytes = pl->BM * pl->BN * pl->out_bytes;
    off += align_up(pl->c_bytes, 1024);
    pl->off_bar = off;
    off += 8 * (2 * (pl->stages[0] + pl->stages[1]) + 2);
    pl->smem_dynamic = align_up(off, 16) + 1024;
    if (pl->smem_dynamic > pl->hw->smem_per_block)
        REFUSE("needs %lld bytes of shared memory (with 1024 of alignment slack); %s allows %lld",
               (long long)pl->smem_dynamic, pl->hw->name, (long long)pl->hw->smem_per_block);
    int acc_regs = pl->mrep * (int)pl->BN / 2;
    /* ptxas compiles every role under the cap __launch_bounds__(threads, 1) gives, 64K registers
     * over the CTA's threads, whatever setmaxnreg grants later: a wgmma needs its accumulators
     * plus about 26 registers of addresses and descriptors live at once (ptxas C7602 for
     * m64n256 f32 in a 512-thread CTA: "register target of 154 or higher"). */
    int cap = 65536 / (128 * (1 + pl->wgs));
    if (acc_regs + 26 > cap)
        REFUSE("%d consumer warpgroups with %d accumulator registers per thread (tile %lldx%lld): "
               "ptxas compiles a %d-thread CTA with at most %d registers per thread and the wgmma "
               "needs about %d; use a narrower n tile or fewer consumer warpgroups",
               pl->wgs, acc_regs, (long long)pl->BM, (long long)pl->BN, 128 * (1 + pl->wgs), cap,
               acc_regs + 26);
    for (int w = 0; w < pl->wgs; w++)
        if (pl->regs_consumer[w] < acc_regs + 24)
            REFUSE("consumer warpgroup %d has %d registers per thread; its %d accumulators need "
                   "at least %d", w, pl->regs_consumer[w], acc_regs, acc_regs + 24);
    return true;
}

static bool plan_grid(sm90a_plan *pl)
{
    pl->tiles_m = ceil_div(pl->M, pl->BM);
    pl->tiles_n = ceil_div(pl->N, pl->BN);
    pl->tiles = pl->tiles_m * pl->tiles_n;
    pl->k_iters = ceil_div(pl->K, pl->BK);
    pl->persistent = pl->p->partition.persistent;
    pl->raster = pl->p->partition.raster;
    pl->group = pl->p->partition.group > 0 ? pl->p->partition.group : 1;
    pl->grid = pl->persistent && pl->tiles > pl->hw->eu_count ? pl->hw->eu_count : pl->tiles;
    pl->trace_cap = sm90a_trace_cap(pl->sg, pl->tiles, pl->grid);
    pl->threads = 128 * (1 + pl->wgs);
    pt_codegen_c_ident("pt_", pl->g->name, pl->kernel_name, sizeof pl->kernel_name);
    return true;
}

bool sm90a_make_plan(sm90a_plan *pl, const pt_sprogram *p, const pt_stask_graph *sg,
                     const pt_hw *hw, pt_error *err)
{
    memset(pl, 0, sizeof *pl);
    pl->g = sg->graph;
    pl->sg = sg;
    pl->p = p;
    pl->hw = hw;
    if (!sm90a_check_target(p, sg, hw, err))
        return false;
    if (pl->g->n_tensors > 64)
        return pt_fail(err, "codegen sm90a: too many tensors");
    return plan_graph(pl, err) && plan_tiles(pl, err) && plan_lanes(pl, err) &&
           plan_memory(pl, err) && plan_grid(pl);
}
