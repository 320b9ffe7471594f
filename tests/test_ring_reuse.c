/* test_ring_reuse.c — rings that runs of launch positions (partition.run) keep across a CTA's
 * tiles (src/ring_reuse.h): which tensors qualify, how many tiles find them kept, that the
 * simulator charges those tiles no load, and what the validator says about runs that cannot
 * be. */
#include <math.h>
#include <string.h>

#include "ptest.h"
#include "ptest_example.h"
#include "ring_reuse.h"
#include "sim.h"
#include "validate.h"

static void set_stages(pt_sprogram *p, int n)
{
    for (int t = 0; t < PT_MAX_TENSORS; t++)
        if (p->stages[t] > 0)
            p->stages[t] = n;
}

static void runs_of(pt_sprogram *p, int run)
{
    p->partition.persistent = true;
    p->partition.raster = PT_RASTER_ROW;
    p->partition.run = run;
}

/* The example partitioned as asked, with its default sProgram on hw; false (a failed check)
 * when it does not load. */
static bool program(pt_graph *g, pt_stask_graph *sg, pt_sprogram *p, const pt_hw *hw,
                    const char *ex, const char *set, const char *tile)
{
    pt_error err = {{0}};
    if (!part(g, sg, ex, set, tile))
        return false;
    bool ok = pt_sprogram_default(p, sg, hw, &err);
    CHECK_MSG(ok, "%s", err.msg);
    if (!ok)
        pt_stask_graph_free(sg);
    return ok;
}

/* ChunkState, two heads a CTA: B (no head axis) is kept, x (per head) is not; in runs of 4
 * (32 head pairs a chunk) 3 of 4 tiles find it kept, in runs of 64 all but about one in 32. */
static void chunk_state_keeps_b(void)
{
    pt_graph g;
    pt_stask_graph sg;
    pt_hw hw;
    pt_error err = {{0}};
    pt_sprogram p;
    CHECK(pt_hw_load(&hw, "H200", &err));
    if (!program(&g, &sg, &p, &hw, "mamba2_chunk_state", "B=8,S=8192", "h=2,wg=2,wg_axis=h,l=64"))
        return;
    int x = task(&sg, "load.x")->tensor, b = task(&sg, "load.Bm")->tensor;
    set_stages(&p, 4); /* L = 256 in l = 64 blocks: 4 iterations */
    CHECK(pt_ring_reuse_tensors(&p, &sg, &hw) == 0); /* one position at a time: nothing kept */
    runs_of(&p, 4);
    uint32_t m = pt_ring_reuse_tensors(&p, &sg, &hw);
    CHECK_MSG(m == 1u << b, "mask %#x, B is tensor %d, x %d", m, b, x);
    double f = pt_ring_reuse_fraction(&p, &sg, 132, m);
    CHECK_MSG(fabs(f - 0.75) < 1e-9, "kept fraction %g", f);
    runs_of(&p, 64);
    f = pt_ring_reuse_fraction(&p, &sg, 132, m);
    CHECK_MSG(f > 0.96 && f < 0.97, "kept fraction %g", f);
    runs_of(&p, 4);
    CHECK_MSG(pt_validate(&p, &sg, &hw, NULL, &err), "%s", err.msg);
    pt_timeline kept, strided;
    CHECK_MSG(pt_simulate(&p, &sg, &hw, &kept, &err), "%s", err.msg);
    p.partition.run = 1;
    CHECK_MSG(pt_simulate(&p, &sg, &hw, &strided, &err), "%s", err.msg);
    CHECK_MSG(kept.kernel_time_ns < strided.kernel_time_ns, "runs %g ns, one at a time %g ns",
              kept.kernel_time_ns, strided.kernel_time_ns);
    /* a ring shorter than the loop holds other blocks by the next tile */
    p.partition.run = 4;
    set_stages(&p, 3);
    CHECK(pt_ring_reuse_tensors(&p, &sg, &hw) == 0);
    /* a grid of a CTA per run: no tile after a run's last */
    set_stages(&p, 4);
    CHECK_NEAR(pt_ring_reuse_fraction(&p, &sg, sg.tiles / 4, m), 0.75, 1e-9);
    pt_timeline_free(&kept);
    pt_timeline_free(&strided);
    pt_sprogram_free(&p);
    pt_stask_graph_free(&sg);
}

