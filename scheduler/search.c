/* search.c — joint search over tilings, warpgroups, stages, pipelining and the inter-EU
 * partition, scored by the simulator.
 *
 * Axes are classified from the graph: batch axes take 1; axes an op contracts while they also
 * index an output (FlashAttention's head dim) stay whole; the other output axes are the
 * output tile (the first of them is split between consumer warpgroups, so its tile is a
 * multiple of the hardware's mma rows per warpgroup); an axis that is reduced and indexes no
 * output is the loop, and its tile is the reduction tile. The space is enumerated in a fixed
 * order, so the same inputs give the same answer. Candidates failing partition or validation
 * (shared memory, registers, shapes) are pruned, and so is any whose roofline bound (tensor
 * core and load time per iteration, times iterations, times waves) cannot beat the k-th best.
 * Split-K multiplies the space by the split values where the graph's loop can be split, but
 * only candidates with fewer tiles than EUs simulate them (split_k_may_pay); stream-K (a
 * persistent grid of one CTA per EU) is one more value of that axis, simulated only where the
 * tiles leave a partial last wave of at most two. Why candidates
 * were refused is counted, so that a search that finds nothing names the commonest reason. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache_reuse.h"
#include "default_tiling.h"
#include "propagate.h"
#include "ring_reuse.h"
#include "refusals.h"
#include "waves.h"
#include "smem_layout.h"
#include "scheduler.h"
#include "search_internal.h"
#include "splitk.h"
#include "stage_hold.h"
#include "streamk.h"
#include "validate.h"

#define MAX_VALUES 8

/* Consumer warpgroups a tile is split between: 1 to 3, and 4 (256 rows, each warpgroup with
 * about 112 registers under the CTA's 640 threads) in causal attention. Short causal attention
 * at head dim 64 is bound by the bytes each K/V block brings per query row, and there four
 * warpgroups ran up to 21% faster than three, predicted within 3% at every sequence length;
 * without the mask the model predicted them up to 7% too fast at long sequences, where they
 * lost (BENCHMARKS.md, session 16). Four-warpgroup GEMMs are generated and checked but not
 * timed, so the search leaves them out too. */
static int max_warpgroups(const pt_graph *g)
{
    for (int o = 0; o < g->n_ops; o++)
        if (g->ops[o].kind == PT_OP_ONLINE_SOFTMAX && g->ops[o].causal)
            return 4;
    return 3;
}

typedef struct {
    int n;
    int64_t v[MAX_VALUES];
} value_set;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void add_value(value_set *s, int64_t v)
{
    for (int i = 0; i < s->n; i++)
        if (s->v[i] == v)
            return;
    if (s->n < MAX_VALUES)
        s->v[s->n++] = v;
}

static bool contracted(const pt_graph *g, int a)
{
    for (int i = 0; i < g->n_ops; i++) {
        const pt_op *op = &g->ops[i];
        for (int r = 0; r < op->n_reduce; r++)
            if (op->reduce_axes[r] == a)
                return true;
        if ((op->kind == PT_OP_ONLINE_SOFTMAX || op->kind == PT_OP_CUMSUM) && op->axis == a)
            return true;
    }
    return false;
}

/* Is axis a the contiguous (innermost) axis of some input tensor? Its tiles are then TMA boxes'
 * inner extent and must be whole swizzle atoms. */
static bool innermost_input(const pt_graph *g, int a)
{
    for (int t = 0; t < g->n_tensors; t++) {
        const pt_tensor *T = &g->tensors[t];
        if (T->role == PT_ROLE_INPUT && T->rank > 0 && T->axes[T->rank - 1] == a)
            return true;
    }
    return false;
}

/* The first non-batch axis of the first output: split between warpgroups. */
static int split_axis(const pt_graph *g)
{
    for (int t = 0; t < g->n_tensors; t++) {
        const pt_tensor *x = &g->tensors[t];
        if (x->role != PT_ROLE_OUTPUT || x->view_of >= 0)
            continue;
        for (int i = 0; i < x->rank; i++)
            if (!g->axes[x->axes[i]].batch && !contracted(g, x->axes[i]))
                return x->axes[i];
    }
    return -1;
}

/* How many matmuls the graph has. */
static int matmuls(const pt_graph *g)
{
    int n = 0;
    for (int i = 0; i < g->n_ops; i++)
        n += g->ops[i].kind == PT_OP_MATMUL;
    return n;
}

/* The output axis a single matmul's tensor-core rows may run along instead of the default
 * (its N: "swap A and B", so that a small M becomes the instruction's N, cut in multiples of 8
 * rather than 64), or -1. */
static int swap_axis(const pt_graph *g)
{
    int split = split_axis(g);
    if (matmuls(g) != 1 || split < 0)
        return -1;
    for (int t = 0; t < g->n_tensors; t++) {
        const pt_tensor *x = &g->tensors[t];
        if (x->role != PT_ROLE_OUTPUT || x->view_of >= 0)
            continue;
        for (int i = 0; i < x->rank; i++)
            if (x->axes[i] != split && !g->axes[x->axes[i]].batch && !contracted(g, x->axes[i]))
                return x->axes[i];
        return -1;
    }
    return -1;
}

/* Rows of one tensor-core instruction per warpgroup, or 1 for graphs without a matmul (their
 * warpgroups split rows freely). */
static int64_t mma_rows(const pt_graph *g, const pt_hw *hw)
{
    for (int i = 0; i < g->n_ops; i++)
        if (g->ops[i].kind == PT_OP_MATMUL)
            return hw->mma_m > 0 ? hw->mma_m : 64;
    return 1;
}

/* Is there a causal exp_decay along axis a (Mamba2 ChunkScan's rows)? */
static bool causal_decay_rows(const pt_graph *g, int a)
{
    for (int i = 0; i < g->n_ops; i++)
        if (g->ops[i].kind == PT_OP_EXP_DECAY && g->ops[i].causal && g->ops[i].row_axis == a)
            return true;
    return false;
}

/* The batch axis warpgroups may split instead of rows (each warpgroup one batch index, the
 * operands without that axis loaded once for all of them: Mamba2's B, C and CB, shared by a
 * CTA's heads), or -1. Offered where the rows cannot be split (the default split axis is one
 * tensor-core block, ChunkState's P = 64, so a second warpgroup is otherwise impossible), and
 * where a causal decay along the rows gives the warpgroup of the later rows more k blocks
 * (ChunkScan: split rows wait on the longest warpgroup each tile; heads share a trip count).
 * The output's last batch axis is taken: its neighbouring tiles lie next to each other. */
