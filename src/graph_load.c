/* graph_load.c — reads an operator graph from JSON (docs/FORMATS.md §1) and checks it.
 *
 * Everything a later stage relies on is checked here, once: names resolve, sizes evaluate
 * to positive extents whose products fit, every op has the inputs and axes its kind needs,
 * and ops are listed in dependency order (so the graph is acyclic by construction). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "graph.h"
#include "json_util.h"
#include "staging.h"

typedef struct {
    pt_graph *g;
    const char *file;
    pt_error *err;
} loader;

static bool is_identifier(const char *s)
{
    if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
        return false;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return false;
    return true;
}

/* Graph and op names label things (file names, kernel names, messages) rather than being
 * referred to inside expressions: they may also hold '.' and '-' ("gemm-f16.v2"). Nothing
 * else: no quotes, slashes, spaces or control bytes, so that a name can never break out of a
 * string, comment or identifier in generated code (codegen maps it to an identifier too). */
static bool is_label(const char *s)
{
    if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
        return false;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '.' || *s == '-'))
            return false;
    return true;
}

/* A label at key `key` of obj (optional unless required), copied into out[PT_NAME_MAX]. */
static bool get_label(loader *L, const cJSON *obj, const char *key, bool required,
                      const char *path, char *out)
{
    char tmp[PT_NAME_MAX] = "";
    if (!pt_json_get_name(obj, key, required, L->file, path, tmp, sizeof tmp, L->err))
        return false;
    if (!tmp[0])
        return true; /* absent and optional */
    if (!is_label(tmp)) {
        char shown[PT_NAME_MAX];
        size_t n = 0;
        for (const char *c = tmp; *c && n + 1 < sizeof shown; c++)
            shown[n++] = (unsigned char)*c < 0x20 || *c == 0x7f ? '?' : *c;
        shown[n] = 0;
        return pt_fail(L->err, "%s: %s.%s: \"%s\" is not a valid name; expected 1 to %d "
                       "letters, digits, '_', '.' or '-', starting with a letter or '_'",
                       L->file, path, key, shown, PT_NAME_MAX - 1);
    }
    memcpy(out, tmp, sizeof tmp);
    return true;
}

static bool check_name(loader *L, const char *path, const char *name, const char *what)
{
    if (!is_identifier(name))
        return pt_fail(L->err, "%s: %s: \"%.40s\" is not a valid %s name; expected letters, "
                               "digits and '_', starting with a letter", L->file, path, name ? name : "", what);
    if (strlen(name) >= PT_NAME_MAX)
        return pt_fail(L->err, "%s: %s: name is longer than %d characters", L->file, path,
                       PT_NAME_MAX - 1);
    return true;
}

/* ---- params and overrides ---- */

/* One parameter: a whole number, true/false (a flag: 0 or 1), or {"value": N, "min": A,
 * "max": B} when only some values make sense (CAUSAL is 0 or 1; a head dimension has bounds). */
static bool load_param(loader *L, const cJSON *params, const cJSON *it, const char *path,
                       pt_param *p)
{
    p->min = -PT_PARAM_LIMIT;
    p->max = PT_PARAM_LIMIT;
    if (cJSON_IsBool(it)) {
        p->flag = true;
        p->min = 0;
        p->max = 1;
        p->value = cJSON_IsTrue(it);
        return true;
    }
    if (!cJSON_IsObject(it))
        return pt_json_get_int(params, it->string, true, -PT_PARAM_LIMIT, PT_PARAM_LIMIT, L->file,
                               "$.params", &p->value, L->err);
    static const char *const keys[] = {"value", "min", "max", "description", NULL};
    const char *desc = NULL;
    if (!pt_json_check_keys(it, keys, L->file, path, L->err) ||
        !pt_json_get_int(it, "value", true, -PT_PARAM_LIMIT, PT_PARAM_LIMIT, L->file, path,
                         &p->value, L->err) ||
        !pt_json_get_int(it, "min", false, -PT_PARAM_LIMIT, PT_PARAM_LIMIT, L->file, path,
                         &p->min, L->err) ||
        !pt_json_get_int(it, "max", false, -PT_PARAM_LIMIT, PT_PARAM_LIMIT, L->file, path,
                         &p->max, L->err) ||
        !pt_json_get_string(it, "description", false, L->file, path, &desc, L->err))
        return false;
    if (p->min > p->max)
        return pt_fail(L->err, "%s: %s: min %lld is above max %lld; expected min <= max",
                       L->file, path, (long long)p->min, (long long)p->max);
    return true;
}

static bool load_params(loader *L, const cJSON *root)
{
    bool ok;
    const cJSON *params = pt_json_get_object(root, "params", false, L->file, "$", &ok, L->err);
    if (!ok)
        return false;
    if (!params)
        return true;
    const cJSON *it;
    cJSON_ArrayForEach(it, params)
    {
        char path[PT_PATH_MAX];
        pt_path_key(path, "$.params", it->string);
        if (L->g->n_params >= PT_MAX_PARAMS)
            return pt_fail(L->err, "%s: %s: too many parameters; expected at most %d", L->file,
                           path, PT_MAX_PARAMS);
        if (!check_name(L, path, it->string, "parameter"))
            return false;
        if (pt_graph_find_param(L->g, it->string) >= 0)
            return pt_fail(L->err, "%s: %s: parameter defined twice", L->file, path);
        pt_param *p = &L->g->params[L->g->n_params];
        memset(p, 0, sizeof *p);
        if (!load_param(L, params, it, path, p))
            return false;
        snprintf(p->name, sizeof p->name, "%s", it->string);
        L->g->n_params++;
    }
    return true;
}

/* Every parameter within its declared range, once --set has been applied; `set` says which
 * were overridden so that the message names the option rather than the file. */
static bool check_param_ranges(loader *L, const bool *set)
{
    for (int i = 0; i < L->g->n_params; i++) {
        const pt_param *p = &L->g->params[i];
        if (p->value >= p->min && p->value <= p->max)
            continue;
        char range[80];
        if (p->flag || (p->min == 0 && p->max == 1))
            snprintf(range, sizeof range, "0 or 1 (a flag)");
        else
            snprintf(range, sizeof range, "%lld to %lld", (long long)p->min, (long long)p->max);
        if (set[i])
            return pt_fail(L->err, "--set: %s=%lld is out of range; expected %s (%s: "
                           "$.params.%s)", p->name, (long long)p->value, range, L->file, p->name);
        return pt_fail(L->err, "%s: $.params.%s: %lld is out of range; expected %s", L->file,
                       p->name, (long long)p->value, range);
    }
    return true;
}

