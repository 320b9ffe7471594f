/* test_sprogram.c — the sProgram: init, Append/Wait editing, the default program and the
 * sProgram JSON format (writing, reading back, and refusing bad files with one-line errors).
 *
 * The sTask-graphs are built by hand so these tests pin the sProgram layer alone; only the
 * JSON round trip uses a real operator graph, because loading re-runs sTask-partition. */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ptest.h"
#include "sprogram.h"

#include "hand_gemm.h"

static int find(const pt_stask_graph *sg, const char *id)
{
    for (int i = 0; i < sg->n; i++)
        if (strcmp(sg->tasks[i].id, id) == 0)
            return i;
    return -1;
}

/* "id,id,..." of a lane, offsets as id@o. */
static const char *lane_str(const pt_sprogram *p, const pt_stask_graph *sg, const char *lane)
{
    static char buf[512];
    buf[0] = 0;
    int l = pt_sprogram_find_lane(p, lane);
    if (l < 0)
        return "(no lane)";
    for (int i = 0; i < p->lanes[l].n; i++) {
        const pt_lane_entry *e = &p->lanes[l].entries[i];
        size_t n = strlen(buf);
        snprintf(buf + n, sizeof buf - n, "%s%s", i ? "," : "", sg->tasks[e->stask].id);
        if (e->offset) {
            n = strlen(buf);
            snprintf(buf + n, sizeof buf - n, "@%d", e->offset);
        }
    }
    return buf;
}

/* ---- init ---- */

static void test_init(void)
{
    pt_stask_graph sg;
    pt_hw hw;
    pt_sprogram p;
    hand_hw(&hw);

    hand_graph(&sg, 1);
    pt_sprogram_init(&p, &sg, &hw);
    CHECK(p.n_roles == 2);
    CHECK_STR(p.roles[0].name, "producer");
    CHECK(p.roles[0].regs == 40 && p.roles[0].wg == -1 && p.roles[0].threads == 128);
    CHECK_STR(p.roles[1].name, "wg0");
    CHECK(p.roles[1].regs == 240 && p.roles[1].wg == 0); /* capped at 240 */
    CHECK(p.n_lanes == 3);
    CHECK_STR(p.lanes[0].name, "tma");
    CHECK(p.lanes[0].seu == PT_SEU_TMA && p.lanes[0].role == 0);
    CHECK_STR(p.lanes[1].name, "tc.wg0");
    CHECK(p.lanes[1].seu == PT_SEU_TENSOR_CORE && p.lanes[1].role == 1);
    CHECK_STR(p.lanes[2].name, "cuda.wg0");
    CHECK(p.lanes[2].seu == PT_SEU_CUDA_CORE);
    CHECK(p.stages[0] == 2 && p.stages[1] == 2 && p.stages[2] == 0);
    CHECK_STR(p.graph_name, "hand_gemm");
    CHECK_STR(p.hw_name, "TestGPU");
    CHECK(p.partition.raster == PT_RASTER_ROW && p.partition.group == 8 &&
          !p.partition.persistent);
    CHECK(p.tiling.tile[0] == 128 && p.tiling.warpgroups == 1);
    CHECK(p.n_waits == 0);
    pt_sprogram_free(&p);
    free(sg.tasks);

    hand_graph(&sg, 2);
    pt_sprogram_init(&p, &sg, &hw);
    CHECK(p.n_roles == 3);
    CHECK(p.roles[1].regs == 232 && p.roles[2].regs == 232); /* 40*128 + 2*232*128 <= 64K */
    CHECK(5120 + 2 * 128 * p.roles[1].regs <= 65536);
    CHECK(5120 + 2 * 128 * (p.roles[1].regs + 8) > 65536);
    CHECK(p.n_lanes == 5);
    CHECK_STR(p.lanes[3].name, "tc.wg1");
    CHECK_STR(p.lanes[4].name, "cuda.wg1");
    CHECK(p.lanes[4].role == 2);
    pt_sprogram_free(&p);
    free(sg.tasks);

    CHECK(strcmp(pt_raster_name(PT_RASTER_GROUPED), "grouped") == 0);
    pt_raster r;
    CHECK(pt_raster_parse("column", &r) && r == PT_RASTER_COLUMN);
    CHECK(!pt_raster_parse("diagonal", &r));
    CHECK(!pt_raster_parse(NULL, &r));
}

/* ---- Append / unplace ---- */

