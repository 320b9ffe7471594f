/* report.c — the predicted-against-measured report of a profile, in text and JSON: the
 * sample (which CTAs and iterations, records dropped or unpaired: a partial sample is said
 * to be partial, never shown as whole), per-lane busy % (busy.h's one definition) and a
 * per-sTask table (count, mean, spread, error, start offset). Used by `profile` after a run
 * and by `report` on a saved trace. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "busy.h"
#include "cli.h"
#include "measured.h"
#include "strbuf.h"

void cli_fmt_ns(double ns, char *out, size_t cap)
{
    if (!isfinite(ns))
        snprintf(out, cap, "?");
    else if (fabs(ns) >= 1e6)
        snprintf(out, cap, "%.3f ms", ns / 1e6);
    else if (fabs(ns) >= 1e3)
        snprintf(out, cap, "%.2f us", ns / 1e3);
    else
        snprintf(out, cap, "%.0f ns", ns);
}

void cli_fmt_pct(double v, bool sign, char *out, size_t cap)
{
    if (!isfinite(v))
        snprintf(out, cap, "?");
    else
        snprintf(out, cap, sign ? "%+.1f%%" : "%.1f%%", v);
}

static const char *stask_name(const cli_names *nm, int s)
{
    return s >= 0 && s < nm->n_stasks ? nm->stask[s] : "?";
}

static const char *report_lane_name(const cli_names *nm, int l)
{
    return l >= 0 && l < nm->n_lanes ? nm->lane[l] : "?";
}

/* Order of the per-sTask table: largest |error| first, sTasks without one last. */
static int cmp_abs_err(const void *a, const void *b)
{
    const pt_align_stask *x = a, *y = b;
    double ex = isfinite(x->error_pct) ? fabs(x->error_pct) : -1;
    double ey = isfinite(y->error_pct) ? fabs(y->error_pct) : -1;
    if (ex != ey)
        return (ey > ex) - (ey < ex);
    return x->stask - y->stask;
}

void cli_print_sample(FILE *f, const pt_measured *m)
{
    int64_t dropped = pt_measured_dropped(m), unpaired = pt_measured_unpaired(m), spans = 0;
    int64_t it0 = -1, it1 = -1;
    for (int c = 0; c < m->n_ctas; c++) {
        spans += m->ctas[c].n_spans;
        if (m->ctas[c].iter_first >= 0 && (it0 < 0 || m->ctas[c].iter_first < it0))
            it0 = m->ctas[c].iter_first;
        if (m->ctas[c].iter_last > it1)
            it1 = m->ctas[c].iter_last;
    }
    fprintf(f, "  sample: %d CTA%s (blocks", m->n_ctas, m->n_ctas == 1 ? "" : "s");
    for (int c = 0; c < m->n_ctas && c < 16; c++)
        fprintf(f, "%s%lld", c ? ", " : " ", (long long)m->ctas[c].block);
    if (m->n_ctas > 16)
        fprintf(f, ", ...");
    fprintf(f, ")");
    if (m->sample_grid > 0)
        fprintf(f, " of grid %lld, every %lld%s", (long long)m->sample_grid,
                (long long)m->sample_stride, m->sample_stride == 1 ? "" : "th");
    if (it0 >= 0)
        fprintf(f, ", iterations %lld to %lld", (long long)it0, (long long)it1);
    fprintf(f, "; %lld spans, %lld records dropped, %lld unpaired\n", (long long)spans,
            (long long)dropped, (long long)unpaired);
    if (pt_measured_partial(m))
        fprintf(f, "  PARTIAL SAMPLE: %lld records did not fit the trace buffer%s and %lld lost "
                "their partner; measured figures marked (partial) describe the records kept, "
                "not the whole run\n", (long long)dropped,
                m->sample_cap > 0 ? " (its cap per warp role is in the trace)" : "",
                (long long)unpaired);
}