static bool apply_overrides(loader *L, const char *overrides)
{
    bool set[PT_MAX_PARAMS] = {false};
    if (!overrides || !*overrides)
        return check_param_ranges(L, set);
    const char *s = overrides;
    while (*s) {
        const char *comma = strchr(s, ',');
        size_t n = comma ? (size_t)(comma - s) : strlen(s);
        char item[128];
        if (n >= sizeof item)
            return pt_fail(L->err, "--set: \"%.40s...\" is too long; expected NAME=VALUE of at "
                           "most %zu characters", s, sizeof item - 1);
        memcpy(item, s, n);
        item[n] = 0;
        char *eq = strchr(item, '=');
        if (!eq)
            return pt_fail(L->err, "--set: \"%s\": expected NAME=VALUE", item);
        *eq = 0;
        int p = pt_graph_find_param(L->g, item);
        if (p < 0)
            return pt_fail(L->err, "--set: %s has no parameter \"%s\" in $.params", L->file, item);
        char *end;
        long long v = strtoll(eq + 1, &end, 10);
        if (end == eq + 1 || *end || v < 0 || v > ((long long)1 << 40))
            return pt_fail(L->err, "--set: %s=\"%s\": expected a whole number from 0 to 2^40",
                           item, eq + 1);
        L->g->params[p].value = v;
        set[p] = true;
        s += n;
        if (*s == ',')
            s++;
    }
    return check_param_ranges(L, set);
}

/* ---- axes ---- */

static bool eval_size(loader *L, const cJSON *v, const char *path, int64_t *out)
{
    if (cJSON_IsNumber(v)) {
        double d = v->valuedouble;
        if (!(d >= 1 && d <= (double)PT_MAX_EXTENT) || d != (double)(int64_t)d)
            return pt_fail(L->err, "%s: %s: %g is not a valid size; expected a whole number "
                                   "from 1 to %lld", L->file, path, d, (long long)PT_MAX_EXTENT);
        *out = (int64_t)d;
        return true;
    }
    if (!cJSON_IsString(v))
        return pt_fail(L->err, "%s: %s: is %s; expected a size (a number or an expression "
                               "over params such as \"S/256\")", L->file, path, pt_json_type(v));
    char why[160];
    int64_t x;
    if (!pt_expr_eval(v->valuestring, L->g, &x, why, sizeof why))
        return pt_fail(L->err, "%s: %s: size \"%.60s\": %s", L->file, path, v->valuestring, why);
    if (x < 1 || x > PT_MAX_EXTENT)
        return pt_fail(L->err, "%s: %s: size \"%.60s\" is %lld; expected 1 to %lld", L->file,
                       path, v->valuestring, (long long)x, (long long)PT_MAX_EXTENT);
    *out = x;
    return true;
}

/* Do `pieces` pieces of ceil(total / pieces) each hold an element of a sequence of `total`? */
static bool pieces_fill(int64_t total, int64_t pieces)
{
    return pieces >= 1 && (pieces - 1) * ((total + pieces - 1) / pieces) < total;
}

/* "split": {"of": SIZE, "by": AXIS}: the axis is a piece of a sequence of SIZE elements cut
 * into as many pieces as AXIS (defined before it) counts, each ceil(SIZE / pieces) long but the
 * last (graph.h). Every piece must hold an element: the last one starts before the end. With
 * "length": LEN the pieces are LEN long, and AXIS must count cdiv(SIZE, LEN) of them. */
static bool load_axis_split(loader *L, pt_axis *a, const cJSON *split, const char *path)
{
    char sp[PT_PATH_MAX], op[PT_PATH_MAX];
    pt_path_key(sp, path, "split");
    if (!cJSON_IsObject(split))
        return pt_fail(L->err, "%s: %s: is %s; expected an object {\"of\": a size, \"by\": an "
                               "axis}", L->file, sp, pt_json_type(split));
    static const char *const keys[] = {"of", "by", "length", NULL};
    if (!pt_json_check_keys(split, keys, L->file, sp, L->err))
        return false;
    const cJSON *of = cJSON_GetObjectItemCaseSensitive(split, "of");
    const cJSON *by = cJSON_GetObjectItemCaseSensitive(split, "by");
    if (!of || !by)
        return pt_fail(L->err, "%s: %s: missing \"%s\"; expected {\"of\": a size, \"by\": an "
                               "axis}", L->file, sp, of ? "by" : "of");
    pt_path_key(op, sp, "of");
    if (!eval_size(L, of, op, &a->split_total))
        return false;
    pt_path_key(op, sp, "by");
    if (!cJSON_IsString(by))
        return pt_fail(L->err, "%s: %s: is %s; expected the name of an axis defined before "
                               "this one", L->file, op, pt_json_type(by));
    a->split_by = pt_graph_find_axis(L->g, by->valuestring);
    if (a->split_by < 0)
        return pt_fail(L->err, "%s: %s: axis \"%.40s\" is not defined before this one in "
                               "$.axes", L->file, op, by->valuestring);
    const pt_axis *b = &L->g->axes[a->split_by];
    if (b->split_total > 0)
        return pt_fail(L->err, "%s: %s: axis \"%s\" is itself a piece axis; expected the axis "
                               "counting the pieces", L->file, op, b->name);
    int64_t pieces = b->extent, total = a->split_total;
    a->extent = (total + pieces - 1) / pieces;
    const cJSON *length = cJSON_GetObjectItemCaseSensitive(split, "length");
    if (length) { /* pieces of a given length (Mamba2's chunks), the count cdiv(of, length) */
        pt_path_key(op, sp, "length");
        if (!eval_size(L, length, op, &a->extent))
            return false;
        int64_t want = (total + a->extent - 1) / a->extent;
        if (pieces != want)
            return pt_fail(L->err, "%s: %s: pieces of %lld cover %lld in %lld; axis \"%s\" counts "
                                   "%lld (expected cdiv(%lld, %lld))", L->file, sp,
                           (long long)a->extent, (long long)total, (long long)want, b->name,
                           (long long)pieces, (long long)total, (long long)a->extent);
        return true;
    }
    if (pieces > total)
        return pt_fail(L->err, "%s: %s: %lld cut into %lld pieces (axis \"%s\") leaves pieces "
                               "empty; expected at most %lld pieces", L->file, sp,
                       (long long)total, (long long)pieces, b->name, (long long)total);
    if (!pieces_fill(total, pieces)) {
        int64_t lo = pieces - 1, hi = pieces + 1;
        while (!pieces_fill(total, lo))
            lo--; /* 1 always fills */
        while (hi <= total && !pieces_fill(total, hi))
            hi++;
        return pt_fail(L->err, "%s: %s: %lld cut into %lld pieces (axis \"%s\") of %lld leaves "
                               "the last piece empty; expected a count whose last piece holds "
                               "elements (%lld or %lld here)", L->file, sp, (long long)total,
                       (long long)pieces, b->name, (long long)a->extent, (long long)lo,
                       (long long)hi);
    }
    return true;
}

