/* gen_random_sprogram.c — seeded random sPrograms that the validator and the sm90a generator
 * accept, for the differential GPU test (tests/gpu/differential.sh) and the stage contract's
 * unit test.
 *
 * usage:
 *   gen_random_sprogram WORKLOAD SEED OUTDIR [--small]
 *       draw until one is accepted (at most 400 draws) and write its bundle (kernel, reference,
 *       harness, Makefile) plus program.json and replay.txt into OUTDIR; print one line
 *       "seed SEED WORKLOAD: ...". Exit 0, or 1 when nothing was accepted. --small caps the
 *       problem (M, N, K <= 256; one head of S <= 200 keys, D <= 128; one Mamba2 batch of at
 *       most 2 chunks and 2 heads; one decoding sequence of few splits) for compute-sanitizer.
 *   gen_random_sprogram --check WORKLOAD|all SEED0 COUNT
 *       for COUNT seeds: draw until accepted, then check the contract end to end (no files):
 *       the program's JSON reloads and is accepted again by the validator and the generator,
 *       the simulator finishes it, and for every draw the validator refused as a deadlock of
 *       a GEMM, the simulator deadlocks too. Prints refusal reasons counted. Exit 1 on a
 *       broken property.
 *
 * WORKLOAD: gemm_f16, gemm_bf16, flash_attention, flash_attention_bf16, gemm_w4a16,
 * gemm_wfp4a16 (low-bit weights dequantised by the producer's CUDA cores), mamba2_chunk_state,
 * mamba2_chunk_scan, flash_decoding, flash_decoding_combine, flash_decoding_unsplit
 * (gen_random_more.c: random B, S, H,
 * P, N, L, resp. batch, heads, group, keys, splits, head dim, among what the generator takes;
 * a quarter of the Mamba2 draws use the ngroups > 1 examples (mamba2_*_grouped) and a third of
 * ChunkScan's put its warpgroups on the heads;
 * a draw it refuses is drawn again). The same seed always gives the same sProgram (draw k of
 * seed s uses its own generator state), so one command replays a failure; adding workloads left
 * the draws of the first six unchanged seed for seed (only `--check all`'s seed -> workload
 * assignment, seed mod the workload count, moved). Sizes are kept small (most kernels run well under 50 ms);
 * about a third of the GEMMs have unaligned N or K (rows not 16-byte multiples, staged by the
 * launcher). The GEMM-specific contract checks (a wgmma group in flight, stuck rings deadlock
 * in the simulator) apply to the GEMM workloads only. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend.h"
#include "codegen.h"
#include "release_lint.h"
#include "embedded.h"
#include "json_util.h"
#include "propagate.h"
#include "sim.h"
#include "splitk.h"
#include "stage_hold.h"
#include "streamk.h"
#include "validate.h"

#include "gen_random.h"

#define MAX_DRAWS 400

/* Unaligned rows (issue 14, src/staging.h: such tensors are staged through 16-byte-pitched
 * copies): about a third of the time, *n and/or *k (NULL: none) move off the multiples of 8
 * that keep f16 rows 16-byte multiples. The generator is a side stream derived from r's state,
 * not r itself, so every other draw of a seed stays what it was before these sizes existed. */
static void draw_unaligned(const rng *r, int *n, int *k)
{
    rng side = {r->s ^ 0xd6e8feb86659fd93ULL};
    if (!chance(&side, 35))
        return;
    int which = k ? uni(&side, 0, 2) : 0, dn = uni(&side, 1, 7), dk = uni(&side, 1, 7);
    if (which != 1)
        *n = *n > dn ? *n - dn : 1 + (*n + dn) % 7;
    if (which != 0)
        *k = *k > dk ? *k - dk : 1 + (*k + dk) % 7;
}

/* ---- one draw -------------------------------------------------------------------------------- */

static bool is_attention(const char *w)
{
    return strncmp(w, "flash_attention", 15) == 0;
}