void cli_print_alignment(FILE *f, const cli_names *nm, const pt_measured *m,
                         const pt_alignment *a)
{
    char t1[32], t2[32], t3[32], t4[32], t5[32], p1[32];
    cli_print_sample(f, m);
    fprintf(f, "\n  busy: issue to completion over the EU (CTA) time; unit: the unit's own "
               "occupancy (predicted)\n");
    fprintf(f, "  %-12s %15s %10s %15s\n", "lane", "predicted busy", "unit", "measured busy");
    for (int i = 0; i < a->n_lanes; i++) {
        const pt_align_lane *l = &a->lanes[i];
        char pb[24], pu[24], mb[40];
        cli_fmt_pct(l->predicted_busy_pct, false, pb, sizeof pb);
        cli_fmt_pct(l->predicted_occupancy_pct, false, pu, sizeof pu);
        cli_fmt_pct(l->measured_busy_pct, false, mb, sizeof mb);
        if (l->measured_partial)
            strcat(mb, " (partial)");
        fprintf(f, "  %-12s %15s %10s %15s\n", report_lane_name(nm, l->lane), pb, pu, mb);
    }
    pt_align_stask *s = malloc(((size_t)a->n_stasks + 1) * sizeof *s);
    if (!s)
        return;
    if (a->n_stasks)
        memcpy(s, a->stasks, (size_t)a->n_stasks * sizeof *s);
    qsort(s, (size_t)a->n_stasks, sizeof *s, cmp_abs_err);
    fprintf(f, "\n  per sTask, worst-predicted sTasks first (mean span, issue to completion; "
               "spread = measured min..max, sd; start offset = predicted - measured first "
               "start from the EU start)%s:\n", a->partial ? " (partial sample)" : "");
    fprintf(f, "  %-22s %11s %10s %10s %10s %22s %8s %10s %10s %10s\n", "sTask", "count p/m",
            "predicted", "measured", "sd", "spread", "error", "pred start", "meas start",
            "offset");
    for (int i = 0; i < a->n_stasks; i++) {
        char cnt[48], spread[80];
        snprintf(cnt, sizeof cnt, "%lld/%lld", (long long)s[i].predicted_count,
                 (long long)s[i].measured_count);
        cli_fmt_ns(s[i].predicted_mean_ns, t1, sizeof t1);
        cli_fmt_ns(s[i].measured_mean_ns, t2, sizeof t2);
        cli_fmt_ns(s[i].measured_stddev_ns, t5, sizeof t5);
        cli_fmt_ns(s[i].measured_min_ns, t3, sizeof t3);
        cli_fmt_ns(s[i].measured_max_ns, t4, sizeof t4);
        snprintf(spread, sizeof spread, "%s..%s", t3, t4);
        cli_fmt_pct(s[i].error_pct, true, p1, sizeof p1);
        cli_fmt_ns(s[i].predicted_first_start_ns, t3, sizeof t3);
        cli_fmt_ns(s[i].measured_first_start_ns, t4, sizeof t4);
        char off[32];
        cli_fmt_ns(s[i].start_error_ns, off, sizeof off);
        fprintf(f, "  %-22s %11s %10s %10s %10s %22s %8s %10s %10s %10s\n",
                stask_name(nm, s[i].stask), cnt, t1, t2, t5, spread, p1, t3, t4, off);
    }
    free(s);
}

static void key_num(strbuf *b, const char *sep, const char *key, double v)
{
    sb_printf(b, "%s\"%s\": ", sep, key);
    sb_json_number(b, v);
}

