/* test_propagate.c — Propagate and sTask-partition against hand-derived tiles and structure. */
#include "embedded.h"
#include "hw.h"
#include "propagate.h"
#include "ptest.h"
#include "sim.h"
#include "sprogram.h"

static bool load(pt_graph *g, const char *name, const char *set)
{
    pt_error e;
    const char *t = pt_embedded_find(pt_embedded_examples, name);
    bool ok = t && pt_graph_load_text(g, name, t, strlen(t), set, &e);
    CHECK_MSG(ok, "%s: %s", name, t ? e.msg : "not embedded");
    return ok;
}

static const pt_stask *find(const pt_stask_graph *sg, const char *id)
{
    int i = pt_stask_find(sg, id);
    CHECK_MSG(i >= 0, "no sTask %s", id);
    return i >= 0 ? &sg->tasks[i] : NULL;
}

static bool tile_is(const pt_stask *s, int rank, const int64_t *want)
{
    if (!s || s->rank != rank)
        return false;
    for (int i = 0; i < rank; i++)
        if (s->tile[i] != want[i])
            return false;
    return true;
}

static bool depends(const pt_stask_graph *sg, const char *to, const char *from, int dist)
{
    const pt_stask *s = find(sg, to);
    int f = pt_stask_find(sg, from);
    for (int i = 0; s && i < s->n_deps; i++)
        if (s->deps[i].from == f && s->deps[i].distance == dist)
            return true;
    return false;
}

/* GEMM: output tile BM x BN with reduction tile BK gives A: BM x BK, B: BK x BN. */
static void gemm_tiles(void)
{
    pt_graph g;
    if (!load(&g, "gemm_f16", "M=1000,N=2000,K=300"))
        return;
    pt_tiling t = {0}, p;
    pt_error e;
    t.warpgroups = 1;
    CHECK(pt_tiling_parse(&g, "m=128,n=64,k=32", "--tile", &t, &e));
    CHECK(pt_propagate(&g, &t, &p, &e));
    int64_t a[2], b[2], c[2];
    pt_tiling_tensor_tile(&g, &p, pt_graph_find_tensor(&g, "A"), a);
    pt_tiling_tensor_tile(&g, &p, pt_graph_find_tensor(&g, "B"), b);
    pt_tiling_tensor_tile(&g, &p, pt_graph_find_tensor(&g, "C"), c);
    CHECK(a[0] == 128 && a[1] == 32 && b[0] == 32 && b[1] == 64 && c[0] == 128 && c[1] == 64);

    pt_stask_graph sg;
    CHECK(pt_partition(&sg, &g, &t, &e));
    CHECK(sg.n == 5); /* load.A load.B mma.C convert.C store.C */
    CHECK(sg.iterations == 10);          /* ceil(300/32) */
    CHECK(sg.tiles == 8 * 32);           /* ceil(1000/128) * ceil(2000/64) */
    CHECK(tile_is(find(&sg, "load.A"), 2, (int64_t[]){128, 32}));
    CHECK(tile_is(find(&sg, "load.B"), 2, (int64_t[]){32, 64}));
    const pt_stask *mma = find(&sg, "mma.C");
    CHECK(mma && mma->flops == 2LL * 128 * 64 * 32 && mma->region == PT_REGION_BODY);
    CHECK(find(&sg, "load.A")->bytes == 128 * 32 * 2 && find(&sg, "load.A")->buffered);
    CHECK(depends(&sg, "mma.C", "load.A", 0) && depends(&sg, "mma.C", "mma.C", 1));
    CHECK(find(&sg, "store.C")->region == PT_REGION_EPILOGUE);
    pt_stask_graph_free(&sg);

    /* Two consumer warpgroups split M. */
    CHECK(pt_tiling_parse(&g, "wg=2", "--tile", &t, &e));
    CHECK(pt_partition(&sg, &g, &t, &e));
    CHECK(tile_is(find(&sg, "mma.C.wg1"), 2, (int64_t[]){64, 64}));
    CHECK(find(&sg, "mma.C.wg1")->wg == 1 && find(&sg, "load.A")->wg == -1);
    CHECK(depends(&sg, "store.C", "convert.C.wg0", 0) && depends(&sg, "store.C", "convert.C.wg1", 0));
    pt_stask_graph_free(&sg);

    /* The tensor-core rows on N (wg_axis: A and B swapped): the warpgroups split N, and M's
     * tile needs no multiple of 64 (the model sees tile sizes; the target checks wgmma's N). */
    CHECK(pt_tiling_parse(&g, "m=136,n=128,wg_axis=n", "--tile", &t, &e));
    CHECK(pt_partition(&sg, &g, &t, &e));
    CHECK(sg.rows_axis == pt_graph_find_axis(&g, "n") && sg.split_axis == sg.rows_axis);
    CHECK(tile_is(find(&sg, "mma.C.wg1"), 2, (int64_t[]){136, 64}));
    CHECK(sg.tiles == 8 * 16); /* ceil(1000/136) * ceil(2000/128) */
    pt_stask_graph_free(&sg);
    t.wg_axis = 0;
    CHECK(pt_tiling_parse(&g, "m=128,n=64", "--tile", &t, &e));
    CHECK(pt_partition(&sg, &g, &t, &e));
    CHECK(sg.rows_axis == pt_graph_find_axis(&g, "m"));
    pt_stask_graph_free(&sg);
    CHECK(pt_tiling_parse(&g, "wg_axis=k", "--tile", &t, &e));
    CHECK(!pt_partition(&sg, &g, &t, &e));
    CHECK_CONTAINS(e.msg, "wg_axis \"k\" is not an output axis");
    CHECK_CONTAINS(e.msg, "expected one of: m, n");
    CHECK(!pt_tiling_parse(&g, "wg_axis=q", "--tile", &t, &e));
    CHECK_CONTAINS(e.msg, "\"q\" is not an axis");
    t.wg_axis = 0;

    /* Refusals. */
    CHECK(pt_tiling_parse(&g, "m=90,wg=4", "--tile", &t, &e));
    CHECK(!pt_partition(&sg, &g, &t, &e));
    CHECK_CONTAINS(e.msg, "does not split evenly");
    CHECK(!pt_tiling_parse(&g, "z=4", "--tile", &t, &e));
    CHECK_CONTAINS(e.msg, "\"z\" is not an axis");
}

