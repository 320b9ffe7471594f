/* timeline_json.c — write and read "pipethreader.trace" files (docs/FORMAT-trace.md):
 * version 2 is written, versions 1 and 2 are read; version 2 adds the measured side and the
 * alignment of predicted with measured.
 *
 * The writer prints by hand so that each span is one line (diffable, and a 100k-span trace
 * stays small); numbers use the shortest text that reads back to the same double, so a
 * trace round-trips exactly. The reader goes through json_util.h so that every error names
 * the file and the JSON path, and it checks every index before using it. */
#include "timeline_json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_util.h"
#include "strbuf.h"

/* ---- writing ----------------------------------------------------------------------- */

static void write_summary(strbuf *b, const pt_timeline *tl)
{
    sb_printf(b, "  \"summary\": {\"kernel_time_ns\": ");
    sb_json_number(b, tl->kernel_time_ns);
    sb_printf(b, ", \"eu_time_ns\": ");
    sb_json_number(b, tl->eu_time_ns);
    sb_printf(b, ", \"tflops\": ");
    sb_json_number(b, tl->tflops);
    sb_printf(b, ", \"flops\": ");
    sb_json_number(b, tl->flops);
    sb_printf(b, ",\n              \"tiles\": %lld, \"grid\": %lld, \"waves\": %lld, "
              "\"iterations\": %lld, \"dram_bytes\": ", (long long)tl->tiles,
              (long long)tl->grid, (long long)tl->waves, (long long)tl->eu_iterations);
    sb_json_number(b, tl->dram_bytes);
    sb_printf(b, ", \"dram_floor_ns\": ");
    sb_json_number(b, tl->dram_floor_ns);
    if (tl->staged > 0) { /* unaligned rows: the launcher's copies (src/staging.h) */
        sb_printf(b, ", \"staged\": %d, \"staging_bytes\": ", tl->staged);
        sb_json_number(b, tl->staging_bytes);
        sb_printf(b, ", \"staging_ns\": ");
        sb_json_number(b, tl->staging_ns);
    }
    sb_printf(b, "},\n");
}

static void write_lanes(strbuf *b, const pt_timeline *tl, const pt_sprogram *p)
{
    sb_printf(b, "  \"lanes\": [");
    for (int L = 0; L < p->n_lanes && L < PT_MAX_LANES; L++) {
        const pt_lane *ln = &p->lanes[L];
        sb_printf(b, "%s\n    {\"name\": ", L ? "," : "");
        sb_json_string(b, ln->name);
        sb_printf(b, ", \"seu\": ");
        sb_json_string(b, pt_seu_name(ln->seu));
        sb_printf(b, ", \"role\": ");
        sb_json_string(b, ln->role >= 0 && ln->role < p->n_roles ? p->roles[ln->role].name : "");
        sb_printf(b, ", \"busy_ns\": ");
        sb_json_number(b, L < tl->n_lanes ? tl->lane_busy_ns[L] : 0);
        sb_printf(b, ", \"occupied_ns\": ");
        sb_json_number(b, L < tl->n_lanes ? tl->lane_occupied_ns[L] : 0);
        sb_printf(b, "}");
    }
    sb_printf(b, "\n  ],\n");
}

static void write_spans(strbuf *b, const pt_timeline *tl)
{
    sb_printf(b, "  \"predicted\": {\"spans\": [");
    for (int64_t k = 0; k < tl->n_spans && !b->failed; k++) {
        const pt_span *sp = &tl->spans[k];
        sb_printf(b, "%s\n    [%d, %d, %lld, ", k ? "," : "", sp->stask, sp->lane,
                  (long long)sp->iter);
        sb_json_number(b, sp->issue_ns);
        sb_printf(b, ", ");
        sb_json_number(b, sp->start_ns);
        sb_printf(b, ", ");
        sb_json_number(b, sp->end_ns);
        sb_printf(b, ", ");
        sb_json_number(b, pt_span_unit_end(sp));
        if (sp->fence_ns > 0) { /* only spans that paid a barrier wait carry an 8th element */
            sb_printf(b, ", ");
            sb_json_number(b, sp->fence_ns);
        }
        sb_printf(b, "]");
    }
    sb_printf(b, "\n  ]},\n");
}

/* A number, or null when not finite (unknown). */
static void sb_key_num(strbuf *b, const char *sep, const char *key, double v)
{
    sb_printf(b, "%s\"%s\": ", sep, key);
    sb_json_number(b, v);
}

static bool write_measured(strbuf *b, const pt_measured *m, int n_stasks, int n_lanes)
{
    if (!m || !m->present) {
        sb_printf(b, "  \"measured\": null");
        return true;
    }
    const pt_mkernel *k = &m->kernel;
    sb_printf(b, "  \"measured\": {\"build\": ");
    sb_json_string(b, m->build[0] ? m->build : "instrumented");
    sb_printf(b, ", \"origin\": ");
    sb_json_string(b, m->origin[0] ? m->origin : "first_record");
    sb_key_num(b, ", ", "first_warp_delay_ns", m->first_warp_delay_ns);
    sb_key_num(b, ", ", "last_warp_gap_ns", m->last_warp_gap_ns);
    sb_printf(b, ",\n    \"kernel\": {\"timing\": ");
    if (k->timing[0])
        sb_json_string(b, k->timing);
    else
        sb_printf(b, "null");
    sb_printf(b, ", \"iters\": %lld", (long long)k->iters);
    sb_key_num(b, ", ", "plain_ms_median", k->plain_ms_median);
    sb_key_num(b, ", ", "plain_ms_min", k->plain_ms_min);
    sb_key_num(b, ", ", "plain_ms_max", k->plain_ms_max);
    sb_key_num(b, ",\n               ", "instrumented_ms_median", k->instr_ms_median);
    sb_key_num(b, ", ", "instrumented_ms_min", k->instr_ms_min);
    sb_key_num(b, ", ", "instrumented_ms_max", k->instr_ms_max);
    sb_key_num(b, ", ", "overhead_pct", k->overhead_pct);
    sb_key_num(b, ",\n               ", "traced_kernel_ns", k->traced_kernel_ns);
    sb_printf(b, ", \"cupti\": ");
    if (k->has_cupti) {
        sb_key_num(b, "{", "median_ms", k->cupti_ms_median);
        sb_key_num(b, ", ", "min_ms", k->cupti_ms_min);
        sb_key_num(b, ", ", "max_ms", k->cupti_ms_max);
        sb_printf(b, ", \"registers\": %lld, \"smem\": %lld, \"grid\": %lld, \"block\": %lld}",
                  (long long)k->cupti_registers, (long long)k->cupti_smem,
                  (long long)k->cupti_grid, (long long)k->cupti_block);
    } else
        sb_printf(b, "null");
    sb_printf(b, "},\n    \"sample\": {\"grid\": %lld, \"stride\": %lld, \"sampled_ctas\": %lld, "
              "\"cap\": %lld, \"blocks\": [", (long long)m->sample_grid,
              (long long)m->sample_stride, (long long)m->sample_ctas, (long long)m->sample_cap);
    for (int c = 0; c < m->n_ctas; c++)
        sb_printf(b, "%s%lld", c ? ", " : "", (long long)m->ctas[c].block);
    sb_printf(b, "], \"dropped\": %lld, \"unpaired\": %lld, \"partial\": %s},",
              (long long)pt_measured_dropped(m), (long long)pt_measured_unpaired(m),
              pt_measured_partial(m) ? "true" : "false");
    sb_printf(b, "\n    \"ctas\": [");
    for (int c = 0; c < m->n_ctas; c++) {
        const pt_mcta *ct = &m->ctas[c];
        sb_printf(b, "%s\n      {\"block\": %lld, \"smid\": %lld, \"dropped\": %lld, "
                  "\"unpaired\": %lld, \"unpaired_lanes\": %lu, \"iterations\": [%lld, %lld], "
                  "\"spans\": [", c ? "," : "", (long long)ct->block,
                  (long long)ct->smid, (long long)ct->dropped, (long long)ct->unpaired,
                  (unsigned long)ct->unpaired_lanes, (long long)ct->iter_first,
                  (long long)ct->iter_last);
        for (int64_t i = 0; i < ct->n_spans && !b->failed; i++) {
            const pt_mspan *s = &ct->spans[i];
            if (s->stask < 0 || s->stask >= n_stasks || s->lane < 0 || s->lane >= n_lanes)
                return false;
            sb_printf(b, "%s\n        [%d, %d, %d, %lld, ", i ? "," : "", s->stask, s->lane,
                      s->tile, (long long)s->iter);
            sb_json_number(b, s->start_ns);
            sb_printf(b, ", ");
            sb_json_number(b, s->end_ns);
            sb_printf(b, "]");
        }
        sb_printf(b, "]}");
    }
    sb_printf(b, "\n    ]}");
    return true;
}

