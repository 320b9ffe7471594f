/* test_streamk.c — stream-K (partition.stream_k, src/streamk.h): the work partition covers
 * every (tile, k-iteration) exactly once for random shapes and grids, with the shares the
 * generated kernel's fix-up relies on (consecutive CTAs, at most two partial segments a CTA,
 * the workspace slot a fixer computes for each other CTA); the validator's and the file
 * loader's refusals; and the simulator's charge on the shipped GEMM (fix-ups and workspace
 * traffic where tiles are shared, none where the grid divides the tiles). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "embedded.h"
#include "propagate.h"
#include "ptest.h"
#include "sim.h"
#include "streamk.h"
#include "validate.h"
#include "waves.h"

/* ---- the partition ---------------------------------------------------------------------- */

static uint64_t rng = 88172645463325252ULL;
static int64_t uni(int64_t lo, int64_t hi)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return lo + (int64_t)(rng % (uint64_t)(hi - lo + 1));
}

/* Every pair once, each shared tile's CTAs consecutive and agreeing, slots as the kernel reads
 * them. */
static void check_partition(int64_t T, int64_t I, int64_t G)
{
    pt_stream_k s;
    CHECK(pt_stream_k_init(&s, T, I, G));
    CHECK_MSG(s.grid >= 1 && s.grid <= G && s.dp_tiles + s.sk_tiles == T && s.sk_tiles < G,
              "T %lld I %lld G %lld: grid %lld", (long long)T, (long long)I, (long long)G,
              (long long)s.grid);
    unsigned char *seen = calloc((size_t)(T * I), 1);
    int *owner = calloc((size_t)T, sizeof(int)), *parts = calloc((size_t)T, sizeof(int));
    int *count = calloc((size_t)T, sizeof(int));
    if (!seen || !owner || !parts || !count)
        abort();
    for (int64_t g = 0; g < s.grid; g++) {
        int64_t n = pt_stream_k_segments(&s, g), partial = 0;
        CHECK_MSG(n >= 1, "T %lld I %lld G %lld: CTA %lld has no work", (long long)T,
                  (long long)I, (long long)G, (long long)g);
        for (int64_t w = 0; w < n; w++) {
            pt_sk_segment seg;
            pt_stream_k_segment(&s, g, w, &seg);
            CHECK(seg.tile >= 0 && seg.tile < T && seg.iters >= 1 &&
                  seg.first_iter + seg.iters <= I);
            if (seg.tile < 0 || seg.tile >= T)
                continue;
            for (int64_t k = seg.first_iter; k < seg.first_iter + seg.iters; k++)
                seen[seg.tile * I + k]++;
            CHECK(g >= seg.first_cta && g < seg.first_cta + seg.parts);
            CHECK((seg.parts == 1) == (seg.iters == I));
            if (count[seg.tile]++ == 0) {
                owner[seg.tile] = (int)seg.first_cta;
                parts[seg.tile] = seg.parts;
            }
            CHECK(owner[seg.tile] == seg.first_cta && parts[seg.tile] == seg.parts);
            if (seg.parts > 1) {
                partial++;
                /* the slot the fixer computes for this CTA */
                int64_t lo = pt_stream_k_lo(&s, g);
                CHECK(seg.slot == (lo / I == seg.sk ? 0 : 1));
                CHECK(seg.sk == seg.tile - s.dp_tiles);
            }
        }
        CHECK_MSG(partial <= 2 && n <= s.dp_per_cta + 2, "CTA %lld: %lld partial of %lld",
                  (long long)g, (long long)partial, (long long)n);
    }
    for (int64_t i = 0; i < T * I; i++)
        CHECK_MSG(seen[i] == 1, "T %lld I %lld G %lld: tile %lld iteration %lld run %d times",
                  (long long)T, (long long)I, (long long)G, (long long)(i / I),
                  (long long)(i % I), seen[i]);
    for (int64_t t = 0; t < T; t++)
        CHECK(count[t] == parts[t]);
    free(seen);
    free(owner);
    free(parts);
    free(count);
}