/* FlashAttention: tile BM x BN over (queries, keys): Q BM x D resident, K/V BN x D streamed,
 * S and P BM x BN, O BM x D; the softmax pieces, rescale and normalise are wired. */
static void fa_tiles(void)
{
    pt_graph g;
    if (!load(&g, "flash_attention", "S=1000,D=64"))
        return;
    pt_tiling t;
    pt_error e;
    pt_tiling_defaults(&g, &t);
    CHECK(pt_tiling_parse(&g, "m=128,n=64,wg=2", "--tile", &t, &e));
    pt_stask_graph sg;
    CHECK(pt_partition(&sg, &g, &t, &e));
    CHECK(sg.loop_axis == pt_graph_find_axis(&g, "n"));
    CHECK(sg.iterations == 16); /* ceil(1000/64) */
    CHECK(sg.tiles == 4 * 16 * 8);
    CHECK(tile_is(find(&sg, "load.Q"), 4, (int64_t[]){1, 1, 128, 64}));
    CHECK(find(&sg, "load.Q")->region == PT_REGION_PROLOGUE && !find(&sg, "load.Q")->buffered);
    CHECK(tile_is(find(&sg, "load.K"), 4, (int64_t[]){1, 1, 64, 64}));
    CHECK(tile_is(find(&sg, "mma.S.wg0"), 4, (int64_t[]){1, 1, 64, 64}));
    CHECK(tile_is(find(&sg, "mma.O.wg1"), 4, (int64_t[]){1, 1, 64, 64}));
    CHECK(tile_is(find(&sg, "store.O"), 4, (int64_t[]){1, 1, 128, 64}));
    CHECK(depends(&sg, "softmax_max.P.wg0", "mma.S.wg0", 0));
    CHECK(depends(&sg, "softmax_max.P.wg0", "softmax_max.P.wg0", 1));
    CHECK(depends(&sg, "rescale.O.wg0", "softmax_max.P.wg0", 0));
    CHECK(depends(&sg, "rescale.O.wg0", "mma.O.wg0", 1));
    CHECK(depends(&sg, "mma.O.wg0", "rescale.O.wg0", 0));
    CHECK(depends(&sg, "mma.O.wg0", "softmax_exp.P.wg0", 0));
    CHECK(depends(&sg, "normalize.O.wg0", "softmax_sum.P.wg0", 0));
    CHECK(find(&sg, "normalize.O.wg0")->region == PT_REGION_EPILOGUE);
    CHECK(sg.causal_op < 0 && pt_stask_graph_tile_iterations(&sg, 0) == 16);
    pt_stask_graph_free(&sg);

    /* Causal: the first row tile sees 2 key tiles (rows 0..127, 64 keys each). */
    CHECK(load(&g, "flash_attention", "S=1000,D=64,CAUSAL=1"));
    CHECK(pt_partition(&sg, &g, &t, &e));
    CHECK(sg.causal_op == 1);
    CHECK(pt_stask_graph_tile_iterations(&sg, 0) == 2);
    CHECK(pt_stask_graph_tile_iterations(&sg, 7) == 16); /* last row tile: rows 896..999 */
    CHECK(pt_stask_graph_tile_iterations(&sg, 8) == 2);  /* next head, first row tile */
    double full = 4.0 * 4 * 16 * 1000.0 * 1000 * 64;
    CHECK_NEAR(pt_stask_graph_total_flops(&sg), full / 2, 1);
    pt_stask_graph_free(&sg);
}

