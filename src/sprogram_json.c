/* sprogram_json.c — reading and writing sProgram files (docs/FORMAT-sprogram.md).
 *
 * Saved schedules live in version control next to the kernels they produce, so the writer
 * emits a fixed key order with one lane entry and one Wait per line (a moved sTask is a
 * one-line diff), and the reader accepts exactly what the writer produces plus hand edits:
 * every value is type- and range-checked, unknown keys are refused, and each error is one
 * line naming the file, the JSON path and what was expected. Loading re-runs
 * sTask-partition with the file's tiling and resolves sTask ids against the result. */
#include "json_util.h"
#include "strbuf.h"
#include "sprogram.h"
#include "sprogram_params.h"
#include "splitk.h"
#include "streamk.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FORMAT_NAME "pipethreader.sprogram"
#define FORMAT_VERSION 1
#define MAX_OFFSET 8           /* Append's limit on |offset| */
#define MAX_DISTANCE 8         /* Wait's limit on distance */
#define MAX_STAGES 1024        /* far beyond any shared memory; validation says why */
#define MAX_ROLE_REGS 65536
#define MAX_ROLE_THREADS 1024
#define MAX_GROUP 4096

typedef struct {
    const char *file;
    const pt_graph *g;
    pt_stask_graph *sg;
    pt_sprogram *p;
    pt_error *err;
} loader;