static void test_partition(void)
{
    check_partition(96, 64, 132);  /* 257 x 4096 x 4096 in 128 x 128 tiles */
    check_partition(48, 64, 132);  /* 128 x 6144 x 4096 */
    check_partition(1, 1, 132);    /* 7 x 13 x 17: one tile, one iteration */
    check_partition(1, 3, 132);    /* fewer iterations than CTAs */
    check_partition(264, 5, 132);  /* whole waves: no stream-K tile */
    check_partition(300, 67, 132); /* prime K iterations, DP then a remainder */
    for (int n = 0; n < 400; n++)
        check_partition(uni(1, 600), uni(1, 130), uni(2, 140));
    pt_stream_k s;
    CHECK(!pt_stream_k_init(&s, 0, 4, 8) && !pt_stream_k_init(&s, 4, 0, 8) &&
          !pt_stream_k_init(&s, 4, 4, 0));
    /* 96 tiles x 64 iterations over 132: 46 or 47 iterations a CTA */
    CHECK(pt_stream_k_init(&s, 96, 64, 132));
    CHECK(s.grid == 132 && s.sk_ctas == 132 && s.dp_per_cta == 0 && s.sk_iters == 6144);
    CHECK(pt_stream_k_lo(&s, 1) == 46 && pt_stream_k_lo(&s, 132) == 6144);
    CHECK(pt_stream_k_ws_tiles(&s) == 264);
}

/* ---- the shipped GEMM ------------------------------------------------------------------- */

typedef struct {
    pt_graph g;
    pt_hw hw;
    pt_stask_graph sg;
    pt_sprogram p;
    bool ok;
} gemm;

static void gemm_load(gemm *x, const char *graph, const char *set, const char *tile, int G)
{
    pt_error e = {""};
    memset(x, 0, sizeof *x);
    const char *t = pt_embedded_find(pt_embedded_examples, graph);
    pt_tiling tl;
    x->ok = t && pt_graph_load_text(&x->g, graph, t, strlen(t), set, &e) &&
            pt_hw_load(&x->hw, "H200", &e);
    if (x->ok) {
        pt_tiling_defaults(&x->g, &tl);
        x->ok = (!tile || pt_tiling_parse(&x->g, tile, "tile", &tl, &e)) &&
                pt_partition(&x->sg, &x->g, &tl, &e) &&
                pt_sprogram_default(&x->p, &x->sg, &x->hw, &e);
    }
    CHECK_MSG(x->ok, "%s", e.msg);
    if (x->ok) {
        x->p.partition.stream_k = G;
        x->p.partition.persistent = G > 0 || x->p.partition.persistent;
    }
}

static void gemm_free(gemm *x)
{
    if (!x->ok)
        return;
    pt_sprogram_free(&x->p);
    pt_stask_graph_free(&x->sg);
}

static bool gemm_sim(gemm *x, pt_timeline *tl)
{
    pt_error e = {""};
    memset(tl, 0, sizeof *tl);
    bool ok = x->ok && pt_validate(&x->p, &x->sg, &x->hw, NULL, &e) &&
              pt_simulate(&x->p, &x->sg, &x->hw, tl, &e);
    CHECK_MSG(ok, "%s", e.msg);
    return ok;
}

