/* sm90a_attn_plan.c — reads an attention sProgram (matmul → online_softmax → matmul) into the
 * decisions of the Hopper generator: shapes, tile, rings, the producer's load order, and per
 * consumer warpgroup the step program that merges its tensor-core and CUDA-core lanes with the
 * wgmma waits, stage releases and cross-warpgroup barriers the Waits call for. Refuses, in one
 * line, what the generator cannot produce correctly. */
#include <stdio.h>
#include <string.h>

#include "sm90a_attn.h"
#include "sm90a_common.h"
#include "stage_hold.h"
#include "validate.h"

#define REFUSE(...) return pt_fail(err, "codegen sm90a: " __VA_ARGS__)

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

static int64_t align_up(int64_t x, int64_t a)
{
    return (x + a - 1) / a * a;
}

bool sm90a_attn_matches(const pt_graph *g)
{
    if (g->n_ops != 3)
        return false;
    const pt_op *a = &g->ops[0], *s = &g->ops[1], *b = &g->ops[2];
    return a->kind == PT_OP_MATMUL && s->kind == PT_OP_ONLINE_SOFTMAX &&
           b->kind == PT_OP_MATMUL && s->in[0] == a->out && b->in[0] == s->out;
}

/* Tensor t is [batch axes..., row, d] with the given batch axes, row axis and d innermost. */
static bool shaped(const pt_graph *g, int t, const int *batch, int nb, int row, int d)
{
    const pt_tensor *T = &g->tensors[t];
    if (T->rank != nb + 2 || T->view_of >= 0)
        return false;
    for (int i = 0; i < nb; i++)
        if (T->axes[i] != batch[i])
            return false;
    return T->axes[nb] == row && T->axes[nb + 1] == d;
}