static bool fail_at(const loader *L, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail_at(const loader *L, const char *path, const char *fmt, ...)
{
    char what[PT_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return pt_fail(L->err, "%s: %s: %s", L->file, path, what);
}

/* "a, b, c" into out, stopping (with ", ...") before it overflows. */
static void list_append(char *out, size_t cap, const char *item)
{
    size_t n = strlen(out);
    if (n + strlen(item) + 8 >= cap) {
        if (n + 6 < cap && !strstr(out, ", ..."))
            strcat(out, ", ...");
        return;
    }
    if (n)
        strcat(out, ", ");
    strcat(out, item);
}

/* ---- header, tiling, stages -------------------------------------------------------------- */

static bool load_header(const loader *L, const cJSON *root)
{
    const char *format = NULL;
    int64_t version = 0;
    char graph[PT_NAME_MAX] = "";
    if (!pt_json_get_string(root, "format", true, L->file, "$", &format, L->err))
        return false;
    if (strcmp(format, FORMAT_NAME) != 0)
        return fail_at(L, "$.format", "is \"%.64s\"; expected \"" FORMAT_NAME "\"", format);
    if (!pt_json_get_int(root, "version", true, 1, 1000000, L->file, "$", &version, L->err))
        return false;
    if (version != FORMAT_VERSION)
        return fail_at(L, "$.version", "version %lld is newer than this program reads; "
                                       "expected %d", (long long)version, FORMAT_VERSION);
    if (!pt_json_get_name(root, "graph", true, L->file, "$", graph, sizeof graph, L->err))
        return false;
    if (strcmp(graph, L->g->name) != 0)
        return fail_at(L, "$.graph", "the sProgram is for graph \"%s\" but the loaded graph is "
                                     "\"%s\"; expected the same graph", graph, L->g->name);
    return true;
}

/* "params": graph parameters the schedule was made for. The graph must have been loaded with
 * exactly these values (a caller applies them first: sprogram_params.h), since its sizes, and
 * so the sTasks and the kernel, depend on them. */
static bool load_params(const loader *L, const cJSON *root)
{
    pt_sprogram_param pp[PT_SPROGRAM_MAX_PARAMS];
    int n = 0;
    if (!pt_sprogram_params_parse(root, L->file, pp, &n, L->err))
        return false;
    for (int i = 0; i < n; i++) {
        char path[PT_PATH_MAX];
        pt_path_key(path, "$.params", pp[i].name);
        int k = pt_graph_find_param(L->g, pp[i].name);
        if (k < 0)
            return fail_at(L, path, "graph \"%s\" has no parameter %s; expected one of its "
                                    "$.params", L->g->name, pp[i].name);
        if (L->g->params[k].value != pp[i].value)
            return fail_at(L, path, "is %lld but graph \"%s\" was loaded with %s = %lld; expected "
                                    "the graph instantiated with the sProgram's parameters "
                                    "(--set %s=%lld, or leave %s out of --set)",
                           (long long)pp[i].value, L->g->name, pp[i].name,
                           (long long)L->g->params[k].value, pp[i].name, (long long)pp[i].value,
                           pp[i].name);
        L->p->params[i] = pp[i];
    }
    L->p->n_params = n;
    return true;
}

static bool load_tiling(const loader *L, const cJSON *root, pt_tiling *t)
{
    bool ok;
    memset(t, 0, sizeof *t);
    const cJSON *tile = pt_json_get_object(root, "tile", true, L->file, "$", &ok, L->err);
    if (!ok)
        return false;
    const cJSON *it;
    cJSON_ArrayForEach(it, tile)
    {
        int axis = it->string ? pt_graph_find_axis(L->g, it->string) : -1;
        if (axis < 0 || axis >= PT_MAX_AXES) {
            char axes[400] = "";
            for (int a = 0; a < L->g->n_axes && a < PT_MAX_AXES; a++)
                list_append(axes, sizeof axes, L->g->axes[a].name);
            return fail_at(L, "$.tile", "unknown axis \"%.64s\"; the graph's axes are: %s",
                           it->string ? it->string : "?", axes);
        }
        int64_t v = 0;
        if (!pt_json_get_int(tile, it->string, true, 1, PT_MAX_EXTENT, L->file, "$.tile", &v,
                             L->err))
            return false;
        t->tile[axis] = v;
    }
    int64_t wg = 0;
    if (!pt_json_get_int(root, "warpgroups", false, 1, PT_MAX_WARPGROUPS, L->file, "$", &wg,
                         L->err))
        return false;
    t->warpgroups = (int)wg;
    char axis[PT_NAME_MAX] = "";
    if (!pt_json_get_name(root, "wg_axis", false, L->file, "$", axis, sizeof axis, L->err))
        return false;
    if (axis[0]) {
        int a = pt_graph_find_axis(L->g, axis);
        if (a < 0)
            return fail_at(L, "$.wg_axis", "unknown axis \"%s\"; expected an output axis of %s",
                           axis, L->g->name);
        t->wg_axis = a + 1;
    }
    return pt_json_get_bool(root, "wg_stores", false, L->file, "$", &t->wg_stores, L->err);
}

static bool load_stages(const loader *L, const cJSON *root)
{
    bool ok;
    const cJSON *st = pt_json_get_object(root, "stages", false, L->file, "$", &ok, L->err);
    if (!ok)
        return false;
    if (!st)
        return true; /* keep the defaults of pt_sprogram_init */
    /* Present: it is the whole mapping, so a saved program reads back unchanged. */
    memset(L->p->stages, 0, sizeof L->p->stages);
    const cJSON *it;
    cJSON_ArrayForEach(it, st)
    {
        int t = it->string ? pt_graph_find_tensor(L->g, it->string) : -1;
        if (t < 0 || t >= PT_MAX_TENSORS) {
            char names[400] = "";
            for (int x = 0; x < L->g->n_tensors && x < PT_MAX_TENSORS; x++)
                list_append(names, sizeof names, L->g->tensors[x].name);
            return fail_at(L, "$.stages", "unknown tensor \"%.64s\"; the graph's tensors are: "
                                          "%s", it->string ? it->string : "?", names);
        }
        int64_t v = 0;
        if (!pt_json_get_int(st, it->string, true, 0, MAX_STAGES, L->file, "$.stages", &v,
                             L->err))
            return false;
        L->p->stages[t] = (int)v;
    }
    return true;
}

/* ---- roles ------------------------------------------------------------------------------- */

/* "wg3" -> 3; the producer and any other name -> -1. */
static int role_wg_from_name(const char *name)
{
    if (strncmp(name, "wg", 2) != 0 || name[2] < '0' || name[2] > '9')
        return -1;
    char *end = NULL;
    long v = strtol(name + 2, &end, 10);
    return *end == 0 && v < PT_MAX_ROLES ? (int)v : -1;
}

static bool load_role(const loader *L, const cJSON *o, const char *path, pt_role_def *r)
{
    static const char *const keys[] = {"name", "wg", "threads", "regs", NULL};
    if (!cJSON_IsObject(o))
        return fail_at(L, path, "is %s; expected an object {\"name\": ..., \"regs\": ...}",
                       pt_json_type(o));
    if (!pt_json_check_keys(o, keys, L->file, path, L->err))
        return false;
    memset(r, 0, sizeof *r);
    if (!pt_json_get_name(o, "name", true, L->file, path, r->name, sizeof r->name, L->err))
        return false;
    int64_t wg = role_wg_from_name(r->name), threads = 128, regs = 0;
    if (!pt_json_get_int(o, "wg", false, -1, PT_MAX_ROLES - 1, L->file, path, &wg, L->err) ||
        !pt_json_get_int(o, "threads", false, 1, MAX_ROLE_THREADS, L->file, path, &threads,
                         L->err) ||
        !pt_json_get_int(o, "regs", true, 0, MAX_ROLE_REGS, L->file, path, &regs, L->err))
        return false;
    r->wg = (int)wg;
    r->threads = (int)threads;
    r->regs = (int)regs;
    return true;
}

static bool load_roles(const loader *L, const cJSON *root)
{
    bool ok;
    const cJSON *arr = pt_json_get_array(root, "roles", false, L->file, "$", &ok, L->err);
    if (!ok)
        return false;
    if (!arr)
        return true; /* the defaults of pt_sprogram_init */
    int n = cJSON_GetArraySize(arr);
    if (n < 1 || n > PT_MAX_ROLES)
        return fail_at(L, "$.roles", "has %d roles; expected 1 to %d", n, PT_MAX_ROLES);
    pt_sprogram *p = L->p;
    p->n_roles = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        char path[PT_PATH_MAX];
        pt_path_idx(path, "$.roles", p->n_roles);
        pt_role_def r;
        if (!load_role(L, it, path, &r))
            return false;
        for (int k = 0; k < p->n_roles; k++)
            if (strcmp(p->roles[k].name, r.name) == 0)
                return fail_at(L, path, "role \"%s\" is defined twice; expected unique names",
                               r.name);
        p->roles[p->n_roles++] = r;
    }
    return true;
}

static int find_role(const pt_sprogram *p, const char *name)
{
    for (int r = 0; r < p->n_roles; r++)
        if (strcmp(p->roles[r].name, name) == 0)
            return r;
    return -1;
}

/* ---- partition --------------------------------------------------------------------------- */

static bool load_partition(const loader *L, const cJSON *root)
{
    static const char *const keys[] = {"raster", "group", "persistent", "order", "staging",
                                       "split_k", "split_k_reduce", "stream_k", "run",
                                       NULL};
    bool ok;
    const cJSON *o = pt_json_get_object(root, "partition", false, L->file, "$", &ok, L->err);
    if (!ok)
        return false;
    if (!o)
        return true;
    if (!pt_json_check_keys(o, keys, L->file, "$.partition", L->err))
        return false;
    pt_partition_spec *ps = &L->p->partition;
    const char *raster = NULL;
    int64_t group = ps->group;
    if (!pt_json_get_string(o, "raster", false, L->file, "$.partition", &raster, L->err))
        return false;
    if (raster && !pt_raster_parse(raster, &ps->raster))
        return fail_at(L, "$.partition.raster", "is \"%.64s\"; expected one of: row, column, "
                                                "grouped", raster);
    if (!pt_json_get_int(o, "group", false, 1, MAX_GROUP, L->file, "$.partition", &group,
                         L->err) ||
        !pt_json_get_bool(o, "persistent", false, L->file, "$.partition", &ps->persistent,
                          L->err))
        return false;
    ps->group = (int)group;
    /* absent: 1, no split (what every file before split-K means) */
    int64_t split_k = 1;
    if (!pt_json_get_int(o, "split_k", false, 1, PT_MAX_SPLIT_K, L->file, "$.partition",
                         &split_k, L->err))
        return false;
    ps->split_k = (int)split_k;
    /* absent: workspace (what every file before clusters means) */
    const char *reduce = NULL;
    if (!pt_json_get_string(o, "split_k_reduce", false, L->file, "$.partition", &reduce, L->err))
        return false;
    if (reduce && strcmp(reduce, "workspace") != 0 && strcmp(reduce, "cluster") != 0)
        return fail_at(L, "$.partition.split_k_reduce", "is \"%.64s\"; expected workspace or "
                                                        "cluster", reduce);
    ps->split_reduce = reduce && strcmp(reduce, "cluster") == 0 ? PT_SPLIT_REDUCE_CLUSTER
                                                                : PT_SPLIT_REDUCE_WORKSPACE;
    /* absent: 0, off; 1 would be one CTA doing everything */
    int64_t stream_k = 0;
    if (!pt_json_get_int(o, "stream_k", false, 0, PT_MAX_STREAM_K, L->file, "$.partition",
                         &stream_k, L->err))
        return false;
    if (stream_k == 1)
        return fail_at(L, "$.partition.stream_k", "is 1; expected 0 (off) or a grid of 2 to %d "
                                                  "CTAs", PT_MAX_STREAM_K);
    ps->stream_k = (int)stream_k;
    /* absent: 1, one launch position at a time */
    int64_t run = 1;
    if (!pt_json_get_int(o, "run", false, 1, PT_MAX_RUN, L->file, "$.partition", &run, L->err))
        return false;
    ps->run = (int)run;
    const char *order = NULL, *staging = NULL;
    if (!pt_json_get_string(o, "order", false, L->file, "$.partition", &order, L->err) ||
        !pt_json_get_string(o, "staging", false, L->file, "$.partition", &staging, L->err))
        return false;
    if (order && !pt_tile_order_parse(order, &ps->order))
        return fail_at(L, "$.partition.order", "is \"%.64s\"; expected one of: auto, raster, "
                                               "longest_first", order);
    if (staging && !pt_staging_parse(staging, &ps->staging))
        return fail_at(L, "$.partition.staging", "is \"%.64s\"; expected one of: auto, apart, "
                                                 "over_resident", staging);
    return true;
}

/* ---- lanes ------------------------------------------------------------------------------- */

static bool resolve_stask(const loader *L, const char *path, const char *id, int *out)
{
    int s = pt_stask_find(L->sg, id);
    if (s >= 0 && s < L->sg->n) {
        *out = s;
        return true;
    }
    char ids[400] = "";
    for (int k = 0; k < L->sg->n && k < 12; k++)
        list_append(ids, sizeof ids, L->sg->tasks[k].id);
    if (L->sg->n > 12)
        list_append(ids, sizeof ids, "...");
    return fail_at(L, path, "sTask \"%.64s\" is not in the sTask-graph; expected one of: %s", id,
                   ids[0] ? ids : "(none)");
}

/* One order entry: "load.A" or {"stask": "load.B", "offset": 1}. */
static bool load_entry(const loader *L, const cJSON *e, const char *path, int lane)
{
    static const char *const keys[] = {"stask", "offset", NULL};
    const char *id = NULL;
    int64_t offset = 0;
    char idpath[PT_PATH_MAX];
    snprintf(idpath, sizeof idpath, "%s", path);
    if (cJSON_IsString(e) && e->valuestring)
        id = e->valuestring;
    else if (cJSON_IsObject(e)) {
        if (!pt_json_check_keys(e, keys, L->file, path, L->err) ||
            !pt_json_get_string(e, "stask", true, L->file, path, &id, L->err) ||
            !pt_json_get_int(e, "offset", false, -MAX_OFFSET, MAX_OFFSET, L->file, path,
                             &offset, L->err))
            return false;
        pt_path_key(idpath, path, "stask");
    } else
        return fail_at(L, path, "is %s; expected an sTask id or {\"stask\": ..., \"offset\": "
                                "...}", pt_json_type(e));
    int s, other;
    if (!resolve_stask(L, idpath, id, &s))
        return false;
    if (pt_sprogram_placement(L->p, s, &other, NULL))
        return fail_at(L, idpath, "sTask \"%s\" is already placed on lane %s; expected each "
                                  "sTask once", id, L->p->lanes[other].name);
    pt_error e2;
    if (!pt_append(L->p, L->sg, s, lane, -1, (int)offset, &e2))
        return fail_at(L, path, "%s", e2.msg);
    return true;
}

static bool load_lane(const loader *L, const cJSON *o, const char *path)
{
    static const char *const keys[] = {"name", "seu", "role", "order", NULL};
    pt_sprogram *p = L->p;
    if (!cJSON_IsObject(o))
        return fail_at(L, path, "is %s; expected an object {\"name\": ..., \"seu\": ..., "
                                "\"role\": ..., \"order\": [...]}", pt_json_type(o));
    if (!pt_json_check_keys(o, keys, L->file, path, L->err))
        return false;
    pt_lane *ln = &p->lanes[p->n_lanes];
    memset(ln, 0, sizeof *ln);
    const char *seu = NULL, *role = NULL;
    if (!pt_json_get_name(o, "name", true, L->file, path, ln->name, sizeof ln->name, L->err) ||
        !pt_json_get_string(o, "seu", true, L->file, path, &seu, L->err) ||
        !pt_json_get_string(o, "role", true, L->file, path, &role, L->err))
        return false;
    if (pt_sprogram_find_lane(p, ln->name) >= 0)
        return fail_at(L, path, "lane \"%s\" is defined twice; expected unique names", ln->name);
    if (!pt_seu_parse(seu, &ln->seu))
        return fail_at(L, path, "sEU \"%.64s\" is unknown; expected one of: tma, tensor_core, "
                                "cuda_core", seu);
    ln->role = find_role(p, role);
    if (ln->role < 0) {
        char names[400] = "";
        for (int r = 0; r < p->n_roles; r++)
            list_append(names, sizeof names, p->roles[r].name);
        return fail_at(L, path, "role \"%.64s\" is not defined; expected one of: %s", role,
                       names);
    }
    int lane = p->n_lanes++;
    bool ok;
    const cJSON *order = pt_json_get_array(o, "order", true, L->file, path, &ok, L->err);
    if (!ok)
        return false;
    char opath[PT_PATH_MAX], epath[PT_PATH_MAX];
    pt_path_key(opath, path, "order");
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, order)
    {
        pt_path_idx(epath, opath, i++);
        if (!load_entry(L, e, epath, lane))
            return false;
    }
    return true;
}

