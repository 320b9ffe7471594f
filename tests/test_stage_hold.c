/* test_stage_hold.c — the stage contract (src/stage_hold.c) of issue 12.
 *
 * The three GEMMs that hung on the GPU (the kernel kept a wgmma group in flight and released a
 * stage one iteration late, so rings sized exactly by the sProgram deadlocked, while the
 * validator and the simulator assumed the release at the mma's completion):
 *   1. gemm_f16 1024^3, tile 128x128x64, stages A 1 / B 1;
 *   2. gemm_f16 640x1000x1000, tile 128x192x64, one warpgroup, stages A 3 / B 4, load.A at +2;
 *   3. gemm_bf16 8x264x1000, tile 64x192x64, stages A 3 / B 1, load.A at +2, persistent.
 * Each must now be one decision read by all three: the contract keeps no group in flight
 * (with one, the rings are stuck), the validator accepts, the simulator finishes, and the
 * generated kernel waits for every group (wait_group<0>) and releases the stage in its own
 * iteration. Before the fix the generator always printed wait_group<1> with the late release.
 *
 * Also: GEMM with K no longer than one k tile and attention with S no longer than one key tile
 * are a loop of one iteration, accepted end to end (partition, default sProgram, validate,
 * simulate, codegen). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "embedded.h"
#include "idle.h"
#include "propagate.h"
#include "ptest.h"
#include "sim.h"
#include "stage_hold.h"
#include "validate.h"

typedef struct {
    pt_graph g;
    pt_hw hw;
    pt_stask_graph sg;
    pt_sprogram p;
    pt_error err;
} fx;

static fx F; /* large: static */

static bool setup(const char *example, const char *set, const char *tile)
{
    memset(&F, 0, sizeof F);
    const char *text = pt_embedded_find(pt_embedded_examples, example);
    pt_tiling t;
    bool ok = text && pt_graph_load_text(&F.g, example, text, strlen(text), set, &F.err) &&
              pt_hw_load(&F.hw, "H200", &F.err);
    if (ok) {
        pt_tiling_defaults(&F.g, &t);
        ok = (!tile || pt_tiling_parse(&F.g, tile, "--tile", &t, &F.err)) &&
             pt_partition(&F.sg, &F.g, &t, &F.err) && pt_sprogram_default(&F.p, &F.sg, &F.hw, &F.err);
    }
    CHECK_MSG(ok, "%s %s: %s", example, set, F.err.msg);
    return ok;
}

static void teardown(void)
{
    pt_sprogram_free(&F.p);
    pt_stask_graph_free(&F.sg);
}

static void stages(int a, int b)
{
    F.p.stages[pt_graph_find_tensor(&F.g, "A")] = a;
    F.p.stages[pt_graph_find_tensor(&F.g, "B")] = b;
}

static void offset(const char *id, int off)
{
    int s = pt_stask_find(&F.sg, id), lane = -1, pos = -1;
    bool placed = s >= 0 && pt_sprogram_placement(&F.p, s, &lane, &pos);
    CHECK(placed);
    if (placed)
        CHECK_MSG(pt_append(&F.p, &F.sg, s, lane, pos, off, &F.err), "%s", F.err.msg);
}

static char *generate(void)
{
    pt_codegen_result out;
    memset(&out, 0, sizeof out);
    bool ok = pt_codegen_sm90a(&F.p, &F.sg, &F.hw, &out, &F.err);
    CHECK_MSG(ok, "codegen: %s", F.err.msg);
    if (!ok)
        return NULL;
    free(out.host_c);
    return out.kernel_cu;
}

static bool simulate(void)
{
    pt_timeline tl = {0};
    bool ok = pt_simulate(&F.p, &F.sg, &F.hw, &tl, &F.err);
    pt_timeline_free(&tl);
    return ok;
}

