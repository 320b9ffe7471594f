/* cta_pack.c — one EU's tiles back to back for the several-CTA view (see cta_pack.h). */
#include "cta_pack.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int pt_cta_classes(int64_t tiles, int64_t eus, int64_t run, int64_t first_eu[PT_CTA_MAX_CLASSES],
                   int64_t n_eus[PT_CTA_MAX_CLASSES], int64_t tiles_each[PT_CTA_MAX_CLASSES])
{
    if (tiles <= 0 || eus <= 0)
        return 0;
    int64_t R = run > 1 ? run : 1, runs = (tiles + R - 1) / R;
    int64_t busy = runs < eus ? runs : eus; /* EUs that get a run at all */
    int64_t q = runs / busy, rem = runs % busy, short_by = runs * R - tiles;
    int64_t last = (runs - 1) % busy; /* the EU of the last (maybe partial) run */
    /* EU c runs q runs (one more below rem), the last EU's last run short: ranges of EUs with
     * equal counts, in EU order, which is busiest first */
    int k = 0;
    for (int64_t c = 0; c < busy;) {
        int64_t cnt = (q + (c < rem)) * R - (c == last ? short_by : 0), e = c + 1;
        while (e < busy && (q + (e < rem)) * R - (e == last ? short_by : 0) == cnt)
            e++;
        if (k == PT_CTA_MAX_CLASSES)
            break;
        first_eu[k] = c;
        n_eus[k] = e - c;
        tiles_each[k] = cnt;
        k++;
        c = e;
    }
    return k;
}

void pt_cta_run_free(pt_cta_run *r)
{
    free(r->spans);
    free(r->critical);
    free(r->idle);
    pt_span_deps_free(&r->deps);
    memset(r, 0, sizeof *r);
}

typedef struct {
    double start;
    int64_t key; /* tile * n_base + base index */
} entry;

static int cmp_entry(const void *a, const void *b)
{
    const entry *p = a, *q = b;
    if (p->start != q->start)
        return p->start < q->start ? -1 : 1;
    return (p->key > q->key) - (p->key < q->key); /* ties: earlier tile, then base order */
}

/* The repeated dependencies: copy t of span i waited on copy t of what i waited on. */
static bool repeat_deps(pt_cta_run *r, const entry *e, const int64_t *pos, int64_t n_base,
                        const pt_span_deps *deps)
{
    int64_t n = r->n_spans, edges = deps->off[n_base] * r->tiles;
    r->deps.off = calloc((size_t)n + 1, sizeof(int64_t));
    r->deps.idx = malloc((size_t)(edges > 0 ? edges : 1) * sizeof(int64_t));
    r->deps.is_wait = malloc((size_t)(edges > 0 ? edges : 1));
    if (!r->deps.off || !r->deps.idx || !r->deps.is_wait)
        return false;
    r->deps.n_spans = n;
    int64_t k = 0;
    for (int64_t j = 0; j < n; j++) {
        int64_t t = e[j].key / n_base, i = e[j].key % n_base;
        r->deps.off[j] = k;
        for (int64_t d = deps->off[i]; d < deps->off[i + 1]; d++) {
            r->deps.idx[k] = pos[t * n_base + deps->idx[d]];
            r->deps.is_wait[k] = deps->is_wait[d];
            k++;
        }
    }
    r->deps.off[n] = k;
    return true;
}

/* Each lane's first start and last end in the base tile, repeated per tile: a lane waits only
 * between its first and last bar of a CTA's tile, as on the one-tile timeline. */
static bool tile_idle(pt_cta_run *r, const pt_span *base, int64_t n_base, double period_ns)
{
    int lanes = 0;
    double first[PT_MAX_LANES], last[PT_MAX_LANES];
    for (int l = 0; l < PT_MAX_LANES; l++) {
        first[l] = INFINITY;
        last[l] = -INFINITY;
    }
    for (int64_t i = 0; i < n_base; i++) {
        int l = base[i].lane;
        if (l < 0 || l >= PT_MAX_LANES)
            continue;
        lanes = l + 1 > lanes ? l + 1 : lanes;
        first[l] = fmin(first[l], base[i].start_ns);
        last[l] = fmax(last[l], base[i].end_ns);
    }
    if (lanes == 0)
        return true;
    r->idle = malloc((size_t)(r->tiles * lanes) * sizeof *r->idle);
    if (!r->idle)
        return false;
    r->idle_lanes = lanes;
    for (int64_t t = 0; t < r->tiles; t++)
        for (int l = 0; l < lanes; l++)
            r->idle[t * lanes + l] = (pt_interval){first[l] + (double)t * period_ns,
                                                   last[l] + (double)t * period_ns};
    return true;
}

