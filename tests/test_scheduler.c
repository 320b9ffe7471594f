/* test_scheduler.c — the automatic scheduler: hand-derived optima on small graphs, every
 * returned sProgram valid, determinism, the budget, and FlashAttention's FA3 structure. */
#include <math.h>
#include <time.h>

#include "embedded.h"
#include "sim.h"
#include "propagate.h"
#include "refusals.h"
#include "ptest.h"
#include "ring_reuse.h"
#include "scheduler.h"
#include "splitk.h"
#include "validate.h"

static bool load(pt_graph *g, const char *name, const char *set)
{
    pt_error e;
    const char *t = pt_embedded_find(pt_embedded_examples, name);
    bool ok = t && pt_graph_load_text(g, name, t, strlen(t), set, &e);
    CHECK_MSG(ok, "%s: %s", name, t ? e.msg : "missing");
    return ok;
}

/* Example `name` with `set`, partitioned by its default tiling into *sg. */
static bool load_default(pt_graph *g, const char *name, const char *set, pt_stask_graph *sg)
{
    pt_error e;
    if (!load(g, name, set))
        return false;
    pt_tiling t;
    pt_tiling_defaults(g, &t);
    bool ok = pt_partition(sg, g, &t, &e);
    CHECK_MSG(ok, "%s: %s", name, e.msg);
    return ok;
}

static int lane_named(const pt_sprogram *p, const char *name)
{
    return pt_sprogram_find_lane(p, name);
}

/* Greedy order by hand: loads (asynchronous) come before the mma on their lanes, the mma
 * waits for both loads, the convert for the mma and the store for the converts. */
static void greedy_gemm(void)
{
    pt_graph g;
    pt_hw hw;
    pt_error e;
    pt_stask_graph sg;
    if (!pt_hw_load(&hw, "H200", &e) || !load_default(&g, "gemm_f16", "M=256,N=256,K=256", &sg))
        return;
    pt_sprogram p;
    pt_intra_opts o = {.stages = 3};
    CHECK_MSG(pt_schedule_intra(&p, &sg, &hw, &o, &e), "%s", e.msg);
    const pt_lane *tma = &p.lanes[lane_named(&p, "tma")];
    CHECK(tma->n == 3);
    CHECK_STR(sg.tasks[tma->entries[0].stask].id, "load.A");
    CHECK_STR(sg.tasks[tma->entries[1].stask].id, "load.B");
    CHECK_STR(sg.tasks[tma->entries[2].stask].id, "store.C");
    CHECK(pt_has_wait(&p, pt_stask_find(&sg, "mma.C.wg0"), pt_stask_find(&sg, "load.A"), 0));
    CHECK(pt_has_wait(&p, pt_stask_find(&sg, "store.C"), pt_stask_find(&sg, "convert.C.wg1"), 0));
    CHECK(p.stages[pt_graph_find_tensor(&g, "A")] == 3);
    pt_validation v;
    CHECK_MSG(pt_validate(&p, &sg, &hw, &v, &e), "%s", e.msg);
    pt_sprogram_free(&p);
    /* ping-pong: warpgroup 1's mma waits for warpgroup 0's of the same iteration, and 0's for
     * 1's of the previous one */
    o.pingpong = true;
    CHECK(pt_schedule_intra(&p, &sg, &hw, &o, &e));
    int m0 = pt_stask_find(&sg, "mma.C.wg0"), m1 = pt_stask_find(&sg, "mma.C.wg1");
    CHECK(pt_has_wait(&p, m1, m0, 0) && pt_has_wait(&p, m0, m1, 1));
    CHECK(pt_validate(&p, &sg, &hw, &v, &e));
    pt_sprogram_free(&p);
    pt_stask_graph_free(&sg);
}

/* A GEMM of 128x128x64 is 4 tiles of 64x64 with the tensor-core rows on M, more with them on
 * N (M's tile is then wgmma's N: 32 cuts it in 4): with one wave available, the best schedule
 * spreads it over as many EUs as the smallest legal tile gives (64 rows need one warpgroup),
 * not one CTA doing it all. */
static void tiny_gemm_spreads(void)
{
    pt_graph g;
    pt_hw hw;
    pt_error e;
    if (!load(&g, "gemm_f16", "M=128,N=128,K=64") || !pt_hw_load(&hw, "H200", &e))
        return;
    pt_schedule_opts o = {.top_k = 3};
    pt_schedule_result r;
    CHECK_MSG(pt_schedule(&g, &hw, &o, &r, &e), "%s", e.msg);
    CHECK(r.n >= 1);
    if (r.n) {
        const pt_stask_graph *sg = &r.best[0].sg;
        CHECK_MSG(sg->tiles >= 4 && sg->tiling.warpgroups == 1, "best: %s", r.best[0].desc);
    }
    pt_schedule_result_free(&r);
}