static int batch_split_axis(const pt_graph *g, const pt_hw *hw)
{
    int split = split_axis(g);
    if (split < 0)
        return -1;
    bool rows_fit = matmuls(g) == 1 && g->axes[split].extent <= mma_rows(g, hw);
    if (!rows_fit && !causal_decay_rows(g, split))
        return -1;
    for (int t = 0; t < g->n_tensors; t++) {
        const pt_tensor *x = &g->tensors[t];
        if (x->role != PT_ROLE_OUTPUT || x->view_of >= 0)
            continue;
        int last = -1;
        for (int i = 0; i < x->rank; i++)
            if (g->axes[x->axes[i]].batch)
                last = x->axes[i];
        return last;
    }
    return -1;
}

/* The tiles of the axis the warpgroups split: 1 to 4 warpgroups' worth of mma rows, none
 * entirely past the extent. */
static void row_values(value_set *s, int64_t mrow, int64_t ext)
{
    for (int64_t v = mrow; v <= 4 * mrow; v += mrow)
        if (v < ext + mrow)
            add_value(s, v);
}

/* The most keys (a multiple of 16) whose K and V blocks, two stages of each, fit in shared
 * memory beside a 128-row Q tile; 0 when the graph has no such head dim. At head dim 256 that
 * is 80, which the list of key tiles lacks (96 leaves room for one stage only): round 172
 * measured 80 keys 3-6% faster than 64 there, where FlashAttention-3 uses it too. At smaller
 * head dims it is a size the list already has or beyond wgmma's 256. Attention graphs only. */
static int64_t filling_keys(const pt_graph *g, const pt_hw *hw)
{
    bool attention = false;
    for (int i = 0; i < g->n_ops; i++)
        attention |= g->ops[i].kind == PT_OP_ONLINE_SOFTMAX;
    int64_t d = 0;
    for (int a = 0; attention && a < g->n_axes; a++)
        if (!g->axes[a].batch && contracted(g, a) && innermost_input(g, a))
            d = g->axes[a].extent;
    if (d <= 0)
        return 0;
    int64_t left = hw->smem_per_block - 128 * d * 2; /* 16-bit Q */
    int64_t keys = left > 0 ? left / (2 * 2 * d * 2) : 0;
    return keys - keys % 16;
}

/* Candidate tiles of every axis (a single value where the axis is not searched). */
static void axis_values(const pt_graph *g, const pt_hw *hw, value_set *vals)
{
    int split = split_axis(g);
    int64_t mrow = mma_rows(g, hw);
    for (int a = 0; a < g->n_axes; a++) {
        value_set *s = &vals[a];
        s->n = 0;
        int64_t ext = g->axes[a].extent;
        bool out = pt_graph_axis_in_output(g, a), red = contracted(g, a);
        if (g->axes[a].batch) {
            add_value(s, 1);
        } else if (out && red) {
            add_value(s, ext); /* summed over elsewhere: whole */
        } else if (out && a == split && mrow > 1) {
            row_values(s, mrow, ext);
        } else if (out) {
            static const int64_t opts[] = {64, 128, 192, 256};
            for (int i = 0; i < 4; i++)
                if (opts[i] < ext + 64)
                    add_value(s, opts[i]);
            if (ext < 256)
                add_value(s, ext);
        } else if (red && innermost_input(g, a)) {
            /* reduction tiles are whole 128-byte swizzle atoms of 16-bit data; a layout without
             * swizzle atoms (AMD: padded LDS rows, smem_layout.h) also takes 16 and 32, whole
             * k steps of the MFMA (16 bytes of K), which buy a 64 KB LDS the stages that wide
             * tiles at k 64 leave no room for */
            static const int64_t opts[] = {64, 128, 256}, small[] = {16, 32};
            pt_smem_layout lay;
            pt_smem_layout_of(hw, &lay);
            for (int i = 0; i < 2 && !lay.atoms; i++)
                if (small[i] <= ext)
                    add_value(s, small[i]);
            for (int i = 0; i < 3; i++)
                if (opts[i] <= ext)
                    add_value(s, opts[i]);
            /* shorter than one atom (Mamba2's d_state 16 or 32): the whole axis, and one atom
             * holding it where the layout has atoms (TMA zero-fills the columns past the end) */
            if (s->n == 0) {
                add_value(s, ext);
                if (lay.atoms)
                    add_value(s, opts[0]);
            }
        } else if (red) {
            /* rows of the loaded tiles (attention's keys): any multiple of 16 (one k16 step of
             * the wgmma that contracts them), the in-between sizes trading registers for
             * fewer loop steps */
            static const int64_t opts[] = {64, 96, 112, 128, 176, 192, 256};
            /* a part whose matrix instruction is 32 wide (MI300X: 32x32x8 MFMA) and whose 64 KB
             * of LDS holds few 64-key blocks of a wide head dim: one instruction of keys too */
            if (hw->mma_n_max > 0 && hw->mma_n_max < 64)
                add_value(s, hw->mma_n_max);
            for (int i = 0; i < 7; i++)
                if (opts[i] < ext + 64)
                    add_value(s, opts[i]);
            int64_t fill = filling_keys(g, hw);
            if (fill >= 64 && fill <= 256 && fill < ext + 64) /* wgmma's N of S: 256 at most */
                add_value(s, fill);
            /* a short axis whole (the combine's splits: 64 rows of 16 splits were four times
             * the tile and never fitted; the combine takes every split in one tile, so 125
             * splits need a tile of 125) */
            if (ext <= 256)
                add_value(s, ext);
        } else {
            add_value(s, ext);
        }
    }
}

/* The output tiles of small_pass (pt_schedule_graph): every power of two from 4 below a
 * non-batch output axis's extent, and the extent where it is shorter than 256. From 4: the
 * combine of many splits over few rows (MQA's 32 query heads) has a tile of 4 rows that the
 * sm90a generator takes (X's TMA rows in fours), twice the CTAs of 8 rows, each with half the
 * bytes to read. False when no axis gains a value. */
static bool small_values(const pt_graph *g, value_set *vals)
{
    bool more = false;
    for (int a = 0; a < g->n_axes; a++) {
        if (g->axes[a].batch || !pt_graph_axis_in_output(g, a) || contracted(g, a))
            continue;
        value_set *s = &vals[a];
        int64_t ext = g->axes[a].extent;
        s->n = 0;
        for (int64_t v = 4; v < ext && v <= 256 && s->n < MAX_VALUES - 1; v *= 2)
            add_value(s, v);
        if (ext <= 256)
            add_value(s, ext);
        more |= s->n > 1 || (s->n == 1 && s->v[0] < ext);
    }
    return more;
}

