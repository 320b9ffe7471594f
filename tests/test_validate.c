/* test_validate.c — pt_validate: placement, sEUs, offsets, missing Waits, deadlocks (with
 * the cycle named), shared memory and registers, on hand-built sTask-graphs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ptest.h"
#include "validate.h"

#include "hand_gemm.h"

static int find(const pt_stask_graph *sg, const char *id)
{
    for (int i = 0; i < sg->n; i++)
        if (strcmp(sg->tasks[i].id, id) == 0)
            return i;
    return -1;
}

/* Does any problem of the report contain all of the needles? */
static bool has_problem(const pt_validation *r, const char *a, const char *b)
{
    for (int i = 0; i < r->n_problems; i++)
        if (strstr(r->problems[i], a) && (!b || strstr(r->problems[i], b)))
            return true;
    return false;
}

static void dump(const pt_validation *r)
{
    for (int i = 0; i < r->n_problems; i++)
        fprintf(stderr, "    problem: %s\n", r->problems[i]);
}

#define EXPECT_PROBLEM(r, a, b)                                                              \
    do {                                                                                     \
        bool found_ = has_problem((r), (a), (b));                                            \
        CHECK_MSG(found_, "no problem mentions \"%s\"", (a));                                \
        if (!found_)                                                                         \
            dump(r);                                                                         \
    } while (0)

typedef struct {
    pt_stask_graph sg;
    pt_hw hw;
    pt_sprogram p;
    pt_validation r;
    pt_error err;
} fixture;

static void setup(fixture *f, int wgs)
{
    memset(f, 0, sizeof *f);
    hand_hw(&f->hw);
    hand_graph(&f->sg, wgs);
    bool ok = pt_sprogram_default(&f->p, &f->sg, &f->hw, &f->err);
    CHECK_MSG(ok, "%s", f->err.msg);
}

static void teardown(fixture *f)
{
    pt_sprogram_free(&f->p);
    free(f->sg.tasks);
}

static bool run(fixture *f)
{
    f->err.msg[0] = 0;
    return pt_validate(&f->p, &f->sg, &f->hw, &f->r, &f->err);
}

static void test_default_is_valid(void)
{
    fixture f;
    for (int wgs = 1; wgs <= 2; wgs++) {
        setup(&f, wgs);
        bool ok = run(&f);
        CHECK_MSG(ok, "%s", f.err.msg);
        if (!ok)
            dump(&f.r);
        CHECK(f.r.n_problems == 0);
        teardown(&f);
    }
    /* the numbers of the 1-warpgroup program */
    setup(&f, 1);
    CHECK(run(&f));
    /* A, B: 3 stages x 16 KiB; C staging 32 KiB; 2 barriers per stage per ring; 64 */
    CHECK(f.r.smem_bytes == 3 * 16384 * 2 + 32768 + 2 * 3 * 16 + 64);
    CHECK(f.r.smem_bytes == pt_sprogram_smem_bytes(&f.p, &f.sg));
    CHECK(f.r.smem_limit == 232448);
    /* 128x128 f32 accumulator over 128 threads + overhead */
    CHECK(f.r.regs_needed[1] == 128 + 24);
    CHECK(pt_sprogram_regs_needed(&f.p, &f.sg, 0) == 152);
    CHECK(f.r.regs_total == 40 * 128 + 240 * 128);
    CHECK(f.r.regs_limit == 65536);
    CHECK(pt_validate(&f.p, &f.sg, &f.hw, NULL, NULL)); /* report and err are optional */
    teardown(&f);
}