static void every_example_partitions(void)
{
    for (const pt_embedded_file *f = pt_embedded_examples; f->name; f++) {
        pt_graph g;
        if (!load(&g, f->name, NULL))
            continue;
        pt_tiling t;
        pt_error e;
        pt_stask_graph sg;
        pt_tiling_defaults(&g, &t);
        bool ok = pt_partition(&sg, &g, &t, &e);
        CHECK_MSG(ok, "%s: %s", f->name, e.msg);
        if (!ok)
            continue;
        /* every dependency points inside the graph; every sTask has a store downstream or is one */
        for (int i = 0; i < sg.n; i++)
            for (int d = 0; d < sg.tasks[i].n_deps; d++)
                CHECK(sg.tasks[i].deps[d].from >= 0 && sg.tasks[i].deps[d].from < sg.n);
        pt_stask_graph_free(&sg);
    }
}

static void low_bit_refusal(void)
{
    pt_graph g;
    pt_error e;
    CHECK(pt_graph_load_file(&g, PT_SOURCE_ROOT "/tests/corpus/matmul_int4_graph.json", NULL, &e));
    pt_tiling t;
    pt_stask_graph sg;
    pt_tiling_defaults(&g, &t);
    CHECK(!pt_partition(&sg, &g, &t, &e));
    CHECK_CONTAINS(e.msg, "expected a dequantize op");
}

/* Predicted kernel time of the default sProgram of sg on hw, or -1. */
static double predict(const pt_stask_graph *sg, const pt_hw *hw)
{
    pt_sprogram p;
    pt_timeline tl;
    pt_error e;
    double t = -1;
    if (pt_sprogram_default(&p, sg, hw, &e)) {
        if (pt_simulate(&p, sg, hw, &tl, &e)) {
            t = tl.kernel_time_ns;
            pt_timeline_free(&tl);
        }
        pt_sprogram_free(&p);
    }
    CHECK_MSG(t > 0, "%s", e.msg);
    return t;
}

/* Dequantised weights along the tensor-core rows (wg_axis n): each consumer warpgroup
 * dequantises its own rows into registers (no ring, its own CUDA-core lane, the fitted rows
 * rate); along the columns (the default) the producer writes a shared-memory ring. */