static bool load_lanes(const loader *L, const cJSON *root)
{
    bool ok;
    const cJSON *arr = pt_json_get_array(root, "lanes", true, L->file, "$", &ok, L->err);
    if (!ok)
        return false;
    int n = cJSON_GetArraySize(arr);
    if (n > PT_MAX_LANES)
        return fail_at(L, "$.lanes", "has %d lanes; expected at most %d", n, PT_MAX_LANES);
    /* The file's lanes replace the defaults (which hold no entries yet). */
    for (int l = 0; l < L->p->n_lanes; l++)
        free(L->p->lanes[l].entries);
    memset(L->p->lanes, 0, sizeof L->p->lanes);
    L->p->n_lanes = 0;
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        char path[PT_PATH_MAX];
        pt_path_idx(path, "$.lanes", i++);
        if (!load_lane(L, it, path))
            return false;
    }
    return true;
}

/* ---- waits ------------------------------------------------------------------------------- */

static bool load_wait(const loader *L, const cJSON *o, const char *path)
{
    static const char *const keys[] = {"stask", "on", "distance", NULL};
    if (!cJSON_IsObject(o))
        return fail_at(L, path, "is %s; expected an object {\"stask\": ..., \"on\": ..., "
                                "\"distance\": ...}", pt_json_type(o));
    const char *id = NULL, *on_id = NULL;
    int64_t distance = 0;
    if (!pt_json_check_keys(o, keys, L->file, path, L->err) ||
        !pt_json_get_string(o, "stask", true, L->file, path, &id, L->err) ||
        !pt_json_get_string(o, "on", true, L->file, path, &on_id, L->err) ||
        !pt_json_get_int(o, "distance", false, 0, MAX_DISTANCE, L->file, path, &distance,
                         L->err))
        return false;
    char kpath[PT_PATH_MAX];
    int s, on;
    pt_path_key(kpath, path, "stask");
    if (!resolve_stask(L, kpath, id, &s))
        return false;
    pt_path_key(kpath, path, "on");
    if (!resolve_stask(L, kpath, on_id, &on))
        return false;
    int d = (int)distance;
    pt_error e2;
    if (!pt_wait(L->p, L->sg, s, &on, &d, 1, &e2))
        return fail_at(L, path, "%s", e2.msg);
    return true;
}

