/* schedule.c — the schedule verb: the automatic scheduler's joint search, optionally
 * restricted to what a code generator emits (--target) and checked by measuring the best N
 * candidates on a GPU (--measure). Progress goes to stderr; the same inputs give the same
 * output (the search order is fixed; only --budget can cut it short). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "backend.h"
#include "codegen.h"
#include "measure.h"
#include "runner.h"
#include "scheduler.h"

/* What the search's callbacks share: quietness, and the target whose generator must accept
 * every candidate (NULL: any valid one). */
typedef struct {
    bool quiet;
    const pt_backend *target;
} search_ctx;

static void on_search_progress(void *ctx, int64_t seen, int64_t total, double best_ns)
{
    if (((search_ctx *)ctx)->quiet)
        return;
    fprintf(stderr, "\rschedule: %lld of %lld candidates, best predicted %.1f us   ",
            (long long)seen, (long long)total, best_ns / 1e3);
    if (seen >= total)
        fputc('\n', stderr);
}

/* The scheduler's filter: the target's generator accepts the candidate (else why not, which
 * the scheduler counts for its failure message). */
static bool accept_target(void *ctx, const pt_sprogram *p, const pt_stask_graph *sg,
                          const pt_hw *hw, pt_error *why)
{
    const pt_backend *be = ((search_ctx *)ctx)->target;
    return !be || be->accepts(p, sg, hw, why);
}

/* Compile and run one candidate through the measurement layer; its median time in ms, or NaN
 * with the reason printed. */
static double measure_one(const cli_opts *o, const pt_schedule_candidate *c, const pt_hw *hw,
                          int rank)
{
    pt_error err = {{0}};
    char what[256];
    snprintf(what, sizeof what, "schedule candidate %d (%s)", rank, c->desc);
    pt_measure_request rq = {.remote = o->remote, .timeout_s = o->timeout_s,
                             .build_timeout_s = o->build_timeout_s,
                             .cancelled = cli_signal_cancelled};
    pt_measurement m;
    double ms = NAN;
    if (pt_measure(&m, &c->prog, &c->sg, hw, o->target, what, &rq, &err))
        ms = m.h.time_ms_median;
    else if (!cli_signal_caught())
        fprintf(stderr, "%s\n", err.msg[0] ? err.msg : "schedule: no result");
    pt_measurement_free(&m); /* also removes the bundle */
    return ms;
}

/* Do candidates a and b agree on one part of their choice: 0 the tile shape, 1 the tile shape
 * and the ring depth (stages), 2 the grid (persistent or not, who stores), 3 the schedule style
 * (look-ahead, ping-pong, grid, rasterisation, who stores), 4 everything but the stage count?
 * (The raster's group size and the rest of the printed description are not told apart, as the
 * description does not.) */
static bool same_part(const pt_schedule_candidate *a, const pt_schedule_candidate *b, int part)
{
    const pt_intra_opts *x = &a->opts, *y = &b->opts;
    bool tile = memcmp(a->sg.tiling.tile, b->sg.tiling.tile, sizeof a->sg.tiling.tile) == 0;
    bool grid = x->persistent == y->persistent && x->store_by_consumer == y->store_by_consumer &&
                x->split_k == y->split_k && x->stream_k == y->stream_k && a->split == b->split;
    bool style = x->lookahead == y->lookahead && x->pingpong == y->pingpong && grid &&
                 x->raster == y->raster;
    switch (part) {
    case 0: return tile;
    case 1: return tile && x->stages == y->stages;
    case 2: return grid;
    case 3: return style;
    default: return tile && a->sg.tiling.warpgroups == b->sg.tiling.warpgroups && style;
    }
}

/* Which of the ranked candidates to measure, n at most: the model's ranking is least trusted
 * between tile shapes, ring depths, grids and schedule styles, so the best predicted of each
 * distinct tile shape (for half of them), then of each stage count of a tile, then of each grid
 * (persistent or not, who stores), then of each style, then of each schedule (stage counts
 * aside), then the rest in rank order. Ring depth comes second: the model charges a ring only
 * for the latency it hides, and on the H100 a ChunkState whose producer runs 2 steps ahead ran
 * 8-12% faster than at 3 or 4, which the model ranks 1-1.5% behind (BENCHMARKS.md, session 35:
 * its states' writes wait behind the loads in flight). */