static bool write_alignment(strbuf *b, const pt_alignment *a, int n_stasks, int n_lanes)
{
    if (!a || !a->present) {
        sb_printf(b, ",\n  \"alignment\": null");
        return true;
    }
    sb_printf(b, ",\n  \"alignment\": {\"kernel\": {");
    sb_key_num(b, "", "predicted_ns", a->predicted_kernel_ns);
    sb_key_num(b, ", ", "measured_ns", a->measured_kernel_ns);
    sb_key_num(b, ", ", "error_pct", a->kernel_error_pct);
    sb_printf(b, "},\n    \"stasks\": [");
    for (int i = 0; i < a->n_stasks; i++) {
        const pt_align_stask *s = &a->stasks[i];
        if (s->stask < 0 || s->stask >= n_stasks)
            return false;
        sb_printf(b, "%s\n      {\"stask\": %d, \"predicted_count\": %lld, "
                  "\"measured_count\": %lld", i ? "," : "", s->stask,
                  (long long)s->predicted_count, (long long)s->measured_count);
        sb_key_num(b, ", ", "predicted_mean_ns", s->predicted_mean_ns);
        sb_key_num(b, ", ", "measured_mean_ns", s->measured_mean_ns);
        sb_key_num(b, ", ", "error_pct", s->error_pct);
        sb_key_num(b, ",\n       ", "predicted_first_start_ns", s->predicted_first_start_ns);
        sb_key_num(b, ", ", "measured_first_start_ns", s->measured_first_start_ns);
        sb_key_num(b, ", ", "start_error_ns", s->start_error_ns);
        sb_key_num(b, ",\n       ", "measured_min_ns", s->measured_min_ns);
        sb_key_num(b, ", ", "measured_max_ns", s->measured_max_ns);
        sb_key_num(b, ", ", "measured_stddev_ns", s->measured_stddev_ns);
        sb_printf(b, "}");
    }
    sb_printf(b, "\n    ],\n    \"lanes\": [");
    for (int i = 0; i < a->n_lanes && i < PT_MAX_LANES; i++) {
        const pt_align_lane *l = &a->lanes[i];
        if (l->lane < 0 || l->lane >= n_lanes)
            return false;
        sb_printf(b, "%s\n      {\"lane\": %d", i ? "," : "", l->lane);
        sb_key_num(b, ", ", "predicted_busy_pct", l->predicted_busy_pct);
        sb_key_num(b, ", ", "measured_busy_pct", l->measured_busy_pct);
        sb_key_num(b, ", ", "predicted_occupancy_pct", l->predicted_occupancy_pct);
        sb_printf(b, ", \"measured_partial\": %s}", l->measured_partial ? "true" : "false");
    }
    sb_printf(b, "\n    ], \"partial\": %s}", a->partial ? "true" : "false");
    return true;
}

char *pt_timeline_to_json(const pt_timeline *tl, const pt_sprogram *p, const pt_stask_graph *sg,
                          const pt_hw *hw)
{
    return pt_profile_to_json(tl, p, sg, hw, NULL, NULL);
}

char *pt_profile_to_json(const pt_timeline *tl, const pt_sprogram *p, const pt_stask_graph *sg,
                         const pt_hw *hw, const pt_measured *m, const pt_alignment *a)
{
    if (!tl || !p || !sg)
        return NULL;
    strbuf b = {0};
    int version = (m && m->present) || (a && a->present) ? PT_TRACE_FILE_VERSION : 1;
    sb_printf(&b, "{\n  \"format\": \"%s\",\n  \"version\": %d,\n  \"graph\": ", PT_TRACE_FORMAT,
              version);
    sb_json_string(&b, sg->graph ? sg->graph->name : p->graph_name);
    sb_printf(&b, ",\n  \"hw\": ");
    sb_json_string(&b, hw ? hw->name : p->hw_name);
    sb_printf(&b, ",\n  \"build\": \"predicted\",\n");
    /* What the prediction came from: the graph's parameters and the sProgram itself. */
    if (sg->graph) {
        sb_printf(&b, "  \"params\": {");
        for (int i = 0; i < sg->graph->n_params; i++) {
            sb_printf(&b, "%s", i ? ", " : "");
            sb_json_string(&b, sg->graph->params[i].name);
            sb_printf(&b, ": %lld", (long long)sg->graph->params[i].value);
        }
        sb_printf(&b, "},\n");
    }

    write_summary(&b, tl);
    write_lanes(&b, tl, p);
    sb_printf(&b, "  \"stasks\": [");
    for (int s = 0; s < sg->n; s++) {
        sb_printf(&b, "%s", s ? ", " : "");
        if (s % 8 == 0)
            sb_printf(&b, "\n    ");
        sb_json_string(&b, sg->tasks[s].id);
    }
    sb_printf(&b, "\n  ],\n");
    write_spans(&b, tl);
    int n_lanes = p->n_lanes < PT_MAX_LANES ? p->n_lanes : PT_MAX_LANES;
    /* A predicted-only trace stays version 1 (older readers take it); the measured side and
     * the alignment make it version 2. */
    bool ok = write_measured(&b, m, sg->n, n_lanes) &&
              (version < 2 || write_alignment(&b, a, sg->n, n_lanes));
    /* Last, the sProgram the prediction was simulated from (re-simulating the trace's own
     * schedule needs it; it is long, so it comes after the timeline). */
    char *prog = pt_sprogram_to_json(p, sg);
    if (prog) {
        size_t n = strlen(prog);
        while (n > 0 && (prog[n - 1] == '\n' || prog[n - 1] == ' '))
            prog[--n] = 0;
        sb_printf(&b, ",\n  \"sprogram\": %s", prog);
        free(prog);
    }
    sb_printf(&b, "\n}\n");
    if (!ok) {
        sb_free(&b);
        return NULL;
    }
    return sb_take(&b); /* NULL when out of memory */
}