static void test_append(void)
{
    pt_stask_graph sg;
    pt_hw hw;
    pt_sprogram p;
    pt_error err = {{0}};
    hand_hw(&hw);
    hand_graph(&sg, 1);
    pt_sprogram_init(&p, &sg, &hw);
    int tma = pt_sprogram_find_lane(&p, "tma"), tc = pt_sprogram_find_lane(&p, "tc.wg0");
    int A = find(&sg, "load.A"), B = find(&sg, "load.B"), M = find(&sg, "mma.C.wg0");
    int S = find(&sg, "store.C");
    CHECK(tma == 0 && tc == 1 && pt_sprogram_find_lane(&p, "nope") < 0);

    CHECK(pt_append(&p, &sg, A, tma, -1, 0, &err));
    CHECK(pt_append(&p, &sg, B, tma, -1, 0, &err));
    CHECK_STR(lane_str(&p, &sg, "tma"), "load.A,load.B");
    /* move within the lane: B to the front */
    CHECK(pt_append(&p, &sg, B, tma, 0, 0, &err));
    CHECK_STR(lane_str(&p, &sg, "tma"), "load.B,load.A");
    /* re-append at the end with an offset (body sTask) */
    CHECK(pt_append(&p, &sg, B, tma, -1, 1, &err));
    CHECK_STR(lane_str(&p, &sg, "tma"), "load.A,load.B@1");
    /* move to another lane: removed from the first */
    CHECK(pt_append(&p, &sg, B, tc, -1, 0, &err));
    CHECK_STR(lane_str(&p, &sg, "tma"), "load.A");
    CHECK_STR(lane_str(&p, &sg, "tc.wg0"), "load.B");
    int lane = -1, pos = -1;
    CHECK(pt_sprogram_placement(&p, B, &lane, &pos) && lane == tc && pos == 0);
    CHECK(!pt_sprogram_placement(&p, M, &lane, &pos));
    CHECK(pt_append(&p, &sg, M, tc, 0, 0, &err));
    CHECK_STR(lane_str(&p, &sg, "tc.wg0"), "mma.C.wg0,load.B");
    /* position counts the lane after the sTask left it: 1 is the end here */
    CHECK(pt_append(&p, &sg, M, tc, 1, 0, &err));
    CHECK_STR(lane_str(&p, &sg, "tc.wg0"), "load.B,mma.C.wg0");

    /* refused edits change nothing and name the sTask and the lane */
    CHECK(!pt_append(&p, &sg, M, tc, 2, 0, &err));
    CHECK_CONTAINS(err.msg, "mma.C.wg0");
    CHECK_CONTAINS(err.msg, "tc.wg0");
    CHECK_CONTAINS(err.msg, "position 2");
    CHECK(!pt_append(&p, &sg, M, tc, -2, 0, &err));
    CHECK(!pt_append(&p, &sg, S, tma, -1, 1, &err));
    CHECK_CONTAINS(err.msg, "store.C");
    CHECK_CONTAINS(err.msg, "loop-body");
    CHECK(!pt_append(&p, &sg, A, tma, -1, 9, &err));
    CHECK_CONTAINS(err.msg, "offset 9");
    CHECK(!pt_append(&p, &sg, A, tma, -1, -9, &err));
    CHECK(!pt_append(&p, &sg, A, 7, -1, 0, &err));
    CHECK_CONTAINS(err.msg, "lane index 7");
    CHECK(!pt_append(&p, &sg, A, -1, -1, 0, &err));
    CHECK(!pt_append(&p, &sg, 99, tma, -1, 0, &err));
    CHECK_CONTAINS(err.msg, "99");
    CHECK(!pt_append(&p, &sg, -1, tma, -1, 0, &err));
    CHECK(!pt_append(NULL, &sg, A, tma, -1, 0, &err));
    CHECK_STR(lane_str(&p, &sg, "tma"), "load.A");
    CHECK_STR(lane_str(&p, &sg, "tc.wg0"), "load.B,mma.C.wg0");

    /* many appends grow the lane */
    for (int i = 0; i < 100; i++)
        CHECK(pt_append(&p, &sg, i % 2 ? A : B, tma, 0, 0, &err));
    CHECK(p.lanes[tma].n == 2);

    CHECK(pt_unplace(&p, B));
    CHECK(!pt_sprogram_placement(&p, B, NULL, NULL));
    CHECK(!pt_unplace(&p, B));
    CHECK(!pt_unplace(&p, 1000));
    pt_sprogram_free(&p);
    CHECK(p.n_lanes == 0 && p.waits == NULL);
    pt_sprogram_free(&p); /* twice is harmless */
    free(sg.tasks);
}

/* ---- Wait ---- */