static bool is_lowbit(const char *w)
{
    return strcmp(w, "gemm_w4a16") == 0 || strcmp(w, "gemm_wfp4a16") == 0;
}

/* The GEMM kernels (plain and low-bit), which the GEMM-specific contract checks apply to. */
static bool is_gemm(const char *w)
{
    return strncmp(w, "gemm_", 5) == 0;
}

/* The workloads of gen_random_more.c and their draws. */
static const struct {
    const char *name;
    bool (*draw)(draw *d, rng *r, pt_error *err);
} more[] = {{"mamba2_chunk_state", draw_ssd_state},
            {"mamba2_chunk_scan", draw_ssd_scan},
            {"flash_decoding", draw_decoding},
            {"flash_decoding_combine", draw_combine},
            {"flash_decoding_unsplit", draw_unsplit}};
#define N_MORE (int)(sizeof more / sizeof more[0])

static int more_index(const char *w)
{
    for (int i = 0; i < N_MORE; i++)
        if (!strcmp(w, more[i].name))
            return i;
    return -1;
}



static void draw_partition(draw *d, rng *r)
{
    d->p.partition.persistent = chance(r, 40);
    d->p.partition.raster = (pt_raster)uni(r, 0, 2);
    d->p.partition.group = uni(r, 1, 8);
    note(d, "partition %s raster %s group %d", d->p.partition.persistent ? "persistent" : "per-tile",
         pt_raster_name(d->p.partition.raster), d->p.partition.group);
    /* split-K where the loop can be split (a GEMM): the generator's ticket and fix-up path */
    char why[160];
    if (d->sg.iterations >= 2 && pt_split_k_possible(&d->sg, why, sizeof why) && chance(r, 30)) {
        int hi = d->sg.iterations < 8 ? (int)d->sg.iterations : 8;
        d->p.partition.split_k = uni(r, 2, hi);
        note(d, "split_k %d", d->p.partition.split_k);
        /* the partial tiles through the tile's cluster (one tile per CTA, a size the model
         * lists) */
        if (!d->p.partition.persistent && d->hw.cluster_capacity[d->p.partition.split_k] > 0 &&
            chance(r, 40)) {
            d->p.partition.split_reduce = PT_SPLIT_REDUCE_CLUSTER;
            note(d, "split_k_reduce cluster");
        }
    } else if (pt_split_k_possible(&d->sg, why, sizeof why) && chance(r, 25)) {
        /* stream-K (src/streamk.h): a persistent grid of 2 .. EUs CTAs; small grids make
         * tiles shared by many CTAs, large ones grids above the tile or iteration count */
        int hi = d->hw.eu_count < PT_MAX_STREAM_K ? d->hw.eu_count : PT_MAX_STREAM_K;
        d->p.partition.stream_k = chance(r, 50) ? uni(r, 2, 16 < hi ? 16 : hi) : uni(r, 2, hi);
        d->p.partition.persistent = true;
        note(d, "stream_k %d (persistent)", d->p.partition.stream_k);
    }
}


