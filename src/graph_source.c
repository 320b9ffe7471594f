/* graph_source.c — loading a graph again from where it came from (graph_source.h). */
#include "graph_source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "embedded.h"
#include "json_util.h"

bool pt_graph_source_load(const pt_graph_source *src, const char *more, pt_graph *g,
                          pt_error *err)
{
    const char *base = src->overrides ? src->overrides : "";
    size_t n = strlen(base) + (more ? strlen(more) : 0) + 2;
    char *ov = malloc(n);
    if (!ov)
        return pt_fail(err, "%s: out of memory", src->arg);
    snprintf(ov, n, "%s%s%s", base, base[0] && more && more[0] ? "," : "", more ? more : "");
    bool ok = src->text ? pt_graph_load_text(g, src->arg, src->text, src->len, ov, err)
                        : pt_graph_load_file(g, src->arg, ov, err);
    free(ov);
    return ok;
}

bool pt_graph_source_load_named(const pt_graph_source *src, const char *name,
                                const char *overrides, pt_graph *g, pt_error *err)
{
    if (!src->text) { /* a file: NAME.json beside it first */
        const char *slash = strrchr(src->arg, '/');
        int dir = slash ? (int)(slash - src->arg + 1) : 0;
        char path[4096];
        struct stat st;
        if (snprintf(path, sizeof path, "%.*s%s.json", dir, src->arg, name) < (int)sizeof path &&
            stat(path, &st) == 0)
            return pt_graph_load_file(g, path, overrides, err);
    }
    const char *text = pt_embedded_find(pt_embedded_examples, name);
    if (!text)
        return pt_fail(err, "%s: $.split.combine: \"%s\" is neither a file %s.json beside it nor "
                       "a built-in example; expected the graph of the kernel combining the "
                       "pieces", src->arg, name, name);
    return pt_graph_load_text(g, name, text, strlen(text), overrides, err);
}

bool pt_graph_source_load_sibling(const pt_graph_source *src, const pt_graph *g,
                                  const char *name, pt_graph *out, pt_error *err)
{
    if (!pt_graph_source_load_named(src, name, NULL, out, err))
        return false;
    char ov[1024] = "";
    size_t n = 0;
    for (int i = 0; i < out->n_params && n < sizeof ov; i++) {
        int k = pt_graph_find_param(g, out->params[i].name);
        if (k >= 0)
            n += (size_t)snprintf(ov + n, sizeof ov - n, "%s%s=%lld", n ? "," : "",
                                  out->params[i].name, (long long)g->params[k].value);
    }
    return pt_graph_source_load_named(src, name, ov, out, err);
}

bool pt_graph_source_sets(const pt_graph_source *src, const char *name)
{
    size_t ln = strlen(name);
    for (const char *s = src->overrides; s && *s;) {
        const char *comma = strchr(s, ',');
        size_t n = comma ? (size_t)(comma - s) : strlen(s);
        if (n > ln && strncmp(s, name, ln) == 0 && s[ln] == '=')
            return true;
        s += n;
        if (*s == ',')
            s++;
    }
    return false;
}

bool pt_graph_source_split_param(const pt_graph_source *src, char *out, size_t cap)
{
    char *owned = NULL;
    size_t len = src->len;
    const char *text = src->text;
    pt_error e = {{0}};
    if (!text) {
        if (!pt_read_file(src->arg, &owned, &len, &e))
            return false;
        text = owned;
    }
    cJSON *root = cJSON_ParseWithLength(text, len);
    free(owned);
    const cJSON *split = cJSON_GetObjectItemCaseSensitive(root, "split");
    const cJSON *param = cJSON_GetObjectItemCaseSensitive(split, "param");
    bool ok = cJSON_IsString(param) && param->valuestring[0] && strlen(param->valuestring) < cap;
    if (ok)
        snprintf(out, cap, "%s", param->valuestring);
    cJSON_Delete(root);
    return ok;
}