static void test_wait(void)
{
    pt_stask_graph sg;
    pt_sprogram p;
    pt_error err = {{0}};
    hand_graph(&sg, 1);
    pt_sprogram_init(&p, &sg, NULL);
    int A = find(&sg, "load.A"), B = find(&sg, "load.B"), M = find(&sg, "mma.C.wg0");
    int on[] = {A, B}, dist[] = {0, 1};
    CHECK(pt_wait(&p, &sg, M, on, NULL, 2, &err));
    CHECK(p.n_waits == 2);
    CHECK(pt_has_wait(&p, M, A, 0) && pt_has_wait(&p, M, B, 0));
    CHECK(!pt_has_wait(&p, M, B, 1));
    CHECK(pt_wait(&p, &sg, M, on, dist, 2, &err)); /* (M,A,0) duplicate, (M,B,1) new */
    CHECK(p.n_waits == 3);
    CHECK(pt_has_wait(&p, M, B, 1));
    /* a loop-carried self Wait is allowed, a same-iteration one is not */
    int self = M, one = 1, zero = 0, nine = 9;
    CHECK(pt_wait(&p, &sg, M, &self, &one, 1, &err));
    CHECK(!pt_wait(&p, &sg, M, &self, &zero, 1, &err));
    CHECK_CONTAINS(err.msg, "mma.C.wg0");
    CHECK_CONTAINS(err.msg, "itself");
    CHECK(!pt_wait(&p, &sg, M, &A, &nine, 1, &err));
    CHECK_CONTAINS(err.msg, "distance 9");
    int bad[] = {A, 42};
    CHECK(!pt_wait(&p, &sg, M, bad, NULL, 2, &err)); /* all or nothing */
    CHECK_CONTAINS(err.msg, "42");
    CHECK(!pt_wait(&p, &sg, 42, on, NULL, 1, &err));
    CHECK(!pt_wait(&p, &sg, M, NULL, NULL, 1, &err));
    CHECK(pt_wait(&p, &sg, M, NULL, NULL, 0, &err));
    CHECK(p.n_waits == 4);

    CHECK(pt_unwait(&p, M, B, 1));
    CHECK(!pt_has_wait(&p, M, B, 1));
    CHECK(!pt_unwait(&p, M, B, 1));
    CHECK(pt_has_wait(&p, M, A, 0));
    CHECK(p.n_waits == 3);

    /* a deep copy is independent */
    pt_sprogram q;
    CHECK(pt_append(&p, &sg, A, 0, -1, 0, &err));
    CHECK(pt_sprogram_copy(&q, &p));
    CHECK(pt_unwait(&q, M, A, 0));
    CHECK(pt_unplace(&q, A));
    CHECK(pt_has_wait(&p, M, A, 0));
    CHECK(pt_sprogram_placement(&p, A, NULL, NULL));
    CHECK(q.n_waits == 2 && p.n_waits == 3);
    pt_sprogram_free(&q);
    pt_sprogram_free(&p);
    free(sg.tasks);
}

/* ---- the default program ---- */

static void test_default(void)
{
    pt_stask_graph sg;
    pt_hw hw;
    pt_sprogram p;
    pt_error err = {{0}};
    hand_hw(&hw);
    hand_graph(&sg, 2);
    CHECK_MSG(pt_sprogram_default(&p, &sg, &hw, &err), "%s", err.msg);
    CHECK_STR(lane_str(&p, &sg, "tma"), "load.A,load.B,store.C");
    CHECK_STR(lane_str(&p, &sg, "tc.wg0"), "mma.C.wg0");
    CHECK_STR(lane_str(&p, &sg, "tc.wg1"), "mma.C.wg1");
    CHECK_STR(lane_str(&p, &sg, "cuda.wg0"), "convert.C.wg0");
    CHECK_STR(lane_str(&p, &sg, "cuda.wg1"), "convert.C.wg1");
    int A = find(&sg, "load.A"), B = find(&sg, "load.B");
    int M0 = find(&sg, "mma.C.wg0"), M1 = find(&sg, "mma.C.wg1");
    int C0 = find(&sg, "convert.C.wg0"), C1 = find(&sg, "convert.C.wg1");
    int S = find(&sg, "store.C");
    CHECK(p.n_waits == 8);
    CHECK(pt_has_wait(&p, M0, A, 0) && pt_has_wait(&p, M0, B, 0));
    CHECK(pt_has_wait(&p, M1, A, 0) && pt_has_wait(&p, M1, B, 0));
    CHECK(pt_has_wait(&p, C0, M0, 0) && pt_has_wait(&p, C1, M1, 0));
    CHECK(pt_has_wait(&p, S, C0, 0) && pt_has_wait(&p, S, C1, 0));
    CHECK(!pt_has_wait(&p, M0, M0, 1)); /* same lane: ordered by the lane */
    CHECK(p.stages[0] == 3 && p.stages[1] == 3 && p.stages[2] == 0); /* graph default */
    pt_sprogram_free(&p);

    /* topological order, not index order: put the store first in the task array */
    pt_stask tmp = sg.tasks[0];
    sg.tasks[0] = sg.tasks[S];
    sg.tasks[S] = tmp;
    for (int i = 0; i < sg.n; i++)
        for (int k = 0; k < sg.tasks[i].n_deps; k++) {
            int *f = &sg.tasks[i].deps[k].from;
            *f = *f == 0 ? S : *f == S ? 0 : *f;
        }
    CHECK_MSG(pt_sprogram_default(&p, &sg, &hw, &err), "%s", err.msg);
    CHECK_STR(lane_str(&p, &sg, "tma"), "load.B,load.A,store.C");
    pt_sprogram_free(&p);

    /* a same-iteration cycle cannot be ordered: the load now also reads the mma */
    int la = find(&sg, "load.A");
    sg.tasks[la].deps[sg.tasks[la].n_deps++] = (pt_dep){M0, 0};
    CHECK(!pt_sprogram_default(&p, &sg, &hw, &err));
    CHECK_CONTAINS(err.msg, "cycle");
    CHECK(p.n_lanes == 0);
    free(sg.tasks);

    /* loop-carried waits keep their distance */
    hand_graph(&sg, 1);
    sg.tasks[find(&sg, "load.A")].deps[0] = (pt_dep){find(&sg, "mma.C.wg0"), 2};
    sg.tasks[find(&sg, "load.A")].n_deps = 1;
    CHECK_MSG(pt_sprogram_default(&p, &sg, &hw, &err), "%s", err.msg);
    CHECK(pt_has_wait(&p, find(&sg, "load.A"), find(&sg, "mma.C.wg0"), 2));
    pt_sprogram_free(&p);
    free(sg.tasks);
}