static int pick_for_measure(const pt_schedule_result *r, int n, int *pick)
{
    bool *taken = calloc((size_t)r->n + 1, sizeof *taken);
    int *seen = calloc((size_t)r->n + 1, sizeof *seen); /* a candidate of each part seen */
    int k = 0;
    for (int pass = 0; pass < 6 && k < n && taken && seen; pass++) {
        int n_seen = 0, limit = pass == 0 ? (n + 1) / 2 : n;
        /* a pass's parts include those already taken */
        for (int i = 0; i < r->n && pass < 5; i++)
            if (taken[i])
                seen[n_seen++] = i;
        for (int i = 0; i < r->n && k < limit; i++) {
            if (taken[i])
                continue;
            bool dup = false;
            for (int j = 0; j < n_seen && pass < 5; j++)
                dup |= same_part(&r->best[seen[j]], &r->best[i], pass);
            if (dup)
                continue;
            seen[n_seen++] = i;
            taken[i] = true;
            pick[k++] = i;
        }
    }
    free(taken);
    free(seen);
    /* in rank order */
    for (int i = 1; i < k; i++)
        for (int j = i; j > 0 && pick[j - 1] > pick[j]; j--) {
            int t = pick[j];
            pick[j] = pick[j - 1];
            pick[j - 1] = t;
        }
    return k;
}

/* --candidates DIR: the sPrograms --measure would time, as DIR/cand-RANK.json, and a line
 * each on stdout (RANK, predicted ns, description), for a caller that builds and times them
 * itself (bench/fa/run builds them in parallel and times them one by one). */
static int write_candidates(const cli_opts *o, const pt_schedule_result *r, const int *pick,
                            int n_pick)
{
    if (mkdir(o->candidates, 0777) != 0 && errno != EEXIST) {
        cli_error("schedule: --candidates %s: cannot create the directory: %s", o->candidates,
                  strerror(errno));
        return EXIT_INVALID;
    }
    for (int j = 0; j < n_pick; j++) {
        const pt_schedule_candidate *c = &r->best[pick[j]];
        char path[4200];
        snprintf(path, sizeof path, "%s/cand-%d.json", o->candidates, pick[j] + 1);
        char *text = pt_sprogram_to_json(&c->prog, &c->sg);
        bool ok = text && cli_write(path, text);
        free(text);
        if (!ok)
            return EXIT_INVALID;
        printf("%d %.0f %s\n", pick[j] + 1, c->predicted_ns, c->desc);
    }
    return EXIT_OK;
}

/* The length of the sequence a piece axis of g cuts (graph.h: FlashDecoding's S), 0 if none. */
static int64_t pieces_of(const pt_graph *g)
{
    for (int a = 0; a < g->n_axes; a++)
        if (g->axes[a].split_total > 0)
            return g->axes[a].split_total;
    return 0;
}

/* The split counts the search tried (scheduler.h: pt_split_try), each with its best kernel, its
 * combine and their sum, the chosen one marked; where the graph cuts a sequence of `total`
 * elements (0: it does not), each count's piece length, and the last piece's where shorter. */
static void print_splits(FILE *out, const pt_schedule_result *r, int64_t total)
{
    fprintf(out, "\nsplit count %s, %s (each with the %s kernel it implies):\n"
                 "  %8s  %12s  %12s  %12s%s\n",
            r->split_param, r->split_fixed ? "as --set gives it" : "chosen by the search",
            r->split_combine, r->split_param, "kernel", "combine", "total",
            total > 0 ? "  a piece" : "");
    for (int i = 0; i < r->n_splits; i++) {
        const pt_split_try *t = &r->splits[i];
        if (!isfinite(t->partial_ns) || !isfinite(t->combine_ns)) {
            fprintf(out, "  %8lld  %12s  %12s  %12s  (%s)\n", (long long)t->value, "-", "-",
                    "-", t->why);
            continue;
        }
        char piece[64] = "";
        if (total > 0 && t->value > 0) {
            int64_t n = (total + t->value - 1) / t->value, last = total - (t->value - 1) * n;
            if (last == n)
                snprintf(piece, sizeof piece, "  %lld", (long long)n);
            else
                snprintf(piece, sizeof piece, "  %lld, the last %lld", (long long)n, (long long)last);
        }
        fprintf(out, "  %8lld  %9.1f us  %9.1f us  %9.1f us%s%s\n", (long long)t->value,
                t->partial_ns / 1e3, t->combine_ns / 1e3, (t->partial_ns + t->combine_ns) / 1e3,
                piece,
                t->value == r->split_chosen && !(r->n && r->best[0].unsplit) ? "  <- chosen"
                                                                              : "");
    }
    if (!r->split_unsplit[0])
        return;
    if (!isfinite(r->unsplit_ns))
        fprintf(out, "  %8s  %12s  %12s  %12s  (%s)\n", "unsplit", "-", "-", "-", r->unsplit_why);
    else
        fprintf(out, "  %8s  %9.1f us  %12s  %9.1f us%s\n", "unsplit", r->unsplit_ns / 1e3,
                "none", r->unsplit_ns / 1e3, r->n && r->best[0].unsplit ? "  <- chosen" : "");
    fprintf(out, "  (unsplit: %s, one kernel with no pieces and no combine)\n", r->split_unsplit);
}