/* ---- reading ----------------------------------------------------------------------- */

void pt_measured_free(pt_measured *m)
{
    if (!m)
        return;
    for (int c = 0; c < m->n_ctas && m->ctas; c++)
        free(m->ctas[c].spans);
    free(m->ctas);
    memset(m, 0, sizeof *m);
}

int64_t pt_measured_dropped(const pt_measured *m)
{
    int64_t n = 0;
    for (int c = 0; m && c < m->n_ctas && m->ctas; c++)
        n += m->ctas[c].dropped;
    return n;
}

int64_t pt_measured_unpaired(const pt_measured *m)
{
    int64_t n = 0;
    for (int c = 0; m && c < m->n_ctas && m->ctas; c++)
        n += m->ctas[c].unpaired;
    return n;
}

bool pt_measured_partial(const pt_measured *m)
{
    return pt_measured_dropped(m) > 0 || pt_measured_unpaired(m) > 0;
}

bool pt_mkernel_overhead_notable(double overhead_pct)
{
    return overhead_pct > 10; /* false for NaN */
}

bool pt_measured_lane_partial(const pt_measured *m, int lane)
{
    if (pt_measured_dropped(m) > 0)
        return true;
    for (int c = 0; m && c < m->n_ctas && m->ctas; c++)
        if (m->ctas[c].unpaired > 0 &&
            (lane < 0 || lane >= 32 || (m->ctas[c].unpaired_lanes >> lane) & 1u ||
             m->ctas[c].unpaired_lanes == 0))
            return true;
    return false;
}

void pt_alignment_free(pt_alignment *a)
{
    if (!a)
        return;
    free(a->stasks);
    memset(a, 0, sizeof *a);
}

void pt_trace_params_text(const pt_trace *tr, char *out, size_t cap)
{
    size_t len = 0;
    if (cap > 0)
        out[0] = '\0';
    for (int i = 0; i < tr->n_params && len < cap; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s%s=%lld", i ? "," : "",
                                tr->param_names[i], (long long)tr->param_values[i]);
}

void pt_trace_free(pt_trace *tr)
{
    if (!tr)
        return;
    pt_measured_free(&tr->measured);
    pt_alignment_free(&tr->alignment);
    free(tr->sprogram_json);
    free(tr->stask_ids);
    pt_timeline_free(&tr->tl);
    memset(tr, 0, sizeof *tr);
}

/* A name that may be empty (a trace of an unnamed graph or model still reads back). */
static bool get_label(const cJSON *obj, const char *key, const char *name, char *out,
                      size_t cap, pt_error *err)
{
    const char *v = NULL;
    if (!pt_json_get_string(obj, key, true, name, "$", &v, err))
        return false;
    if (strlen(v) >= cap)
        return pt_fail(err, "%s: $.%s: is %zu characters long; expected at most %zu", name, key,
                       strlen(v), cap - 1);
    strcpy(out, v);
    return true;
}

static bool read_header(pt_trace *tr, const cJSON *root, const char *name, pt_error *err)
{
    static const char *const keys1[] = {"format", "version", "graph", "hw", "build", "params",
                                        "sprogram", "summary", "lanes", "stasks", "predicted",
                                        "measured", NULL};
    static const char *const keys2[] = {"format", "version", "graph", "hw", "build", "params",
                                        "sprogram", "summary", "lanes", "stasks", "predicted",
                                        "measured", "alignment", NULL};
    if (!cJSON_IsObject(root))
        return pt_fail(err, "%s: $: is %s; expected a trace object", name, pt_json_type(root));
    if (!pt_json_expect_kind(root, PT_FILE_TRACE, name, err))
        return false;
    const char *fmt = NULL;
    int64_t version = 0;
    if (!pt_json_get_string(root, "format", true, name, "$", &fmt, err))
        return false;
    if (strcmp(fmt, PT_TRACE_FORMAT) != 0)
        return pt_fail(err, "%s: $.format: is \"%.64s\"; expected \"%s\"", name, fmt,
                       PT_TRACE_FORMAT);
    if (!pt_json_get_int(root, "version", true, 1, 1000000, name, "$", &version, err))
        return false;
    if (version > PT_TRACE_FILE_VERSION)
        return pt_fail(err, "%s: $.version: %lld is newer than this build reads; expected 1 to "
                       "%d", name, (long long)version, PT_TRACE_FILE_VERSION);
    tr->version = (int)version;
    if (!pt_json_check_keys(root, version == 1 ? keys1 : keys2, name, "$", err))
        return false;
    strcpy(tr->build, "predicted");
    tr->n_params = -1;
    const cJSON *pa = cJSON_GetObjectItemCaseSensitive(root, "params");
    if (pa) {
        if (!cJSON_IsObject(pa))
            return pt_fail(err, "%s: $.params: is %s; expected an object of parameter values",
                           name, pt_json_type(pa));
        tr->n_params = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, pa)
        {
            if (tr->n_params >= PT_MAX_PARAMS)
                return pt_fail(err, "%s: $.params: more than %d parameters", name,
                               PT_MAX_PARAMS);
            if (!e->string || strlen(e->string) >= PT_NAME_MAX || !cJSON_IsNumber(e) ||
                e->valuedouble != floor(e->valuedouble) ||
                fabs(e->valuedouble) > (double)PT_PARAM_LIMIT)
                return pt_fail(err, "%s: $.params: \"%.32s\" is not a parameter name with a "
                               "whole value; expected names of at most %d characters and "
                               "whole numbers", name, e->string ? e->string : "",
                               PT_NAME_MAX - 1);
            strcpy(tr->param_names[tr->n_params], e->string);
            tr->param_values[tr->n_params++] = (int64_t)e->valuedouble;
        }
    }
    const cJSON *sp = cJSON_GetObjectItemCaseSensitive(root, "sprogram");
    if (sp) {
        if (!cJSON_IsObject(sp))
            return pt_fail(err, "%s: $.sprogram: is %s; expected an sProgram object", name,
                           pt_json_type(sp));
        tr->sprogram_json = cJSON_PrintUnformatted(sp);
        if (!tr->sprogram_json)
            return pt_fail(err, "%s: out of memory", name);
    }
    return get_label(root, "graph", name, tr->graph, sizeof tr->graph, err) &&
           get_label(root, "hw", name, tr->hw, sizeof tr->hw, err) &&
           pt_json_get_name(root, "build", false, name, "$", tr->build, sizeof tr->build, err);
}