/* ---- JSON writing (hand graph) ---- */

static void test_json_write(void)
{
    pt_stask_graph sg;
    pt_hw hw;
    pt_sprogram p;
    pt_error err = {{0}};
    hand_hw(&hw);
    hand_graph(&sg, 1);
    CHECK(pt_sprogram_default(&p, &sg, &hw, &err));
    CHECK(pt_append(&p, &sg, find(&sg, "load.B"), 0, 1, 1, &err));
    p.partition.raster = PT_RASTER_GROUPED;
    p.partition.persistent = true;
    char *text = pt_sprogram_to_json(&p, &sg);
    CHECK(text != NULL);
    if (!text)
        return;
    CHECK_CONTAINS(text, "\"format\": \"pipethreader.sprogram\",\n  \"version\": 1,\n");
    CHECK_CONTAINS(text, "\"graph\": \"hand_gemm\",\n  \"hw\": \"TestGPU\",\n");
    CHECK_CONTAINS(text, "\"tile\": {\"m\": 128, \"n\": 128, \"k\": 64},\n  \"warpgroups\": 1,");
    CHECK_CONTAINS(text, "\"stages\": {\"A\": 3, \"B\": 3},");
    CHECK_CONTAINS(text, "    {\"name\": \"producer\", \"regs\": 40},\n"
                         "    {\"name\": \"wg0\", \"regs\": 240}\n  ],");
    CHECK_CONTAINS(text, "\"partition\": {\"raster\": \"grouped\", \"group\": 8, "
                         "\"persistent\": true},");
    CHECK_CONTAINS(text, "    {\"name\": \"tma\", \"seu\": \"tma\", \"role\": \"producer\", "
                         "\"order\": [\n      \"load.A\",\n"
                         "      {\"stask\": \"load.B\", \"offset\": 1},\n"
                         "      \"store.C\"\n    ]},\n");
    CHECK_CONTAINS(text, "    {\"stask\": \"mma.C.wg0\", \"on\": \"load.A\", \"distance\": 0},\n");
    cJSON *root = cJSON_Parse(text);
    CHECK(root != NULL);
    cJSON_Delete(root);
    free(text);

    /* names with quotes, backslashes and control characters are escaped */
    snprintf(p.graph_name, sizeof p.graph_name, "we\"ird\\name\n\x01");
    text = pt_sprogram_to_json(&p, &sg);
    CHECK_CONTAINS(text, "\"graph\": \"we\\\"ird\\\\name\\n\\u0001\"");
    root = cJSON_Parse(text);
    CHECK(root != NULL);
    const cJSON *gname = cJSON_GetObjectItemCaseSensitive(root, "graph");
    CHECK(cJSON_IsString(gname) && strcmp(gname->valuestring, p.graph_name) == 0);
    cJSON_Delete(root);
    free(text);

    /* a corrupt program is written without crashing */
    p.lanes[0].entries[0].stask = 999;
    p.lanes[1].role = 77;
    p.waits[0].on = -5;
    p.partition.raster = (pt_raster)42;
    text = pt_sprogram_to_json(&p, &sg);
    CHECK(text != NULL);
    free(text);
    pt_sprogram_free(&p);
    free(sg.tasks);
}