/* Attention without the mask keeps K and V for the next query tile of the same head; with it
 * only a full tile after a full tile does; the validator refuses runs without persistence or
 * with split-K. */
static void attention_and_refusals(void)
{
    pt_graph g;
    pt_stask_graph sg;
    pt_hw hw;
    pt_error err = {{0}};
    pt_sprogram p;
    CHECK(pt_hw_load(&hw, "H200", &err));
    if (!program(&g, &sg, &p, &hw, "flash_attention", "B=4,H=16,S=300,D=64,CAUSAL=0", "m=128,n=64,wg=2"))
        return;
    set_stages(&p, 5);
    runs_of(&p, 3);
    int k = task(&sg, "load.K")->tensor, v = task(&sg, "load.V")->tensor;
    CHECK(pt_ring_reuse_tensors(&p, &sg, &hw) == ((1u << k) | (1u << v)));
    /* 3 query tiles a head, runs of 3: a run is one head */
    double f = pt_ring_reuse_fraction(&p, &sg, 132, pt_ring_reuse_tensors(&p, &sg, &hw));
    CHECK_MSG(fabs(f - 2.0 / 3) < 1e-9, "kept fraction %g", f);
    p.partition.persistent = false;
    pt_validation r;
    CHECK(!pt_validate(&p, &sg, &hw, &r, &err));
    CHECK_MSG(strstr(err.msg, "$.partition.run") && strstr(err.msg, "persistent"), "%s", err.msg);
    pt_sprogram_free(&p);
    pt_stask_graph_free(&sg);

    if (!program(&g, &sg, &p, &hw, "flash_attention", "B=4,H=16,S=300,D=64,CAUSAL=1", "m=128,n=64,wg=2"))
        return;
    set_stages(&p, 5);
    runs_of(&p, 3);
    k = task(&sg, "load.K")->tensor, v = task(&sg, "load.V")->tensor;
    CHECK(pt_ring_reuse_tensors(&p, &sg, &hw) == ((1u << k) | (1u << v)));
    /* query tiles of 2, 4 and 5 key blocks: the full one follows a shorter one */
    f = pt_ring_reuse_fraction(&p, &sg, 132, pt_ring_reuse_tensors(&p, &sg, &hw));
    CHECK_MSG(f == 0, "kept fraction %g", f);
    /* 5 heads' tiles a run: still each full tile follows its head's 4-block one */
    runs_of(&p, 15);
    f = pt_ring_reuse_fraction(&p, &sg, 132, pt_ring_reuse_tensors(&p, &sg, &hw));
    CHECK_MSG(f == 0, "kept fraction %g", f);
    CHECK_MSG(pt_validate(&p, &sg, &hw, &r, &err), "%s", err.msg);
    pt_sprogram_free(&p);
    pt_stask_graph_free(&sg);

    if (!program(&g, &sg, &p, &hw, "gemm_f16", "M=1024,N=1024,K=256", "m=128,n=128,k=64,wg=2"))
        return;
    runs_of(&p, 2);
    p.partition.split_k = 2;
    CHECK(pt_ring_reuse_tensors(&p, &sg, &hw) == 0);
    CHECK(!pt_validate(&p, &sg, &hw, &r, &err));
    CHECK_MSG(strstr(err.msg, "$.partition.run") && strstr(err.msg, "split_k"), "%s", err.msg);
    pt_sprogram_free(&p);
    pt_stask_graph_free(&sg);
}

int main(void)
{
    PTEST_RUN(chunk_state_keeps_b);
    PTEST_RUN(attention_and_refusals);
    PTEST_END();
}
