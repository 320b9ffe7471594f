/* json_util.c — file I/O and typed JSON access with precise error messages. */
#include "json_util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a non-regular file is, for messages. */
static const char *file_type_name(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISFIFO(m))
        return "a FIFO (named pipe)";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    if (S_ISSOCK(m))
        return "a socket";
    return "not a regular file";
}

/* Every input file is read here. Only regular files are accepted: a FIFO without a writer
 * would block forever and a device may never end. O_NONBLOCK makes the open itself return
 * at once for a FIFO; fstat then says what it is before anything is read. */
bool pt_read_file(const char *path, char **text, size_t *len, pt_error *err)
{
    return pt_read_file_limit(path, PT_JSON_MAX_FILE, text, len, err);
}

bool pt_read_file_limit(const char *path, size_t max, char **text, size_t *len, pt_error *err)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return pt_fail(err, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return pt_fail(err, "%s: cannot read: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return pt_fail(err, "%s: is %s; expected a regular JSON file", path,
                       file_type_name(st.st_mode));
    }
    if ((uint64_t)st.st_size > max) {
        close(fd);
        return pt_fail(err, "%s: is %lld bytes; the limit for this input file is %zu MiB", path,
                       (long long)st.st_size, max >> 20);
    }
    /* Back to blocking reads; the size may still change under us, so the loop keeps its
     * own bound rather than trusting st_size. */
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        close(fd);
        return pt_fail(err, "%s: out of memory", path);
    }
    for (;;) {
        if (n == cap) {
            if (cap > max) {
                free(buf);
                close(fd);
                return pt_fail(err, "%s: is larger than %zu MiB, the limit for this input file",
                               path, max >> 20);
            }
            cap *= 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb) {
                free(buf);
                close(fd);
                return pt_fail(err, "%s: out of memory", path);
            }
            buf = nb;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int e = errno;
            free(buf);
            close(fd);
            return pt_fail(err, "%s: read error: %s", path, strerror(e));
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    if (n > max) {
        free(buf);
        return pt_fail(err, "%s: is larger than %zu MiB, the limit for this input file", path,
                       max >> 20);
    }
    buf[n] = 0;
    *text = buf;
    *len = n;
    return true;
}

/* Write to an existing non-regular file (a device such as /dev/full or /dev/null, a FIFO)
 * in place: replacing it by rename would swap a device node for a regular file. */
static bool write_in_place(const char *path, const char *text, pt_error *err)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return pt_fail(err, "%s: cannot write: %s", path, strerror(errno));
    size_t len = strlen(text), off = 0;
    while (off < len) {
        ssize_t w = write(fd, text + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : EIO;
            close(fd);
            return pt_fail(err, "%s: write failed: %s", path, strerror(e));
        }
        off += (size_t)w;
    }
    if (close(fd) != 0)
        return pt_fail(err, "%s: write failed: %s", path, strerror(errno));
    return true;
}

