/* test_cuda_core_release.c — when a generated sm90a kernel hands back a stage its warps read on
 * the CUDA cores (codegen/ir/pass_step.c, decision 4; docs/CODEGEN-sm90a.md).
 *
 * Session 47 measured on H100: a three-warpgroup ChunkScan whose warps arrived on CB's empty
 * barrier right after their ldmatrix of the stage lost up to 1e4 output elements a launch (the
 * producer's next TMA fill landed before the loads had read it; ptxas does not wait for the
 * loads' results before the arrival). The kernels must now hand such a stage back when the
 * wgmma group its values feed has completed, or else only after a proxy fence, and a resident
 * tile read into registers after the same fence. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "embedded.h"
#include "propagate.h"
#include "ptest.h"
#include "release_lint.h"
#include "sim.h"
#include "sm90a_generate.h"
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

static bool setup(const char *example, const char *set)
{
    memset(&F, 0, sizeof F);
    const char *text = pt_embedded_find(pt_embedded_examples, example);
    pt_tiling t;
    bool ok = text && pt_graph_load_text(&F.g, example, text, strlen(text), set, &F.err) &&
              pt_hw_load(&F.hw, "H100", &F.err);
    if (ok) {
        pt_tiling_defaults(&F.g, &t);
        ok = pt_partition(&F.sg, &F.g, &t, &F.err) && pt_sprogram_default(&F.p, &F.sg, &F.hw, &F.err);
    }
    CHECK_MSG(ok, "%s %s: %s", example, set ? set : "", F.err.msg);
    return ok;
}

static void teardown(void)
{
    pt_sprogram_free(&F.p);
    pt_stask_graph_free(&F.sg);
}

static bool offset(const char *id, int off)
{
    int s = pt_stask_find(&F.sg, id), lane = -1, pos = -1;
    bool ok = s >= 0 && pt_sprogram_placement(&F.p, s, &lane, &pos) &&
              pt_append(&F.p, &F.sg, s, lane, pos, off, &F.err);
    CHECK_MSG(ok, "%s at %+d: %s", id, off, F.err.msg);
    return ok;
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

/* a kernel lacking a line: the line, not the kernel, in the message */
#define HAS(k, s) CHECK_MSG(strstr((k), (s)) != NULL, "the kernel lacks \"%s\"", (s))

static int count(const char *k, const char *s)
{
    int n = 0;
    for (const char *p = strstr(k, s); p; p = strstr(p + 1, s))
        n++;
    return n;
}

/* Every arrival that hands back a stage or a resident tile right after the warp's own reads
 * follows a proxy fence (release_lint.h). */
static void check_immediate_releases_fenced(const char *k, const char *what)
{
    char where[512];
    CHECK_MSG(pt_release_lint_kernel(k, NULL, where, sizeof where) == 0,
              "%s: an arrival after the warp's reads without a fence before it:%s", what, where);
}

/* Whether the kernel hands back the stages READER read in one deferred release, and (GROUP not
 * NULL) with that wgmma group: the release's comment line names the group and its readers. */
static bool deferred(const char *k, const char *group, const char *reader)
{
    for (const char *l = strstr(k, "of iteration i is complete: the stages "); l;
         l = strstr(l + 1, "of iteration i is complete: the stages ")) {
        const char *start = l, *end = strchr(l, '\n');
        while (start > k && start[-1] != '\n')
            start--;
        size_t n = end ? (size_t)(end - start) : strlen(start);
        char line[512];
        if (n >= sizeof line)
            n = sizeof line - 1;
        memcpy(line, start, n);
        line[n] = 0;
        char *names = strstr(line, "the stages ");
        char *tail = strstr(line, " read go back");
        if (!names || !tail)
            continue;
        *tail = 0;
        if (group && !strstr(line, group))
            continue;
        /* READER as a whole name of the comma-separated list */
        for (char *r = strtok(names + strlen("the stages "), ", "); r; r = strtok(NULL, ", "))
            if (!strcmp(r, reader))
                return true;
    }
    return false;
}

/* The default ChunkScan: decay (dA_s), Pw (CB) and Pdt (dt) feed mma.y_intra of the same
 * iteration, so all three stages go back after its wait, none right after its reads. */
static void test_chunk_scan_defers_every_ring(void)
{
    if (!setup("mamba2_chunk_scan", NULL))
        return;
    char *k = generate();
    if (k) {
        CHECK_MSG(count(k, "// this warp read the stage") == 0, "%s", "a CUDA-core stage released at its read");
        for (int w = 0; w < 2; w++) {
            char s[128];
            char g[64];
            snprintf(g, sizeof g, "mma.y_intra.wg%d of iteration", w);
            snprintf(s, sizeof s, "mul.Pw.wg%d", w);
            CHECK_MSG(deferred(k, g, s), "%s not handed back with %s", s, g);
            snprintf(s, sizeof s, "exp_decay.decay.wg%d", w);
            CHECK_MSG(deferred(k, g, s), "%s not handed back with %s", s, g);
            snprintf(s, sizeof s, "mul.Pdt.wg%d", w);
            CHECK_MSG(deferred(k, g, s), "%s not handed back with %s", s, g);
        }
        /* after the group's wait, each warp once */
        const char *wait = strstr(k, "pt::wgmma_wait<0>();  // every wgmma group committed so far done");
        const char *back = strstr(k, "read go back");
        CHECK(wait && back && wait < back);
        HAS(k, "__syncwarp();\n                    if (lane == 0) {\n                        pt::mbar_arrive(&empty_");
        check_immediate_releases_fenced(k, "chunk_scan");
        free(k);
    }
    teardown();
}