/* A candidate budget: deterministic, unlike a time budget, and it keeps the per-example loops
 * affordable under the sanitizers (ChunkScan's search simulates thousands of candidates). */
static bool stop_after_3000(void *ctx, int64_t seen)
{
    (void)ctx;
    return seen >= 3000;
}

static void valid_and_deterministic(void)
{
    pt_hw hw;
    pt_error e;
    if (!pt_hw_load(&hw, "H200", &e))
        return;
    for (const pt_embedded_file *f = pt_embedded_examples; f->name; f++) {
        pt_graph g;
        if (!load(&g, f->name, NULL))
            continue;
        pt_schedule_opts o = {.top_k = 4, .stop = stop_after_3000};
        pt_schedule_result a, b;
        bool ok = pt_schedule(&g, &hw, &o, &a, &e);
        CHECK_MSG(ok, "%s: %s", f->name, e.msg);
        if (!ok)
            continue;
        CHECK(pt_schedule(&g, &hw, &o, &b, &e));
        CHECK(a.n == b.n && a.seen == b.seen);
        for (int i = 0; i < a.n && i < b.n; i++) {
            CHECK_STR(a.best[i].desc, b.best[i].desc);
            CHECK(a.best[i].predicted_ns == b.best[i].predicted_ns);
            if (i > 0)
                CHECK(a.best[i - 1].predicted_ns <= a.best[i].predicted_ns);
            pt_validation v;
            CHECK_MSG(pt_validate(&a.best[i].prog, &a.best[i].sg, &hw, &v, &e), "%s #%d: %s",
                      f->name, i, e.msg);
        }
        pt_schedule_result_free(&a);
        pt_schedule_result_free(&b);
    }
}

/* MI300X: every sProgram the scheduler returns fits the CU, checked here against the numbers
 * of the CDNA3 ISA rather than the model file — 64 KB of LDS, whole waves of 64, and one VGPR
 * budget for every wave (the largest role's) with the busiest of the 4 SIMDs holding at most 512
 * per lane — and covers what its accumulators need. The same GEMM search on H200 returns
 * programs over 64 KB, so a filter that ignored the hardware would fail here. */
static void mi300x_fits(void)
{
    pt_hw mi, h200;
    pt_error e;
    if (!pt_hw_load(&mi, "MI300X", &e) || !pt_hw_load(&h200, "H200", &e))
        return;
    int checked = 0;
    for (const pt_embedded_file *f = pt_embedded_examples; f->name; f++) {
        pt_graph g;
        if (!load(&g, f->name, NULL))
            continue;
        pt_schedule_opts o = {.top_k = 8, .stop = stop_after_3000};
        pt_schedule_result r;
        if (!pt_schedule(&g, &mi, &o, &r, &e)) { /* nothing fits: said, with the hardware */
            CHECK_CONTAINS(e.msg, "fits MI300X");
            continue;
        }
        for (int i = 0; i < r.n; i++) {
            const pt_sprogram *p = &r.best[i].prog;
            const pt_stask_graph *sg = &r.best[i].sg;
            int64_t lds = pt_sprogram_smem_bytes_on(p, sg, &mi);  /* as gfx942 allocates LDS (smem_layout.h) */
            CHECK_MSG(lds <= 65536, "%s #%d (%s): %lld bytes of LDS", f->name, i, r.best[i].desc,
                      (long long)lds);
            int budget = 0, waves = 0;
            for (int k = 0; k < p->n_roles; k++) {
                const pt_role_def *rd = &p->roles[k];
                CHECK_MSG(rd->threads > 0 && rd->threads % 64 == 0, "%s #%d: role %s has %d threads",
                          f->name, i, rd->name, rd->threads);
                CHECK(rd->regs % 8 == 0);
                if (rd->wg >= 0)
                    CHECK_MSG(pt_sprogram_regs_needed(p, sg, rd->wg) <= rd->regs, "%s #%d: role %s",
                              f->name, i, rd->name);
                budget = rd->regs > budget ? rd->regs : budget;
                waves += rd->threads / 64;
            }
            CHECK_MSG(budget * ((waves + 3) / 4) <= 512, "%s #%d (%s): %d VGPRs x %d waves per SIMD",
                      f->name, i, r.best[i].desc, budget, (waves + 3) / 4);
            checked++;
        }
        pt_schedule_result_free(&r);
    }
    CHECK_MSG(checked >= 8, "only %d MI300X sPrograms checked", checked);
    pt_graph g;
    if (!load(&g, "gemm_f16", NULL))
        return;
    pt_schedule_opts o = {.top_k = 8};
    pt_schedule_result r;
    CHECK_MSG(pt_schedule(&g, &h200, &o, &r, &e), "%s", e.msg);
    bool over = false;
    for (int i = 0; i < r.n; i++)
        over = over || pt_sprogram_smem_bytes_on(&r.best[i].prog, &r.best[i].sg, &h200) > 65536;
    CHECK_MSG(over, "no H200 sProgram over 64 KB: the MI300X check above proves nothing");
    pt_schedule_result_free(&r);
}