static void test_simulate(void)
{
    const char *set = "M=257,N=4096,K=4096", *tile = "m=128,n=128,k=64,wg=1";
    gemm x, y;
    pt_timeline sk, dp;
    gemm_load(&x, "gemm_f16", set, tile, 132);
    gemm_load(&y, "gemm_f16", set, tile, 0);
    if (gemm_sim(&x, &sk) && gemm_sim(&y, &dp)) {
        fprintf(stderr, "257x4096x4096 on H200: tiles %.2f us, stream-K 132 %.2f us\n",
                dp.kernel_time_ns / 1e3, sk.kernel_time_ns / 1e3);
        CHECK(sk.stream_k == 132 && sk.grid == 132 && sk.tiles == 96 && sk.split_k == 1);
        /* 96 x 64 iterations over 132 CTAs: every tile shared by 2 or 3 CTAs */
        CHECK(sk.work_items > 132 && sk.n_chunks >= 2 && sk.n_chunks <= 3);
        int last = 0;
        for (int c = 0; c < sk.n_chunks; c++)
            last += sk.chunks[c].last;
        CHECK(last == 1);
        /* each tile's fix-up reads (parts - 1) partial tiles of 128 x 128 f32, written once */
        CHECK_MSG(sk.workspace_bytes >= 2.0 * 96 * 128 * 128 * 4, "%g", sk.workspace_bytes);
        /* the representative EU is that fix-up: a CTA's share, not a whole loop */
        CHECK(sk.eu_iterations < 64);
        CHECK(sk.kernel_time_ns > 0 && sk.kernel_time_ns < 2 * dp.kernel_time_ns);
        /* the fix-up's chunk simulated alone ends later than a partial one of its length */
        pt_error e = {""};
        for (int c = 0; c < sk.n_chunks; c++) {
            pt_timeline ck;
            CHECK_MSG(pt_simulate_split_k_chunk(&x.p, &x.sg, &x.hw, &sk, c, &ck, &e), "%s",
                      e.msg);
            CHECK(ck.eu_iterations == sk.chunks[c].iters);
            pt_timeline_free(&ck);
        }
        pt_timeline_free(&sk);
        pt_timeline_free(&dp);
    }
    gemm_free(&x);
    gemm_free(&y);
    /* 96 tiles on a grid of 96 (and 48): whole waves, no tile shared, no workspace */
    gemm_load(&x, "gemm_f16", set, tile, 48);
    if (gemm_sim(&x, &sk)) {
        CHECK(sk.workspace_bytes == 0 && sk.n_chunks == 0 && sk.grid == 48 &&
              sk.work_items == 96 && sk.eu_iterations == 64);
        pt_timeline_free(&sk);
    }
    gemm_free(&x);
    /* a grid that leaves one iteration a CTA: 7 x 13 x 17 is one tile of one iteration */
    gemm_load(&x, "gemm_f16", "M=7,N=13,K=17", "m=64,n=128,k=64,wg=1", 132);
    if (gemm_sim(&x, &sk)) {
        CHECK(sk.grid == 1 && sk.work_items == 1 && sk.workspace_bytes == 0);
        pt_timeline_free(&sk);
    }
    gemm_free(&x);
}

/* The stream-K tiles fetch the panels of a tensor the L2 cannot hold from HBM each (their CTAs
 * stand at unrelated k): 1024 x 8192 x 28672 with 128 x 256 tiles (256 tiles: 132 whole, 124
 * streamed) is bound by that after its data-parallel wave, where the same tiles in a grouped
 * raster are not; 257 x 2048 x 2048 (A and B fit in the L2) gets no such term. */
static void test_hbm_floor(void)
{
    const char *set = "M=1024,N=8192,K=28672", *tile = "m=128,n=256,k=64,wg=2";
    gemm x, y;
    pt_timeline sk, dp;
    gemm_load(&x, "gemm_f16", set, tile, 132);
    gemm_load(&y, "gemm_f16", set, tile, 0);
    if (x.ok && y.ok) {
        y.p.partition.persistent = true;
        y.p.partition.raster = PT_RASTER_GROUPED;
    }
    if (gemm_sim(&x, &sk) && gemm_sim(&y, &dp)) {
        /* 124 tiles x (128 + 256) rows x 28672 x 2 bytes on top of every tensor once */
        double panels = 124.0 * (128 + 256) * 28672 * 2;
        fprintf(stderr, "1024x8192x28672: grouped %.1f us, stream-K %.1f us (floor %.1f us)\n",
                dp.kernel_time_ns / 1e3, sk.kernel_time_ns / 1e3, sk.dram_floor_ns / 1e3);
        CHECK_MSG(fabs(sk.dram_bytes - dp.dram_bytes - panels) < 1e6, "%g %g", sk.dram_bytes,
                  dp.dram_bytes);
        CHECK(sk.dram_floor_ns > panels / x.hw.hbm_bytes_per_ns);
        CHECK(sk.kernel_time_ns >= sk.dram_floor_ns);
        CHECK(sk.kernel_time_ns > dp.kernel_time_ns);
        pt_timeline_free(&sk);
        pt_timeline_free(&dp);
    }
    gemm_free(&x);
    gemm_free(&y);
    gemm_load(&x, "gemm_f16", "M=257,N=2048,K=2048", "m=128,n=128,k=64,wg=1", 132);
    if (gemm_sim(&x, &sk)) {
        CHECK(sk.stream_k == 132 && sk.dram_bytes == pt_waves_dram_bytes(&x.sg));
        pt_timeline_free(&sk);
    }
    gemm_free(&x);
}