static void test_placement(void)
{
    fixture f;
    setup(&f, 1);
    int A = find(&f.sg, "load.A"), B = find(&f.sg, "load.B"), M = find(&f.sg, "mma.C.wg0");
    int S = find(&f.sg, "store.C");

    CHECK(pt_unplace(&f.p, B));
    CHECK(!run(&f));
    EXPECT_PROBLEM(&f.r, "sTask load.B is not placed", NULL);
    CHECK_CONTAINS(f.err.msg, "load.B");
    CHECK(strcmp(f.err.msg, f.r.problems[0]) == 0);
    CHECK(pt_append(&f.p, &f.sg, B, 0, 1, 0, &f.err));
    CHECK(run(&f));

    /* wrong sEU: the mma on the TMA lane */
    CHECK(pt_append(&f.p, &f.sg, M, 0, -1, 0, &f.err));
    CHECK(!run(&f));
    EXPECT_PROBLEM(&f.r, "sTask mma.C.wg0 runs on the tensor_core but lane tma", NULL);
    CHECK(pt_append(&f.p, &f.sg, M, 1, -1, 0, &f.err));
    CHECK(run(&f));

    /* an sTask twice and an offset on an epilogue sTask (only by editing the struct) */
    f.p.lanes[0].entries[0].stask = B;
    f.p.lanes[0].entries[2].offset = 1;
    CHECK(!run(&f));
    EXPECT_PROBLEM(&f.r, "load.B is placed more than once", "tma");
    /* each problem about an element names its JSON path in the sProgram file format */
    bool pathed = false;
    for (int i = 0; i < f.r.n_problems; i++)
        pathed |= strncmp(f.r.problems[i], "$.lanes[0].order[", 17) == 0 &&
                  strstr(f.r.problems[i], "load.B is placed more than once") != NULL;
    CHECK(pathed);
    EXPECT_PROBLEM(&f.r, "store.C has offset 1", "loop-body");
    EXPECT_PROBLEM(&f.r, "load.A is not placed", NULL);
    f.p.lanes[0].entries[0].stask = A;
    f.p.lanes[0].entries[2].offset = 0;
    CHECK(f.p.lanes[0].entries[2].stask == S);
    CHECK(run(&f));
    teardown(&f);
}

static void test_missing_wait(void)
{
    fixture f;
    setup(&f, 1);
    int A = find(&f.sg, "load.A"), M = find(&f.sg, "mma.C.wg0");
    CHECK(pt_unwait(&f.p, M, A, 0));
    CHECK(!run(&f));
    CHECK_STR(f.err.msg, "$.waits: mma.C.wg0 reads load.A but has no Wait on it (lanes tc.wg0 "
                         "and tma)");
    /* a Wait on an older iteration does not cover a same-iteration read: it is there, so it
     * is named as out of range (with its JSON path and the accepted range), not missing */
    int one = 1, eight = 8, zero = 0;
    CHECK(pt_wait(&f.p, &f.sg, M, &A, &eight, 1, &f.err));
    CHECK(!run(&f));
    char want[160];
    snprintf(want, sizeof want, "$.waits[%d].distance: the Wait of mma.C.wg0 on load.A is at "
             "distance 8, out of range for this dependency", f.p.n_waits - 1);
    CHECK_CONTAINS(f.err.msg, want);
    CHECK_CONTAINS(f.err.msg, "expected a distance from 0 to 0");
    CHECK(strstr(f.err.msg, "has no Wait") == NULL);
    CHECK(pt_unwait(&f.p, M, A, 8));
    CHECK(pt_wait(&f.p, &f.sg, M, &A, &one, 1, &f.err));
    CHECK(!run(&f));
    CHECK(pt_wait(&f.p, &f.sg, M, &A, &zero, 1, &f.err));
    CHECK(run(&f));
    teardown(&f);

    /* a loop-carried read (the load reuses what the mma of 2 iterations ago freed) */
    hand_graph_init();
    setup(&f, 1);
    pt_stask *ld = &f.sg.tasks[find(&f.sg, "load.A")];
    M = find(&f.sg, "mma.C.wg0");
    A = find(&f.sg, "load.A");
    ld->deps[ld->n_deps++] = (pt_dep){M, 2};
    CHECK(!run(&f));
    EXPECT_PROBLEM(&f.r, "load.A reads mma.C.wg0 but has no Wait on it", "(lanes tma and tc.wg0)");
    int three = 3, two = 2;
    CHECK(pt_wait(&f.p, &f.sg, A, &M, &three, 1, &f.err));
    CHECK(!run(&f));
    CHECK(pt_wait(&f.p, &f.sg, A, &M, &two, 1, &f.err));
    bool ok = run(&f);
    CHECK_MSG(ok, "%s", f.err.msg);
    teardown(&f);
}