static bool read_summary(pt_trace *tr, const cJSON *root, const char *name, pt_error *err)
{
    static const char *const keys[] = {"kernel_time_ns", "eu_time_ns", "tflops", "flops",
                                       "tiles", "grid", "waves", "iterations", "dram_bytes",
                                       "dram_floor_ns", "staged", "staging_bytes",
                                       "staging_ns", NULL};
    bool ok;
    const cJSON *s = pt_json_get_object(root, "summary", true, name, "$", &ok, err);
    if (!s)
        return false;
    const char *P = "$.summary";
    pt_timeline *tl = &tr->tl;
    const int64_t big = (int64_t)1 << 53;
    int64_t staged = 0;
    bool ok_staging = pt_json_get_int(s, "staged", false, 0, PT_MAX_TENSORS, name, P, &staged,
                                      err) &&
                      pt_json_get_number(s, "staging_bytes", false, 0, HUGE_VAL, name, P,
                                         &tl->staging_bytes, err) &&
                      pt_json_get_number(s, "staging_ns", false, 0, HUGE_VAL, name, P,
                                         &tl->staging_ns, err);
    tl->staged = (int)staged;
    return ok_staging && pt_json_check_keys(s, keys, name, P, err) &&
           pt_json_get_number(s, "kernel_time_ns", true, 0, HUGE_VAL, name, P,
                              &tl->kernel_time_ns, err) &&
           pt_json_get_number(s, "eu_time_ns", true, 0, HUGE_VAL, name, P, &tl->eu_time_ns,
                              err) &&
           pt_json_get_number(s, "tflops", true, 0, HUGE_VAL, name, P, &tl->tflops, err) &&
           pt_json_get_number(s, "flops", true, 0, HUGE_VAL, name, P, &tl->flops, err) &&
           pt_json_get_int(s, "tiles", true, 0, big, name, P, &tl->tiles, err) &&
           pt_json_get_int(s, "grid", true, 0, big, name, P, &tl->grid, err) &&
           pt_json_get_int(s, "waves", true, 0, big, name, P, &tl->waves, err) &&
           pt_json_get_int(s, "iterations", true, 0, big, name, P, &tl->eu_iterations, err) &&
           pt_json_get_number(s, "dram_bytes", false, 0, HUGE_VAL, name, P, &tl->dram_bytes,
                              err) &&
           pt_json_get_number(s, "dram_floor_ns", true, 0, HUGE_VAL, name, P,
                              &tl->dram_floor_ns, err);
}

static bool read_lanes(pt_trace *tr, const cJSON *root, const char *name, pt_error *err)
{
    static const char *const keys[] = {"name", "seu", "role", "busy_ns", "occupied_ns", NULL};
    bool ok;
    const cJSON *arr = pt_json_get_array(root, "lanes", true, name, "$", &ok, err);
    if (!arr)
        return false;
    int n = cJSON_GetArraySize(arr);
    if (n > PT_MAX_LANES)
        return pt_fail(err, "%s: $.lanes: has %d lanes; expected at most %d", name, n,
                       PT_MAX_LANES);
    char path[PT_PATH_MAX];
    int L = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        pt_path_idx(path, "$.lanes", L);
        if (!cJSON_IsObject(it))
            return pt_fail(err, "%s: %s: is %s; expected a lane object", name, path,
                           pt_json_type(it));
        const char *seu = NULL;
        if (!pt_json_check_keys(it, keys, name, path, err) ||
            !pt_json_get_name(it, "name", true, name, path, tr->lane_names[L],
                              PT_LANE_NAME_MAX, err) ||
            !pt_json_get_string(it, "seu", true, name, path, &seu, err) ||
            !pt_json_get_name(it, "role", false, name, path, tr->lane_roles[L],
                              PT_LANE_NAME_MAX, err) ||
            !pt_json_get_number(it, "busy_ns", false, 0, HUGE_VAL, name, path,
                                &tr->tl.lane_busy_ns[L], err) ||
            !pt_json_get_number(it, "occupied_ns", false, 0, HUGE_VAL, name, path,
                                &tr->tl.lane_occupied_ns[L], err))
            return false;
        if (!pt_seu_parse(seu, &tr->lane_seu[L]))
            return pt_fail(err, "%s: %s.seu: \"%.32s\" is not an sEU; expected tma, "
                           "tensor_core or cuda_core", name, path, seu);
        L++;
    }
    tr->n_lanes = tr->tl.n_lanes = L;
    return true;
}

static bool read_stasks(pt_trace *tr, const cJSON *root, const char *name, pt_error *err)
{
    bool ok;
    const cJSON *arr = pt_json_get_array(root, "stasks", true, name, "$", &ok, err);
    if (!arr)
        return false;
    int n = cJSON_GetArraySize(arr);
    if (n > PT_TRACE_MAX_STASKS)
        return pt_fail(err, "%s: $.stasks: has %d entries; expected at most %d", name, n,
                       PT_TRACE_MAX_STASKS);
    tr->stask_ids = calloc((size_t)n + 1, sizeof *tr->stask_ids);
    if (!tr->stask_ids)
        return pt_fail(err, "%s: out of memory", name);
    int s = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        if (!cJSON_IsString(it) || !it->valuestring || !it->valuestring[0] ||
            strlen(it->valuestring) >= PT_STASK_ID_MAX)
            return pt_fail(err, "%s: $.stasks[%d]: is %s; expected an sTask id of 1 to %d "
                           "characters", name, s, pt_json_type(it), PT_STASK_ID_MAX - 1);
        strcpy(tr->stask_ids[s++], it->valuestring);
    }
    tr->n_stasks = s;
    return true;
}

