/* test_tail_wave.c — a last, partial wave of one-CTA-per-SM tiles (src/waves.c tail_wave_time):
 * its CTAs share the L2 fewer ways and load faster than a full wave's, but no faster than their
 * share of the DRAM floor; a grid of whole waves, or a model without l2_sm_gbps, is unchanged;
 * and the model a grid of few CTAs is simulated with (few_ctas_model). */
#include "ptest.h"
#include "ptest_example.h"
#include "sim.h"
#include "waves.h"

static double kernel_ns(const char *set, const char *tile, const pt_hw *hw, int64_t *tiles)
{
    pt_graph g;
    pt_stask_graph sg;
    pt_sprogram p;
    pt_error err;
    pt_timeline tl;
    double t = -1;
    if (!part(&g, &sg, "gemm_bf16", set, tile))
        return t;
    *tiles = sg.tiles;
    CHECK_MSG(pt_sprogram_default(&p, &sg, hw, &err), "%s", err.msg);
    p.partition.persistent = false;
    for (int i = 0; i < PT_MAX_TENSORS; i++) /* round 133's rings: 6 stages */
        if (p.stages[i] > 0)
            p.stages[i] = 6;
    if (pt_simulate(&p, &sg, hw, &tl, &err)) {
        t = tl.kernel_time_ns;
        pt_timeline_free(&tl);
    } else
        CHECK_MSG(false, "%s", err.msg);
    pt_sprogram_free(&p);
    pt_stask_graph_free(&sg);
    return t;
}

/* 160 tiles of n 64 (M = 64, N = 10240): one full wave and 28 CTAs, which load faster. */
static void small_tail(void)
{
    pt_hw on, off;
    pt_error err;
    int64_t tiles = 0;
    CHECK(pt_hw_load(&on, "H200", &err));
    off = on;
    off.l2_sm_bytes_per_ns = 0; /* no L2 share: every wave at the full wave's rate */
    double a = kernel_ns("M=64,N=10240,K=8192", "m=64,n=64,k=128,wg=1", &on, &tiles);
    double b = kernel_ns("M=64,N=10240,K=8192", "m=64,n=64,k=128,wg=1", &off, &tiles);
    CHECK(tiles == 160);
    CHECK_MSG(a > 0 && a < 0.9 * b, "%g vs %g ns", a, b);
}

/* 128 tiles (N = 8192): one partial wave and nothing before it, timed as before (the share of
 * a grid under one wave is the tile's own model). */
static void one_wave(void)
{
    pt_hw on, off;
    pt_error err;
    int64_t tiles = 0;
    CHECK(pt_hw_load(&on, "H200", &err));
    off = on;
    double a = kernel_ns("M=64,N=8192,K=8192", "m=64,n=64,k=128,wg=1", &on, &tiles);
    double b = kernel_ns("M=64,N=8192,K=8192", "m=64,n=64,k=128,wg=1", &off, &tiles);
    CHECK(tiles == 128);
    CHECK_NEAR(a, b, 1e-9);
}

/* The model a grid of few CTAs is simulated with (pt_waves_few_ctas): loads at the chip's L2
 * rate shared by those CTAs, up to one SM's L2 port, stores at their calibrated rate; the
 * power-capped clock drop scaled by the share of SMs busy; a full grid keeps the model. */
static void few_ctas_model(void)
{
    pt_hw hw, local;
    pt_error err;
    CHECK(pt_hw_load(&hw, "H200", &err));
    CHECK(pt_waves_few_ctas(&hw, hw.eu_count, &local) == &hw);
    const pt_hw *m = pt_waves_few_ctas(&hw, 16, &local);
    CHECK(m == &local);
    CHECK_NEAR(m->cuda_core_power, hw.cuda_core_power * 16 / hw.eu_count, 1e-12);
    CHECK(m->cost[PT_ST_STORE][PT_F32].rate == hw.cost[PT_ST_STORE][PT_F32].rate);
    CHECK_NEAR(m->cost[PT_ST_LOAD][PT_F16].rate, hw.l2_sm_bytes_per_ns, 1e-9);
    /* a model without l2_sm_gbps still has its clock drop scaled */
    hw.l2_sm_bytes_per_ns = 0;
    m = pt_waves_few_ctas(&hw, 66, &local);
    CHECK(m == &local && m->cost[PT_ST_LOAD][PT_F16].rate == hw.cost[PT_ST_LOAD][PT_F16].rate);
    CHECK_NEAR(m->cuda_core_power, hw.cuda_core_power / 2, 1e-12);
}

/* However fast the L2 gives the tail its bytes, the tail's CTAs take at least their share of
 * the DRAM floor (224 tiles of n 256 over N = 57344: 92 in the tail). */
static void dram_bound_tail(void)
{
    pt_graph g;
    pt_stask_graph sg;
    pt_sprogram p;
    pt_hw h;
    pt_error err;
    CHECK(pt_hw_load(&h, "H200", &err));
    h.l2_bytes_per_ns = 1e7;
    h.l2_sm_bytes_per_ns = 1e6;
    if (!part(&g, &sg, "gemm_bf16", "M=64,N=57344,K=8192", "m=64,n=256,k=64,wg=1"))
        return;
    CHECK(sg.tiles == 224);
    CHECK_MSG(pt_sprogram_default(&p, &sg, &h, &err), "%s", err.msg);
    double share = pt_waves_dram_floor_ns(&sg, &h) * 92.0 / 224.0, t = 1e12;
    CHECK_MSG(pt_waves_tail_time(&p, &sg, &h, 92, &t, &err), "%s", err.msg);
    CHECK_MSG(t >= share - 1e-6 && t < 1e12, "%g ns against a DRAM share of %g", t, share);
    /* a small tail of a small grid is L2-bound: faster than the full wave's tile */
    double full = 1e12;
    CHECK_MSG(pt_waves_tail_time(&p, &sg, &h, 4, &full, &err), "%s", err.msg);
    CHECK(full < t);
    pt_sprogram_free(&p);
    pt_stask_graph_free(&sg);
}

int main(void)
{
    PTEST_RUN(small_tail);
    PTEST_RUN(one_wave);
    PTEST_RUN(dram_bound_tail);
    PTEST_RUN(few_ctas_model);
    PTEST_END();
}
