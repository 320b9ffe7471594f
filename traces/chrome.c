/* chrome.c — Chrome trace-event JSON export of a timeline (for Perfetto), predicted alone or
 * with the measured spans of a profile.
 *
 * Written by hand rather than through cJSON so that large timelines (hundreds of thousands
 * of instances) export without building a tree of every event in memory. Timestamps are
 * microseconds (the trace-event unit) with fractions; "displayTimeUnit": "ns" asks the
 * viewer to label the axis in nanoseconds. */
#include "chrome.h"
#include "strbuf.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Nanoseconds as fractional microseconds, shortest exact text. */
static void ob_us(strbuf *b, double ns)
{
    double us = isfinite(ns) ? ns / 1000.0 : 0;
    char tmp[40];
    snprintf(tmp, sizeof tmp, "%.15g", us);
    if (strtod(tmp, NULL) != us)
        snprintf(tmp, sizeof tmp, "%.17g", us);
    sb_printf(b, "%s", tmp);
}

static const char *lane_name(const pt_sprogram *p, int L, char *tmp, size_t cap)
{
    if (L >= 0 && L < p->n_lanes)
        return p->lanes[L].name;
    snprintf(tmp, cap, "lane %d", L);
    return tmp;
}

static void write_metadata(strbuf *b, const pt_timeline *tl, const pt_sprogram *p,
                           const char *label)
{
    char proc[160], tmp[32];
    snprintf(proc, sizeof proc, "EU 0 (%s)", label ? label : "predicted");
    sb_printf(b, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"tid\":0,\"args\":{\"name\":");
    sb_json_string(b, proc);
    sb_printf(b, "}}");
    int lanes = p->n_lanes > tl->n_lanes ? p->n_lanes : tl->n_lanes;
    for (int L = 0; L < lanes; L++) {
        sb_printf(b, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":%d,"
                  "\"args\":{\"name\":", L);
        sb_json_string(b, lane_name(p, L, tmp, sizeof tmp));
        sb_printf(b, "}},\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":0,\"tid\":%d,"
                  "\"args\":{\"sort_index\":%d}}", L, L);
    }
}

static void write_span(strbuf *b, const pt_span *sp, const pt_sprogram *p,
                       const pt_stask_graph *sg, double shift)
{
    const pt_stask *t = &sg->tasks[sp->stask];
    const char *cat = sp->lane < p->n_lanes ? pt_seu_name(p->lanes[sp->lane].seu) : "?";
    char name[PT_STASK_ID_MAX + 24];
    snprintf(name, sizeof name, "%s[%lld]", t->id, (long long)sp->iter);
    sb_printf(b, ",\n{\"name\":");
    sb_json_string(b, name);
    sb_printf(b, ",\"cat\":");
    sb_json_string(b, cat);
    sb_printf(b, ",\"ph\":\"X\",\"pid\":0,\"tid\":%d,\"ts\":", sp->lane);
    ob_us(b, sp->start_ns + shift);
    sb_printf(b, ",\"dur\":");
    ob_us(b, sp->end_ns - sp->start_ns);
    sb_printf(b, ",\"args\":{\"stask\":");
    sb_json_string(b, t->id);
    sb_printf(b, ",\"iter\":%lld,\"kind\":", (long long)sp->iter);
    sb_json_string(b, pt_stask_kind_name(t->kind));
    sb_printf(b, ",\"issue_ns\":");
    sb_json_number(b, sp->issue_ns); /* null, never inf/nan: JSON has neither */
    sb_printf(b, ",\"bytes\":%lld,\"flops\":%lld}}", (long long)t->bytes, (long long)t->flops);
}

/* Slot of (stask, iter) in a table of every instance, or -1 when outside the graph. */
static int64_t inst_slot(const pt_stask_graph *sg, const int64_t *base, int64_t iters, int s,
                         int64_t i)
{
    if (s < 0 || s >= sg->n)
        return -1;
    if (sg->tasks[s].region != PT_REGION_BODY)
        return i == 0 ? base[s] : -1;
    return (i >= 0 && i < iters) ? base[s] + i : -1;
}