/* Is an operand of the graph's matmul dequantised in the kernel? */
static bool dequantises(const pt_graph *g)
{
    for (int i = 0; i < g->n_ops; i++)
        if (g->ops[i].kind == PT_OP_DEQUANTIZE)
            return true;
    return false;
}

/* The values of a swapped tiling (rows on axis `rows`): the rows axis takes whole mma rows per
 * warpgroup, as the split axis does; the former split axis `cols` takes tiles of whole mma N
 * steps that cut it evenly into 1 to 4 tiles, only those that are not multiples of the mma
 * rows (those tilings the unswapped pass has, at the same predicted time) — unless the rows'
 * operand is dequantised: swapped, each warpgroup dequantises its own rows into registers
 * (pt_stask_dequant_rows), another kernel at every tile, so the usual tiles of 64 to 256 are
 * searched as well. Returns false when none is left: the swap adds nothing. */
static bool swap_values(const pt_graph *g, const pt_hw *hw, int rows, int cols, value_set *vals)
{
    int64_t mrow = mma_rows(g, hw), step = hw->mma_n_step > 0 ? hw->mma_n_step : 8;
    int64_t max = hw->mma_n_max > 0 ? hw->mma_n_max : 256, ext = g->axes[cols].extent;
    value_set *c = &vals[cols], *r = &vals[rows];
    bool deq = dequantises(g);
    c->n = r->n = 0;
    for (int64_t k = 1; k <= 4; k++) {
        int64_t v = (ext + k - 1) / k;
        v = (v + step - 1) / step * step;
        if (v <= max && (v % mrow != 0 || deq))
            add_value(c, v);
    }
    for (int64_t v = mrow; deq && v <= max; v += mrow)
        if (v < ext + mrow)
            add_value(c, v);
    row_values(r, mrow, g->axes[rows].extent);
    return c->n > 0 && r->n > 0;
}

/* Lower bound of the kernel time: per EU and iteration, the tensor core and the loads cannot
 * go faster than their rates (a load's as the simulator charges it, cache reuse included: a
 * bound above the simulated time would prune candidates better than those kept); iterations
 * and waves multiply. Split-K: waves of work items,
 * each at least the shortest chunk (the fix-up's traffic only adds). */
static double roofline_bound(const pt_stask_graph *sg, const pt_hw *hw, bool persistent,
                             int split_k, int stream_k)
{
    double mma = 0, load = 0;
    for (int i = 0; i < sg->n; i++) {
        const pt_stask *s = &sg->tasks[i];
        if (s->region != PT_REGION_BODY)
            continue;
        const pt_cost *c = &hw->cost[s->kind][s->dtype];
        if (c->rate <= 0)
            continue;
        if (s->kind == PT_ST_MMA)
            mma += (double)s->flops / c->rate;
        else if (s->kind == PT_ST_LOAD) /* at the rate the simulator charges: re-reads
                                            served by the cache where the model has one */
            load += (double)s->bytes / c->rate *
                    (hw->reuse_bytes_per_ns > 0 ? pt_cache_reuse_scale(sg, s, hw) : 1);
    }
    double per_iter = mma > load ? mma : load;
    double iters = (double)sg->iterations * (sg->causal_op >= 0 ? 0.5 : 1.0);
    double eus = hw->eu_count > 0 ? hw->eu_count : 1;
    double items = (double)sg->tiles * split_k;
    double waves = persistent ? items / eus : ceil(items / eus);
    double item_iters = split_k > 1 ? floor(iters / split_k) : iters;
    if (stream_k > 1) { /* every CTA an even share of all the iterations */
        waves = 1;
        item_iters = floor(iters * (double)sg->tiles / (stream_k < eus ? stream_k : eus));
    }
    /* the least launch any kernel pays (a bound: waves.h, pt_waves_launch_ns) */
    return pt_waves_launch_ns(hw, 0) + waves * item_iters * per_iter;
}

static bool has_kind(const pt_stask_graph *sg, pt_stask_kind kind)
{
    for (int i = 0; i < sg->n; i++)
        if (sg->tasks[i].kind == kind)
            return true;
    return false;
}

typedef struct {
    pt_schedule_result *r;
    int k;
} topk;

/* Keep the k best, best first; ties keep the earlier candidate (enumeration order). */
static void offer(topk *t, pt_schedule_candidate *c)
{
    pt_schedule_result *r = t->r;
    int pos = r->n;
    while (pos > 0 && c->total_ns < r->best[pos - 1].total_ns)
        pos--;
    if (pos >= t->k) {
        pt_sprogram_free(&c->prog);
        pt_stask_graph_free(&c->sg);
        return;
    }
    if (r->n == t->k) {
        pt_sprogram_free(&r->best[r->n - 1].prog);
        pt_stask_graph_free(&r->best[r->n - 1].sg);
        r->n--;
    }
    memmove(&r->best[pos + 1], &r->best[pos], (size_t)(r->n - pos) * sizeof *r->best);
    r->best[pos] = *c;
    r->n++;
}

static double kth_best(const topk *t)
{
    return t->r->n < t->k ? INFINITY : t->r->best[t->r->n - 1].total_ns;
}

typedef struct {
    const pt_graph *g;
    const pt_hw *hw;
    const pt_schedule_opts *o;
    topk top;
    double t0;
    value_set vals[PT_MAX_AXES];
    pt_refusals *why_invalid;  /* partition, schedule, validation or simulation refused */
    pt_refusals *why_refused;  /* valid, but the acceptance test (o->accept) refused */
    bool decay_both;           /* every candidate in every decay form (o->decay_any): tile,
                                  factored and factored16 (decay_form.h) */
} search;

/* Decay forms each combination is tried in (search_tiling's try_candidate calls). */
static int decay_forms(const search *S)
{
    return S->decay_both ? 3 : 1;
}

/* The reduction splits searched: split-K a handful of ways up to the depth where a chunk's
 * partial-tile traffic starts to rival its loop, with its partial tiles added through the
 * global workspace or (cluster) the shared memory of the tile's thread-block cluster; and
 * stream-K over one CTA per EU. */
