/* test_splitk.c — split-K (partition.split_k, src/splitk.h): the chunk arithmetic, the
 * validator's refusals, the file round trip, the simulator's work items and epilogues on a
 * hand-built loop whose times are derived below, and the prediction on the shipped GEMM
 * (split-K pays at small M on H200 and not at 8192^3).
 *
 * The hand-built hardware: TMA 10 B/ns + 100 ns latency, tensor core 1000 flop/ns + 10 ns,
 * CUDA cores 1 element/ns + 0 ns (convert and the fix-up's adds), f32 reads of the fix-up at
 * the load cost, barrier hand-off 5 ns, async issue 2 ns, 4 EUs, 50 ns per work item, launch
 * 1000 ns. */
#include <stdlib.h>
#include <string.h>

#include "embedded.h"
#include "propagate.h"
#include "ptest.h"
#include "sim.h"
#include "splitk.h"
#include "waves.h"
#include "validate.h"

/* ---- chunk arithmetic ---------------------------------------------------------------- */

static void test_chunks(void)
{
    int64_t first, count, want_first[4] = {0, 3, 6, 9}, want_count[4] = {3, 3, 3, 4};
    for (int c = 0; c < 4; c++) {
        pt_split_k_chunk(13, 4, c, &first, &count);
        CHECK_MSG(first == want_first[c] && count == want_count[c], "chunk %d: %lld+%lld", c,
                  (long long)first, (long long)count);
    }
    /* sizes differ by at most one and cover the loop exactly, for every split */
    for (int64_t I = 1; I <= 40; I++)
        for (int S = 1; S <= PT_MAX_SPLIT_K && S <= I; S++) {
            int64_t next = 0, lo = I, hi = 0;
            for (int c = 0; c < S; c++) {
                pt_split_k_chunk(I, S, c, &first, &count);
                CHECK(first == next);
                next = first + count;
                lo = count < lo ? count : lo;
                hi = count > hi ? count : hi;
            }
            CHECK_MSG(next == I && hi - lo <= 1 && lo >= 1, "I=%lld S=%d", (long long)I, S);
        }
}

/* ---- a hand-built loop ----------------------------------------------------------------- */

typedef struct {
    pt_stask tasks[4];
    pt_stask_graph sg;
    pt_sprogram p;
    pt_lane_entry entries[3][4];
    pt_wait_entry waits[4];
    pt_hw hw;
} loop_fixture;

static pt_graph g_empty; /* no tensors: the DRAM floor is 0 */

/* load.A (1000 B) -> mma.C (100000 flops, accumulating) in the loop; convert.C (100 f32
 * elements) -> store.C (100 f16 elements, 200 B) after it. Loads on the producer's tma lane,
 * the rest on warpgroup 0's lanes, store back on the producer's lane. */