static void budget(void)
{
    pt_graph g;
    pt_hw hw;
    pt_error e;
    if (!load(&g, "flash_attention", NULL) || !pt_hw_load(&hw, "H200", &e))
        return;
    pt_schedule_opts o = {.top_k = 1, .budget_s = 1e-4};
    pt_schedule_result r;
    bool ok = pt_schedule(&g, &hw, &o, &r, &e);
    CHECK(r.budget_hit);
    CHECK(r.seen < r.total);
    CHECK(r.elapsed_s < 0.5);
    if (ok)
        pt_schedule_result_free(&r);
}

/* FlashAttention: the best sProgram has FA3's structure — a TMA producer, two or more consumer
 * warpgroups, and QK^T of the next block issued before the current block's softmax and PV
 * (look-ahead), so softmax overlaps a GEMM. */
static void fa3_structure(void)
{
    pt_graph g;
    pt_hw hw;
    pt_error e;
    if (!load(&g, "flash_attention", "S=8192,B=2") || !pt_hw_load(&hw, "H200", &e))
        return;
    pt_schedule_opts o = {.top_k = 1};
    pt_schedule_result r;
    CHECK_MSG(pt_schedule(&g, &hw, &o, &r, &e), "%s", e.msg);
    if (r.n < 1)
        return;
    const pt_sprogram *p = &r.best[0].prog;
    const pt_stask_graph *sg = &r.best[0].sg;
    CHECK_MSG(sg->tiling.warpgroups >= 2, "%s", r.best[0].desc);
    CHECK(lane_named(p, "tma") >= 0 && p->roles[p->lanes[lane_named(p, "tma")].role].wg == -1);
    int s0 = pt_stask_find(sg, "mma.S.wg0"), lane = -1, pos = -1;
    bool placed = s0 >= 0 && pt_sprogram_placement(p, s0, &lane, &pos);
    CHECK(placed);
    if (placed)
        CHECK_MSG(p->lanes[lane].entries[pos].offset == 1, "%s", r.best[0].desc);
    pt_schedule_result_free(&r);
}

/* flash_attention with `set`, the H200 model and a 128x128 tile on two consumer warpgroups. */
static bool fa_128x128(const char *set, pt_graph *g, pt_hw *hw, pt_stask_graph *sg)
{
    pt_error e;
    if (!load(g, "flash_attention", set) || !pt_hw_load(hw, "H200", &e))
        return false;
    pt_tiling t;
    pt_tiling_defaults(g, &t);
    t.warpgroups = 2;
    t.tile[pt_graph_find_axis(g, "m")] = 128;
    t.tile[pt_graph_find_axis(g, "n")] = 128;
    bool ok = pt_partition(sg, g, &t, &e);
    CHECK_MSG(ok, "%s", e.msg);
    return ok;
}

/* The FA3 look-ahead order: S and the softmax pieces one block ahead, the rescale of this
 * block first on its CUDA-core lane; stores by the consumer: on a TMA lane of the last
 * warpgroup's role, which the producer's lane then no longer holds. */
static void fa3_order_and_consumer_store(void)
{
    pt_graph g;
    pt_hw hw;
    pt_error e;
    pt_stask_graph sg;
    if (!fa_128x128("S=1024,B=2", &g, &hw, &sg))
        return;
    pt_sprogram p;
    pt_intra_opts o = {.stages = 2, .lookahead = PT_LOOKAHEAD_FA3, .persistent = true,
                       .store_by_consumer = true};
    CHECK_MSG(pt_schedule_intra(&p, &sg, &hw, &o, &e), "%s", e.msg);
    for (int w = 0; w < 2; w++) {
        char name[32], id[64];
        snprintf(name, sizeof name, "cuda.wg%d", w);
        int l = lane_named(&p, name);
        CHECK(l >= 0 && p.lanes[l].n >= 5);
        if (l < 0 || p.lanes[l].n < 5)
            continue;
        snprintf(id, sizeof id, "rescale.O.wg%d", w);
        CHECK_STR(sg.tasks[p.lanes[l].entries[0].stask].id, id);
        CHECK(p.lanes[l].entries[0].offset == 0);
        for (int k = 1; k < p.lanes[l].n; k++) {
            const pt_stask *x = &sg.tasks[p.lanes[l].entries[k].stask];
            bool soft = x->kind == PT_ST_SOFTMAX_MAX || x->kind == PT_ST_SOFTMAX_EXP ||
                        x->kind == PT_ST_SOFTMAX_SUM;
            CHECK_MSG(p.lanes[l].entries[k].offset == (soft ? 1 : 0), "%s", x->id);
        }
    }
    int st = lane_named(&p, "tma.wg1"), tma = lane_named(&p, "tma");
    CHECK(st >= 0 && p.lanes[st].seu == PT_SEU_TMA && p.roles[p.lanes[st].role].wg == 1);
    if (st >= 0 && p.lanes[st].n == 1)
        CHECK_STR(sg.tasks[p.lanes[st].entries[0].stask].id, "store.O");
    for (int k = 0; tma >= 0 && k < p.lanes[tma].n; k++)
        CHECK(sg.tasks[p.lanes[tma].entries[k].stask].kind == PT_ST_LOAD);
    pt_validation v;
    CHECK_MSG(pt_validate(&p, &sg, &hw, &v, &e), "%s", e.msg);
    /* persistent, O staged apart from Q (it fits): the model hides each follow-on tile's fill */
    CHECK(pt_sprogram_staging_apart(&p, &sg, &hw));
    pt_sprogram_free(&p);
    pt_stask_graph_free(&sg);
}