/* chain-ahead: decay and Pw a step ahead of their mma; the stages are held one step more,
 * which three stages allow: still deferred. With CB's ring of one stage the deferral would
 * stall the producer for a stage the role reads before the wait: CB goes back at its read,
 * after the fence, while the other rings stay deferred. */
static void test_chain_ahead(void)
{
    if (!setup("mamba2_chunk_scan", NULL))
        return;
    bool ok = offset("exp_decay.decay.wg0", 1) && offset("mul.Pw.wg0", 1) &&
              offset("exp_decay.decay.wg1", 1) && offset("mul.Pw.wg1", 1);
    char *k = ok ? generate() : NULL;
    if (k) {
        CHECK(count(k, "// this warp read the stage") == 0);
        CHECK(deferred(k, NULL, "mul.Pw.wg0"));
        free(k);
    }
    int cb = pt_graph_find_tensor(&F.g, "CB");
    CHECK(cb >= 0);
    if (ok && cb >= 0) {
        F.p.stages[cb] = 1;
        if (pt_validate(&F.p, &F.sg, &F.hw, NULL, &F.err)) {
            k = generate();
            if (k) {
                CHECK(!deferred(k, NULL, "mul.Pw.wg0"));
                CHECK(count(k, "// this warp read the stage") >= 2);
                CHECK(deferred(k, NULL, "mul.Pdt.wg0"));
                check_immediate_releases_fenced(k, "chain-ahead, CB 1 stage");
                free(k);
            }
        } else {
            /* the validator's word on a one-stage ring under a +1 offset: then a two-stage
             * ring holding a slot one step is the tightest the deferral meets */
            F.p.stages[cb] = 2;
            CHECK_MSG(pt_validate(&F.p, &F.sg, &F.hw, NULL, &F.err), "%s", F.err.msg);
            k = generate();
            if (k) {
                CHECK(deferred(k, NULL, "mul.Pw.wg0"));
                free(k);
            }
        }
    }
    teardown();
}

/* ChunkState: its A operand is made from x, dt and dA_s on the CUDA cores (deferred), and
 * dA_last is one scalar per tile held in a register (fenced). The grouped forms alike. */
static void test_other_ssd_kernels(void)
{
    static const char *ex[] = {"mamba2_chunk_state", "mamba2_chunk_state_grouped", "mamba2_chunk_scan_grouped"};
    for (int i = 0; i < 3; i++) {
        if (!setup(ex[i], NULL))
            continue;
        char *k = generate();
        if (k) {
            CHECK_MSG(count(k, "read go back") > 0, "%s: no stage handed back with its group", ex[i]);
            check_immediate_releases_fenced(k, ex[i]);
            free(k);
        }
        teardown();
    }
}

/* The low-bit GEMM whose warps dequantise their own rows of B into wgmma's A fragments (the
 * swapped, small-M form): each warp's loads of Wq's and the scales' stages are fenced before the
 * warp hands both stages back (int4 and fp4; the "fragments" packing shares this code,
 * emit_rows_group in codegen/sm90a/gemm_dequant.c). */
static void test_dequant_rows(void)
{
    static const char *ex[] = {"gemm_w4a16", "gemm_wfp4a16"};
    for (int i = 0; i < 2; i++) {
        pt_codegen_result out;
        pt_error e = {0};
        bool ok = pt_test_sm90a_generate(ex[i], "M=1,N=4096,K=4096", "m=8,n=64,k=256,wg=1,wg_axis=n", &out, &e);
        CHECK_MSG(ok, "%s: %s", ex[i], e.msg);
        if (!ok)
            continue;
        const char *k = out.kernel_cu;
        const char *read = strstr(k, "// this warp has read its rows of both stages");
        CHECK_MSG(read && strstr(read, "pt::mbar_arrive(&empty_bq[sq]);"), "%s: no per-warp release of Wq's stage", ex[i]);
        check_immediate_releases_fenced(k, ex[i]);
        pt_codegen_result_free(&out);
    }
}