static void loop_init(loop_fixture *f, int64_t iters, int64_t tiles, int split_k)
{
    memset(f, 0, sizeof *f);
    static const struct {
        const char *id;
        pt_stask_kind kind;
        pt_seu_kind seu;
        pt_region region;
        pt_dtype dt;
        int64_t bytes, flops, elems;
    } def[4] = {
        {"load.A", PT_ST_LOAD, PT_SEU_TMA, PT_REGION_BODY, PT_F16, 1000, 0, 500},
        {"mma.C", PT_ST_MMA, PT_SEU_TENSOR_CORE, PT_REGION_BODY, PT_F16, 0, 100000, 100},
        {"convert.C", PT_ST_CONVERT, PT_SEU_CUDA_CORE, PT_REGION_EPILOGUE, PT_F32, 0, 0, 100},
        {"store.C", PT_ST_STORE, PT_SEU_TMA, PT_REGION_EPILOGUE, PT_F16, 200, 0, 100},
    };
    for (int i = 0; i < 4; i++) {
        pt_stask *t = &f->tasks[i];
        strcpy(t->id, def[i].id);
        t->kind = def[i].kind;
        t->seu = def[i].seu;
        t->region = def[i].region;
        t->dtype = def[i].dt;
        t->bytes = def[i].bytes;
        t->flops = def[i].flops;
        t->elems = def[i].elems;
        t->op = t->tensor = t->wg = -1;
    }
    f->tasks[1].deps[f->tasks[1].n_deps++] = (pt_dep){0, 0};
    f->tasks[1].deps[f->tasks[1].n_deps++] = (pt_dep){1, 1}; /* the accumulator */
    f->tasks[2].deps[f->tasks[2].n_deps++] = (pt_dep){1, 0};
    f->tasks[3].deps[f->tasks[3].n_deps++] = (pt_dep){2, 0};
    f->sg = (pt_stask_graph){.graph = &g_empty, .n = 4, .tasks = f->tasks, .loop_axis = 0,
                             .iterations = iters, .tiles = tiles, .split_axis = -1,
                             .causal_op = -1};
    f->sg.tiling.warpgroups = 1;
    f->sg.tile_grid[0] = tiles;
    pt_sprogram *p = &f->p;
    p->n_roles = 2;
    strcpy(p->roles[0].name, "producer");
    strcpy(p->roles[1].name, "wg0");
    p->roles[0].wg = -1;
    static const char *const names[3] = {"tma", "tc.wg0", "cuda.wg0"};
    static const pt_seu_kind seus[3] = {PT_SEU_TMA, PT_SEU_TENSOR_CORE, PT_SEU_CUDA_CORE};
    for (int l = 0; l < 3; l++) {
        strcpy(p->lanes[l].name, names[l]);
        p->lanes[l].seu = seus[l];
        p->lanes[l].role = l ? 1 : 0;
        p->lanes[l].entries = f->entries[l];
        p->lanes[l].cap = 4;
    }
    p->n_lanes = 3;
    p->lanes[0].entries[p->lanes[0].n++] = (pt_lane_entry){0, 0};
    p->lanes[0].entries[p->lanes[0].n++] = (pt_lane_entry){3, 0};
    p->lanes[1].entries[p->lanes[1].n++] = (pt_lane_entry){1, 0};
    p->lanes[2].entries[p->lanes[2].n++] = (pt_lane_entry){2, 0};
    p->waits = f->waits;
    p->cap_waits = 4;
    p->waits[p->n_waits++] = (pt_wait_entry){1, 0, 0};
    p->waits[p->n_waits++] = (pt_wait_entry){3, 2, 0};
    p->partition.group = 8;
    p->partition.split_k = split_k;
    pt_hw *hw = &f->hw;
    strcpy(hw->name, "testhw");
    hw->eu_count = 4;
    hw->barrier_ns = 5;
    hw->launch_ns = 1000;
    hw->tile_overhead_ns = 50;
    hw->hbm_bytes_per_ns = 1000;
    hw->seu[PT_SEU_TMA] = (pt_seu_model){.present = true, .async = true, .issue_ns = 2};
    hw->seu[PT_SEU_TENSOR_CORE] = (pt_seu_model){.present = true, .async = true, .issue_ns = 2};
    hw->seu[PT_SEU_CUDA_CORE] = (pt_seu_model){.present = true, .async = false};
    for (int d = 0; d < PT_DTYPE_COUNT; d++) {
        hw->cost[PT_ST_LOAD][d] = (pt_cost){.rate = 10, .latency_ns = 100};
        hw->cost[PT_ST_STORE][d] = (pt_cost){.rate = 10, .latency_ns = 100};
        hw->cost[PT_ST_MMA][d] = (pt_cost){.rate = 1000, .latency_ns = 10};
        hw->cost[PT_ST_CONVERT][d] = (pt_cost){.rate = 1, .latency_ns = 0};
        hw->cost[PT_ST_ELEMENTWISE][d] = (pt_cost){.rate = 1, .latency_ns = 0};
    }
}

/* Loads stream back to back (load i: TMA busy 100i..100i+100, done at 100i+200); mma i waits
 * for load i plus the producer -> wg0 hand-off (5) and for mma i-1: mma 0 runs 205..305 and
 * ends at 315, each next one 110 later. The loop of n iterations is done at 205 + 110n. */
static double loop_end(int64_t n)
{
    return 205.0 + 110.0 * (double)n;
}

static double span_ns(const pt_timeline *tl, const pt_stask_graph *sg, const char *id,
                      double *start)
{
    for (int64_t k = 0; k < tl->n_spans; k++)
        if (strcmp(sg->tasks[tl->spans[k].stask].id, id) == 0) {
            *start = tl->spans[k].start_ns;
            return tl->spans[k].end_ns - tl->spans[k].start_ns;
        }
    CHECK_MSG(0, "no span of %s", id);
    return -1;
}