static bool load_waits(const loader *L, const cJSON *root)
{
    bool ok;
    const cJSON *arr = pt_json_get_array(root, "waits", false, L->file, "$", &ok, L->err);
    if (!ok || !arr)
        return ok;
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        char path[PT_PATH_MAX];
        pt_path_idx(path, "$.waits", i++);
        if (!load_wait(L, it, path))
            return false;
    }
    return true;
}

/* "decay": absent means "tile", what every file before the factored form means. */
static bool load_decay(const loader *L, const cJSON *root)
{
    const char *form = NULL;
    if (!pt_json_get_string(root, "decay", false, L->file, "$", &form, L->err))
        return false;
    if (form && !pt_decay_form_parse(form, &L->p->decay))
        return fail_at(L, "$.decay", "is \"%.64s\"; expected tile, factored or factored16", form);
    pt_decay_chain chain;
    pt_error e2 = {{0}};
    if (pt_decay_is_factored(L->p->decay) && !pt_decay_chain_find(L->g, &chain, &e2))
        return fail_at(L, "$.decay", "%s", e2.msg);
    return true;
}

/* "release": absent means "group", what every file before the choice means. */
static bool load_release(const loader *L, const cJSON *root)
{
    const char *form = NULL;
    if (!pt_json_get_string(root, "release", false, L->file, "$", &form, L->err))
        return false;
    if (form && !pt_release_form_parse(form, &L->p->release))
        return fail_at(L, "$.release", "is \"%.64s\"; expected group or fence", form);
    return true;
}