/* One whole number of a span within [lo, hi]. */
static bool span_int(const cJSON *v, const char *name, const char *path, int k, const char *what,
                     int64_t lo, int64_t hi, int64_t *out, pt_error *err)
{
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) ||
        v->valuedouble < (double)lo || v->valuedouble > (double)hi)
        return pt_fail(err, "%s: %s[%d]: %s is %s%s; expected an integer from %lld to %lld",
                       name, path, k, what, pt_json_type(v),
                       cJSON_IsNumber(v) ? " out of range" : "", (long long)lo, (long long)hi);
    *out = (int64_t)v->valuedouble;
    return true;
}

static bool span_time(const cJSON *v, const char *name, const char *path, int k,
                      const char *what, double *out, pt_error *err)
{
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0)
        return pt_fail(err, "%s: %s[%d]: %s is %s; expected a time >= 0 in ns", name, path, k,
                       what, pt_json_type(v));
    *out = v->valuedouble;
    return true;
}

static bool read_span(pt_trace *tr, const cJSON *it, const char *name, const char *path,
                      pt_span *sp, pt_error *err)
{
    int n_el = cJSON_IsArray(it) ? cJSON_GetArraySize(it) : 0;
    if (n_el < 6 || n_el > 8)
        return pt_fail(err, "%s: %s: is %s; expected [stask, lane, iter, issue_ns, start_ns, "
                       "end_ns, unit_end_ns] (and fence_ns where the issue paid a barrier wait)",
                       name, path,
                       cJSON_IsArray(it) ? "an array of another length" : pt_json_type(it));
    const cJSON *v[8] = {NULL};
    int k = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, it) v[k++] = e;
    int64_t s = 0, lane = 0;
    if (!span_int(v[0], name, path, 0, "the sTask index", 0, tr->n_stasks - 1, &s, err) ||
        !span_int(v[1], name, path, 1, "the lane index", 0, tr->n_lanes - 1, &lane, err) ||
        !span_int(v[2], name, path, 2, "the iteration", 0, (int64_t)1 << 53, &sp->iter, err) ||
        !span_time(v[3], name, path, 3, "issue_ns", &sp->issue_ns, err) ||
        !span_time(v[4], name, path, 4, "start_ns", &sp->start_ns, err) ||
        !span_time(v[5], name, path, 5, "end_ns", &sp->end_ns, err))
        return false;
    if (!(sp->issue_ns <= sp->start_ns && sp->start_ns <= sp->end_ns))
        return pt_fail(err, "%s: %s: times %g, %g, %g are out of order; expected issue_ns <= "
                       "start_ns <= end_ns", name, path, sp->issue_ns, sp->start_ns,
                       sp->end_ns);
    sp->unit_end_ns = sp->end_ns; /* a trace without occupancy: the whole start..end */
    if (n_el >= 7) {
        if (!span_time(v[6], name, path, 6, "unit_end_ns", &sp->unit_end_ns, err))
            return false;
        if (!(sp->start_ns <= sp->unit_end_ns && sp->unit_end_ns <= sp->end_ns))
            return pt_fail(err, "%s: %s: unit_end_ns %g is outside [start_ns %g, end_ns %g]; "
                           "expected the unit's occupancy within the span", name, path,
                           sp->unit_end_ns, sp->start_ns, sp->end_ns);
    }
    sp->fence_ns = 0;
    if (n_el == 8) {
        if (!span_time(v[7], name, path, 7, "fence_ns", &sp->fence_ns, err))
            return false;
        if (sp->fence_ns > sp->issue_ns)
            return pt_fail(err, "%s: %s: fence_ns %g is more than issue_ns %g; expected the "
                           "part of the delay before the issue paid at a barrier", name, path,
                           sp->fence_ns, sp->issue_ns);
    }
    sp->stask = (int)s;
    sp->lane = (int)lane;
    return true;
}

static bool read_predicted(pt_trace *tr, const cJSON *root, const char *name, pt_error *err)
{
    static const char *const keys[] = {"spans", NULL};
    bool ok;
    const cJSON *pr = pt_json_get_object(root, "predicted", true, name, "$", &ok, err);
    if (!pr)
        return false;
    const cJSON *arr = pt_json_get_array(pr, "spans", true, name, "$.predicted", &ok, err);
    if (!pt_json_check_keys(pr, keys, name, "$.predicted", err) || !arr)
        return false;
    int n = cJSON_GetArraySize(arr);
    if (n > PT_TRACE_MAX_SPANS)
        return pt_fail(err, "%s: $.predicted.spans: has %d spans; expected at most %d", name,
                       n, PT_TRACE_MAX_SPANS);
    tr->tl.spans = calloc((size_t)n + 1, sizeof *tr->tl.spans);
    if (!tr->tl.spans)
        return pt_fail(err, "%s: out of memory", name);
    char path[PT_PATH_MAX];
    int k = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        pt_path_idx(path, "$.predicted.spans", k);
        if (!read_span(tr, it, name, path, &tr->tl.spans[k], err))
            return false;
        tr->tl.n_spans = ++k;
    }
    return true;
}

/* ---- reading the measured side and the alignment (version 2) ---- */

/* A number within [lo, hi] or null (NaN). Absent: an error when required, else NaN. */
static bool get_num_or_null(const cJSON *obj, const char *key, bool required, double lo,
                            double hi, const char *name, const char *path, double *out,
                            pt_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = NAN;
    if (!v && !required)
        return true;
    if (v && cJSON_IsNull(v))
        return true;
    if (!v)
        return pt_fail(err, "%s: %s: \"%s\" is missing; expected a number or null", name, path,
                       key);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < lo ||
        v->valuedouble > hi)
        return pt_fail(err, "%s: %s.%s: is %s%s; expected a number from %g to %g, or null", name,
                       path, key, pt_json_type(v), cJSON_IsNumber(v) ? " out of range" : "", lo,
                       hi);
    *out = v->valuedouble;
    return true;
}

