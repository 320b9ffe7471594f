/* test_kprog.c — the kernel program (codegen/ir/): what the lowering passes decide for GEMM and
 * attention sPrograms (buffers and their layout, roles and their tasks, each task's body and
 * operands, register value rings, the step program's waits and releases, the loop form, the
 * named-barrier rings of cross-role Waits), and that what they cannot lower is refused with the
 * sTask or buffer named. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embedded.h"
#include "codegen.h"
#include "ir/kprog.h"
#include "propagate.h"
#include "ptest.h"
#include "stage_hold.h"
#include "validate.h"

typedef struct {
    pt_graph g;
    pt_hw hw;
    pt_stask_graph sg;
    pt_sprogram p;
    pt_kprog kp;
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
             pt_partition(&F.sg, &F.g, &t, &F.err) &&
             pt_sprogram_default(&F.p, &F.sg, &F.hw, &F.err);
    }
    CHECK_MSG(ok, "%s %s: %s", example, set ? set : "", F.err.msg);
    return ok;
}

static void teardown(void)
{
    pt_sprogram_free(&F.p);
    pt_stask_graph_free(&F.sg);
}

static bool build(void)
{
    pt_validation v;
    if (!pt_validate(&F.p, &F.sg, &F.hw, &v, &F.err)) {
        CHECK_MSG(false, "invalid: %s", F.err.msg);
        return false;
    }
    bool ok = pt_kprog_build(&F.kp, &F.p, &F.sg, &F.hw, "test", &F.err);
    CHECK_MSG(ok, "refused: %s", F.err.msg);
    return ok;
}

static int buf(const char *tensor)
{
    return pt_kprog_buf_of(&F.kp, pt_graph_find_tensor(&F.g, tensor));
}

static void set_offset(const char *id, int off)
{
    int s = pt_stask_find(&F.sg, id), lane = -1, pos = -1;
    CHECK(s >= 0 && pt_sprogram_placement(&F.p, s, &lane, &pos));
    if (lane >= 0)
        F.p.lanes[lane].entries[pos].offset = off;
}

/* GEMM: rings for A and B, a staging tile for C, one mma per consumer warpgroup in a guarded
 * loop whose steady wait keeps the contract's groups in flight and releases both rings. */
static void test_gemm(void)
{
    if (!setup("gemm_f16", "M=1024,N=1024,K=1024", "m=128,n=256,k=64,wg=2") || !build())
        return teardown();
    const pt_kprog *kp = &F.kp;
    CHECK(kp->n_bufs == 3 && kp->wgs == 2);
    int a = buf("A"), b = buf("B"), c = buf("C");
    CHECK(a >= 0 && b >= 0 && c == kp->staging);
    CHECK(kp->bufs[a].kind == PT_KBUF_RING && kp->bufs[b].kind == PT_KBUF_RING);
    CHECK(kp->bufs[c].kind == PT_KBUF_STAGING && kp->bufs[c].over == -1);
    CHECK(kp->bufs[a].bytes == 128 * 64 * 2 && kp->bufs[b].bytes == 256 * 64 * 2);
    CHECK(kp->bufs[a].offset == 0 && kp->bufs[b].offset == kp->bufs[a].stages * 16384);
    CHECK(kp->off_bar == kp->bufs[c].offset + kp->bufs[c].pitch);
    CHECK(kp->smem_dynamic <= F.hw.smem_per_block);
    CHECK(kp->n_loads == 2 && kp->load_buf[0] == a && kp->load_buf[1] == b);
    CHECK(kp->loop == PT_KLOOP_GUARDED);
    pt_stage_hold h;
    pt_stage_hold_decide(&F.p, &F.sg, &h);
    CHECK(kp->carry == h.mma_in_flight);
    for (int w = 0; w < 2; w++) {
        const pt_krole *R = &kp->consumer[w];
        CHECK(R->n_tasks == 1 && R->tasks[0].body == PT_KB_MMA && R->tasks[0].async);
        CHECK(R->tasks[0].n_in == 2 && R->tasks[0].in[0].kind == PT_KSRC_BUF &&
              R->tasks[0].in[0].index == a && R->tasks[0].in[1].index == b);
        int rings[PT_KTASK_INS];
        CHECK(pt_kprog_task_rings(kp, &R->tasks[0], rings) == 2);
        CHECK(R->epilogue.body == PT_KB_CONVERT);
        /* steady step: issue the mma, then wait until `carry` groups remain: the group it
         * completes is this step's (carry 0) or the previous one's (carry 1) */
        CHECK(R->n_ops == 2 && R->ops[0].kind == PT_KOP_TASK && R->ops[1].kind == PT_KOP_WAIT);
        CHECK(R->ops[1].arg == kp->carry && R->ops[1].n_done == 1 &&
              R->ops[1].done[0].step == -kp->carry);
        CHECK(R->n_steady == kp->carry);
    }
    CHECK(kp->tiles == 8 * 4 && kp->grid == kp->tiles && kp->threads == 384);
    CHECK(kp->n_vals == 1 && kp->vals[0].kind == PT_KVAL_CARRIED);
    teardown();
}

