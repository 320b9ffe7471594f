/* test_tma_box.c — the rows a load's TMA box brings (src/tma_box.h): clamped boxes charge the
 * rows that exist, the edge tile of an axis the tile does not divide pays tma_oob_row_ns per
 * zero-filled row and atom, a model without the field charges whole tiles, and the wave models
 * (plain, split-K, stream-K) time a kernel by its slower edge tiles. */
#include <string.h>

#include "ptest.h"
#include "ptest_example.h"
#include "sim.h"
#include "tma_box.h"

/* M = 257 in 192-row tiles: the second tile row's A box has 65 rows and zero-fills 127. */
static void edge_rows(void)
{
    pt_graph g;
    pt_stask_graph sg;
    pt_hw h200, no_oob;
    pt_error err;
    /* no_oob: a model without the zero-filled rows' cost (the H200 with tma_oob_row_ns 0) */
    CHECK(pt_hw_load(&h200, "H200", &err) && pt_hw_load(&no_oob, "H200", &err));
    no_oob.tma_oob_row_ns = 0;
    CHECK(h200.tma_oob_row_ns > 0);
    if (!part(&g, &sg, "gemm_bf16", "M=257,N=8192,K=8192", "m=192,n=128,k=64,wg=3"))
        return;
    const pt_stask *a = task(&sg, "load.A"), *b = task(&sg, "load.B");
    CHECK(pt_box_bytes_fraction(&sg, a, &h200, false) == 1);
    CHECK_NEAR(pt_box_bytes_fraction(&sg, a, &h200, true), 65.0 / 192, 1e-12);
    CHECK_NEAR(pt_box_oob_ns(&sg, a, &h200), 127 * h200.tma_oob_row_ns, 1e-9);
    CHECK(pt_box_oob_ns(&sg, b, &h200) == 0 && pt_box_bytes_fraction(&sg, b, &h200, true) == 1);
    /* the store writes the rows that exist (the unit clips the box) and zero-fills nothing */
    const pt_stask *c = task(&sg, "store.C");
    CHECK(pt_box_oob_ns(&sg, c, &h200) == 0);
    CHECK(pt_box_bytes_fraction(&sg, c, &h200, false) == 1);
    CHECK_NEAR(pt_box_bytes_fraction(&sg, c, &h200, true), 65.0 / 192, 1e-12);
    CHECK(pt_box_oob_ns(&sg, a, &no_oob) == 0 && pt_box_bytes_fraction(&sg, a, &no_oob, true) == 1);
    uint32_t axes = pt_box_edge_axes(&sg, &h200);
    int m = pt_graph_find_axis(&g, "m");
    CHECK(axes == 1u << m);
    CHECK(pt_box_edge_axes(&sg, &no_oob) == 0);
    /* tiles row-major over (m, n): 2 x 64 */
    CHECK(!pt_box_tile_is_edge(&sg, axes, 0) && !pt_box_tile_is_edge(&sg, axes, 63));
    CHECK(pt_box_tile_is_edge(&sg, axes, 64) && pt_box_tile_is_edge(&sg, axes, 127));
    pt_stask_graph_free(&sg);
}

/* M = 1 in 64-row tiles: the box is clamped to the one row, on every tile; nothing zero-filled. */
static void clamped_rows(void)
{
    pt_graph g;
    pt_stask_graph sg;
    pt_hw h200;
    pt_error err;
    CHECK(pt_hw_load(&h200, "H200", &err));
    if (!part(&g, &sg, "gemm_f16", "M=1,N=4096,K=4096", "m=64,n=128,k=64,wg=1"))
        return;
    const pt_stask *a = task(&sg, "load.A");
    CHECK_NEAR(pt_box_bytes_fraction(&sg, a, &h200, false), 1.0 / 64, 1e-12);
    CHECK(pt_box_oob_ns(&sg, a, &h200) == 0);
    /* C's one row is all its store writes */
    CHECK_NEAR(pt_box_bytes_fraction(&sg, task(&sg, "store.C"), &h200, false), 1.0 / 64, 1e-12);
    CHECK(pt_box_edge_axes(&sg, &h200) == 0);
    pt_stask_graph_free(&sg);
}

/* f16 B is K x N: its box rows run along the loop axis and its 64-column atoms along n. N = 8192
 * in 192-column tiles: the last tile's third atom lies wholly past the end (64 rows). */
