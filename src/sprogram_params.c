/* sprogram_params.c — an sProgram's graph parameters: parsed, peeked at before the graph is
 * loaded, and merged with --set (sprogram_params.h). */
#include "sprogram_params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

bool pt_sprogram_params_parse(const cJSON *root, const char *file, pt_sprogram_param *out,
                              int *n, pt_error *err)
{
    bool ok;
    *n = 0;
    const cJSON *o = pt_json_get_object(root, "params", false, file, "$", &ok, err);
    if (!ok)
        return false;
    const cJSON *it;
    cJSON_ArrayForEach(it, o)
    {
        char path[PT_PATH_MAX];
        pt_path_key(path, "$.params", it->string ? it->string : "");
        if (*n == PT_SPROGRAM_MAX_PARAMS)
            return pt_fail(err, "%s: %s: more than %d parameters; expected at most %d (the ones "
                           "the schedule chose)", file, path, PT_SPROGRAM_MAX_PARAMS,
                           PT_SPROGRAM_MAX_PARAMS);
        if (!it->string || !it->string[0] || strlen(it->string) >= PT_NAME_MAX)
            return pt_fail(err, "%s: %s: expected a parameter name of 1 to %d characters", file,
                           path, PT_NAME_MAX - 1);
        pt_sprogram_param *p = &out[*n];
        if (!pt_json_get_int(o, it->string, true, 0, PT_PARAM_LIMIT, file, "$.params", &p->value,
                             err))
            return false;
        snprintf(p->name, sizeof p->name, "%s", it->string);
        for (int i = 0; i < *n; i++)
            if (strcmp(out[i].name, p->name) == 0)
                return pt_fail(err, "%s: %s: given twice; expected each parameter once", file,
                               path);
        (*n)++;
    }
    return true;
}

/* The sProgram file at `path` parsed, if it is a JSON object (NULL otherwise: the loader
 * reports why later); the caller deletes it. */
static cJSON *peek_root(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    pt_error err = {{0}};
    if (!path || !pt_read_file(path, &text, &len, &err))
        return NULL;
    cJSON *root = pt_json_parse(path, text, len, &err);
    free(text);
    if (root && !cJSON_IsObject(root)) {
        cJSON_Delete(root);
        root = NULL;
    }
    return root;
}

int pt_sprogram_params_peek(const char *path, pt_sprogram_param *out)
{
    pt_error err = {{0}};
    int n = 0;
    cJSON *root = peek_root(path);
    if (root && !pt_sprogram_params_parse(root, path, out, &n, &err))
        n = 0;
    cJSON_Delete(root);
    return n;
}

/* The non-empty string $.KEY of the sProgram file at `path` into out (shorter than cap). */
static bool peek_string(const char *path, const char *key, char *out, size_t cap)
{
    cJSON *root = peek_root(path);
    const cJSON *g = root ? cJSON_GetObjectItemCaseSensitive(root, key) : NULL;
    bool ok = cJSON_IsString(g) && g->valuestring[0] && strlen(g->valuestring) < cap;
    if (ok)
        snprintf(out, cap, "%s", g->valuestring);
    cJSON_Delete(root);
    return ok;
}

bool pt_sprogram_graph_peek(const char *path, char *out, size_t cap)
{
    return peek_string(path, "graph", out, cap);
}

bool pt_sprogram_hw_peek(const char *path, char *out, size_t cap)
{
    return peek_string(path, "hw", out, cap);
}

/* The value `set` gives parameter `name` (its last mention, as the loader applies them), or
 * false when it gives none. */
static bool set_value(const char *set, const char *name, int64_t *v)
{
    bool found = false;
    size_t ln = strlen(name);
    for (const char *s = set; s && *s;) {
        const char *comma = strchr(s, ',');
        size_t n = comma ? (size_t)(comma - s) : strlen(s);
        if (n > ln && strncmp(s, name, ln) == 0 && s[ln] == '=') {
            *v = strtoll(s + ln + 1, NULL, 10);
            found = true;
        }
        s += n;
        if (*s == ',')
            s++;
    }
    return found;
}

bool pt_sprogram_params_merge(const char *set, const pt_sprogram_param *pp, int n,
                              const char *file, char **out, pt_error *err)
{
    *out = NULL;
    strbuf b = {0};
    if (set && *set)
        sb_puts(&b, set);
    for (int i = 0; i < n; i++) {
        int64_t v;
        if (!set_value(set, pp[i].name, &v)) {
            sb_printf(&b, "%s%s=%lld", b.len ? "," : "", pp[i].name, (long long)pp[i].value);
            continue;
        }
        if (v != pp[i].value) {
            sb_free(&b);
            return pt_fail(err, "--set %s=%lld disagrees with %s: $.params.%s = %lld (the value "
                           "the sProgram was scheduled for); expected %s=%lld or %s left out of "
                           "--set", pp[i].name, (long long)v, file, pp[i].name,
                           (long long)pp[i].value, pp[i].name, (long long)pp[i].value,
                           pp[i].name);
        }
    }
    if (b.len == 0) {
        sb_free(&b);
        return true;
    }
    *out = sb_take(&b);
    return *out != NULL || pt_fail(err, "--set: out of memory");
}