/* What every hang case must satisfy. */
static void check_tight_ring(void)
{
    pt_stage_hold h;
    pt_stage_hold_decide(&F.p, &F.sg, &h);
    int A = pt_graph_find_tensor(&F.g, "A");
    CHECK(h.in_flight_possible);
    CHECK(h.progress);
    CHECK_MSG(h.mma_in_flight == 0, "the contract keeps %d group(s) in flight", h.mma_in_flight);
    CHECK(pt_stage_hold_iterations(&h, A) == 1);
    /* what the old kernel did: a stage released one iteration late; the rings are stuck */
    pt_stage_hold late = h;
    for (int x = 0; x < PT_MAX_TENSORS; x++)
        late.lag[x] = h.ring[x];
    char msg[320];
    CHECK(!pt_validate_ring_progress(&F.p, &F.sg, F.p.stages, &late, msg, sizeof msg));
    CHECK_CONTAINS(msg, "deadlock: ");
    /* and with the contract's release, they progress: validator, simulator, generator agree */
    CHECK(pt_validate_ring_progress(&F.p, &F.sg, F.p.stages, &h, NULL, 0));
    pt_validation v;
    CHECK_MSG(pt_validate(&F.p, &F.sg, &F.hw, &v, &F.err), "%s", F.err.msg);
    CHECK_MSG(simulate(), "%s", F.err.msg);
    char *k = generate();
    if (k) {
        CHECK(strstr(k, "pt::wgmma_wait<1>();") == NULL);
        CHECK_CONTAINS(k, "pt::wgmma_wait<0>();\n            PT_REC(ST_MMA[cw], LANE_MMA[cw], n_tile, i, 1);");
        CHECK_CONTAINS(k, "pt::mbar_arrive(&empty_a[sa]);");
        CHECK(strstr(k, "empty_a[prev_a]") == NULL);
    }
    free(k);
}

static void test_hang1_stages_1(void)
{
    if (!setup("gemm_f16", "M=1024,N=1024,K=1024", "m=128,n=128,k=64"))
        return;
    stages(1, 1);
    check_tight_ring();
    teardown();
}

static void test_hang2_offset_2(void)
{
    if (!setup("gemm_f16", "M=640,N=1000,K=1000", "m=128,n=192,k=64,wg=1"))
        return;
    stages(3, 4);
    offset("load.A", 2);
    check_tight_ring();
    teardown();
}

static void test_hang3_persistent(void)
{
    if (!setup("gemm_bf16", "M=8,N=264,K=1000", "m=64,n=192,k=64,wg=1"))
        return;
    stages(3, 1);
    offset("load.A", 2);
    F.p.partition.persistent = true;
    check_tight_ring();
    teardown();
}

/* Normal stage counts keep the tensor core fed: one group in flight, a stage held 2
 * iterations, and the simulator times the release at the next group's issue. */
static void test_normal_rings_keep_a_group_in_flight(void)
{
    if (!setup("gemm_f16", "M=1024,N=1024,K=1024", "m=128,n=128,k=64"))
        return;
    stages(2, 2);
    pt_stage_hold h;
    pt_stage_hold_decide(&F.p, &F.sg, &h);
    CHECK(h.mma_in_flight == 1 && h.progress);
    CHECK(pt_stage_hold_iterations(&h, pt_graph_find_tensor(&F.g, "A")) == 2);
    CHECK(pt_stage_release_iter(&h, pt_graph_find_tensor(&F.g, "A"), 3, 16) == 4);
    CHECK(pt_stage_release_iter(&h, pt_graph_find_tensor(&F.g, "A"), 15, 16) == 15);
    CHECK_MSG(pt_validate(&F.p, &F.sg, &F.hw, NULL, &F.err), "%s", F.err.msg);
    char *k = generate();
    if (k)
        CHECK_CONTAINS(k, "pt::wgmma_wait<1>();");
    free(k);
    /* the late release costs the simulator a little against waiting for every group: it
     * is never faster to release late */
    pt_timeline a = {0};
    CHECK(pt_simulate(&F.p, &F.sg, &F.hw, &a, &F.err));
    CHECK(a.eu_time_ns > 0);
    pt_timeline_free(&a);
    teardown();
}

/* A ring that no release could save is refused, in the contract's words. */
static void test_refused_with_the_stages_needed(void)
{
    if (!setup("gemm_f16", "M=1024,N=1024,K=1024", "m=128,n=128,k=64"))
        return;
    stages(1, 1);
    offset("load.A", 2);
    pt_stage_hold h;
    pt_stage_hold_decide(&F.p, &F.sg, &h);
    CHECK(!h.progress);
    CHECK(!pt_validate(&F.p, &F.sg, &F.hw, NULL, &F.err));
    CHECK_STR(F.err.msg, "stages of A = 1 but a stage is held for 3 iterations (load.A at offset "
                         "+2, released when its readers complete); need >= 3");
    CHECK(!pt_codegen_sm90a_check(&F.p, &F.sg, &F.hw, &F.err));
    CHECK(!simulate());
    CHECK_CONTAINS(F.err.msg, "deadlock");
    stages(3, 1);
    CHECK_MSG(pt_validate(&F.p, &F.sg, &F.hw, NULL, &F.err), "%s", F.err.msg);
    teardown();
}

/* One accepted end to end: partition gives a loop of `iters` iterations; the default program
 * validates, simulates and generates. */