static double mid(const pt_span *sp)
{
    return sp->start_ns + (sp->end_ns - sp->start_ns) / 2;
}

/* Flow arrows from each cross-lane producer to its consumer; ids are unique per arrow. */
static void write_flows(strbuf *b, const pt_timeline *tl, const pt_sprogram *p,
                        const pt_stask_graph *sg, const int64_t *base, const int64_t *where,
                        double shift)
{
    int64_t iters = tl->eu_iterations, id = 0;
    int ds[64];
    int64_t di[64];
    for (int64_t k = 0; k < tl->n_spans; k++) {
        const pt_span *c = &tl->spans[k];
        if (c->lane < 0 || inst_slot(sg, base, iters, c->stask, c->iter) < 0)
            continue;
        int n = pt_instance_deps(p, sg, c->stask, c->iter, iters, ds, di, 64);
        if (n > 64)
            n = 64;
        for (int d = 0; d < n; d++) {
            bool dup = false;
            for (int e = 0; e < d && !dup; e++)
                dup = ds[e] == ds[d] && di[e] == di[d];
            int64_t slot = inst_slot(sg, base, iters, ds[d], di[d]);
            if (dup || slot < 0 || where[slot] < 0)
                continue;
            const pt_span *pr = &tl->spans[where[slot]];
            if (pr->lane == c->lane)
                continue;
            id++;
            sb_printf(b, ",\n{\"name\":\"dep\",\"cat\":\"dep\",\"ph\":\"s\",\"id\":%lld,"
                      "\"pid\":0,\"tid\":%d,\"ts\":", (long long)id, pr->lane);
            ob_us(b, mid(pr) + shift);
            sb_printf(b, "},\n{\"name\":\"dep\",\"cat\":\"dep\",\"ph\":\"f\",\"bp\":\"e\","
                      "\"id\":%lld,\"pid\":0,\"tid\":%d,\"ts\":", (long long)id, c->lane);
            ob_us(b, mid(c) + shift);
            sb_printf(b, "}");
        }
    }
}