typedef struct {
    int split_k;     /* chunks per tile (1: none) */
    bool stream_k;   /* partition.stream_k over one CTA per EU */
    bool cluster;    /* partition.split_k_reduce cluster */
} split_opt;

static const split_opt split_opts[] = {
    {1, false, false}, {2, false, false}, {3, false, false}, {4, false, false},
    {6, false, false}, {8, false, false}, {1, true, false},  {2, false, true},
    {3, false, true},  {4, false, true},  {6, false, true},  {8, false, true}};
#define N_SPLIT_OPTS ((int)(sizeof split_opts / sizeof split_opts[0]))

/* Split-K is simulated only where it can pay: fewer tiles than EUs (the rest would idle), at
 * most two waves of work items (tiles x S <= 2 x EUs: deeper splits only add fix-up traffic
 * and tail), chunks of at least one iteration, and a loop the fix-up can add up. This keeps
 * the extra simulations to at most five per candidate, all on small grids, which simulate
 * fast; every other split is pruned per tiling (split_gates), before it is partitioned,
 * scheduled or simulated. */
static bool split_k_may_pay(const pt_stask_graph *sg, const pt_hw *hw, const split_opt *o)
{
    char why[PT_ERROR_MAX];
    int64_t eus = hw->eu_count;
    int s = o->split_k;
    /* stream-K: only a partial last wave of at most two is evened out, over loops of at
     * least two iterations (one iteration a CTA is the plain grid) */
    if (o->stream_k)
        return eus >= 2 && eus <= PT_MAX_STREAM_K && sg->tiles % eus != 0 &&
               sg->tiles < 2 * eus && sg->iterations >= 2 &&
               pt_split_k_possible(sg, why, sizeof why);
    /* through a cluster: where every tile's cluster is resident at once (else a second wave
     * of clusters costs more than the workspace's round trips save) */
    if (o->cluster)
        return s <= PT_HW_MAX_CLUSTER && hw->cluster_capacity[s] > 0 &&
               sg->tiles <= hw->cluster_capacity[s] && s <= sg->iterations &&
               pt_split_k_possible(sg, why, sizeof why);
    return s <= 1 || (sg->tiles < eus && sg->tiles * s <= 2 * eus && s <= sg->iterations &&
                      pt_split_k_possible(sg, why, sizeof why));
}

/* Which splits may pay for this tiling: one partition decides for every intra-EU option.
 * A tiling that does not partition lets every split through, to be refused (and counted) as
 * invalid by try_candidate like the unsplit one. */
static void split_gates(const search *S, const pt_tiling *t, int n_split, bool *pays)
{
    pt_stask_graph sg;
    pt_error err;
    bool parted = n_split > 1 && pt_partition(&sg, S->g, t, &err);
    for (int k = 0; k < n_split; k++)
        pays[k] = !parted || split_k_may_pay(&sg, S->hw, &split_opts[k]);
    if (parted)
        pt_stask_graph_free(&sg);
}

/* Can the graph's loop be split at all (with its default tiling)? If not, split-K is not part
 * of its search space. */
static int split_values(const pt_graph *g)
{
    pt_tiling t;
    pt_stask_graph sg;
    pt_error err;
    char why[PT_ERROR_MAX];
    pt_tiling_defaults(g, &t);
    if (!pt_partition(&sg, g, &t, &err))
        return 1;
    bool ok = pt_split_k_possible(&sg, why, sizeof why);
    pt_stask_graph_free(&sg);
    return ok ? N_SPLIT_OPTS : 1;
}

/* A candidate's prologue product issued a tile ahead (offset 1 on ChunkScan's C . statesᵀ:
 * src/validate.c says when), kept where valid and predicted faster (the wave model credits the
 * tile before's epilogue it runs under). Tried only where every consumer has 200 or more
 * registers: the form holds a second accumulator, and it was measured on the 232-register
 * pick (BENCHMARKS.md, session 43), not under three warpgroups' tighter budgets. */
static bool has_prologue_product(const pt_stask_graph *sg)
{
    for (int s = 0; s < sg->n; s++)
        if (pt_stask_prologue_product(sg, s))
            return true;
    return false;
}

/* q, a variant of c's program over the same partition, replaces it where it is valid, the
 * acceptance test takes it and it is predicted faster (true); otherwise q is freed (false). */
static bool keep_if_faster(search *S, pt_schedule_candidate *c, pt_sprogram *q)
{
    pt_validation v;
    pt_error err;
    pt_timeline tl = {0};
    bool faster = pt_validate(q, &c->sg, S->hw, &v, &err) &&
                  (!S->o || !S->o->accept || S->o->accept(S->o->ctx, q, &c->sg, S->hw, &err)) &&
                  pt_simulate(q, &c->sg, S->hw, &tl, &err) && tl.kernel_time_ns < c->predicted_ns;
    if (faster) {
        pt_sprogram_free(&c->prog);
        c->prog = *q;
        c->predicted_ns = c->total_ns = tl.kernel_time_ns;
        c->tflops = tl.tflops;
    } else {
        pt_sprogram_free(q);
    }
    pt_timeline_free(&tl);
    return faster;
}

/* Offset 1 on every prologue product of p: each issued a tile ahead. */
static void set_prologue_ahead(pt_sprogram *p, const pt_stask_graph *sg)
{
    for (int l = 0; l < p->n_lanes; l++)
        for (int e = 0; e < p->lanes[l].n; e++)
            if (pt_stask_prologue_product(sg, p->lanes[l].entries[e].stask))
                p->lanes[l].entries[e].offset = 1;
}

static void try_prologue_ahead(search *S, pt_schedule_candidate *c)
{
    bool any = has_prologue_product(&c->sg);
    for (int r = 0; any && r < c->prog.n_roles; r++)
        if (c->prog.roles[r].wg >= 0 && c->prog.roles[r].regs < 200)
            any = false;
    if (!any || !c->prog.partition.persistent)
        return;
    pt_sprogram q;
    if (!pt_sprogram_copy(&q, &c->prog))
        return;
    set_prologue_ahead(&q, &c->sg);
    if (keep_if_faster(S, c, &q))
        c->pro_ahead = true;
}

/* Each warpgroup storing its own rows (tiling wg_stores): the same tiling re-partitioned so
 * each warpgroup's store waits for its own epilogue only, the program rebuilt with the same
 * options (and the prologue product ahead where c had it), kept where predicted faster. The
 * model credits it through hw.wg_store_stagger (waves.c), fitted on ChunkScan at B 8 (measured
 * 1.9-2.4% faster, BENCHMARKS.md session 45). It is tried only where it was measured, the
 * warpgroups on a batch axis of a tile with a prologue product (ChunkScan's heads); ChunkState,
 * where the model would credit it 0.4%, keeps one store until it is timed there. */
