/* test_split_search.c — the scheduler's choice of FlashDecoding's split count (scheduler.h,
 * scheduler/split_search.c) and the sProgram "params" that carry it (sprogram_params.h): few
 * long sequences take many splits and many short ones few; the chosen total is the least of the
 * counts tried, each count's figures being those of its own graph and combine scheduled apart
 * (the combine less what its dependent launch saves);
 * --set fixes the count; the written program reloads only against its own instance; the unsplit
 * graph (one kernel, no combine) is weighed against one piece and wins where the sequences fill
 * the EUs. */
#include <math.h>

#include "embedded.h"
#include "ptest.h"
#include "scheduler.h"
#include "sprogram_params.h"
#include "validate.h"

/* Llama-3-8B's heads, as bench/fa/decode_run times them */
#define HEADS "HKV=8,G=4,D=128"

static const char *example(const char *name)
{
    const char *t = pt_embedded_find(pt_embedded_examples, name);
    CHECK_MSG(t != NULL, "no built-in %s", name);
    return t ? t : "";
}

/* The split search of flash_decoding with `set`, the graph it starts from loaded with `first`
 * ("P=V", or NULL) after `set`. */
static bool search_from(const char *set, const char *first, pt_schedule_result *r, pt_hw *hw)
{
    pt_error e = {{0}};
    const char *text = example("flash_decoding");
    pt_graph_source src = {.arg = "flash_decoding", .text = text, .len = strlen(text),
                           .overrides = set};
    pt_graph g;
    bool ok = pt_hw_load(hw, "H200", &e) && pt_graph_source_load(&src, first, &g, &e);
    pt_schedule_opts o = {.top_k = 3, .source = &src};
    ok = ok && pt_schedule(&g, hw, &o, r, &e);
    CHECK_MSG(ok, "%s: %s", set, e.msg);
    return ok;
}

static bool search(const char *set, pt_schedule_result *r, pt_hw *hw)
{
    return search_from(set, NULL, r, hw);
}

/* The best predicted time of graph `name` with `set`, scheduled on its own (no split search). */
static double alone(const char *name, const char *set, const pt_hw *hw)
{
    pt_error e = {{0}};
    const char *text = example(name);
    pt_graph g;
    pt_schedule_result r;
    pt_schedule_opts o = {.top_k = 1};
    if (!pt_graph_load_text(&g, name, text, strlen(text), set, &e) ||
        !pt_schedule(&g, hw, &o, &r, &e)) {
        CHECK_MSG(false, "%s %s: %s", name, set, e.msg);
        return NAN;
    }
    double ns = r.best[0].predicted_ns;
    pt_schedule_result_free(&r);
    return ns;
}

/* One sequence of 128k keys leaves 8 x 1 heads for 132 EUs: it needs many splits; 64 sequences of
 * 1k keys give 512 CTAs unsplit, and splitting them only adds partial outputs. */
static void many_and_few(void)
{
    pt_schedule_result r;
    pt_hw hw;
    if (search("B=1,S=131072," HEADS, &r, &hw)) {
        CHECK_MSG(r.split_chosen >= 8, "B=1, 128k keys: SPLITS=%lld", (long long)r.split_chosen);
        pt_schedule_result_free(&r);
    }
    if (search("B=64,S=1024," HEADS, &r, &hw)) {
        CHECK_MSG(r.split_chosen <= 2, "B=64, 1k keys: SPLITS=%lld", (long long)r.split_chosen);
        pt_schedule_result_free(&r);
    }
}

/* KV lengths that few powers of two divide. Pieces need not divide the length (the last one
 * shorter), so every count whose pieces all hold keys instantiates; after the powers of two the
 * counts that do divide are tried first (1000: 5, 25, 125 among 5, 10, ... 250; 33333 =
 * 3 x 41 x 271: 3, 41, 123), and a count that leaves a piece empty (1000 in 64 pieces of 16) is
 * not searched. A prime length (16001) is split as a power of two near it is, rather than
 * falling to one piece: its chosen total is within 5% of 16384's. The graph is loaded for the
 * search with one piece, as `schedule` does where the default count leaves pieces empty. */
