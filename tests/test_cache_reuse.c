/* test_cache_reuse.c — the last-level-cache reuse term (src/cache_reuse.h): who re-reads a tile,
 * what a load costs on a model with `reuse_gbps` (MI300X), and that a model without it (H100,
 * H200) keeps every load at its calibrated rate; the default tiling made to fit a model
 * (src/default_tiling.h). */
#include <string.h>

#include "ptest.h"
#include "ptest_example.h"
#include "cache_reuse.h"
#include "default_tiling.h"
#include "embedded.h"
#include "propagate.h"
#include "sim.h"
#include "validate.h"

/* 8192^3 in 128 x 128 tiles: 64 CTAs read each A tile and each B tile; the 268 MB of operands
 * are a little over the 256 MB Infinity Cache. */
static void gemm_readers_and_scale(void)
{
    pt_graph g;
    pt_stask_graph sg;
    pt_hw mi, h200;
    pt_error err;
    CHECK(pt_hw_load(&mi, "MI300X", &err) && pt_hw_load(&h200, "H200", &err));
    CHECK_NEAR(mi.reuse_bytes_per_ns, 17200, 1e-9);
    CHECK(h200.reuse_bytes_per_ns == 0);
    if (!part(&g, &sg, "gemm_bf16", "M=8192,N=8192,K=8192", "m=128,n=128,k=16,wg=2"))
        return;
    const pt_stask *a = task(&sg, "load.A");
    CHECK(pt_cache_readers(&sg, a->tensor) == 64);
    CHECK(pt_cache_readers(&sg, task(&sg, "load.B")->tensor) == 64);
    CHECK(pt_cache_readers(&sg, task(&sg, "store.C")->tensor) == 1);
    double hit = (1 - 1.0 / 64) * 268435456.0 / (2 * 8192.0 * 8192 * 2);
    double rate = mi.cost[PT_ST_LOAD][PT_BF16].rate, cache = 17200.0 / 304;
    CHECK_NEAR(pt_cache_reuse_scale(&sg, a, &mi), (1 - hit) + hit * rate / cache, 1e-12);
    CHECK(pt_cache_reuse_scale(&sg, a, &h200) == 1);
    CHECK(pt_cache_reuse_scale(&sg, task(&sg, "store.C"), &mi) == 1);
    pt_stask_graph_free(&sg);
}

/* The same program simulated with and without the term: loads shorter, never longer. */
static void simulated_loads(void)
{
    pt_graph g;
    pt_stask_graph sg;
    pt_hw mi, off;
    pt_error err;
    pt_sprogram p;
    CHECK(pt_hw_load(&mi, "MI300X", &err));
    off = mi;
    off.reuse_bytes_per_ns = 0;
    if (!part(&g, &sg, "gemm_bf16", "M=4096,N=4096,K=1024", "m=128,n=128,k=32,wg=2"))
        return;
    CHECK_MSG(pt_sprogram_default(&p, &sg, &mi, &err), "%s", err.msg);
    pt_timeline on_tl, off_tl;
    CHECK_MSG(pt_simulate(&p, &sg, &mi, &on_tl, &err), "%s", err.msg);
    CHECK_MSG(pt_simulate(&p, &sg, &off, &off_tl, &err), "%s", err.msg);
    CHECK_MSG(on_tl.kernel_time_ns < 0.8 * off_tl.kernel_time_ns, "%g vs %g ns",
              on_tl.kernel_time_ns, off_tl.kernel_time_ns);
    pt_timeline_free(&on_tl);
    pt_timeline_free(&off_tl);
    pt_sprogram_free(&p);
    pt_stask_graph_free(&sg);
}

/* Every example's default tiling is valid on every builtin model; H200 keeps the graph's own. */
static void default_tiling_fits(void)
{
    const char *const *hws = pt_hw_builtin_names();
    for (const pt_embedded_file *e = pt_embedded_examples; e->name; e++)
        for (int h = 0; hws[h]; h++) {
            pt_graph g;
            pt_hw hw;
            pt_error err = {{0}};
            pt_tiling t, own;
            pt_stask_graph sg;
            pt_sprogram p;
            CHECK(pt_hw_load(&hw, hws[h], &err));
            if (!pt_graph_load_text(&g, e->name, e->text, strlen(e->text), NULL, &err)) {
                CHECK_MSG(false, "%s: %s", e->name, err.msg);
                continue;
            }
            pt_tiling_defaults_on(&g, &hw, &t);
            pt_tiling_defaults(&g, &own);
            if (strcmp(hws[h], "MI300X") != 0)
                CHECK_MSG(memcmp(&t, &own, sizeof t) == 0, "%s on %s: tiling changed", e->name,
                          hws[h]);
            bool parted = pt_partition(&sg, &g, &t, &err);
            bool ok = parted && pt_sprogram_default(&p, &sg, &hw, &err);
            if (ok) {
                CHECK_MSG(pt_validate(&p, &sg, &hw, NULL, &err), "%s on %s: %s", e->name,
                          hws[h], err.msg);
                pt_sprogram_free(&p);
            }
            CHECK_MSG(ok, "%s on %s: %s", e->name, hws[h], err.msg);
            if (parted)
                pt_stask_graph_free(&sg);
        }
}

