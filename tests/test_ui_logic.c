/* test_ui_logic.c — the explorer's display-free logic (suite 'unit'): the critical path on
 * hand-made timelines (exact chains: a dependency against a lane predecessor, an asynchronous
 * lane that issued the next span early, the tie rule, lane order alone), the span graph of a
 * real simulated example (every edge points back in time, the path ends at the last span and
 * never goes forward), and the unsaved-changes decision used before closing and opening. */
#include <stdlib.h>
#include <string.h>

#include "critical_path.h"
#include "embedded.h"
#include "graph.h"
#include "propagate.h"
#include "sim.h"
#include "sprogram.h"
#include "unsaved.h"

#include "ptest.h"

static pt_span sp(int stask, int lane, double t0, double t1)
{
    return (pt_span){stask, lane, 0, t0, t0, t1};
}

/* Deps given as a list per span (-1 ends each list). */
static pt_span_deps make_deps(int64_t n, const int64_t lists[][4])
{
    pt_span_deps d = {n, calloc((size_t)n + 1, sizeof(int64_t)), calloc(64, sizeof(int64_t)),
                      calloc(64, 1)};
    int64_t e = 0;
    for (int64_t i = 0; i < n; i++) {
        d.off[i] = e;
        for (int k = 0; k < 4 && lists[i][k] >= 0; k++)
            d.idx[e++] = lists[i][k];
    }
    d.off[n] = e;
    return d;
}

static void test_chain(void)
{
    /* A(tma 0-10) B(tma 10-20) C(tc 10-30, waits A) F(tma 20-25) D(tc 30-35, waits B)
     * E(cuda 40-50, waits D and F). E ends last; D released it (35 > 25); C, D's lane
     * predecessor, ended at 30, later than B at 20; C waited on A. */
    pt_span s[6] = {sp(0, 0, 0, 10), sp(1, 0, 10, 20), sp(2, 1, 10, 30),
                    sp(3, 0, 20, 25), sp(4, 1, 30, 35), sp(5, 2, 40, 50)};
    const int64_t lists[6][4] = {{-1}, {-1}, {0, -1}, {-1}, {1, -1}, {4, 3, -1}};
    pt_span_deps d = make_deps(6, lists);
    int64_t *chain = NULL;
    int64_t n = pt_critical_path(s, 6, &d, &chain);
    CHECK(n == 4);
    const int64_t want[4] = {0, 2, 4, 5};
    for (int64_t i = 0; i < n && i < 4; i++)
        CHECK_MSG(chain[i] == want[i], "chain[%lld] = %lld, expected %lld", (long long)i,
                  (long long)chain[i], (long long)want[i]);
    free(chain);
    /* Lane order alone: E has no lane predecessor on cuda, so the path is E by itself. */
    n = pt_critical_path(s, 6, NULL, &chain);
    CHECK(n == 1 && chain[0] == 5);
    free(chain);
    pt_span_deps_free(&d);
}

static void test_async_and_ties(void)
{
    /* tma issued Y at 5 while X (0-100) still ran: X released Y at X's start. */
    pt_span s[2] = {sp(0, 0, 0, 100), sp(1, 0, 5, 150)};
    int64_t *chain = NULL;
    int64_t n = pt_critical_path(s, 2, NULL, &chain);
    CHECK(n == 2 && chain[0] == 0 && chain[1] == 1);
    free(chain);
    /* Z (tc 50-60) waits on W (tma 40-50); its lane predecessor V (tc 45-50) ends at the same
     * moment: the dependency wins the tie. */
    pt_span t[3] = {sp(0, 0, 40, 50), sp(1, 1, 45, 50), sp(2, 1, 50, 60)};
    const int64_t lists[3][4] = {{-1}, {-1}, {0, -1}};
    pt_span_deps d = make_deps(3, lists);
    n = pt_critical_path(t, 3, &d, &chain);
    CHECK(n == 2 && chain[0] == 0 && chain[1] == 2);
    free(chain);
    pt_span_deps_free(&d);
    n = pt_critical_path(t, 0, NULL, &chain);
    CHECK(n == 0 && chain == NULL);
}