static void test_deadlock_wait(void)
{
    fixture f;
    setup(&f, 1);
    int A = find(&f.sg, "load.A"), M = find(&f.sg, "mma.C.wg0");
    /* the load waits for the mma of its own iteration, which waits for the load */
    CHECK(pt_wait(&f.p, &f.sg, A, &M, NULL, 1, &f.err));
    CHECK(!run(&f));
    CHECK_CONTAINS(f.err.msg, "deadlock: ");
    CHECK_CONTAINS(f.err.msg, "load.A[0] (tma) -> mma.C.wg0[0] (tc.wg0) -> load.A[0] (tma)");
    /* one iteration later it is a legal pipeline */
    CHECK(pt_unwait(&f.p, A, M, 0));
    int one = 1;
    CHECK(pt_wait(&f.p, &f.sg, A, &M, &one, 1, &f.err));
    bool ok = run(&f);
    CHECK_MSG(ok, "%s", f.err.msg);
    teardown(&f);
}

static void test_deadlock_lane_order(void)
{
    fixture f;
    setup(&f, 2);
    int A = find(&f.sg, "load.A"), B = find(&f.sg, "load.B");
    int M0 = find(&f.sg, "mma.C.wg0"), M1 = find(&f.sg, "mma.C.wg1");
    /* reshape the graph: mma.C.wg1 reads only B, mma.C.wg0 reads nothing loaded */
    f.sg.tasks[M1].deps[0] = (pt_dep){B, 0};
    f.sg.tasks[M0].deps[0] = (pt_dep){M0, 1};
    f.sg.tasks[M0].n_deps = 1;
    pt_sprogram_free(&f.p);
    CHECK(pt_sprogram_default(&f.p, &f.sg, &f.hw, &f.err));
    int tc0 = pt_sprogram_find_lane(&f.p, "tc.wg0");
    /* tc.wg0 issues mma.C.wg1 before mma.C.wg0; the TMA lane issues load.A before load.B;
     * load.A waits for mma.C.wg0 and mma.C.wg1 reads load.B: the two lanes are ordered
     * against each other. */
    CHECK(pt_append(&f.p, &f.sg, M1, tc0, 0, 0, &f.err));
    CHECK(run(&f));
    CHECK(pt_wait(&f.p, &f.sg, A, &M0, NULL, 1, &f.err));
    CHECK(!run(&f));
    CHECK_STR(f.err.msg, "deadlock: load.A[0] (tma) -> mma.C.wg0[0] (tc.wg0) -> mma.C.wg1[0] "
                         "(tc.wg0) -> load.B[0] (tma) -> load.A[0] (tma) (each waits for the "
                         "next)");
    teardown(&f);
}

static void test_deadlock_stages(void)
{
    fixture f;
    setup(&f, 1);
    int A = find(&f.sg, "load.A");
    /* load.A runs 3 iterations ahead but its ring has 2 slots: load.A[2] needs the slot of
     * iteration 0, freed by mma.C.wg0[0], which needs load.B[0], issued after load.A[3]. */
    CHECK(pt_append(&f.p, &f.sg, A, 0, 0, 3, &f.err));
    f.p.stages[0] = f.p.stages[1] = 2;
    CHECK(!run(&f));
    /* said as what it is (stage_hold.h), then the cycle itself as the next problem */
    CHECK_STR(f.err.msg, "stages of A = 2 but a stage is held for 4 iterations (load.A at "
                         "offset +3, released when its readers complete); need >= 4");
    pt_validation rep;
    CHECK(!pt_validate(&f.p, &f.sg, &f.hw, &rep, NULL));
    CHECK(rep.n_problems >= 2);
    CHECK_CONTAINS(rep.problems[1], "deadlock: ");
    CHECK_CONTAINS(rep.problems[1], "mma.C.wg0[0] (tc.wg0)");
    CHECK_CONTAINS(rep.problems[1], "load.B[0] (tma)");
    /* a ring deep enough for the offset is fine */
    f.p.stages[0] = f.p.stages[1] = 4;
    bool ok = run(&f);
    CHECK_MSG(ok, "%s", f.err.msg);
    /* zero stages on a buffered tensor is reported */
    f.p.stages[1] = 0;
    CHECK(!run(&f));
    EXPECT_PROBLEM(&f.r, "tensor B is loaded into a ring buffer", "0 stages");
    teardown(&f);
}

