/* pt_error.h — one-line error reports shared by every layer.
 *
 * Every failing call fills a pt_error with a complete, user-facing line:
 * "<file>: <JSON path or line>: <what is wrong and what was expected>".
 * Callers print it as is; nothing below the CLI/UI prints on its own. */
#ifndef PT_ERROR_H
#define PT_ERROR_H

#include <stdarg.h>
#include <stdbool.h>

#define PT_ERROR_MAX 1024

typedef struct {
    char msg[PT_ERROR_MAX];
} pt_error;

/* printf-style; a NULL err is allowed (the message is dropped). Always returns false so
 * callers can write `return pt_fail(err, ...);`. */
bool pt_fail(pt_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool pt_vfail(pt_error *err, const char *fmt, va_list ap);

#endif
