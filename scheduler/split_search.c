/* split_search.c — the scheduler's choice of a graph's split count (graph.h split_param:
 * FlashDecoding's SPLITS, the pieces each sequence's keys are cut into, each piece on its own
 * EU) and pt_schedule, which takes that path where it applies.
 *
 * The count changes the graph itself (its axes' sizes, so its tiles, trip counts and grid): it
 * cannot be one more value of the joint search over one graph. Every count tried is a fresh
 * instance of the graph loaded from its source with that count and searched as any graph is
 * (search.c); the combine kernel the count implies (the graph named by split_combine, given the
 * parameter values the two graphs share) is searched the same way, with the same acceptance
 * test. Candidates are ranked by their own kernel plus that combine: more pieces put more EUs
 * on a few long sequences but add partial outputs for the combine to read and a prologue and
 * epilogue per piece; many short sequences fill the EUs with few pieces.
 *
 * Counts tried, in increasing order (ties in the ranking keep the smaller count): the counts
 * from 1 to 256 within the parameter's declared range whose graph instantiates, and the value
 * the graph was loaded with. FlashDecoding's pieces need not divide the KV length (graph.h: the
 * last piece is shorter), so a count instantiates wherever every piece holds a key. Where more
 * instantiate than the table holds, the powers of two among them are kept first, then counts
 * that divide the length (a KV length of 1000: 5, 10, 25, ...; 33333: 3, 41, 123), spread
 * evenly over the room left, then ragged ones the same way. Powers of two that do not
 * instantiate fill what room is left, with the reason (a piece left empty), as does a count for
 * which no schedule of either kernel fits. Overrides that set the parameter (--set SPLITS=8) fix
 * it: that count alone is tried, still with its combine.
 *
 * A graph may also name its unsplit form (split_unsplit: FlashDecoding's one-pass kernel, which
 * writes the normalised output itself). Where count 1 is searched, that graph is searched too and
 * its candidates are ranked by their own time alone: with one piece the combine only converts,
 * and the unsplit kernel saves its launch and the partial output's round trip. It is not tried
 * when the overrides fix the count (the user asked for that graph's kernels). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "search_internal.h"

#define MAX_SPLIT 256

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Does the graph instantiate with parameter `name` = c? *ragged: with a last piece shorter
 * than the others (graph.h), where it does. */
static bool count_fits(const pt_graph_source *src, const char *name, int64_t c, pt_graph *scratch,
                       bool *ragged)
{
    char more[PT_NAME_MAX + 24];
    snprintf(more, sizeof more, "%s=%lld", name, (long long)c);
    pt_error e = {{0}};
    *ragged = false;
    if (!pt_graph_source_load(src, more, scratch, &e))
        return false;
    for (int a = 0; a < scratch->n_axes; a++)
        *ragged |= pt_axis_ragged(scratch, a);
    return true;
}

/* Appends room of the n counts in v to out (at *k), evenly over the sorted list, its ends
 * included; all of them where they fit. */
static void spread(const int64_t *v, int n, int room, int64_t *out, int *k)
{
    if (n <= room)
        for (int i = 0; i < n; i++)
            out[(*k)++] = v[i];
    else
        for (int i = 0; i < room; i++)
            out[(*k)++] = v[room > 1 ? (int)((int64_t)i * (n - 1) / (room - 1)) : n / 2];
}