/* ---- load entry points ------------------------------------------------------------------- */

static bool load_root(loader *L, const cJSON *root, bool *partitioned)
{
    static const char *const keys[] = {"format", "version", "graph", "hw", "params", "tile",
                                       "warpgroups", "wg_axis", "wg_stores", "stages", "roles", "partition", "lanes",
                                       "waits", "decay", "release", NULL};
    if (!cJSON_IsObject(root))
        return fail_at(L, "$", "is %s; expected an sProgram object", pt_json_type(root));
    if (!pt_json_expect_kind(root, PT_FILE_SPROGRAM, L->file, L->err))
        return false;
    if (!pt_json_check_keys(root, keys, L->file, "$", L->err) || !load_header(L, root))
        return false;
    char hw[sizeof L->p->hw_name] = "";
    if (!pt_json_get_name(root, "hw", false, L->file, "$", hw, sizeof hw, L->err))
        return false;

    pt_tiling given, want;
    if (!load_tiling(L, root, &given))
        return false;
    /* Warpgroups not given: the graph's default; the program keeps "not given". */
    want = given;
    if (want.warpgroups <= 0)
        want.warpgroups = L->g->default_warpgroups > 0 ? L->g->default_warpgroups : 1;
    pt_error e2 = {{0}};
    if (!pt_partition(L->sg, L->g, &want, &e2))
        return fail_at(L, "$.tile", "%s", e2.msg);
    *partitioned = true;
    if (L->sg->n < 0 || (L->sg->n > 0 && !L->sg->tasks))
        return fail_at(L, "$.tile", "sTask-partition gave no sTasks");

    pt_sprogram_init(L->p, L->sg, NULL);
    L->p->tiling = given;
    snprintf(L->p->graph_name, sizeof L->p->graph_name, "%s", L->g->name);
    memcpy(L->p->hw_name, hw, sizeof hw);
    return load_decay(L, root) && load_release(L, root) && load_params(L, root) && load_stages(L, root) && load_roles(L, root) && load_partition(L, root) &&
           load_lanes(L, root) && load_waits(L, root);
}