static void counts_that_divide(void)
{
    static const struct {
        const char *set;
        int64_t len, must_try[3], never;
    } cases[] = {
        {"B=1,S=1000," HEADS, 1000, {5, 25, 125}, 64},
        {"B=1,S=33333," HEADS, 33333, {3, 41, 123}, 256},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        pt_hw hw;
        pt_schedule_result r;
        if (!search_from(cases[c].set, "SPLITS=1", &r, &hw))
            continue;
        CHECK(!r.split_fixed && r.n_splits <= PT_MAX_SPLIT_TRIES);
        for (int k = 0; k < 3; k++) {
            bool tried = false;
            for (int i = 0; i < r.n_splits; i++)
                tried |= r.splits[i].value == cases[c].must_try[k];
            CHECK_MSG(tried, "%s: SPLITS=%lld not tried", cases[c].set, (long long)cases[c].must_try[k]);
        }
        for (int i = 0; i < r.n_splits; i++) {
            CHECK(i == 0 || r.splits[i].value > r.splits[i - 1].value);
            if (r.splits[i].value == cases[c].never) /* listed only with why it is not searched */
                CHECK_MSG(strstr(r.splits[i].why, "leaves the last piece empty") != NULL,
                          "%s: SPLITS=%lld's reason: %s", cases[c].set,
                          (long long)cases[c].never, r.splits[i].why);
        }
        int64_t n = (cases[c].len + r.split_chosen - 1) / r.split_chosen;
        CHECK_MSG(r.split_chosen > 1 && (r.split_chosen - 1) * n < cases[c].len, "%s: SPLITS=%lld",
                  cases[c].set, (long long)r.split_chosen);
        pt_schedule_result_free(&r);
    }
    pt_hw hw;
    pt_schedule_result prime, pow2;
    if (!search_from("B=1,S=16001," HEADS, NULL, &prime, &hw))
        return;
    if (search("B=1,S=16384," HEADS, &pow2, &hw)) {
        double a = prime.best[0].total_ns, b = pow2.best[0].total_ns;
        CHECK_MSG(prime.split_chosen >= 8 && a < 1.05 * b,
                  "S=16001: SPLITS=%lld, %.1f us against %.1f us at 16384",
                  (long long)prime.split_chosen, a / 1e3, b / 1e3);
        pt_schedule_result_free(&pow2);
    }
    pt_schedule_result_free(&prime);
}

/* The chosen total is the least over the counts tried, and every count's figures are what its
 * graph and its combine give when scheduled on their own. */
static void chosen_is_least(void)
{
    pt_schedule_result r;
    pt_hw hw;
    if (!search("B=2,S=16384," HEADS, &r, &hw))
        return;
    CHECK(r.n_splits >= 8 && r.n > 0);
    CHECK_STR(r.split_param, "SPLITS");
    CHECK_STR(r.split_combine, "flash_decoding_combine");
    double least = INFINITY;
    int finite = 0;
    for (int i = 0; i < r.n_splits; i++) {
        const pt_split_try *t = &r.splits[i];
        CHECK(i == 0 || t->value > r.splits[i - 1].value);
        if (!isfinite(t->partial_ns) || !isfinite(t->combine_ns)) {
            CHECK_MSG(t->why[0] != 0, "SPLITS=%lld has no figures and no reason",
                      (long long)t->value);
            continue;
        }
        finite++;
        least = fmin(least, t->partial_ns + t->combine_ns);
        char set[160];
        snprintf(set, sizeof set, "B=2,S=16384," HEADS ",SPLITS=%lld", (long long)t->value);
        CHECK_NEAR(t->partial_ns, alone("flash_decoding", set, &hw), 1e-6);
        snprintf(set, sizeof set, "B=2," HEADS ",SPLITS=%lld", (long long)t->value);
        /* launched as the partial's programmatic dependent: launch_ns less what that saves */
        CHECK(hw.dependent_launch_saved_ns > 0);
        CHECK_NEAR(t->combine_ns, alone("flash_decoding_combine", set, &hw) - hw.dependent_launch_saved_ns, 1e-6);
    }
    CHECK(finite >= 2);
    /* the combine reads every split's partial outputs: the most splits cost it more than one */
    double first = r.splits[0].combine_ns, last = NAN;
    for (int i = 0; i < r.n_splits; i++)
        if (isfinite(r.splits[i].combine_ns))
            last = r.splits[i].combine_ns;
    CHECK_MSG(r.splits[0].value == 1 && last > first, "combine %g ns at 1 split, %g at the most",
              first, last);
    if (isfinite(r.unsplit_ns))
        least = fmin(least, r.unsplit_ns);
    CHECK_NEAR(r.best[0].total_ns, least, 1e-6);
    CHECK_NEAR(r.best[0].total_ns, r.best[0].predicted_ns + r.best[0].combine_ns, 1e-6);
    CHECK(r.best[0].split == r.split_chosen);
    for (int i = 1; i < r.n; i++)
        CHECK(r.best[i].total_ns >= r.best[i - 1].total_ns);
    pt_schedule_result_free(&r);
}