static bool plan_graph(fa_plan *pl, pt_error *err)
{
    const pt_graph *g = pl->g;
    pl->op_qk = 0;
    pl->op_sm = 1;
    pl->op_pv = 2;
    const pt_op *qk = &g->ops[0], *sm = &g->ops[1], *pv = &g->ops[2];
    pl->Q = qk->in[0];
    pl->K = qk->in[1];
    pl->V = pv->in[1];
    pl->O = pv->out;
    if (qk->n_reduce != 1 || pv->n_reduce != 1)
        REFUSE("attention matmuls must each contract one axis");
    int d = qk->reduce_axes[0], n = pv->reduce_axes[0];
    const pt_tensor *Q = &g->tensors[pl->Q];
    if (Q->rank < 2)
        REFUSE("Q (\"%s\") must be [batch..., rows, head dim]", Q->name);
    int nb = Q->rank - 2, m = Q->axes[nb];
    const int *batch = Q->axes;
    if (Q->axes[nb + 1] != d)
        REFUSE("Q (\"%s\") must have the contracted head-dim axis \"%s\" innermost", Q->name,
               g->axes[d].name);
    if (!shaped(g, pl->K, batch, nb, n, d))
        REFUSE("K (\"%s\") must be [batch..., %s, %s] with Q's batch axes", g->tensors[pl->K].name,
               g->axes[n].name, g->axes[d].name);
    if (!shaped(g, pl->V, batch, nb, n, d))
        REFUSE("V (\"%s\") must be [batch..., %s, %s] with Q's batch axes", g->tensors[pl->V].name,
               g->axes[n].name, g->axes[d].name);
    if (!shaped(g, pl->O, batch, nb, m, d))
        REFUSE("O (\"%s\") must be [batch..., %s, %s]", g->tensors[pl->O].name, g->axes[m].name,
               g->axes[d].name);
    if (sm->axis != n)
        REFUSE("the softmax must run over the key axis \"%s\"", g->axes[n].name);
    pl->B = 1;
    for (int i = 0; i < nb; i++)
        pl->B *= g->axes[batch[i]].extent;
    pl->H = 1; /* batch and heads are one grid axis: B holds their product */
    pl->S = g->axes[m].extent;
    pl->D = g->axes[d].extent;
    if (g->axes[n].extent != pl->S)
        REFUSE("queries (%s = %lld) and keys (%s = %lld) must have the same length", g->axes[m].name,
               (long long)pl->S, g->axes[n].name, (long long)g->axes[n].extent);
    if (pl->D % 64 || pl->D > 256)
        REFUSE("head dim %s = %lld; expected 64, 128, 192 or 256 (whole 128-byte swizzle atoms, "
               "wgmma N <= 256)", g->axes[d].name, (long long)pl->D);
    pl->in_dt = Q->dtype;
    pl->out_dt = g->tensors[pl->O].dtype;
    if ((pl->in_dt != PT_F16 && pl->in_dt != PT_BF16) || g->tensors[pl->K].dtype != pl->in_dt ||
        g->tensors[pl->V].dtype != pl->in_dt)
        REFUSE("Q, K and V must all be f16 or all bf16");
    if (pl->out_dt != PT_F16 && pl->out_dt != PT_BF16)
        REFUSE("O must be f16 or bf16 (it is %s)", pt_dtype_name(pl->out_dt));
    if (g->tensors[sm->out].dtype != pl->in_dt)
        REFUSE("P (\"%s\") must have V's dtype %s: it feeds the P.V wgmma from registers",
               g->tensors[sm->out].name, pt_dtype_name(pl->in_dt));
    if (qk->acc != PT_F32 || pv->acc != PT_F32)
        REFUSE("only f32 accumulation is generated");
    if (sm->lse >= 0)
        REFUSE("a log-sum-exp output is not generated yet");
    pl->causal = sm->causal;
    pl->longest_first = pt_sprogram_longest_first(pl->p, pl->sg);
    pl->ax_m = m;
    if (pl->causal && (sm->row_axis != m || sm->col_axis != n))
        REFUSE("the causal mask must be over (%s, %s)", g->axes[m].name, g->axes[n].name);
    pl->scale = sm->scale;
    const pt_tiling *t = &pl->sg->tiling;
    pl->BM = t->tile[m];
    pl->BN = t->tile[n];
    if (t->tile[d] != pl->D)
        REFUSE("tile %s = %lld; the head dim is not split (expected %lld)", g->axes[d].name,
               (long long)t->tile[d], (long long)pl->D);
    for (int i = 0; i < nb; i++)
        if (t->tile[batch[i]] != 1)
            REFUSE("tile %s = %lld; batch axes are tiled by 1", g->axes[batch[i]].name,
                   (long long)t->tile[batch[i]]);
    pl->wgs = t->warpgroups;
    if (pl->wgs < 1 || pl->wgs > FA_MAX_WG)
        REFUSE("%d consumer warpgroups; expected 1 to %d", pl->wgs, FA_MAX_WG);
    if (pl->BM != 64 * pl->wgs)
        REFUSE("tile %s = %lld with %d warpgroups; the attention generator gives each warpgroup "
               "64 query rows (expected %s = %d)", g->axes[m].name, (long long)pl->BM, pl->wgs,
               g->axes[m].name, 64 * pl->wgs);
    if (pl->BN % 16 || pl->BN < 16 || pl->BN > 256)
        REFUSE("tile %s = %lld; expected a multiple of 16 up to 256 (wgmma N of S, k16 steps of "
               "P.V)", g->axes[n].name, (long long)pl->BN);
    if (pl->hw->mma_m != 64)
        REFUSE("hardware model %s is not a Hopper-class part", pl->hw->name);
    return true;
}

static fa_entry_kind entry_kind(const fa_plan *pl, const pt_stask *t, bool *ok)
{
    *ok = true;
    switch (t->kind) {
    case PT_ST_MMA:
        return t->op == pl->op_qk ? FA_E_MMA_S : FA_E_MMA_O;
    case PT_ST_SOFTMAX_MAX:
        return FA_E_MAX;
    case PT_ST_SOFTMAX_EXP:
        return FA_E_EXP;
    case PT_ST_SOFTMAX_SUM:
        return FA_E_SUM;
    case PT_ST_RESCALE:
        return FA_E_RESCALE;
    default:
        *ok = false;
        return FA_E_KINDS;
    }
}

static int entry_of(const fa_wg_program *w, int stask)
{
    for (int i = 0; i < w->n_entries; i++)
        if (w->e[i].stask == stask)
            return i;
    return -1;
}