bool pt_write_file(const char *path, const char *text, pt_error *err)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return pt_fail(err, "%s: is a directory; expected a file name", path);
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return write_in_place(path, text, err);
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
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            pt_fail(err, "%s: write failed: %s", path, strerror(w < 0 ? errno : EIO));
            close(fd);
            unlink(tmp);
            free(tmp);
            return false;
        }
        off += (size_t)w;
    }
    fchmod(fd, 0644);
    if (close(fd) != 0) {
        pt_fail(err, "%s: write failed: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return false;
    }
    if (rename(tmp, path) != 0) {
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

/* Line and column (1-based, in bytes) of text + off. */
static void line_col(const char *text, size_t off, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off; i++) {
        if (text[i] == '\n') {
            (*line)++;
            *col = 1;
        } else
            (*col)++;
    }
}

/* One string-aware pass over the text before cJSON sees it. It finds what cJSON either
 * reports badly or not at all: the deepest nesting (refused beyond PT_JSON_MAX_DEPTH, long
 * before cJSON's own recursion limit), the first ',' directly followed by '}' or ']' (cJSON
 * points past it), the first "\u0000" escape (cJSON silently cuts the string there), and
 * whether the text ends inside a string or an open bracket (truncated). */
typedef struct {
    size_t too_deep_at;     /* offset of the bracket that went past the limit, or SIZE_MAX */
    size_t trailing_comma;  /* offset of the ',' of the first trailing comma, or SIZE_MAX */
    size_t nul_escape;      /* offset of the first "\u0000", or SIZE_MAX */
    bool ends_open;         /* the text ends inside a string or with brackets open */
} text_scan;

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static void scan_text(const char *text, size_t len, text_scan *sc)
{
    sc->too_deep_at = sc->trailing_comma = sc->nul_escape = SIZE_MAX;
    int depth = 0;
    bool in_string = false;
    size_t last_comma = SIZE_MAX; /* a ',' with only whitespace after it so far */
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (in_string) {
            if (c == '\\') {
                if (i + 5 < len && memcmp(text + i + 1, "u0000", 5) == 0 &&
                    sc->nul_escape == SIZE_MAX)
                    sc->nul_escape = i;
                i++;
            } else if (c == '"')
                in_string = false;
            continue;
        }
        if (is_ws(c))
            continue;
        if ((c == '}' || c == ']') && last_comma != SIZE_MAX && sc->trailing_comma == SIZE_MAX)
            sc->trailing_comma = last_comma;
        last_comma = c == ',' ? i : SIZE_MAX;
        if (c == '"')
            in_string = true;
        else if (c == '[' || c == '{') {
            if (++depth > PT_JSON_MAX_DEPTH && sc->too_deep_at == SIZE_MAX)
                sc->too_deep_at = i;
        } else if (c == ']' || c == '}')
            depth--;
    }
    sc->ends_open = in_string || depth > 0;
}

/* Up to 32 bytes of the line holding text + off, around it, made printable. */
static void excerpt(const char *text, size_t len, size_t off, char *out, size_t cap)
{
    size_t lo = off, hi = off;
    while (lo > 0 && off - lo < 20 && text[lo - 1] != '\n' && text[lo - 1] != '\r')
        lo--;
    while (hi < len && hi - off < 12 && text[hi] != '\n' && text[hi] != '\r')
        hi++;
    while (lo < hi && is_ws(text[lo]))
        lo++;
    size_t n = 0;
    for (size_t i = lo; i < hi && n + 1 < cap; i++)
        out[n++] = (unsigned char)text[i] < 0x20 ? ' ' : text[i];
    out[n] = 0;
}

/* The JSON path of the first string (key or value) holding the NUL sentinel, or false. */
static bool find_sentinel(const cJSON *v, const char *path, char *out)
{
    static const char sentinel[] = "\xEF\xBF\xBF"; /* U+FFFF, see pt_json_parse */
    if (cJSON_IsString(v) && v->valuestring && strstr(v->valuestring, sentinel)) {
        snprintf(out, PT_PATH_MAX, "%s", path);
        return true;
    }
    const cJSON *it;
    int i = 0;
    for (it = v ? v->child : NULL; it; it = it->next, i++) {
        char p[PT_PATH_MAX];
        if (cJSON_IsObject(v)) {
            if (it->string && strstr(it->string, sentinel)) {
                snprintf(out, PT_PATH_MAX, "%s (a key)", path);
                return true;
            }
            pt_path_key(p, path, it->string ? it->string : "?");
        } else
            pt_path_idx(p, path, i);
        if (find_sentinel(it, p, out))
            return true;
    }
    return false;
}

/* A "\u0000" escape would be decoded into a C string that silently ends there. Parse a copy
 * with each such escape replaced by "\uFFFF" (same length, a noncharacter no format uses) to
 * find the JSON path of the string it is in. */