static void sort_counts(int64_t *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            int64_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

static bool power_of_two(int64_t c)
{
    return c > 0 && (c & (c - 1)) == 0;
}

/* The counts to try, increasing; their number. */
static int split_counts(const pt_graph *g, const pt_graph_source *src, int64_t *v)
{
    const pt_param *p = &g->params[pt_graph_find_param(g, g->split_param)];
    if (pt_graph_source_sets(src, g->split_param)) {
        v[0] = p->value;
        return 1;
    }
    int64_t pow_fit[16], even[MAX_SPLIT], ragged[MAX_SPLIT], pow_bad[16];
    int np = 0, ne = 0, nr = 0, nb = 0;
    pt_graph *scratch = malloc(sizeof *scratch);
    for (int64_t c = 1; c <= MAX_SPLIT; c++) {
        if (c < p->min || c > p->max)
            continue;
        bool rag = false;
        bool fits = c == p->value || (scratch && count_fits(src, g->split_param, c, scratch, &rag));
        if (power_of_two(c) && fits)
            pow_fit[np++] = c;
        else if (power_of_two(c))
            pow_bad[nb++] = c;
        else if (fits && !rag)
            even[ne++] = c;
        else if (fits)
            ragged[nr++] = c;
    }
    free(scratch);
    int n = 0;
    if (p->value > MAX_SPLIT) /* the loaded value, beyond the range searched */
        v[n++] = p->value;
    for (int i = 0; i < np && n < PT_MAX_SPLIT_TRIES; i++)
        v[n++] = pow_fit[i];
    /* then counts whose pieces are all alike (no key block partly past a piece's end in the
     * last piece), and where room is left, ragged ones */
    spread(even, ne, PT_MAX_SPLIT_TRIES - n, v, &n);
    spread(ragged, nr, PT_MAX_SPLIT_TRIES - n, v, &n);
    for (int i = 0; i < nb && n < PT_MAX_SPLIT_TRIES; i++)
        v[n++] = pow_bad[i];
    sort_counts(v, n);
    return n;
}

/* What the searches of one count share with the caller's options: progress and the candidate
 * budget count over all of them; the acceptance test is the caller's. */
typedef struct {
    const pt_schedule_opts *o;
    int64_t seen0, total0;
} wrap;

static void wrap_progress(void *ctx, int64_t seen, int64_t total, double best_ns)
{
    const wrap *w = ctx;
    w->o->progress(w->o->ctx, w->seen0 + seen, w->total0 + total, best_ns);
}

static bool wrap_accept(void *ctx, const pt_sprogram *p, const pt_stask_graph *sg,
                        const pt_hw *hw, pt_error *why)
{
    const wrap *w = ctx;
    return w->o->accept(w->o->ctx, p, sg, hw, why);
}

static bool wrap_stop(void *ctx, int64_t seen)
{
    const wrap *w = ctx;
    return w->o->stop(w->o->ctx, w->seen0 + seen);
}

/* The caller's options for one count's searches: k best, the budget left, no split search. */
static pt_schedule_opts sub_opts(const pt_schedule_opts *o, wrap *w, int k, double t0)
{
    pt_schedule_opts s = {.top_k = k, .accept_what = o->accept_what, .ctx = w};
    s.progress = o->progress ? wrap_progress : NULL;
    s.accept = o->accept ? wrap_accept : NULL;
    s.stop = o->stop ? wrap_stop : NULL;
    if (o->budget_s > 0) /* at least a little: a search of no time returns nothing */
        s.budget_s = fmax(o->budget_s - (now_s() - t0), 1e-3);
    return s;
}

/* The best combine kernel's predicted time for instance g, or INFINITY with why. */
static double best_combine(const pt_graph *g, const pt_hw *hw, const pt_schedule_opts *o,
                           double t0, char *why, size_t cap)
{
    pt_graph *c = malloc(sizeof *c);
    pt_error e = {{0}};
    double ns = INFINITY;
    wrap w = {.o = o};
    pt_schedule_opts co = sub_opts(o, &w, 1, t0);
    co.progress = NULL; /* its candidates are not the ones counted */
    co.stop = NULL;
    pt_schedule_result cr;
    if (!c)
        snprintf(why, cap, "out of memory");
    else if (!pt_graph_source_load_sibling(o->source, g, g->split_combine, c, &e) ||
             !pt_schedule_graph(c, hw, &co, &cr, &e))
        snprintf(why, cap, "the combine (%s): %.900s", g->split_combine, e.msg);
    else {
        /* the combine is launched as the partial's programmatic dependent where the target
         * does that (hw dependent_launch_saved_ns), so part of its launch hides in the partial */
        ns = cr.best[0].predicted_ns - hw->dependent_launch_saved_ns;
        pt_schedule_result_free(&cr);
    }
    free(c);
    return ns;
}

/* Keep the k best by total time, best first; ties keep the earlier (the smaller count). */
static void offer_total(pt_schedule_result *r, int k, pt_schedule_candidate *c)
{
    int pos = r->n;
    while (pos > 0 && c->total_ns < r->best[pos - 1].total_ns)
        pos--;
    if (pos >= k) {
        pt_sprogram_free(&c->prog);
        pt_stask_graph_free(&c->sg);
        return;
    }
    if (r->n == k) {
        pt_sprogram_free(&r->best[r->n - 1].prog);
        pt_stask_graph_free(&r->best[r->n - 1].sg);
        r->n--;
    }
    memmove(&r->best[pos + 1], &r->best[pos], (size_t)(r->n - pos) * sizeof *r->best);
    r->best[pos] = *c;
    r->n++;
}

/* Count v's candidates, marked with the count and their combine, into r's ranking; those of the
 * unsplit graph (unsplit: its name) as count 1 with no combine and no params. */
static void take_candidates(pt_schedule_result *r, int k, pt_schedule_result *sr, int64_t v,
                            double combine_ns, const char *unsplit)
{
    for (int i = 0; i < sr->n; i++) {
        pt_schedule_candidate *c = &sr->best[i];
        c->split = v;
        c->unsplit = unsplit != NULL;
        c->combine_ns = combine_ns;
        c->total_ns = c->predicted_ns + combine_ns;
        size_t n = strlen(c->desc);
        if (unsplit) {
            snprintf(c->desc + n, sizeof c->desc - n, " unsplit (%s)", unsplit);
        } else {
            c->prog.n_params = 1;
            snprintf(c->prog.params[0].name, sizeof c->prog.params[0].name, "%s",
                     r->split_param);
            c->prog.params[0].value = v;
            snprintf(c->desc + n, sizeof c->desc - n, " %s=%lld", r->split_param, (long long)v);
        }
        offer_total(r, k, c);
    }
    sr->n = 0; /* moved */
}

static void add_stats(pt_schedule_result *r, const pt_schedule_result *s)
{
    r->total += s->total;
    r->seen += s->seen;
    r->pruned_invalid += s->pruned_invalid;
    r->pruned_bound += s->pruned_bound;
    r->pruned_split_k += s->pruned_split_k;
    r->refused += s->refused;
    r->simulated += s->simulated;
    r->budget_hit |= s->budget_hit;
}

/* Graph instance g searched with the caller's options (the budget left, progress and candidates
 * counted over every search); its statistics join r's. False with e set where nothing fits. */
static bool search_instance(pt_schedule_result *r, const pt_graph *g, int k, const pt_hw *hw,
                            const pt_schedule_opts *o, double t0, pt_schedule_result *sr,
                            pt_error *e)
{
    wrap w = {.o = o, .seen0 = r->seen, .total0 = r->total};
    pt_schedule_opts so = sub_opts(o, &w, k, t0);
    if (!pt_schedule_graph(g, hw, &so, sr, e))
        return false;
    add_stats(r, sr);
    return true;
}

/* One count: its graph instance in r->graphs[i], its search and its combine's. */
static void try_count(pt_schedule_result *r, int i, int k, const pt_hw *hw,
                      const pt_schedule_opts *o, double t0)
{
    pt_split_try *t = &r->splits[i];
    t->partial_ns = t->combine_ns = INFINITY;
    char more[PT_NAME_MAX + 24];
    snprintf(more, sizeof more, "%s=%lld", r->split_param, (long long)t->value);
    pt_error e = {{0}};
    pt_schedule_result sr;
    /* a count whose search fails loses its candidates: the attempt is named in the table */
    if (!pt_graph_source_load(o->source, more, &r->graphs[i], &e) ||
        !search_instance(r, &r->graphs[i], k, hw, o, t0, &sr, &e)) {
        snprintf(t->why, sizeof t->why, "%s", e.msg);
        return;
    }
    t->partial_ns = sr.best[0].predicted_ns;
    t->combine_ns = best_combine(&r->graphs[i], hw, o, t0, t->why, sizeof t->why);
    if (isfinite(t->combine_ns))
        take_candidates(r, k, &sr, t->value, t->combine_ns, NULL);
    pt_schedule_result_free(&sr);
}

/* The unsplit graph of instance g (count 1) into *slot, searched; its candidates join r's
 * ranking as count 1 with no combine. */
static void try_unsplit(pt_schedule_result *r, pt_graph *slot, const pt_graph *g, int k,
                        const pt_hw *hw, const pt_schedule_opts *o, double t0)
{
    pt_error e = {{0}};
    pt_schedule_result sr;
    if (!pt_graph_source_load_sibling(o->source, g, g->split_unsplit, slot, &e) ||
        !search_instance(r, slot, k, hw, o, t0, &sr, &e)) {
        snprintf(r->unsplit_why, sizeof r->unsplit_why, "%s", e.msg);
        return;
    }
    r->unsplit_ns = sr.best[0].predicted_ns;
    take_candidates(r, k, &sr, 1, 0, g->split_unsplit);
    pt_schedule_result_free(&sr);
}

/* Nothing fits for any count: the reasons, count by count, as far as they go. */
static void no_count_fits(const pt_graph *g, const pt_hw *hw, const pt_schedule_result *r,
                          pt_error *err)
{
    char list[PT_ERROR_MAX] = "";
    size_t n = 0;
    for (int i = 0; i < r->n_splits && n + 8 < sizeof list; i++)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s=%lld: %.200s", i ? "; " : "",
                              r->split_param, (long long)r->splits[i].value, r->splits[i].why);
    pt_fail(err, "scheduler: no split count %s of %s fits %s; %s", r->split_param, g->name,
            hw->name, list);
}

