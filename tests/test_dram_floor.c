/* test_dram_floor.c — the DRAM floor reads each tensor at the rate its loads' runs allow
 * (src/waves.h pt_waves_dram_floor_ns): a load reading fewer than 256 contiguous bytes of a row
 * per stage along the loop axis (one 128-byte swizzle atom: a k tile of 64 half-precision
 * elements) is charged at hw dram_short_run of hbm_gbps; longer runs and runs across an output
 * axis at the full rate; runs under 128 bytes (packed 4-bit weights at k 128 or 64) at
 * dram_run_halving of that again per halving; outputs at hbm_write_gbps; a model without those
 * fields charges every byte at hbm_gbps. A kernel that writes as it reads moves its bytes slower
 * when its rings hold more than dram_overfill_ns of them in flight (pt_waves_overfill_rate). */
#include <math.h>

#include "ptest.h"
#include "ptest_example.h"
#include "sim.h"
#include "waves.h"

static int tensor_index(const pt_graph *g, const char *name)
{
    int t = pt_graph_find_tensor(g, name);
    CHECK_MSG(t >= 0, "no tensor %s", name);
    return t;
}

static double tensor_bytes(const pt_graph *g, const char *name)
{
    int t = tensor_index(g, name);
    return t < 0 ? 0 : (double)pt_tensor_elems(g, &g->tensors[t]) * pt_dtype_bits(g->tensors[t].dtype) / 8;
}

/* bf16 A [m][k], B [n][k]: a k tile of 64 reads 128-byte runs, of 128 reads 256 bytes. */
static void gemm_runs(void)
{
    pt_graph g;
    pt_stask_graph sg;
    pt_hw h;
    pt_error err;
    CHECK(pt_hw_load(&h, "H200", &err));
    CHECK(h.dram_short_run > 0.9 && h.dram_short_run < 1);
    if (!part(&g, &sg, "gemm_bf16", "M=64,N=4096,K=4096", "m=64,n=128,k=64,wg=1"))
        return;
    int A = tensor_index(&g, "A"), B = tensor_index(&g, "B"), C = tensor_index(&g, "C");
    CHECK(pt_waves_load_run_bytes(&sg, A) == 128 && pt_waves_load_run_bytes(&sg, B) == 128);
    CHECK(pt_waves_load_run_bytes(&sg, C) == 0); /* stored, not loaded */
    double in = tensor_bytes(&g, "A") + tensor_bytes(&g, "B"), out = tensor_bytes(&g, "C");
    /* C is written, at the model's write rate */
    CHECK(h.hbm_write_bytes_per_ns > 0 && h.hbm_write_bytes_per_ns < h.hbm_bytes_per_ns);
    double wr = h.hbm_write_bytes_per_ns;
    double want = in / (h.hbm_bytes_per_ns * h.dram_short_run) + out / wr;
    CHECK_NEAR(pt_waves_dram_floor_ns(&sg, &h), want, 1e-6 * want);
    pt_hw plain = h;
    plain.dram_short_run = 0; /* absent from a model: every byte at the full rate */
    plain.hbm_write_bytes_per_ns = 0;
    CHECK_NEAR(pt_waves_dram_floor_ns(&sg, &plain), (in + out) / h.hbm_bytes_per_ns, 1e-6 * want);
    pt_stask_graph_free(&sg);

    if (!part(&g, &sg, "gemm_bf16", "M=64,N=4096,K=4096", "m=64,n=128,k=128,wg=1"))
        return;
    CHECK(pt_waves_load_run_bytes(&sg, A) == 256 && pt_waves_load_run_bytes(&sg, B) == 256);
    CHECK_NEAR(pt_waves_dram_floor_ns(&sg, &h), in / h.hbm_bytes_per_ns + out / wr, 1e-6 * want);
    pt_stask_graph_free(&sg);
}

/* f16 B is [k][n]: at n 64 a stage reads 128-byte runs across the output axis, whose next bytes
 * the neighbouring tile reads, not the next stage; only A (along k) is charged the short rate. */
static void across_output_axis(void)
{
    pt_graph g;
    pt_stask_graph sg;
    pt_hw h;
    pt_error err;
    CHECK(pt_hw_load(&h, "H200", &err));
    if (!part(&g, &sg, "gemm_f16", "M=64,N=4096,K=4096", "m=64,n=64,k=64,wg=1"))
        return;
    int B = tensor_index(&g, "B");
    CHECK(pt_waves_load_run_bytes(&sg, B) == 128);
    double a = tensor_bytes(&g, "A"), b = tensor_bytes(&g, "B"), c = tensor_bytes(&g, "C");
    double want = a / (h.hbm_bytes_per_ns * h.dram_short_run) + b / h.hbm_bytes_per_ns +
                  c / h.hbm_write_bytes_per_ns;
    CHECK_NEAR(pt_waves_dram_floor_ns(&sg, &h), want, 1e-6 * want);
    pt_stask_graph_free(&sg);
}