static bool load_axes(loader *L, const cJSON *root)
{
    bool ok;
    const cJSON *axes = pt_json_get_object(root, "axes", true, L->file, "$", &ok, L->err);
    if (!axes)
        return false;
    const cJSON *it;
    cJSON_ArrayForEach(it, axes)
    {
        char path[PT_PATH_MAX];
        pt_path_key(path, "$.axes", it->string);
        if (L->g->n_axes >= PT_MAX_AXES)
            return pt_fail(L->err, "%s: %s: too many axes; expected at most %d", L->file, path,
                           PT_MAX_AXES);
        if (!check_name(L, path, it->string, "axis"))
            return false;
        if (pt_graph_find_axis(L->g, it->string) >= 0)
            return pt_fail(L->err, "%s: %s: axis defined twice", L->file, path);
        pt_axis *a = &L->g->axes[L->g->n_axes];
        snprintf(a->name, sizeof a->name, "%s", it->string);
        a->split_by = -1;
        const cJSON *size = it;
        if (cJSON_IsObject(it)) {
            static const char *const keys[] = {"size", "batch", "split", NULL};
            if (!pt_json_check_keys(it, keys, L->file, path, L->err) ||
                !pt_json_get_bool(it, "batch", false, L->file, path, &a->batch, L->err))
                return false;
            size = cJSON_GetObjectItemCaseSensitive(it, "size");
            const cJSON *split = cJSON_GetObjectItemCaseSensitive(it, "split");
            if (split && size)
                return pt_fail(L->err, "%s: %s: has both \"size\" and \"split\"; a piece axis "
                                       "takes its size from the split", L->file, path);
            if (split) {
                if (!load_axis_split(L, a, split, path))
                    return false;
            } else if (!size) {
                return pt_fail(L->err, "%s: %s: missing \"size\"; expected a number or an "
                                       "expression", L->file, path);
            } else {
                char sp[PT_PATH_MAX];
                pt_path_key(sp, path, "size");
                if (!eval_size(L, size, sp, &a->extent))
                    return false;
            }
        } else if (!eval_size(L, size, path, &a->extent))
            return false;
        L->g->n_axes++;
    }
    if (L->g->n_axes == 0)
        return pt_fail(L->err, "%s: $.axes: is empty; expected at least one axis", L->file);
    return true;
}

/* ---- tensors ---- */

static bool resolve_axis(loader *L, const cJSON *v, const char *path, int *out)
{
    if (!cJSON_IsString(v))
        return pt_fail(L->err, "%s: %s: is %s; expected an axis name", L->file, path,
                       pt_json_type(v));
    int a = pt_graph_find_axis(L->g, v->valuestring);
    if (a < 0)
        return pt_fail(L->err, "%s: %s: axis \"%.40s\" is not defined in $.axes", L->file, path,
                       v->valuestring);
    *out = a;
    return true;
}

static bool resolve_tensor(loader *L, const char *name, const char *path, int *out)
{
    int t = pt_graph_find_tensor(L->g, name);
    if (t < 0)
        return pt_fail(L->err, "%s: %s: tensor \"%.40s\" is not defined in $.tensors", L->file,
                       path, name);
    *out = t;
    return true;
}

static bool load_tensor_axes(loader *L, const cJSON *def, const char *path, pt_tensor *t)
{
    bool ok;
    const cJSON *axes = pt_json_get_array(def, "axes", true, L->file, path, &ok, L->err);
    if (!axes)
        return false;
    char ap[PT_PATH_MAX];
    pt_path_key(ap, path, "axes");
    int n = cJSON_GetArraySize(axes);
    if (n < 1 || n > PT_MAX_RANK)
        return pt_fail(L->err, "%s: %s: has %d axes; expected 1 to %d", L->file, ap, n,
                       PT_MAX_RANK);
    int64_t elems = 1;
    for (int i = 0; i < n; i++) {
        char ip[PT_PATH_MAX];
        pt_path_idx(ip, ap, i);
        if (!resolve_axis(L, cJSON_GetArrayItem(axes, i), ip, &t->axes[i]))
            return false;
        for (int j = 0; j < i; j++)
            if (t->axes[j] == t->axes[i])
                return pt_fail(L->err, "%s: %s: axis \"%s\" appears twice in one tensor",
                               L->file, ip, L->g->axes[t->axes[i]].name);
        /* Checked: 2^46 elements times an extent of up to 2^31 does not fit in int64, and a
         * wrapped product (0 for 2^15 x 2^31 x 2^31) would pass the limit below. */
        if (__builtin_mul_overflow(elems, L->g->axes[t->axes[i]].extent, &elems) ||
            elems > PT_MAX_ELEMS)
            return pt_fail(L->err, "%s: %s: the tensor has more than 2^46 elements; expected "
                                   "a smaller size", L->file, ap);
    }
    t->rank = n;
    return true;
}

/* The scales tensor has the quantised tensor's axes, except that the grouped axis is
 * replaced by one of extent/group (one scale per group). Where that axis is the scales'
 * innermost, it may instead be padded to whole 16-byte rows (K = 11008 in groups of 128: 86
 * scales stored in rows of 88), as the weights' owner writes them once, so that TMA maps them
 * as they lie rather than through a staging copy every launch (staging.h). */
static bool check_scales_shape(loader *L, const pt_tensor *t, const char *path)
{
    const pt_tensor *s = &L->g->tensors[t->scales];
    if (s == t || s->rank != t->rank || pt_dtype_is_4bit(s->dtype))
        return pt_fail(L->err, "%s: %s: scales \"%s\" must be a 8-bit-or-wider tensor of rank %d",
                       L->file, path, s->name, t->rank);
    for (int i = 0; i < t->rank; i++) {
        int64_t want = L->g->axes[t->axes[i]].extent, padded = 0;
        if (t->axes[i] == t->group_axis) {
            want /= t->group_size;
            int per = PT_STAGING_ALIGN * 8 / pt_dtype_bits(s->dtype); /* scales in 16 bytes */
            if (i == s->rank - 1 && per > 1)
                padded = (want + per - 1) / per * per;
        } else if (s->axes[i] != t->axes[i]) {
            return pt_fail(L->err, "%s: %s: axis %d of scales \"%s\" must be \"%s\"", L->file,
                           path, i, s->name, L->g->axes[t->axes[i]].name);
        }
        int64_t ext = L->g->axes[s->axes[i]].extent;
        if (ext != want && ext != padded) {
            if (padded > want)
                return pt_fail(L->err, "%s: %s: axis %d of scales \"%s\" has size %lld; expected "
                               "%lld (one scale per group of %lld) or %lld (rows padded to 16 "
                               "bytes)", L->file, path, i, s->name, (long long)ext,
                               (long long)want, (long long)t->group_size, (long long)padded);
            return pt_fail(L->err, "%s: %s: axis %d of scales \"%s\" has size %lld; expected %lld",
                           L->file, path, i, s->name, (long long)ext, (long long)want);
        }
    }
    return true;
}

/* "packing": the nibble order of a 4-bit tensor (packing.h); "fragments" re-orders blocks of a
 * rank-2 tensor's rows and innermost axis. */
static bool load_packing(loader *L, pt_tensor *t, const char *path, const char *name)
{
    char pp[PT_PATH_MAX];
    pt_path_key(pp, path, "packing");
    if (!pt_packing_parse(name, &t->packing))
        return pt_fail(L->err, "%s: %s: \"%.20s\" is not a packing; expected \"rows\" or "
                               "\"fragments\"", L->file, pp, name);
    if (t->packing == PT_PACK_ROWS)
        return true;
    if (!pt_dtype_is_4bit(t->dtype))
        return pt_fail(L->err, "%s: %s: the tensor is %s; only 4-bit tensors (int4, fp4-e2m1) have "
                               "a packing", L->file, pp, pt_dtype_name(t->dtype));
    if (t->rank != 2)
        return pt_fail(L->err, "%s: %s: \"fragments\" needs a rank-2 tensor [rows, k]; this one "
                               "has rank %d", L->file, pp, t->rank);
    char what[PT_PATH_MAX + 64];
    snprintf(what, sizeof what, "%s: %s", L->file, pp);
    return pt_packing_fits(t->packing, L->g->axes[t->axes[0]].extent,
                           L->g->axes[t->axes[1]].extent, what, L->err);
}