static void test_real_example(void)
{
    const char *text = pt_embedded_find(pt_embedded_examples, "flash_attention");
    CHECK(text != NULL);
    if (!text)
        return;
    pt_graph g;
    pt_error err = {{0}};
    pt_tiling t;
    pt_stask_graph sg;
    pt_sprogram p;
    pt_hw hw;
    pt_timeline tl;
    CHECK(pt_graph_load_text(&g, "flash_attention", text, strlen(text), NULL, &err));
    pt_tiling_defaults(&g, &t);
    CHECK(pt_partition(&sg, &g, &t, &err));
    CHECK(pt_hw_load(&hw, "H200", &err));
    CHECK(pt_sprogram_default(&p, &sg, &hw, &err));
    CHECK(pt_simulate(&p, &sg, &hw, &tl, &err));
    pt_span_deps d;
    CHECK(pt_span_deps_build(&d, &tl, &p, &sg));
    CHECK(d.n_spans == tl.n_spans && d.off[d.n_spans] > tl.n_spans); /* most spans wait */
    int64_t back = 0, waits = 0;
    for (int64_t i = 0; i < tl.n_spans; i++)
        for (int64_t e = d.off[i]; e < d.off[i + 1]; e++) {
            back += tl.spans[d.idx[e]].end_ns <= tl.spans[i].start_ns + 1e-6;
            waits += d.is_wait[e];
        }
    CHECK_MSG(back == d.off[d.n_spans], "%lld of %lld edges point back in time",
              (long long)back, (long long)d.off[d.n_spans]);
    CHECK(waits > 0); /* the default sProgram's Waits are there too */
    int64_t *chain = NULL;
    int64_t n = pt_critical_path(tl.spans, tl.n_spans, &d, &chain);
    CHECK(n > 10);
    double last = 0;
    for (int64_t i = 0; i < tl.n_spans; i++)
        last = tl.spans[i].end_ns > last ? tl.spans[i].end_ns : last;
    CHECK(n > 0 && tl.spans[chain[n - 1]].end_ns == last);
    for (int64_t k = 1; k < n; k++)
        CHECK(tl.spans[chain[k - 1]].start_ns <= tl.spans[chain[k]].start_ns);
    /* Issue 19: every step of the path is an edge of the schedule — a dependency (data, Wait,
     * ring stage) of the later span or the span just before it on its own lane — so the red
     * line never jumps between lanes that have nothing to do with each other. */
    int64_t lane_steps = 0, dep_steps = 0, stage_steps = 0;
    for (int64_t k = 1; k < n; k++) {
        int64_t a = chain[k - 1], b = chain[k];
        bool dep = false;
        for (int64_t e = d.off[b]; e < d.off[b + 1]; e++)
            if (d.idx[e] == a) {
                dep = true;
                stage_steps += d.is_wait[e] == PT_DEP_STAGE;
            }
        bool lane_prev = tl.spans[a].lane == tl.spans[b].lane;
        for (int64_t j = a + 1; lane_prev && j < b; j++)
            lane_prev = tl.spans[j].lane != tl.spans[a].lane;
        CHECK_MSG(dep || lane_prev, "step %lld: span %lld (lane %d) -> %lld (lane %d) is no edge",
                  (long long)k, (long long)a, tl.spans[a].lane, (long long)b, tl.spans[b].lane);
        dep_steps += dep;
        lane_steps += !dep && lane_prev;
    }
    fprintf(stderr, "critical path: %lld dependency steps (%lld stage), %lld lane-order steps\n",
            (long long)dep_steps, (long long)stage_steps, (long long)lane_steps);
    fprintf(stderr, "flash_attention: %lld spans, %lld edges, critical path %lld spans\n",
            (long long)tl.n_spans, (long long)d.off[d.n_spans], (long long)n);
    free(chain);
    pt_span_deps_free(&d);
    pt_timeline_free(&tl);
    pt_sprogram_free(&p);
    pt_stask_graph_free(&sg);
}

static void test_unsaved(void)
{
    CHECK(pt_unsaved_before(false, false) == PT_UNSAVED_CONTINUE);
    CHECK(pt_unsaved_before(true, false) == PT_UNSAVED_ASK);
    CHECK(pt_unsaved_before(true, true) == PT_UNSAVED_CONTINUE); /* already answered */
    CHECK(pt_unsaved_after(PT_ANSWER_CANCEL, false, false) == PT_UNSAVED_STOP);
    CHECK(pt_unsaved_after(PT_ANSWER_DISCARD, false, false) == PT_UNSAVED_CONTINUE);
    CHECK(pt_unsaved_after(PT_ANSWER_SAVE, true, false) == PT_UNSAVED_CONTINUE);
    CHECK(pt_unsaved_after(PT_ANSWER_SAVE, false, true) == PT_UNSAVED_AFTER_SAVE);
    CHECK(pt_unsaved_after(PT_ANSWER_SAVE, false, false) == PT_UNSAVED_STOP); /* failed save */
}

int main(void)
{
    PTEST_RUN(test_chain);
    PTEST_RUN(test_async_and_ties);
    PTEST_RUN(test_real_example);
    PTEST_RUN(test_unsaved);
    PTEST_END();
}