/* The producer lane and the store. */
static bool plan_producer(fa_plan *pl, pt_error *err)
{
    const pt_sprogram *p = pl->p;
    const pt_stask_graph *sg = pl->sg;
    pl->st_load_q = pl->st_load_k = pl->st_load_v = pl->st_store = -1;
    for (int i = 0; i < sg->n; i++) {
        const pt_stask *t = &sg->tasks[i];
        if (t->kind == PT_ST_LOAD && t->tensor == pl->Q)
            pl->st_load_q = i;
        else if (t->kind == PT_ST_LOAD && t->tensor == pl->K)
            pl->st_load_k = i;
        else if (t->kind == PT_ST_LOAD && t->tensor == pl->V)
            pl->st_load_v = i;
        else if (t->kind == PT_ST_STORE && t->tensor == pl->O)
            pl->st_store = i;
    }
    if (pl->st_load_q < 0 || pl->st_load_k < 0 || pl->st_load_v < 0 || pl->st_store < 0)
        REFUSE("the sTask-graph lacks the loads of Q, K, V or the store of O");
    if (sg->tasks[pl->st_load_q].region != PT_REGION_PROLOGUE ||
        sg->tasks[pl->st_load_k].region != PT_REGION_BODY ||
        sg->tasks[pl->st_load_v].region != PT_REGION_BODY)
        REFUSE("expected Q loaded once per tile and K, V per key block");
    int lane = -1, pos;
    const int loads[3] = {pl->st_load_q, pl->st_load_k, pl->st_load_v};
    for (int k = 0; k < 3; k++) {
        int l;
        if (!pt_sprogram_placement(p, loads[k], &l, &pos))
            REFUSE("sTask %s is not placed", sg->tasks[loads[k]].id);
        const pt_role_def *r = &p->roles[p->lanes[l].role];
        if (r->wg >= 0)
            REFUSE("%s is on lane %s of role %s; loads are generated on the producer role",
                   sg->tasks[loads[k]].id, p->lanes[l].name, r->name);
        if (lane >= 0 && lane != l)
            REFUSE("the loads sit on two lanes (%s and %s); expected one TMA lane",
                   p->lanes[lane].name, p->lanes[l].name);
        lane = l;
    }
    pl->lane_load = lane;
    pl->regs_producer = p->roles[p->lanes[lane].role].regs;
    const pt_lane *L = &p->lanes[lane];
    pl->n_loads = 0;
    pl->off_min = pl->off_max = 0;
    for (int e = 0; e < L->n; e++) {
        int s = L->entries[e].stask;
        if (s != pl->st_load_k && s != pl->st_load_v)
            continue;
        pl->load_which[pl->n_loads] = s == pl->st_load_v;
        pl->load_offset[pl->n_loads] = L->entries[e].offset;
        if (L->entries[e].offset < pl->off_min)
            pl->off_min = L->entries[e].offset;
        if (L->entries[e].offset > pl->off_max)
            pl->off_max = L->entries[e].offset;
        pl->n_loads++;
    }
    if (!pt_sprogram_placement(p, pl->st_store, &lane, &pos))
        REFUSE("sTask %s is not placed", sg->tasks[pl->st_store].id);
    pl->lane_store = lane;
    int role = p->lanes[lane].role;
    pl->store_by_producer = p->roles[role].wg < 0;
    pl->store_wg = p->roles[role].wg;
    if (!pl->store_by_producer && pl->store_wg >= pl->wgs)
        REFUSE("store.%s sits on role %s, which is not a consumer warpgroup of this tiling",
               pl->g->tensors[pl->O].name, p->roles[role].name);
    return true;
}

/* Each consumer warpgroup's entries, from its lanes, and its normalize. */
static bool plan_consumers(fa_plan *pl, pt_error *err)
{
    const pt_sprogram *p = pl->p;
    const pt_stask_graph *sg = pl->sg;
    for (int w = 0; w < pl->wgs; w++) {
        pl->wg[w].st_norm = -1;
        pl->wg[w].regs = -1;
    }
    for (int l = 0; l < p->n_lanes; l++) {
        const pt_lane *L = &p->lanes[l];
        int rw = p->roles[L->role].wg;
        for (int e = 0; e < L->n; e++) {
            int s = L->entries[e].stask;
            const pt_stask *t = &sg->tasks[s];
            if (t->kind == PT_ST_LOAD || t->kind == PT_ST_STORE)
                continue;
            if (t->wg < 0 || t->wg >= pl->wgs)
                REFUSE("sTask %s belongs to no consumer warpgroup", t->id);
            if (rw != t->wg)
                REFUSE("%s is on lane %s of role %s; it must run on consumer warpgroup %d, whose "
                       "registers hold its rows", t->id, L->name, p->roles[L->role].name, t->wg);
            fa_wg_program *W = &pl->wg[t->wg];
            W->regs = p->roles[L->role].regs;
            if (t->kind == PT_ST_NORMALIZE) {
                W->st_norm = s;
                W->lane_norm = l;
                continue;
            }
            bool ok;
            fa_entry_kind k = entry_kind(pl, t, &ok);
            if (!ok)
                REFUSE("sTask %s (%s) is not part of attention as generated", t->id,
                       pt_stask_kind_name(t->kind));
            if (W->n_entries == FA_MAX_STEP)
                REFUSE("too many sTasks in warpgroup %d", t->wg);
            W->e[W->n_entries++] = (fa_entry){k, s, l, L->entries[e].offset};
        }
    }
    for (int w = 0; w < pl->wgs; w++) {
        fa_wg_program *W = &pl->wg[w];
        bool have[FA_E_KINDS] = {false};
        for (int i = 0; i < W->n_entries; i++) {
            if (have[W->e[i].kind])
                REFUSE("warpgroup %d has two sTasks of one kind", w);
            have[W->e[i].kind] = true;
        }
        for (int k = 0; k < FA_E_KINDS; k++)
            if (!have[k])
                REFUSE("warpgroup %d lacks one of mma S, softmax max/exp/sum, rescale, mma O", w);
        if (W->st_norm < 0)
            REFUSE("warpgroup %d lacks its normalize sTask", w);
    }
    return true;
}

