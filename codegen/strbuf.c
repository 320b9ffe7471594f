/* strbuf.c — growable text buffer. */
#include "strbuf.h"

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

void sb_puts(strbuf *sb, const char *s)
{
    size_t n = strlen(s);
    if (!reserve(sb, n))
        return;
    memcpy(sb->text + sb->len, s, n + 1);
    sb->len += n;
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