static void try_wg_stores(search *S, pt_schedule_candidate *c, const pt_intra_opts *io)
{
    pt_tiling t = c->sg.tiling;
    if (t.warpgroups < 2 || t.wg_axis <= 0 || !S->g->axes[t.wg_axis - 1].batch || t.wg_stores ||
        !has_prologue_product(&c->sg))
        return;
    t.wg_stores = true;
    pt_schedule_candidate w;
    memset(&w, 0, sizeof w);
    pt_error err;
    pt_validation v;
    pt_timeline tl = {0};
    if (!pt_partition(&w.sg, S->g, &t, &err))
        return;
    bool ok = pt_schedule_intra(&w.prog, &w.sg, S->hw, io, &err);
    if (ok) {
        w.prog.decay = c->prog.decay;
        if (c->pro_ahead)
            set_prologue_ahead(&w.prog, &w.sg);
        ok = pt_validate(&w.prog, &w.sg, S->hw, &v, &err) &&
             (!S->o || !S->o->accept || S->o->accept(S->o->ctx, &w.prog, &w.sg, S->hw, &err)) &&
             pt_simulate(&w.prog, &w.sg, S->hw, &tl, &err) && tl.kernel_time_ns < c->predicted_ns;
        if (!ok)
            pt_sprogram_free(&w.prog);
    }
    if (ok) {
        pt_sprogram_resolve_choices(&w.prog, &w.sg, S->hw);
        pt_sprogram_free(&c->prog);
        pt_stask_graph_free(&c->sg);
        c->prog = w.prog;
        c->sg = w.sg;
        c->predicted_ns = c->total_ns = tl.kernel_time_ns;
        c->tflops = tl.tflops;
    } else {
        pt_stask_graph_free(&w.sg);
    }
    pt_timeline_free(&tl);
}

/* CUDA-core readers handing their ring stages back behind a proxy fence once read ("release":
 * "fence") instead of with the wgmma group that consumed what they made: the same program,
 * kept where predicted faster. The fence costs the reader (hw.proxy_fence_ns) and frees the
 * stage sooner: on the H100 1.9% faster on ChunkState (memory-bound, its rings 2 deep) and 3.6%
 * slower on ChunkScan (bound by its CUDA-core work), BENCHMARKS.md session 51. Tried only where
 * some reader's stages do go back with a group, on candidates near the list. */
static void try_fenced_release(search *S, pt_schedule_candidate *c)
{
    pt_stage_hold h;
    pt_stage_hold_lags(&c->prog, &c->sg, &h);
    if (!h.defer_reads || c->prog.release == PT_RELEASE_FENCE)
        return;
    /* the fence moves a kernel by a few percent: a candidate further than 5% behind the k-th
     * best cannot enter the list with it (this halves the simulations on ChunkScan) */
    if (c->predicted_ns > 1.05 * kth_best(&S->top))
        return;
    pt_sprogram q;
    if (!pt_sprogram_copy(&q, &c->prog))
        return;
    q.release = PT_RELEASE_FENCE;
    keep_if_faster(S, c, &q);
}