static void end_to_end(const char *example, const char *set, const char *tile, int64_t iters)
{
    if (!setup(example, set, tile))
        return;
    CHECK_MSG(F.sg.loop_axis >= 0 && F.sg.iterations == iters, "%s %s: loop axis %d, %lld "
              "iterations", example, set, F.sg.loop_axis, (long long)F.sg.iterations);
    CHECK_MSG(pt_validate(&F.p, &F.sg, &F.hw, NULL, &F.err), "%s %s: %s", example, set, F.err.msg);
    CHECK_MSG(simulate(), "%s %s: %s", example, set, F.err.msg);
    char *k = generate();
    free(k);
    teardown();
}

static void test_short_reductions(void)
{
    end_to_end("gemm_f16", "M=256,N=256,K=64", NULL, 1);
    end_to_end("gemm_f16", "M=256,N=256,K=8", NULL, 1);
    end_to_end("gemm_bf16", "M=100,N=256,K=40", "m=128,n=128,k=128,wg=1", 1);
    end_to_end("gemm_f16", "M=256,N=256,K=72", NULL, 2);
    end_to_end("flash_attention", "B=1,H=2,S=1", NULL, 1);
    end_to_end("flash_attention", "B=1,H=2,S=77", NULL, 1);
    end_to_end("flash_attention", "B=1,H=2,S=128", NULL, 1);
    end_to_end("flash_attention_bf16", "B=1,H=1,S=77,CAUSAL=1", NULL, 1);
    end_to_end("flash_attention", "B=1,H=1,S=129", NULL, 2);
}

/* Issue 18: the stage-occupancy track of a ring never exceeds its depth, reaches it when the
 * producer runs ahead, ends empty; and a load that waits for a stage says which ring. */
static void test_ring_occupancy(void)
{
    if (!setup("flash_attention", NULL, NULL))
        return;
    pt_timeline tl = {0};
    int v = pt_graph_find_tensor(&F.g, "V");
    F.p.stages[v] = 1; /* one stage: V's loads wait for the ring, so the reasons below exist */
    CHECK_MSG(pt_simulate(&F.p, &F.sg, &F.hw, &tl, &F.err), "%s", F.err.msg);
    double *t = NULL;
    int *f = NULL, depth = 0;
    int64_t n = pt_ring_occupancy(&F.p, &F.sg, &tl, v, &t, &f, &depth);
    CHECK(n > 0 && depth == F.p.stages[v]);
    int top = 0;
    for (int64_t k = 0; k < n; k++) {
        CHECK(f[k] >= 0 && f[k] <= depth);
        CHECK(k == 0 || t[k] > t[k - 1]);
        top = f[k] > top ? f[k] : top;
    }
    CHECK(top == depth);
    CHECK(n > 0 && f[n - 1] == 0);
    free(t);
    free(f);
    /* a tensor without a ring: no track */
    CHECK(pt_ring_occupancy(&F.p, &F.sg, &tl, pt_graph_find_tensor(&F.g, "O"), &t, &f, &depth) == 0);
    /* some load of V waits for its ring: the reason names the ring and the releasing reader */
    bool stage_wait = false;
    int lv = pt_stask_find(&F.sg, "load.V");
    for (int64_t i = 0; i < tl.n_spans && !stage_wait; i++) {
        pt_wait_reason r;
        if (tl.spans[i].stask != lv || !pt_span_wait_reason(&F.p, &F.sg, &tl, i, &r))
            continue;
        if (r.kind == PT_WAIT_STAGE && r.gap_ns > 0) {
            stage_wait = r.tensor == v && r.stages == F.p.stages[v] &&
                         r.stage == (int)(tl.spans[i].iter % r.stages) &&
                         strncmp(F.sg.tasks[r.stask].id, "mma.O", 5) == 0 &&
                         r.iter == tl.spans[i].iter - r.stages;
            char txt[320];
            pt_wait_reason_text(&r, &F.p, &F.sg, txt, sizeof txt);
            CHECK_CONTAINS(txt, "a free stage of ring V");
        }
    }
    CHECK(stage_wait);
    pt_timeline_free(&tl);
    teardown();
}

int main(void)
{
    PTEST_RUN(test_hang1_stages_1);
    PTEST_RUN(test_hang2_offset_2);
    PTEST_RUN(test_hang3_persistent);
    PTEST_RUN(test_normal_rings_keep_a_group_in_flight);
    PTEST_RUN(test_refused_with_the_stages_needed);
    PTEST_RUN(test_short_reductions);
    PTEST_RUN(test_ring_occupancy);
    PTEST_END();
}