/* The three endings of a work item, derived by hand. */
/* The two orders of the fix-up by partial-tile size, and the workspace slots each needs. */
static void test_publish_first(void)
{
    CHECK(pt_split_k_publish_first(1024));              /* M = 1: 8 x 128 f32, 4 KB */
    CHECK(pt_split_k_publish_first(2048));              /* 8 KB, the bound */
    CHECK(!pt_split_k_publish_first(2049));
    CHECK(!pt_split_k_publish_first(64 * 128));         /* 32 KB: the ticket first */
    CHECK(!pt_split_k_publish_first(0));
    CHECK(pt_split_k_ws_slots(4, 1024) == 4);
    CHECK(pt_split_k_ws_slots(4, 64 * 128) == 3);
}

static void test_epilogues(void)
{
    loop_fixture f;
    loop_init(&f, 3, 1, 4);
    pt_timeline tl = {0};
    pt_error err = {""};
    double at = loop_end(3), start;
    /* whole: convert 100 ns from the loop's end, store 5 ns later: 200 B / 10 + 100 */
    CHECK_MSG(pt_simulate_chunk(&f.p, &f.sg, &f.hw, 3, PT_CHUNK_WHOLE, &tl, &err), "%s", err.msg);
    CHECK_NEAR(span_ns(&tl, &f.sg, "convert.C", &start), 100, 1e-9);
    CHECK_NEAR(span_ns(&tl, &f.sg, "store.C", &start), 120, 1e-9);
    CHECK_NEAR(tl.eu_time_ns, at + 100 + 5 + 120, 1e-9);
    pt_timeline_free(&tl);
    /* partial: no convert; the store writes 100 f32 = 400 B: 40 + 100 */
    CHECK_MSG(pt_simulate_chunk(&f.p, &f.sg, &f.hw, 3, PT_CHUNK_PARTIAL, &tl, &err), "%s", err.msg);
    CHECK_NEAR(span_ns(&tl, &f.sg, "convert.C", &start), 0, 1e-9);
    CHECK_NEAR(span_ns(&tl, &f.sg, "store.C", &start), 140, 1e-9);
    CHECK_NEAR(tl.eu_time_ns, at + 5 + 140, 1e-9);
    pt_timeline_free(&tl);
    /* fix-up with S = 4: the convert first reads 3 x 400 B at the load rate (120 + 100
     * latency) and adds 3 x 100 elements (300), then converts (100); the store as usual */
    CHECK_MSG(pt_simulate_chunk(&f.p, &f.sg, &f.hw, 3, PT_CHUNK_FIXUP, &tl, &err), "%s", err.msg);
    CHECK_NEAR(span_ns(&tl, &f.sg, "convert.C", &start), 620, 1e-9);
    CHECK_NEAR(start, at, 1e-9);
    CHECK_NEAR(tl.eu_time_ns, at + 620 + 5 + 120, 1e-9);
    pt_timeline_free(&tl);
    /* a model without the f32 costs the fix-up needs is named as such */
    memset(f.hw.cost[PT_ST_ELEMENTWISE], 0, sizeof f.hw.cost[PT_ST_ELEMENTWISE]);
    CHECK(!pt_simulate_chunk(&f.p, &f.sg, &f.hw, 3, PT_CHUNK_FIXUP, &tl, &err));
    CHECK_CONTAINS(err.msg, "elementwise on f32");
    CHECK_CONTAINS(err.msg, "split-K fix-up of sTask convert.C");
}

/* I = 13, S = 4, one tile on 4 EUs: chunks of 3, 3, 3 and 4 iterations start together; the
 * 4-iteration one arrives last (50 + 645) and does the fix-up: 50 + 645 + 745 = 1440, the
 * others end at 50 + 535 + 145 = 730. Unsplit: 50 + 1635 + 225 = 1910. */
