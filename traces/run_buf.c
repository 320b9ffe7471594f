/* run_buf.c — the runner's growable byte buffers (a capped reply, a kept tail of stderr)
 * and its clock. */
#include "run_parts.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

bool run_buf_add(run_buf *b, const char *p, size_t n, size_t max)
{
    if (b->n + n > max) {
        b->full = true;
        return false;
    }
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 8192;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *ns = realloc(b->s, cap);
        if (!ns) {
            b->full = true;
            return false;
        }
        b->s = ns;
        b->cap = cap;
    }
    memcpy(b->s + b->n, p, n);
    b->n += n;
    b->s[b->n] = 0;
    return true;
}

/* Keep only the last STDERR_KEEP bytes (from a line start where possible). */
void run_buf_add_tail(run_buf *b, const char *p, size_t n)
{
    if (n > STDERR_KEEP) {
        p += n - STDERR_KEEP;
        n = STDERR_KEEP;
    }
    if (b->n + n > 2 * STDERR_KEEP) {
        size_t drop = b->n + n - STDERR_KEEP;
        if (drop > b->n)
            drop = b->n;
        memmove(b->s, b->s + drop, b->n - drop);
        b->n -= drop;
    }
    run_buf_add(b, p, n, 4 * STDERR_KEEP);
}

double run_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}
