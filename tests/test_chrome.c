/* test_chrome.c — the Chrome trace-event export: it parses as JSON, has one complete event
 * per instance with the right times, lane metadata for the viewer, and flow arrows for the
 * dependencies that cross lanes. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "chrome.h"
#include "ptest.h"

/* A software-pipelined attention-like loop: 3 iterations of load.K -> mma.S -> exp.P ->
 * mma.O (mma.O also needs its previous iteration) on lanes tma, tc.wg0, cuda.wg0. */
typedef struct {
    pt_stask tasks[4];
    pt_stask_graph sg;
    pt_lane_entry entries[3][2];
    pt_wait_entry waits[1];
    pt_sprogram p;
    pt_hw hw;
} fixture;

static void add_task(fixture *f, const char *id, pt_stask_kind kind, pt_seu_kind seu,
                     pt_dtype dt, int64_t amount)
{
    pt_stask *t = &f->tasks[f->sg.n++];
    strcpy(t->id, id);
    t->kind = kind;
    t->seu = seu;
    t->region = PT_REGION_BODY;
    t->dtype = dt;
    t->op = t->tensor = t->wg = -1;
    if (kind == PT_ST_LOAD)
        t->bytes = amount;
    else if (kind == PT_ST_MMA)
        t->flops = amount;
    else
        t->elems = amount;
}

static void add_lane(fixture *f, const char *name, pt_seu_kind seu, int role, int n,
                     const pt_lane_entry *e)
{
    pt_lane *ln = &f->p.lanes[f->p.n_lanes];
    strcpy(ln->name, name);
    ln->seu = seu;
    ln->role = role;
    ln->entries = f->entries[f->p.n_lanes++];
    ln->n = ln->cap = n;
    memcpy(ln->entries, e, (size_t)n * sizeof *e);
}

static void build(fixture *f)
{
    memset(f, 0, sizeof *f);
    f->sg.tasks = f->tasks;
    f->sg.iterations = 3;
    f->sg.tiles = 1;
    f->sg.loop_axis = f->sg.split_axis = f->sg.causal_op = -1;
    add_task(f, "load.K", PT_ST_LOAD, PT_SEU_TMA, PT_F16, 1000);
    add_task(f, "mma.S", PT_ST_MMA, PT_SEU_TENSOR_CORE, PT_F16, 100000);
    add_task(f, "exp.P", PT_ST_SOFTMAX_EXP, PT_SEU_CUDA_CORE, PT_F32, 50);
    add_task(f, "mma.O", PT_ST_MMA, PT_SEU_TENSOR_CORE, PT_F16, 100000);
    f->tasks[1].deps[f->tasks[1].n_deps++] = (pt_dep){0, 0};
    f->tasks[2].deps[f->tasks[2].n_deps++] = (pt_dep){1, 0};
    f->tasks[3].deps[f->tasks[3].n_deps++] = (pt_dep){2, 0};
    f->tasks[3].deps[f->tasks[3].n_deps++] = (pt_dep){3, 1};
    f->p.n_roles = 2;
    strcpy(f->p.roles[0].name, "producer");
    strcpy(f->p.roles[1].name, "wg0");
    add_lane(f, "tma", PT_SEU_TMA, 0, 1, (pt_lane_entry[]){{0, 0}});
    add_lane(f, "tc.wg0", PT_SEU_TENSOR_CORE, 1, 2, (pt_lane_entry[]){{1, 1}, {3, 0}});
    add_lane(f, "cuda.wg0", PT_SEU_CUDA_CORE, 1, 1, (pt_lane_entry[]){{2, 0}});
    f->waits[0] = (pt_wait_entry){1, 0, 0}; /* duplicates the data dep: one arrow only */
    f->p.waits = f->waits;
    f->p.n_waits = f->p.cap_waits = 1;
    strcpy(f->hw.name, "testhw");
    f->hw.eu_count = 1;
    f->hw.barrier_ns = 5;
    f->hw.seu[PT_SEU_TMA] = (pt_seu_model){.present = true, .async = true, .issue_ns = 2};
    f->hw.seu[PT_SEU_TENSOR_CORE] = (pt_seu_model){.present = true, .async = true, .issue_ns = 2};
    f->hw.seu[PT_SEU_CUDA_CORE] = (pt_seu_model){.present = true};
    f->hw.cost[PT_ST_LOAD][PT_F16] = (pt_cost){.rate = 10, .latency_ns = 100};
    f->hw.cost[PT_ST_MMA][PT_F16] = (pt_cost){.rate = 1000, .latency_ns = 10};
    f->hw.cost[PT_ST_SOFTMAX_EXP][PT_F32] = (pt_cost){.rate = 1, .latency_ns = 0};
}