/* One candidate: tiling and io, its exp_decay lowered as `decay`. */
static void try_candidate(search *S, const pt_tiling *tiling, const pt_intra_opts *io,
                          pt_decay_form decay)
{
    pt_schedule_result *r = S->top.r;
    pt_schedule_candidate c;
    memset(&c, 0, sizeof c);
    pt_error err;
    r->seen++;
    if (!pt_partition(&c.sg, S->g, tiling, &err)) {
        r->pruned_invalid++;
        pt_refusals_add(S->why_invalid, err.msg);
        return;
    }
    if ((io->lookahead == PT_LOOKAHEAD_CHAIN && !pt_schedule_can_chain_ahead(&c.sg)) ||
        (io->lookahead && io->lookahead != PT_LOOKAHEAD_CHAIN && !pt_schedule_can_look_ahead(&c.sg)) ||
        (io->lookahead == PT_LOOKAHEAD_FA3 && !has_kind(&c.sg, PT_ST_RESCALE)) ||
        /* stores by a consumer are searched only where a resident tile (attention's Q) makes
         * them pay: the next resident load no longer waits behind the store; that is where
         * they were checked and timed on the GPU (BENCHMARKS.md, FlashAttention), the GEMM
         * generator emits them too, unmeasured */
        (io->store_by_consumer &&
         !(has_kind(&c.sg, PT_ST_STORE) && pt_stask_graph_has_resident_load(&c.sg)))) {
        r->pruned_invalid++; /* the same program as a simpler option gives */
        pt_stask_graph_free(&c.sg);
        return;
    }
    double bound =
        roofline_bound(&c.sg, S->hw, io->persistent, io->split_k > 1 ? io->split_k : 1,
                       io->stream_k);
    if (bound >= kth_best(&S->top)) {
        r->pruned_bound++;
        pt_stask_graph_free(&c.sg);
        return;
    }
    pt_validation v;
    if (!pt_schedule_intra(&c.prog, &c.sg, S->hw, io, &err)) {
        r->pruned_invalid++;
        pt_refusals_add(S->why_invalid, err.msg);
        pt_stask_graph_free(&c.sg);
        return;
    }
    c.prog.decay = decay;
    /* the cluster's slots over the leader's rings make the others wait for its loop: measured
     * 1.7-5.8% slower than the workspace in 4 of 5 M = 64 picks (BENCHMARKS.md, session 20), which
     * the model does not charge; only slots beside the buffers are searched */
    if (io->split_cluster && pt_sprogram_cluster_slots_over_rings(&c.prog, &c.sg, S->hw)) {
        r->pruned_split_k++;
        pt_sprogram_free(&c.prog);
        pt_stask_graph_free(&c.sg);
        return;
    }
    if (io->run > 1 && !pt_ring_reuse_tensors(&c.prog, &c.sg, S->hw)) {
        r->pruned_invalid++; /* keeps nothing: the strided walks are searched */
        pt_sprogram_free(&c.prog);
        pt_stask_graph_free(&c.sg);
        return;
    }
    pt_timeline tl = {0};
    bool valid = pt_validate(&c.prog, &c.sg, S->hw, &v, &err), refused = false;
    double kept_frac = 0;
    if (valid && io->run > 1 &&
        !pt_ring_reuse_best(&c.prog, &c.sg, S->hw, S->hw->eu_count, &kept_frac)) {
        r->pruned_invalid++; /* no tile finds anything kept in this walk */
        pt_sprogram_free(&c.prog);
        pt_stask_graph_free(&c.sg);
        return;
    }
    if (valid && S->o && S->o->accept) {
        pt_error why = {{0}};
        refused = !S->o->accept(S->o->ctx, &c.prog, &c.sg, S->hw, &why);
        if (refused) {
            r->refused++;
            pt_refusals_add(S->why_refused, why.msg);
        }
    }
    if (!valid || refused || !pt_simulate(&c.prog, &c.sg, S->hw, &tl, &err)) {
        if (!refused)
            pt_refusals_add(S->why_invalid, err.msg);
        r->pruned_invalid++;
        pt_timeline_free(&tl);
        pt_sprogram_free(&c.prog);
        pt_stask_graph_free(&c.sg);
        return;
    }
    r->simulated++;
    /* the saved program says what its kernel does: launch order and staging spelled out */
    pt_sprogram_resolve_choices(&c.prog, &c.sg, S->hw);
    c.opts = *io;
    c.predicted_ns = c.total_ns = tl.kernel_time_ns;
    c.tflops = tl.tflops;
    pt_timeline_free(&tl);
    try_prologue_ahead(S, &c);
    try_wg_stores(S, &c, io);
    try_fenced_release(S, &c);
    size_t n = 0;
    for (int a = 0; a < S->g->n_axes; a++)
        if (S->vals[a].n > 1 || (!S->g->axes[a].batch && tiling->tile[a] < S->g->axes[a].extent))
            n += (size_t)snprintf(c.desc + n, sizeof c.desc - n, "%s=%lld ", S->g->axes[a].name,
                                  (long long)c.sg.tiling.tile[a]);
    static const char *const la_name[PT_LOOKAHEAD_COUNT] = {"", " look-ahead", " fa3-order",
                                                            " chain-ahead"};
    if (tiling->wg_axis > 0 && n < sizeof c.desc)
        n += (size_t)snprintf(c.desc + n, sizeof c.desc - n, "wg_axis=%s ",
                              S->g->axes[tiling->wg_axis - 1].name);
    char run_desc[24] = "";
    if (io->run > 1)
        snprintf(run_desc, sizeof run_desc, " run=%d", io->run);
    n += (size_t)snprintf(c.desc + n, sizeof c.desc - n, "wg=%d stages=%d%s%s %s%s%s%s",
                          tiling->warpgroups, io->stages, la_name[io->lookahead],
                          io->pingpong ? " ping-pong" : "", io->persistent ? "persistent " : "",
                          pt_raster_name(io->raster), run_desc,
                          io->store_by_consumer ? " store-by-consumer" : "");
    if (io->split_k > 1 && n < sizeof c.desc)
        n += (size_t)snprintf(c.desc + n, sizeof c.desc - n, " split-k=%d%s", io->split_k,
                 io->split_cluster ? " cluster" : "");
    else if (io->stream_k > 1 && n < sizeof c.desc)
        n += (size_t)snprintf(c.desc + n, sizeof c.desc - n, " stream-k=%d", io->stream_k);
    if (c.prog.decay != PT_DECAY_TILE && n < sizeof c.desc)
        n += (size_t)snprintf(c.desc + n, sizeof c.desc - n, " decay=%s",
                              pt_decay_form_name(c.prog.decay));
    if (c.pro_ahead && n < sizeof c.desc)
        n += (size_t)snprintf(c.desc + n, sizeof c.desc - n, " prologue-ahead");
    if (c.sg.tiling.wg_stores && n < sizeof c.desc)
        n += (size_t)snprintf(c.desc + n, sizeof c.desc - n, " wg-stores");
    if (c.prog.release == PT_RELEASE_FENCE && n < sizeof c.desc)
        snprintf(c.desc + n, sizeof c.desc - n, " release=fence");
    offer(&S->top, &c);
}

/* The graph's default sProgram (its default tiling, every sTask on its natural lane) is a
 * candidate too: a search never returns a pick predicted slower than what the user starts
 * from when nothing is scheduled. It is offered only where valid and accepted. */
static void offer_default(search *S)
{
    pt_schedule_candidate c;
    memset(&c, 0, sizeof c);
    pt_tiling t;
    pt_error err;
    pt_tiling_defaults_on(S->g, S->hw, &t); /* what the explorer and the CLI start from */
    if (!pt_partition(&c.sg, S->g, &t, &err))
        return;
    pt_validation v;
    pt_timeline tl = {0};
    bool made = pt_sprogram_default(&c.prog, &c.sg, S->hw, &err);
    if (made && S->o)
        c.prog.decay = S->o->decay;
    bool ok = made && pt_validate(&c.prog, &c.sg, S->hw, &v, &err);
    if (ok && S->o && S->o->accept) {
        pt_error why = {{0}};
        ok = S->o->accept(S->o->ctx, &c.prog, &c.sg, S->hw, &why);
    }
    if (!ok || !pt_simulate(&c.prog, &c.sg, S->hw, &tl, &err)) {
        pt_timeline_free(&tl);
        pt_sprogram_free(&c.prog);
        pt_stask_graph_free(&c.sg);
        return;
    }
    pt_sprogram_resolve_choices(&c.prog, &c.sg, S->hw);
    for (int i = 0; i < PT_MAX_TENSORS && !c.opts.stages; i++)
        c.opts.stages = c.prog.stages[i];
    c.opts.persistent = c.prog.partition.persistent;
    c.opts.raster = c.prog.partition.raster;
    c.opts.group = c.prog.partition.group;
    c.opts.split_k = 1;
    c.predicted_ns = c.total_ns = tl.kernel_time_ns;
    c.tflops = tl.tflops;
    pt_timeline_free(&tl);
    snprintf(c.desc, sizeof c.desc, "the default sProgram (wg=%d stages=%d)", t.warpgroups,
             c.opts.stages);
    S->top.r->simulated++;
    offer(&S->top, &c);
}

/* The failure of a search that kept nothing, with the reason that stopped most candidates:
 * the acceptance test's when it refused any (everything else was refused before it ever
 * saw them, so its reason is what stands between the user and a kernel), else the commonest
 * partition or validation problem, one that is not the search's own lane order where there
 * is such a problem. */