bool pt_schedule_split(const pt_graph *g, const pt_hw *hw, const pt_schedule_opts *o,
                       pt_schedule_result *r, pt_error *err)
{
    memset(r, 0, sizeof *r);
    double t0 = now_s();
    int k = o->top_k > 0 ? (o->top_k > 1024 ? 1024 : o->top_k) : 1;
    int64_t counts[PT_MAX_SPLIT_TRIES];
    int nc = split_counts(g, o->source, counts);
    r->best = calloc((size_t)k + 1, sizeof *r->best);
    r->graphs = calloc((size_t)nc + 1, sizeof *r->graphs); /* + the unsplit graph's */
    if (!r->best || !r->graphs) {
        pt_schedule_result_free(r);
        return pt_fail(err, "scheduler: out of memory");
    }
    snprintf(r->split_param, sizeof r->split_param, "%s", g->split_param);
    snprintf(r->split_combine, sizeof r->split_combine, "%s", g->split_combine);
    r->split_fixed = pt_graph_source_sets(o->source, g->split_param);
    r->unsplit_ns = INFINITY;
    for (int i = 0; i < nc && !r->budget_hit; i++) {
        r->splits[r->n_splits++].value = counts[i];
        try_count(r, i, k, hw, o, t0);
        if (counts[i] == 1 && g->split_unsplit[0] && !r->split_fixed && !r->budget_hit) {
            snprintf(r->split_unsplit, sizeof r->split_unsplit, "%s", g->split_unsplit);
            if (r->graphs[i].name[0]) /* count 1's instance: the values the two share */
                try_unsplit(r, &r->graphs[nc], &r->graphs[i], k, hw, o, t0);
            else
                snprintf(r->unsplit_why, sizeof r->unsplit_why, "%s=1: %s", g->split_param,
                         r->splits[i].why);
        }
    }
    r->elapsed_s = now_s() - t0;
    if (r->n == 0) {
        no_count_fits(g, hw, r, err);
        pt_schedule_result_free(r);
        return false;
    }
    r->split_chosen = r->best[0].split;
    return true;
}

bool pt_schedule(const pt_graph *g, const pt_hw *hw, const pt_schedule_opts *o,
                 pt_schedule_result *r, pt_error *err)
{
    if (o && o->source && g->split_param[0] && pt_graph_find_param(g, g->split_param) >= 0)
        return pt_schedule_split(g, hw, o, r, err);
    return pt_schedule_graph(g, hw, o, r, err);
}