/* Does b (entry of W) depend on a with this distance, through the graph or a Wait? */
static bool depends(const fa_plan *pl, int b, int a, int *distance)
{
    const pt_stask *t = &pl->sg->tasks[b];
    for (int i = 0; i < t->n_deps; i++)
        if (t->deps[i].from == a) {
            *distance = t->deps[i].distance;
            return true;
        }
    for (int i = 0; i < pl->p->n_waits; i++)
        if (pl->p->waits[i].stask == b && pl->p->waits[i].on == a) {
            *distance = pl->p->waits[i].distance;
            return true;
        }
    return false;
}

/* Merge the warpgroup's lanes into one step order: lane order kept, every same-step dependency
 * before its user, tensor-core entries first when both lanes could go (they are asynchronous:
 * issued early they overlap the CUDA-core work that follows). */
static bool merge_step(fa_plan *pl, int w, pt_error *err)
{
    fa_wg_program *W = &pl->wg[w];
    int n = W->n_entries;
    bool pred[FA_MAX_STEP][FA_MAX_STEP] = {{false}}; /* pred[b][a]: a before b */
    for (int b = 0; b < n; b++)
        for (int a = 0; a < n; a++) {
            int d;
            if (a == b || !depends(pl, W->e[b].stask, W->e[a].stask, &d))
                continue;
            int gap = W->e[b].offset - W->e[a].offset; /* steps by which b runs ahead of a */
            if (gap > d)
                REFUSE("%s at iteration offset %+d needs %s%s at offset %+d, which runs in a later "
                       "loop step: the offsets contradict the dependency",
                       pl->sg->tasks[W->e[b].stask].id, W->e[b].offset,
                       pl->sg->tasks[W->e[a].stask].id, d ? " of an earlier iteration" : "",
                       W->e[a].offset);
            if (gap == d)
                pred[b][a] = true;
        }
    /* lane order */
    for (int b = 0; b < n; b++)
        for (int a = 0; a < b; a++)
            if (W->e[a].lane == W->e[b].lane)
                pred[b][a] = true; /* entries were collected in lane order */
    fa_entry order[FA_MAX_STEP];
    bool placed[FA_MAX_STEP] = {false};
    for (int k = 0; k < n; k++) {
        int pick = -1;
        for (int pass = 0; pass < 2 && pick < 0; pass++)
            for (int b = 0; b < n && pick < 0; b++) {
                if (placed[b])
                    continue;
                bool tc = W->e[b].kind == FA_E_MMA_S || W->e[b].kind == FA_E_MMA_O;
                if (pass == 0 && !tc)
                    continue;
                bool ready = true;
                for (int a = 0; a < n; a++)
                    if (pred[b][a] && !placed[a])
                        ready = false;
                if (ready)
                    pick = b;
            }
        if (pick < 0)
            REFUSE("warpgroup %d: its lane orders and Waits leave no order to issue in one step", w);
        placed[pick] = true;
        order[k] = W->e[pick];
    }
    memcpy(W->e, order, sizeof order[0] * (size_t)n);
    return true;
}