/* Stream-K: the grid is the partition's (src/streamk.h), persistent, with two workspace slots
 * per stream-K CTA and the barrier area's two flags; one tile of 3 iterations launches 3 CTAs. */
static void test_gemm_stream_k(void)
{
    if (!setup("gemm_f16", "M=257,N=4096,K=4096", "m=128,n=128,k=64,wg=1"))
        return teardown();
    F.p.partition.stream_k = 132;
    F.p.partition.persistent = true;
    if (!build())
        return teardown();
    const pt_kprog *kp = &F.kp;
    CHECK(kp->stream_k == 132 && kp->persistent && kp->grid == 132 && kp->split_k == 1);
    CHECK(kp->sk.sk_tiles == 96 && kp->sk.dp_per_cta == 0 && kp->sk.sk_ctas == 132);
    CHECK(kp->workspace_bytes == 2LL * 132 * 128 * 128 * 4);
    teardown();
    if (!setup("gemm_f16", "M=64,N=128,K=192", "m=64,n=128,k=64,wg=1"))
        return teardown();
    F.p.partition.stream_k = 132;
    F.p.partition.persistent = true;
    if (build())
        CHECK(F.kp.grid == 3 && F.kp.sk.sk_iters == 3 && F.kp.workspace_bytes == 6LL * 64 * 128 * 4);
    teardown();
}

/* One stage per ring: a stage cannot stay held while the next is loaded, so the step retires
 * its group (carry 0) and releases the stages it read in the same step. */
static void test_gemm_exact_rings(void)
{
    if (!setup("gemm_f16", "M=512,N=512,K=512", "m=128,n=128,k=64,wg=1"))
        return teardown();
    F.p.stages[pt_graph_find_tensor(&F.g, "A")] = 1;
    F.p.stages[pt_graph_find_tensor(&F.g, "B")] = 1;
    if (build()) {
        const pt_krole *R = &F.kp.consumer[0];
        CHECK(F.kp.carry == 0);
        CHECK(R->n_ops == 2 && R->ops[1].arg == 0 && R->ops[1].done[0].step == 0);
    }
    teardown();
}

static int val_of_tensor(const char *tensor)
{
    int t = pt_graph_find_tensor(&F.g, tensor);
    for (int v = 0; v < F.kp.n_vals; v++)
        if (F.kp.vals[v].tensor == t)
            return v;
    return -1;
}

/* Attention: Q resident, K and V rings, O staged; per warpgroup six tasks whose operands are
 * found in the graph (S and P are register values), every group retired inside its step. */