static void test_shared_memory(void)
{
    fixture f;
    setup(&f, 1);
    f.p.stages[0] = f.p.stages[1] = 6;
    CHECK(run(&f)); /* 6 x 32 KiB + 32 KiB + barriers: fits in 227 KiB */
    f.p.stages[0] = f.p.stages[1] = 16;
    CHECK(!run(&f));
    EXPECT_PROBLEM(&f.r, "shared memory", "232448");
    EXPECT_PROBLEM(&f.r, "A: 16, B: 16", NULL);
    CHECK(f.r.smem_bytes == 16 * 32768 + 32768 + 2 * 16 * 16 + 64);
    CHECK(f.r.smem_bytes > f.r.smem_limit);
    /* odd-sized tiles are padded to 1 KiB each, a loaded row to 16 bytes (a TMA box's) */
    f.p.stages[0] = f.p.stages[1] = 1;
    f.sg.tasks[0].tile[1] = 3; /* 128 x 3 f16 = 128 rows of 6 B -> 128 x 16 B -> 2 KiB */
    CHECK(pt_sprogram_smem_bytes(&f.p, &f.sg) == 2048 + 16384 + 32768 + 2 * 16 + 64);
    f.sg.tasks[0].tile[1] = 24; /* 128 x 48 B -> 6 KiB: already whole granules */
    CHECK(pt_sprogram_smem_bytes(&f.p, &f.sg) == 6144 + 16384 + 32768 + 2 * 16 + 64);
    teardown(&f);
}

/* partition.order and partition.staging: a choice the graph cannot use is refused at its field;
 * resolving "auto" leaves a program without the choice as it is (attention: test_cli.sh). */
static void test_partition_choices(void)
{
    fixture f;
    setup(&f, 1);
    CHECK(!pt_sprogram_longest_first(&f.p, &f.sg)); /* no causal mask: auto is the raster */
    f.p.partition.order = PT_ORDER_LONGEST_FIRST;
    CHECK(!run(&f));
    EXPECT_PROBLEM(&f.r, "$.partition.order", "causal");
    f.p.partition.order = PT_ORDER_RASTER;
    CHECK(run(&f));
    /* a GEMM has no resident tile to stage over: its staging tile is always apart */
    f.p.partition.staging = PT_STAGING_OVER_RESIDENT;
    f.p.partition.persistent = false;
    CHECK(run(&f));
    CHECK(pt_sprogram_staging_apart(&f.p, &f.sg, &f.hw));
    pt_sprogram_resolve_choices(&f.p, &f.sg, &f.hw);
    CHECK(f.p.partition.order == PT_ORDER_RASTER); /* as set: resolving keeps a choice */
    f.p.partition.order = PT_ORDER_AUTO;
    f.p.partition.staging = PT_STAGING_AUTO;
    pt_sprogram_resolve_choices(&f.p, &f.sg, &f.hw);
    CHECK(f.p.partition.order == PT_ORDER_AUTO && f.p.partition.staging == PT_STAGING_AUTO);
    teardown(&f);
}