/* ---- JSON round trip and errors (real graph: loading re-runs sTask-partition) ---- */

static const char *gemm_json =
    "{\"format\": \"pipethreader.graph\", \"version\": 1, \"name\": \"gemm_rt\",\n"
    " \"axes\": {\"m\": 1024, \"n\": 1024, \"k\": 512},\n"
    " \"tensors\": {\"A\": {\"axes\": [\"m\", \"k\"], \"dtype\": \"f16\", \"role\": \"input\"},\n"
    "             \"B\": {\"axes\": [\"k\", \"n\"], \"dtype\": \"f16\", \"role\": \"input\"},\n"
    "             \"C\": {\"axes\": [\"m\", \"n\"], \"dtype\": \"f16\", \"role\": \"output\"}},\n"
    " \"ops\": [{\"op\": \"matmul\", \"in\": [\"A\", \"B\"], \"out\": \"C\",\n"
    "          \"spec\": \"m k, k n -> m n\"}],\n"
    " \"defaults\": {\"tile\": {\"m\": 128, \"n\": 256, \"k\": 64}, \"warpgroups\": 2, "
    "\"stages\": 4}}\n";

static bool same_program(const pt_sprogram *a, const pt_sprogram *b)
{
    bool same = strcmp(a->graph_name, b->graph_name) == 0 &&
                strcmp(a->hw_name, b->hw_name) == 0 &&
                memcmp(&a->tiling, &b->tiling, sizeof a->tiling) == 0 &&
                memcmp(a->stages, b->stages, sizeof a->stages) == 0 &&
                a->n_roles == b->n_roles && a->n_lanes == b->n_lanes &&
                a->n_waits == b->n_waits && a->partition.raster == b->partition.raster &&
                a->partition.group == b->partition.group &&
                a->partition.persistent == b->partition.persistent &&
                a->partition.order == b->partition.order &&
                a->partition.staging == b->partition.staging &&
                a->partition.split_k == b->partition.split_k &&
                a->partition.stream_k == b->partition.stream_k &&
                a->partition.run == b->partition.run;
    for (int r = 0; same && r < a->n_roles; r++)
        same = strcmp(a->roles[r].name, b->roles[r].name) == 0 &&
               a->roles[r].threads == b->roles[r].threads &&
               a->roles[r].regs == b->roles[r].regs && a->roles[r].wg == b->roles[r].wg;
    for (int l = 0; same && l < a->n_lanes; l++) {
        const pt_lane *x = &a->lanes[l], *y = &b->lanes[l];
        same = strcmp(x->name, y->name) == 0 && x->seu == y->seu && x->role == y->role &&
               x->n == y->n &&
               (x->n == 0 || memcmp(x->entries, y->entries, (size_t)x->n * sizeof *x->entries) == 0);
    }
    for (int w = 0; same && w < a->n_waits; w++)
        same = a->waits[w].stask == b->waits[w].stask && a->waits[w].on == b->waits[w].on &&
               a->waits[w].distance == b->waits[w].distance;
    return same;
}

static pt_graph real_g;

static bool load_real(pt_stask_graph *sg, pt_sprogram *p)
{
    pt_error err = {{0}};
    pt_tiling t;
    if (!pt_graph_load_text(&real_g, "gemm_rt.json", gemm_json, strlen(gemm_json), NULL, &err)) {
        fprintf(stderr, "graph: %s\n", err.msg);
        return false;
    }
    memset(&t, 0, sizeof t);
    for (int a = 0; a < real_g.n_axes; a++)
        t.tile[a] = real_g.default_tile[a];
    t.warpgroups = real_g.default_warpgroups;
    if (!pt_partition(sg, &real_g, &t, &err)) {
        fprintf(stderr, "partition: %s\n", err.msg);
        return false;
    }
    pt_hw hw;
    hand_hw(&hw);
    if (!pt_sprogram_default(p, sg, &hw, &err)) {
        fprintf(stderr, "default: %s\n", err.msg);
        pt_stask_graph_free(sg);
        return false;
    }
    return true;
}

/* wg_axis (the tensor-core rows on another output axis) reads back, re-partitions with the
 * warpgroups splitting that axis and is written again; a wrong one names the field. */