static void test_attention(void)
{
    if (!setup("flash_attention", "S=1024", NULL) || !build())
        return teardown();
    const pt_kprog *kp = &F.kp;
    int q = buf("Q"), k = buf("K"), v = buf("V");
    CHECK(kp->bufs[q].kind == PT_KBUF_RESIDENT && kp->bufs[k].kind == PT_KBUF_RING &&
          kp->bufs[v].kind == PT_KBUF_RING);
    CHECK(kp->bufs[kp->staging].kind == PT_KBUF_STAGING);
    CHECK(kp->bufs[q].offset == 0 && kp->bufs[k].offset == kp->bufs[q].pitch);
    CHECK(kp->loop == PT_KLOOP_PEELED && kp->carry == 0);
    int s_val = val_of_tensor("S"), p_val = val_of_tensor("P"), o_val = val_of_tensor("O");
    CHECK(s_val >= 0 && kp->vals[s_val].kind == PT_KVAL_ITER);
    CHECK(p_val >= 0 && kp->vals[p_val].kind == PT_KVAL_ITER);
    CHECK(o_val >= 0 && kp->vals[o_val].kind == PT_KVAL_CARRIED);
    for (int w = 0; w < kp->wgs; w++) {
        const pt_krole *R = &kp->consumer[w];
        CHECK(R->n_tasks == 6 && R->epilogue.body == PT_KB_NORMALIZE);
        int seen[PT_KB_KINDS] = {0};
        for (int i = 0; i < R->n_tasks; i++) {
            const pt_ktask *t = &R->tasks[i];
            seen[t->body]++;
            if (t->body == PT_KB_MMA && t->out == s_val)
                CHECK(t->in[0].kind == PT_KSRC_BUF && t->in[0].index == q &&
                      t->in[1].kind == PT_KSRC_BUF && t->in[1].index == k);
            else if (t->body == PT_KB_MMA)
                CHECK(t->out == o_val && t->in[0].kind == PT_KSRC_VAL &&
                      t->in[0].index == p_val && t->in[1].index == v);
            if (t->body == PT_KB_RESCALE)
                CHECK(t->out == o_val);
            if (t->body == PT_KB_EXP_ROWS)
                CHECK(t->out == p_val);
        }
        CHECK(seen[PT_KB_MMA] == 2 && seen[PT_KB_ROW_MAX] == 1 && seen[PT_KB_EXP_ROWS] == 1 &&
              seen[PT_KB_ROW_SUM] == 1 && seen[PT_KB_RESCALE] == 1);
        /* asynchronous tasks first in the merged order */
        CHECK(R->tasks[0].async);
        CHECK(R->n_steady == 0);
        CHECK(R->ops[R->n_ops - 1].kind == PT_KOP_WAIT && R->ops[R->n_ops - 1].arg == 0);
    }
    teardown();
}

/* mma.S one iteration ahead (FlashAttention-3's order): two score tiles are live at once, so
 * S gets two register slots and the printed loop runs two steps per turn. */
static void test_attention_offsets(void)
{
    if (!setup("flash_attention", "S=1024", NULL))
        return teardown();
    set_offset("mma.S.wg0", 1);
    set_offset("mma.S.wg1", 1);
    if (build()) {
        int s_val = val_of_tensor("S");
        CHECK(s_val >= 0 && F.kp.vals[s_val].slots == 2 && F.kp.unroll == 2);
        CHECK(F.kp.c_off_max == 1 && F.kp.c_off_min == 0);
    }
    teardown();
}

