/* test_hw.c — hardware models: builtins load and carry sources, to_json round-trips,
 * "base" overrides, one-line errors for a corpus of bad files, robustness against truncated
 * and corrupted input, and the cost function. */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hw.h"
#include "json_util.h"
#include "ptest.h"

static bool load_str(pt_hw *hw, const char *text, pt_error *err)
{
    err->msg[0] = 0;
    return pt_hw_load_text(hw, "t.json", text, strlen(text), err);
}

/* Field-by-field equality (not memcmp: padding bytes are not values). */
static bool hw_equal(const pt_hw *a, const pt_hw *b)
{
    bool eq = !strcmp(a->name, b->name) && !strcmp(a->vendor, b->vendor) &&
              !strcmp(a->arch, b->arch) && !strcmp(a->source, b->source) &&
              a->eu_count == b->eu_count && a->clock_ghz == b->clock_ghz &&
              a->warp_size == b->warp_size && a->smem_per_eu == b->smem_per_eu &&
              a->smem_per_block == b->smem_per_block && a->regs_per_eu == b->regs_per_eu &&
              a->max_regs_per_thread == b->max_regs_per_thread &&
              a->min_regs_per_thread == b->min_regs_per_thread &&
              a->max_threads_per_block == b->max_threads_per_block &&
              a->max_warps_per_eu == b->max_warps_per_eu && a->l2_bytes == b->l2_bytes &&
              a->hbm_bytes_per_ns == b->hbm_bytes_per_ns &&
              a->l2_bytes_per_ns == b->l2_bytes_per_ns && a->barrier_ns == b->barrier_ns &&
              a->barrier_wait_ns == b->barrier_wait_ns &&
              a->cuda_core_fair == b->cuda_core_fair &&
              a->launch_ns == b->launch_ns && a->tile_overhead_ns == b->tile_overhead_ns &&
              a->mma_m == b->mma_m && a->mma_n_max == b->mma_n_max &&
              a->mma_n_step == b->mma_n_step && a->mma_k_bytes == b->mma_k_bytes &&
              a->tma_box_max == b->tma_box_max && a->cluster_sync_ns == b->cluster_sync_ns &&
              memcmp(a->cluster_capacity, b->cluster_capacity, sizeof a->cluster_capacity) == 0;
    for (int s = 0; s < PT_SEU_COUNT; s++)
        eq = eq && a->seu[s].present == b->seu[s].present && a->seu[s].async == b->seu[s].async &&
             a->seu[s].max_in_flight == b->seu[s].max_in_flight &&
             a->seu[s].issue_ns == b->seu[s].issue_ns;
    for (int k = 0; k < PT_ST_KIND_COUNT; k++)
        for (int d = 0; d < PT_DTYPE_COUNT; d++)
            eq = eq && a->cost[k][d].rate == b->cost[k][d].rate &&
                 a->cost[k][d].latency_ns == b->cost[k][d].latency_ns &&
                 a->cost[k][d].peak_rate == b->cost[k][d].peak_rate;
    return eq;
}