/* A default tile of the warpgroups' rows twice its axis or more is halved with the warpgroups
 * while it covers the axis: M = 7 or 64 gets m 64 on one warpgroup, M = 65 keeps m 128 on two;
 * ChunkScan at L = 64 gets l 64 on one (the causal walk needs tiles that divide L). */
static void default_rows_fit_extent(void)
{
    static const struct {
        const char *example, *set, *axis;
        int64_t tile;
        int wgs;
    } cases[] = {
        {"gemm_f16", "M=7", "m", 64, 1},
        {"gemm_f16", "M=64", "m", 64, 1},
        {"gemm_f16", "M=65", "m", 128, 2},
        {"gemm_bf16", "M=4096", "m", 128, 2},
        {"mamba2_chunk_scan", "L=64", "l", 64, 1},
        {"mamba2_chunk_scan", "L=128", "l", 128, 2},
        {"flash_attention", "S=1", "m", 64, 1},
    };
    pt_hw hw;
    pt_error err = {{0}};
    CHECK(pt_hw_load(&hw, "H200", &err));
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pt_graph g;
        pt_tiling t;
        if (!load_example(&g, cases[i].example, cases[i].set, &err))
            continue;
        pt_tiling_defaults_on(&g, &hw, &t);
        int a = pt_graph_find_axis(&g, cases[i].axis);
        CHECK_MSG(a >= 0 && t.tile[a] == cases[i].tile && t.warpgroups == cases[i].wgs,
                  "%s %s: %s %lld on %d warpgroups", cases[i].example, cases[i].set,
                  cases[i].axis, a >= 0 ? (long long)t.tile[a] : -1LL, t.warpgroups);
    }
}

/* An axis left whole by the graph and shorter than 64 that is the innermost of a 16-bit input and
 * is read by the tensor cores (an output's, or contracted) is one 64-wide atom on the H200:
 * Mamba2's N 16 and P 32; not the combine's f32 rows (g), nor the scales' groups (kg), and not
 * on MI300X, whose layout has no atoms. */
static void default_short_axes_atoms(void)
{
    static const struct {
        const char *example, *set, *hw, *axis;
        int64_t tile; /* 0: whole */
    } cases[] = {
        {"mamba2_chunk_state", "N=16", "H200", "n", 64},
        {"mamba2_chunk_scan", "N=32", "H200", "n", 64},
        {"mamba2_chunk_scan", "P=32", "H200", "p", 64},
        {"mamba2_chunk_state", "N=128", "H200", "n", 0},
        {"flash_decoding_combine", "G=4", "H200", "g", 0},
        {"gemm_w4a16", "K=1024,G=128", "H200", "kg", 0},
        {"mamba2_chunk_state", "N=16", "MI300X", "n", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pt_graph g;
        pt_hw hw;
        pt_tiling t;
        pt_error err = {{0}};
        CHECK_MSG(pt_hw_load(&hw, cases[i].hw, &err), "%s: %s", cases[i].hw, err.msg);
        if (err.msg[0] || !load_example(&g, cases[i].example, cases[i].set, &err))
            continue;
        pt_tiling_defaults_on(&g, &hw, &t);
        int a = pt_graph_find_axis(&g, cases[i].axis);
        CHECK_MSG(a >= 0 && t.tile[a] == cases[i].tile, "%s %s on %s: %s tile %lld", cases[i].example,
                  cases[i].set, cases[i].hw, cases[i].axis, a >= 0 ? (long long)t.tile[a] : -1LL);
    }
}

int main(void)
{
    PTEST_RUN(gemm_readers_and_scale);
    PTEST_RUN(simulated_loads);
    PTEST_RUN(default_tiling_fits);
    PTEST_RUN(default_rows_fit_extent);
    PTEST_RUN(default_short_axes_atoms);
    PTEST_END();
}