static void test_one_tile(void)
{
    loop_fixture f;
    pt_timeline tl;
    pt_error err = {""};
    loop_init(&f, 13, 1, 1);
    CHECK_MSG(pt_simulate(&f.p, &f.sg, &f.hw, &tl, &err), "%s", err.msg);
    CHECK_NEAR(tl.kernel_time_ns, 1000 + 50 + loop_end(13) + 225, 1e-9);
    CHECK(tl.split_k == 1 && tl.work_items == 1 && tl.n_chunks == 0 && tl.workspace_bytes == 0);
    double unsplit = tl.kernel_time_ns;
    pt_timeline_free(&tl);

    loop_init(&f, 13, 1, 4);
    CHECK_MSG(pt_simulate(&f.p, &f.sg, &f.hw, &tl, &err), "%s", err.msg);
    CHECK(tl.tiles == 1 && tl.split_k == 4 && tl.work_items == 4 && tl.grid == 4 &&
          tl.waves == 1 && tl.n_chunks == 4);
    static const int64_t first[4] = {0, 3, 6, 9}, iters[4] = {3, 3, 3, 4};
    for (int c = 0; c < 4; c++) {
        const pt_chunk_info *k = &tl.chunks[c];
        CHECK_MSG(k->first_iter == first[c] && k->iters == iters[c] && k->eu == c &&
                      k->start_ns == 0 && k->last == (c == 3),
                  "chunk %d: %lld+%lld on EU %lld at %g, last %d", c, (long long)k->first_iter,
                  (long long)k->iters, (long long)k->eu, k->start_ns, k->last);
        CHECK_NEAR(k->arrive_ns, 50 + loop_end(iters[c]), 1e-9);
        CHECK_NEAR(k->end_ns, c == 3 ? 50 + loop_end(4) + 745 : 50 + loop_end(3) + 145, 1e-9);
    }
    CHECK_NEAR(tl.kernel_time_ns, 1000 + 50 + loop_end(4) + 745, 1e-9);
    CHECK(tl.kernel_time_ns < unsplit);
    /* the workspace: 4 partial tiles of 100 f32 written (every chunk publishes), 3 read back;
     * the DRAM floor counts them beside the operands, written at the write rate */
    CHECK_NEAR(tl.workspace_bytes, (4 + 3) * 100 * 4, 1e-9);
    {
        double wr = f.hw.hbm_write_bytes_per_ns > 0 ? f.hw.hbm_write_bytes_per_ns
                                                    : f.hw.hbm_bytes_per_ns;
        double want = pt_waves_dram_floor_ns(&f.sg, &f.hw) + 3 * 100 * 4 / f.hw.hbm_bytes_per_ns +
                      4 * 100 * 4 / wr;
        CHECK_NEAR(tl.dram_floor_ns, want, 1e-9 * want);
    }
    /* the representative EU is the fix-up: its iterations and its long convert */
    double start;
    CHECK(tl.eu_iterations == 4);
    CHECK_NEAR(span_ns(&tl, &f.sg, "convert.C", &start), 620, 1e-9);
    /* the GUI's view of each chunk is the dispatch's */
    for (int c = 0; c < 4; c++) {
        pt_timeline ck;
        CHECK_MSG(pt_simulate_split_k_chunk(&f.p, &f.sg, &f.hw, &tl, c, &ck, &err), "%s",
                  err.msg);
        CHECK_NEAR(50 + ck.eu_time_ns, tl.chunks[c].end_ns - tl.chunks[c].start_ns, 1e-9);
        CHECK_NEAR(span_ns(&ck, &f.sg, "store.C", &start), c == 3 ? 120 : 140, 1e-9);
        pt_timeline_free(&ck);
    }
    pt_timeline_free(&tl);

    /* equal chunks (I = 12): arrivals tie and the later chunk is the last */
    loop_init(&f, 12, 1, 4);
    CHECK_MSG(pt_simulate(&f.p, &f.sg, &f.hw, &tl, &err), "%s", err.msg);
    CHECK(tl.chunks[3].last && !tl.chunks[0].last && !tl.chunks[2].last);
    pt_timeline_free(&tl);
}

/* Enough tiles for every EU: splitting only adds work. 8 tiles on 4 EUs unsplit: 2 waves of
 * 1910 + launch. Split 4 ways, each tile costs 3 x 730 + 1440 = 3630 EU-time, 8 of them over
 * 4 EUs at least 7260. */
static void test_many_tiles(void)
{
    loop_fixture f;
    pt_timeline tl;
    pt_error err = {""};
    loop_init(&f, 13, 8, 1);
    CHECK_MSG(pt_simulate(&f.p, &f.sg, &f.hw, &tl, &err), "%s", err.msg);
    CHECK_NEAR(tl.kernel_time_ns, 1000 + 2 * 1910, 1e-9);
    pt_timeline_free(&tl);
    loop_init(&f, 13, 8, 4);
    CHECK_MSG(pt_simulate(&f.p, &f.sg, &f.hw, &tl, &err), "%s", err.msg);
    CHECK(tl.work_items == 32 && tl.grid == 32 && tl.waves == 8);
    CHECK_MSG(tl.kernel_time_ns >= 1000 + 7260 && tl.kernel_time_ns > 1000 + 2 * 1910, "%g",
              tl.kernel_time_ns);
    pt_timeline_free(&tl);
}