static bool draw_gemm(draw *d, rng *r, pt_error *err)
{
    int wgs = uni(r, 1, 3);
    int m_wg = wgs == 3 ? 64 : pick(r, (const int[]){64, 128}, 2);
    int bn = pick(r, (const int[]){64, 128, 192, 256}, 4);
    int bk = chance(r, 80) ? 64 : 128;
    int M = draw_extent(r, 1, 1100), N = draw_extent(r, 8, 1100), K = draw_extent(r, 8, 1100);
    if (chance(r, 15))
        K = uni(r, 1, bk / 8) * 8; /* K no longer than one k tile */
    if (small_sizes) {
        M = M > 256 ? 1 + M % 256 : M;
        N = N > 256 ? 8 + N % 256 / 8 * 8 : N;
        K = K > 256 ? 8 + K % 256 / 8 * 8 : K;
    }
    draw_unaligned(r, &N, &K);
    snprintf(d->set, sizeof d->set, "M=%d,N=%d,K=%d", M, N, K);
    if (chance(r, 25)) {
        /* the tensor-core rows on N (A and B swapped): N's tile is the warpgroups' rows, M's is
         * wgmma's N, any multiple of 8 */
        snprintf(d->tile, sizeof d->tile, "m=%d,n=%d,k=%d,wg=%d,wg_axis=n", 8 * uni(r, 1, 32),
                 m_wg * wgs, bk, wgs);
        note(d, "tensor-core rows on n (A and B swapped)");
    } else {
        snprintf(d->tile, sizeof d->tile, "m=%d,n=%d,k=%d,wg=%d", m_wg * wgs, bn, bk, wgs);
    }
    if (!load_graph(d, err) || !partition_default(d, err))
        return false;
    int A = pt_graph_find_tensor(&d->g, "A"), B = pt_graph_find_tensor(&d->g, "B");
    d->p.stages[A] = uni(r, 1, 6);
    d->p.stages[B] = uni(r, 1, 6);
    note(d, "stages A %d / B %d", d->p.stages[A], d->p.stages[B]);
    int la = stask(d, "load.A"), lb = stask(d, "load.B");
    if (chance(r, 35))
        set_offset(d, "load.A", pick(r, (const int[]){-1, 1, 1, 2, 2, 3}, 6), err);
    if (chance(r, 25))
        set_offset(d, "load.B", pick(r, (const int[]){-1, 1, 2, 3}, 4), err);
    if (chance(r, 30)) {
        move_to(d, lb, 0, entry_offset(d, lb), err);
        note(d, "tma order load.B first");
    }
    (void)la;
    if (chance(r, 20)) {
        /* an extra Wait: a load waits for the mma of d iterations back (only narrows the
         * schedule; the generator's barriers already order more) */
        int mm = stask(d, wgs > 1 ? "mma.C.wg0" : "mma.C");
        int dist = uni(r, 1, 3);
        int on[1] = {mm}, dd[1] = {dist};
        if (pt_wait(&d->p, &d->sg, chance(r, 50) ? la : lb, on, dd, 1, err))
            note(d, "extra Wait of a load on %s at distance %d", d->sg.tasks[mm].id, dist);
    }
    store_role(d, r, wgs, err);
    draw_partition(d, r);
    return true;
}

/* A low-bit GEMM: K a multiple of 8 groups (the scales' rows whole 16-byte TMA granules) or, in
 * a third of the draws (from values drawn), of an odd number of k tiles' groups (the scales
 * staged by the launcher: src/staging.h); every ring's stages drawn, the dequantised tile's (W)
 * too, loads at offsets and reordered. */
