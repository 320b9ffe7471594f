/* json_util.c — file I/O and typed JSON access with precise error messages. */
#include "json_util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool pt_read_file(const char *path, char **text, size_t *len, pt_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return pt_fail(err, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        return pt_fail(err, "%s: is a directory; expected a JSON file", path);
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        fclose(f);
        return pt_fail(err, "%s: out of memory", path);
    }
    for (;;) {
        if (n == cap) {
            if (cap >= PT_JSON_MAX_FILE) {
                free(buf);
                fclose(f);
                return pt_fail(err, "%s: larger than %u MiB; expected a smaller JSON file", path,
                               PT_JSON_MAX_FILE >> 20);
            }
            cap *= 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb) {
                free(buf);
                fclose(f);
                return pt_fail(err, "%s: out of memory", path);
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return pt_fail(err, "%s: read error", path);
    }
    buf[n] = 0;
    *text = buf;
    *len = n;
    return true;
}

bool pt_write_file(const char *path, const char *text, pt_error *err)
{
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 16);
    if (!tmp)
        return pt_fail(err, "%s: out of memory", path);
    snprintf(tmp, plen + 16, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        pt_fail(err, "%s: cannot write: %s", path, strerror(errno));
        free(tmp);
        return false;
    }
    size_t len = strlen(text), off = 0;
    while (off < len) {
        ssize_t w = write(fd, text + off, len - off);
        if (w <= 0) {
            pt_fail(err, "%s: write failed: %s", path, strerror(errno));
            close(fd);
            unlink(tmp);
            free(tmp);
            return false;
        }
        off += (size_t)w;
    }
    fchmod(fd, 0644);
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        pt_fail(err, "%s: cannot write: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return false;
    }
    free(tmp);
    return true;
}

/* Only whitespace in text[0..len)? Bounded by len: callers may pass text without a NUL. */
static bool blank(const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (text[i] != ' ' && text[i] != '\t' && text[i] != '\r' && text[i] != '\n')
            return false;
    return true;
}

/* Bracket depth at `at` and at the end, string-aware; returns true when the text ends inside
 * a string. Tells a truncated file or a too-deep one from a plain syntax error. */
static bool scan_depth(const char *text, const char *at, size_t len, int *depth_at, int *depth_end)
{
    int depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (text + i == at)
            *depth_at = depth;
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = false;
        } else if (c == '"')
            in_string = true;
        else if (c == '[' || c == '{')
            depth++;
        else if (c == ']' || c == '}')
            depth--;
    }
    *depth_end = depth;
    return in_string;
}