/* A row read whole continues into the next rows: K [.., n, d] with d 64 (128-byte rows) and a
 * key block of 128 rows reads 16 KB runs, not 128 bytes. */
static void whole_rows(void)
{
    pt_graph g;
    pt_stask_graph sg;
    if (!part(&g, &sg, "flash_decoding", "B=1,HKV=8,G=4,S=4096,SPLITS=4,D=64", "n=128"))
        return;
    int K = tensor_index(&g, "K");
    CHECK_MSG(pt_waves_load_run_bytes(&sg, K) == 128 * 64 * 2, "%lld",
              (long long)pt_waves_load_run_bytes(&sg, K));
    pt_stask_graph_free(&sg);
}

/* The simulator's kernel time uses that floor: a memory-bound GEMM at k 64 is predicted slower
 * with the field than without it. */
static void kernel_time(void)
{
    pt_graph g;
    pt_stask_graph sg;
    pt_hw on, off;
    pt_error err;
    pt_sprogram p;
    CHECK(pt_hw_load(&on, "H200", &err));
    off = on;
    off.dram_short_run = 0;
    if (!part(&g, &sg, "gemm_bf16", "M=1,N=8192,K=8192", "m=64,n=128,k=64,wg=1"))
        return;
    CHECK_MSG(pt_sprogram_default(&p, &sg, &on, &err), "%s", err.msg);
    pt_timeline a, b;
    CHECK_MSG(pt_simulate(&p, &sg, &on, &a, &err), "%s", err.msg);
    CHECK_MSG(pt_simulate(&p, &sg, &off, &b, &err), "%s", err.msg);
    CHECK_MSG(a.dram_floor_ns > 1.04 * b.dram_floor_ns, "%g vs %g ns", a.dram_floor_ns,
              b.dram_floor_ns);
    CHECK_MSG(a.kernel_time_ns > b.kernel_time_ns, "%g vs %g ns", a.kernel_time_ns,
              b.kernel_time_ns);
    pt_timeline_free(&a);
    pt_timeline_free(&b);
    pt_sprogram_free(&p);
    pt_stask_graph_free(&sg);
}

/* Packed 4-bit weights [n][k/2] (gemm_w4a16): a k tile of 256 reads 128-byte runs, 128 reads 64
 * bytes and 64 reads 32, each halving charged dram_run_halving more; the f16 activations' runs (2 bytes
 * per k: 128 bytes or more) never pay it. */
static void packed_runs(void)
{
    pt_graph g;
    pt_stask_graph sg;
    pt_hw h;
    pt_error err;
    CHECK(pt_hw_load(&h, "H100", &err));
    CHECK(h.dram_run_halving > 0.5 && h.dram_run_halving < 1);
    CHECK_NEAR(pt_waves_run_rate(&h, 128), h.dram_short_run, 1e-12);
    CHECK_NEAR(pt_waves_run_rate(&h, 64), h.dram_short_run * h.dram_run_halving, 1e-12);
    CHECK_NEAR(pt_waves_run_rate(&h, 32), h.dram_short_run * h.dram_run_halving * h.dram_run_halving, 1e-12);
    CHECK(pt_waves_run_rate(&h, 256) == 1 && pt_waves_run_rate(&h, 0) == 1);
    double floor[3] = {0};
    const int ks[3] = {256, 128, 64};
    for (int i = 0; i < 3; i++) {
        char tile[96];
        snprintf(tile, sizeof tile, "m=8,n=128,k=%d,wg=2,wg_axis=n", ks[i]);
        if (!part(&g, &sg, "gemm_w4a16", "M=1,N=4096,K=4096,G=128", tile))
            return;
        int Wq = tensor_index(&g, "Wq");
        CHECK_MSG(pt_waves_load_run_bytes(&sg, Wq) == ks[i] / 2, "k %d: %lld", ks[i],
                  (long long)pt_waves_load_run_bytes(&sg, Wq));
        floor[i] = pt_waves_dram_floor_ns(&sg, &h);
        pt_stask_graph_free(&sg);
    }
    /* the weights are nearly all the bytes: each halving costs close to the factor */
    CHECK_MSG(floor[1] > floor[0] / h.dram_run_halving * 0.97 && floor[1] < floor[0] / h.dram_run_halving,
              "%g %g", floor[0], floor[1]);
    CHECK_MSG(floor[2] > floor[1] / h.dram_run_halving * 0.97 && floor[2] < floor[1] / h.dram_run_halving,
              "%g %g", floor[1], floor[2]);
    pt_hw off = h;
    off.dram_run_halving = 0; /* absent: runs under 128 bytes as 128-byte runs */
    CHECK_NEAR(pt_waves_run_rate(&off, 32), h.dram_short_run, 1e-12);
}