/* Cross-warpgroup Waits: only between tensor-core sTasks (ping-pong of the tensor cores). */
static bool plan_xwaits(fa_plan *pl, pt_error *err)
{
    const pt_sprogram *p = pl->p;
    const pt_stask_graph *sg = pl->sg;
    pl->n_xwaits = 0;
    for (int i = 0; i < p->n_waits; i++) {
        const pt_wait_entry *wt = &p->waits[i];
        const pt_stask *b = &sg->tasks[wt->stask], *a = &sg->tasks[wt->on];
        if (a->wg < 0 || b->wg < 0 || a->wg == b->wg)
            continue;
        if (a->kind != PT_ST_MMA || b->kind != PT_ST_MMA)
            REFUSE("Wait %s on %s crosses warpgroups; only Waits between tensor-core sTasks "
                   "(ping-pong) are generated across warpgroups", b->id, a->id);
        if (pl->n_xwaits == FA_MAX_XWAITS)
            REFUSE("more than %d Waits between warpgroups", FA_MAX_XWAITS);
        fa_xwait *x = &pl->xw[pl->n_xwaits++];
        x->wa = a->wg;
        x->wb = b->wg;
        x->on = entry_of(&pl->wg[a->wg], wt->on);
        x->waiter = entry_of(&pl->wg[b->wg], wt->stask);
        x->distance = wt->distance;
    }
    /* Ring of named barriers per Wait: the waited-for warpgroup may run ahead of the waiter by
     * as many iterations as the K/V rings let it (the producer refills a stage only when every
     * warpgroup released it); with a Wait back the other way it is at most one ahead. */
    int next_id = 1 + pl->wgs; /* 0 is __syncthreads, 1..wgs the warpgroups' own barriers */
    for (int i = 0; i < pl->n_xwaits; i++) {
        fa_xwait *x = &pl->xw[i];
        bool reverse = false;
        for (int j = 0; j < pl->n_xwaits; j++)
            if (pl->xw[j].wa == x->wb && pl->xw[j].wb == x->wa)
                reverse = true;
        int stages = pl->stages_k > pl->stages_v ? pl->stages_k : pl->stages_v;
        int spread = pl->c_off_max - pl->c_off_min;
        x->ring = reverse ? 2 + x->distance : stages + 2 + x->distance + spread;
        x->bar_base = next_id;
        next_id += x->ring;
        if (next_id > 16)
            REFUSE("the Waits between warpgroups need %d named barriers; the SM has 16 (15 "
                   "besides __syncthreads)", next_id);
    }
    return true;
}

/* One printed loop step of warpgroup w with the entries of `present` (NULL: all): the wgmma
 * waits its dependencies need given the groups `pend` in flight before it (commit order, `step`
 * relative to this step), its named-barrier syncs/arrives and entries. Updates pend; returns
 * the number of operations written to ops, -1 when a limit is exceeded. Only committed wgmma
 * groups count: a skipped mma commits nothing (ptxas drops empty groups from its analysis and
 * would serialise every wgmma), so fill and drain steps get their own wait depths. */
int sm90a_attn_step(const fa_plan *pl, int w, const bool *present, fa_group *pend, int *np_io,
                    fa_op *ops)
{
    const fa_wg_program *W = &pl->wg[w];
    int np = *np_io, n_ops = 0;
    for (int i = 0; i < np; i++)
        pend[i].step -= 1;
#define ADD_OP(...)                                                                              \
    do {                                                                                         \
        if (n_ops == FA_MAX_OPS)                                                                 \
            return -1;                                                                           \
        ops[n_ops++] = (fa_op)__VA_ARGS__;                                                       \
    } while (0)
    for (int b = 0; b < W->n_entries; b++) {
        if (present && !present[b])
            continue;
        int need = -1; /* the newest pending group b needs complete */
        for (int a = 0; a < W->n_entries; a++) {
            int d;
            if (a == b || (W->e[a].kind != FA_E_MMA_S && W->e[a].kind != FA_E_MMA_O))
                continue;
            if (W->e[b].kind == FA_E_EXP && W->e[a].kind == FA_E_MMA_O)
                d = pl->p_bufs; /* exp rewrites the P fragment that P.V(i - p_bufs) reads */
            else if (!depends(pl, W->e[b].stask, W->e[a].stask, &d))
                continue;
            int rel = W->e[b].offset - d - W->e[a].offset; /* the step a's instance ran in */
            for (int k = 0; k < np; k++)
                if (pend[k].entry == a && pend[k].step == rel && k > need)
                    need = k;
        }
        if (need >= 0) {
            if (need + 1 > 4)
                return -1;
            fa_op op = {FA_OP_WAIT, np - need - 1, 0, {{0, 0}}};
            for (int k = 0; k <= need; k++)
                op.done[op.n_done++] = pend[k];
            memmove(pend, pend + need + 1, sizeof pend[0] * (size_t)(np - need - 1));
            np -= need + 1;
            ADD_OP(op);
        }
        for (int x = 0; x < pl->n_xwaits; x++)
            if (pl->xw[x].wb == w && pl->xw[x].waiter == b)
                ADD_OP({FA_OP_XSYNC, x, 0, {{0, 0}}});
        ADD_OP({FA_OP_ENTRY, b, 0, {{0, 0}}});
        if (W->e[b].kind == FA_E_MMA_S || W->e[b].kind == FA_E_MMA_O) {
            if (np == FA_MAX_PENDING)
                return -1;
            pend[np++] = (fa_group){b, 0};
        }
        for (int x = 0; x < pl->n_xwaits; x++)
            if (pl->xw[x].wa == w && pl->xw[x].on == b)
                ADD_OP({FA_OP_XARRIVE, x, 0, {{0, 0}}});
    }
    /* Every group completes by the end of its step: ptxas tracks wgmma groups in flight only
     * within straight-line code, and any accumulator touched in a loop that a group may still
     * be writing across the back edge makes it serialise every wgmma of the kernel (C7514/5).
     * Overlap therefore lives inside a step (S of a later iteration issued before this one's
     * softmax, P.V issued before the next softmax pieces), as in FlashAttention-3. */
    int old = np - 1;
    if (old >= 0) {
        if (old + 1 > 4)
            return -1;
        fa_op op = {FA_OP_WAIT, np - old - 1, 0, {{0, 0}}};
        for (int k = 0; k <= old; k++)
            op.done[op.n_done++] = pend[k];
        memmove(pend, pend + old + 1, sizeof pend[0] * (size_t)(np - old - 1));
        np -= old + 1;
        ADD_OP(op);
    }
#undef ADD_OP
    *np_io = np;
    return n_ops;
}