cJSON *pt_json_parse(const char *name, const char *text, size_t len, pt_error *err)
{
    if (blank(text, len)) {
        pt_fail(err, "%s: line 1: the file is empty; expected a JSON object", name);
        return NULL;
    }
    if (memchr(text, 0, len)) {
        pt_fail(err, "%s: contains NUL bytes; expected a JSON text (is it a binary file?)", name);
        return NULL;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    if (!root) {
        const char *at = end ? end : cJSON_GetErrorPtr();
        if (!at || at < text || at > text + len)
            at = text + len;
        int line = 1, col = 1;
        for (const char *c = text; c < at; c++) {
            if (*c == '\n') {
                line++;
                col = 1;
            } else
                col++;
        }
        int depth_at = 0, depth_end = 0;
        bool in_string = scan_depth(text, at, len, &depth_at, &depth_end);
        if (depth_at >= 1000)
            pt_fail(err, "%s: line %d: the JSON text nests deeper than 1000 levels", name, line);
        else if (at >= text + len || in_string || depth_end > 0)
            pt_fail(err, "%s: line %d: the JSON text ends early (truncated?); expected a complete "
                         "JSON value", name, line);
        else {
            char near[13];
            size_t n = 0;
            while (n < 12 && at + n < text + len && at[n] != '\n' && at[n] != '\r')
                n++;
            memcpy(near, at, n);
            near[n] = 0;
            pt_fail(err, "%s: line %d, column %d: JSON syntax error near '%s'", name, line, col,
                    near);
        }
        return NULL;
    }
    /* Trailing garbage after the value. */
    if (end && end < text + len && !blank(end, (size_t)(text + len - end))) {
        int line = 1;
        for (const char *c = text; c < end; c++)
            line += *c == '\n';
        pt_fail(err, "%s: line %d: unexpected text after the JSON value", name, line);
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

void pt_path_key(char *out, const char *parent, const char *key)
{
    snprintf(out, PT_PATH_MAX, "%s.%.*s", parent, 64, key);
}

void pt_path_idx(char *out, const char *parent, int idx)
{
    snprintf(out, PT_PATH_MAX, "%s[%d]", parent, idx);
}

const char *pt_json_type(const cJSON *v)
{
    if (!v)
        return "nothing";
    if (cJSON_IsString(v))
        return "a string";
    if (cJSON_IsNumber(v))
        return "a number";
    if (cJSON_IsBool(v))
        return "a boolean";
    if (cJSON_IsNull(v))
        return "null";
    if (cJSON_IsArray(v))
        return "an array";
    if (cJSON_IsObject(v))
        return "an object";
    return "an invalid value";
}

static const cJSON *member(const cJSON *obj, const char *key)
{
    return cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

static bool missing(const char *file, const char *path, const char *key, const char *what,
                    pt_error *err)
{
    return pt_fail(err, "%s: %s: missing \"%s\"; expected %s", file, path, key, what);
}

static bool wrong(const char *file, const char *path, const char *key, const cJSON *v,
                  const char *what, pt_error *err)
{
    return pt_fail(err, "%s: %s.%s: is %s; expected %s", file, path, key, pt_json_type(v), what);
}

bool pt_json_get_string(const cJSON *obj, const char *key, bool required, const char *file,
                        const char *path, const char **out, pt_error *err)
{
    const cJSON *v = member(obj, key);
    if (!v)
        return required ? missing(file, path, key, "a string", err) : true;
    if (!cJSON_IsString(v) || !v->valuestring)
        return wrong(file, path, key, v, "a string", err);
    *out = v->valuestring;
    return true;
}

bool pt_json_get_name(const cJSON *obj, const char *key, bool required, const char *file,
                      const char *path, char *out, size_t cap, pt_error *err)
{
    const char *s = NULL;
    if (!pt_json_get_string(obj, key, required, file, path, &s, err))
        return false;
    if (!s)
        return true;
    size_t n = strlen(s);
    if (n == 0)
        return pt_fail(err, "%s: %s.%s: is empty; expected a name", file, path, key);
    if (n >= cap)
        return pt_fail(err, "%s: %s.%s: is %zu characters long; expected at most %zu", file,
                       path, key, n, cap - 1);
    memcpy(out, s, n + 1);
    return true;
}

bool pt_json_get_int(const cJSON *obj, const char *key, bool required, int64_t lo, int64_t hi,
                     const char *file, const char *path, int64_t *out, pt_error *err)
{
    const cJSON *v = member(obj, key);
    if (!v)
        return required ? missing(file, path, key, "an integer", err) : true;
    if (!cJSON_IsNumber(v))
        return wrong(file, path, key, v, "an integer", err);
    double d = v->valuedouble;
    if (!isfinite(d) || d != floor(d))
        return pt_fail(err, "%s: %s.%s: %g is not a whole number; expected an integer", file,
                       path, key, d);
    if (d < (double)lo || d > (double)hi)
        return pt_fail(err, "%s: %s.%s: %.6g is out of range; expected %lld to %lld", file, path,
                       key, d, (long long)lo, (long long)hi);
    *out = (int64_t)d;
    return true;
}

bool pt_json_get_number(const cJSON *obj, const char *key, bool required, double lo, double hi,
                        const char *file, const char *path, double *out, pt_error *err)
{
    const cJSON *v = member(obj, key);
    if (!v)
        return required ? missing(file, path, key, "a number", err) : true;
    if (!cJSON_IsNumber(v))
        return wrong(file, path, key, v, "a number", err);
    double d = v->valuedouble;
    if (!isfinite(d) || d < lo || d > hi)
        return pt_fail(err, "%s: %s.%s: %g is out of range; expected %g to %g", file, path, key,
                       d, lo, hi);
    *out = d;
    return true;
}

bool pt_json_get_bool(const cJSON *obj, const char *key, bool required, const char *file,
                      const char *path, bool *out, pt_error *err)
{
    const cJSON *v = member(obj, key);
    if (!v)
        return required ? missing(file, path, key, "true or false", err) : true;
    if (!cJSON_IsBool(v))
        return wrong(file, path, key, v, "true or false", err);
    *out = cJSON_IsTrue(v);
    return true;
}

static const cJSON *get_typed(const cJSON *obj, const char *key, bool required, bool want_array,
                              const char *file, const char *path, bool *ok, pt_error *err)
{
    const cJSON *v = member(obj, key);
    const char *what = want_array ? "an array" : "an object";
    *ok = true;
    if (!v) {
        if (required)
            *ok = missing(file, path, key, what, err);
        return NULL;
    }
    if (want_array ? !cJSON_IsArray(v) : !cJSON_IsObject(v)) {
        *ok = wrong(file, path, key, v, what, err);
        return NULL;
    }
    return v;
}

const cJSON *pt_json_get_object(const cJSON *obj, const char *key, bool required,
                                const char *file, const char *path, bool *ok, pt_error *err)
{
    return get_typed(obj, key, required, false, file, path, ok, err);
}

const cJSON *pt_json_get_array(const cJSON *obj, const char *key, bool required,
                               const char *file, const char *path, bool *ok, pt_error *err)
{
    return get_typed(obj, key, required, true, file, path, ok, err);
}

bool pt_json_check_keys(const cJSON *obj, const char *const *allowed, const char *file,
                        const char *path, pt_error *err)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, obj)
    {
        bool found = false;
        for (const char *const *a = allowed; *a; a++)
            if (it->string && strcmp(it->string, *a) == 0)
                found = true;
        if (!found) {
            char list[400] = "";
            for (const char *const *a = allowed; *a; a++) {
                if (strlen(list) + strlen(*a) + 4 >= sizeof list)
                    break;
                if (list[0])
                    strcat(list, ", ");
                strcat(list, *a);
            }
            return pt_fail(err, "%s: %s: unknown key \"%.64s\"; expected one of: %s", file, path,
                           it->string ? it->string : "?", list);
        }
    }
    return true;
}
