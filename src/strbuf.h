/* strbuf.h — a growable text buffer: the JSON writers and the code generators append to it. */
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
void sb_putn(strbuf *sb, const char *s, size_t n);
/* A JSON string literal: quotes, backslashes and control characters escaped (NULL = ""). */
void sb_json_string(strbuf *sb, const char *s);
/* The shortest of %.15g / %.17g that reads back to the same double; null if not finite. */
void sb_json_number(strbuf *sb, double v);
/* The text (caller frees), or NULL when an append failed. Resets the buffer. */
char *sb_take(strbuf *sb);
void sb_free(strbuf *sb);

#endif
