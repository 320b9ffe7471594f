/* strbuf.c — growable text buffer, with the JSON string and number writers. */
#include "strbuf.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool reserve(strbuf *sb, size_t extra)
{
    if (sb->failed)
        return false;
    if (sb->len + extra + 1 <= sb->cap)
        return true;
    size_t cap = sb->cap ? sb->cap : 4096;
    while (cap < sb->len + extra + 1)
        cap *= 2;
    char *t = realloc(sb->text, cap);
    if (!t) {
        sb->failed = true;
        return false;
    }
    sb->text = t;
    sb->cap = cap;
    return true;
}

void sb_printf(strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !reserve(sb, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(sb->text + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}

void sb_putn(strbuf *sb, const char *s, size_t n)
{
    if (!reserve(sb, n))
        return;
    memcpy(sb->text + sb->len, s, n);
    sb->len += n;
    sb->text[sb->len] = 0;
}

void sb_puts(strbuf *sb, const char *s)
{
    sb_putn(sb, s, strlen(s));
}

void sb_json_string(strbuf *sb, const char *s)
{
    sb_putn(sb, "\"", 1);
    for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
        if (*c == '"' || *c == '\\') {
            char e[2] = {'\\', (char)*c};
            sb_putn(sb, e, 2);
        } else if (*c == '\n')
            sb_putn(sb, "\\n", 2);
        else if (*c == '\t')
            sb_putn(sb, "\\t", 2);
        else if (*c < 0x20)
            sb_printf(sb, "\\u%04x", *c);
        else
            sb_putn(sb, (const char *)c, 1);
    }
    sb_putn(sb, "\"", 1);
}

void sb_json_number(strbuf *sb, double v)
{
    if (!isfinite(v)) {
        sb_puts(sb, "null");
        return;
    }
    char tmp[40];
    snprintf(tmp, sizeof tmp, "%.15g", v);
    if (strtod(tmp, NULL) != v)
        snprintf(tmp, sizeof tmp, "%.17g", v);
    sb_puts(sb, tmp);
}

char *sb_take(strbuf *sb)
{
    char *t = sb->failed ? NULL : sb->text;
    if (sb->failed)
        free(sb->text);
    if (t == NULL && !sb->failed)
        t = calloc(1, 1);
    sb->text = NULL;
    sb->len = sb->cap = 0;
    sb->failed = false;
    return t;
}

void sb_free(strbuf *sb)
{
    free(sb->text);
    sb->text = NULL;
    sb->len = sb->cap = 0;
}