bool pt_sprogram_load_text(pt_sprogram *p, pt_stask_graph *sg, const pt_graph *g,
                           const char *name, const char *text, size_t len, pt_error *err)
{
    if (!p || !sg)
        return pt_fail(err, "%s: no sProgram to load into", name ? name : "sProgram");
    memset(p, 0, sizeof *p);
    memset(sg, 0, sizeof *sg);
    if (!name)
        name = "sProgram";
    if (!g || !text)
        return pt_fail(err, "%s: no operator graph or text to load", name);
    if (len > PT_JSON_MAX_FILE)
        return pt_fail(err, "%s: larger than %u MiB; expected a smaller JSON file", name,
                       PT_JSON_MAX_FILE >> 20);
    /* The text comes with a length and need not end in a NUL (GUI buffers, fuzzers); the
     * JSON layer scans for one, so give it a terminated copy. */
    char *copy = malloc(len + 1);
    if (!copy)
        return pt_fail(err, "%s: out of memory", name);
    memcpy(copy, text, len);
    copy[len] = 0;
    cJSON *root = pt_json_parse(name, copy, len, err);
    free(copy);
    if (!root)
        return false;
    loader L = {.file = name, .g = g, .sg = sg, .p = p, .err = err};
    bool partitioned = false;
    bool ok = load_root(&L, root, &partitioned);
    cJSON_Delete(root);
    if (!ok) {
        pt_sprogram_free(p);
        if (partitioned)
            pt_stask_graph_free(sg);
        memset(sg, 0, sizeof *sg);
    }
    return ok;
}