bool pt_cta_run_build(pt_cta_run *r, const pt_span *base, int64_t n_base, int64_t tiles,
                      double period_ns, const pt_span_deps *deps, const int64_t *critical,
                      int64_t n_critical)
{
    memset(r, 0, sizeof *r);
    if (!base || n_base <= 0 || tiles <= 0)
        return true;
    if (tiles > PT_CTA_MAX_SPANS / n_base)
        tiles = PT_CTA_MAX_SPANS / n_base > 0 ? PT_CTA_MAX_SPANS / n_base : 1;
    int64_t n = n_base * tiles;
    entry *e = malloc((size_t)n * sizeof *e);
    int64_t *pos = malloc((size_t)n * sizeof *pos);
    r->spans = malloc((size_t)n * sizeof *r->spans);
    if (!e || !pos || !r->spans)
        goto oom;
    r->tiles = tiles;
    r->period_ns = period_ns;
    r->n_spans = n;
    for (int64_t t = 0; t < tiles; t++)
        for (int64_t i = 0; i < n_base; i++)
            e[t * n_base + i] = (entry){base[i].start_ns + (double)t * period_ns, t * n_base + i};
    /* A persistent CTA's next tile starts while this one finishes (its loads run ahead), so the
     * copies interleave: sorted again, as the renderer's culling needs. */
    qsort(e, (size_t)n, sizeof *e, cmp_entry);
    for (int64_t j = 0; j < n; j++) {
        int64_t t = e[j].key / n_base, i = e[j].key % n_base;
        double off = (double)t * period_ns;
        pt_span s = base[i];
        s.issue_ns += off;
        s.start_ns += off;
        s.end_ns += off;
        if (s.unit_end_ns > 0)
            s.unit_end_ns += off;
        r->spans[j] = s;
        pos[e[j].key] = j;
    }
    if (deps && deps->n_spans == n_base && deps->off && !repeat_deps(r, e, pos, n_base, deps))
        goto oom;
    if (!tile_idle(r, base, n_base, period_ns))
        goto oom;
    if (critical && n_critical > 0) {
        r->critical = malloc((size_t)(n_critical * tiles) * sizeof(int64_t));
        if (!r->critical)
            goto oom;
        for (int64_t t = 0; t < tiles; t++)
            for (int64_t k = 0; k < n_critical; k++)
                if (critical[k] >= 0 && critical[k] < n_base)
                    r->critical[r->n_critical++] = pos[t * n_base + critical[k]];
    }
    free(e);
    free(pos);
    return true;
oom:
    free(e);
    free(pos);
    pt_cta_run_free(r);
    return false;
}

typedef struct {
    double t;
    int delta;
} step_event;

static int cmp_event(const void *a, const void *b)
{
    const step_event *p = a, *q = b;
    return (p->t > q->t) - (p->t < q->t);
}

int64_t pt_cta_repeat_steps(const double *times, const int *values, int64_t n, int64_t tiles,
                            double period_ns, double **out_times, int **out_values)
{
    *out_times = NULL;
    *out_values = NULL;
    if (n <= 0 || tiles <= 0)
        return 0;
    /* as changes (+k / -k), so copies that overlap in time add up */
    size_t total = (size_t)(n * tiles);
    step_event *ev = malloc(total * sizeof *ev);
    double *ot = malloc(total * sizeof *ot);
    int *ov = malloc(total * sizeof *ov);
    if (!ev || !ot || !ov) {
        free(ev);
        free(ot);
        free(ov);
        return -1;
    }
    for (int64_t t = 0; t < tiles; t++)
        for (int64_t k = 0; k < n; k++)
            ev[t * n + k] = (step_event){times[k] + (double)t * period_ns,
                                         values[k] - (k > 0 ? values[k - 1] : 0)};
    qsort(ev, total, sizeof *ev, cmp_event);
    int64_t m = 0;
    int level = 0;
    for (size_t i = 0; i < total; i++) {
        level += ev[i].delta;
        if (m > 0 && ot[m - 1] == ev[i].t)
            ov[m - 1] = level; /* the same moment: one step */
        else {
            ot[m] = ev[i].t;
            ov[m++] = level;
        }
    }
    free(ev);
    *out_times = ot;
    *out_values = ov;
    return m;
}