static bool check_view(loader *L, pt_tensor *t, const char *path)
{
    char vp[PT_PATH_MAX];
    pt_path_key(vp, path, "view_of");
    const pt_tensor *base = &L->g->tensors[t->view_of];
    if (base == t || base->view_of >= 0)
        return pt_fail(L->err, "%s: %s: a view must refer to a tensor that is not itself "
               "a view", L->file, vp);
    if (base->rank != t->rank || base->dtype != t->dtype)
        return pt_fail(L->err, "%s: %s: view of \"%s\" must have its rank (%d) and dtype "
               "(%s)", L->file, vp, base->name, base->rank,
               pt_dtype_name(base->dtype));
    if (base->packing != PT_PACK_ROWS || t->packing != PT_PACK_ROWS)
        return pt_fail(L->err, "%s: %s: \"%s\" is packed as \"%s\"; a view re-indexes rows-packed "
               "tensors only", L->file, vp, base->name, pt_packing_name(base->packing));
    for (int i = 0; i < t->rank; i++)
        if (L->g->axes[base->axes[i]].extent != L->g->axes[t->axes[i]].extent)
            return pt_fail(L->err, "%s: %s: axis %d of the view (\"%s\") and of \"%s\" "
                   "differ in size", L->file, vp, i,
                   L->g->axes[t->axes[i]].name, base->name);
    t->role = base->role;
    return true;
}

/* A tensor over a ragged piece axis (graph.h). An input or output stores the sequence: it holds
 * the axis counting the pieces just before it; or an input says "whole_pieces" and stores
 * every piece whole (mamba_ssm's per-chunk dt and dA), padded past the sequence's end. An
 * intermediate is never stored (it keeps whole pieces). Every tensor over it also holds the
 * axis counting the pieces, which tells an element's piece. 4-bit tensors over it are not
 * supported (their packings index whole extents), nor views but of whole pieces. */
static bool check_ragged(loader *L, pt_tensor *t, const char *path)
{
    if (t->view_of >= 0) /* a view has its base's storage */
        t->whole_pieces |= L->g->tensors[t->view_of].whole_pieces;
    bool any = false;
    for (int i = 0; i < t->rank; i++) {
        int a = t->axes[i];
        any |= L->g->axes[a].split_total > 0;
        if (!pt_axis_ragged(L->g, a))
            continue;
        const pt_axis *x = &L->g->axes[a], *by = &L->g->axes[x->split_by];
        char why[160];
        snprintf(why, sizeof why, "axis \"%s\" is %lld cut into %lld pieces (\"%s\"), the last "
                 "shorter", x->name, (long long)x->split_total, (long long)by->extent, by->name);
        /* a view reads its base's storage with its own axes: whole pieces alike (Mamba2's dA_s
         * of dA_l), not a stored sequence */
        bool view_ok = t->view_of < 0 || L->g->tensors[t->view_of].whole_pieces;
        if (!view_ok || pt_dtype_is_4bit(t->dtype))
            return pt_fail(L->err, "%s: %s: %s; 4-bit tensors, and views other than of an input "
                                   "stored as whole pieces, may not hold it", L->file, path, why);
        if (!pt_tensor_has_axis(t, x->split_by))
            return pt_fail(L->err, "%s: %s: %s; a tensor holding it must also hold \"%s\", "
                                   "which tells the piece", L->file, path, why, by->name);
        if (t->whole_pieces && t->role != PT_ROLE_INPUT)
            return pt_fail(L->err, "%s: %s.whole_pieces: only an input stores whole pieces; an "
                                   "output stores the sequence", L->file, path);
        bool pair = i > 0 && t->axes[i - 1] == x->split_by;
        if (t->role != PT_ROLE_INTERMEDIATE && !t->whole_pieces && !pair)
            return pt_fail(L->err, "%s: %s: %s; %s holding it must hold \"%s\" just before it "
                                   "(the pair stores the sequence)%s", L->file, path, why,
                           t->role == PT_ROLE_INPUT ? "an input" : "an output", by->name,
                           t->role == PT_ROLE_INPUT ? ", or say \"whole_pieces\": true" : "");
    }
    if (t->whole_pieces && !any)
        return pt_fail(L->err, "%s: %s.whole_pieces: the tensor holds no piece axis (an axis "
                               "with \"split\")", L->file, path);
    return true;
}