int verb_schedule(int argc, char **argv)
{
    cli_opts o = {.verb = "schedule", .split_searched = true};
    if (!cli_parse(argc, argv,
                   "hw,set,o,top,budget,measure,candidates,target,remote,timeout,build-timeout,q,decay,ragged",
                   &o))
        return EXIT_USAGE;
    if (o.candidates && o.measure <= 0) {
        cli_error("schedule: --candidates DIR needs --measure N (how many to write)");
        return EXIT_USAGE;
    }
    search_ctx sc = {.quiet = o.quiet};
    pt_error err = {{0}};
    /* no --decay, or "any": every form where the graph has the factored forms' chain */
    pt_decay_form decay = PT_DECAY_TILE;
    bool decay_any = !o.decay || !strcmp(o.decay, "any");
    if (!decay_any && !pt_decay_form_parse(o.decay, &decay)) {
        cli_error("schedule: --decay %s: expected tile, factored, factored16 or any", o.decay);
        return EXIT_USAGE;
    }
    if (o.target && !pt_backend_lookup(o.target, "schedule: ", &sc.target, &err)) {
        cli_error("%s", err.msg);
        return EXIT_USAGE;
    }
    if (o.measure > 0 && !o.target) { /* what is measured must be generated */
        o.target = PT_TARGET_DEFAULT;
        sc.target = pt_backend_find(o.target);
    }
    cli_inputs in = {0};
    if (!cli_load_graph(&o, &in))
        return EXIT_INVALID;
    /* No --target: the generator of the hardware's arch where that is not the default
     * (MI300X -> gfx942), so `schedule --hw MI300X` returns only what gfx942 generates; the
     * default target's hardware keeps the unfiltered search it always had. */
    if (!sc.target) {
        const pt_backend *be = pt_backend_for_arch(in.hw.arch);
        if (be && strcmp(be->name, PT_TARGET_DEFAULT) != 0)
            sc.target = be;
    }
    pt_decay_chain chain;
    if (pt_decay_is_factored(decay) && !pt_decay_chain_find(&in.graph, &chain, &err)) {
        cli_error("schedule: --decay %s: %s", pt_decay_form_name(decay), err.msg);
        cli_inputs_free(&in);
        return EXIT_INVALID;
    }
    int64_t seq_total = pieces_of(&in.graph); /* the split table's piece lengths */
    cli_inputs_free(&in); /* the search partitions for itself */
    pt_graph_source src = cli_graph_source(&o); /* a split count is searched from it */
    if (o.measure > 0 && !o.candidates && !o.remote && !pt_runner_check_local(&err)) {
        cli_error("schedule: --measure: %s", err.msg);
        return EXIT_INVALID;
    }
    int top = o.top > 0 ? o.top : 5;
    if (o.measure > 0)
        top = 1024; /* the measured ones are picked from the whole ranking */
    char what[80];
    snprintf(what, sizeof what, "the %s code generator", sc.target ? sc.target->name : "");
    pt_schedule_opts so = {.top_k = top, .budget_s = o.budget_s, .progress = on_search_progress,
                           .accept = accept_target, .accept_what = what, .ctx = &sc,
                           .source = &src, .decay = decay, .decay_any = decay_any,
                           .ragged_batch = o.ragged};
    pt_schedule_result r;
    if (!pt_schedule(&in.graph, &in.hw, &so, &r, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return EXIT_INVALID;
    }
    FILE *out = o.out && strcmp(o.out, "-") == 0 ? stderr : stdout;
    char split[96] = "";
    if (r.pruned_split_k > 0)
        snprintf(split, sizeof split, ", %lld split-K / stream-K choices skipped (they cannot pay)",
                 (long long)r.pruned_split_k);
    fprintf(out, "searched %lld of %lld candidates in %.3f s%s: %lld pruned (memory, registers, "
                 "shapes%s), %lld pruned by the roofline bound%s, %lld simulated\n",
            (long long)r.seen, (long long)r.total, r.elapsed_s,
            r.budget_hit ? " (budget reached)" : "", (long long)r.pruned_invalid,
            sc.target ? ", not generated by the target" : "", (long long)r.pruned_bound, split,
            (long long)r.simulated);
    int chosen = 0;
    double best_ms = INFINITY;
    int pick[64], n_pick = o.measure > 0 ? pick_for_measure(&r, o.measure, pick) : 0;
    if (o.candidates) {
        int rc = write_candidates(&o, &r, pick, n_pick);
        pt_schedule_result_free(&r);
        return rc;
    }
    if (n_pick > 0)
        cli_signals_install(); /* measuring runs children: a signal stops them cleanly */
    int shown = o.top > 0 ? o.top : 5;
    bool splits = r.n_splits > 0;
    if (splits)
        print_splits(out, &r, seq_total);
    fprintf(out, "\n  #  predicted  %s    TFLOP/s  %s sProgram\n", splits ? "  + combine" : "",
            o.measure ? "measured  " : "");
    for (int i = 0; i < r.n; i++) {
        bool measure = false;
        for (int j = 0; j < n_pick; j++)
            measure |= pick[j] == i;
        if (!measure && i >= shown)
            continue;
        double ms = measure && !cli_signal_caught() ? measure_one(&o, &r.best[i], &in.hw, i + 1)
                                                     : NAN;
        if (cli_signal_caught()) {
            pt_schedule_result_free(&r);
            return cli_signal_exit("schedule");
        }
        /* with a split search the measured kernel is the partial one: its combine's
         * prediction is added, as the ranking does */
        if (isfinite(ms) && ms + r.best[i].combine_ns / 1e6 < best_ms) {
            best_ms = ms + r.best[i].combine_ns / 1e6;
            chosen = i;
        }
        char meas[32] = "";
        if (o.measure)
            snprintf(meas, sizeof meas, isfinite(ms) ? "%8.1f us " : "         - ", ms * 1e3);
        char comb[32] = "";
        if (splits)
            snprintf(comb, sizeof comb, "  %7.1f us", r.best[i].combine_ns / 1e3);
        fprintf(out, "  %d  %9.1f us%s  %7.1f  %s%s\n", i + 1, r.best[i].predicted_ns / 1e3, comb,
                r.best[i].tflops, meas, r.best[i].desc);
    }
    if (o.measure)
        fprintf(out, "\nkept #%d: %s\n", chosen + 1,
                isfinite(best_ms) ? "the fastest measured" : "none measured, the best predicted");
    else if (splits && r.best[0].unsplit)
        fprintf(out, "\nbest predicted: %.1f us (%.1f TFLOP/s), one kernel of the unsplit graph %s "
                     "(no combine; the sProgram is that graph's) on %s\n",
                r.best[0].predicted_ns / 1e3, r.best[0].tflops, r.split_unsplit, in.hw.name);
    else if (splits)
        fprintf(out, "\nbest predicted: %.1f us (%.1f TFLOP/s) + the combine %.1f us = %.1f us "
                     "with %s=%lld (the sProgram's \"params\") on %s\n",
                r.best[0].predicted_ns / 1e3, r.best[0].tflops, r.best[0].combine_ns / 1e3,
                r.best[0].total_ns / 1e3, r.split_param, (long long)r.best[0].split, in.hw.name);
    else
        fprintf(out, "\nbest predicted: %.1f us (%.1f TFLOP/s) on %s\n",
                r.best[0].predicted_ns / 1e3, r.best[0].tflops, in.hw.name);
    int rc = EXIT_OK;
    if (o.out) {
        char *text = pt_sprogram_to_json(&r.best[chosen].prog, &r.best[chosen].sg);
        rc = text && cli_write(o.out, text) ? EXIT_OK : EXIT_INVALID;
        free(text);
    }
    pt_schedule_result_free(&r);
    return rc;
}
