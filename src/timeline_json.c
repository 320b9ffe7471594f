/* timeline_json.c — write and read "pipethreader.trace" files (docs/FORMAT-trace.md).
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

/* ---- writing ----------------------------------------------------------------------- */

typedef struct {
    char *s;
    size_t n, cap;
    bool oom;
} strbuf;

static void sb_grow(strbuf *b, size_t extra)
{
    if (b->oom || b->n + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + extra + 1)
        cap *= 2;
    char *ns = realloc(b->s, cap);
    if (!ns) {
        b->oom = true;
        return;
    }
    b->s = ns;
    b->cap = cap;
}

static void sb_printf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (need < 0)
        return;
    sb_grow(b, (size_t)need);
    if (b->oom)
        return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
    va_end(ap);
    b->n += (size_t)need;
}

/* A JSON string literal (quotes, backslashes and control characters escaped). */
static void sb_string(strbuf *b, const char *s)
{
    sb_printf(b, "\"");
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            sb_printf(b, "\\%c", *c);
        else if (*c < 0x20)
            sb_printf(b, "\\u%04x", *c);
        else
            sb_printf(b, "%c", *c);
    }
    sb_printf(b, "\"");
}

/* Shortest of %.15g / %.17g that reads back to the same double; null if not finite. */
static void sb_number(strbuf *b, double v)
{
    if (!isfinite(v)) {
        sb_printf(b, "null");
        return;
    }
    char tmp[40];
    snprintf(tmp, sizeof tmp, "%.15g", v);
    if (strtod(tmp, NULL) != v)
        snprintf(tmp, sizeof tmp, "%.17g", v);
    sb_printf(b, "%s", tmp);
}

static void write_summary(strbuf *b, const pt_timeline *tl)
{
    sb_printf(b, "  \"summary\": {\"kernel_time_ns\": ");
    sb_number(b, tl->kernel_time_ns);
    sb_printf(b, ", \"eu_time_ns\": ");
    sb_number(b, tl->eu_time_ns);
    sb_printf(b, ", \"tflops\": ");
    sb_number(b, tl->tflops);
    sb_printf(b, ", \"flops\": ");
    sb_number(b, tl->flops);
    sb_printf(b, ",\n              \"tiles\": %lld, \"grid\": %lld, \"waves\": %lld, "
              "\"iterations\": %lld, \"dram_bytes\": ", (long long)tl->tiles,
              (long long)tl->grid, (long long)tl->waves, (long long)tl->eu_iterations);
    sb_number(b, tl->dram_bytes);
    sb_printf(b, ", \"dram_floor_ns\": ");
    sb_number(b, tl->dram_floor_ns);
    sb_printf(b, "},\n");
}

static void write_lanes(strbuf *b, const pt_timeline *tl, const pt_sprogram *p)
{
    sb_printf(b, "  \"lanes\": [");
    for (int L = 0; L < p->n_lanes && L < PT_MAX_LANES; L++) {
        const pt_lane *ln = &p->lanes[L];
        sb_printf(b, "%s\n    {\"name\": ", L ? "," : "");
        sb_string(b, ln->name);
        sb_printf(b, ", \"seu\": ");
        sb_string(b, pt_seu_name(ln->seu));
        sb_printf(b, ", \"role\": ");
        sb_string(b, ln->role >= 0 && ln->role < p->n_roles ? p->roles[ln->role].name : "");
        sb_printf(b, ", \"busy_ns\": ");
        sb_number(b, L < tl->n_lanes ? tl->lane_busy_ns[L] : 0);
        sb_printf(b, "}");
    }
    sb_printf(b, "\n  ],\n");
}

static void write_spans(strbuf *b, const pt_timeline *tl)
{
    sb_printf(b, "  \"predicted\": {\"spans\": [");
    for (int64_t k = 0; k < tl->n_spans && !b->oom; k++) {
        const pt_span *sp = &tl->spans[k];
        sb_printf(b, "%s\n    [%d, %d, %lld, ", k ? "," : "", sp->stask, sp->lane,
                  (long long)sp->iter);
        sb_number(b, sp->issue_ns);
        sb_printf(b, ", ");
        sb_number(b, sp->start_ns);
        sb_printf(b, ", ");
        sb_number(b, sp->end_ns);
        sb_printf(b, "]");
    }
    sb_printf(b, "\n  ]},\n");
}