/* Causal tiles have unequal lengths: a persistent kernel hands them out dynamically (longest
 * first), as the block scheduler does one-tile CTAs, so with nothing saved between a CTA's
 * tiles (block launch 0, the store on the loads' lane) and claims free both grids take the
 * same time. A round-robin model would give the persistent grid the sum of every 132nd tile
 * instead. Each claim's cost (dynamic_claim_ns) then adds to the persistent grid alone. */
static void causal_persistent_dispatch(void)
{
    pt_graph g;
    pt_hw hw;
    pt_error e;
    pt_stask_graph sg;
    if (!fa_128x128("S=2048,B=4,H=16,CAUSAL=1", &g, &hw, &sg))
        return;
    hw.tile_overhead_ns = 0;
    hw.dynamic_claim_ns = 0;
    CHECK(sg.tiles > 4 * hw.eu_count);
    double ns[3] = {0, 0, 0};
    for (int pers = 0; pers < 3; pers++) {
        if (pers == 2)
            hw.dynamic_claim_ns = 100;
        pt_sprogram p;
        pt_intra_opts o = {.stages = 2, .persistent = pers, .raster = PT_RASTER_ROW};
        CHECK_MSG(pt_schedule_intra(&p, &sg, &hw, &o, &e), "%s", e.msg);
        pt_timeline tl = {0};
        CHECK_MSG(pt_simulate(&p, &sg, &hw, &tl, &e), "%s", e.msg);
        ns[pers] = tl.kernel_time_ns;
        pt_timeline_free(&tl);
        pt_sprogram_free(&p);
    }
    CHECK_MSG(ns[0] > 0 && fabs(ns[1] - ns[0]) < 1e-6 * ns[0], "one-tile %.1f ns, persistent %.1f ns",
              ns[0], ns[1]);
    /* about 100 ns per tile past the first wave, on each CTA's (tiles / EUs - 1) claims */
    double claims = (double)sg.tiles / hw.eu_count - 1;
    CHECK_MSG(ns[2] > ns[1] + 0.5 * 100 * claims && ns[2] < ns[1] + 2 * 100 * (claims + 1),
              "persistent %.1f ns, with 100 ns claims %.1f ns (%.1f claims per CTA)", ns[1], ns[2],
              claims);
    pt_stask_graph_free(&sg);
}

/* Split-K is searched where few tiles leave EUs idle and carried as data: 64 x 4096 x 4096 on
 * H200 (at most 64 tiles) picks a split, each returned candidate's opts.split_k is its
 * program's partition.split_k and its description says it; 8192^3 (2048 tiles and more)
 * never simulates one. */
static void split_k_search(void)
{
    pt_graph g;
    pt_hw hw;
    pt_error e;
    pt_schedule_result r;
    pt_schedule_opts o = {.top_k = 20};
    if (!load(&g, "gemm_f16", "M=64,N=4096,K=4096") || !pt_hw_load(&hw, "H200", &e))
        return;
    CHECK_MSG(pt_schedule(&g, &hw, &o, &r, &e), "%s", e.msg);
    CHECK(r.n > 0 && r.best[0].opts.split_k > 1);
    int split = 0;
    for (int i = 0; i < r.n; i++) {
        const pt_schedule_candidate *c = &r.best[i];
        int k = c->opts.split_k > 1 ? c->opts.split_k : 1;
        CHECK(pt_sprogram_split_k(&c->prog) == k);
        CHECK(c->sg.tiles < hw.eu_count || k == 1);
        char want[24];
        snprintf(want, sizeof want, " split-k=%d", k);
        CHECK_MSG((k > 1) == (strstr(c->desc, want) != NULL), "%s", c->desc);
        split += k > 1;
        CHECK_MSG(pt_validate(&c->prog, &c->sg, &hw, NULL, &e), "%s: %s", c->desc, e.msg);
    }
    CHECK(split > 0 && r.pruned_split_k > 0);
    pt_schedule_result_free(&r);
    if (!load(&g, "gemm_f16", "M=8192,N=8192,K=8192"))
        return;
    CHECK_MSG(pt_schedule(&g, &hw, &o, &r, &e), "%s", e.msg);
    for (int i = 0; i < r.n; i++)
        CHECK_MSG(r.best[i].opts.split_k <= 1 && r.best[i].opts.stream_k == 0, "%s",
                  r.best[i].desc);
    pt_schedule_result_free(&r);
}