static bool load_tensors(loader *L, const cJSON *root)
{
    bool ok;
    const cJSON *tensors = pt_json_get_object(root, "tensors", true, L->file, "$", &ok, L->err);
    if (!tensors)
        return false;
    const cJSON *it;
    /* First pass: names, so that "view_of" and "scales" may refer forward. */
    cJSON_ArrayForEach(it, tensors)
    {
        char path[PT_PATH_MAX];
        pt_path_key(path, "$.tensors", it->string);
        if (L->g->n_tensors >= PT_MAX_TENSORS)
            return pt_fail(L->err, "%s: %s: too many tensors; expected at most %d", L->file,
                           path, PT_MAX_TENSORS);
        if (!check_name(L, path, it->string, "tensor"))
            return false;
        if (pt_graph_find_tensor(L->g, it->string) >= 0)
            return pt_fail(L->err, "%s: %s: tensor defined twice", L->file, path);
        if (!cJSON_IsObject(it))
            return pt_fail(L->err, "%s: %s: is %s; expected an object with \"axes\", \"dtype\" "
                                   "and \"role\"", L->file, path, pt_json_type(it));
        pt_tensor *t = &L->g->tensors[L->g->n_tensors++];
        snprintf(t->name, sizeof t->name, "%s", it->string);
        t->view_of = t->scales = t->group_axis = -1;
    }
    int idx = 0;
    cJSON_ArrayForEach(it, tensors)
    {
        pt_tensor *t = &L->g->tensors[idx++];
        char path[PT_PATH_MAX];
        pt_path_key(path, "$.tensors", it->string);
        static const char *const keys[] = {"axes", "dtype", "role", "view_of", "scales",
                                           "packing", "whole_pieces", "description", NULL};
        if (!pt_json_check_keys(it, keys, L->file, path, L->err) ||
            !load_tensor_axes(L, it, path, t) ||
            !pt_json_get_bool(it, "whole_pieces", false, L->file, path, &t->whole_pieces, L->err))
            return false;
        const char *dt = NULL, *role = "intermediate", *view = NULL, *packing = NULL;
        if (!pt_json_get_string(it, "dtype", true, L->file, path, &dt, L->err) ||
            !pt_json_get_string(it, "role", false, L->file, path, &role, L->err) ||
            !pt_json_get_string(it, "view_of", false, L->file, path, &view, L->err) ||
            !pt_json_get_string(it, "packing", false, L->file, path, &packing, L->err))
            return false;
        if (!pt_dtype_parse(dt, &t->dtype))
            return pt_fail(L->err, "%s: %s.dtype: \"%.20s\" is not a dtype; expected one of: %s",
                           L->file, path, dt, pt_dtype_names());
        if (strcmp(role, "input") == 0)
            t->role = PT_ROLE_INPUT;
        else if (strcmp(role, "output") == 0)
            t->role = PT_ROLE_OUTPUT;
        else if (strcmp(role, "intermediate") == 0)
            t->role = PT_ROLE_INTERMEDIATE;
        else
            return pt_fail(L->err, "%s: %s.role: \"%.20s\" is not a role; expected input, "
                                   "output or intermediate", L->file, path, role);
        if (view) {
            char vp[PT_PATH_MAX];
            pt_path_key(vp, path, "view_of");
            if (!resolve_tensor(L, view, vp, &t->view_of))
                return false;
        }
        if (packing && !load_packing(L, t, path, packing))
            return false;
        const cJSON *sc = cJSON_GetObjectItemCaseSensitive(it, "scales");
        if (sc) {
            char sp[PT_PATH_MAX];
            pt_path_key(sp, path, "scales");
            static const char *const skeys[] = {"tensor", "axis", "group", NULL};
            const char *stn = NULL;
            int64_t group = 0;
            if (!cJSON_IsObject(sc))
                return pt_fail(L->err, "%s: %s: is %s; expected {\"tensor\", \"axis\", \"group\"}",
                               L->file, sp, pt_json_type(sc));
            char gp[PT_PATH_MAX];
            pt_path_key(gp, sp, "group");
            const cJSON *gv = cJSON_GetObjectItemCaseSensitive(sc, "group");
            if (!pt_json_check_keys(sc, skeys, L->file, sp, L->err) ||
                !pt_json_get_string(sc, "tensor", true, L->file, sp, &stn, L->err))
                return false;
            if (!gv)
                return pt_fail(L->err, "%s: %s: missing; expected the group length (a number or "
                                       "an expression over params such as \"G\")", L->file, gp);
            if (!eval_size(L, gv, gp, &group))  /* a number, or a param such as "G" */
                return false;
            char tp[PT_PATH_MAX], ap[PT_PATH_MAX];
            pt_path_key(tp, sp, "tensor");
            pt_path_key(ap, sp, "axis");
            if (!resolve_tensor(L, stn, tp, &t->scales) ||
                !resolve_axis(L, cJSON_GetObjectItemCaseSensitive(sc, "axis"), ap, &t->group_axis))
                return false;
            if (!pt_tensor_has_axis(t, t->group_axis))
                return pt_fail(L->err, "%s: %s: the tensor has no axis \"%s\"", L->file, ap,
                               L->g->axes[t->group_axis].name);
            if (L->g->axes[t->group_axis].extent % group != 0)
                return pt_fail(L->err, "%s: %s.group: %lld does not divide axis \"%s\" (%lld)",
                               L->file, sp, (long long)group, L->g->axes[t->group_axis].name,
                               (long long)L->g->axes[t->group_axis].extent);
            t->group_size = group;
        } else if (pt_dtype_is_4bit(t->dtype) && t->view_of < 0)
            return pt_fail(L->err, "%s: %s: a %s tensor needs \"scales\": {\"tensor\", \"axis\", "
                                   "\"group\"}", L->file, path, pt_dtype_name(t->dtype));
    }
    if (L->g->n_tensors == 0)
        return pt_fail(L->err, "%s: $.tensors: is empty; expected at least one tensor", L->file);
    /* Checks that look at another tensor's axes run once all are read. */
    for (int i = 0; i < L->g->n_tensors; i++) {
        pt_tensor *t = &L->g->tensors[i];
        char path[PT_PATH_MAX];
        pt_path_key(path, "$.tensors", t->name);
        if (t->view_of >= 0 && !check_view(L, t, path))
            return false;
        if (t->scales >= 0 && !check_scales_shape(L, t, path))
            return false;
        if (!check_ragged(L, t, path))
            return false;
    }
    return true;
}

/* ---- ops ---- */

/* "m k, k n -> m n": operand axis lists (space separated) split by ',' and '->'. */
static bool parse_spec(loader *L, const char *spec, const char *path, pt_op *op)
{
    const char *arrow = strstr(spec, "->");
    if (!arrow)
        return pt_fail(L->err, "%s: %s: \"%.60s\" has no \"->\"; expected an einsum-style spec "
                               "like \"m k, k n -> m n\"", L->file, path, spec);
    char buf[256];
    if (strlen(spec) >= sizeof buf)
        return pt_fail(L->err, "%s: %s: spec is %zu characters long; expected at most %zu",
                       L->file, path, strlen(spec), sizeof buf - 1);
    snprintf(buf, sizeof buf, "%s", spec);
    buf[arrow - spec] = 0;
    char *parts[3] = {buf, NULL, buf + (arrow - spec) + 2};
    char *comma = strchr(buf, ',');
    if (!comma || strchr(comma + 1, ','))
        return pt_fail(L->err, "%s: %s: \"%.60s\" must name exactly two operands before \"->\"",
                       L->file, path, spec);
    *comma = 0;
    parts[1] = comma + 1;
    for (int k = 0; k < 3; k++) {
        int n = 0;
        char *save = NULL;
        for (char *tok = strtok_r(parts[k], " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
            if (n >= PT_MAX_RANK)
                return pt_fail(L->err, "%s: %s: operand %d has more than %d axes", L->file, path,
                               k, PT_MAX_RANK);
            int a = pt_graph_find_axis(L->g, tok);
            if (a < 0)
                return pt_fail(L->err, "%s: %s: axis \"%.40s\" is not defined in $.axes",
                               L->file, path, tok);
            op->spec_axes[k][n++] = a;
        }
        if (n == 0)
            return pt_fail(L->err, "%s: %s: operand %d of \"%.60s\" has no axes", L->file, path,
                           k, spec);
        op->spec_rank[k] = n;
    }
    return true;
}

static bool same_axis_set(const int *a, int na, const pt_tensor *t)
{
    if (na != t->rank)
        return false;
    for (int i = 0; i < na; i++)
        if (!pt_tensor_has_axis(t, a[i]))
            return false;
    return true;
}

static bool has(const int *a, int n, int x)
{
    for (int i = 0; i < n; i++)
        if (a[i] == x)
            return true;
    return false;
}

static bool check_matmul(loader *L, const cJSON *def, const char *path, pt_op *op)
{
    const char *spec = NULL, *acc = "f32";
    char sp[PT_PATH_MAX];
    pt_path_key(sp, path, "spec");
    if (!pt_json_get_string(def, "spec", true, L->file, path, &spec, L->err) ||
        !parse_spec(L, spec, sp, op) ||
        !pt_json_get_string(def, "acc", false, L->file, path, &acc, L->err))
        return false;
    if (!pt_dtype_parse(acc, &op->acc) || (op->acc != PT_F32 && op->acc != PT_F16))
        return pt_fail(L->err, "%s: %s.acc: \"%.20s\"; expected f32 or f16", L->file, path, acc);
    const int ts[3] = {op->in[0], op->in[1], op->out};
    for (int k = 0; k < 3; k++) {
        const pt_tensor *t = &L->g->tensors[ts[k]];
        if (!same_axis_set(op->spec_axes[k], op->spec_rank[k], t))
            return pt_fail(L->err, "%s: %s: operand %d of the spec does not list the axes of "
                                   "tensor \"%s\"; expected a permutation of its %d axes",
                           L->file, sp, k, t->name, t->rank);
    }
    /* Contracted axes: in both inputs, not in the output. Every output axis comes from an
     * input; an axis of one input alone that is not in the output is no matmul. */
    op->n_reduce = 0;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < op->spec_rank[k]; i++) {
            int a = op->spec_axes[k][i];
            if (has(op->spec_axes[2], op->spec_rank[2], a))
                continue;
            if (!has(op->spec_axes[1 - k], op->spec_rank[1 - k], a))
                return pt_fail(L->err, "%s: %s: axis \"%s\" of operand %d is neither in the other "
                                       "operand nor in the output", L->file, sp,
                               L->g->axes[a].name, k);
            if (k == 0)
                op->reduce_axes[op->n_reduce++] = a;
        }
    for (int i = 0; i < op->spec_rank[2]; i++) {
        int a = op->spec_axes[2][i];
        if (!has(op->spec_axes[0], op->spec_rank[0], a) &&
            !has(op->spec_axes[1], op->spec_rank[1], a))
            return pt_fail(L->err, "%s: %s: output axis \"%s\" is in no input", L->file, sp,
                           L->g->axes[a].name);
    }
    if (op->n_reduce == 0)
        return pt_fail(L->err, "%s: %s: no axis is contracted; expected an axis shared by both "
                               "operands and absent from the output", L->file, sp);
    return true;
}