/* What cannot be lowered is refused, naming the sTask. */
static void test_refusals(void)
{
    /* ChunkScan lowers: its prologue product and row scaling run once per tile before the loop
     * (in data order), the loop's product accumulates (carried), the prologue's does not, and
     * the epilogue is the sum of the two */
    if (setup("mamba2_chunk_scan", NULL, NULL) && build()) {
        const pt_krole *R = &F.kp.consumer[0];
        CHECK(R->n_pro == 3);
        if (R->n_pro == 3) {
            CHECK(R->pro[0].body == PT_KB_MMA);
            CHECK(R->pro[1].body == PT_KB_EWISE && R->pro[2].body == PT_KB_EWISE);
            CHECK(strcmp(F.sg.tasks[R->pro[0].stask].id, "mma.y_off.wg0") == 0);
            CHECK(strcmp(F.sg.tasks[R->pro[2].stask].id, "mul.y_inter.wg0") == 0);
        }
        int off = val_of_tensor("y_off"), intra = val_of_tensor("y_intra");
        CHECK(off >= 0 && F.kp.vals[off].kind == PT_KVAL_ITER);
        CHECK(intra >= 0 && F.kp.vals[intra].kind == PT_KVAL_CARRIED);
        CHECK(R->n_tasks == 4 && R->tasks[0].body == PT_KB_EXP_DECAY);
        CHECK(R->epilogue.body == PT_KB_EWISE && R->epilogue.n_in == 2);
        CHECK(F.kp.causal);
    }
    teardown();
    /* a chunk in one k block (s = L: at L = 64 the only block) is still the loop over s, of
     * one iteration, and lowers as a longer walk does: y_off in the prologue, y_intra carried */
    if (setup("mamba2_chunk_scan", "L=64", "l=64,wg=1")) {
        CHECK(F.sg.loop_axis == pt_graph_find_axis(&F.g, "s") && F.sg.iterations == 1);
        if (build()) {
            int off = val_of_tensor("y_off"), intra = val_of_tensor("y_intra");
            CHECK(off >= 0 && F.kp.vals[off].kind == PT_KVAL_ITER);
            CHECK(intra >= 0 && F.kp.vals[intra].kind == PT_KVAL_CARRIED);
            CHECK(F.kp.causal);
        }
    }
    teardown();
    /* ChunkState lowers: its pointwise pieces are loop tasks; the rings they read on the CUDA
     * cores are released per warp, the mma's per warpgroup */
    if (setup("mamba2_chunk_state", NULL, NULL) && build()) {
        int x = pt_kprog_buf_of(&F.kp, pt_graph_find_tensor(F.kp.g, "x"));
        int bm = pt_kprog_buf_of(&F.kp, pt_graph_find_tensor(F.kp.g, "Bm"));
        CHECK(x >= 0 && bm >= 0);
        if (x >= 0 && bm >= 0) {
            CHECK(F.kp.bufs[x].readers == 4 * F.kp.wgs);
            CHECK(F.kp.bufs[bm].readers == F.kp.wgs);
        }
        CHECK(F.kp.consumer[0].n_tasks == 5);
        for (int i = 0; i < F.kp.consumer[0].n_tasks; i++)
            CHECK(F.kp.consumer[0].tasks[i].body ==
                  (F.kp.consumer[0].tasks[i].async ? PT_KB_MMA : PT_KB_EWISE));
    }
    teardown();
    /* a ping-pong of ChunkScan's intra-chunk products (Waits across warpgroups) is refused: the
     * causal product skips warpgroup 0's last k block, so the barrier rings would get fewer
     * syncs than arrivals and hang (the kernel hung on the H200 once it compiled) */
    if (setup("mamba2_chunk_scan", "B=1,S=1024,H=2", "l=128")) {
        int a = pt_stask_find(&F.sg, "mma.y_intra.wg0"), b = pt_stask_find(&F.sg, "mma.y_intra.wg1");
        int one = 1, zero = 0;
        CHECK(a >= 0 && b >= 0);
        if (a >= 0 && b >= 0 && pt_wait(&F.p, &F.sg, a, &b, &one, 1, &F.err) &&
            pt_wait(&F.p, &F.sg, b, &a, &zero, 1, &F.err)) {
            pt_validation v;
            CHECK_MSG(pt_validate(&F.p, &F.sg, &F.hw, &v, &F.err), "%s", F.err.msg);
            CHECK(!pt_kprog_build(&F.kp, &F.p, &F.sg, &F.hw, "test", &F.err));
            CHECK_CONTAINS(F.err.msg, "crosses warpgroups that run different numbers of k blocks");
            CHECK_CONTAINS(F.err.msg, "mma.y_intra.wg0");
        }
    }
    teardown();
    /* scores computed two iterations ahead: three S tiles live, more than registers hold */
    if (setup("flash_attention", "S=1024", NULL)) {
        F.p.stages[pt_graph_find_tensor(&F.g, "K")] = 3;
        F.p.stages[pt_graph_find_tensor(&F.g, "V")] = 3;
        set_offset("mma.S.wg0", 2);
        set_offset("mma.S.wg1", 2);
        CHECK(!pt_kprog_build(&F.kp, &F.p, &F.sg, &F.hw, "test", &F.err));
        CHECK_CONTAINS(F.err.msg, "keep 3 tiles of S live");
    }
    teardown();
}

/* Unaligned sizes (src/staging.h): the buffers of tensors whose rows are not 16-byte multiples
 * are staged; the sm90a launcher copies inputs in before the kernel and outputs back after it,
 * and an aligned GEMM prints none of it. A dequantised GEMM's packed weights are not staged:
 * refused, naming the axis and the rule. */