static void test_builtins(void)
{
    const char *const *names = pt_hw_builtin_names();
    int n = 0;
    for (; names[n]; n++) {
        pt_hw hw;
        pt_error err = {{0}};
        CHECK_MSG(pt_hw_load(&hw, names[n], &err), "%s: %s", names[n], err.msg);
        CHECK_STR(hw.name, names[n]);
        for (int s = 0; s < PT_SEU_COUNT; s++)
            CHECK(hw.seu[s].present);
        CHECK(hw.seu[PT_SEU_TMA].async);
        CHECK(!hw.seu[PT_SEU_CUDA_CORE].async);
        for (int k = 0; k < PT_ST_KIND_COUNT; k++)
            CHECK(pt_hw_duration(&hw, (pt_stask_kind)k, PT_F16, 1000) > 0);
        CHECK(pt_hw_duration(&hw, PT_ST_MMA, PT_INT4, 1000) < 0); /* not a tensor-core type */
        CHECK(pt_hw_duration(&hw, PT_ST_MMA, PT_FP4_E2M1, 1000) < 0);
        CHECK(hw.smem_per_block <= hw.smem_per_eu);
    }
    CHECK(n == 3);

    pt_hw h;
    pt_error err = {{0}};
    CHECK(pt_hw_load(&h, "H200", &err));
    CHECK(h.eu_count == 132);
    CHECK(h.smem_per_block == 232448);
    CHECK(h.regs_per_eu == 65536);
    CHECK(h.min_regs_per_thread == 24);
    CHECK(h.mma_m == 64 && h.mma_n_max == 256 && h.mma_n_step == 8 && h.mma_k_bytes == 32);
    CHECK(h.tma_box_max == 256);
    /* calibrated on the H200 on 2026-11-29 (pipethreader-cli calibrate: bf16 6713, fp8 13490),
     * then scaled to the sustained rate in generated kernels (0.776, fitted 2026-12-01 on
     * bench/measured-2026-12-01 with tools/model-score); bf16 = f16, the same rate per clock */
    CHECK_NEAR(h.cost[PT_ST_MMA][PT_BF16].rate, 5400, 0.1);
    CHECK_NEAR(h.cost[PT_ST_MMA][PT_FP8_E4M3].rate, 10471, 0.1);
    CHECK_NEAR(h.l2_sm_bytes_per_ns, 137.5, 0.01); /* one SM's L2 port (fitted, session 22) */
    CHECK_NEAR(h.cost[PT_ST_LOAD][PT_F16].rate, 68.72, 0.01); /* L2 re-read, largest tiles */
    CHECK_NEAR(h.hbm_bytes_per_ns, 4500, 1e-9); /* fitted, session 22 */
    CHECK_NEAR(h.dram_blend_p, 4.5, 1e-9); /* span and DRAM floor blended, not max */
    CHECK_NEAR(h.dram_short_run, 0.957, 1e-9); /* runs under 256 bytes (round 125) */
    CHECK_NEAR(h.dram_run_halving, 0.8, 1e-9); /* per halving under 128 bytes (session 39) */

    /* the H100 is the H200's chip with its own memory: the on-chip numbers are the H200's */
    pt_hw h2;
    CHECK(pt_hw_load(&h, "H100", &err) && pt_hw_load(&h2, "H200", &err));
    CHECK_STR(h.name, "H100");
    CHECK(h.cost[PT_ST_MMA][PT_F16].rate == h2.cost[PT_ST_MMA][PT_F16].rate);
    CHECK(h.clock_ghz == h2.clock_ghz && h.launch_ns == h2.launch_ns);
    CHECK(h.l2_sm_bytes_per_ns == h2.l2_sm_bytes_per_ns);
    CHECK(h.l2_bytes == 50LL << 20);
    CHECK_NEAR(h.hbm_bytes_per_ns, 3050, 1e-9); /* fitted on H100-timed decode kernels, session 34 */
    /* a kernel that writes as it reads loses rate to deeper rings (H100 ChunkState, session 40);
     * not measured on the H200, whose model leaves it out */
    CHECK_NEAR(h.dram_overfill_ns, 3300, 1e-9);
    CHECK_NEAR(h.dram_overfill_doubling, 0.85, 1e-9);
    CHECK(h2.dram_overfill_ns == 0 && h2.dram_overfill_doubling == 0);

    CHECK(pt_hw_load(&h, "MI300X", &err));
    CHECK(h.eu_count == 304 && h.warp_size == 64 && h.smem_per_eu == 65536);
    CHECK_STR(h.arch, "gfx942");
    CHECK_STR(h.vendor, "amd");
    CHECK(h.mma_m == 32);
    CHECK_NEAR(h.cost[PT_ST_MMA][PT_F16].rate, 1307.4e12 / 304 / 1e9, 1);

    /* Lookup is case-insensitive and knows common aliases. */
    CHECK(pt_hw_builtin_json("h200") != NULL);
    CHECK(pt_hw_builtin_json("H100-SXM") == pt_hw_builtin_json("H100"));
    CHECK(pt_hw_builtin_json("mi300x") != NULL);
    CHECK(pt_hw_builtin_json("B200") == NULL);
    CHECK(pt_hw_builtin_json(NULL) == NULL);
    CHECK(pt_hw_load(&h, "h100-sxm", &err) && strcmp(h.name, "H100") == 0);
    /* H200's measured cluster capacities (one CTA per SM); MI300X has no clusters */
    CHECK(pt_hw_load(&h, "H200", &err) && h.cluster_capacity[1] == 132 &&
          h.cluster_capacity[2] == 66 && h.cluster_capacity[4] == 30);
    CHECK(pt_hw_load(&h, "MI300X", &err) && h.cluster_capacity[2] == 0);
}

/* Every constant of a shipped model says where it comes from. */
static void test_builtin_sources(void)
{
    static const char *const scalars[] = {
        "eu_count", "clock_ghz", "warp_size", "smem_per_eu", "smem_per_block", "regs_per_eu",
        "max_regs_per_thread", "min_regs_per_thread", "max_threads_per_block", "max_warps_per_eu",
        "l2_bytes", "hbm_gbps", "l2_gbps", "barrier_ns", "launch_ns", "tile_overhead_ns",
        "tma_box_max", NULL};
    for (const char *const *n = pt_hw_builtin_names(); *n; n++) {
        cJSON *root = cJSON_Parse(pt_hw_builtin_json(*n));
        CHECK(root != NULL);
        if (!root)
            continue;
        CHECK(cJSON_IsString(cJSON_GetObjectItem(root, "source")));
        const cJSON *src = cJSON_GetObjectItem(root, "sources");
        for (const char *const *k = scalars; *k; k++)
            CHECK_MSG(cJSON_IsString(cJSON_GetObjectItem(src, *k)), "%s: no source for %s", *n,
                      *k);
        CHECK(cJSON_IsString(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "mma"), "source")));
        const cJSON *it;
        cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "seus"))
            CHECK_MSG(cJSON_IsString(cJSON_GetObjectItem(it, "source")), "%s: seu %s", *n,
                      it->string);
        cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "costs"))
            CHECK_MSG(cJSON_IsString(cJSON_GetObjectItem(it, "source")), "%s: cost %s", *n,
                      cJSON_GetStringValue(cJSON_GetObjectItem(it, "kind")));
        cJSON_Delete(root);
    }
}