static void report_nul(const char *name, const char *text, size_t len, size_t at, pt_error *err)
{
    char where[PT_PATH_MAX] = "";
    char *copy = malloc(len + 1);
    if (copy) {
        memcpy(copy, text, len);
        copy[len] = 0;
        for (char *c = strstr(copy, "\\u0000"); c; c = strstr(c + 6, "\\u0000"))
            memcpy(c, "\\uFFFF", 6);
        cJSON *root = cJSON_ParseWithLength(copy, len);
        if (root && !find_sentinel(root, "$", where))
            where[0] = 0;
        cJSON_Delete(root);
        free(copy);
    }
    int line, col;
    line_col(text, at, &line, &col);
    if (where[0])
        pt_fail(err, "%s: %s: the string contains \\u0000 (a NUL character); expected text "
                     "without NUL", name, where);
    else
        pt_fail(err, "%s: line %d, column %d: a string contains \\u0000 (a NUL character); "
                     "expected text without NUL", name, line, col);
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
    if (len > PT_JSON_MAX_FILE) {
        pt_fail(err, "%s: is %zu bytes; the limit for a JSON text is %u MiB", name, len,
                PT_JSON_MAX_FILE >> 20);
        return NULL;
    }
    text_scan sc;
    scan_text(text, len, &sc);
    int line, col;
    if (sc.too_deep_at != SIZE_MAX) {
        line_col(text, sc.too_deep_at, &line, &col);
        pt_fail(err, "%s: line %d: the JSON text nests deeper than %d levels (the limit); "
                     "expected a flatter file", name, line, PT_JSON_MAX_DEPTH);
        return NULL;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    if (!root) {
        const char *at = end ? end : cJSON_GetErrorPtr();
        if (!at || at < text || at > text + len)
            at = text + len;
        size_t off = (size_t)(at - text);
        char near[40];
        if (sc.trailing_comma != SIZE_MAX && sc.trailing_comma <= off) {
            line_col(text, sc.trailing_comma, &line, &col);
            excerpt(text, len, sc.trailing_comma, near, sizeof near);
            pt_fail(err, "%s: line %d, column %d: JSON syntax error: a trailing comma in `%s`; "
                         "expected another value after ',' or no ','", name, line, col, near);
        } else if (off >= len || sc.ends_open) {
            line_col(text, off, &line, &col);
            pt_fail(err, "%s: line %d: the JSON text ends early (truncated?); expected a complete "
                         "JSON value", name, line);
        } else {
            line_col(text, off, &line, &col);
            excerpt(text, len, off, near, sizeof near);
            char at_c[16];
            if ((unsigned char)*at > 0x20 && (unsigned char)*at < 0x7f)
                snprintf(at_c, sizeof at_c, "'%c'", *at);
            else
                snprintf(at_c, sizeof at_c, "byte %d", (unsigned char)*at);
            pt_fail(err, "%s: line %d, column %d: JSON syntax error at %s in `%s`; expected a JSON "
                         "value, ',' or a closing bracket", name, line, col, at_c, near);
        }
        return NULL;
    }
    /* Trailing garbage after the value. */
    if (end && end < text + len && !blank(end, (size_t)(text + len - end))) {
        line_col(text, (size_t)(end - text), &line, &col);
        pt_fail(err, "%s: line %d: unexpected text after the JSON value", name, line);
        cJSON_Delete(root);
        return NULL;
    }
    if (sc.nul_escape != SIZE_MAX) {
        report_nul(name, text, len, sc.nul_escape, err);
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

void pt_copy_path(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n < cap || cap < 16) {
        snprintf(dst, cap, "%s", src);
        return;
    }
    size_t head = (cap - 4) / 3, tail = cap - 4 - head;
    memcpy(dst, src, head);
    memcpy(dst + head, "...", 3);
    memcpy(dst + head + 3, src + n - tail, tail + 1);
}

/* ---- file kinds ---- */

static bool has_key(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k) != NULL;
}

pt_file_kind pt_json_file_kind(const cJSON *root)
{
    if (!cJSON_IsObject(root))
        return PT_FILE_UNKNOWN;
    static const struct {
        const char *format;
        pt_file_kind kind;
    } formats[] = {
        {"pipethreader.graph", PT_FILE_GRAPH},         {"pipethreader.sprogram", PT_FILE_SPROGRAM},
        {"pipethreader.hw", PT_FILE_HW},               {"pipethreader.trace", PT_FILE_TRACE},
        {"pipethreader.stask-graph", PT_FILE_STASK_GRAPH},
        {"pipethreader.calibration", PT_FILE_CALIBRATION},
    };
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(root, "format");
    if (f) { /* a "format" decides; an unknown one is for the loader's own message */
        for (size_t i = 0; cJSON_IsString(f) && i < sizeof formats / sizeof formats[0]; i++)
            if (strcmp(f->valuestring, formats[i].format) == 0)
                return formats[i].kind;
        return PT_FILE_UNKNOWN;
    }
    /* No format (graphs may omit it): keys no other kind has. */
    if (has_key(root, "traceEvents"))
        return PT_FILE_CHROME_TRACE;
    if (has_key(root, "predicted") || has_key(root, "measured"))
        return PT_FILE_TRACE;
    if (has_key(root, "lanes") && has_key(root, "graph"))
        return PT_FILE_SPROGRAM;
    if (has_key(root, "stasks"))
        return PT_FILE_STASK_GRAPH;
    if (has_key(root, "costs") || has_key(root, "eu_count") || has_key(root, "seus"))
        return PT_FILE_HW;
    if (has_key(root, "ops") && has_key(root, "tensors"))
        return PT_FILE_GRAPH;
    return PT_FILE_UNKNOWN;
}

const char *pt_file_kind_name(pt_file_kind k)
{
    switch (k) {
    case PT_FILE_GRAPH: return "an operator graph";
    case PT_FILE_SPROGRAM: return "an sProgram";
    case PT_FILE_HW: return "a hardware model";
    case PT_FILE_TRACE: return "a trace (timeline)";
    case PT_FILE_STASK_GRAPH: return "an sTask-graph export";
    case PT_FILE_CALIBRATION: return "a calibration result";
    case PT_FILE_CHROME_TRACE: return "a Chrome trace";
    default: return "an unknown JSON file";
    }
}

/* Where a file of kind k is given on the command line. */
static const char *kind_hint(pt_file_kind k)
{
    switch (k) {
    case PT_FILE_GRAPH: return " (give it as the GRAPH argument)";
    case PT_FILE_SPROGRAM: return " (give it with --program)";
    case PT_FILE_HW: return " (give it with --hw)";
    case PT_FILE_CALIBRATION: return " (give it to calibrate --from)";
    case PT_FILE_TRACE: return " (open it in the explorer)";
    case PT_FILE_CHROME_TRACE: return " (open it in Perfetto or chrome://tracing)";
    case PT_FILE_STASK_GRAPH: return " (an output of partition --json; give the graph itself)";
    default: return "";
    }
}

bool pt_json_expect_kind(const cJSON *root, pt_file_kind want, const char *file, pt_error *err)
{
    pt_file_kind k = pt_json_file_kind(root);
    if (k == PT_FILE_UNKNOWN || k == want)
        return true;
    return pt_fail(err, "%s is %s, expected %s%s", file, pt_file_kind_name(k),
                   pt_file_kind_name(want), kind_hint(k));
}

pt_file_kind pt_file_sniff(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    pt_error err = {{0}};
    if (!pt_read_file(path, &text, &len, &err))
        return PT_FILE_UNKNOWN;
    cJSON *root = pt_json_parse(path, text, len, &err);
    free(text);
    pt_file_kind k = pt_json_file_kind(root);
    cJSON_Delete(root);
    return k;
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