static bool draw_lowbit(draw *d, rng *r, pt_error *err)
{
    int wgs = uni(r, 1, 2);
    int m_wg = pick(r, (const int[]){64, 128}, 2);
    int bn = pick(r, (const int[]){64, 128, 192, 256}, 4);
    int bk = chance(r, 80) ? 64 : 128;
    int G = pick(r, (const int[]){32, 64, 128}, 3);
    int M = draw_extent(r, 1, 1100), N = draw_extent(r, 8, 1100);
    int K = G * 8 * uni(r, 1, G == 32 ? 4 : G == 64 ? 2 : 1);
    if (small_sizes) {
        M = M > 256 ? 1 + M % 256 : M;
        N = N > 256 ? 8 + N % 256 / 8 * 8 : N;
        K = G * 8 > 256 ? G * 8 : 256 / (G * 8) * G * 8;
    }
    if ((M + N) % 3 == 0) {
        int unit = bk > G ? bk / G : 1, odd = 2 * (M % 4) + 1;
        while (small_sizes && odd > 1 && G * unit * odd > 256)
            odd -= 2;
        K = G * unit * odd;
    }
    draw_unaligned(r, &N, NULL); /* C staged; K stays whole groups (packed rows are not) */
    snprintf(d->set, sizeof d->set, "M=%d,N=%d,K=%d,G=%d", M, N, K, G);
    /* the tensor-core rows on the weights' rows: each consumer warpgroup dequantises its own
     * rows into registers (W has no ring then) */
    bool rows = chance(r, 35);
    if (rows) {
        snprintf(d->tile, sizeof d->tile, "m=%d,n=%d,k=%d,wg=%d,wg_axis=n", 8 * uni(r, 1, 32),
                 m_wg * wgs, bk, wgs);
        note(d, "tensor-core rows on n (the consumers dequantise into registers)");
    } else {
        snprintf(d->tile, sizeof d->tile, "m=%d,n=%d,k=%d,wg=%d", m_wg * wgs, bn, bk, wgs);
    }
    if (!load_graph(d, err))
        return false;
    /* half the register-form draws whose sizes allow it read Wq packed as "fragments" */
    int wq = pt_graph_find_tensor(&d->g, "Wq");
    pt_error fit;
    if (rows && pt_packing_fits(PT_PACK_FRAGMENTS, N, K, "Wq", &fit) && chance(r, 50)) {
        d->g.tensors[wq].packing = PT_PACK_FRAGMENTS;
        note(d, "Wq packed as fragments");
    }
    if (!partition_default(d, err))
        return false;
    static const char *const rings[4] = {"A", "Wq", "Ws", "W"};
    for (int i = 0; i < (rows ? 3 : 4); i++) {
        int t = pt_graph_find_tensor(&d->g, rings[i]);
        d->p.stages[t] = uni(r, 1, i == 3 ? 4 : 6);
    }
    note(d, "stages A %d / Wq %d / Ws %d / W %d", d->p.stages[pt_graph_find_tensor(&d->g, "A")],
         d->p.stages[pt_graph_find_tensor(&d->g, "Wq")], d->p.stages[pt_graph_find_tensor(&d->g, "Ws")],
         d->p.stages[pt_graph_find_tensor(&d->g, "W")]);
    if (chance(r, 30))
        set_offset(d, "load.A", pick(r, (const int[]){-1, 1, 2}, 3), err);
    if (chance(r, 25))
        set_offset(d, "load.Wq", pick(r, (const int[]){1, 2}, 2), err);
    if (chance(r, 30)) {
        int la = stask(d, "load.A");
        move_to(d, la, 0, entry_offset(d, la), err);
        note(d, "tma order load.A first");
    }
    store_role(d, r, wgs, err);
    draw_partition(d, r);
    return true;
}