static bool read_mkernel(pt_measured *m, const cJSON *ms, const char *name, pt_error *err)
{
    static const char *const keys[] = {"timing", "iters", "plain_ms_median", "plain_ms_min",
                                       "plain_ms_max", "instrumented_ms_median",
                                       "instrumented_ms_min", "instrumented_ms_max",
                                       "overhead_pct", "traced_kernel_ns", "cupti", NULL};
    static const char *const ckeys[] = {"median_ms", "min_ms", "max_ms", "registers", "smem",
                                        "grid", "block", NULL};
    bool ok;
    const char *P = "$.measured.kernel", *C = "$.measured.kernel.cupti";
    const cJSON *k = pt_json_get_object(ms, "kernel", true, name, "$.measured", &ok, err);
    if (!k)
        return false;
    pt_mkernel *o = &m->kernel;
    const int64_t big = (int64_t)1 << 53;
    if (!pt_json_check_keys(k, keys, name, P, err) ||
        (!cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(k, "timing")) &&
         !pt_json_get_name(k, "timing", false, name, P, o->timing, sizeof o->timing, err)) ||
        !pt_json_get_int(k, "iters", false, 0, big, name, P, &o->iters, err) ||
        !get_num_or_null(k, "plain_ms_median", true, 0, HUGE_VAL, name, P, &o->plain_ms_median, err) ||
        !get_num_or_null(k, "plain_ms_min", false, 0, HUGE_VAL, name, P, &o->plain_ms_min, err) ||
        !get_num_or_null(k, "plain_ms_max", false, 0, HUGE_VAL, name, P, &o->plain_ms_max, err) ||
        !get_num_or_null(k, "instrumented_ms_median", true, 0, HUGE_VAL, name, P,
                         &o->instr_ms_median, err) ||
        !get_num_or_null(k, "instrumented_ms_min", false, 0, HUGE_VAL, name, P, &o->instr_ms_min,
                         err) ||
        !get_num_or_null(k, "instrumented_ms_max", false, 0, HUGE_VAL, name, P, &o->instr_ms_max,
                         err) ||
        !get_num_or_null(k, "overhead_pct", false, -HUGE_VAL, HUGE_VAL, name, P,
                         &o->overhead_pct, err) ||
        !get_num_or_null(k, "traced_kernel_ns", false, 0, HUGE_VAL, name, P,
                         &o->traced_kernel_ns, err))
        return false;
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(k, "cupti");
    if (!c || cJSON_IsNull(c))
        return true;
    if (!cJSON_IsObject(c))
        return pt_fail(err, "%s: %s: is %s; expected an object or null", name, C,
                       pt_json_type(c));
    o->has_cupti = true;
    return pt_json_check_keys(c, ckeys, name, C, err) &&
           get_num_or_null(c, "median_ms", true, 0, HUGE_VAL, name, C, &o->cupti_ms_median, err) &&
           get_num_or_null(c, "min_ms", false, 0, HUGE_VAL, name, C, &o->cupti_ms_min, err) &&
           get_num_or_null(c, "max_ms", false, 0, HUGE_VAL, name, C, &o->cupti_ms_max, err) &&
           pt_json_get_int(c, "registers", false, 0, 1 << 20, name, C, &o->cupti_registers, err) &&
           pt_json_get_int(c, "smem", false, 0, big, name, C, &o->cupti_smem, err) &&
           pt_json_get_int(c, "grid", false, 0, big, name, C, &o->cupti_grid, err) &&
           pt_json_get_int(c, "block", false, 0, big, name, C, &o->cupti_block, err);
}

static bool read_mspan(const pt_trace *tr, const cJSON *it, const char *name, const char *path,
                       pt_mspan *sp, pt_error *err)
{
    if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 6)
        return pt_fail(err, "%s: %s: is %s; expected [stask, lane, tile, iter, start_ns, end_ns]",
                       name, path, pt_json_type(it));
    const cJSON *v[6] = {NULL};
    int k = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, it) v[k++] = e;
    int64_t s = 0, lane = 0, tile = 0;
    if (!span_int(v[0], name, path, 0, "the sTask index", 0, tr->n_stasks - 1, &s, err) ||
        !span_int(v[1], name, path, 1, "the lane index", 0, tr->n_lanes - 1, &lane, err) ||
        !span_int(v[2], name, path, 2, "the tile", 0, 1 << 30, &tile, err) ||
        !span_int(v[3], name, path, 3, "the iteration", 0, (int64_t)1 << 53, &sp->iter, err))
        return false;
    for (int j = 4; j < 6; j++)
        if (!cJSON_IsNumber(v[j]) || !isfinite(v[j]->valuedouble))
            return pt_fail(err, "%s: %s[%d]: %s is %s; expected a time in ns", name, path, j,
                           j == 4 ? "start_ns" : "end_ns", pt_json_type(v[j]));
    sp->start_ns = v[4]->valuedouble;
    sp->end_ns = v[5]->valuedouble;
    if (sp->end_ns < sp->start_ns)
        return pt_fail(err, "%s: %s: end_ns %g is before start_ns %g; expected start_ns <= "
                       "end_ns", name, path, sp->end_ns, sp->start_ns);
    sp->stask = (int)s;
    sp->lane = (int)lane;
    sp->tile = (int)tile;
    return true;
}

static bool read_mcta(pt_trace *tr, const cJSON *it, const char *name, const char *path,
                      pt_mcta *ct, pt_error *err)
{
    static const char *const keys[] = {"block", "smid", "dropped", "unpaired", "unpaired_lanes",
                                       "iterations", "spans", NULL};
    if (!cJSON_IsObject(it))
        return pt_fail(err, "%s: %s: is %s; expected a CTA object", name, path, pt_json_type(it));
    const int64_t big = (int64_t)1 << 53;
    bool ok;
    if (!pt_json_check_keys(it, keys, name, path, err) ||
        !pt_json_get_int(it, "block", true, 0, big, name, path, &ct->block, err) ||
        !pt_json_get_int(it, "smid", true, 0, 1 << 20, name, path, &ct->smid, err) ||
        !pt_json_get_int(it, "dropped", false, 0, big, name, path, &ct->dropped, err) ||
        !pt_json_get_int(it, "unpaired", false, 0, big, name, path, &ct->unpaired, err))
        return false;
    int64_t ul = 0;
    if (!pt_json_get_int(it, "unpaired_lanes", false, 0, 0xffffffffll, name, path, &ul, err))
        return false;
    ct->unpaired_lanes = (uint32_t)ul;
    ct->iter_first = ct->iter_last = -1;
    const cJSON *its = cJSON_GetObjectItemCaseSensitive(it, "iterations");
    if (its) {
        if (!cJSON_IsArray(its) || cJSON_GetArraySize(its) != 2 ||
            !cJSON_IsNumber(its->child) || !cJSON_IsNumber(its->child->next) ||
            its->child->valuedouble < -1 || its->child->next->valuedouble < -1 ||
            its->child->valuedouble > 1e15 || its->child->next->valuedouble > 1e15)
            return pt_fail(err, "%s: %s.iterations: is not [first, last]; expected two whole "
                           "numbers >= -1", name, path);
        ct->iter_first = (int64_t)its->child->valuedouble;
        ct->iter_last = (int64_t)its->child->next->valuedouble;
    }
    const cJSON *arr = pt_json_get_array(it, "spans", true, name, path, &ok, err);
    if (!arr)
        return false;
    int n = cJSON_GetArraySize(arr);
    char sp_path[PT_PATH_MAX], one[PT_PATH_MAX];
    pt_path_key(sp_path, path, "spans");
    if (n > PT_TRACE_MAX_SPANS)
        return pt_fail(err, "%s: %s: has %d spans; expected at most %d", name, sp_path, n,
                       PT_TRACE_MAX_SPANS);
    ct->spans = calloc((size_t)n + 1, sizeof *ct->spans);
    if (!ct->spans)
        return pt_fail(err, "%s: out of memory", name);
    int k = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        pt_path_idx(one, sp_path, k);
        if (!read_mspan(tr, e, name, one, &ct->spans[k], err))
            return false;
        ct->n_spans = ++k;
    }
    return true;
}