char *pt_timeline_to_json(const pt_timeline *tl, const pt_sprogram *p, const pt_stask_graph *sg,
                          const pt_hw *hw)
{
    if (!tl || !p || !sg)
        return NULL;
    strbuf b = {0};
    sb_printf(&b, "{\n  \"format\": \"%s\",\n  \"version\": %d,\n  \"graph\": ", PT_TRACE_FORMAT,
              PT_TRACE_VERSION);
    sb_string(&b, sg->graph ? sg->graph->name : p->graph_name);
    sb_printf(&b, ",\n  \"hw\": ");
    sb_string(&b, hw ? hw->name : p->hw_name);
    sb_printf(&b, ",\n  \"build\": \"predicted\",\n");
    write_summary(&b, tl);
    write_lanes(&b, tl, p);
    sb_printf(&b, "  \"stasks\": [");
    for (int s = 0; s < sg->n; s++) {
        sb_printf(&b, "%s", s ? ", " : "");
        if (s % 8 == 0)
            sb_printf(&b, "\n    ");
        sb_string(&b, sg->tasks[s].id);
    }
    sb_printf(&b, "\n  ],\n");
    write_spans(&b, tl);
    sb_printf(&b, "  \"measured\": null\n}\n");
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

/* ---- reading ----------------------------------------------------------------------- */

void pt_trace_free(pt_trace *tr)
{
    if (!tr)
        return;
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
    static const char *const keys[] = {"format", "version", "graph", "hw", "build", "summary",
                                       "lanes", "stasks", "predicted", "measured", NULL};
    if (!cJSON_IsObject(root))
        return pt_fail(err, "%s: $: is %s; expected a trace object", name, pt_json_type(root));
    const char *fmt = NULL;
    int64_t version = 0;
    if (!pt_json_get_string(root, "format", true, name, "$", &fmt, err))
        return false;
    if (strcmp(fmt, PT_TRACE_FORMAT) != 0)
        return pt_fail(err, "%s: $.format: is \"%.64s\"; expected \"%s\"", name, fmt,
                       PT_TRACE_FORMAT);
    if (!pt_json_get_int(root, "version", true, 1, 1000000, name, "$", &version, err))
        return false;
    if (version != PT_TRACE_VERSION)
        return pt_fail(err, "%s: $.version: %lld is newer than this build reads; expected %d",
                       name, (long long)version, PT_TRACE_VERSION);
    if (!pt_json_check_keys(root, keys, name, "$", err))
        return false;
    strcpy(tr->build, "predicted");
    return get_label(root, "graph", name, tr->graph, sizeof tr->graph, err) &&
           get_label(root, "hw", name, tr->hw, sizeof tr->hw, err) &&
           pt_json_get_name(root, "build", false, name, "$", tr->build, sizeof tr->build, err);
}

static bool read_summary(pt_trace *tr, const cJSON *root, const char *name, pt_error *err)
{
    static const char *const keys[] = {"kernel_time_ns", "eu_time_ns", "tflops", "flops",
                                       "tiles", "grid", "waves", "iterations", "dram_bytes",
                                       "dram_floor_ns", NULL};
    bool ok;
    const cJSON *s = pt_json_get_object(root, "summary", true, name, "$", &ok, err);
    if (!s)
        return false;
    const char *P = "$.summary";
    pt_timeline *tl = &tr->tl;
    const int64_t big = (int64_t)1 << 53;
    return pt_json_check_keys(s, keys, name, P, err) &&
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
    static const char *const keys[] = {"name", "seu", "role", "busy_ns", NULL};
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
                                &tr->tl.lane_busy_ns[L], err))
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
    if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 6)
        return pt_fail(err, "%s: %s: is %s; expected [stask, lane, iter, issue_ns, start_ns, "
                       "end_ns]", name, path, pt_json_type(it));
    const cJSON *v[6] = {NULL};
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