/* Persistent, 2 tiles x 4 chunks on 4 CTAs: CTA c runs chunk c of tile 0, then chunk c of
 * tile 1. The store shares the loads' lane, so a follow-on item saves only the block launch.
 * CTA 3 did tile 0's fix-up (ends 1440), so its chunk of tile 1 arrives last again
 * (1440 + 645) and fixes up again: 1440 + 645 + 745 = 2830. */
static void test_persistent(void)
{
    loop_fixture f;
    pt_timeline tl;
    pt_error err = {""};
    loop_init(&f, 13, 2, 4);
    f.p.partition.persistent = true;
    CHECK_MSG(pt_simulate(&f.p, &f.sg, &f.hw, &tl, &err), "%s", err.msg);
    CHECK(tl.grid == 4 && tl.work_items == 8);
    CHECK_NEAR(tl.kernel_time_ns, 1000 + 1440 + loop_end(4) + 745, 1e-9);
    pt_timeline_free(&tl);
}

/* ---- the shipped GEMM ------------------------------------------------------------------ */

typedef struct {
    pt_graph g;
    pt_hw hw;
    pt_stask_graph sg;
    pt_sprogram p;
    bool ok;
} gemm;

static void gemm_load(gemm *x, const char *set, const char *tile, int split_k)
{
    pt_error e = {""};
    memset(x, 0, sizeof *x);
    const char *t = pt_embedded_find(pt_embedded_examples, "gemm_f16");
    pt_tiling tl;
    x->ok = t && pt_graph_load_text(&x->g, "gemm_f16", t, strlen(t), set, &e) &&
            pt_hw_load(&x->hw, "H200", &e);
    if (x->ok) {
        pt_tiling_defaults(&x->g, &tl);
        x->ok = (!tile || pt_tiling_parse(&x->g, tile, "tile", &tl, &e)) &&
                pt_partition(&x->sg, &x->g, &tl, &e) &&
                pt_sprogram_default(&x->p, &x->sg, &x->hw, &e);
    }
    CHECK_MSG(x->ok, "%s", e.msg);
    if (x->ok)
        x->p.partition.split_k = split_k;
}

static void gemm_free(gemm *x)
{
    if (!x->ok)
        return;
    pt_sprogram_free(&x->p);
    pt_stask_graph_free(&x->sg);
}

static double gemm_time(const char *set, const char *tile, int split_k, pt_timeline *keep)
{
    gemm x;
    gemm_load(&x, set, tile, split_k);
    pt_timeline tl = {0};
    pt_error e = {""};
    double ns = -1;
    if (x.ok) {
        CHECK_MSG(pt_validate(&x.p, &x.sg, &x.hw, NULL, &e), "%s split_k=%d: %s", set, split_k,
                  e.msg);
        CHECK_MSG(pt_simulate(&x.p, &x.sg, &x.hw, &tl, &e), "%s", e.msg);
        ns = tl.kernel_time_ns;
        if (keep)
            *keep = tl;
        else
            pt_timeline_free(&tl);
    }
    gemm_free(&x);
    return ns;
}