/* One process per sampled CTA, after the predicted EU's. */
static void write_measured(strbuf *b, const pt_measured *m, const pt_sprogram *p,
                           const pt_stask_graph *sg)
{
    char tmp[32], proc[96], name[PT_STASK_ID_MAX + 48];
    for (int c = 0; c < m->n_ctas; c++) {
        const pt_mcta *ct = &m->ctas[c];
        int pid = 1 + c;
        snprintf(proc, sizeof proc, "CTA %lld on SM %lld (measured)", (long long)ct->block,
                 (long long)ct->smid);
        sb_printf(b, ",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,"
                  "\"args\":{\"name\":", pid);
        sb_json_string(b, proc);
        sb_printf(b, "}},\n{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,"
                  "\"tid\":0,\"args\":{\"sort_index\":%d}}", pid, pid);
        for (int L = 0; L < p->n_lanes; L++) {
            sb_printf(b, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
                      "\"args\":{\"name\":", pid, L);
            sb_json_string(b, lane_name(p, L, tmp, sizeof tmp));
            sb_printf(b, "}},\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%d,"
                      "\"tid\":%d,\"args\":{\"sort_index\":%d}}", pid, L, L);
        }
        for (int64_t i = 0; i < ct->n_spans; i++) {
            const pt_mspan *sp = &ct->spans[i];
            if (sp->stask < 0 || sp->stask >= sg->n || sp->lane < 0)
                continue; /* not an sTask of this graph: nothing to name it by */
            const pt_stask *t = &sg->tasks[sp->stask];
            if (sp->tile)
                snprintf(name, sizeof name, "%s[%lld] tile %d", t->id, (long long)sp->iter,
                         sp->tile);
            else
                snprintf(name, sizeof name, "%s[%lld]", t->id, (long long)sp->iter);
            sb_printf(b, ",\n{\"name\":");
            sb_json_string(b, name);
            sb_printf(b, ",\"cat\":");
            sb_json_string(b, sp->lane < p->n_lanes ? pt_seu_name(p->lanes[sp->lane].seu) : "?");
            sb_printf(b, ",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":", pid, sp->lane);
            ob_us(b, sp->start_ns);
            sb_printf(b, ",\"dur\":");
            ob_us(b, sp->end_ns - sp->start_ns);
            sb_printf(b, ",\"args\":{\"stask\":");
            sb_json_string(b, t->id);
            sb_printf(b, ",\"iter\":%lld,\"tile\":%d,\"kind\":", (long long)sp->iter, sp->tile);
            sb_json_string(b, pt_stask_kind_name(t->kind));
            sb_printf(b, "}}");
        }
    }
}

static char *chrome(const pt_timeline *tl, const pt_sprogram *p, const pt_stask_graph *sg,
                    const char *label, const pt_measured *m)
{
    if (!tl || !p || !sg || tl->n_spans < 0 || (tl->n_spans > 0 && !tl->spans))
        return NULL;
    /* With a measured side, the predicted EU starts where the first sampled CTA does. */
    double shift = 0;
    if (m && m->present) {
        double m0 = HUGE_VAL, p0 = HUGE_VAL;
        for (int c = 0; c < m->n_ctas; c++)
            for (int64_t i = 0; i < m->ctas[c].n_spans; i++)
                m0 = m->ctas[c].spans[i].start_ns < m0 ? m->ctas[c].spans[i].start_ns : m0;
        for (int64_t i = 0; i < tl->n_spans; i++)
            p0 = tl->spans[i].start_ns < p0 ? tl->spans[i].start_ns : p0;
        if (m0 < HUGE_VAL && p0 < HUGE_VAL)
            shift = m0 - p0;
    }
    int64_t iters = tl->eu_iterations > 0 ? tl->eu_iterations : 0, slots = 0;
    int64_t *base = malloc(((size_t)sg->n + 1) * sizeof *base);
    if (!base)
        return NULL;
    for (int s = 0; s < sg->n; s++) {
        base[s] = slots;
        slots += sg->tasks[s].region == PT_REGION_BODY ? iters : 1;
    }
    int64_t *where = malloc(((size_t)slots + 1) * sizeof *where);
    if (!where) {
        free(base);
        return NULL;
    }
    for (int64_t i = 0; i < slots; i++)
        where[i] = -1;
    strbuf b = {0};
    sb_printf(&b, "{\"traceEvents\":[\n");
    write_metadata(&b, tl, p, label);
    for (int64_t k = 0; k < tl->n_spans; k++) {
        const pt_span *sp = &tl->spans[k];
        int64_t slot = inst_slot(sg, base, iters, sp->stask, sp->iter);
        if (slot < 0 || sp->lane < 0)
            continue; /* not an instance of this graph: nothing to name it by */
        where[slot] = k;
        write_span(&b, sp, p, sg, shift);
    }
    write_flows(&b, tl, p, sg, base, where, shift);
    if (m && m->present)
        write_measured(&b, m, p, sg);
    sb_printf(&b, "\n],\n\"displayTimeUnit\":\"ns\"}\n");
    free(base);
    free(where);
    if (b.failed) {
        sb_free(&b);
        return NULL;
    }
    return sb_take(&b);
}

char *pt_chrome_trace(const pt_timeline *tl, const pt_sprogram *p, const pt_stask_graph *sg,
                      const char *label)
{
    return chrome(tl, p, sg, label, NULL);
}

char *pt_chrome_trace_profile(const pt_timeline *tl, const pt_sprogram *p,
                              const pt_stask_graph *sg, const pt_measured *m)
{
    return chrome(tl, p, sg, "predicted", m);
}