bool sm90a_attn_same_pending(const fa_group *a, int na, const fa_group *b, int nb)
{
    if (na != nb)
        return false;
    for (int i = 0; i < na; i++)
        if (a[i].entry != b[i].entry || a[i].step != b[i].step)
            return false;
    return true;
}

/* Steady state: the step with every entry, run from nothing in flight until what is pending at
 * its start repeats. Also the fill steps' and peeled steps' count before that state holds. */
static bool plan_step(fa_plan *pl, int w, pt_error *err)
{
    fa_wg_program *W = &pl->wg[w];
    fa_group pend[FA_MAX_PENDING], prev[FA_MAX_PENDING];
    int np = 0, nprev = -1;
    for (int pass = 0; pass < 8; pass++) {
        memcpy(prev, pend, sizeof pend[0] * (size_t)np);
        nprev = np;
        W->n_ops = sm90a_attn_step(pl, w, NULL, pend, &np, W->ops);
        if (W->n_ops < 0)
            REFUSE("warpgroup %d: too many wgmma groups in flight or too long a step", w);
        if (pass > 0 && sm90a_attn_same_pending(prev, nprev, pend, np))
            break;
    }
    if (!sm90a_attn_same_pending(prev, nprev, pend, np))
        REFUSE("warpgroup %d: the wgmma groups in flight never settle into a steady state", w);
    W->n_steady = np;
    memcpy(W->steady, pend, sizeof pend[0] * (size_t)np);
    /* The waits the steady loop prints assume `steady` at its start: after the fill steps,
     * whole steps are peeled until that holds. */
    int F = pl->c_off_max - pl->c_off_min, first = -pl->c_off_max;
    fa_op ops[FA_MAX_OPS];
    np = 0;
    for (int k = 0; k < F; k++) {
        bool present[FA_MAX_STEP];
        for (int e = 0; e < W->n_entries; e++)
            present[e] = first + k + W->e[e].offset >= 0;
        if (sm90a_attn_step(pl, w, present, pend, &np, ops) < 0)
            REFUSE("warpgroup %d: too many wgmma groups in flight", w);
    }
    W->peel = 0;
    while (!sm90a_attn_same_pending(pend, np, W->steady, W->n_steady)) {
        if (++W->peel > 4)
            REFUSE("warpgroup %d: the loop does not reach its steady state", w);
        if (sm90a_attn_step(pl, w, NULL, pend, &np, ops) < 0)
            REFUSE("warpgroup %d: too many wgmma groups in flight", w);
    }
    for (int i = 0; i < W->n_ops; i++)
        if (W->ops[i].kind == FA_OP_WAIT && W->ops[i].arg > 7)
            REFUSE("warpgroup %d: wgmma.wait_group depth %d; at most 7", w, W->ops[i].arg);
    return true;
}

/* Dynamic shared memory to ask for when the layout ends at `end`: the launch adds 1024
 * bytes so the kernel can align its base to 1024 (128-byte swizzle). */
static int64_t smem_request(int64_t end)
{
    return align_up(end, 16) + 1024;
}