static void test_gemm(void)
{
    /* 64 x 4096 x 4096 in 64 x 128 tiles: 32 tiles leave 100 of the 132 SMs idle */
    const char *small = "M=64,N=4096,K=4096", *tile = "m=64,n=128,k=64,wg=1";
    pt_timeline t1, t4;
    double one = gemm_time(small, tile, 1, &t1), four = gemm_time(small, tile, 4, &t4);
    fprintf(stderr, "64x4096x4096 on H200: split_k 1 %.2f us, 4 %.2f us\n", one / 1e3,
            four / 1e3);
    CHECK_MSG(four > 0 && four < one, "%g vs %g", four, one);
    CHECK(t4.work_items == 4 * t1.tiles && t4.tiles == t1.tiles && t4.eu_iterations == 16);
    /* the fix-up shows: a longer convert in the representative EU than unsplit */
    double c1 = 0, c4 = 0, start;
    gemm x;
    gemm_load(&x, small, tile, 4);
    if (x.ok) {
        c1 = span_ns(&t1, &x.sg, "convert.C", &start);
        c4 = span_ns(&t4, &x.sg, "convert.C", &start);
        /* 3 partial tiles of 64 x 128 f32 read at the L2 rate: at least 98304 B / rate */
        double rate = x.hw.cost[PT_ST_LOAD][PT_F32].rate;
        CHECK_MSG(c4 - c1 > 98304.0 / (rate * 2), "convert %g vs %g ns", c4, c1);
        /* a chunk that is not last stores 64 x 128 x 4 bytes */
        pt_timeline ck;
        pt_error e = {""};
        CHECK_MSG(pt_simulate_split_k_chunk(&x.p, &x.sg, &x.hw, &t4, 0, &ck, &e), "%s", e.msg);
        double s_part = span_ns(&ck, &x.sg, "store.C", &start);
        double s_whole = span_ns(&t1, &x.sg, "store.C", &start);
        CHECK_MSG(s_part > s_whole, "partial store %g vs %g ns", s_part, s_whole);
        pt_timeline_free(&ck);
    }
    gemm_free(&x);
    pt_timeline_free(&t1);
    pt_timeline_free(&t4);
    /* 8192^3 in the default 128 x 256 tiles: 2048 tiles fill every SM many times over */
    const char *big = "M=8192,N=8192,K=8192";
    one = gemm_time(big, NULL, 1, NULL);
    four = gemm_time(big, NULL, 4, NULL);
    fprintf(stderr, "8192^3 on H200: split_k 1 %.1f us, 4 %.1f us\n", one / 1e3, four / 1e3);
    CHECK_MSG(one > 0 && four > one, "%g vs %g", four, one);
}

/* ---- validation and files -------------------------------------------------------------- */

static void test_validate(void)
{
    gemm x;
    pt_error e = {""};
    gemm_load(&x, "M=64,N=4096,K=256", "m=64,n=128,k=64,wg=1", 4);
    if (x.ok) {
        CHECK_MSG(pt_validate(&x.p, &x.sg, &x.hw, NULL, &e), "%s", e.msg);
        x.p.partition.split_k = 5; /* K = 256 in 64s: 4 iterations */
        CHECK(!pt_validate(&x.p, &x.sg, &x.hw, NULL, &e));
        CHECK_CONTAINS(e.msg, "$.partition.split_k");
        CHECK_CONTAINS(e.msg, "4 iterations");
        x.p.partition.split_k = 17;
        CHECK(!pt_validate(&x.p, &x.sg, &x.hw, NULL, &e));
        CHECK_CONTAINS(e.msg, "expected 1 to 16");
        /* written only when split; read back; out of range named with file and field */
        x.p.partition.split_k = 1;
        char *text = pt_sprogram_to_json(&x.p, &x.sg);
        CHECK(text && !strstr(text, "split_k"));
        free(text);
        x.p.partition.split_k = 3;
        text = pt_sprogram_to_json(&x.p, &x.sg);
        CHECK(text && strstr(text, "\"split_k\": 3"));
        pt_sprogram q;
        pt_stask_graph sg2;
        if (text && pt_sprogram_load_text(&q, &sg2, &x.g, "p.json", text, strlen(text), &e)) {
            CHECK(q.partition.split_k == 3);
            pt_sprogram_free(&q);
            pt_stask_graph_free(&sg2);
        } else
            CHECK_MSG(0, "%s", e.msg);
        char *bad = text ? strstr(text, "\"split_k\": 3") : NULL;
        if (bad) {
            memcpy(bad, "\"split_k\": 0", 12);
            CHECK(!pt_sprogram_load_text(&q, &sg2, &x.g, "p.json", text, strlen(text), &e));
            CHECK_CONTAINS(e.msg, "p.json: $.partition.split_k");
            CHECK_CONTAINS(e.msg, "expected 1 to 16");
        }
        free(text);
    }
    gemm_free(&x);
    /* attention's loop carries a running max: chunks cannot be added up */
    pt_graph g;
    pt_hw hw;
    pt_stask_graph sg;
    pt_sprogram p;
    pt_tiling t;
    const char *fa = pt_embedded_find(pt_embedded_examples, "flash_attention");
    if (fa && pt_graph_load_text(&g, "flash_attention", fa, strlen(fa), NULL, &e) &&
        pt_hw_load(&hw, "H200", &e)) {
        pt_tiling_defaults(&g, &t);
        if (pt_partition(&sg, &g, &t, &e) && pt_sprogram_default(&p, &sg, &hw, &e)) {
            p.partition.split_k = 2;
            CHECK(!pt_validate(&p, &sg, &hw, NULL, &e));
            CHECK_CONTAINS(e.msg, "$.partition.split_k");
            CHECK_CONTAINS(e.msg, "softmax_max");
            pt_sprogram_free(&p);
            pt_stask_graph_free(&sg);
        } else
            CHECK_MSG(0, "%s", e.msg);
    } else
        CHECK_MSG(0, "%s", e.msg);
}


