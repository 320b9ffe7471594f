/* test_simd_serve.c — tensor-core and CUDA-core work on the SIMDs of the issuing role's waves
 * (src/simd_serve.h) and a synchronous MFMA (the model's tensor_core "async": false): the wave
 * layout of the gfx942 kernels, the per-SIMD servers, the MI300X model's count, none on H100 /
 * H200, and the simulator: one role's mma runs at its SIMDs' rate, a synchronous mma holds its
 * role until it completes, and neither change makes a program faster. */
#include <string.h>

#include "ptest.h"
#include "ptest_example.h"
#include "sim.h"
#include "simd_serve.h"

static void servers(void)
{
    double free[4] = {0, 0, 0, 0}, start = -1;
    /* role 0 (waves 0, 1) and role 1 (waves 2, 3): 100 ns of CU-rate work each is 200 ns on its
     * two SIMDs, and the two roles run side by side */
    CHECK_NEAR(pt_simd_serve(free, 4, 0, 2, 0, 100, &start), 200, 1e-12);
    CHECK_NEAR(start, 0, 1e-12);
    CHECK_NEAR(pt_simd_serve(free, 4, 2, 2, 50, 100, &start), 250, 1e-12);
    CHECK_NEAR(start, 50, 1e-12);
    /* role 0 again: behind its own SIMDs' work, not behind role 1's */
    CHECK_NEAR(pt_simd_serve(free, 4, 0, 2, 10, 100, &start), 400, 1e-12);
    CHECK_NEAR(start, 200, 1e-12);
    /* every wave (the producer's share): each SIMD a quarter, after what it holds */
    CHECK_NEAR(pt_simd_serve(free, 4, 0, 4, 0, 100, &start), 500, 1e-12);
    CHECK_NEAR(start, 250, 1e-12);
    /* six waves on four SIMDs: SIMDs 0 and 1 take two shares each */
    double f6[4] = {0, 0, 0, 0};
    CHECK_NEAR(pt_simd_serve(f6, 4, 0, 6, 0, 60, &start), 80, 1e-12);
    CHECK_NEAR(f6[2], 40, 1e-12);
}

static void layout(void)
{
    pt_hw mi, h200, h100;
    pt_error err = {{0}};
    CHECK(pt_hw_load(&mi, "MI300X", &err) && pt_hw_load(&h200, "H200", &err) &&
          pt_hw_load(&h100, "H100", &err));
    CHECK(mi.simds_per_eu == 4);
    CHECK(h200.simds_per_eu == 0 && h100.simds_per_eu == 0);
    CHECK(!mi.seu[PT_SEU_TENSOR_CORE].async && h200.seu[PT_SEU_TENSOR_CORE].async);
    pt_graph g;
    pt_stask_graph sg;
    pt_sprogram p;
    if (!part(&g, &sg, "flash_attention_bf16", "B=2,H=16,S=8192,D=128", "m=128,n=32,wg=2"))
        return;
    CHECK(pt_sprogram_default(&p, &sg, &mi, &err));
    int seen = 0;
    for (int R = 0; R < p.n_roles; R++) {
        int first = -1, n = pt_simd_role_waves(&p, R, &mi, &first);
        if (p.roles[R].wg < 0) {
            CHECK(first == 0 && n == 4);
            seen |= 1;
        } else {
            CHECK(first == 2 * p.roles[R].wg && n == 2);
            seen |= 2 << p.roles[R].wg;
        }
    }
    CHECK(seen == 7);
    pt_sprogram_free(&p);
    pt_stask_graph_free(&sg);
}

/* Simulates the default program of an example; with `sync`, also checks that no lane of a role
 * issues while one of the role's mmas runs (the MFMA is synchronous). */
static double eu_ns(const char *ex, const char *set, const char *tile, const pt_hw *hw, bool sync)
{
    pt_graph g;
    pt_stask_graph sg;
    pt_sprogram p;
    pt_timeline tl;
    pt_error err = {{0}};
    double ns = -1;
    if (!part(&g, &sg, ex, set, tile))
        return ns;
    if (pt_sprogram_default(&p, &sg, hw, &err)) {
        if (pt_simulate(&p, &sg, hw, &tl, &err)) {
            ns = tl.eu_time_ns;
            int bad = 0, mmas = 0;
            for (int64_t i = 0; sync && i < tl.n_spans; i++) {
                const pt_span *a = &tl.spans[i];
                if (p.lanes[a->lane].seu != PT_SEU_TENSOR_CORE)
                    continue;
                mmas++;
                for (int64_t j = 0; j < tl.n_spans; j++) {
                    const pt_span *b = &tl.spans[j];
                    if (j != i && p.lanes[b->lane].role == p.lanes[a->lane].role &&
                        b->issue_ns > a->issue_ns && b->issue_ns < a->end_ns - 1e-9)
                        bad++;
                }
            }
            CHECK_MSG(!sync || (mmas > 0 && bad == 0), "%s: %d sTasks issued by a role while "
                      "its mma ran (%d mmas)", ex, bad, mmas);
            pt_timeline_free(&tl);
        }
        pt_sprogram_free(&p);
    }
    CHECK_MSG(ns > 0, "%s: %s", ex, err.msg);
    pt_stask_graph_free(&sg);
    return ns;
}

static void simulated(void)
{
    pt_hw mi, one, async;
    pt_error err = {{0}};
    CHECK(pt_hw_load(&mi, "MI300X", &err));
    one = mi;
    one.simds_per_eu = 0;
    async = mi;
    async.seu[PT_SEU_TENSOR_CORE].async = true;
    const char *fa = "flash_attention_bf16", *set = "B=2,H=16,S=2048,D=128", *t = "m=128,n=32,wg=2";
    /* attention: while a role runs its softmax the other's MFMAs get half the CU, not all */
    double fa_simd = eu_ns(fa, set, t, &mi, true);
    double fa_one = eu_ns(fa, set, t, &one, true);
    double fa_async = eu_ns(fa, set, t, &async, false);
    CHECK_MSG(fa_simd > 1.05 * fa_one, "FA: %g ns on SIMDs, %g on one CU server", fa_simd, fa_one);
    CHECK_MSG(fa_simd > fa_async, "FA: %g ns synchronous MFMA, %g asynchronous", fa_simd, fa_async);
    /* a GEMM whose two roles only multiply keeps the CU's four matrix cores as busy as the one
     * server did */
    const char *gset = "M=4096,N=4096,K=4096", *gt = "m=128,n=256,k=32,wg=2";
    double gs = eu_ns("gemm_bf16", gset, gt, &mi, true);
    double g1 = eu_ns("gemm_bf16", gset, gt, &one, true);
    CHECK_MSG(gs >= g1 && gs < 1.02 * g1, "GEMM: %g ns on SIMDs, %g on one server", gs, g1);
}

int main(void)
{
    PTEST_RUN(servers);
    PTEST_RUN(layout);
    PTEST_RUN(simulated);
    PTEST_END();
}
