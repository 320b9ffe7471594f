/* strbuf.h — a growable text buffer for code generators (printf-style appends). */
#ifndef PT_STRBUF_H
#define PT_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *text;
    size_t len, cap;
    bool failed;  /* out of memory: appends are dropped, sb_take returns NULL */
} strbuf;

void sb_printf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_puts(strbuf *sb, const char *s);
/* The text (caller frees), or NULL when an append failed. Resets the buffer. */
char *sb_take(strbuf *sb);
void sb_free(strbuf *sb);

#endif