/* ---- through a cluster (partition.split_k_reduce cluster) --------------------------------- */

/* I = 13, S = 4, one tile as one cluster of 4 (capacity 1 on the 4 EUs), hand-over 30 ns. The
 * leader is chunk 0 (3 iterations); its fix-up convert adds 3 x 100 elements from its own
 * shared memory (300) and converts (100) after the hand-over (30): 430. It starts once chunk 3
 * (4 iterations) has arrived: 50 + loop_end(4) + 430 + 5 + 120 = 1600. The others end at
 * 50 + loop_end(3) + 145. A second tile waits for a whole free cluster: 2 waves. */
static void test_cluster(void)
{
    loop_fixture f;
    pt_timeline tl;
    pt_error err = {""};
    loop_init(&f, 13, 1, 4);
    f.p.partition.split_reduce = PT_SPLIT_REDUCE_CLUSTER;
    f.hw.cluster_capacity[4] = 1;
    f.hw.cluster_sync_ns = 30;
    CHECK(pt_split_k_cluster(&f.p));
    CHECK(pt_split_k_cluster_smem(&f.p, &f.sg) == 3 * 100 * 4 + 16);
    double start;
    CHECK_MSG(pt_simulate_chunk(&f.p, &f.sg, &f.hw, 3, PT_CHUNK_FIXUP, &tl, &err), "%s", err.msg);
    CHECK_NEAR(span_ns(&tl, &f.sg, "convert.C", &start), 430, 1e-9);
    pt_timeline_free(&tl);
    CHECK_MSG(pt_simulate(&f.p, &f.sg, &f.hw, &tl, &err), "%s", err.msg);
    CHECK(tl.waves == 1 && tl.n_chunks == 4 && tl.workspace_bytes == 0);
    for (int c = 0; c < 4; c++) {
        const pt_chunk_info *k = &tl.chunks[c];
        CHECK_MSG(k->last == (c == 0) && k->start_ns == 0, "chunk %d: last %d at %g", c,
                  k->last, k->start_ns);
        if (c > 0)
            CHECK_NEAR(k->end_ns, 50 + loop_end(c == 3 ? 4 : 3) + 145, 1e-9);
    }
    CHECK_NEAR(tl.chunks[0].end_ns, 50 + loop_end(4) + 430 + 5 + 120, 1e-9);
    CHECK_NEAR(tl.kernel_time_ns, 1000 + 50 + loop_end(4) + 555, 1e-9);
    pt_timeline_free(&tl);
    /* two tiles, one cluster at a time: the second starts when all four EUs are free */
    loop_init(&f, 13, 2, 4);
    f.p.partition.split_reduce = PT_SPLIT_REDUCE_CLUSTER;
    f.hw.cluster_capacity[4] = 1;
    f.hw.cluster_sync_ns = 30;
    CHECK_MSG(pt_simulate(&f.p, &f.sg, &f.hw, &tl, &err), "%s", err.msg);
    CHECK(tl.waves == 2 && tl.work_items == 8);
    CHECK_NEAR(tl.kernel_time_ns, 1000 + 2 * (50 + loop_end(4) + 555), 1e-9);
    pt_timeline_free(&tl);
}