static void nothing_fits(const search *S, pt_error *err)
{
    const pt_schedule_result *r = S->top.r;
    int64_t n = 0;
    const char *top;
    const char *what = S->o && S->o->accept_what ? S->o->accept_what : "the acceptance test";
    if (r->refused > 0 && (top = pt_refusals_top(S->why_refused, &n)))
        pt_fail(err, "scheduler: none of the %lld candidate sPrograms for %s fits %s: %s refused "
                     "all %lld valid ones, most often (%lld of them) because: %s",
                (long long)r->seen, S->g->name, S->hw->name, what, (long long)r->refused,
                (long long)n, top);
    /* a deadlock is an order this search built for the candidate's lanes, not a limit of the
     * graph or the hardware: where anything else was refused too, that is what to report */
    else if ((top = pt_refusals_top_but(S->why_invalid, "deadlock", &n)))
        pt_fail(err, "scheduler: none of the %lld candidate sPrograms for %s fits %s (shared "
                     "memory, registers or tile shapes); most often (%lld of %lld refused): %s",
                (long long)r->seen, S->g->name, S->hw->name, (long long)n,
                (long long)S->why_invalid->total, top);
    else
        pt_fail(err, "scheduler: none of the %lld candidate sPrograms for %s fits %s "
                     "(shared memory, registers or tile shapes)",
                (long long)r->seen, S->g->name, S->hw->name);
}

/* Odometer over the axes' value sets. */
static bool next_tiling(const search *S, int *idx)
{
    for (int a = S->g->n_axes - 1; a >= 0; a--) {
        if (++idx[a] < S->vals[a].n)
            return true;
        idx[a] = 0;
    }
    return false;
}

/* The CTA walks searched: one tile per CTA; persistent grouped; persistent grouped with the
 * store on a consumer; and persistent row and column walks in runs of 2 launch positions a
 * CTA with either store, tried only where a run keeps a ring or resident tile across tiles
 * (src/ring_reuse.h: Mamba2's B and C, shared by a chunk's heads) and not in attention
 * (runs_searched). */
static const struct {
    bool persistent;
    pt_raster raster;
    bool store_by_consumer;
    int run;
} parts[] = {{false, PT_RASTER_ROW, false, 1},
             {true, PT_RASTER_GROUPED, false, 1},
             {true, PT_RASTER_GROUPED, true, 1},
             {true, PT_RASTER_ROW, false, 2},
             {true, PT_RASTER_ROW, true, 2},
             {true, PT_RASTER_COLUMN, false, 2},
             {true, PT_RASTER_COLUMN, true, 2}};
#define N_PARTS ((int)(sizeof parts / sizeof parts[0]))

/* Runs keep K and V in attention without a mask, where the scheduler's run pick at d64,
 * S = 512 measured 2% slower than its strided one (it predicted 1% faster); in ChunkState the
 * run picks measured 3-8% faster than the strided ones (BENCHMARKS.md, session 17). Only the
 * sm90a generator emits runs (kept tiles are TMA transfers it skips). */
static bool runs_searched(const pt_graph *g, const pt_hw *hw)
{
    if (strcmp(hw->vendor, "amd") == 0)
        return false;
    for (int o = 0; o < g->n_ops; o++)
        if (g->ops[o].kind == PT_OP_ONLINE_SOFTMAX)
            return false;
    return true;
}

/* Grid and pipelining choices of one tiling and warpgroup count: stages, look-ahead, ping-pong,
 * the CTA walk (parts) and the reduction split; the warpgroups must split the split axis in
 * whole mma rows. Counts every combination seen, pruned or tried, and stops at the budget. */
static void search_tiling(search *S, const pt_tiling *t, int split, int n_split,
                          const int *stages_opts)
{
    pt_schedule_result *r = S->top.r;
    const pt_schedule_opts *o = S->o;
    const int forms = decay_forms(S); /* each combination in each decay form searched */
    int wgs = t->warpgroups;
    bool batch = split >= 0 && S->g->axes[split].batch;
    bool split_ok = split < 0   ? wgs == 1
                    : batch     ? t->tile[split] == wgs
                                : t->tile[split] % (wgs * mma_rows(S->g, S->hw)) == 0;
    bool pays[N_SPLIT_OPTS];
    split_gates(S, t, split_ok ? n_split : 1, pays);
    for (int si = 0; si < 3; si++)
        for (int la = 0; la < PT_LOOKAHEAD_COUNT; la++)
            for (int pp = 0; pp < 2; pp++)
                for (int pi = 0; pi < N_PARTS; pi++)
                    for (int ki = 0; ki < n_split; ki++) {
                        if (!split_ok || (pp && wgs < 2)) {
                            r->seen += forms;
                            r->pruned_invalid += forms;
                            continue;
                        }
                        pt_intra_opts io = {
                            .lookahead = (pt_lookahead)la, .pingpong = pp,
                            .stages = stages_opts[si], .persistent = parts[pi].persistent,
                            .raster = parts[pi].raster, .group = 8,
                            .store_by_consumer = parts[pi].store_by_consumer,
                            .split_k = split_opts[ki].split_k,
                            .split_cluster = split_opts[ki].cluster,
                            .stream_k = split_opts[ki].stream_k ? S->hw->eu_count : 0,
                            .run = parts[pi].run};
                        /* a stream-K grid is persistent: one raster of it is enough */
                        bool sk_ok = !split_opts[ki].stream_k ||
                                     (parts[pi].persistent && !parts[pi].store_by_consumer);
                        /* a cluster's leader takes one tile: one tile per CTA */
                        sk_ok = sk_ok && (!split_opts[ki].cluster || !parts[pi].persistent);
                        /* runs are of whole tiles, and searched where they paid */
                        bool run_ok = parts[pi].run == 1 ||
                                      (split_opts[ki].split_k == 1 && !split_opts[ki].stream_k &&
                                       runs_searched(S->g, S->hw));
                        if (!run_ok) {
                            r->seen += forms;
                            r->pruned_invalid += forms;
                        } else if (pays[ki] && sk_ok) {
                            try_candidate(S, t, &io, o ? o->decay : PT_DECAY_TILE);
                            if (S->decay_both) {
                                try_candidate(S, t, &io, PT_DECAY_FACTORED);
                                try_candidate(S, t, &io, PT_DECAY_FACTORED16);
                            }
                        } else {
                            r->seen += forms;
                            r->pruned_split_k += forms;
                        }
                        if (o && o->progress && r->seen % 500 == 0)
                            o->progress(o->ctx, r->seen, r->total,
                                        r->n ? r->best[0].predicted_ns : 0);
                        if (o && ((o->budget_s > 0 && now_s() - S->t0 > o->budget_s) ||
                                  (o->stop && o->stop(o->ctx, r->seen))))
                            r->budget_hit = true;
                    }
}