static bool get_axis_key(loader *L, const cJSON *def, const char *key, bool required,
                         const char *path, int *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(def, key);
    if (!v) {
        if (required)
            return pt_fail(L->err, "%s: %s: missing \"%s\"; expected an axis name", L->file,
                           path, key);
        return true;
    }
    char kp[PT_PATH_MAX];
    pt_path_key(kp, path, key);
    return resolve_axis(L, v, kp, out);
}

static bool axes_subset(const pt_tensor *a, const pt_tensor *b)
{
    for (int i = 0; i < a->rank; i++)
        if (!pt_tensor_has_axis(b, a->axes[i]))
            return false;
    return true;
}

/* online_softmax may also write the rows' log-sum-exp (split-KV attention needs it). */
static bool check_lse(loader *L, const cJSON *def, const char *path, pt_op *op)
{
    const char *name = NULL;
    if (!pt_json_get_string(def, "lse", false, L->file, path, &name, L->err))
        return false;
    if (!name)
        return true;
    char lp[PT_PATH_MAX];
    pt_path_key(lp, path, "lse");
    if (!resolve_tensor(L, name, lp, &op->lse))
        return false;
    const pt_tensor *in = &L->g->tensors[op->in[0]], *lse = &L->g->tensors[op->lse];
    if (lse->role == PT_ROLE_INPUT || lse->view_of >= 0 || op->lse == op->out ||
        pt_graph_producer(L->g, op->lse) >= 0)
        return pt_fail(L->err, "%s: %s: tensor \"%s\" cannot be written here (an input, a view, "
                               "or already written)", L->file, lp, lse->name);
    if (lse->rank != in->rank - 1 || pt_tensor_has_axis(lse, op->axis) || !axes_subset(lse, in))
        return pt_fail(L->err, "%s: %s: \"%s\" must have the axes of \"%s\" without \"%s\"",
                       L->file, lp, lse->name, in->name, L->g->axes[op->axis].name);
    return true;
}

/* A flag is true/false or the name of a parameter (non-zero = true), so that it can be
 * switched from the command line with --set. */
static bool get_flag(loader *L, const cJSON *def, const char *key, const char *path, bool *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(def, key);
    if (!v || cJSON_IsBool(v))
        return pt_json_get_bool(def, key, false, L->file, path, out, L->err);
    if (!cJSON_IsString(v))
        return pt_fail(L->err, "%s: %s.%s: is %s; expected true, false or a parameter name",
                       L->file, path, key, pt_json_type(v));
    int p = pt_graph_find_param(L->g, v->valuestring);
    if (p < 0)
        return pt_fail(L->err, "%s: %s.%s: parameter \"%.40s\" is not defined in $.params",
                       L->file, path, key, v->valuestring);
    /* A flag is 0 or 1: CAUSAL=2 used to pass as "true", hiding a typo or a wrong variable. */
    int64_t x = L->g->params[p].value;
    if (x != 0 && x != 1)
        return pt_fail(L->err, "%s: %s.%s: parameter \"%s\" is %lld; expected 0 or 1 (a flag)",
                       L->file, path, key, L->g->params[p].name, (long long)x);
    *out = x != 0;
    return true;
}

static bool check_op_kind(loader *L, const cJSON *def, const char *path, pt_op *op)
{
    const pt_graph *g = L->g;
    const pt_tensor *out = &g->tensors[op->out];
    const pt_tensor *in0 = op->n_in > 0 ? &g->tensors[op->in[0]] : NULL;
    int want_in = 1;
    if (op->kind == PT_OP_MATMUL || pt_op_is_binary(op->kind))
        want_in = 2;
    else if (op->kind == PT_OP_FILL)
        want_in = 0;
    if (op->kind == PT_OP_EXP_DECAY && op->n_in == 2)
        want_in = 2;
    if (op->n_in != want_in)
        return pt_fail(L->err, "%s: %s.in: has %d tensors; %s takes %d", L->file, path, op->n_in,
                       pt_op_kind_name(op->kind), want_in);
    op->axis = op->row_axis = op->col_axis = -1;
    op->scale = 1.0;
    if (!pt_json_get_number(def, "scale", false, -1e30, 1e30, L->file, path, &op->scale, L->err) ||
        !get_flag(L, def, "causal", path, &op->causal))
        return false;
    switch (op->kind) {
    case PT_OP_MATMUL:
        return check_matmul(L, def, path, op);
    case PT_OP_REDUCE_MAX:
    case PT_OP_REDUCE_SUM:
        if (!get_axis_key(L, def, "axis", true, path, &op->axis))
            return false;
        if (!pt_tensor_has_axis(in0, op->axis) || pt_tensor_has_axis(out, op->axis) ||
            out->rank != in0->rank - 1 || !axes_subset(out, in0))
            return pt_fail(L->err, "%s: %s.axis: the output \"%s\" must have the axes of \"%s\" "
                                   "without \"%s\"", L->file, path, out->name, in0->name,
                           g->axes[op->axis].name);
        op->n_reduce = 1;
        op->reduce_axes[0] = op->axis;
        return true;
    case PT_OP_ONLINE_SOFTMAX:
    case PT_OP_CUMSUM:
        if (!get_axis_key(L, def, "axis", true, path, &op->axis))
            return false;
        if (!pt_tensor_has_axis(in0, op->axis) || out->rank != in0->rank || !axes_subset(out, in0))
            return pt_fail(L->err, "%s: %s: input and output must have the same axes, "
                                   "including \"%s\"", L->file, path, g->axes[op->axis].name);
        if (op->kind == PT_OP_ONLINE_SOFTMAX && !check_lse(L, def, path, op))
            return false;
        if (op->kind == PT_OP_ONLINE_SOFTMAX && op->causal) {
            if (!get_axis_key(L, def, "rows", true, path, &op->row_axis))
                return false;
            op->col_axis = op->axis;
            if (op->row_axis == op->axis || !pt_tensor_has_axis(in0, op->row_axis))
                return pt_fail(L->err, "%s: %s.rows: expected an axis of \"%s\" other than the "
                                       "softmax axis", L->file, path, in0->name);
        }
        return true;
    case PT_OP_EXP_DECAY:
        op->causal = true;
        if (!get_flag(L, def, "causal", path, &op->causal) ||
            !get_axis_key(L, def, "rows", true, path, &op->row_axis) ||
            !get_axis_key(L, def, "cols", true, path, &op->col_axis))
            return false;
        if (!pt_tensor_has_axis(out, op->row_axis) || !pt_tensor_has_axis(out, op->col_axis) ||
            op->row_axis == op->col_axis)
            return pt_fail(L->err, "%s: %s: the output \"%s\" must have both the \"rows\" and "
                                   "the \"cols\" axis", L->file, path, out->name);
        for (int i = 0; i < op->n_in; i++)
            if (!axes_subset(&g->tensors[op->in[i]], out))
                return pt_fail(L->err, "%s: %s.in[%d]: every axis of \"%s\" must be an axis of "
                                       "the output", L->file, path, i, g->tensors[op->in[i]].name);
        return true;
    case PT_OP_DEQUANTIZE:
        if (!pt_dtype_is_4bit(in0->dtype) || in0->scales < 0)
            return pt_fail(L->err, "%s: %s.in[0]: \"%s\" is %s; dequantize expects a 4-bit tensor "
                                   "(int4, fp4-e2m1) with \"scales\"", L->file, path, in0->name,
                           pt_dtype_name(in0->dtype));
        if (out->dtype != PT_F16 && out->dtype != PT_BF16)
            return pt_fail(L->err, "%s: %s.out: \"%s\" is %s; dequantize produces f16 or bf16",
                           L->file, path, out->name, pt_dtype_name(out->dtype));
        if (out->rank != in0->rank || !axes_subset(out, in0))
            return pt_fail(L->err, "%s: %s: input and output must have the same axes", L->file,
                           path);
        return true;
    case PT_OP_FILL:
        if (!pt_json_get_number(def, "value", false, -1e30, 1e30, L->file, path, &op->scale,
                                L->err))
            return false;
        return true;
    default: /* unary and binary elementwise, copy */
        for (int i = 0; i < op->n_in; i++)
            if (!axes_subset(&g->tensors[op->in[i]], out))
                return pt_fail(L->err, "%s: %s.in[%d]: every axis of \"%s\" must be an axis of "
                                       "the output \"%s\" (inputs broadcast, never reduce)",
                               L->file, path, i, g->tensors[op->in[i]].name, out->name);
        return true;
    }
}