/* Each candidate's program records its count, matches its own graph instance, validates, and
 * reloads against that instance only. */
static void programs_carry_the_count(void)
{
    pt_schedule_result r;
    pt_hw hw;
    pt_error e = {{0}};
    if (!search("B=1,S=65536," HEADS, &r, &hw))
        return;
    const pt_schedule_candidate *c = &r.best[0];
    CHECK(c->prog.n_params == 1 && !strcmp(c->prog.params[0].name, "SPLITS") &&
          c->prog.params[0].value == c->split);
    int k = pt_graph_find_param(c->sg.graph, "SPLITS");
    CHECK(k >= 0 && c->sg.graph->params[k].value == c->split);
    CHECK_MSG(pt_validate(&c->prog, &c->sg, &hw, NULL, &e), "%s", e.msg);
    char *json = pt_sprogram_to_json(&c->prog, &c->sg);
    char want[64];
    snprintf(want, sizeof want, "\"params\": {\"SPLITS\": %lld}", (long long)c->split);
    CHECK(json && strstr(json, want));
    pt_sprogram p;
    pt_stask_graph sg;
    CHECK_MSG(json && pt_sprogram_load_text(&p, &sg, c->sg.graph, "p.json", json, strlen(json), &e),
              "%s", e.msg);
    if (json && !e.msg[0]) {
        CHECK(p.n_params == 1 && p.params[0].value == c->split);
        pt_sprogram_free(&p);
        pt_stask_graph_free(&sg);
    }
    /* against another count's instance: refused, naming the field and the fix */
    pt_graph other;
    const char *text = example("flash_decoding");
    char set[96];
    snprintf(set, sizeof set, "B=1,S=65536," HEADS ",SPLITS=%lld", (long long)(c->split * 2));
    CHECK(pt_graph_load_text(&other, "flash_decoding", text, strlen(text), set, &e));
    CHECK(json && !pt_sprogram_load_text(&p, &sg, &other, "p.json", json, strlen(json), &e));
    CHECK_CONTAINS(e.msg, "p.json: $.params.SPLITS: is ");
    CHECK_CONTAINS(e.msg, "expected the graph instantiated with the sProgram's parameters");
    /* a parameter the graph does not have */
    char *at = json ? strstr(json, "\"SPLITS\": ") : NULL;
    if (at) {
        at[1] = 'X'; /* "XPLITS" */
        CHECK(!pt_sprogram_load_text(&p, &sg, c->sg.graph, "p.json", json, strlen(json), &e));
        CHECK_CONTAINS(e.msg, "p.json: $.params.XPLITS: graph \"flash_decoding\" has no parameter");
    }
    free(json);
    pt_schedule_result_free(&r);
}

/* --set SPLITS=4 fixes the count: one tried, still with its combine; without a source the
 * graph is scheduled as loaded, as before the split search existed. */
static void fixed_count(void)
{
    pt_schedule_result r;
    pt_hw hw;
    if (search("B=1,S=131072," HEADS ",SPLITS=4", &r, &hw)) {
        CHECK(r.n_splits == 1 && r.splits[0].value == 4 && r.split_chosen == 4);
        CHECK(isfinite(r.splits[0].combine_ns) && r.best[0].combine_ns > 0);
        pt_schedule_result_free(&r);
    }
    pt_error e = {{0}};
    pt_graph g;
    const char *text = example("flash_decoding");
    pt_schedule_opts o = {.top_k = 1};
    CHECK(pt_graph_load_text(&g, "flash_decoding", text, strlen(text), "B=1,S=131072", &e));
    if (pt_schedule(&g, &hw, &o, &r, &e)) {
        CHECK(r.n_splits == 0 && r.best[0].split == 0 && r.best[0].prog.n_params == 0);
        CHECK(r.best[0].total_ns == r.best[0].predicted_ns);
        pt_schedule_result_free(&r);
    }
}