bool pt_schedule_graph(const pt_graph *g, const pt_hw *hw, const pt_schedule_opts *o,
                       pt_schedule_result *r, pt_error *err)
{
    memset(r, 0, sizeof *r);
    int k = o && o->top_k > 0 ? o->top_k : 1;
    if (k > 1024)
        k = 1024;
    r->best = calloc((size_t)k + 1, sizeof *r->best);
    if (!r->best)
        return pt_fail(err, "scheduler: out of memory");
    search S = {.g = g, .hw = hw, .o = o, .top = {r, k}, .t0 = now_s()};
    pt_decay_chain chain;
    pt_error chain_err = {{0}};
    S.decay_both = o && o->decay_any && o->decay == PT_DECAY_TILE &&
                   pt_decay_chain_find(g, &chain, &chain_err);
    S.why_invalid = calloc(1, sizeof *S.why_invalid);
    S.why_refused = calloc(1, sizeof *S.why_refused);
    if (!S.why_invalid || !S.why_refused) {
        free(S.why_invalid);
        free(S.why_refused);
        pt_schedule_result_free(r);
        return pt_fail(err, "scheduler: out of memory");
    }
    axis_values(g, hw, S.vals);
    const int n_split = split_values(g);
    int split = split_axis(g);
    /* a part with at most 64 KB per block (MI300X's LDS) rarely holds 4 stages of two tiles:
     * it tries a single stage (loaded, then computed on) instead */
    static const int stages_big[] = {2, 3, 4}, stages_small[] = {1, 2, 3};
    const int *stages_opts = hw->smem_per_block <= 65536 ? stages_small : stages_big;
    const int max_wgs = max_warpgroups(g);
    int64_t per_tiling = max_wgs * 3 /* stages */ * PT_LOOKAHEAD_COUNT * 2 /* ping-pong */ * N_PARTS *
                         n_split * decay_forms(&S);
    r->total = per_tiling;
    for (int a = 0; a < g->n_axes; a++)
        r->total *= S.vals[a].n;
    /* a second pass with the tensor-core rows on a single matmul's other output axis */
    value_set swapped[PT_MAX_AXES];
    memcpy(swapped, S.vals, sizeof swapped);
    int rows_swap = swap_axis(g);
    bool swap_pass = rows_swap >= 0 && swap_values(g, hw, rows_swap, split, swapped);
    if (swap_pass) {
        int64_t n = per_tiling;
        for (int a = 0; a < g->n_axes; a++)
            n *= swapped[a].n;
        r->total += n;
    }
    /* a third pass with the warpgroups on a batch axis, one batch index each. With
     * ragged_batch, also a count that does not divide the axis: the last tile is ragged (64
     * heads in 22 triples: the last one has one head), and the simulator charges it in full,
     * so such a split is picked only where its extra warpgroup pays for the idle slots. */
    value_set by_batch[PT_MAX_AXES];
    memcpy(by_batch, S.vals, sizeof by_batch);
    int bsplit = batch_split_axis(g, hw);
    if (bsplit >= 0) {
        value_set *bs = &by_batch[bsplit];
        bs->n = 0;
        for (int w = 2; w <= 3; w++)
            if (g->axes[bsplit].extent % w == 0 ||
                (o && o->ragged_batch && g->axes[bsplit].extent > w))
                add_value(bs, w);
        int64_t n = per_tiling / max_wgs; /* one warpgroup count per batch tile */
        for (int a = 0; a < g->n_axes; a++)
            n *= by_batch[a].n;
        if (bs->n == 0)
            bsplit = -1;
        else
            r->total += n;
    }
    /* a last pass, only where nothing else fitted, for a graph without matrix work (the
     * combine at 128 splits: every split of a 32 x 128 tile is 2 MB): its output tiles down
     * to 4, which only the CUDA cores' lanes and the TMA box bound */
    value_set small[PT_MAX_AXES];
    memcpy(small, S.vals, sizeof small);
    bool small_pass = matmuls(g) == 0 && small_values(g, small);
    for (int pass = 0; pass < 4 && !r->budget_hit; pass++) {
        if (pass == 3) {
            if (!small_pass || r->n > 0)
                continue;
            int64_t n = per_tiling;
            for (int a = 0; a < g->n_axes; a++)
                n *= small[a].n;
            r->total += n;
            memcpy(S.vals, small, sizeof small);
            split = split_axis(g);
        } else if (pass == 1) {
            if (!swap_pass)
                continue;
            memcpy(S.vals, swapped, sizeof swapped);
            split = rows_swap;
        } else if (pass == 2) {
            if (bsplit < 0)
                continue;
            memcpy(S.vals, by_batch, sizeof by_batch);
            split = bsplit;
        }
        int idx[PT_MAX_AXES] = {0};
        bool more = true;
        while (more && !r->budget_hit) {
            pt_tiling t = {0};
            t.wg_axis = pass == 1 ? rows_swap + 1 : pass == 2 ? bsplit + 1 : 0;
            for (int a = 0; a < g->n_axes; a++)
                t.tile[a] = S.vals[a].v[idx[a]];
            for (int wgs = 1; wgs <= max_wgs && !r->budget_hit; wgs++) {
                if (pass == 2 && t.tile[bsplit] != wgs)
                    continue;
                t.warpgroups = wgs;
                search_tiling(&S, &t, split, n_split, stages_opts);
            }
            more = next_tiling(&S, idx);
        }
    }
    offer_default(&S);
    r->elapsed_s = now_s() - S.t0;
    if (o && o->progress)
        o->progress(o->ctx, r->seen, r->total, r->n ? r->best[0].predicted_ns : 0);
    if (r->n == 0)
        nothing_fits(&S, err);
    free(S.why_invalid);
    free(S.why_refused);
    if (r->n == 0) {
        pt_schedule_result_free(r);
        return false;
    }
    return true;
}

void pt_schedule_result_free(pt_schedule_result *r)
{
    for (int i = 0; i < r->n; i++) {
        pt_sprogram_free(&r->best[i].prog);
        pt_stask_graph_free(&r->best[i].sg);
    }
    free(r->best);
    free(r->graphs);
    r->best = NULL;
    r->graphs = NULL;
    r->n = 0;
}