/* Stream-K is one more value of the split axis, searched where the tiles leave a partial last
 * wave: 257 x 4096 x 4096 on H200 returns stream-K candidates among its 128 best, each a
 * persistent program over one CTA per EU whose description says so. */
static void stream_k_search(void)
{
    pt_graph g;
    pt_hw hw;
    pt_error e;
    pt_schedule_result r;
    pt_schedule_opts o = {.top_k = 128};
    if (!load(&g, "gemm_f16", "M=257,N=4096,K=4096") || !pt_hw_load(&hw, "H200", &e))
        return;
    CHECK_MSG(pt_schedule(&g, &hw, &o, &r, &e), "%s", e.msg);
    int sk = 0;
    for (int i = 0; i < r.n; i++) {
        const pt_schedule_candidate *c = &r.best[i];
        CHECK(c->prog.partition.stream_k == c->opts.stream_k);
        if (c->opts.stream_k == 0)
            continue;
        sk++;
        CHECK(c->opts.stream_k == hw.eu_count && c->prog.partition.persistent &&
              c->opts.split_k <= 1 && c->sg.tiles % hw.eu_count != 0);
        CHECK_MSG(strstr(c->desc, " stream-k=132") != NULL, "%s", c->desc);
        CHECK_MSG(pt_validate(&c->prog, &c->sg, &hw, NULL, &e), "%s: %s", c->desc, e.msg);
    }
    CHECK(sk > 0);
    pt_schedule_result_free(&r);
}

/* Runs of launch positions (partition.run): searched in ChunkState, where a run keeps B across
 * a chunk's heads (every run candidate keeps a ring, says so, and validates), never in
 * attention. */
static void runs_search(void)
{
    pt_graph g;
    pt_hw hw;
    pt_error e;
    pt_schedule_result r;
    pt_schedule_opts o = {.top_k = 64};
    if (!load(&g, "mamba2_chunk_state", "B=8,S=8192") || !pt_hw_load(&hw, "H200", &e))
        return;
    CHECK_MSG(pt_schedule(&g, &hw, &o, &r, &e), "%s", e.msg);
    int runs = 0;
    for (int i = 0; i < r.n; i++) {
        const pt_schedule_candidate *c = &r.best[i];
        if (c->prog.partition.run <= 1)
            continue;
        runs++;
        CHECK(c->prog.partition.persistent && pt_ring_reuse_tensors(&c->prog, &c->sg, &hw) != 0);
        CHECK_MSG(strstr(c->desc, " run=2") != NULL, "%s", c->desc);
        CHECK_MSG(pt_validate(&c->prog, &c->sg, &hw, NULL, &e), "%s: %s", c->desc, e.msg);
    }
    CHECK(runs > 0);
    pt_schedule_result_free(&r);
    if (!load(&g, "flash_attention", "B=32,H=32,S=512,D=64,CAUSAL=0"))
        return;
    CHECK_MSG(pt_schedule(&g, &hw, &o, &r, &e), "%s", e.msg);
    for (int i = 0; i < r.n; i++)
        CHECK_MSG(r.best[i].prog.partition.run <= 1, "%s", r.best[i].desc);
    pt_schedule_result_free(&r);
}

/* ChunkScan: the warpgroups on the heads are searched (its causal decay gives split rows
 * unequal trip counts), every such candidate has one head per warpgroup and 64 rows, and the
 * TMA lane issues the prologue matmul's operands (C, states) before the other once-per-tile
 * load (dA_l). */