bool pt_sprogram_load_file(pt_sprogram *p, pt_stask_graph *sg, const pt_graph *g,
                           const char *path, pt_error *err)
{
    char *text = NULL;
    size_t len = 0;
    if (p)
        memset(p, 0, sizeof *p);
    if (sg)
        memset(sg, 0, sizeof *sg);
    if (!path)
        return pt_fail(err, "sProgram: no file name");
    if (!pt_read_file(path, &text, &len, err))
        return false;
    bool ok = pt_sprogram_load_text(p, sg, g, path, text, len, err);
    free(text);
    return ok;
}

/* ---- writer ------------------------------------------------------------------------------ */

static const char *id_of(const pt_stask_graph *sg, int s)
{
    return sg && sg->tasks && s >= 0 && s < sg->n ? sg->tasks[s].id : NULL;
}

static int clamp_count(int n, int max)
{
    return n < 0 ? 0 : n > max ? max : n;
}

static void write_header(strbuf *b, const pt_sprogram *p, const pt_stask_graph *sg)
{
    const pt_graph *g = sg ? sg->graph : NULL;
    sb_printf(b, "{\n  \"format\": \"" FORMAT_NAME "\",\n  \"version\": %d,\n  \"graph\": ",
              FORMAT_VERSION);
    sb_json_string(b, p->graph_name[0] || !g ? p->graph_name : g->name);
    if (p->hw_name[0]) {
        sb_printf(b, ",\n  \"hw\": ");
        sb_json_string(b, p->hw_name);
    }
    /* written only when the schedule chose some: an older file has none */
    int np = clamp_count(p->n_params, PT_SPROGRAM_MAX_PARAMS);
    for (int i = 0; i < np; i++) {
        sb_printf(b, i ? ", " : ",\n  \"params\": {");
        sb_json_string(b, p->params[i].name);
        sb_printf(b, ": %lld%s", (long long)p->params[i].value, i + 1 == np ? "}" : "");
    }
    sb_printf(b, ",\n  \"tile\": {");
    int k = 0;
    for (int a = 0; g && a < g->n_axes && a < PT_MAX_AXES; a++)
        if (p->tiling.tile[a] > 0) {
            sb_printf(b, "%s", k++ ? ", " : "");
            sb_json_string(b, g->axes[a].name);
            sb_printf(b, ": %lld", (long long)p->tiling.tile[a]);
        }
    sb_printf(b, "}");
    if (p->tiling.warpgroups > 0)
        sb_printf(b, ",\n  \"warpgroups\": %d", p->tiling.warpgroups);
    if (p->tiling.wg_axis > 0 && g && p->tiling.wg_axis <= g->n_axes) {
        sb_printf(b, ",\n  \"wg_axis\": ");
        sb_json_string(b, g->axes[p->tiling.wg_axis - 1].name);
    }
    if (p->tiling.wg_stores)
        sb_printf(b, ",\n  \"wg_stores\": true");
    if (p->decay != PT_DECAY_TILE)
        sb_printf(b, ",\n  \"decay\": \"%s\"", pt_decay_form_name(p->decay));
    if (p->release != PT_RELEASE_GROUP)
        sb_printf(b, ",\n  \"release\": \"%s\"", pt_release_form_name(p->release));
    sb_printf(b, ",\n  \"stages\": {");
    k = 0;
    for (int t = 0; g && t < g->n_tensors && t < PT_MAX_TENSORS; t++)
        if (p->stages[t] > 0) {
            sb_printf(b, "%s", k++ ? ", " : "");
            sb_json_string(b, g->tensors[t].name);
            sb_printf(b, ": %d", p->stages[t]);
        }
    sb_printf(b, "}");
}