static void test_registers(void)
{
    fixture f;
    setup(&f, 1);
    f.p.roles[1].regs = 104;
    CHECK(!run(&f));
    EXPECT_PROBLEM(&f.r, "role wg0 needs 152", "104");
    f.p.roles[1].regs = 250;
    CHECK(!run(&f));
    EXPECT_PROBLEM(&f.r, "budget of 250", "multiple of 8");
    f.p.roles[0].regs = 16;
    f.p.roles[1].regs = 240;
    CHECK(!run(&f));
    EXPECT_PROBLEM(&f.r, "role producer has a budget of 16", NULL);
    f.p.roles[0].regs = 40;
    f.p.roles[1].threads = 512; /* 4 warpgroups at 240: over the register file */
    CHECK(!run(&f));
    EXPECT_PROBLEM(&f.r, "add up to 128000", "65536");
    teardown(&f);

    /* one warpgroup cannot hold a 128x256 f32 accumulator (256 + 24 > 240) */
    setup(&f, 1);
    int M = find(&f.sg, "mma.C.wg0");
    f.sg.tasks[M].tile[1] = 256;
    CHECK(!run(&f));
    EXPECT_PROBLEM(&f.r, "role wg0 needs 280", "240");
    teardown(&f);

    /* cuda-core pieces that turn an accumulator into a 16-bit fragment count too */
    setup(&f, 1);
    pt_stask *cvt = &f.sg.tasks[find(&f.sg, "convert.C.wg0")];
    cvt->tensor = 1; /* pretend it makes a distinct f16 tile of 128x128 */
    CHECK(pt_sprogram_regs_needed(&f.p, &f.sg, 0) == 152 + 64);
    teardown(&f);
}

/* AMD (vendor "amd", an MI300X-like CU: 4 SIMDs of 512 VGPRs x 64 lanes): one VGPR budget for
 * every wave of the kernel, the largest role's, and the busiest SIMD decides — where the
 * NVIDIA rule (budgets x threads summed) would let through what cannot run. */
static void amd_hw(pt_hw *hw)
{
    hand_hw(hw);
    snprintf(hw->name, sizeof hw->name, "TestCDNA");
    snprintf(hw->vendor, sizeof hw->vendor, "amd");
    hw->warp_size = 64;
    hw->regs_per_eu = 131072; /* the hand GEMM's shared memory stays within hand_hw's */
    hw->max_regs_per_thread = 512;
    hw->min_regs_per_thread = 8;
}

static void test_registers_amd(void)
{
    fixture f;
    setup(&f, 1);
    amd_hw(&f.hw);
    f.p.roles[1].regs = 480; /* producer 40 + wg0 480, 128 threads each: 4 waves, 1 per SIMD */
    CHECK_MSG(run(&f), "%s", f.err.msg);
    CHECK(f.r.regs_total == 480LL * 1 * 64 * 4);
    CHECK(f.r.regs_limit == 131072);
    /* wg0 of 256 threads: 6 waves, 2 on a SIMD at 480 each. The summed rule would say
     * 40 x 128 + 480 x 256 = 128000 <= 131072. */
    f.p.roles[1].threads = 256;
    CHECK(!run(&f));
    EXPECT_PROBLEM(&f.r, "every wave of the kernel gets the largest role budget, 480", "$.roles");
    EXPECT_PROBLEM(&f.r, "6 waves put 2 on one of its 4 SIMDs", "960 of the 512");
    CHECK(f.r.regs_total == 480LL * 2 * 64 * 4);
    f.p.roles[1].regs = 256; /* 2 x 256 = 512: fits exactly */
    CHECK_MSG(run(&f), "%s", f.err.msg);
    f.p.roles[1].threads = 96; /* not whole waves */
    CHECK(!run(&f));
    EXPECT_PROBLEM(&f.r, "role wg0 has 96 threads", "multiple of 64 (wave64)");
    f.p.roles[1].threads = 128;
    f.p.roles[1].regs = 520; /* beyond 512 per lane, where setmaxnreg's range would be 513 */
    CHECK(!run(&f));
    EXPECT_PROBLEM(&f.r, "budget of 520", "from 8 to 512 (VGPRs per lane");
    teardown(&f);

    /* the same roles under the NVIDIA rule: the sum decides */
    setup(&f, 1);
    f.hw.regs_per_eu = 131072;
    f.p.roles[1].threads = 256;
    CHECK_MSG(run(&f), "%s", f.err.msg);
    CHECK(f.r.regs_total == 40 * 128 + 240 * 256);
    teardown(&f);
}