static bool load_op(loader *L, const cJSON *def, int index)
{
    pt_graph *g = L->g;
    pt_op *op = &g->ops[index];
    char path[PT_PATH_MAX];
    pt_path_idx(path, "$.ops", index);
    if (!cJSON_IsObject(def))
        return pt_fail(L->err, "%s: %s: is %s; expected an object with \"op\", \"in\" and \"out\"",
                       L->file, path, pt_json_type(def));
    static const char *const keys[] = {"name", "op", "in", "out", "spec", "acc", "axis", "scale",
                                       "causal", "rows", "cols", "value", "lse", "description",
                                       NULL};
    op->lse = -1;
    const char *kind = NULL, *outname = NULL;
    if (!pt_json_check_keys(def, keys, L->file, path, L->err) ||
        !get_label(L, def, "name", false, path, op->name) ||
        !pt_json_get_string(def, "op", true, L->file, path, &kind, L->err) ||
        !pt_json_get_string(def, "out", true, L->file, path, &outname, L->err))
        return false;
    if (!pt_op_kind_parse(kind, &op->kind))
        return pt_fail(L->err, "%s: %s.op: \"%.30s\" is not an op; expected one of: %s", L->file,
                       path, kind, pt_op_kind_names());
    if (!op->name[0])
        snprintf(op->name, sizeof op->name, "%s%d", pt_op_kind_name(op->kind), index);
    char op_path[PT_PATH_MAX];
    pt_path_key(op_path, path, "out");
    if (!resolve_tensor(L, outname, op_path, &op->out))
        return false;
    pt_tensor *out = &g->tensors[op->out];
    if (out->role == PT_ROLE_INPUT || out->view_of >= 0)
        return pt_fail(L->err, "%s: %s: tensor \"%s\" is %s; an op cannot write it", L->file,
                       op_path, out->name, out->view_of >= 0 ? "a view" : "a graph input");
    int prev = pt_graph_producer(g, op->out); /* only earlier ops are loaded yet */
    if (prev >= 0)
        return pt_fail(L->err, "%s: %s: tensor \"%s\" is already written by $.ops[%d]; each "
                               "tensor has one producer", L->file, op_path, out->name, prev);
    bool ok;
    const cJSON *in = pt_json_get_array(def, "in", op->kind != PT_OP_FILL, L->file, path, &ok,
                                        L->err);
    if (!ok)
        return false;
    int n = in ? cJSON_GetArraySize(in) : 0;
    if (n > PT_MAX_OP_IN)
        return pt_fail(L->err, "%s: %s.in: has %d tensors; expected at most %d", L->file, path, n,
                       PT_MAX_OP_IN);
    op->n_in = n;
    for (int i = 0; i < n; i++) {
        char ip[PT_PATH_MAX], inp[PT_PATH_MAX];
        pt_path_key(inp, path, "in");
        pt_path_idx(ip, inp, i);
        const cJSON *v = cJSON_GetArrayItem(in, i);
        if (!cJSON_IsString(v))
            return pt_fail(L->err, "%s: %s: is %s; expected a tensor name", L->file, ip,
                           pt_json_type(v));
        if (!resolve_tensor(L, v->valuestring, ip, &op->in[i]))
            return false;
        const pt_tensor *t = &g->tensors[op->in[i]];
        int base = t->view_of >= 0 ? t->view_of : op->in[i];
        if (base == op->out)
            return pt_fail(L->err, "%s: %s: op reads its own output \"%s\"", L->file, ip, t->name);
        if (g->tensors[base].role != PT_ROLE_INPUT) {
            if (pt_graph_producer(g, base) < 0)
                return pt_fail(L->err, "%s: %s: tensor \"%s\" is not a graph input and no earlier "
                                       "op writes it; ops must be listed in dependency order",
                               L->file, ip, t->name);
        }
    }
    return check_op_kind(L, def, path, op);
}

/* An op over a ragged piece axis must be able to tell its missing elements (graph.h): a
 * softmax over it or a matmul contracting it keeps the axis counting the pieces in its output
 * (the element's piece is known there); a reduction, cumsum or decay over it is refused. */