static void scan_heads_search(void)
{
    pt_graph g;
    pt_hw hw;
    pt_error e;
    pt_schedule_result r;
    pt_schedule_opts o = {.top_k = 64};
    if (!load(&g, "mamba2_chunk_scan", "B=8,S=2048") || !pt_hw_load(&hw, "H200", &e))
        return;
    CHECK_MSG(pt_schedule(&g, &hw, &o, &r, &e), "%s", e.msg);
    int h = pt_graph_find_axis(&g, "h"), l = pt_graph_find_axis(&g, "l"), heads = 0;
    for (int i = 0; i < r.n; i++) {
        const pt_schedule_candidate *c = &r.best[i];
        if (c->prog.tiling.wg_axis == h + 1) {
            heads++;
            CHECK_MSG(c->sg.tiling.tile[h] == c->prog.tiling.warpgroups && c->sg.tiling.tile[l] == 64,
                      "%s", c->desc);
        }
        int pos[3] = {-1, -1, -1};
        const char *ids[3] = {"load.C", "load.states", "load.dA_l"};
        for (int ln = 0; ln < c->prog.n_lanes; ln++)
            for (int k = 0; k < c->prog.lanes[ln].n; k++)
                for (int q = 0; q < 3; q++)
                    if (!strcmp(c->sg.tasks[c->prog.lanes[ln].entries[k].stask].id, ids[q]))
                        pos[q] = k;
        CHECK_MSG(pos[0] >= 0 && pos[1] >= 0 && pos[2] > pos[0] && pos[2] > pos[1],
                  "%s: C %d, states %d, dA_l %d", c->desc, pos[0], pos[1], pos[2]);
    }
    CHECK(heads > 0);
    pt_schedule_result_free(&r);
}

/* Chain-ahead: the CUDA-core sTasks that make ChunkScan's mma operand from loads (the decay,
 * CB's fragment) go an iteration ahead; the one handing the operand to the mma (the dt scaling)
 * stays with it, first in its lane; the mma and the once-per-tile tasks stay. No such chain in
 * attention (the softmax reads S, an mma's result) or a plain GEMM. (The sm90a generator emits
 * it in either decay form with one register copy of the step: tests/test_decay_form.c.) */
static void chain_ahead(void)
{
    pt_graph g;
    pt_hw hw;
    pt_error e;
    pt_stask_graph sg;
    if (!pt_hw_load(&hw, "H200", &e) || !load_default(&g, "mamba2_chunk_scan", "B=1,S=1024,H=4", &sg))
        return;
    CHECK(pt_schedule_can_chain_ahead(&sg));
    pt_sprogram p;
    pt_intra_opts o = {.stages = 2, .lookahead = PT_LOOKAHEAD_CHAIN};
    CHECK_MSG(pt_schedule_intra(&p, &sg, &hw, &o, &e), "%s", e.msg);
    int ahead = 0, first = 0;
    for (int l = 0; l < p.n_lanes; l++)
        for (int k = 0, seen = 0; k < p.lanes[l].n; k++) {
            const pt_stask *x = &sg.tasks[p.lanes[l].entries[k].stask];
            bool chain = !strncmp(x->id, "exp_decay.", 10) || !strncmp(x->id, "mul.Pw.", 7);
            bool operand = !strncmp(x->id, "mul.Pdt.", 8);
            CHECK_MSG(p.lanes[l].entries[k].offset == (chain ? 1 : 0), "%s", x->id);
            CHECK_MSG(!operand || !seen, "%s after the chain it reads", x->id);
            ahead += chain;
            first += operand;
            seen += chain;
        }
    CHECK(ahead == 4 && first == 2);
    pt_validation v;
    CHECK_MSG(pt_validate(&p, &sg, &hw, &v, &e), "%s", e.msg);
    pt_sprogram_free(&p);
    pt_stask_graph_free(&sg);
    pt_stask_graph fa, gemm;
    if (fa_128x128("S=1024,B=2", &g, &hw, &fa)) {
        CHECK(!pt_schedule_can_chain_ahead(&fa));
        pt_stask_graph_free(&fa);
    }
    if (load_default(&g, "gemm_bf16", "M=512,N=512,K=512", &gemm)) {
        CHECK(!pt_schedule_can_chain_ahead(&gemm));
        pt_stask_graph_free(&gemm);
    }
}

/* An acceptance test that refuses: the search's failure names the reason it gave most often
 * (and who gave it), not a generic list. */
static bool refuse_by_tile(void *ctx, const pt_sprogram *p, const pt_stask_graph *sg,
                           const pt_hw *hw, pt_error *why)
{
    (void)ctx, (void)p, (void)hw;
    int n = sg->graph ? pt_graph_find_axis(sg->graph, "n") : -1;
    if (n >= 0 && sg->tiling.tile[n] == 64)
        return pt_fail(why, "test: n tiles of 64 are rare");
    return pt_fail(why, "test: the common reason");
}