/* ChunkState reads x and writes as many bytes of f32 states: with its rings 4 stages ahead
 * instead of 2 (twice the bytes in flight, over dram_overfill_ns on 132 CTAs) its floor is read at
 * dram_overfill_doubling per doubling, scaled by the written share and by the CTAs' work items
 * after their first; a GEMM at M = 1 writes almost nothing and is not charged; a model without
 * the fields charges nothing. */
static void overfill(void)
{
    pt_graph g;
    pt_stask_graph sg;
    pt_hw h;
    pt_error err;
    CHECK(pt_hw_load(&h, "H100", &err));
    CHECK(h.dram_overfill_ns > 0 && h.dram_overfill_doubling > 0.5 && h.dram_overfill_doubling < 1);
    if (!part(&g, &sg, "mamba2_chunk_state", "B=8,S=2048,H=64,P=64,N=128,L=256",
              "l=64,h=2,wg=2,wg_axis=h"))
        return;
    pt_sprogram p;
    CHECK_MSG(pt_sprogram_default(&p, &sg, &h, &err), "%s", err.msg);
    double rate[2] = {0}, inflight[2] = {0};
    const int depth[2] = {2, 4};
    for (int i = 0; i < 2; i++) {
        for (int t = 0; t < PT_MAX_TENSORS; t++)
            if (p.stages[t] > 0)
                p.stages[t] = depth[i];
        inflight[i] = pt_waves_ring_inflight_bytes(&p, &sg);
        rate[i] = pt_waves_overfill_rate(&p, &sg, &h, 132, sg.tiles);
    }
    CHECK_MSG(inflight[1] == 2 * inflight[0] && inflight[0] > 0, "%g %g", inflight[0], inflight[1]);
    double cap = h.hbm_bytes_per_ns * h.dram_overfill_ns;
    CHECK_MSG(inflight[0] * 132 < cap * 1.1 && inflight[1] * 132 > cap, "%g %g", inflight[1] * 132, cap);
    /* x and the states are nearly all the bytes, half written: close to the full exponent */
    double per_cta = (double)sg.tiles / 132, want = pow(h.dram_overfill_doubling,
                                                        log2(inflight[1] * 132 / cap) * (per_cta - 1) / per_cta);
    CHECK_MSG(rate[1] < 1 && fabs(rate[1] - want) < 0.02, "%g vs %g", rate[1], want);
    CHECK_MSG(rate[0] > rate[1], "%g %g", rate[0], rate[1]);
    /* one work item a CTA: nothing written beside its reads */
    CHECK(pt_waves_overfill_rate(&p, &sg, &h, 132, 132) == 1);
    pt_hw off = h;
    off.dram_overfill_ns = 0;
    CHECK(pt_waves_overfill_rate(&p, &sg, &off, 132, sg.tiles) == 1);
    pt_sprogram_free(&p);
    pt_stask_graph_free(&sg);

    if (!part(&g, &sg, "gemm_w4a16", "M=1,N=8192,K=8192,G=128", "m=8,n=128,k=256,wg=2,wg_axis=n"))
        return;
    CHECK_MSG(pt_sprogram_default(&p, &sg, &h, &err), "%s", err.msg);
    for (int t = 0; t < PT_MAX_TENSORS; t++)
        if (p.stages[t] > 0)
            p.stages[t] = 8;
    CHECK_MSG(pt_waves_ring_inflight_bytes(&p, &sg) * 64 > cap, "%g", pt_waves_ring_inflight_bytes(&p, &sg));
    double r = pt_waves_overfill_rate(&p, &sg, &h, 64, 64 * 4);
    CHECK_MSG(r > 0.999, "%g", r);
    pt_sprogram_free(&p);
    pt_stask_graph_free(&sg);
}

int main(void)
{
    PTEST_RUN(gemm_runs);
    PTEST_RUN(across_output_axis);
    PTEST_RUN(whole_rows);
    PTEST_RUN(kernel_time);
    PTEST_RUN(packed_runs);
    PTEST_RUN(overfill);
    PTEST_END();
}