static void test_json_wg_axis(void)
{
    pt_stask_graph sg, sg2;
    pt_sprogram p, q;
    pt_error err = {{0}};
    if (!load_real(&sg, &p)) {
        CHECK(!"the GEMM graph loads and partitions");
        return;
    }
    char *text = pt_sprogram_to_json(&p, &sg);
    CHECK(text && !strstr(text, "wg_axis"));
    char *at = text ? strstr(text, "\"stages\"") : NULL;
    CHECK(at != NULL);
    if (at) {
        size_t n = (size_t)(at - text);
        char with[8192], bad[8192];
        snprintf(with, sizeof with, "%.*s\"wg_axis\": \"n\",\n  %s", (int)n, text, at);
        snprintf(bad, sizeof bad, "%.*s\"wg_axis\": \"k\",\n  %s", (int)n, text, at);
        bool ok = pt_sprogram_load_text(&q, &sg2, &real_g, "wg.json", with, strlen(with), &err);
        CHECK_MSG(ok, "%s", err.msg);
        if (ok) {
            int nax = pt_graph_find_axis(&real_g, "n");
            CHECK(q.tiling.wg_axis == nax + 1 && sg2.rows_axis == nax);
            CHECK(sg2.tiling.warpgroups < 2 || sg2.split_axis == nax);
            char *again = pt_sprogram_to_json(&q, &sg2);
            CHECK(again && strstr(again, "\"wg_axis\": \"n\""));
            free(again);
            pt_sprogram_free(&q);
            pt_stask_graph_free(&sg2);
        }
        ok = pt_sprogram_load_text(&q, &sg2, &real_g, "wg.json", bad, strlen(bad), &err);
        CHECK(!ok);
        CHECK_CONTAINS(err.msg, "wg.json");
        CHECK_CONTAINS(err.msg, "wg_axis \"k\" is not an output axis");
    }
    free(text);
    pt_sprogram_free(&p);
    pt_stask_graph_free(&sg);
}

static void test_json_roundtrip(void)
{
    pt_stask_graph sg, sg2;
    pt_sprogram p, q;
    pt_error err = {{0}};
    if (!load_real(&sg, &p)) {
        CHECK(!"the GEMM graph loads and partitions");
        return;
    }
    /* make it less default: an offset, a partition, stages, a role budget, a long Wait */
    int tma = pt_sprogram_find_lane(&p, "tma");
    for (int s = 0; s < sg.n; s++)
        if (sg.tasks[s].kind == PT_ST_LOAD && sg.tasks[s].region == PT_REGION_BODY) {
            CHECK_MSG(pt_append(&p, &sg, s, tma, 0, 2, &err), "%s", err.msg);
            break;
        }
    p.partition = (pt_partition_spec){.raster = PT_RASTER_GROUPED, .group = 16, .persistent = true, .order = PT_ORDER_RASTER, .staging = PT_STAGING_OVER_RESIDENT, .split_k = 4, .stream_k = 0, .run = 3};
    p.roles[0].regs = 24;
    p.roles[1].threads = 256;
    p.roles[2].wg = 5;
    for (int t = 0; t < PT_MAX_TENSORS; t++)
        if (p.stages[t])
            p.stages[t] = 5;
    int on = 0, d = 3;
    CHECK(pt_wait(&p, &sg, sg.n - 1, &on, &d, 1, &err));

    char *text = pt_sprogram_to_json(&p, &sg);
    CHECK(text != NULL);
    bool ok = pt_sprogram_load_text(&q, &sg2, &real_g, "rt.json", text, strlen(text), &err);
    CHECK_MSG(ok, "%s\n%s", err.msg, text);
    if (ok) {
        CHECK(sg2.n == sg.n);
        CHECK(same_program(&p, &q));
        char *again = pt_sprogram_to_json(&q, &sg2);
        CHECK(again && strcmp(again, text) == 0);
        free(again);
        pt_sprogram_free(&q);
        pt_stask_graph_free(&sg2);
    }

    /* through a file */
    char path[] = "/tmp/test_sprogram_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) {
        FILE *f = fdopen(fd, "w");
        fputs(text, f);
        fclose(f);
        ok = pt_sprogram_load_file(&q, &sg2, &real_g, path, &err);
        CHECK_MSG(ok, "%s", err.msg);
        if (ok) {
            CHECK(same_program(&p, &q));
            pt_sprogram_free(&q);
            pt_stask_graph_free(&sg2);
        }
        remove(path);
    }
    CHECK(!pt_sprogram_load_file(&q, &sg2, &real_g, "/nonexistent/x.json", &err));
    CHECK_CONTAINS(err.msg, "/nonexistent/x.json");
    free(text);
    pt_sprogram_free(&p);
    pt_stask_graph_free(&sg);
}

