/* test_lds_read.c — the LDS operand reads of an mma (src/lds_read.h): the bytes a role's waves
 * read for GEMM (both operand layouts) and attention (Q and P in registers, V^T gathered), the
 * rate from the MI300X model, none on H100 / H200 or for other sTasks, and the simulator: a
 * program simulated with the term is never faster than without it, and FlashAttention is
 * slower (its mmas read K and V from LDS). */
#include <string.h>

#include "ptest.h"
#include "ptest_example.h"
#include "embedded.h"
#include "lds_read.h"
#include "propagate.h"
#include "sim.h"

/* 128x256x32 tiles, 2 roles (64 rows each), 2 waves a role splitting the 256 columns: A's 64x32
 * rows are read by both waves, B's 256x32 once; B stored K x N is gathered (4-byte slots). */
static void gemm_bytes(void)
{
    pt_hw mi, h200;
    pt_error err;
    CHECK(pt_hw_load(&mi, "MI300X", &err) && pt_hw_load(&h200, "H200", &err));
    CHECK_NEAR(mi.lds_read_bytes_per_clk, 128, 1e-12);
    CHECK(h200.lds_read_bytes_per_clk == 0);
    static const struct {
        const char *graph;
        double b_bytes;
    } cases[] = {{"gemm_bf16", 256.0 * 32 * 2}, {"gemm_f16", 256.0 * 32 * 4}};
    for (int i = 0; i < 2; i++) {
        pt_graph g;
        pt_stask_graph sg;
        if (!part(&g, &sg, cases[i].graph, "M=8192,N=8192,K=8192", "m=128,n=256,k=32,wg=2"))
            continue;
        int mma = task_index(&sg, "mma.C.wg1");
        double want = 64.0 * 32 * 2 * 2 + cases[i].b_bytes;
        CHECK_NEAR(pt_lds_read_bytes(&sg, mma, &mi), want, 1e-9);
        CHECK_NEAR(pt_lds_read_ns(&sg, mma, &mi), want / (128 * 2.1), 1e-9);
        CHECK(pt_lds_read_bytes(&sg, mma, &h200) == 0);
        CHECK(pt_lds_read_ns(&sg, task_index(&sg, "load.A"), &mi) == 0);
        CHECK(pt_lds_read_ns(&sg, task_index(&sg, "convert.C.wg0"), &mi) == 0);
        pt_stask_graph_free(&sg);
    }
}

/* FA d128, 128x32 tile, 2 roles: the waves split the query rows of Q (mma S) and P (mma O), both
 * in registers; each wave reads the whole 32x128 K block, and V's block gathered (its contracted
 * key axis is not innermost). */
static void attention_bytes(void)
{
    pt_hw mi;
    pt_error err;
    pt_graph g;
    pt_stask_graph sg;
    CHECK(pt_hw_load(&mi, "MI300X", &err));
    if (!part(&g, &sg, "flash_attention_bf16", "B=2,H=16,S=8192,D=128", "m=128,n=32,wg=2"))
        return;
    CHECK_NEAR(pt_lds_read_bytes(&sg, task_index(&sg, "mma.S.wg0"), &mi), 32.0 * 128 * 2 * 2, 1e-9);
    CHECK_NEAR(pt_lds_read_bytes(&sg, task_index(&sg, "mma.O.wg1"), &mi), 32.0 * 128 * 4 * 2, 1e-9);
    CHECK(pt_lds_read_bytes(&sg, task_index(&sg, "softmax_exp.P.wg0"), &mi) == 0);
    pt_stask_graph_free(&sg);
}

static double kernel_ns(const char *ex, const char *set, const char *tile, const pt_hw *hw)
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
            ns = tl.kernel_time_ns;
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
    pt_hw mi, off;
    pt_error err;
    CHECK(pt_hw_load(&mi, "MI300X", &err));
    off = mi;
    off.lds_read_bytes_per_clk = 0;
    double fa_on = kernel_ns("flash_attention_bf16", "B=2,H=16,S=8192,D=128", "m=128,n=32,wg=2", &mi);
    double fa_off = kernel_ns("flash_attention_bf16", "B=2,H=16,S=8192,D=128", "m=128,n=32,wg=2", &off);
    CHECK_MSG(fa_on > 1.02 * fa_off, "FA: %g ns with LDS reads, %g without", fa_on, fa_off);
    double g_on = kernel_ns("gemm_f16", "M=2048,N=2048,K=2048", "m=128,n=128,k=32,wg=2", &mi);
    double g_off = kernel_ns("gemm_f16", "M=2048,N=2048,K=2048", "m=128,n=128,k=32,wg=2", &off);
    CHECK_MSG(g_on >= g_off, "GEMM: %g ns with LDS reads, %g without", g_on, g_off);
    /* a graph without an mma is not touched */
    double c_on = kernel_ns("flash_decoding_combine", NULL, "", &mi);
    double c_off = kernel_ns("flash_decoding_combine", NULL, "", &off);
    CHECK(c_on == c_off);
}

int main(void)
{
    PTEST_RUN(gemm_bytes);
    PTEST_RUN(attention_bytes);
    PTEST_RUN(simulated);
    PTEST_END();
}