static void refusal_reason(void)
{
    pt_graph g;
    pt_hw hw;
    pt_error e = {""};
    pt_schedule_result r;
    pt_schedule_opts o = {.top_k = 3, .accept = refuse_by_tile, .accept_what = "the test"};
    if (!load(&g, "gemm_f16", "M=512,N=512,K=512") || !pt_hw_load(&hw, "H200", &e))
        return;
    CHECK(!pt_schedule(&g, &hw, &o, &r, &e));
    CHECK_CONTAINS(e.msg, "the test refused all");
    CHECK_CONTAINS(e.msg, "because: test: the common reason");
    CHECK(r.best == NULL && r.n == 0);
}

/* Refusals that differ only in their numbers count as one reason, worded with the smallest;
 * the search's own deadlocks give way to any other reason. */
static void refusal_kinds(void)
{
    pt_refusals r = {0};
    pt_refusals_add(&r, "$.stages: shared memory: the program needs 528448 bytes but H200 allows 232448");
    pt_refusals_add(&r, "$.stages: shared memory: the program needs 266304 bytes but H200 allows 232448");
    pt_refusals_add(&r, "$.stages: shared memory: the program needs 4259904 bytes but H200 allows 232448");
    for (int i = 0; i < 4; i++)
        pt_refusals_add(&r, "deadlock: a[1] -> b[0] -> a[1] (each waits for the next)");
    pt_refusals_add(&r, "deadlock: a[2] -> b[1] -> a[2] (each waits for the next)");
    int64_t n = 0;
    const char *top = pt_refusals_top(&r, &n);
    CHECK(top && n == 5 && strncmp(top, "deadlock: a[1]", 14) == 0);
    CHECK(r.total == 8 && r.n == 2);
    top = pt_refusals_top_but(&r, "deadlock", &n);
    CHECK(top && n == 3);
    CHECK_CONTAINS(top, "needs 266304 bytes");
    pt_refusals only = {0};
    pt_refusals_add(&only, "deadlock: x -> y -> x");
    top = pt_refusals_top_but(&only, "deadlock", &n);
    CHECK(top && n == 1 && strcmp(top, "deadlock: x -> y -> x") == 0);
    /* "10" and "9" are different numbers, "a1" and "ab" different text */
    pt_refusals d = {0};
    pt_refusals_add(&d, "tile a1");
    pt_refusals_add(&d, "tile ab");
    CHECK(d.n == 2);
}

/* The combine's splits axis is searched whole where it is short: with fewer than 64 splits every
 * candidate used to take 64 rows of splits, none fitted, and the default was all there was. */
static void combine_short_splits(void)
{
    pt_graph g;
    pt_hw hw;
    pt_error e = {""};
    if (!load(&g, "flash_decoding_combine", "B=2,HKV=2,G=4,SPLITS=16,D=128") ||
        !pt_hw_load(&hw, "H200", &e))
        return;
    pt_schedule_opts o = {.top_k = 3};
    pt_schedule_result r;
    CHECK_MSG(pt_schedule(&g, &hw, &o, &r, &e), "%s", e.msg);
    CHECK_MSG(r.simulated > 1, "only %lld simulated", (long long)r.simulated);
    int s = pt_graph_find_axis(&g, "s");
    for (int i = 0; i < r.n; i++)
        CHECK_MSG(r.best[i].sg.tiling.tile[s] == 16, "%s: splits tile %lld", r.best[i].desc,
                  (long long)r.best[i].sg.tiling.tile[s]);
    pt_schedule_result_free(&r);
}

/* A combine of many splits (MQA at batch 1: 128 pieces of one K/V head) whose usual tiles hold
 * 2 MB of partials fits through the last, small-tile pass: a pick, every tile within shared
 * memory, and among the candidates tiles of 4 rows (the sm90a generator's smallest with X by
 * TMA). Where the usual tiles fit (16 splits), that pass does not run. */
static void combine_many_splits(void)
{
    pt_graph g;
    pt_hw hw;
    pt_error e = {""};
    if (!load(&g, "flash_decoding_combine", "B=1,HKV=1,G=32,SPLITS=128,D=128") ||
        !pt_hw_load(&hw, "H200", &e))
        return;
    pt_schedule_opts o = {.top_k = 1024};
    pt_schedule_result r;
    if (!pt_schedule(&g, &hw, &o, &r, &e)) {
        CHECK_MSG(false, "%s", e.msg);
        return;
    }
    int gx = pt_graph_find_axis(&g, "g"), d = pt_graph_find_axis(&g, "d");
    bool rows4 = false;
    for (int i = 0; i < r.n; i++) {
        CHECK_MSG(r.best[i].sg.tiling.tile[gx] * r.best[i].sg.tiling.tile[d] < 32 * 64,
                  "%s: g %lld d %lld", r.best[i].desc, (long long)r.best[i].sg.tiling.tile[gx],
                  (long long)r.best[i].sg.tiling.tile[d]);
        rows4 |= r.best[i].sg.tiling.tile[gx] == 4;
    }
    CHECK_MSG(rows4, "no candidate of %d has a tile of 4 rows", r.n);
    o.top_k = 4;
    int64_t many = r.total;
    pt_schedule_result_free(&r);
    if (!load(&g, "flash_decoding_combine", "B=1,HKV=1,G=32,SPLITS=16,D=128"))
        return;
    if (!pt_schedule(&g, &hw, &o, &r, &e)) {
        CHECK_MSG(false, "%s", e.msg);
        return;
    }
    CHECK_MSG(r.total < many, "16 splits: %lld candidates, 128: %lld", (long long)r.total,
              (long long)many);
    pt_schedule_result_free(&r);
}