static bool plan_memory(fa_plan *pl, pt_error *err)
{
    const pt_sprogram *p = pl->p;
    pl->stages_k = p->stages[pl->K];
    pl->stages_v = p->stages[pl->V];
    if (pl->stages_k < 1 || pl->stages_k > 8 || pl->stages_v < 1 || pl->stages_v > 8)
        REFUSE("stages of K = %d, V = %d; expected 1 to 8 each", pl->stages_k, pl->stages_v);
    pl->q_bytes = pl->BM * pl->D * 2;
    pl->kv_slot_bytes = pl->BN * pl->D * 2;
    int64_t off = 0;
    pl->off_q = off;
    off += align_up(pl->q_bytes, 1024);
    pl->off_k = off;
    off += pl->stages_k * align_up(pl->kv_slot_bytes, 1024);
    pl->off_v = off;
    off += pl->stages_v * align_up(pl->kv_slot_bytes, 1024);
    /* A persistent CTA stages O in its own buffer when that still fits: Q is then free once
     * the consumers' last S = Q.K^T completed, and the producer loads the next tile's Q and
     * first K/V blocks while this tile's last P.V, normalize and store run. */
    pl->o_bytes = pl->BM * pl->D * 2;
    /* barriers, then the two tile slots of the dynamic tile hand-out */
    int64_t bar_bytes = 8 * (5 + 2 * (pl->stages_k + pl->stages_v));
    /* decided once, with the simulator (pt_sprogram_staging_apart): an explicit "apart" that
     * does not fit is refused below with the byte count */
    pl->o_separate = pt_sprogram_staging_apart(pl->p, pl->sg, pl->hw);
    pl->off_o = pl->off_q;
    if (pl->o_separate) {
        pl->off_o = off;
        off += align_up(pl->o_bytes, 1024);
    }
    pl->off_bar = off;
    off += bar_bytes;
    pl->smem_dynamic = smem_request(off);
    if (pl->smem_dynamic > pl->hw->smem_per_block)
        REFUSE("needs %lld bytes of shared memory (Q %lld, K %d x %lld, V %d x %lld, with 1024 of "
               "alignment slack); %s allows %lld", (long long)pl->smem_dynamic,
               (long long)pl->q_bytes, pl->stages_k, (long long)pl->kv_slot_bytes, pl->stages_v,
               (long long)pl->kv_slot_bytes, pl->hw->name, (long long)pl->hw->smem_per_block);
    return true;
}

/* Register rings, indexed by iteration: S(i) lives from mma S to its last softmax reader; the
 * softmax state (max, factor) from softmax max to its last reader; P(i) from softmax exp to
 * the completion of the P.V wgmma that reads it from registers. */
static bool plan_buffers(fa_plan *pl, pt_error *err)
{
    pl->c_off_min = 1 << 20;
    pl->c_off_max = -(1 << 20);
    pl->s_bufs = pl->m_bufs = pl->p_bufs = 1;
    for (int w = 0; w < pl->wgs; w++) {
        const fa_wg_program *W = &pl->wg[w];
        int o[FA_E_KINDS];
        for (int i = 0; i < W->n_entries; i++) {
            o[W->e[i].kind] = W->e[i].offset;
            if (W->e[i].offset < pl->c_off_min)
                pl->c_off_min = W->e[i].offset;
            if (W->e[i].offset > pl->c_off_max)
                pl->c_off_max = W->e[i].offset;
        }
        const int s_readers[3] = {FA_E_MAX, FA_E_EXP, FA_E_SUM};
        const int m_readers[3] = {FA_E_EXP, FA_E_SUM, FA_E_RESCALE};
        for (int r = 0; r < 3; r++) {
            if (o[FA_E_MMA_S] - o[s_readers[r]] + 1 > pl->s_bufs)
                pl->s_bufs = o[FA_E_MMA_S] - o[s_readers[r]] + 1;
            if (o[FA_E_MAX] - o[m_readers[r]] + 1 > pl->m_bufs)
                pl->m_bufs = o[FA_E_MAX] - o[m_readers[r]] + 1;
        }
        /* P(i + 1) is written while P.V(i) may still read P(i): two fragments whenever exp runs
         * ahead of mma O or at the same offset but after it in the step. */
        int gap = o[FA_E_EXP] - o[FA_E_MMA_O];
        int exp_pos = 0, o_pos = 0;
        for (int i = 0; i < W->n_entries; i++) {
            if (W->e[i].kind == FA_E_EXP)
                exp_pos = i;
            if (W->e[i].kind == FA_E_MMA_O)
                o_pos = i;
        }
        int pb = gap + 1 + (gap == 0 && exp_pos > o_pos ? 1 : 0);
        if (pb > pl->p_bufs)
            pl->p_bufs = pb;
    }
    if (pl->s_bufs > 2 || pl->m_bufs > 2 || pl->p_bufs > 2)
        REFUSE("the iteration offsets keep %d score tiles S, %d softmax states and %d P fragments "
               "live per warpgroup; registers hold at most 2 of each", pl->s_bufs, pl->m_bufs,
               pl->p_bufs);
    pl->unroll = pl->s_bufs > pl->m_bufs ? pl->s_bufs : pl->m_bufs;
    if (pl->p_bufs > pl->unroll)
        pl->unroll = pl->p_bufs;
    /* Plus indices, pointers, softmax state and descriptors: 24 registers for a one-slot loop;
     * a two-slot loop (two steps per turn) keeps more live: measured under a 240 budget, 176
     * array registers compile without spills and 192 spill. */
    int need = (int)(pl->D / 2 + pl->s_bufs * pl->BN / 2 + pl->p_bufs * pl->BN / 4) +
               (pl->unroll == 2 ? 56 : 24);
    for (int w = 0; w < pl->wgs; w++)
        if (pl->wg[w].regs < need)
            REFUSE("consumer warpgroup %d has %d registers per thread; O (%lld), %d S tile%s "
                   "(%lld each) and %d P fragment%s (%lld each) need at least %d", w,
                   pl->wg[w].regs, (long long)(pl->D / 2), pl->s_bufs, pl->s_bufs > 1 ? "s" : "",
                   (long long)(pl->BN / 2), pl->p_bufs, pl->p_bufs > 1 ? "s" : "",
                   (long long)(pl->BN / 4), need);
    return true;
}