static bool read_measured(pt_trace *tr, const cJSON *ms, const char *name, pt_error *err)
{
    static const char *const keys[] = {"build", "origin", "first_warp_delay_ns",
                                       "last_warp_gap_ns", "kernel", "sample", "ctas", NULL};
    static const char *const skeys[] = {"grid", "stride", "sampled_ctas", "cap", "blocks",
                                        "dropped", "unpaired", "partial", NULL};
    pt_measured *m = &tr->measured;
    const char *P = "$.measured";
    bool ok;
    strcpy(m->build, "instrumented");
    if (!pt_json_check_keys(ms, keys, name, P, err) ||
        !pt_json_get_name(ms, "build", false, name, P, m->build, sizeof m->build, err) ||
        !pt_json_get_name(ms, "origin", true, name, P, m->origin, sizeof m->origin, err) ||
        !get_num_or_null(ms, "first_warp_delay_ns", false, -HUGE_VAL, HUGE_VAL, name, P,
                         &m->first_warp_delay_ns, err) ||
        !get_num_or_null(ms, "last_warp_gap_ns", false, -HUGE_VAL, HUGE_VAL, name, P,
                         &m->last_warp_gap_ns, err) ||
        !read_mkernel(m, ms, name, err))
        return false;
    const cJSON *sm = pt_json_get_object(ms, "sample", false, name, P, &ok, err);
    if (!ok)
        return false;
    const int64_t big = (int64_t)1 << 53;
    int64_t unused = 0;
    if (sm && (!pt_json_check_keys(sm, skeys, name, "$.measured.sample", err) ||
               !pt_json_get_int(sm, "grid", false, 0, big, name, "$.measured.sample",
                                &m->sample_grid, err) ||
               !pt_json_get_int(sm, "stride", false, 0, big, name, "$.measured.sample",
                                &m->sample_stride, err) ||
               !pt_json_get_int(sm, "sampled_ctas", false, 0, big, name, "$.measured.sample",
                                &m->sample_ctas, err) ||
               !pt_json_get_int(sm, "cap", false, 0, big, name, "$.measured.sample",
                                &m->sample_cap, err) ||
               !pt_json_get_int(sm, "dropped", false, 0, big, name, "$.measured.sample",
                                &unused, err) ||
               !pt_json_get_int(sm, "unpaired", false, 0, big, name, "$.measured.sample",
                                &unused, err)))
        return false;
    const cJSON *arr = pt_json_get_array(ms, "ctas", true, name, P, &ok, err);
    if (!arr)
        return false;
    int n = cJSON_GetArraySize(arr);
    if (n > PT_TRACE_FILE_MAX_CTAS)
        return pt_fail(err, "%s: $.measured.ctas: has %d CTAs; expected at most %d", name, n,
                       PT_TRACE_FILE_MAX_CTAS);
    m->ctas = calloc((size_t)n + 1, sizeof *m->ctas);
    if (!m->ctas)
        return pt_fail(err, "%s: out of memory", name);
    char path[PT_PATH_MAX];
    int c = 0;
    int64_t total = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        pt_path_idx(path, "$.measured.ctas", c);
        m->n_ctas = c + 1; /* freed with the rest on failure */
        if (!read_mcta(tr, it, name, path, &m->ctas[c], err))
            return false;
        total += m->ctas[c].n_spans;
        if (total > PT_TRACE_MAX_SPANS)
            return pt_fail(err, "%s: $.measured.ctas: more than %d spans in all", name,
                           PT_TRACE_MAX_SPANS);
        c++;
    }
    m->n_ctas = c;
    m->present = true;
    return true;
}

/* An optional true/false member (absent: false). */
static bool get_flag(const cJSON *obj, const char *key, const char *name, const char *path,
                     bool *out, pt_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = false;
    if (!v)
        return true;
    if (!cJSON_IsBool(v))
        return pt_fail(err, "%s: %s.%s: is %s; expected true or false", name, path, key,
                       pt_json_type(v));
    *out = cJSON_IsTrue(v);
    return true;
}