static bool draw_attention(draw *d, rng *r, pt_error *err)
{
    int wgs = uni(r, 1, 3);
    int D = pick(r, (const int[]){64, 128, 128, 256}, 4);
    int bn = pick(r, (const int[]){32, 64, 96, 128, 128, 176, 192, 256}, 8);
    /* four consumer warpgroups (256-row tiles) are searched at head dim 64; with 112 registers
     * a consumer holds one S tile of at most 64 keys and no look-ahead */
    bool four = D == 64 && chance(r, 30);
    if (four) {
        wgs = 4;
        bn = pick(r, (const int[]){32, 64, 64}, 3);
    }
    int S;
    switch (uni(r, 0, 4)) {
    case 0:
        S = uni(r, 1, 3);
        break;
    case 1:
        S = uni(r, 1, 256);
        break;
    case 2:
        S = pick(r, (const int[]){77, 128, 129, 255, 256, 511, 1000}, 7);
        break;
    default:
        S = uni(r, 1, 3000);
        break;
    }
    int Bt = uni(r, 1, 2), H = uni(r, 1, S > 1500 ? 1 : 3);
    if (small_sizes) {
        S = S > 200 ? 1 + S % 200 : S;
        D = D > 128 ? 128 : D;
        Bt = H = 1;
    }
    int causal = chance(r, 40);
    snprintf(d->set, sizeof d->set, "B=%d,H=%d,S=%d,D=%d,CAUSAL=%d", Bt, H, S, D, causal);
    snprintf(d->tile, sizeof d->tile, "m=%d,n=%d,d=%d,wg=%d", 64 * wgs, bn, D, wgs);
    if (!load_graph(d, err) || !partition_default(d, err))
        return false;
    int K = pt_graph_find_tensor(&d->g, "K"), V = pt_graph_find_tensor(&d->g, "V");
    d->p.stages[K] = uni(r, 1, 6);
    d->p.stages[V] = uni(r, 1, 6);
    note(d, "stages K %d / V %d", d->p.stages[K], d->p.stages[V]);
    char id[64];
    /* consumer schedules: plain, look-ahead, FA3 order (docs/CODEGEN-sm90a.md) */
    int sched = four ? 2 * uni(r, 0, 1) : uni(r, 0, 2);
    for (int w = 0; w < wgs; w++) {
        char sfx[16] = "";
        if (wgs > 1)
            snprintf(sfx, sizeof sfx, ".wg%d", w);
        if (sched >= 1) {
            const char *ahead[] = {"mma.S", "softmax_max.P", "softmax_exp.P", "softmax_sum.P"};
            for (int k = 0; k < 4; k++) {
                snprintf(id, sizeof id, "%s%s", ahead[k], sfx);
                set_offset(d, id, 1, err);
            }
            if (sched == 1) {
                snprintf(id, sizeof id, "rescale.O%s", sfx);
                set_offset(d, id, 1, err);
            }
        }
        if (sched == 2) {
            snprintf(id, sizeof id, "rescale.O%s", sfx);
            int s = stask(d, id);
            if (s >= 0 && move_to(d, s, 0, entry_offset(d, s), err))
                note(d, "%s first on its CUDA-core lane", id);
        }
    }
    if (chance(r, 25))
        set_offset(d, "load.K", pick(r, (const int[]){1, 1, 2}, 3), err);
    if (chance(r, 15))
        set_offset(d, "load.V", 1, err);
    if (chance(r, 25)) {
        int lv = stask(d, "load.V"), lq = stask(d, "load.Q");
        (void)lq;
        move_to(d, lv, 1, entry_offset(d, lv), err);
        note(d, "tma order load.V before load.K");
    }
    if (wgs >= 2 && chance(r, 35)) {
        /* ping-pong of the tensor cores between warpgroups 0 and 1 */
        const char *mm = chance(r, 50) ? "mma.S" : "mma.O";
        char a[64], b[64];
        snprintf(a, sizeof a, "%s.wg0", mm);
        snprintf(b, sizeof b, "%s.wg1", mm);
        int sa = stask(d, a), sb = stask(d, b);
        int d0[1] = {0}, d1[1] = {1};
        if (sa >= 0 && sb >= 0 && pt_wait(&d->p, &d->sg, sb, &sa, d0, 1, err) &&
            pt_wait(&d->p, &d->sg, sa, &sb, d1, 1, err))
            note(d, "ping-pong Waits %s <-> %s", a, b);
    }
    store_role(d, r, wgs, err);
    draw_partition(d, r);
    /* two copies of Q (stages 2): a persistent producer loads the next tile's during this one */
    int q = stask(d, "load.Q");
    if (d->p.partition.persistent && q >= 0 && chance(r, 35)) {
        d->p.stages[d->sg.tasks[q].tensor] = 2;
        d->p.partition.staging = PT_STAGING_APART;
        note(d, "two copies of Q (stages 2), the output staged apart");
    }
    return true;
}

/* Draw k of seed `seed`: fills d; false with the reason when it is not accepted. `stage` says
 * which check refused: 0 accepted, 1 setup, 2 validator, 3 generator. */