static void test_round_trip(void)
{
    for (const char *const *n = pt_hw_builtin_names(); *n; n++) {
        pt_hw a, b;
        pt_error err = {{0}};
        CHECK(pt_hw_load(&a, *n, &err));
        char *text = pt_hw_to_json(&a);
        CHECK(text != NULL);
        if (!text)
            continue;
        CHECK_MSG(load_str(&b, text, &err), "%s: %s", *n, err.msg);
        CHECK_MSG(hw_equal(&a, &b), "%s round trip differs", *n);
        char *again = pt_hw_to_json(&b);
        CHECK(again && strcmp(text, again) == 0);
        free(again);
        free(text);
    }
}

/* The shared CUDA cores' peak rate and the barrier wait: an override sets them (a cost entry
 * may set only its peak), and they round-trip. */
static void test_peak_and_wait(void)
{
    const char *text = "{\"base\": \"H200\", \"name\": \"x\", \"barrier_wait_ns\": 120, "
                       "\"cuda_core_fair\": 1, "
                       "\"costs\": [{\"kind\": \"softmax_exp\", \"peak_rate\": 41}]}";
    pt_hw a, b, base;
    pt_error err = {{0}};
    CHECK(pt_hw_load(&base, "H200", &err));
    CHECK_MSG(load_str(&a, text, &err), "%s", err.msg);
    CHECK(a.barrier_wait_ns == 120);
    CHECK(a.cuda_core_fair == 1);
    CHECK(a.cost[PT_ST_SOFTMAX_EXP][PT_F16].peak_rate == 41);
    CHECK(a.cost[PT_ST_SOFTMAX_EXP][PT_F16].rate == base.cost[PT_ST_SOFTMAX_EXP][PT_F16].rate);
    CHECK(a.cost[PT_ST_SOFTMAX_MAX][PT_F16].peak_rate == base.cost[PT_ST_SOFTMAX_MAX][PT_F16].peak_rate);
    char *json = pt_hw_to_json(&a);
    CHECK(json != NULL);
    if (json) {
        CHECK_MSG(load_str(&b, json, &err), "%s", err.msg);
        CHECK(hw_equal(&a, &b));
    }
    free(json);
}

/* Doubles that 15 digits do not represent must still come back bit for bit. */
static void test_round_trip_exact(void)
{
    pt_hw a, b;
    pt_error err;
    const char *text = "{\"base\": \"MI300X\", \"name\": \"odd\", \"clock_ghz\": 0.30000000000000004,"
                       " \"costs\": [{\"kind\": \"mma\", \"dtype\": \"f16\", \"rate\": 4300.1100000000006}]}";
    CHECK_MSG(load_str(&a, text, &err), "%s", err.msg);
    CHECK(a.clock_ghz == 0.1 + 0.2);
    char *out = pt_hw_to_json(&a);
    CHECK(out && load_str(&b, out, &err));
    CHECK(hw_equal(&a, &b));
    free(out);
}