static void plan_grid(fa_plan *pl)
{
    pl->tiles_m = ceil_div(pl->S, pl->BM);
    pl->tiles = pl->tiles_m * pl->B;
    pl->kv_blocks = ceil_div(pl->S, pl->BN);
    pl->persistent = pl->p->partition.persistent;
    pl->grid = pl->persistent && pl->tiles > pl->hw->eu_count ? pl->hw->eu_count : pl->tiles;
    pl->trace_cap = sm90a_trace_cap(pl->sg, pl->tiles, pl->grid);
    pl->dynamic = pl->persistent && pl->causal && pl->grid < pl->tiles;
    pl->threads = 128 * (1 + pl->wgs);
    pt_codegen_c_ident("pt_", pl->g->name, pl->kernel_name, sizeof pl->kernel_name);
}

bool sm90a_attn_make_plan(fa_plan *pl, const pt_sprogram *p, const pt_stask_graph *sg,
                          const pt_hw *hw, pt_error *err)
{
    memset(pl, 0, sizeof *pl);
    pl->g = sg->graph;
    pl->sg = sg;
    pl->p = p;
    pl->hw = hw;
    pl->s_bufs = 1;
    if (!sm90a_check_target(p, sg, hw, err))
        return false;
    if (!plan_graph(pl, err) || !plan_producer(pl, err) || !plan_consumers(pl, err) ||
        !plan_memory(pl, err))
        return false;
    /* The contract (stage_hold.h): every wgmma group retires inside its step, so a K or V slot
     * is released at the latest at the end of the step that issued its reader (lag 0), which
     * is what the validator proved the rings progress with. */
    pt_stage_hold hold;
    pt_stage_hold_decide(p, sg, &hold);
    if (!hold.progress)
        REFUSE("the K/V rings cannot make progress with stages %d / %d and this producer order "
               "(validate the sProgram for the stage count it needs)", pl->stages_k, pl->stages_v);
    if (hold.mma_in_flight)
        REFUSE("the stage contract keeps a wgmma group in flight across a step; attention "
               "retires every group inside its step");
    for (int w = 0; w < pl->wgs; w++)
        if (!merge_step(pl, w, err))
            return false;
    if (!plan_buffers(pl, err) || !plan_xwaits(pl, err))
        return false;
    for (int w = 0; w < pl->wgs; w++)
        if (!plan_step(pl, w, err))
            return false;
    plan_grid(pl);
    int64_t regs = 128LL * pl->regs_producer;
    for (int w = 0; w < pl->wgs; w++)
        regs += 128LL * pl->wg[w].regs;
    if (regs > 65536)
        REFUSE("register budgets sum to %lld per CTA; the SM has 65536", (long long)regs);
    return true;
}