static int draw_one(draw *d, const char *workload, uint64_t seed, int k, pt_error *err)
{
    memset(d->edits, 0, sizeof d->edits);
    d->set[0] = d->tile[0] = 0;
    snprintf(d->workload, sizeof d->workload, "%s", workload);
    rng r = {seed * 0x100000001b3ULL + (uint64_t)k * 0x9e3779b97f4a7c15ULL + 17};
    for (int i = 0; i < 3; i++)
        next_u64(&r);
    int mi = more_index(workload);
    bool ok = mi >= 0                ? more[mi].draw(d, &r, err)
              : is_attention(workload) ? draw_attention(d, &r, err)
              : is_lowbit(workload)  ? draw_lowbit(d, &r, err)
                                     : draw_gemm(d, &r, err);
    if (!ok)
        return 1;
    draw_run(d, &r);
    if (!pt_validate(&d->p, &d->sg, &d->hw, NULL, err))
        return 2;
    if (!pt_codegen_sm90a_check(&d->p, &d->sg, &d->hw, err))
        return 3;
    return 0;
}

/* ---- refusal reasons, counted --------------------------------------------------------------- */

#define MAX_REASONS 64
typedef struct {
    char what[96];
    int n;
} reason;
static reason reasons[MAX_REASONS];
static int n_reasons;

static void count_reason(int stage, const char *msg)
{
    char key[96];
    /* the reason's head, without numbers that vary from draw to draw */
    snprintf(key, sizeof key, "%s: ", stage == 1 ? "setup" : stage == 2 ? "validate" : "codegen");
    size_t n = strlen(key);
    for (const char *c = msg; *c && n + 1 < 60; c++)
        if (!(*c >= '0' && *c <= '9'))
            key[n++] = *c;
    key[n] = 0;
    for (int i = 0; i < n_reasons; i++)
        if (!strcmp(reasons[i].what, key)) {
            reasons[i].n++;
            return;
        }
    if (n_reasons < MAX_REASONS) {
        snprintf(reasons[n_reasons].what, sizeof reasons[0].what, "%s", key);
        reasons[n_reasons++].n = 1;
    }
}

static void print_reasons(FILE *f)
{
    for (int i = 0; i < n_reasons; i++)
        fprintf(f, "  refused %4d x  %s...\n", reasons[i].n, reasons[i].what);
}

/* ---- the contract checks of --check --------------------------------------------------------- */

static int failures;
static pt_release_lint releases; /* summed over the accepted draws' kernels */

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("FAIL: ", stdout);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    failures++;
}

static bool sim_finishes(draw *d, int64_t max_iters, char *msg, size_t cap)
{
    pt_timeline tl = {0};
    pt_error err = {{0}};
    /* a few iterations are enough to see a stuck ring (and keep 300 seeds fast) */
    int64_t iters = d->sg.iterations < max_iters ? d->sg.iterations : max_iters;
    bool ok = pt_simulate_eu(&d->p, &d->sg, &d->hw, iters, &tl, &err);
    pt_timeline_free(&tl);
    snprintf(msg, cap, "%s", err.msg);
    return ok;
}