/* Load `text`, expect failure with a message containing each needle. */
static void expect_error(const char *text, const char *n1, const char *n2)
{
    pt_stask_graph sg;
    pt_sprogram p;
    pt_error err = {{0}};
    bool ok = pt_sprogram_load_text(&p, &sg, &real_g, "bad.json", text, strlen(text), &err);
    CHECK_MSG(!ok, "loaded: %s", text);
    if (ok) {
        pt_sprogram_free(&p);
        pt_stask_graph_free(&sg);
        return;
    }
    CHECK_CONTAINS(err.msg, "bad.json: ");
    CHECK_CONTAINS(err.msg, n1);
    if (n2)
        CHECK_CONTAINS(err.msg, n2);
    CHECK(strchr(err.msg, '\n') == NULL);
    CHECK(p.n_lanes == 0 && sg.tasks == NULL);
}

#define HEAD "{\"format\": \"pipethreader.sprogram\", \"version\": 1, \"graph\": \"gemm_rt\", "
#define TILE "\"tile\": {\"m\": 128, \"n\": 256, \"k\": 64}, \"warpgroups\": 2, "

static void test_json_errors(void)
{
    if (real_g.n_axes == 0)
        return; /* the round trip already failed */
    expect_error("[]", "$: is an array", NULL);
    expect_error("{", "bad.json: line 1", NULL);
    expect_error("{\"format\": \"other\"}", "$.format", "pipethreader.sprogram");
    expect_error("{\"format\": \"pipethreader.sprogram\", \"version\": 2}", "$.version", NULL);
    expect_error(HEAD "\"tile\": {}, \"lanes\": [], \"extra\": 1}", "unknown key \"extra\"",
                 NULL);
    expect_error("{\"format\": \"pipethreader.sprogram\", \"version\": 1, \"graph\": \"attn\", "
                 "\"tile\": {}, \"lanes\": []}",
                 "\"attn\"", "\"gemm_rt\"");
    expect_error(HEAD "\"tile\": {\"q\": 64}, \"lanes\": []}", "$.tile: unknown axis \"q\"",
                 "m, n, k");
    expect_error(HEAD "\"tile\": {\"m\": \"big\"}, \"lanes\": []}", "$.tile.m", "integer");
    expect_error(HEAD "\"tile\": {\"m\": -4}, \"lanes\": []}", "$.tile.m", NULL);
    expect_error(HEAD "\"tile\": {\"m\": 1.5}, \"lanes\": []}", "$.tile.m", NULL);
    expect_error(HEAD "\"tile\": {}, \"warpgroups\": 99, \"lanes\": []}", "$.warpgroups", NULL);
    expect_error(HEAD TILE "\"lanes\": [{\"name\": \"tma\", \"seu\": \"tma\", \"role\": "
                 "\"producer\", \"order\": [\"load.A\", \"mma.X\"]}]}",
                 "$.lanes[0].order[1]: sTask \"mma.X\" is not in the sTask-graph; expected one "
                 "of: ", "load.A");
    expect_error(HEAD TILE "\"lanes\": [{\"name\": \"tma\", \"seu\": \"tma\", \"role\": "
                 "\"producer\", \"order\": [\"load.A\", {\"stask\": \"load.A\"}]}]}",
                 "$.lanes[0].order[1].stask", "already placed");
    expect_error(HEAD TILE "\"lanes\": [{\"name\": \"tma\", \"seu\": \"tma\", \"role\": "
                 "\"producer\", \"order\": [{\"stask\": \"load.A\", \"offset\": 12}]}]}",
                 "$.lanes[0].order[0].offset", NULL);
    expect_error(HEAD TILE "\"lanes\": [{\"name\": \"tma\", \"seu\": \"tma\", \"role\": "
                 "\"producer\", \"order\": [{\"stask\": \"store.C\", \"offset\": 1}]}]}",
                 "$.lanes[0].order[0]", "loop-body");
    expect_error(HEAD TILE "\"lanes\": [{\"name\": \"tma\", \"seu\": \"tma\", \"role\": "
                 "\"producer\", \"order\": [7]}]}",
                 "$.lanes[0].order[0]: is a number", NULL);
    expect_error(HEAD TILE "\"lanes\": [{\"name\": \"tma\", \"seu\": \"warp\", \"role\": "
                 "\"producer\", \"order\": []}]}",
                 "$.lanes[0]", "tensor_core");
    expect_error(HEAD TILE "\"lanes\": [{\"name\": \"tma\", \"seu\": \"tma\", \"role\": "
                 "\"boss\", \"order\": []}]}",
                 "role \"boss\"", "producer, wg0, wg1");
    expect_error(HEAD TILE "\"lanes\": [{\"name\": \"tma\", \"seu\": \"tma\", \"role\": "
                 "\"producer\", \"order\": []}, {\"name\": \"tma\", \"seu\": \"tma\", \"role\": "
                 "\"producer\", \"order\": []}]}",
                 "$.lanes[1]", "twice");
    expect_error(HEAD TILE "\"lanes\": {}}", "$.lanes", "an array");
    expect_error(HEAD TILE "\"stages\": {\"Z\": 3}, \"lanes\": []}", "$.stages", "\"Z\"");
    expect_error(HEAD TILE "\"stages\": {\"A\": 3000}, \"lanes\": []}", "$.stages.A", NULL);
    expect_error(HEAD TILE "\"roles\": [], \"lanes\": []}", "$.roles", NULL);
    expect_error(HEAD TILE "\"roles\": [{\"name\": \"p\"}], \"lanes\": []}", "$.roles[0]",
                 "regs");
    expect_error(HEAD TILE "\"partition\": {\"raster\": \"zigzag\"}, \"lanes\": []}",
                 "$.partition.raster", "grouped");
    expect_error(HEAD TILE "\"partition\": {\"order\": \"backwards\"}, \"lanes\": []}",
                 "$.partition.order", "longest_first");
    expect_error(HEAD TILE "\"partition\": {\"staging\": 3}, \"lanes\": []}",
                 "$.partition", "staging");
    expect_error(HEAD TILE "\"partition\": {\"group\": 0}, \"lanes\": []}", "$.partition.group",
                 NULL);
    expect_error(HEAD TILE "\"partition\": {\"run\": 0}, \"lanes\": []}",
                 "$.partition.run", NULL);
    expect_error(HEAD TILE "\"lanes\": [], \"waits\": [{\"stask\": \"load.A\", \"on\": "
                 "\"nope\"}]}",
                 "$.waits[0].on", "\"nope\"");
    expect_error(HEAD TILE "\"lanes\": [], \"waits\": [{\"stask\": \"load.A\", \"on\": "
                 "\"load.A\"}]}",
                 "$.waits[0]", "itself");
    expect_error(HEAD TILE "\"lanes\": [], \"waits\": [{\"stask\": \"load.A\", \"on\": "
                 "\"load.B\", \"distance\": 9}]}",
                 "$.waits[0].distance", NULL);
    expect_error(HEAD TILE "\"lanes\": [], \"waits\": [1]}", "$.waits[0]", NULL);

    /* the minimal file: defaults for everything that is optional */
    const char *minimal = HEAD TILE "\"lanes\": []}";
    pt_stask_graph sg;
    pt_sprogram p;
    pt_error err = {{0}};
    CHECK_MSG(pt_sprogram_load_text(&p, &sg, &real_g, "min.json", minimal, strlen(minimal),
                                    &err), "%s", err.msg);
    CHECK(p.n_lanes == 0 && p.n_roles == 3 && p.partition.raster == PT_RASTER_ROW);
    pt_sprogram_free(&p);
    pt_stask_graph_free(&sg);
}