static void dequant_on_rows(void)
{
    pt_graph g;
    pt_error e;
    pt_hw hw;
    if (!load(&g, "gemm_w4a16", "M=16,N=2048,K=4096") || !pt_hw_load(&hw, "H200", &e)) {
        CHECK(!"the low-bit example and the H200 model load");
        return;
    }
    pt_tiling t;
    pt_stask_graph sg;
    pt_tiling_defaults(&g, &t);
    CHECK(pt_tiling_parse(&g, "m=16,n=128,k=128,wg=2,wg_axis=n", "--tile", &t, &e));
    if (!pt_partition(&sg, &g, &t, &e)) {
        CHECK_MSG(false, "%s", e.msg);
        return;
    }
    int d0 = pt_stask_find(&sg, "dequant.W.wg0"), d1 = pt_stask_find(&sg, "dequant.W.wg1");
    CHECK(d0 >= 0 && d1 >= 0);
    CHECK(pt_stask_dequant_rows(&sg, d1) && !pt_stask_writes_ring(&sg, d1));
    CHECK(sg.tasks[d1].tile[0] == 64 && sg.tasks[d1].wg == 1);
    pt_sprogram p;
    if (pt_sprogram_default(&p, &sg, &hw, &e)) {
        CHECK(pt_sprogram_find_lane(&p, "cuda.producer") < 0);
        CHECK(pt_sprogram_natural_lane(&p, &sg.tasks[d1]) == pt_sprogram_find_lane(&p, "cuda.wg1"));
        CHECK(p.stages[pt_graph_find_tensor(&g, "W")] == 0);
        pt_sprogram_free(&p);
    }
    /* the dequant is charged at the fitted rows rate: a slower one is a slower kernel */
    double fast = predict(&sg, &hw);
    hw.dequant_rows_rate /= 4;
    double slow = predict(&sg, &hw);
    CHECK_MSG(slow > fast * 1.2, "%.0f ns at a quarter of the rate, %.0f ns", slow, fast);
    pt_stask_graph_free(&sg);

    pt_tiling_defaults(&g, &t);
    CHECK(pt_partition(&sg, &g, &t, &e));
    int d = pt_stask_find(&sg, "dequant.W");
    CHECK(d >= 0 && !pt_stask_dequant_rows(&sg, d) && pt_stask_writes_ring(&sg, d));
    if (pt_sprogram_default(&p, &sg, &hw, &e)) {
        CHECK(pt_sprogram_natural_lane(&p, &sg.tasks[d]) == pt_sprogram_find_lane(&p, "cuda.producer"));
        CHECK(p.stages[pt_graph_find_tensor(&g, "W")] >= 2);
        pt_sprogram_free(&p);
    }
    pt_stask_graph_free(&sg);
}

/* One limit for consumer warpgroups (PT_MAX_WARPGROUPS = 7): --tile, Propagate, graph
 * defaults and sProgram files all accept 7 and refuse 8 with the same range. */
static void warpgroup_limit(void)
{
    pt_graph g;
    pt_error e = {{0}};
    if (!load(&g, "gemm_f16", NULL))
        return;
    pt_tiling t, out;
    pt_tiling_defaults(&g, &t);
    CHECK_MSG(pt_tiling_parse(&g, "wg=7", "--tile", &t, &e), "%s", e.msg);
    CHECK(t.warpgroups == 7);
    CHECK_MSG(pt_propagate(&g, &t, &out, &e), "%s", e.msg);
    CHECK(!pt_tiling_parse(&g, "wg=8", "--tile", &t, &e));
    CHECK_CONTAINS(e.msg, "expected 1 to 7 consumer warpgroups");
    t.warpgroups = 8;
    CHECK(!pt_propagate(&g, &t, &out, &e));
    CHECK_CONTAINS(e.msg, "8 consumer warpgroups; expected 1 to 7");
    const char *text = pt_embedded_find(pt_embedded_examples, "gemm_f16");
    char buf[8192];
    const char *at = strstr(text, "\"warpgroups\": 2");
    CHECK(at != NULL && strlen(text) < sizeof buf);
    if (!at || strlen(text) >= sizeof buf)
        return;
    snprintf(buf, sizeof buf, "%.*s\"warpgroups\": 7%s", (int)(at - text), text,
             at + strlen("\"warpgroups\": 2"));
    CHECK_MSG(pt_graph_load_text(&g, "g7.json", buf, strlen(buf), NULL, &e), "%s", e.msg);
    buf[at - text + strlen("\"warpgroups\": ")] = '8';
    CHECK(!pt_graph_load_text(&g, "g8.json", buf, strlen(buf), NULL, &e));
    CHECK_CONTAINS(e.msg, "g8.json: $.defaults.warpgroups: 8 is out of range; expected 1 to 7");
    /* every accepted count partitions: sTask-partition's per-warpgroup tables follow the one
     * limit (they had room for 4, and 5 to 7 wrote past them: fuzz_graph, Mamba2 with 6) */
    static const char *const graphs[] = {"gemm_f16", "flash_attention"};
    for (int i = 0; i < 2; i++) {
        pt_graph gw;
        if (!load(&gw, graphs[i], NULL))
            continue;
        for (int w = 1; w <= PT_MAX_WARPGROUPS; w++) {
            char spec[32];
            snprintf(spec, sizeof spec, "m=%d,wg=%d", 64 * w, w); /* 64 rows per warpgroup */
            pt_tiling_defaults(&gw, &t);
            pt_stask_graph sg;
            memset(&sg, 0, sizeof sg);
            CHECK_MSG(pt_tiling_parse(&gw, spec, "--tile", &t, &e) &&
                          pt_propagate(&gw, &t, &out, &e) && pt_partition(&sg, &gw, &out, &e),
                      "%s %s: %s", graphs[i], spec, e.msg);
            CHECK(sg.tiling.warpgroups == w);
            pt_stask_graph_free(&sg);
        }
    }
}