/* Each warpgroup storing its own rows (tiling wg_stores): one store sTask per warpgroup that
 * waits for that warpgroup's epilogue only, on its own TMA lane; one staging tile of every
 * warpgroup's rows, apart; the kernel program names each warpgroup's store; what cannot be
 * built is refused by name. */
static void test_wg_stores(void)
{
    if (setup("mamba2_chunk_scan", "B=1,S=512,H=4", "l=64,h=2,wg=2,wg_axis=h,wg_stores=1")) {
        int s0 = pt_stask_find(&F.sg, "store.out.wg0"), s1 = pt_stask_find(&F.sg, "store.out.wg1");
        CHECK(s0 >= 0 && s1 >= 0 && pt_stask_find(&F.sg, "store.out") < 0);
        for (int w = 0; w < 2 && s0 >= 0 && s1 >= 0; w++) {
            const pt_stask *t = &F.sg.tasks[w ? s1 : s0];
            CHECK(t->wg == w && t->n_deps == 1 && t->tile[3] == 1); /* one head's rows */
            CHECK(t->n_deps == 1 && F.sg.tasks[t->deps[0].from].wg == w);
        }
        int whole = 0;
        if (build()) {
            CHECK(F.kp.wg_stores && F.kp.wg_store_stask[0] == s0 && F.kp.wg_store_stask[1] == s1);
            CHECK(F.kp.consumer[0].stores && F.kp.consumer[1].stores && !F.kp.producer.stores);
            whole = (int)F.kp.bufs[F.kp.staging].bytes;
            CHECK(F.kp.bufs[F.kp.staging].over < 0);
        }
        /* the same tile stored whole has a staging tile of the same size */
        char *json = pt_sprogram_to_json(&F.p, &F.sg);
        CHECK(json && strstr(json, "\"wg_stores\": true"));
        pt_sprogram p2;
        pt_stask_graph sg2;
        CHECK_MSG(json && pt_sprogram_load_text(&p2, &sg2, &F.g, "t.json", json, strlen(json), &F.err),
                  "%s", F.err.msg);
        if (json) {
            CHECK(sg2.tiling.wg_stores && pt_stask_find(&sg2, "store.out.wg1") >= 0);
            pt_sprogram_free(&p2);
            pt_stask_graph_free(&sg2);
        }
        free(json);
        /* staged over a resident tile: refused, naming the field */
        F.p.partition.staging = PT_STAGING_OVER_RESIDENT;
        pt_validation v;
        CHECK(!pt_validate(&F.p, &F.sg, &F.hw, &v, &F.err));
        CHECK_CONTAINS(F.err.msg, "over_resident, but wg_stores is set");
        F.p.partition.staging = PT_STAGING_AUTO;
        /* warpgroup 1's store on warpgroup 0's lane: the kernel program refuses it */
        int l0 = pt_sprogram_find_lane(&F.p, "tma.wg0");
        CHECK(l0 >= 0 && pt_append(&F.p, &F.sg, s1, l0, -1, 0, &F.err));
        pt_kprog kp;
        CHECK(!pt_kprog_build(&kp, &F.p, &F.sg, &F.hw, "test", &F.err));
        CHECK_CONTAINS(F.err.msg, "store.out.wg1 is on lane tma.wg0");
        teardown();
        if (setup("mamba2_chunk_scan", "B=1,S=512,H=4", "l=64,h=2,wg=2,wg_axis=h") && build())
            CHECK(whole > 0 && (int)F.kp.bufs[F.kp.staging].bytes == whole);
    }
    teardown();
    /* one warpgroup: the partition says why; a GEMM: the sm90a generator says where it applies */
    memset(&F, 0, sizeof F);
    const char *text = pt_embedded_find(pt_embedded_examples, "mamba2_chunk_scan");
    pt_tiling t;
    CHECK(pt_graph_load_text(&F.g, "scan", text, strlen(text), "B=1,S=512,H=4", &F.err));
    pt_tiling_defaults(&F.g, &t);
    CHECK(pt_tiling_parse(&F.g, "l=64,h=1,wg=1,wg_stores=1", "--tile", &t, &F.err));
    CHECK(!pt_partition(&F.sg, &F.g, &t, &F.err));
    CHECK_CONTAINS(F.err.msg, "wg_stores=1 but output \"out\" is not split between warpgroups");
    CHECK(!pt_tiling_parse(&F.g, "wg_stores=2", "--tile", &t, &F.err));
    CHECK_CONTAINS(F.err.msg, "wg_stores=2: expected 0");
    if (setup("gemm_f16", "M=512,N=512,K=512", "m=128,n=128,wg=2,wg_stores=1")) {
        pt_codegen_result r;
        CHECK(!pt_codegen_sm90a(&F.p, &F.sg, &F.hw, &r, &F.err));
        CHECK_CONTAINS(F.err.msg, "generated for Mamba2's ChunkState and ChunkScan only");
    }
    teardown();
}