char *cli_alignment_json(const cli_names *nm, const pt_measured *m, const pt_alignment *a)
{
    strbuf b = {0};
    sb_printf(&b, "{\"kernel\": {");
    key_num(&b, "", "predicted_ns", a->predicted_kernel_ns);
    key_num(&b, ", ", "measured_ns", a->measured_kernel_ns);
    key_num(&b, ", ", "error_pct", a->kernel_error_pct);
    sb_printf(&b, "},\n \"error_definition\": \"(predicted - measured) / measured * 100\",\n");
    sb_printf(&b, " \"sample\": {\"grid\": %lld, \"stride\": %lld, \"cap\": %lld, \"blocks\": [",
              (long long)m->sample_grid, (long long)m->sample_stride, (long long)m->sample_cap);
    for (int c = 0; c < m->n_ctas; c++)
        sb_printf(&b, "%s%lld", c ? ", " : "", (long long)m->ctas[c].block);
    sb_printf(&b, "], \"dropped\": %lld, \"unpaired\": %lld, \"partial\": %s},\n \"lanes\": [",
              (long long)pt_measured_dropped(m), (long long)pt_measured_unpaired(m),
              pt_measured_partial(m) ? "true" : "false");
    for (int i = 0; i < a->n_lanes; i++) {
        const pt_align_lane *l = &a->lanes[i];
        sb_printf(&b, "%s\n  {\"lane\": ", i ? "," : "");
        sb_json_string(&b, report_lane_name(nm, l->lane));
        key_num(&b, ", ", "predicted_busy_pct", l->predicted_busy_pct);
        key_num(&b, ", ", "predicted_unit_pct", l->predicted_occupancy_pct);
        key_num(&b, ", ", "measured_busy_pct", l->measured_busy_pct);
        sb_printf(&b, ", \"measured_partial\": %s}", l->measured_partial ? "true" : "false");
    }
    sb_printf(&b, "],\n \"stasks\": [");
    for (int i = 0; i < a->n_stasks; i++) {
        const pt_align_stask *s = &a->stasks[i];
        sb_printf(&b, "%s\n  {\"stask\": ", i ? "," : "");
        sb_json_string(&b, stask_name(nm, s->stask));
        sb_printf(&b, ", \"predicted_count\": %lld, \"measured_count\": %lld",
                  (long long)s->predicted_count, (long long)s->measured_count);
        key_num(&b, ", ", "predicted_mean_ns", s->predicted_mean_ns);
        key_num(&b, ", ", "measured_mean_ns", s->measured_mean_ns);
        key_num(&b, ", ", "measured_min_ns", s->measured_min_ns);
        key_num(&b, ", ", "measured_max_ns", s->measured_max_ns);
        key_num(&b, ", ", "measured_stddev_ns", s->measured_stddev_ns);
        key_num(&b, ", ", "error_pct", s->error_pct);
        key_num(&b, ", ", "predicted_first_start_ns", s->predicted_first_start_ns);
        key_num(&b, ", ", "measured_first_start_ns", s->measured_first_start_ns);
        key_num(&b, ", ", "start_offset_ns", s->start_error_ns);
        sb_printf(&b, "}");
    }
    sb_printf(&b, "],\n \"partial\": %s}\n", a->partial ? "true" : "false");
    return sb_take(&b);
}

void cli_names_from_program(cli_names *nm, const pt_sprogram *p, const pt_stask_graph *sg)
{
    memset(nm, 0, sizeof *nm);
    nm->n_lanes = p->n_lanes < PT_MAX_LANES ? p->n_lanes : PT_MAX_LANES;
    for (int l = 0; l < nm->n_lanes; l++)
        nm->lane[l] = p->lanes[l].name;
    nm->stask = malloc(((size_t)sg->n + 1) * sizeof *nm->stask);
    nm->n_stasks = nm->stask ? sg->n : 0;
    for (int s = 0; s < nm->n_stasks; s++)
        nm->stask[s] = sg->tasks[s].id;
}

void cli_names_from_trace(cli_names *nm, const pt_trace *tr)
{
    memset(nm, 0, sizeof *nm);
    nm->n_lanes = tr->n_lanes;
    for (int l = 0; l < nm->n_lanes; l++)
        nm->lane[l] = tr->lane_names[l];
    nm->stask = malloc(((size_t)tr->n_stasks + 1) * sizeof *nm->stask);
    nm->n_stasks = nm->stask ? tr->n_stasks : 0;
    for (int s = 0; s < nm->n_stasks; s++)
        nm->stask[s] = tr->stask_ids[s];
}

void cli_names_free(cli_names *nm)
{
    free(nm->stask);
    memset(nm, 0, sizeof *nm);
}

/* The trace's own graph, parameters and sProgram simulated again on `hw` (default: the trace's
 * hardware): the measured spans of an old profile against the model as it is now. The sTasks
 * and lanes must come out as the trace names them, since the measured spans index those. */