static bool read_alignment(pt_trace *tr, const cJSON *al, const char *name, pt_error *err)
{
    static const char *const keys[] = {"kernel", "stasks", "lanes", "partial", NULL};
    static const char *const kkeys[] = {"predicted_ns", "measured_ns", "error_pct", NULL};
    static const char *const skeys[] = {"stask", "predicted_count", "measured_count",
                                        "predicted_mean_ns", "measured_mean_ns", "error_pct",
                                        "predicted_first_start_ns", "measured_first_start_ns",
                                        "start_error_ns", "measured_min_ns", "measured_max_ns",
                                        "measured_stddev_ns", NULL};
    static const char *const lkeys[] = {"lane", "predicted_busy_pct", "measured_busy_pct",
                                        "predicted_occupancy_pct", "measured_partial", NULL};
    pt_alignment *a = &tr->alignment;
    const char *P = "$.alignment", *K = "$.alignment.kernel";
    const double inf = HUGE_VAL;
    const int64_t big = (int64_t)1 << 53;
    bool ok;
    const cJSON *k = pt_json_get_object(al, "kernel", true, name, P, &ok, err);
    if (!pt_json_check_keys(al, keys, name, P, err) || !k ||
        !pt_json_check_keys(k, kkeys, name, K, err) ||
        !get_num_or_null(k, "predicted_ns", true, 0, inf, name, K, &a->predicted_kernel_ns, err) ||
        !get_num_or_null(k, "measured_ns", true, 0, inf, name, K, &a->measured_kernel_ns, err) ||
        !get_num_or_null(k, "error_pct", true, -inf, inf, name, K, &a->kernel_error_pct, err))
        return false;
    const cJSON *arr = pt_json_get_array(al, "stasks", true, name, P, &ok, err);
    if (!arr)
        return false;
    int n = cJSON_GetArraySize(arr);
    if (n > tr->n_stasks)
        return pt_fail(err, "%s: $.alignment.stasks: has %d entries; expected at most %d (the "
                       "sTasks)", name, n, tr->n_stasks);
    a->stasks = calloc((size_t)n + 1, sizeof *a->stasks);
    if (!a->stasks)
        return pt_fail(err, "%s: out of memory", name);
    char path[PT_PATH_MAX];
    const cJSON *it;
    int i = 0;
    cJSON_ArrayForEach(it, arr)
    {
        pt_align_stask *s = &a->stasks[i];
        int64_t id = 0;
        pt_path_idx(path, "$.alignment.stasks", i);
        if (!cJSON_IsObject(it))
            return pt_fail(err, "%s: %s: is %s; expected an object", name, path,
                           pt_json_type(it));
        if (!pt_json_check_keys(it, skeys, name, path, err) ||
            !pt_json_get_int(it, "stask", true, 0, tr->n_stasks - 1, name, path, &id, err) ||
            !pt_json_get_int(it, "predicted_count", false, 0, big, name, path,
                             &s->predicted_count, err) ||
            !pt_json_get_int(it, "measured_count", false, 0, big, name, path,
                             &s->measured_count, err) ||
            !get_num_or_null(it, "predicted_mean_ns", true, 0, inf, name, path,
                             &s->predicted_mean_ns, err) ||
            !get_num_or_null(it, "measured_mean_ns", true, 0, inf, name, path,
                             &s->measured_mean_ns, err) ||
            !get_num_or_null(it, "error_pct", true, -inf, inf, name, path, &s->error_pct, err) ||
            !get_num_or_null(it, "predicted_first_start_ns", false, -inf, inf, name, path,
                             &s->predicted_first_start_ns, err) ||
            !get_num_or_null(it, "measured_first_start_ns", false, -inf, inf, name, path,
                             &s->measured_first_start_ns, err) ||
            !get_num_or_null(it, "start_error_ns", false, -inf, inf, name, path,
                             &s->start_error_ns, err))
            return false;
        s->measured_min_ns = s->measured_max_ns = s->measured_stddev_ns = NAN;
        if (!get_num_or_null(it, "measured_min_ns", false, 0, inf, name, path,
                             &s->measured_min_ns, err) ||
            !get_num_or_null(it, "measured_max_ns", false, 0, inf, name, path,
                             &s->measured_max_ns, err) ||
            !get_num_or_null(it, "measured_stddev_ns", false, 0, inf, name, path,
                             &s->measured_stddev_ns, err))
            return false;
        s->stask = (int)id;
        a->n_stasks = ++i;
    }
    arr = pt_json_get_array(al, "lanes", true, name, P, &ok, err);
    if (!arr)
        return false;
    n = cJSON_GetArraySize(arr);
    if (n > tr->n_lanes)
        return pt_fail(err, "%s: $.alignment.lanes: has %d entries; expected at most %d (the "
                       "lanes)", name, n, tr->n_lanes);
    i = 0;
    cJSON_ArrayForEach(it, arr)
    {
        pt_align_lane *l = &a->lanes[i];
        int64_t id = 0;
        pt_path_idx(path, "$.alignment.lanes", i);
        if (!cJSON_IsObject(it))
            return pt_fail(err, "%s: %s: is %s; expected an object", name, path,
                           pt_json_type(it));
        if (!pt_json_check_keys(it, lkeys, name, path, err) ||
            !pt_json_get_int(it, "lane", true, 0, tr->n_lanes - 1, name, path, &id, err) ||
            !get_num_or_null(it, "predicted_busy_pct", true, 0, inf, name, path,
                             &l->predicted_busy_pct, err) ||
            !get_num_or_null(it, "measured_busy_pct", true, 0, inf, name, path,
                             &l->measured_busy_pct, err))
            return false;
        l->predicted_occupancy_pct = NAN;
        if (!get_num_or_null(it, "predicted_occupancy_pct", false, 0, inf, name, path,
                             &l->predicted_occupancy_pct, err) ||
            !get_flag(it, "measured_partial", name, path, &l->measured_partial, err))
            return false;
        l->lane = (int)id;
        a->n_lanes = ++i;
    }
    if (!get_flag(al, "partial", name, P, &a->partial, err))
        return false;
    a->present = true;
    return true;
}

bool pt_trace_load_text(pt_trace *tr, const char *name, const char *text, size_t len,
                        pt_error *err)
{
    memset(tr, 0, sizeof *tr);
    cJSON *root = pt_json_parse(name, text, len, err);
    if (!root)
        return false;
    bool ok = read_header(tr, root, name, err) && read_summary(tr, root, name, err) &&
              read_lanes(tr, root, name, err) && read_stasks(tr, root, name, err) &&
              read_predicted(tr, root, name, err);
    if (ok) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "measured");
        if (m && !cJSON_IsNull(m) && !cJSON_IsObject(m))
            ok = pt_fail(err, "%s: $.measured: is %s; expected null or an object", name,
                         pt_json_type(m));
        tr->has_measured = m && cJSON_IsObject(m);
        if (ok && tr->has_measured && tr->version >= 2)
            ok = read_measured(tr, m, name, err);
    }
    if (ok && tr->version >= 2) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, "alignment");
        if (a && !cJSON_IsNull(a) && !cJSON_IsObject(a))
            ok = pt_fail(err, "%s: $.alignment: is %s; expected null or an object", name,
                         pt_json_type(a));
        else if (a && cJSON_IsObject(a))
            ok = read_alignment(tr, a, name, err);
    }
    cJSON_Delete(root);
    if (!ok)
        pt_trace_free(tr);
    return ok;
}

bool pt_trace_load_file(pt_trace *tr, const char *path, pt_error *err)
{
    char *text = NULL;
    size_t len = 0;
    memset(tr, 0, sizeof *tr);
    if (!pt_read_file(path, &text, &len, err))
        return false;
    bool ok = pt_trace_load_text(tr, path, text, len, err);
    free(text);
    return ok;
}

bool pt_timeline_load_text(pt_timeline *tl, char lane_names[][PT_LANE_NAME_MAX], int *n_lanes,
                           const char *name, const char *text, size_t len, pt_error *err)
{
    pt_trace tr;
    if (!pt_trace_load_text(&tr, name, text, len, err))
        return false;
    *tl = tr.tl;
    tr.tl.spans = NULL;
    *n_lanes = tr.n_lanes;
    for (int L = 0; L < tr.n_lanes; L++)
        memcpy(lane_names[L], tr.lane_names[L], PT_LANE_NAME_MAX);
    pt_trace_free(&tr);
    return true;
}