static void write_roles(strbuf *b, const pt_sprogram *p)
{
    int n = clamp_count(p->n_roles, PT_MAX_ROLES);
    sb_printf(b, ",\n  \"roles\": [");
    for (int r = 0; r < n; r++) {
        const pt_role_def *rd = &p->roles[r];
        sb_printf(b, "%s\n    {\"name\": ", r ? "," : "");
        sb_json_string(b, rd->name);
        if (rd->wg != role_wg_from_name(rd->name))
            sb_printf(b, ", \"wg\": %d", rd->wg);
        if (rd->threads != 128)
            sb_printf(b, ", \"threads\": %d", rd->threads);
        sb_printf(b, ", \"regs\": %d}", rd->regs);
    }
    sb_printf(b, "%s],\n  \"partition\": {\"raster\": \"%s\", \"group\": %d, \"persistent\": "
                 "%s", n ? "\n  " : "", pt_raster_name(p->partition.raster),
              p->partition.group, p->partition.persistent ? "true" : "false");
    /* written only when chosen: "auto" is what an older file means */
    if (p->partition.order != PT_ORDER_AUTO)
        sb_printf(b, ", \"order\": \"%s\"", pt_tile_order_name(p->partition.order));
    if (p->partition.staging != PT_STAGING_AUTO)
        sb_printf(b, ", \"staging\": \"%s\"", pt_staging_name(p->partition.staging));
    /* written only when split: a file without it means 1 */
    if (pt_sprogram_split_k(p) > 1)
        sb_printf(b, ", \"split_k\": %d", pt_sprogram_split_k(p));
    if (p->partition.split_reduce == PT_SPLIT_REDUCE_CLUSTER) /* written only when not the default */
        sb_puts(b, ", \"split_k_reduce\": \"cluster\"");
    if (p->partition.stream_k > 0) /* written only when on */
        sb_printf(b, ", \"stream_k\": %d", p->partition.stream_k);
    if (p->partition.run > 1) /* written only when > 1: a file without it means 1 */
        sb_printf(b, ", \"run\": %d", p->partition.run);
    sb_puts(b, "}");
}

static void write_lanes(strbuf *b, const pt_sprogram *p, const pt_stask_graph *sg)
{
    int n = clamp_count(p->n_lanes, PT_MAX_LANES);
    sb_printf(b, ",\n  \"lanes\": [");
    for (int l = 0; l < n; l++) {
        const pt_lane *ln = &p->lanes[l];
        int role = ln->role;
        sb_printf(b, "%s\n    {\"name\": ", l ? "," : "");
        sb_json_string(b, ln->name);
        sb_printf(b, ", \"seu\": \"%s\", \"role\": ",
                  (unsigned)ln->seu < PT_SEU_COUNT ? pt_seu_name(ln->seu) : "?");
        sb_json_string(b, role >= 0 && role < clamp_count(p->n_roles, PT_MAX_ROLES) ? p->roles[role].name
                                                                          : "");
        sb_printf(b, ", \"order\": [");
        int k = 0;
        for (int i = 0; ln->entries && i < ln->n; i++) {
            const char *id = id_of(sg, ln->entries[i].stask);
            if (!id)
                continue;
            sb_printf(b, "%s\n      ", k++ ? "," : "");
            if (ln->entries[i].offset == 0)
                sb_json_string(b, id);
            else {
                sb_printf(b, "{\"stask\": ");
                sb_json_string(b, id);
                sb_printf(b, ", \"offset\": %d}", ln->entries[i].offset);
            }
        }
        sb_printf(b, "%s]}", k ? "\n    " : "");
    }
    sb_printf(b, "%s]", n ? "\n  " : "");
}

static void write_waits(strbuf *b, const pt_sprogram *p, const pt_stask_graph *sg)
{
    sb_printf(b, ",\n  \"waits\": [");
    int k = 0;
    for (int i = 0; p->waits && i < p->n_waits; i++) {
        const char *id = id_of(sg, p->waits[i].stask), *on = id_of(sg, p->waits[i].on);
        if (!id || !on)
            continue;
        sb_printf(b, "%s\n    {\"stask\": ", k++ ? "," : "");
        sb_json_string(b, id);
        sb_printf(b, ", \"on\": ");
        sb_json_string(b, on);
        sb_printf(b, ", \"distance\": %d}", p->waits[i].distance);
    }
    sb_printf(b, "%s]\n}\n", k ? "\n  " : "");
}

char *pt_sprogram_to_json(const pt_sprogram *p, const pt_stask_graph *sg)
{
    if (!p)
        return NULL;
    strbuf b = {0};
    write_header(&b, p, sg);
    write_roles(&b, p);
    write_lanes(&b, p, sg);
    write_waits(&b, p, sg);
    return sb_take(&b); /* NULL when out of memory */
}