static void edge_atoms(void)
{
    pt_graph g;
    pt_stask_graph sg;
    pt_hw h200;
    pt_error err;
    CHECK(pt_hw_load(&h200, "H200", &err));
    if (!part(&g, &sg, "gemm_f16", "M=128,N=8192,K=8192", "m=128,n=192,k=64,wg=2"))
        return;
    const pt_stask *b = task(&sg, "load.B");
    CHECK_NEAR(pt_box_oob_ns(&sg, b, &h200), 64 * h200.tma_oob_row_ns, 1e-9);
    CHECK_NEAR(pt_box_bytes_fraction(&sg, b, &h200, true), 128.0 / 192, 1e-12);
    CHECK(pt_box_oob_ns(&sg, task(&sg, "load.A"), &h200) == 0);
    CHECK(pt_box_edge_axes(&sg, &h200) == 1u << pt_graph_find_axis(&g, "n"));
    pt_stask_graph_free(&sg);
}

/* The kernel of M = 257 (one full wave of 132 tiles, half of them on the edge) takes as long as
 * an edge tile: longer than without the term; the representative EU (tile 0) is the same. */
static void kernel_time(void)
{
    pt_graph g;
    pt_stask_graph sg;
    pt_hw on, off;
    pt_error err;
    pt_sprogram p;
    CHECK(pt_hw_load(&on, "H200", &err));
    on.dram_blend_p = 0; /* the kernel time below is the edge tile's, not blended with HBM */
    off = on;
    off.tma_oob_row_ns = 0;
    if (!part(&g, &sg, "gemm_bf16", "M=257,N=8448,K=8192", "m=192,n=128,k=64,wg=3"))
        return;
    CHECK(sg.tiles == on.eu_count);
    CHECK_MSG(pt_sprogram_default(&p, &sg, &on, &err), "%s", err.msg);
    pt_timeline a, b, e;
    CHECK_MSG(pt_simulate(&p, &sg, &on, &a, &err), "%s", err.msg);
    CHECK_MSG(pt_simulate(&p, &sg, &off, &b, &err), "%s", err.msg);
    CHECK_MSG(pt_simulate_item(&p, &sg, &on, sg.iterations, PT_CHUNK_WHOLE, 0, true, &e, &err),
              "%s", err.msg);
    CHECK_MSG(a.kernel_time_ns > 1.05 * b.kernel_time_ns, "%g vs %g ns", a.kernel_time_ns,
              b.kernel_time_ns);
    CHECK_NEAR(a.eu_time_ns, b.eu_time_ns, 1e-6);
    CHECK_NEAR(a.kernel_time_ns, e.eu_time_ns + on.tile_overhead_ns + on.launch_ns, 1e-6);
    pt_timeline_free(&a);
    pt_timeline_free(&b);
    pt_timeline_free(&e);
    pt_sprogram_free(&p);
    pt_stask_graph_free(&sg);
}

/* Split-K and stream-K hand out the edge tiles' work items with the edge tiles' costs too. */
static void split_and_stream_k(void)
{
    pt_graph g;
    pt_stask_graph sg;
    pt_hw on, off;
    pt_error err;
    pt_sprogram p;
    CHECK(pt_hw_load(&on, "H200", &err));
    off = on;
    off.tma_oob_row_ns = 0;
    if (!part(&g, &sg, "gemm_bf16", "M=257,N=4096,K=8192", "m=192,n=128,k=64,wg=3"))
        return;
    CHECK_MSG(pt_sprogram_default(&p, &sg, &on, &err), "%s", err.msg);
    for (int v = 0; v < 2; v++) {
        p.partition.split_k = v == 0 ? 2 : 1;
        p.partition.stream_k = v == 0 ? 0 : 132;
        p.partition.persistent = v == 1;
        pt_timeline a, b;
        CHECK_MSG(pt_simulate(&p, &sg, &on, &a, &err), "%s", err.msg);
        CHECK_MSG(pt_simulate(&p, &sg, &off, &b, &err), "%s", err.msg);
        /* (the edge tiles' stores write fewer rows, which takes back a little) */
        CHECK_MSG(a.kernel_time_ns > 1.03 * b.kernel_time_ns, "%s: %g vs %g ns",
                  v == 0 ? "split-K" : "stream-K", a.kernel_time_ns, b.kernel_time_ns);
        pt_timeline_free(&a);
        pt_timeline_free(&b);
    }
    pt_sprogram_free(&p);
    pt_stask_graph_free(&sg);
}

int main(void)
{
    PTEST_RUN(edge_rows);
    PTEST_RUN(clamped_rows);
    PTEST_RUN(edge_atoms);
    PTEST_RUN(kernel_time);
    PTEST_RUN(split_and_stream_k);
    PTEST_END();
}