static void test_override(void)
{
    pt_hw base, hw;
    pt_error err = {{0}};
    CHECK(pt_hw_load(&base, "H200", &err));
    const char *text =
        "{\"base\": \"h200\", \"name\": \"H200-slow\", \"hbm_gbps\": 3000,\n"
        " \"seus\": {\"tma\": {\"max_in_flight\": 4}},\n"
        " \"mma\": {\"n_max\": 128},\n"
        " \"costs\": [{\"kind\": \"mma\", \"dtype\": \"bf16\", \"rate\": 5000},\n"
        "           {\"kind\": \"mma\", \"dtype\": \"fp8-e4m3\", \"rate\": 0},\n"
        "           {\"kind\": \"softmax_exp\", \"latency_ns\": 99}]}";
    CHECK_MSG(load_str(&hw, text, &err), "%s", err.msg);
    CHECK_STR(hw.name, "H200-slow");
    CHECK(hw.hbm_bytes_per_ns == 3000);
    CHECK(hw.eu_count == base.eu_count && hw.l2_bytes == base.l2_bytes);
    CHECK_STR(hw.source, base.source);
    CHECK(hw.seu[PT_SEU_TMA].max_in_flight == 4);
    CHECK(hw.seu[PT_SEU_TMA].issue_ns == base.seu[PT_SEU_TMA].issue_ns);
    CHECK(hw.mma_n_max == 128 && hw.mma_n_step == 8);
    CHECK(hw.cost[PT_ST_MMA][PT_BF16].rate == 5000);
    CHECK(hw.cost[PT_ST_MMA][PT_BF16].latency_ns == base.cost[PT_ST_MMA][PT_BF16].latency_ns);
    CHECK(hw.cost[PT_ST_MMA][PT_F16].rate == base.cost[PT_ST_MMA][PT_F16].rate);
    CHECK(pt_hw_duration(&hw, PT_ST_MMA, PT_FP8_E4M3, 100) < 0); /* disabled by rate 0 */
    for (int d = 0; d < PT_DTYPE_COUNT; d++) {
        CHECK(hw.cost[PT_ST_SOFTMAX_EXP][d].latency_ns == 99);
        CHECK(hw.cost[PT_ST_SOFTMAX_EXP][d].rate == base.cost[PT_ST_SOFTMAX_EXP][d].rate);
    }

    /* A dtype-specific entry wins over "*" whatever their order. */
    CHECK(load_str(&hw, "{\"base\": \"H100\", \"name\": \"x\", \"costs\": ["
                        "{\"kind\": \"load\", \"dtype\": \"f16\", \"rate\": 1},"
                        "{\"kind\": \"load\", \"dtype\": \"*\", \"rate\": 2}]}", &err));
    CHECK(hw.cost[PT_ST_LOAD][PT_F16].rate == 1 && hw.cost[PT_ST_LOAD][PT_BF16].rate == 2);

    /* The same through a file, and the override round-trips as a standalone model. */
    char path[] = "/tmp/test_hw_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) {
        CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
        close(fd);
        pt_hw f;
        CHECK_MSG(pt_hw_load(&f, path, &err), "%s", err.msg);
        CHECK(hw_equal(&f, &(pt_hw){0}) == false);
        char *out = pt_hw_to_json(&f);
        pt_hw g;
        CHECK(out && load_str(&g, out, &err));
        CHECK(hw_equal(&f, &g));
        free(out);
        unlink(path);
    }

    /* Failure leaves the model untouched. */
    pt_hw keep = base;
    CHECK(!load_str(&keep, "{\"base\": \"H200\", \"name\": \"y\", \"eu_count\": 0}", &err));
    CHECK(hw_equal(&keep, &base));
}

/* A minimal complete model, edited by the bad-input cases below. */
static const char *minimal =
    "{\"format\": \"pipethreader.hw\", \"version\": 1, \"name\": \"toy\", \"vendor\": \"nvidia\","
    " \"arch\": \"sm_90a\", \"source\": \"test\", \"eu_count\": 2, \"clock_ghz\": 1,"
    " \"warp_size\": 32, \"smem_per_eu\": 1024, \"smem_per_block\": 1024, \"regs_per_eu\": 65536,"
    " \"max_regs_per_thread\": 255, \"min_regs_per_thread\": 24, \"max_threads_per_block\": 1024,"
    " \"max_warps_per_eu\": 64, \"l2_bytes\": 0, \"hbm_gbps\": 100, \"l2_gbps\": 200,"
    " \"barrier_ns\": 1, \"launch_ns\": 2, \"tile_overhead_ns\": 3,"
    " \"mma\": {\"m\": 64, \"n_max\": 256, \"n_step\": 8, \"k_bytes\": 32}, \"tma_box_max\": 256,"
    " \"seus\": {\"tma\": {\"async\": true, \"max_in_flight\": 8, \"issue_ns\": 1},"
    "  \"tensor_core\": {\"async\": true, \"issue_ns\": 1},"
    "  \"cuda_core\": {\"async\": false, \"issue_ns\": 0}},"
    " \"costs\": [{\"kind\": \"load\", \"rate\": 1, \"latency_ns\": 1},"
    "  {\"kind\": \"store\", \"rate\": 1, \"latency_ns\": 1},"
    "  {\"kind\": \"mma\", \"dtype\": \"f16\", \"rate\": 1, \"latency_ns\": 1},"
    "  {\"kind\": \"softmax_max\", \"rate\": 1, \"latency_ns\": 1},"
    "  {\"kind\": \"softmax_exp\", \"rate\": 1, \"latency_ns\": 1},"
    "  {\"kind\": \"softmax_sum\", \"rate\": 1, \"latency_ns\": 1},"
    "  {\"kind\": \"rescale\", \"rate\": 1, \"latency_ns\": 1},"
    "  {\"kind\": \"normalize\", \"rate\": 1, \"latency_ns\": 1},"
    "  {\"kind\": \"elementwise\", \"rate\": 1, \"latency_ns\": 1},"
    "  {\"kind\": \"reduce\", \"rate\": 1, \"latency_ns\": 1},"
    "  {\"kind\": \"dequant\", \"rate\": 1, \"latency_ns\": 1},"
    "  {\"kind\": \"cumsum\", \"rate\": 1, \"latency_ns\": 1},"
    "  {\"kind\": \"exp_decay\", \"rate\": 1, \"latency_ns\": 1},"
    "  {\"kind\": \"fill\", \"rate\": 1, \"latency_ns\": 1},"
    "  {\"kind\": \"convert\", \"rate\": 1, \"latency_ns\": 1}]}";