static bool check_op_ragged(loader *L, int i)
{
    const pt_graph *g = L->g;
    const pt_op *op = &g->ops[i];
    char path[PT_PATH_MAX];
    pt_path_idx(path, "$.ops", i);
    int over[PT_MAX_RANK + 1], n = 0;
    if (op->kind == PT_OP_MATMUL)
        for (int k = 0; k < op->n_reduce; k++)
            over[n++] = op->reduce_axes[k];
    else if (op->axis >= 0)
        over[n++] = op->axis;
    for (int k = 0; k < n; k++) {
        int a = over[k];
        if (!pt_axis_ragged(g, a))
            continue;
        const pt_axis *x = &g->axes[a];
        if (op->kind != PT_OP_MATMUL && op->kind != PT_OP_ONLINE_SOFTMAX)
            return pt_fail(L->err, "%s: %s: op \"%s\" runs over \"%s\", whose last piece is "
                                   "shorter; only matmul and online_softmax leave out its missing "
                                   "elements", L->file, path, op->name, x->name);
        if (!pt_tensor_has_axis(&g->tensors[op->out], x->split_by))
            return pt_fail(L->err, "%s: %s: op \"%s\" runs over \"%s\", whose last piece is "
                                   "shorter; expected its output to keep \"%s\", which tells "
                                   "the piece", L->file, path, op->name, x->name,
                           g->axes[x->split_by].name);
    }
    return true;
}

static bool load_ops(loader *L, const cJSON *root)
{
    bool ok;
    const cJSON *ops = pt_json_get_array(root, "ops", true, L->file, "$", &ok, L->err);
    if (!ops)
        return false;
    int n = cJSON_GetArraySize(ops);
    if (n < 1 || n > PT_MAX_OPS)
        return pt_fail(L->err, "%s: $.ops: has %d ops; expected 1 to %d", L->file, n, PT_MAX_OPS);
    for (int i = 0; i < n; i++) {
        if (!load_op(L, cJSON_GetArrayItem(ops, i), i) || !check_op_ragged(L, i))
            return false;
        L->g->n_ops = i + 1;
    }
    for (int t = 0; t < L->g->n_tensors; t++) {
        const pt_tensor *x = &L->g->tensors[t];
        if (x->role != PT_ROLE_INPUT && x->view_of < 0 && pt_graph_producer(L->g, t) < 0)
            return pt_fail(L->err, "%s: $.tensors.%s: is %s but no op writes it", L->file, x->name,
                           pt_role_name(x->role));
    }
    return true;
}

/* ---- defaults ---- */

static bool load_defaults(loader *L, const cJSON *root)
{
    bool ok;
    const cJSON *d = pt_json_get_object(root, "defaults", false, L->file, "$", &ok, L->err);
    if (!ok)
        return false;
    if (!d)
        return true;
    static const char *const keys[] = {"tile", "warpgroups", "stages", NULL};
    int64_t wg = 0, st = 0;
    if (!pt_json_check_keys(d, keys, L->file, "$.defaults", L->err) ||
        !pt_json_get_int(d, "warpgroups", false, 1, PT_MAX_WARPGROUPS, L->file, "$.defaults", &wg,
                         L->err) ||
        !pt_json_get_int(d, "stages", false, 1, 16, L->file, "$.defaults", &st, L->err))
        return false;
    L->g->default_warpgroups = (int)wg;
    L->g->default_stages = (int)st;
    const cJSON *tile = pt_json_get_object(d, "tile", false, L->file, "$.defaults", &ok, L->err);
    if (!ok)
        return false;
    const cJSON *it;
    cJSON_ArrayForEach(it, tile)
    {
        char tp[PT_PATH_MAX];
        pt_path_key(tp, "$.defaults.tile", it->string);
        int a = it->string ? pt_graph_find_axis(L->g, it->string) : -1;
        if (a < 0)
            return pt_fail(L->err, "%s: %s: \"%.40s\" is not an axis in $.axes", L->file, tp,
                           it->string ? it->string : "");
        int64_t v;
        if (!pt_json_get_int(tile, it->string, true, 1, PT_MAX_TILE, L->file, "$.defaults.tile", &v,
                             L->err))
            return false;
        L->g->default_tile[a] = v;
    }
    return true;
}

/* ---- split ---- */

/* "split": {"param": P, "combine": NAME, "unsplit": NAME1}: P a parameter of this graph (the
 * scheduler chooses its value), NAME the graph that combines the pieces, NAME1 (optional) the
 * graph that does the whole in one kernel; both loaded only when the scheduler needs them. */
static bool load_split(loader *L, const cJSON *root)
{
    bool ok;
    const cJSON *s = pt_json_get_object(root, "split", false, L->file, "$", &ok, L->err);
    if (!ok)
        return false;
    if (!s)
        return true;
    static const char *const keys[] = {"param", "combine", "unsplit", NULL};
    if (!pt_json_check_keys(s, keys, L->file, "$.split", L->err) ||
        !get_label(L, s, "param", true, "$.split", L->g->split_param) ||
        !get_label(L, s, "combine", true, "$.split", L->g->split_combine) ||
        !get_label(L, s, "unsplit", false, "$.split", L->g->split_unsplit))
        return false;
    if (pt_graph_find_param(L->g, L->g->split_param) < 0)
        return pt_fail(L->err, "%s: $.split.param: \"%s\" is not a parameter in $.params; expected "
                       "the parameter that counts the pieces (e.g. \"SPLITS\")", L->file,
                       L->g->split_param);
    return true;
}

static bool load_root(loader *L, const cJSON *root, const char *overrides)
{
    if (!cJSON_IsObject(root))
        return pt_fail(L->err, "%s: $: is %s; expected a JSON object (an operator graph)",
                       L->file, pt_json_type(root));
    if (!pt_json_expect_kind(root, PT_FILE_GRAPH, L->file, L->err))
        return false;
    static const char *const keys[] = {"format", "version", "name", "description", "params",
                                       "axes", "tensors", "ops", "defaults", "split", NULL};
    const char *format = NULL, *desc = NULL;
    int64_t version = 1;
    if (!pt_json_check_keys(root, keys, L->file, "$", L->err) ||
        !pt_json_get_string(root, "format", false, L->file, "$", &format, L->err) ||
        !pt_json_get_int(root, "version", false, 1, 1, L->file, "$", &version, L->err) ||
        !pt_json_get_string(root, "description", false, L->file, "$", &desc, L->err))
        return false;
    if (format && strcmp(format, "pipethreader.graph") != 0)
        return pt_fail(L->err, "%s: $.format: \"%.40s\"; expected \"pipethreader.graph\"",
                       L->file, format);
    if (!get_label(L, root, "name", true, "$", L->g->name))
        return false;
    return load_params(L, root) && apply_overrides(L, overrides) && load_axes(L, root) &&
           load_tensors(L, root) && load_ops(L, root) && load_defaults(L, root) &&
           load_split(L, root);
}

bool pt_graph_load_text(pt_graph *g, const char *name, const char *text, size_t len,
                        const char *overrides, pt_error *err)
{
    memset(g, 0, sizeof *g);
    pt_copy_path(g->file, sizeof g->file, name);
    cJSON *root = pt_json_parse(name, text, len, err);
    if (!root)
        return false;
    loader L = {g, name, err}; /* the whole name: g->file may be shortened */
    bool ok = load_root(&L, root, overrides);
    cJSON_Delete(root);
    return ok;
}

bool pt_graph_load_file(pt_graph *g, const char *path, const char *overrides, pt_error *err)
{
    char *text;
    size_t len;
    if (!pt_read_file(path, &text, &len, err))
        return false;
    bool ok = pt_graph_load_text(g, path, text, len, overrides, err);
    free(text);
    return ok;
}