/* Move sTask `id` to position `pos` of its lane, keeping its offset. */
static bool move_to(const char *id, int pos)
{
    int s = pt_stask_find(&F.sg, id), lane = -1, at = -1;
    bool ok = s >= 0 && pt_sprogram_placement(&F.p, s, &lane, &at);
    int off = ok ? F.p.lanes[lane].entries[at].offset : 0;
    ok = ok && pt_append(&F.p, &F.sg, s, lane, pos, off, &F.err);
    CHECK_MSG(ok, "%s to position %d: %s", id, pos, F.err.msg);
    return ok;
}

/* The end of sTask s's instance of iteration i in tl, or -1. */
static double span_end(const pt_timeline *tl, int s, int64_t i)
{
    for (int64_t k = 0; k < tl->n_spans; k++)
        if (tl->spans[k].stask == s && tl->spans[k].iter == i)
            return tl->spans[k].end_ns;
    return -1;
}

/* A deferral that closes a cycle (gen_random_sprogram mamba2_chunk_scan seed 28; variant
 * ssd_scan_defer_cycle): CB loaded an iteration ahead into two stages, warpgroup 1's decay,
 * Pw and Pdt an iteration ahead of its mma. Handed back with mma.y_intra.wg1, CB's stage of
 * iteration i would wait for Pdt of i + 1, hence for dt of i + 1, which the producer loads
 * after CB of i + 2 — into that very stage: session 47's generator wrote this kernel and it
 * hangs (on the CPU emulator). The contract must see the cycle and hand the stages back behind
 * fences instead; with a third stage of CB the deferral is taken, and the simulator then holds
 * CB's stage until the group completes. */
static void test_deferral_that_would_cycle(void)
{
    if (!setup("mamba2_chunk_scan", "B=1,S=768,H=4"))
        return;
    int cb = pt_graph_find_tensor(&F.g, "CB");
    bool ok = cb >= 0 && offset("load.CB", 1) && offset("exp_decay.decay.wg0", 1) &&
              offset("mul.Pw.wg0", 1) && offset("exp_decay.decay.wg1", 1) &&
              offset("mul.Pw.wg1", 1) && offset("mul.Pdt.wg1", 1) && move_to("mul.Pdt.wg0", 2);
    if (!ok) {
        teardown();
        return;
    }
    F.p.stages[cb] = 2;
    pt_stage_hold h;
    pt_stage_hold_decide(&F.p, &F.sg, &h);
    CHECK(h.progress);
    CHECK_MSG(!h.defer_reads, "%s", "the contract defers the CUDA-core releases into a cycle");
    pt_stage_hold forced = h;
    forced.defer_reads = true;
    char msg[512];
    CHECK(!pt_validate_ring_progress(&F.p, &F.sg, F.p.stages, &forced, msg, sizeof msg));
    CHECK_CONTAINS(msg, "load.CB");
    CHECK_MSG(pt_validate(&F.p, &F.sg, &F.hw, NULL, &F.err), "%s", F.err.msg);
    char *k = generate();
    if (k) {
        CHECK_MSG(count(k, "read go back") == 0, "%s", "a stage handed back with its group");
        CHECK(count(k, "// this warp read the stage") > 0);
        check_immediate_releases_fenced(k, "the deferral that would cycle");
        free(k);
    }
    /* a third stage: deferred, and timed so */
    F.p.stages[cb] = 3;
    pt_stage_hold_decide(&F.p, &F.sg, &h);
    CHECK(h.progress && h.defer_reads);
    int pw = pt_stask_find(&F.sg, "mul.Pw.wg1"), mma = pt_stask_find(&F.sg, "mma.y_intra.wg1");
    CHECK(pt_stage_release_group(&F.p, &F.sg, &h, &F.hw, pw) == mma);
    k = generate();
    if (k) {
        CHECK(deferred(k, "mma.y_intra.wg1 of iteration", "mul.Pw.wg1"));
        free(k);
    }
    pt_timeline tl = {0};
    CHECK_MSG(pt_simulate(&F.p, &F.sg, &F.hw, &tl, &F.err), "%s", F.err.msg);
    int load = pt_stask_find(&F.sg, "load.CB"), checked = 0;
    for (int64_t k2 = 0; k2 < tl.n_spans; k2++) {
        const pt_span *sp = &tl.spans[k2];
        if (sp->stask != load || sp->iter < 3)
            continue;
        double held = span_end(&tl, mma, sp->iter - 3);
        CHECK_MSG(held >= 0 && sp->start_ns >= held - 1e-6,
                  "load.CB[%lld] starts at %.1f ns, before mma.y_intra.wg1[%lld] hands its stage "
                  "back at %.1f ns", (long long)sp->iter, sp->start_ns, (long long)sp->iter - 3, held);
        checked++;
    }
    CHECK(checked > 0);
    pt_timeline_free(&tl);
    teardown();
}

int main(void)
{
    PTEST_RUN(test_dequant_rows);
    PTEST_RUN(test_chunk_scan_defers_every_ring);
    PTEST_RUN(test_chain_ahead);
    PTEST_RUN(test_other_ssd_kernels);
    PTEST_RUN(test_deferral_that_would_cycle);
    PTEST_END();
}