static void check_accepted(draw *d, uint64_t seed)
{
    pt_error err = {{0}};
    char msg[sizeof err.msg];
    pt_stage_hold h;
    pt_stage_hold_decide(&d->p, &d->sg, &h);
    if (!h.progress)
        fail("seed %llu %s: accepted but the contract says the rings are stuck",
             (unsigned long long)seed, d->workload);
    if (!sim_finishes(d, 12, msg, sizeof msg))
        fail("seed %llu %s: accepted but the simulator does not finish: %s",
             (unsigned long long)seed, d->workload, msg);
    /* the program's JSON, reloaded (a fresh partition), is accepted again */
    char *json = pt_sprogram_to_json(&d->p, &d->sg);
    pt_sprogram p2;
    pt_stask_graph sg2;
    memset(&p2, 0, sizeof p2);
    memset(&sg2, 0, sizeof sg2);
    if (!json || !pt_sprogram_load_text(&p2, &sg2, &d->g, "random", json, strlen(json), &err))
        fail("seed %llu %s: the program's JSON does not reload: %s", (unsigned long long)seed,
             d->workload, err.msg);
    else {
        if (!pt_validate(&p2, &sg2, &d->hw, NULL, &err))
            fail("seed %llu %s: reloaded, the validator refuses it: %s", (unsigned long long)seed,
                 d->workload, err.msg);
        pt_codegen_result out;
        memset(&out, 0, sizeof out);
        if (!pt_codegen_sm90a(&p2, &sg2, &d->hw, &out, &err))
            fail("seed %llu %s: reloaded, the generator refuses it: %s", (unsigned long long)seed,
                 d->workload, err.msg);
        else {
            /* the kernel keeps a group in flight exactly when the contract says so */
            bool late = out.kernel_cu && strstr(out.kernel_cu, "wgmma_wait<1>();\n            if (i > 0)");
            if (is_gemm(d->workload) && late != (h.mma_in_flight == 1))
                fail("seed %llu %s: the kernel %s a wgmma group in flight but the contract says "
                     "%d", (unsigned long long)seed, d->workload, late ? "keeps" : "does not keep",
                     h.mma_in_flight);
            /* a stage its warps read on the CUDA cores goes back only once the reads returned */
            pt_release_lint r;
            char where[512];
            if (out.kernel_cu) {
                if (pt_release_lint_kernel(out.kernel_cu, &r, where, sizeof where))
                    fail("seed %llu %s: the kernel hands back a stage right after its warps' "
                         "reads without a proxy fence:%s", (unsigned long long)seed, d->workload,
                         where);
                releases.immediate += r.immediate;
                releases.deferred += r.deferred;
                releases.unfenced += r.unfenced;
            }
            pt_codegen_result_free(&out);
        }
        pt_sprogram_free(&p2);
        pt_stask_graph_free(&sg2);
    }
    free(json);
}

/* A GEMM draw the validator refused as a stuck ring: the simulator must not finish it. */
static void check_refused(draw *d, uint64_t seed, int k, const char *why, int *n_stuck)
{
    if (!is_gemm(d->workload) || !d->have_p)
        return;
    pt_stage_hold h;
    pt_stage_hold_decide(&d->p, &d->sg, &h);
    if (h.progress)
        return;
    (*n_stuck)++;
    char msg[sizeof ((pt_error *)0)->msg];
    if (sim_finishes(d, 64, msg, sizeof msg))
        fail("seed %llu draw %d %s: the contract says the rings are stuck (%s) but the simulator "
             "finishes", (unsigned long long)seed, k, d->workload, why);
}

/* `--check all` and differential.sh take seed s's workload as workloads[s mod 11] */
static const char *const workloads[] = {"gemm_f16",   "gemm_bf16",       "flash_attention",
                                        "flash_attention_bf16", "gemm_w4a16", "gemm_wfp4a16",
                                        "mamba2_chunk_state", "mamba2_chunk_scan",
                                        "flash_decoding", "flash_decoding_combine",
                                        "flash_decoding_unsplit"};
#define N_WORKLOADS (int)(sizeof workloads / sizeof workloads[0])

static int check_mode(const char *which, uint64_t seed0, int count)
{
    static draw d;
    int accepted = 0, draws = 0, stuck = 0;
    for (int i = 0; i < count; i++) {
        uint64_t seed = seed0 + (uint64_t)i;
        const char *w = strcmp(which, "all") ? which : workloads[seed % N_WORKLOADS];
        bool got = false;
        for (int k = 0; k < MAX_DRAWS && !got; k++) {
            pt_error err = {{0}};
            memset(&d.g, 0, sizeof d.g);
            int st = draw_one(&d, w, seed, k, &err);
            draws++;
            if (st == 0) {
                got = true;
                accepted++;
                check_accepted(&d, seed);
            } else {
                count_reason(st, err.msg);
                if (st == 2)
                    check_refused(&d, seed, k, err.msg, &stuck);
            }
            draw_free(&d);
        }
        if (!got)
            fail("seed %llu %s: nothing accepted in %d draws", (unsigned long long)seed, w,
                 MAX_DRAWS);
    }
    printf("gen_random_sprogram --check %s: %d seeds, %d accepted, %d draws, %d GEMM draws with "
           "stuck rings (all deadlock in the simulator too), %d failures\n", which, count,
           accepted, draws, stuck, failures);
    printf("stages read on the CUDA cores: %d handed back with their wgmma group, %d right after the "
           "reads behind a fence, %d without one\n", releases.deferred, releases.immediate,
           releases.unfenced);
    print_reasons(stdout);
    return failures ? 1 : 0;
}