static const char *str_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static double num_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static void test_export(void)
{
    fixture f;
    build(&f);
    pt_timeline tl = {0};
    pt_error err = {""};
    CHECK_MSG(pt_simulate_eu(&f.p, &f.sg, &f.hw, 3, &tl, &err), "%s", err.msg);
    CHECK(tl.n_spans == 12);
    char *text = pt_chrome_trace(&tl, &f.p, &f.sg, NULL);
    CHECK(text != NULL);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    CHECK(root != NULL);
    if (!root) {
        free(text);
        pt_timeline_free(&tl);
        return;
    }
    CHECK_STR(str_of(root, "displayTimeUnit"), "ns");
    const cJSON *ev = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
    CHECK(cJSON_IsArray(ev));
    int n_x = 0, n_s = 0, n_f = 0, n_threads = 0, n_sort = 0;
    bool proc = false, found_load1 = false;
    const cJSON *e;
    cJSON_ArrayForEach(e, ev)
    {
        const char *ph = str_of(e, "ph"), *name = str_of(e, "name");
        CHECK(num_of(e, "pid") == 0);
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
        if (!strcmp(ph, "M") && !strcmp(name, "process_name"))
            proc = !strcmp(str_of(args, "name"), "EU 0 (predicted)");
        if (!strcmp(ph, "M") && !strcmp(name, "thread_name")) {
            n_threads++;
            if (num_of(e, "tid") == 1)
                CHECK_STR(str_of(args, "name"), "tc.wg0");
        }
        if (!strcmp(ph, "M") && !strcmp(name, "thread_sort_index"))
            n_sort += num_of(args, "sort_index") == num_of(e, "tid");
        if (!strcmp(ph, "X")) {
            n_x++;
            CHECK(num_of(e, "dur") >= 0);
            if (!strcmp(name, "load.K[1]")) {
                /* issued at 2 ns, transfer 100..200 ns, done at 300 ns */
                found_load1 = true;
                CHECK_STR(str_of(e, "cat"), "tma");
                CHECK(num_of(e, "tid") == 0);
                CHECK_NEAR(num_of(e, "ts"), 0.1, 1e-12);
                CHECK_NEAR(num_of(e, "dur"), 0.2, 1e-12);
                CHECK_STR(str_of(args, "stask"), "load.K");
                CHECK_STR(str_of(args, "kind"), "load");
                CHECK(num_of(args, "iter") == 1 && num_of(args, "issue_ns") == 2);
                CHECK(num_of(args, "bytes") == 1000 && num_of(args, "flops") == 0);
            }
        }
        if (!strcmp(ph, "s"))
            n_s++;
        if (!strcmp(ph, "f")) {
            n_f++;
            CHECK_STR(str_of(e, "bp"), "e");
        }
    }
    CHECK(proc && found_load1);
    CHECK(n_x == 12);
    CHECK(n_threads == 3 && n_sort == 3);
    /* per iteration: load.K -> mma.S, mma.S -> exp.P, exp.P -> mma.O cross lanes;
     * mma.O -> mma.O stays on its lane and the duplicate Wait adds no arrow */
    CHECK(n_s == 9 && n_f == 9);
    cJSON_Delete(root);
    free(text);

    text = pt_chrome_trace(&tl, &f.p, &f.sg, "measured");
    CHECK(text && strstr(text, "\"EU 0 (measured)\""));
    free(text);
    CHECK(pt_chrome_trace(NULL, &f.p, &f.sg, NULL) == NULL);
    /* JSON has no inf or nan: a non-finite time is written as null (or 0 for ts/dur) and
     * the text still parses. */
    tl.spans[0].issue_ns = INFINITY;
    tl.spans[1].start_ns = NAN;
    text = pt_chrome_trace(&tl, &f.p, &f.sg, NULL);
    CHECK(text != NULL && !strstr(text, "inf") && !strstr(text, "nan"));
    root = text ? cJSON_Parse(text) : NULL;
    CHECK(root != NULL);
    cJSON_Delete(root);
    free(text);
    pt_timeline_free(&tl);
}

int main(void)
{
    PTEST_RUN(test_export);
    PTEST_END();
}