static bool resimulate(const pt_trace *tr, const char *path, const char *hw, pt_timeline *tl)
{
    if (!tr->sprogram_json || tr->n_params < 0) {
        cli_error("%s: the trace holds no sProgram and parameters to simulate again (expected "
                  "\"sprogram\" and \"params\", written by profile)", path);
        return false;
    }
    char set[PT_MAX_PARAMS * (PT_NAME_MAX + 24)];
    pt_trace_params_text(tr, set, sizeof set);
    cli_opts o = {.verb = "report", .graph_arg = tr->graph, .hw = hw ? hw : tr->hw,
                  .set = set[0] ? set : NULL};
    cli_inputs in = {0};
    bool ok = false;
    pt_sprogram p;
    pt_stask_graph sg;
    pt_error err = {{0}};
    if (!hw) { /* the model the trace names may be a file of another machine or session */
        pt_hw probe;
        if (!pt_hw_load(&probe, tr->hw, &err)) {
            cli_error("%s: the trace was predicted on hardware model \"%s\", which is not here "
                      "(%s); give the model to simulate again with: --hw NAME|FILE", path,
                      tr->hw, err.msg);
            return false;
        }
    }
    if (!cli_load_graph(&o, &in))
        goto out;
    if (!pt_sprogram_load_text(&p, &sg, &in.graph, path, tr->sprogram_json,
                               strlen(tr->sprogram_json), &err)) {
        fprintf(stderr, "%s: the trace's sProgram: %s\n", path, err.msg);
        goto out;
    }
    bool same = sg.n == tr->n_stasks && p.n_lanes == tr->n_lanes;
    for (int s = 0; same && s < sg.n; s++)
        same = !strcmp(sg.tasks[s].id, tr->stask_ids[s]);
    for (int l = 0; same && l < p.n_lanes; l++)
        same = !strcmp(p.lanes[l].name, tr->lane_names[l]);
    if (!same)
        cli_error("%s: simulated again, the sProgram's sTasks or lanes differ from those the "
                  "trace names (expected the same %d sTasks and %d lanes)", path, tr->n_stasks,
                  tr->n_lanes);
    else if (!(ok = pt_simulate(&p, &sg, &in.hw, tl, &err)))
        fprintf(stderr, "%s: simulate: %s\n", path, err.msg);
    pt_sprogram_free(&p);
    pt_stask_graph_free(&sg);
out:
    cli_inputs_free(&in);
    return ok;
}

int verb_report(int argc, char **argv)
{
    cli_opts o = {.verb = "report"};
    if (!cli_parse(argc, argv, "json,resimulate,hw", &o))
        return EXIT_USAGE;
    if (!o.graph_arg) {
        cli_error("report: missing TRACE (a profiled trace file); see report --help");
        return EXIT_USAGE;
    }
    pt_trace *tr = calloc(1, sizeof *tr);
    pt_error err = {{0}};
    if (!tr || !pt_trace_load_file(tr, o.graph_arg, &err)) {
        fprintf(stderr, "%s\n", tr ? err.msg : "report: out of memory");
        free(tr);
        return EXIT_INVALID;
    }
    int rc = EXIT_INVALID;
    pt_alignment a = {0};
    cli_names nm;
    cli_names_from_trace(&nm, tr);
    if (!(tr->has_measured && tr->measured.present && tr->measured.n_ctas > 0)) {
        cli_error("%s: the trace has no measured spans (expected a profiled trace: "
                  "pipethreader-cli profile)", o.graph_arg);
        goto out;
    }
    if (o.hw && !o.resimulate) {
        cli_error("report: --hw is for --resimulate (the trace's prediction was made on %s)",
                  tr->hw);
        rc = EXIT_USAGE;
        goto out;
    }
    if (o.resimulate) {
        pt_timeline now = {0};
        if (!resimulate(tr, o.graph_arg, o.hw, &now))
            goto out;
        pt_timeline_free(&tr->tl);
        tr->tl = now;
    }
    /* Recomputed from the spans, so that every figure follows busy.h's definitions even
     * for a trace written before them. */
    if (!pt_align(&a, &tr->tl, &tr->measured, tr->n_stasks, tr->n_lanes, &err)) {
        fprintf(stderr, "%s: %s\n", o.graph_arg, err.msg);
        goto out;
    }
    if (o.json) {
        char *text = cli_alignment_json(&nm, &tr->measured, &a);
        if (!text) {
            cli_error("report: out of memory");
            goto out;
        }
        fputs(text, stdout);
        free(text);
    } else {
        char t1[32], t2[32], p1[32];
        cli_fmt_ns(a.predicted_kernel_ns, t1, sizeof t1);
        cli_fmt_ns(a.measured_kernel_ns, t2, sizeof t2);
        cli_fmt_pct(a.kernel_error_pct, true, p1, sizeof p1);
        printf("%s: %s on %s: kernel time predicted %s%s, measured %s: prediction error %s\n",
               o.graph_arg, tr->graph, o.hw ? o.hw : tr->hw, t1,
               o.resimulate ? " (simulated again now)" : "", t2, p1);
        cli_print_alignment(stdout, &nm, &tr->measured, &a);
    }
    rc = EXIT_OK;
out:
    pt_alignment_free(&a);
    cli_names_free(&nm);
    pt_trace_free(tr);
    free(tr);
    return rc;
}