static int write_mode(const char *w, uint64_t seed, const char *dir)
{
    static draw d;
    for (int k = 0; k < MAX_DRAWS; k++) {
        pt_error err = {{0}};
        memset(&d.g, 0, sizeof d.g);
        int st = draw_one(&d, w, seed, k, &err);
        if (st != 0) {
            count_reason(st, err.msg);
            draw_free(&d);
            continue;
        }
        mkdir(dir, 0777);
        pt_codegen_result info;
        if (!pt_codegen_bundle(dir, &d.p, &d.sg, &d.hw, PT_TARGET_DEFAULT, &info, &err)) {
            fprintf(stderr, "seed %llu %s: the bundle was not written: %s\n",
                    (unsigned long long)seed, w, err.msg);
            draw_free(&d);
            return 1;
        }
        char path[4096], *json = pt_sprogram_to_json(&d.p, &d.sg);
        snprintf(path, sizeof path, "%s/program.json", dir);
        bool ok = json && pt_write_file(path, json, &err);
        free(json);
        char replay[2048];
        int wq = pt_graph_find_tensor(&d.g, "Wq");
        bool frag = wq >= 0 && d.g.tensors[wq].packing == PT_PACK_FRAGMENTS;
        snprintf(replay, sizeof replay,
                 "seed %llu %s draw %d: set %s; tile %s; %s\n"
                 "replay: gen_random_sprogram %s %llu DIR%s\n"
                 "   or: pipethreader-cli codegen %s%s --set %s --program program.json --target sm90a -o DIR\n"
                 "kernel: %s\n",
                 (unsigned long long)seed, d.workload, k, d.set, d.tile, d.edits, w,
                 (unsigned long long)seed, small_sizes ? " --small" : "", d.workload,
                 frag ? " (with \"packing\": \"fragments\" on Wq)" : "", d.set, info.summary);
        snprintf(path, sizeof path, "%s/replay.txt", dir);
        ok = ok && pt_write_file(path, replay, &err);
        fputs(replay, stdout);
        draw_free(&d);
        if (!ok) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        return 0;
    }
    fprintf(stderr, "seed %llu %s: nothing accepted in %d draws\n", (unsigned long long)seed, w,
            MAX_DRAWS);
    print_reasons(stderr);
    return 1;
}

static bool known(const char *w)
{
    for (int i = 0; i < N_WORKLOADS; i++)
        if (!strcmp(w, workloads[i]))
            return true;
    return false;
}

int main(int argc, char **argv)
{
    if (argc == 5 && !strcmp(argv[1], "--check") && (known(argv[2]) || !strcmp(argv[2], "all")))
        return check_mode(argv[2], strtoull(argv[3], NULL, 10), atoi(argv[4]));
    if ((argc == 4 || (argc == 5 && !strcmp(argv[4], "--small"))) && known(argv[1])) {
        small_sizes = argc == 5;
        return write_mode(argv[1], strtoull(argv[2], NULL, 10), argv[3]);
    }
    fprintf(stderr, "usage: gen_random_sprogram WORKLOAD SEED OUTDIR [--small]\n"
                    "       gen_random_sprogram --check WORKLOAD|all SEED0 COUNT\n"
                    "WORKLOAD: gemm_f16, gemm_bf16, flash_attention, flash_attention_bf16,\n"
                    "          gemm_w4a16, gemm_wfp4a16, mamba2_chunk_state, mamba2_chunk_scan,\n"
                    "          flash_decoding, flash_decoding_combine, flash_decoding_unsplit\n");
    return 2;
}