/* minimal with the first occurrence of `from` replaced by `to`. */
static char *edit(const char *from, const char *to)
{
    const char *at = strstr(minimal, from);
    if (!at)
        return NULL;
    size_t n = strlen(minimal) - strlen(from) + strlen(to) + 1;
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)(at - minimal), minimal, to, at + strlen(from));
    return out;
}

static void test_bad_inputs(void)
{
    pt_hw hw;
    pt_error err;
    CHECK_MSG(load_str(&hw, minimal, &err), "%s", err.msg);

    static const struct {
        const char *from, *to, *want;
    } cases[] = {
        {"\"eu_count\": 2", "\"eu_count\": \"2\"", "t.json: $.eu_count: is a string; expected an integer"},
        {"\"eu_count\": 2", "\"eu_count\": 0", "$.eu_count: 0 is out of range; expected 1 to 4096"},
        {"\"eu_count\": 2", "\"eu_count\": 5000", "expected 1 to 4096"},
        {"\"eu_count\": 2", "\"eu_count\": 2.5", "$.eu_count: 2.5 is not a whole number"},
        {"\"eu_count\": 2,", "", "t.json: $: missing \"eu_count\"; expected an integer"},
        {"\"hbm_gbps\": 100", "\"hbm_gbps\": 0", "$.hbm_gbps: 0 is out of range; expected 1e-06 to"},
        {"\"hbm_gbps\": 100", "\"hbm_gbps\": -5", "$.hbm_gbps: -5 is out of range"},
        {"\"clock_ghz\": 1", "\"clock_ghz\": 1e999", "$.clock_ghz: inf is out of range"},
        {"\"smem_per_block\": 1024", "\"smem_per_block\": 2048", "$.smem_per_block: 2048 is more than smem_per_eu (1024)"},
        {"\"min_regs_per_thread\": 24", "\"min_regs_per_thread\": 300", "$.min_regs_per_thread: 300 is more than max_regs_per_thread"},
        {"\"max_warps_per_eu\": 64", "\"max_warps_per_eu\": 16", "$.max_threads_per_block: 1024 is more than max_warps_per_eu x warp_size"},
        {"\"n_step\": 8", "\"n_step\": 24", "$.mma.n_max: 256 is not a multiple of n_step (24)"},
        {"\"n_step\": 8", "\"n_step\": 0", "$.mma.n_step: 0 is out of range"},
        {"\"k_bytes\": 32", "\"k_bytes\": 32, \"kk\": 1", "$.mma: unknown key \"kk\""},
        {"\"eu_count\": 2,", "\"eu_count\": 2, \"clusters\": {\"capacity\": [2, 1], \"sync_ns\": -1},", "$.clusters.sync_ns: -1 is out of range"},
        {"\"eu_count\": 2,", "\"eu_count\": 2, \"clusters\": {\"capacity\": [], \"sync_ns\": 1},", "$.clusters.capacity: is an array of the wrong length; expected an array of 1 to 8 counts"},
        {"\"eu_count\": 2,", "\"eu_count\": 2, \"clusters\": {\"capacity\": [2, 1.5], \"sync_ns\": 1},", "$.clusters.capacity[1]: is 1.5; expected a whole number"},
        {"\"eu_count\": 2,", "\"eu_count\": 2, \"clusters\": {\"sync_ns\": 1},", "$.clusters.capacity: is missing"},
        {"\"eu_count\": 2,", "\"eu_count\": 2, \"clusters\": {\"capacity\": [2, \"1\"], \"sync_ns\": 1},", "$.clusters.capacity[1]: is a string; expected a whole number"},
        {"\"eu_count\"", "\"eu\\ncount\"", "unknown key \"eu?count\""},
        {"\"eu_count\"", "\"eu_cuont\"", "t.json: $: unknown key \"eu_cuont\"; expected one of:"},
        {"\"name\": \"toy\"", "\"name\": 7", "$.name: is a number; expected a string"},
        {"\"name\": \"toy\"", "\"name\": \"\"", "$.name: is empty; expected a name"},
        {"\"name\": \"toy\"", "\"name\": \"0123456789012345678901234567890123456789012345678\"", "$.name: is 49 characters long; expected at most 47"},
        {"\"name\": \"toy\"", "\"name\": \"t\\noy\"", "$.name: contains a control character (byte 10)"},
        {"\"format\"", "\"base\": \"H2\\n00\", \"format\"", "$.base: unknown hardware model \"H2?00\""},
        {"\"kind\": \"cumsum\"", "\"kind\": \"cum\\tsum\"", "unknown sTask kind \"cum?sum\""},
        {"\"vendor\": \"nvidia\"", "\"vendor\": \"intel\"", "$.vendor: is \"intel\"; expected \"nvidia\" or \"amd\""},
        {"\"pipethreader.hw\"", "\"pipethreader.graph\"", "t.json is an operator graph, expected a hardware model"},
        {"\"version\": 1", "\"version\": 2", "$.version: 2 is not supported; expected 1"},
        {"\"version\": 1", "\"version\": \"1\"", "$.version: is a string; expected the number 1"},
        {"\"tensor_core\": {\"async\": true, \"issue_ns\": 1},", "", "$.seus: missing \"tensor_core\""},
        {"\"tensor_core\"", "\"tensor_cores\"", "$.seus: unknown sEU \"tensor_cores\"; expected one of: tma, tensor_core, cuda_core"},
        {"\"tma\": {\"async\": true,", "\"tma\": {\"async\": 1,", "$.seus.tma.async: is a number; expected true or false"},
        {"\"tma\": {\"async\": true,", "\"tma\": {", "$.seus.tma: missing \"async\""},
        {"\"max_in_flight\": 8", "\"max_in_flight\": -1", "$.seus.tma.max_in_flight: -1 is out of range"},
        {"{\"kind\": \"load\",", "7, {\"kind\": \"load\",", "$.costs[0]: is a number; expected an object"},
        {"\"kind\": \"cumsum\"", "\"kind\": \"scan\"", "$.costs[11].kind: unknown sTask kind \"scan\"; expected one of: load, store, mma,"},
        {"\"dtype\": \"f16\"", "\"dtype\": \"f15\"", "$.costs[2].dtype: unknown dtype \"f15\"; expected \"*\" or one of: f16, bf16"},
        {"\"dtype\": \"f16\"", "\"dtype\": 16", "$.costs[2].dtype: is a number; expected a string"},
        {"{\"kind\": \"store\", \"rate\": 1,", "{\"kind\": \"store\", \"rate\": -1,", "$.costs[1].rate: -1 is out of range"},
        {"{\"kind\": \"store\", \"rate\": 1,", "{\"kind\": \"store\",", "$.costs[1]: missing \"rate\"; expected a number"},
        {"{\"kind\": \"store\", \"rate\": 1,", "{\"kind\": \"store\", \"rate\": 1, \"speed\": 2,", "$.costs[1]: unknown key \"speed\""},
        {"{\"kind\": \"store\",", "{\"kind\": \"load\",", "$.costs[1]: a second entry for load on \"*\" (the first is $.costs[0])"},
        {"{\"kind\": \"fill\", \"rate\": 1,", "{\"kind\": \"fill\", \"rate\": 0,", "$.costs: no positive rate for sTask kind \"fill\""},
        {"  {\"kind\": \"convert\", \"rate\": 1, \"latency_ns\": 1}]", "{\"kind\": \"convert\", \"dtype\": \"f16\", \"rate\": 1, \"latency_ns\": 1}, {\"kind\": \"convert\", \"dtype\": \"f16\", \"rate\": 1, \"latency_ns\": 1}]", "a second entry for convert on f16"},
        {"\"source\": \"test\"", "\"source\": \"test\", \"sources\": {\"eu_count\": 1}", "$.sources.eu_count: is a number; expected a string"},
        {"\"source\": \"test\"", "\"source\": \"test\", \"sources\": {\"eu_cnt\": \"x\"}", "$.sources: unknown key \"eu_cnt\""},
        {"\"format\"", "\"base\": \"B200\", \"format\"", "$.base: unknown hardware model \"B200\"; expected one of: H100, H200, MI300X"},
        {"\"format\"", "\"base\": 200, \"format\"", "$.base: is a number; expected a string"},
        {"\"costs\": [", "\"costs\": [{\"kind\": \"load\", \"dtype\": \"*\"}, ", "$.costs[0]: missing \"rate\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *text = edit(cases[i].from, cases[i].to);
        CHECK_MSG(text != NULL, "case %zu: \"%s\" not in the minimal model", i, cases[i].from);
        if (!text)
            continue;
        bool ok = load_str(&hw, text, &err);
        CHECK_MSG(!ok, "case %zu loaded: %s", i, text);
        CHECK_MSG(strstr(err.msg, cases[i].want) != NULL, "case %zu: \"%s\" lacks \"%s\"", i,
                  err.msg, cases[i].want);
        CHECK_MSG(strchr(err.msg, '\n') == NULL, "case %zu: message is not one line", i);
        free(text);
    }

    /* Whole-text problems. */
    static const struct {
        const char *text, *want;
    } texts[] = {
        {"", "t.json: line 1: the file is empty"},
        {"[1, 2]", "t.json: $: is an array; expected a JSON object"},
        {"{\"name\": \"x\"", "ends early (truncated?)"},
        {"{\"base\": \"H200\"}", "t.json: $: missing \"name\"; expected a string"},
        {"{\"base\": \"H200\", \"name\": \"x\", \"costs\": [{\"kind\": \"mma\"}]}",
         "$.costs[0]: sets none of \"rate\", \"latency_ns\" and \"peak_rate\""},
        {"{\"base\": \"H200\", \"name\": \"x\", \"smem_per_block\": 300000}",
         "$.smem_per_block: 300000 is more than smem_per_eu (233472)"},
        {"{} x", "unexpected text after the JSON value"},
        {"{\"a\":\n\n}", "JSON syntax error"},
        {"{\"base\": \"H200\", \"name\": \"x\", \"mma\": []}", "$.mma: is an array; expected an object"},
        {"{\"base\": \"H200\", \"name\": \"x\", \"seus\": {\"cuda_core\": 3}}",
         "$.seus.cuda_core: is a number; expected an object"},
        {"{\"base\": \"H200\", \"name\": \"x\", \"seus\": []}", "$.seus: is an array; expected an object"},
        {"{\"base\": \"H200\", \"name\": \"x\", \"costs\": {}}", "$.costs: is an object; expected an array"},
        {"{\"base\": \"H200\", \"name\": \"x\", \"costs\": 1}", "$.costs: is a number; expected an array"},
        {"{\"base\": \"H200\", \"name\": \"x\", \"mma\": {\"n_step\": 7}}",
         "$.mma.n_max: 256 is not a multiple of n_step (7)"},
        {"{\"base\": \"H200\", \"name\": \"x\", \"eu_count\": null}", "$.eu_count: is null; expected an integer"},
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        CHECK_MSG(!load_str(&hw, texts[i].text, &err), "text %zu loaded", i);
        CHECK_MSG(strstr(err.msg, texts[i].want) != NULL, "text %zu: \"%s\" lacks \"%s\"", i,
                  err.msg, texts[i].want);
        CHECK_MSG(strchr(err.msg, '\n') == NULL, "text %zu: message is not one line", i);
    }

    CHECK(!pt_hw_load(&hw, "/nonexistent/hw.json", &err));
    CHECK_CONTAINS(err.msg, "/nonexistent/hw.json: cannot open");
    /* a name that is no builtin and no file: the builtins are listed */
    CHECK(!pt_hw_load(&hw, "H300", &err));
    CHECK_STR(err.msg, "unknown hardware model \"H300\"; built-in: H100, H200, MI300X (or give "
                       "a JSON file path)");
    CHECK(!pt_hw_load(&hw, "", &err));
    CHECK(!pt_hw_load(&hw, "/tmp", &err));
    CHECK_CONTAINS(err.msg, "is a directory");
    CHECK(!pt_hw_load_text(&hw, NULL, NULL, 0, &err));
}

/* Every prefix of a builtin and a few thousand corrupted copies: no crash, and every failure
 * says something. Run under ASan/UBSan this is a small fuzz pass. */
static void test_robustness(void)
{
    const char *src = pt_hw_builtin_json("H200");
    size_t len = strlen(src);
    pt_hw hw;
    pt_error err;
    int failures_without_message = 0, loaded_prefixes = 0;
    size_t last = (size_t)(strrchr(src, '}') - src); /* the prefix up to here is incomplete */
    for (size_t n = 0; n < last; n += 3) {
        err.msg[0] = 0;
        if (pt_hw_load_text(&hw, "p", src, n, &err))
            loaded_prefixes++;
        else if (!err.msg[0])
            failures_without_message++;
    }
    CHECK(loaded_prefixes == 0);
    char *buf = malloc(len + 1);
    uint32_t seed = 12345;
    static const char junk[] = "{}[]\",:0-9eE.tfn \\x\x01\xff";
    for (int round = 0; round < 3000; round++) {
        memcpy(buf, src, len + 1);
        for (int k = 0; k < 1 + round % 4; k++) {
            seed = seed * 1664525u + 1013904223u;
            size_t at = (seed >> 8) % len;
            seed = seed * 1664525u + 1013904223u;
            buf[at] = junk[(seed >> 8) % (sizeof junk - 1)];
        }
        err.msg[0] = 0;
        if (!pt_hw_load_text(&hw, "f", buf, len, &err) && !err.msg[0])
            failures_without_message++;
    }
    free(buf);
    CHECK(failures_without_message == 0);
}

static void test_duration(void)
{
    pt_hw hw;
    pt_error err;
    CHECK(pt_hw_load(&hw, "H200", &err));
    double flops = 2.0 * 128 * 256 * 64;
    const pt_cost *c = &hw.cost[PT_ST_MMA][PT_F16];
    double t = pt_hw_duration(&hw, PT_ST_MMA, PT_F16, flops);
    CHECK_NEAR(t, c->latency_ns + flops / c->rate, 1e-9);
    CHECK(t > 600 && t < 800); /* 4.19 MFLOP at ~6 TFLOP/ns... ~700 ns on one SM */

    double bytes = 128 * 64 * 2;
    double tl = pt_hw_duration(&hw, PT_ST_LOAD, PT_F16, bytes);
    CHECK_NEAR(tl, hw.cost[PT_ST_LOAD][PT_F16].latency_ns + bytes / hw.cost[PT_ST_LOAD][PT_F16].rate,
               1e-9);
    CHECK(tl > 600 && tl < 1200); /* 16 KiB at ~32.6 B/ns = ~500 ns after ~600 ns latency */
    CHECK(pt_hw_duration(&hw, PT_ST_SOFTMAX_EXP, PT_F32, 0) ==
          hw.cost[PT_ST_SOFTMAX_EXP][PT_F32].latency_ns);
    CHECK(pt_hw_duration(&hw, PT_ST_FILL, PT_F32, -5) == hw.cost[PT_ST_FILL][PT_F32].latency_ns);
    CHECK(pt_hw_duration(&hw, PT_ST_FILL, PT_F32, NAN) == hw.cost[PT_ST_FILL][PT_F32].latency_ns);
    CHECK(pt_hw_duration(&hw, PT_ST_KIND_COUNT, PT_F16, 1) < 0);
    CHECK(pt_hw_duration(&hw, PT_ST_MMA, PT_DTYPE_COUNT, 1) < 0);
    CHECK(pt_hw_duration(NULL, PT_ST_MMA, PT_F16, 1) < 0);

    /* fp8 runs at its own rate: the same flops take flops / rate after its latency. */
    double t8 = pt_hw_duration(&hw, PT_ST_MMA, PT_FP8_E4M3, flops);
    CHECK_NEAR(t8 - hw.cost[PT_ST_MMA][PT_FP8_E4M3].latency_ns,
               flops / hw.cost[PT_ST_MMA][PT_FP8_E4M3].rate, 1e-6);
}

/* Rates and bandwidths that cannot give finite times are refused at load time, naming the
 * file, the field and the accepted range (1e-300 used to load and make every time inf). */
static void test_finite_rates(void)
{
    pt_hw hw;
    pt_error err;
    CHECK(!load_str(&hw, "{\"base\": \"H200\", \"name\": \"x\", \"costs\": [{\"kind\": "
                         "\"mma\", \"dtype\": \"*\", \"rate\": 1e-300}]}", &err));
    CHECK_CONTAINS(err.msg, "t.json: $.costs[0].rate: 1e-300 is too small to give finite times; "
                            "expected 0 (unsupported) or 1e-06 to 1e+09");
    CHECK(!load_str(&hw, "{\"base\": \"H200\", \"name\": \"x\", \"hbm_gbps\": 1e-300}", &err));
    CHECK_CONTAINS(err.msg, "t.json: $.hbm_gbps: 1e-300 is out of range; expected 1e-06 to");
    CHECK(!load_str(&hw, "{\"base\": \"H200\", \"name\": \"x\", \"clock_ghz\": 1e-300}", &err));
    CHECK_CONTAINS(err.msg, "t.json: $.clock_ghz: 1e-300 is out of range");
    /* 0 still means "unsupported"; the limit itself loads */
    CHECK_MSG(load_str(&hw, "{\"base\": \"H200\", \"name\": \"x\", \"costs\": [{\"kind\": "
                            "\"mma\", \"dtype\": \"*\", \"rate\": 1e-6}, {\"kind\": \"mma\", "
                            "\"dtype\": \"fp8-e4m3\", \"rate\": 0}]}", &err), "%s", err.msg);
    CHECK_STR(hw.file, "t.json");
}

int main(void)
{
    PTEST_RUN(test_builtins);
    PTEST_RUN(test_builtin_sources);
    PTEST_RUN(test_round_trip);
    PTEST_RUN(test_peak_and_wait);
    PTEST_RUN(test_round_trip_exact);
    PTEST_RUN(test_override);
    PTEST_RUN(test_bad_inputs);
    PTEST_RUN(test_robustness);
    PTEST_RUN(test_duration);
    PTEST_RUN(test_finite_rates);
    PTEST_END();
}