static void test_staging(void)
{
    static const struct {
        const char *example, *set, *staged; /* staged: per tensor A, B (or Wq), C: 1 or 0 */
    } cases[] = {
        {"gemm_f16", "M=4096,N=1001,K=4096", "011"}, /* B stored [k, n] */
        {"gemm_bf16", "M=77,N=32001,K=4096", "001"}, /* B stored [n, k] */
        {"gemm_f16", "M=1000,N=1000,K=999", "100"},
        {"gemm_f16", "M=7,N=13,K=17", "111"},
        {"gemm_bf16", "M=1,N=1,K=1", "111"},
        {"gemm_f16", "M=512,N=512,K=512", "000"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (!setup(cases[i].example, cases[i].set, NULL) || !build()) {
            teardown();
            continue;
        }
        const char *names[3] = {"A", "B", "C"};
        for (int n = 0; n < 3; n++) {
            int t = pt_graph_find_tensor(&F.g, names[n]), b = pt_kprog_buf_of(&F.kp, t);
            CHECK_MSG(b >= 0 && F.kp.bufs[b].staged == (cases[i].staged[n] == '1'),
                      "%s %s: %s staged %d", cases[i].example, cases[i].set, names[n],
                      b >= 0 ? F.kp.bufs[b].staged : -1);
        }
        pt_codegen_result r;
        bool ok = pt_codegen_sm90a(&F.p, &F.sg, &F.hw, &r, &F.err);
        CHECK_MSG(ok, "%s %s: %s", cases[i].example, cases[i].set, F.err.msg);
        if (ok) {
            bool any = strchr(cases[i].staged, '1') != NULL;
            CHECK((strstr(r.kernel_cu, "pt_restride_2(") != NULL) == any);
            CHECK((strstr(r.host_c, "cuModuleGetGlobal") != NULL) == any);
            const char *launch = strstr(r.host_c, ", &trace};"), /* the kernel's launch */
                       *in = strstr(r.host_c, "into its staging buffer"),
                       *back = strstr(r.host_c, "back from its staging buffer");
            /* inputs are copied before the kernel, an output back after it */
            CHECK(launch && (cases[i].staged[0] == '1' || cases[i].staged[1] == '1') == (in != NULL));
            CHECK(!in || in < launch);
            CHECK((cases[i].staged[2] == '1') == (back != NULL && back > launch));
            pt_codegen_result_free(&r);
        }
        teardown();
    }
    if (setup("gemm_w4a16", "M=64,N=4096,K=4104,G=8", NULL)) {
        pt_codegen_result r;
        CHECK(!pt_codegen_sm90a(&F.p, &F.sg, &F.hw, &r, &F.err));
        CHECK_CONTAINS(F.err.msg, "rows of the packed B (\"Wq\") are 2052 bytes (k = 4104)");
        CHECK_CONTAINS(F.err.msg, "so k must be a multiple of 32");
    }
    teardown();
}

int main(void)
{
    PTEST_RUN(test_staging);
    PTEST_RUN(test_wg_stores);
    PTEST_RUN(test_gemm);
    PTEST_RUN(test_gemm_exact_rings);
    PTEST_RUN(test_gemm_stream_k);
    PTEST_RUN(test_attention);
    PTEST_RUN(test_attention_offsets);
    PTEST_RUN(test_refusals);
    PTEST_END();
}
