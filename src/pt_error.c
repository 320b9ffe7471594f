/* pt_error.c — formatting of one-line error reports. */
#include "pt_error.h"

#include <stdio.h>

bool pt_vfail(pt_error *err, const char *fmt, va_list ap)
{
    if (err) {
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
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
