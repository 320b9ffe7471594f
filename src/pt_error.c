/* pt_error.c — formatting of one-line error reports. */
#include "pt_error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Messages start with the file name and end with the reason; a path of several KiB must not
 * push the reason out. An overlong message keeps its first HEAD bytes and its end, with
 * " ... " in between, so the cut falls inside the (long) path and the reason survives. */
enum { HEAD = 160 };

static void format_kept_tail(char *out, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(out, PT_ERROR_MAX, fmt, ap);
    if (n >= PT_ERROR_MAX) {
        char *full = malloc((size_t)n + 1);
        if (full) {
            vsnprintf(full, (size_t)n + 1, fmt, again);
            size_t tail = PT_ERROR_MAX - 1 - HEAD - 5;
            memcpy(out, full, HEAD);
            memcpy(out + HEAD, " ... ", 5);
            memcpy(out + HEAD + 5, full + n - tail, tail + 1);
            free(full);
        }
    }
    va_end(again);
}

bool pt_vfail(pt_error *err, const char *fmt, va_list ap)
{
    if (err) {
        format_kept_tail(err->msg, fmt, ap);
        /* One line, always: quoted input may hold newlines or control bytes. */
        for (char *c = err->msg; *c; c++)
            if ((unsigned char)*c < 0x20)
                *c = '?';
    }
    return false;
}

bool pt_fail(pt_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pt_vfail(err, fmt, ap);
    va_end(ap);
    return false;
}