/* Truncations and byte flips of a valid file never crash (ASan/UBSan builds catch more). */
static void test_json_mutations(void)
{
    pt_stask_graph sg, sg2;
    pt_sprogram p, q;
    pt_error err;
    if (!load_real(&sg, &p))
        return;
    char *text = pt_sprogram_to_json(&p, &sg);
    size_t len = strlen(text);
    int loaded = 0;
    for (size_t cut = 0; cut < len; cut += 7)
        if (pt_sprogram_load_text(&q, &sg2, &real_g, "m.json", text, cut, &err)) {
            loaded++;
            pt_sprogram_free(&q);
            pt_stask_graph_free(&sg2);
        }
    CHECK(loaded == 0);
    char *m = malloc(len + 1);
    uint32_t seed = 12345;
    const char alphabet[] = "{}[]\",:0-9e.\\ atnulfrs";
    for (int round = 0; round < 3000; round++) {
        memcpy(m, text, len + 1);
        for (int k = 0; k < 1 + round % 4; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % len;
            seed = seed * 1103515245u + 12345u;
            m[at] = alphabet[(seed >> 8) % (sizeof alphabet - 1)];
        }
        if (pt_sprogram_load_text(&q, &sg2, &real_g, "m.json", m, len, &err)) {
            char *again = pt_sprogram_to_json(&q, &sg2);
            CHECK(again != NULL);
            free(again);
            pt_sprogram_free(&q);
            pt_stask_graph_free(&sg2);
        }
    }
    free(m);
    free(text);
    pt_sprogram_free(&p);
    pt_stask_graph_free(&sg);
}

int main(void)
{
    PTEST_RUN(test_init);
    PTEST_RUN(test_append);
    PTEST_RUN(test_wait);
    PTEST_RUN(test_default);
    PTEST_RUN(test_json_write);
    PTEST_RUN(test_json_roundtrip);
    PTEST_RUN(test_json_wg_axis);
    PTEST_RUN(test_json_errors);
    PTEST_RUN(test_json_mutations);
    PTEST_END();
}