/* Tiles may exceed their axis, so their product is checked on its own: six tiles of 4096
 * (2^72 elements) used to overflow int64 in partition. */
static void tile_product_limit(void)
{
    const char *text = "{\"name\": \"r6\", \"axes\": {\"a\": 2, \"b\": 2, \"c\": 2, \"d\": 2, "
                       "\"e\": 2, \"f\": 2}, \"tensors\": {\"X\": {\"axes\": [\"a\", \"b\", \"c\", "
                       "\"d\", \"e\", \"f\"], \"dtype\": \"f16\", \"role\": \"input\"}, \"Y\": "
                       "{\"axes\": [\"a\", \"b\", \"c\", \"d\", \"e\", \"f\"], \"dtype\": \"f16\", "
                       "\"role\": \"output\"}}, \"ops\": [{\"op\": \"copy\", \"in\": [\"X\"], "
                       "\"out\": \"Y\"}]}";
    pt_graph g;
    pt_error e = {{0}};
    CHECK_MSG(pt_graph_load_text(&g, "r6.json", text, strlen(text), NULL, &e), "%s", e.msg);
    pt_tiling t, out;
    pt_tiling_defaults(&g, &t);
    CHECK(pt_tiling_parse(&g, "a=4096,b=4096,c=4096,d=4096,e=4096,f=4096", "--tile", &t, &e));
    CHECK(!pt_propagate(&g, &t, &out, &e));
    CHECK_CONTAINS(e.msg, "r6.json: tiling: the tile of tensor \"X\" has more than 2^46 elements");
    pt_stask_graph sg;
    CHECK(!pt_partition(&sg, &g, &t, &e));
}

/* Warpgroups on a batch axis (Mamba2 ChunkState's heads): each warpgroup's sTasks take one
 * head, B (no head axis) is loaded once for the CTA, the tensor-core rows stay on p. */
static void heads_split(void)
{
    pt_graph g;
    if (!load(&g, "mamba2_chunk_state", "B=1,S=1024,H=6"))
        return;
    pt_tiling t;
    pt_error e;
    pt_stask_graph sg;
    pt_tiling_defaults(&g, &t);
    CHECK(pt_tiling_parse(&g, "h=2,wg=2,wg_axis=h", "--tile", &t, &e));
    CHECK_MSG(pt_partition(&sg, &g, &t, &e), "%s", e.msg);
    int h = pt_graph_find_axis(&g, "h"), p = pt_graph_find_axis(&g, "p");
    CHECK(sg.split_axis == h && sg.rows_axis == p);
    CHECK(sg.tiles == 1 * 4 * 3); /* B x chunks x head pairs */
    const pt_stask *xs1 = find(&sg, "mul.xs.wg1"), *bm = find(&sg, "load.Bm");
    const pt_stask *x = find(&sg, "load.x"), *mma = find(&sg, "mma.states.wg1");
    CHECK(xs1 && xs1->wg == 1 && bm && bm->wg == -1 && x && x->wg == -1);
    /* x's load holds both heads; each warpgroup's product one head's 64 x 128 over l */
    CHECK(x && x->bytes == 2LL * 64 * 64 * 2);
    CHECK(mma && mma->flops == 2LL * 64 * 128 * 64);
    CHECK(depends(&sg, "mma.states.wg0", "load.Bm", 0) && depends(&sg, "mma.states.wg1", "load.Bm", 0));
    pt_stask_graph_free(&sg);
    /* three warpgroups on a tile of two heads do not split evenly */
    CHECK(pt_tiling_parse(&g, "h=2,wg=3,wg_axis=h", "--tile", &t, &e));
    CHECK(!pt_partition(&sg, &g, &t, &e));
    CHECK_CONTAINS(e.msg, "does not split evenly");
}

int main(void)
{
    PTEST_RUN(gemm_tiles);
    PTEST_RUN(fa_tiles);
    PTEST_RUN(every_example_partitions);
    PTEST_RUN(low_bit_refusal);
    PTEST_RUN(dequant_on_rows);
    PTEST_RUN(heads_split);
    PTEST_RUN(warpgroup_limit);
    PTEST_RUN(tile_product_limit);
    PTEST_END();
}