/* The validator's refusals of a cluster reduction, and its file round trip. */
static void test_cluster_validate(void)
{
    gemm x;
    pt_error e = {""};
    gemm_load(&x, "M=64,N=4096,K=4096", "m=64,n=128,k=64,wg=1", 2);
    if (x.ok) {
        x.p.partition.split_reduce = PT_SPLIT_REDUCE_CLUSTER;
        CHECK_MSG(pt_validate(&x.p, &x.sg, &x.hw, NULL, &e), "%s", e.msg);
        int64_t plain;
        x.p.partition.split_reduce = PT_SPLIT_REDUCE_WORKSPACE;
        plain = pt_sprogram_smem_bytes_on(&x.p, &x.sg, &x.hw);
        x.p.partition.split_reduce = PT_SPLIT_REDUCE_CLUSTER;
        /* the leader holds the other chunk's 64 x 128 f32 partial tile */
        CHECK(pt_sprogram_smem_bytes_on(&x.p, &x.sg, &x.hw) == plain + 64 * 128 * 4 + 16);
        char *text = pt_sprogram_to_json(&x.p, &x.sg);
        CHECK(text && strstr(text, "\"split_k_reduce\": \"cluster\""));
        pt_sprogram q;
        pt_stask_graph sg2;
        if (text && pt_sprogram_load_text(&q, &sg2, &x.g, "p.json", text, strlen(text), &e)) {
            CHECK(q.partition.split_reduce == PT_SPLIT_REDUCE_CLUSTER);
            pt_sprogram_free(&q);
            pt_stask_graph_free(&sg2);
        } else
            CHECK_MSG(0, "%s", e.msg);
        char *bad = text ? strstr(text, "\"cluster\"") : NULL;
        if (bad) {
            memcpy(bad, "\"cluser\" ", 9);
            CHECK(!pt_sprogram_load_text(&q, &sg2, &x.g, "p.json", text, strlen(text), &e));
            CHECK_CONTAINS(e.msg, "p.json: $.partition.split_k_reduce");
            CHECK_CONTAINS(e.msg, "expected workspace or cluster");
        }
        free(text);
        /* 64 x 128 x 128 tiles in 4 stages: the 32 KB slot goes over the leader's rings, and
         * the other chunk's store waits for the leader's loop: slower than beside the buffers
         * (a larger per-block limit) */
        gemm y;
        gemm_load(&y, "M=64,N=4096,K=4096", "m=64,n=128,k=128,wg=1", 2);
        if (y.ok) {
            for (int t = 0; t < PT_MAX_TENSORS; t++)
                if (y.p.stages[t])
                    y.p.stages[t] = 4;
            y.p.partition.split_reduce = PT_SPLIT_REDUCE_CLUSTER;
            CHECK(pt_sprogram_cluster_slots_over_rings(&y.p, &y.sg, &y.hw));
            CHECK_MSG(pt_validate(&y.p, &y.sg, &y.hw, NULL, &e), "%s", e.msg);
            pt_timeline over, beside;
            CHECK_MSG(pt_simulate(&y.p, &y.sg, &y.hw, &over, &e), "%s", e.msg);
            y.hw.smem_per_block = y.hw.smem_per_eu = 1 << 20;
            CHECK(!pt_sprogram_cluster_slots_over_rings(&y.p, &y.sg, &y.hw));
            CHECK_MSG(pt_simulate(&y.p, &y.sg, &y.hw, &beside, &e), "%s", e.msg);
            CHECK_MSG(over.kernel_time_ns > beside.kernel_time_ns, "%g vs %g",
                      over.kernel_time_ns, beside.kernel_time_ns);
            pt_timeline_free(&over);
            pt_timeline_free(&beside);
        }
        gemm_free(&y);
        x.p.partition.persistent = true;
        CHECK(!pt_validate(&x.p, &x.sg, &x.hw, NULL, &e));
        CHECK_CONTAINS(e.msg, "$.partition.split_k_reduce");
        CHECK_CONTAINS(e.msg, "persistent");
        x.p.partition.persistent = false;
        x.p.partition.split_k = 1;
        CHECK(!pt_validate(&x.p, &x.sg, &x.hw, NULL, &e));
        CHECK_CONTAINS(e.msg, "split_k 1");
        x.p.partition.split_k = 5; /* H200's model has no capacity for clusters of 5 */
        x.hw.cluster_capacity[5] = 0;
        CHECK(!pt_validate(&x.p, &x.sg, &x.hw, NULL, &e));
        CHECK_CONTAINS(e.msg, "clusters of 5 CTAs");
        x.p.partition.split_k = 2;
        memset(x.hw.cluster_capacity, 0, sizeof x.hw.cluster_capacity);
        CHECK(!pt_validate(&x.p, &x.sg, &x.hw, NULL, &e));
        CHECK_CONTAINS(e.msg, "lists no capacity");
    }
    gemm_free(&x);
}

int main(void)
{
    PTEST_RUN(test_chunks);
    PTEST_RUN(test_publish_first);
    PTEST_RUN(test_epilogues);
    PTEST_RUN(test_one_tile);
    PTEST_RUN(test_many_tiles);
    PTEST_RUN(test_persistent);
    PTEST_RUN(test_gemm);
    PTEST_RUN(test_validate);
    PTEST_RUN(test_cluster);
    PTEST_RUN(test_cluster_validate);
    PTEST_END();
}