/* ---- validation and files --------------------------------------------------------------- */

static void test_validate(void)
{
    gemm x;
    pt_error e = {""};
    gemm_load(&x, "gemm_f16", "M=128,N=6144,K=4096", "m=128,n=128,k=64,wg=1", 132);
    if (x.ok) {
        CHECK_MSG(pt_validate(&x.p, &x.sg, &x.hw, NULL, &e), "%s", e.msg);
        x.p.partition.split_k = 2;
        CHECK(!pt_validate(&x.p, &x.sg, &x.hw, NULL, &e));
        CHECK_CONTAINS(e.msg, "$.partition.stream_k");
        CHECK_CONTAINS(e.msg, "split_k");
        x.p.partition.split_k = 1;
        x.p.partition.persistent = false;
        CHECK(!pt_validate(&x.p, &x.sg, &x.hw, NULL, &e));
        CHECK_CONTAINS(e.msg, "persistent");
        x.p.partition.persistent = true;
        x.p.partition.stream_k = 200;
        CHECK(!pt_validate(&x.p, &x.sg, &x.hw, NULL, &e));
        CHECK_CONTAINS(e.msg, "132 EUs");
        /* written only when on; read back; bad values named with file and field */
        x.p.partition.stream_k = 0;
        char *text = pt_sprogram_to_json(&x.p, &x.sg);
        CHECK(text && !strstr(text, "stream_k"));
        free(text);
        x.p.partition.stream_k = 120;
        text = pt_sprogram_to_json(&x.p, &x.sg);
        CHECK(text && strstr(text, "\"stream_k\": 120"));
        pt_sprogram q;
        pt_stask_graph sg2;
        if (text && pt_sprogram_load_text(&q, &sg2, &x.g, "p.json", text, strlen(text), &e)) {
            CHECK(q.partition.stream_k == 120);
            pt_sprogram_free(&q);
            pt_stask_graph_free(&sg2);
        } else
            CHECK_MSG(0, "%s", e.msg);
        /* each as long as the text it replaces */
        static const char *const bad[] = {"\"stream_k\": 1  ", "\"stream_k\": -5 ",
                                          "\"stream_k\":2000", "\"stream_k\":\"ab\""};
        char *at = text ? strstr(text, "\"stream_k\": 120") : NULL;
        for (int b = 0; at && b < 4; b++) {
            memcpy(at, bad[b], strlen(bad[b]));
            CHECK(!pt_sprogram_load_text(&q, &sg2, &x.g, "p.json", text, strlen(text), &e));
            CHECK_CONTAINS(e.msg, "p.json: $.partition.stream_k");
        }
        free(text);
    }
    gemm_free(&x);
    /* attention's loop carries a running max: partial sums cannot be added up */
    gemm_load(&x, "flash_attention", NULL, NULL, 100);
    if (x.ok) {
        CHECK(!pt_validate(&x.p, &x.sg, &x.hw, NULL, &e));
        CHECK_CONTAINS(e.msg, "$.partition.stream_k");
        CHECK_CONTAINS(e.msg, "softmax_max");
    }
    gemm_free(&x);
}

int main(void)
{
    PTEST_RUN(test_partition);
    PTEST_RUN(test_simulate);
    PTEST_RUN(test_hbm_floor);
    PTEST_RUN(test_validate);
    PTEST_END();
}