/* The unsplit graph: searched beside one piece with the shared parameters' values, ranked by
 * its own time; chosen for 64 sequences of 1k keys (512 CTAs: a combine only adds its launch and
 * the partial outputs' round trip), not for one sequence of 128k keys (8 CTAs); not tried when
 * --set fixes the count. Its pick's program is the unsplit graph's, with no params. */
static void unsplit(void)
{
    pt_schedule_result r;
    pt_hw hw;
    pt_error e = {{0}};
    if (search("B=64,S=1024," HEADS, &r, &hw)) {
        CHECK_STR(r.split_unsplit, "flash_decoding_unsplit");
        CHECK_MSG(isfinite(r.unsplit_ns), "%s", r.unsplit_why);
        CHECK_NEAR(r.unsplit_ns, alone("flash_decoding_unsplit", "B=64,S=1024," HEADS, &hw), 1e-6);
        const pt_schedule_candidate *c = &r.best[0];
        CHECK(c->unsplit && c->split == 1 && c->combine_ns == 0 && c->total_ns == r.unsplit_ns);
        CHECK(r.splits[0].value == 1 &&
              r.unsplit_ns < r.splits[0].partial_ns + r.splits[0].combine_ns);
        CHECK_STR(c->sg.graph->name, "flash_decoding_unsplit");
        CHECK(c->prog.n_params == 0 && strstr(c->desc, "unsplit (flash_decoding_unsplit)"));
        CHECK_MSG(pt_validate(&c->prog, &c->sg, &hw, NULL, &e), "%s", e.msg);
        char *json = pt_sprogram_to_json(&c->prog, &c->sg);
        CHECK(json && strstr(json, "\"graph\": \"flash_decoding_unsplit\"") &&
              !strstr(json, "\"params\""));
        free(json);
        pt_schedule_result_free(&r);
    }
    if (search("B=1,S=131072," HEADS, &r, &hw)) {
        CHECK(isfinite(r.unsplit_ns) && !r.best[0].unsplit && r.best[0].split > 1);
        CHECK(r.unsplit_ns > r.best[0].total_ns);
        pt_schedule_result_free(&r);
    }
    if (search("B=64,S=1024," HEADS ",SPLITS=1", &r, &hw)) {
        CHECK(r.split_unsplit[0] == 0 && !r.best[0].unsplit && r.best[0].combine_ns > 0);
        pt_schedule_result_free(&r);
    }
}

/* --set and an sProgram's params: merged, or refused when they disagree. */
static void params_merge(void)
{
    pt_sprogram_param pp[1] = {{"SPLITS", 32}};
    pt_error e = {{0}};
    char *out = NULL;
    CHECK(pt_sprogram_params_merge("B=1,S=4096", pp, 1, "p.json", &out, &e));
    CHECK(out && !strcmp(out, "B=1,S=4096,SPLITS=32"));
    free(out);
    CHECK(pt_sprogram_params_merge("SPLITS=32,B=2", pp, 1, "p.json", &out, &e));
    CHECK(out && !strcmp(out, "SPLITS=32,B=2"));
    free(out);
    CHECK(pt_sprogram_params_merge(NULL, pp, 1, "p.json", &out, &e));
    CHECK(out && !strcmp(out, "SPLITS=32"));
    free(out);
    CHECK(!pt_sprogram_params_merge("SPLITS=8", pp, 1, "p.json", &out, &e));
    CHECK_CONTAINS(e.msg, "--set SPLITS=8 disagrees with p.json: $.params.SPLITS = 32");
    CHECK(pt_sprogram_params_merge(NULL, pp, 0, "p.json", &out, &e) && out == NULL);
}

int main(void)
{
    PTEST_RUN(many_and_few);
    PTEST_RUN(counts_that_divide);
    PTEST_RUN(chosen_is_least);
    PTEST_RUN(programs_carry_the_count);
    PTEST_RUN(fixed_count);
    PTEST_RUN(unsplit);
    PTEST_RUN(params_merge);
    PTEST_END();
}