/* Garbage in the program must give problems, never a crash. */
/* AMD's layout rules (src/smem_layout.h), as the gfx942 kernel allocates LDS: every loaded row
 * padded by 16 bytes (A: 128 rows of 128 + 16 bytes, B: 64 rows of 256 + 16), 16-byte
 * alignment, no staging tile for C (stored from registers), no barrier memory. The NVIDIA count
 * of the same program is larger (C's 32 KiB staging tile, 1 KiB pitches, mbarriers). */
static void test_shared_memory_amd(void)
{
    fixture f;
    setup(&f, 1);
    amd_hw(&f.hw);
    f.p.stages[0] = f.p.stages[1] = 1;
    CHECK(pt_sprogram_smem_bytes_on(&f.p, &f.sg, &f.hw) == 128 * 144 + 64 * 272);
    CHECK(pt_sprogram_smem_bytes(&f.p, &f.sg) == 16384 + 16384 + 32768 + 2 * 16 + 64);
    f.p.stages[0] = 2;
    CHECK(pt_sprogram_smem_bytes_on(&f.p, &f.sg, &f.hw) == 2 * 128 * 144 + 64 * 272);
    /* the validator reads the AMD count: 2 x 18 KiB + 17 KiB fits a 64 KB LDS the NVIDIA count
     * (2 x 16 KiB + 16 KiB + 32 KiB staging + barriers) would overflow */
    f.hw.smem_per_block = f.hw.smem_per_eu = 65536;
    CHECK_MSG(run(&f), "%s", f.err.msg);
    CHECK(f.r.smem_bytes == 2 * 128 * 144 + 64 * 272);
    CHECK(pt_sprogram_smem_bytes(&f.p, &f.sg) > 65536);
    CHECK(pt_sprogram_staging_apart(&f.p, &f.sg, &f.hw));
    teardown(&f);
}

static void test_corrupt(void)
{
    fixture f;
    setup(&f, 1);
    f.p.lanes[0].entries[0].stask = 1000;
    f.p.lanes[0].entries[1].offset = 1 << 30;
    f.p.lanes[1].role = 99;
    f.p.waits[0].on = -7;
    f.p.waits[1].distance = -1;
    f.p.stages[0] = 1 << 30;
    f.sg.tasks[2].deps[0].from = 77;
    f.sg.iterations = (int64_t)1 << 40;
    CHECK(!run(&f));
    CHECK(f.r.n_problems > 3);
    f.p.n_lanes = 99;
    CHECK(!run(&f));
    CHECK_CONTAINS(f.err.msg, "99 lanes");
    f.p.n_lanes = 3;
    CHECK(!pt_validate(&f.p, NULL, &f.hw, &f.r, &f.err));
    CHECK(!pt_validate(NULL, &f.sg, &f.hw, &f.r, &f.err));
    CHECK(pt_sprogram_smem_bytes(NULL, NULL) == 0);
    teardown(&f);

    /* no hardware model: structure is still checked, resources are not */
    setup(&f, 1);
    CHECK(pt_validate(&f.p, &f.sg, NULL, &f.r, &f.err));
    teardown(&f);

    /* many problems are capped, the first one is in err */
    setup(&f, 1);
    for (int l = 0; l < f.p.n_lanes; l++)
        f.p.lanes[l].n = 0;
    f.p.n_waits = 0;
    CHECK(!run(&f));
    CHECK(f.r.n_problems <= PT_MAX_PROBLEMS);
    CHECK_CONTAINS(f.err.msg, "load.A is not placed");
    teardown(&f);
}

int main(void)
{
    PTEST_RUN(test_default_is_valid);
    PTEST_RUN(test_placement);
    PTEST_RUN(test_missing_wait);
    PTEST_RUN(test_deadlock_wait);
    PTEST_RUN(test_deadlock_lane_order);
    PTEST_RUN(test_deadlock_stages);
    PTEST_RUN(test_shared_memory);
    PTEST_RUN(test_registers);
    PTEST_RUN(test_registers_amd);
    PTEST_RUN(test_shared_memory_amd);
    PTEST_RUN(test_partition_choices);
    PTEST_RUN(test_corrupt);
    PTEST_END();
}