/* Attention at head dim 256 also tries 80-key tiles (two stages of K and V beside Q fill shared
 * memory; 96 leaves room for one), and picks them at 16k keys, as round 172 measured faster;
 * head dim 128 gets no such tile (its filling size, 192, is already in the list). */
static void keys_filling_smem(void)
{
    pt_hw hw;
    pt_error e = {""};
    if (!pt_hw_load(&hw, "H200", &e))
        return;
    static const struct { const char *set; bool has80; } cases[] = {
        {"B=1,H=8,S=16384,D=256,CAUSAL=0", true}, {"B=2,H=16,S=8192,D=128,CAUSAL=0", false}};
    for (int c = 0; c < 2; c++) {
        pt_graph g;
        if (!load(&g, "flash_attention", cases[c].set))
            continue;
        pt_schedule_opts o = {.top_k = 1024};
        pt_schedule_result r;
        if (!pt_schedule(&g, &hw, &o, &r, &e)) {
            CHECK_MSG(false, "%s: %s", cases[c].set, e.msg);
            continue;
        }
        int n = pt_graph_find_axis(&g, "n");
        bool has80 = false;
        for (int i = 0; i < r.n; i++)
            has80 |= r.best[i].sg.tiling.tile[n] == 80;
        CHECK_MSG(has80 == cases[c].has80, "%s: an 80-key candidate: %d", cases[c].set, has80);
        if (cases[c].has80)
            CHECK_MSG(r.best[0].sg.tiling.tile[n] == 80, "%s: pick %s", cases[c].set, r.best[0].desc);
        pt_schedule_result_free(&r);
    }
}

/* The pick is never predicted slower than the default sProgram (issue 15: flash_decoding_combine
 * used to get 8.1 us against the default's 6.6). */
static void never_worse_than_default(void)
{
    static const char *const names[] = {"flash_decoding_combine", "flash_decoding", "gemm_f16",
                                        "mamba2_chunk_state"};
    pt_hw hw;
    pt_error e;
    if (!pt_hw_load(&hw, "H200", &e))
        return;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        pt_graph g;
        if (!load(&g, names[i], NULL))
            continue;
        pt_tiling t;
        pt_tiling_defaults(&g, &t);
        pt_stask_graph sg;
        pt_sprogram p;
        pt_timeline tl = {0};
        bool ok = pt_partition(&sg, &g, &t, &e) && pt_sprogram_default(&p, &sg, &hw, &e) &&
                  pt_simulate(&p, &sg, &hw, &tl, &e);
        CHECK_MSG(ok, "%s: %s", names[i], e.msg);
        pt_schedule_opts o = {.top_k = 1};
        pt_schedule_result r;
        if (ok && pt_schedule(&g, &hw, &o, &r, &e)) {
            CHECK_MSG(r.best[0].predicted_ns <= tl.kernel_time_ns + 1e-6,
                      "%s: pick %.1f ns, default %.1f ns", names[i], r.best[0].predicted_ns,
                      tl.kernel_time_ns);
            pt_schedule_result_free(&r);
        }
        if (ok) {
            pt_timeline_free(&tl);
            pt_sprogram_free(&p);
            pt_stask_graph_free(&sg);
        }
    }
}

int main(void)
{
    PTEST_RUN(never_worse_than_default);
    PTEST_RUN(split_k_search);
    PTEST_RUN(stream_k_search);
    PTEST_RUN(runs_search);
    PTEST_RUN(scan_heads_search);
    PTEST_RUN(refusal_reason);
    PTEST_RUN(refusal_kinds);
    PTEST_RUN(combine_short_splits);
    PTEST_RUN(combine_many_splits);
    PTEST_RUN(greedy_gemm);
    PTEST_RUN(tiny_gemm_spreads);
    PTEST_RUN(valid_and_deterministic);
    PTEST_RUN(mi300x_fits);
    PTEST_RUN(budget);
    PTEST_RUN(fa3_structure);
    PTEST_RUN(keys_filling_smem);
    PTEST_RUN(fa3_order_and_consumer_store);
    PTEST_RUN(causal_persistent_dispatch);
    PTEST_RUN(chain_ahead);
    PTEST_END();
}
