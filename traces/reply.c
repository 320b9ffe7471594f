/* reply.c — reading what pt-run.sh printed: the PT- lines of its stdout (result, trace,
 * exit status, phases; anything off-contract noted for the message), and the line of its
 * stderr that best says what went wrong. Also pt_excerpt, how reply text is quoted. */
#include "run_parts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Note the first garbled line. */
static void note_garbled(run_reply *ri, const char *line, size_t len, const char *why)
{
    if (ri->garbled)
        return;
    ri->garbled = true;
    pt_excerpt(line, len, 96, ri->garbled_text, sizeof ri->garbled_text);
    snprintf(ri->garbled_why, sizeof ri->garbled_why, "%s", why);
}

/* Where a PT- marker of the contract starts inside the line (after its first byte), or -1. */
static long glued_marker(const char *line, size_t len)
{
    static const char *const marks[] = {"PT-PHASE ", "PT-BUILD-FAILED", "PT-ERROR ", "PT-CUPTI ",
                                        "PT-EXIT ", "PT-RESULT ", "PT-TRACE", NULL};
    for (size_t i = 1; i + 3 <= len; i++) {
        if (memcmp(line + i, "PT-", 3) != 0)
            continue;
        for (int k = 0; marks[k]; k++) {
            size_t m = strlen(marks[k]);
            if (i + m <= len && memcmp(line + i, marks[k], m) == 0)
                return (long)i;
        }
    }
    return -1;
}

static bool next_line(const char *s, size_t n, size_t *pos, const char **line, size_t *len)
{
    if (*pos >= n)
        return false;
    *line = s + *pos;
    const char *nl = memchr(*line, '\n', n - *pos);
    *len = nl ? (size_t)(nl - *line) : n - *pos;
    *pos += *len + (nl ? 1 : 0);
    if (*len && (*line)[*len - 1] == '\r')
        (*len)--;
    return true;
}

static bool starts(const char *line, size_t len, const char *p)
{
    size_t k = strlen(p);
    return len >= k && memcmp(line, p, k) == 0;
}

bool run_parse_reply(const run_buf *out, run_reply *ri, pt_run_result *r, const char *what,
                        pt_error *err)
{
    memset(ri, 0, sizeof *ri);
    const char *s = out->s ? out->s : "";
    size_t n = out->n, pos = 0, len;
    const char *line;
    while (next_line(s, n, &pos, &line, &len)) {
        long glued = glued_marker(line, len);
        if (glued > 0) {
            char why[160];
            if (starts(line, len, "PT-"))
                snprintf(why, sizeof why, "another PT- line is glued into it at byte %ld (a "
                         "line without its newline)", glued);
            else
                snprintf(why, sizeof why, "a PT- line starts at its byte %ld, after other "
                         "output on the same line", glued);
            note_garbled(ri, line, len, why);
        }
        if (starts(line, len, "PT-PHASE build"))
            ri->phase_build = true;
        else if (starts(line, len, "PT-PHASE run"))
            ri->phase_run = true;
        else if (starts(line, len, "PT-BUILD-FAILED"))
            ri->build_failed = true;
        else if (starts(line, len, "PT-ERROR ")) {
            size_t k = len - 9 < sizeof ri->error - 1 ? len - 9 : sizeof ri->error - 1;
            memcpy(ri->error, line + 9, k);
            ri->error[k] = 0;
        } else if (starts(line, len, "PT-CUPTI ")) {
            ri->have_cupti = true;
            ri->cupti = line[9] == '1';
        } else if (starts(line, len, "PT-EXIT ")) {
            char tmp[16];
            size_t k = len - 8 < sizeof tmp - 1 ? len - 8 : sizeof tmp - 1;
            memcpy(tmp, line + 8, k);
            tmp[k] = 0;
            char *end;
            long v = strtol(tmp, &end, 10);
            if (end == tmp || *end || v < 0 || v > 255)
                return pt_fail(err, "%s: the reply's \"PT-EXIT %s\" is not an exit status; "
                               "expected 0 to 255", what, tmp);
            ri->have_exit = true;
            ri->exit_status = (int)v;
        } else if (starts(line, len, "PT-RESULT ")) {
            if (glued < 0 && (len < 12 || line[10] != '{' || line[len - 1] != '}') &&
                !ri->garbled) {
                note_garbled(ri, line, len, "it is not one JSON object after \"PT-RESULT \"");
                ri->garbled_result = true;
            }
            free(r->json);
            r->json = malloc(len - 10 + 1);
            if (!r->json)
                return pt_fail(err, "%s: out of memory", what);
            memcpy(r->json, line + 10, len - 10);
            r->json[len - 10] = 0;
        } else if (starts(line, len, "PT-TRACE ")) {
            char enc[16] = "";
            unsigned long long bytes = 0;
            char tmp[64];
            size_t k = len < sizeof tmp - 1 ? len : sizeof tmp - 1;
            memcpy(tmp, line, k);
            tmp[k] = 0;
            if (sscanf(tmp, "PT-TRACE %15s %llu", enc, &bytes) != 2 ||
                (strcmp(enc, "base64") && strcmp(enc, "hex")))
                return pt_fail(err, "%s: the reply's trace header \"%s\" is malformed; expected "
                               "\"PT-TRACE base64|hex BYTES\"", what, tmp);
            size_t data = pos;
            const char *l2;
            size_t len2, end = n;
            bool closed = false;
            while (next_line(s, n, &pos, &l2, &len2))
                if (starts(l2, len2, "PT-TRACE-END")) {
                    end = (size_t)(l2 - s);
                    closed = true;
                    break;
                }
            if (!closed)
                return pt_fail(err, "%s: the reply's trace ends early (no PT-TRACE-END): the "
                               "transfer was cut", what);
            free(r->trace);
            r->trace = NULL;
            bool dec = !strcmp(enc, "base64")
                           ? pt_base64_decode(s + data, end - data, &r->trace, &r->trace_len)
                           : run_hex_decode(s + data, end - data, &r->trace, &r->trace_len);
            if (!dec)
                return pt_fail(err, "%s: the reply's trace is not valid %s", what, enc);
            if (r->trace_len != bytes)
                return pt_fail(err, "%s: the reply's trace has %zu bytes; expected %llu (its "
                               "header): the transfer was cut", what, r->trace_len, bytes);
        } else if (starts(line, len, "PT-") && !starts(line, len, "PT-PHASE ") &&
                   !starts(line, len, "PT-STEP "))
            note_garbled(ri, line, len, "it starts with \"PT-\" but is no line of the contract");
    }
    return true;
}

/* The last line of stderr that says what went wrong: a "harness:" line, else an error line,
 * else the last non-empty line. */
void run_last_words(const run_buf *errb, char *out, size_t cap)
{
    out[0] = 0;
    const char *s = errb->s ? errb->s : "";
    size_t n = errb->n, pos = 0, len;
    const char *line, *best = NULL, *any = NULL;
    size_t best_len = 0, any_len = 0;
    int best_rank = 0;
    while (next_line(s, n, &pos, &line, &len)) {
        if (len == 0 || starts(line, len, "PT-STEP "))
            continue;
        any = line;
        any_len = len;
        int rank = starts(line, len, "harness:") ? 3 : 0;
        if (!rank) {
            for (size_t i = 0; i + 5 <= len && !rank; i++)
                if (!strncmp(line + i, "error", 5) || !strncmp(line + i, "Error", 5))
                    rank = 2;
        }
        if (rank && rank >= best_rank) {
            best = line;
            best_len = len;
            best_rank = rank;
        }
    }
    if (!best) {
        best = any;
        best_len = any_len;
    }
    if (best) {
        size_t k = best_len < cap - 1 ? best_len : cap - 1;
        memcpy(out, best, k);
        out[k] = 0;
        for (size_t i = 0; i < k; i++)
            if ((unsigned char)out[i] < 32)
                out[i] = ' ';
    }
}

void pt_excerpt(const char *s, size_t len, size_t max, char *out, size_t cap)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0, i = 0;
    if (cap == 0)
        return;
    for (; i < len && i < max; i++) {
        unsigned char c = (unsigned char)s[i];
        char tmp[5];
        size_t k = 0;
        if (c == '"' || c == '\\') {
            tmp[k++] = '\\';
            tmp[k++] = (char)c;
        } else if (c == '\n' || c == '\r' || c == '\t') {
            tmp[k++] = '\\';
            tmp[k++] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
        } else if (c < 32 || c >= 127) {
            tmp[k++] = '\\';
            tmp[k++] = 'x';
            tmp[k++] = hex[c >> 4];
            tmp[k++] = hex[c & 15];
        } else
            tmp[k++] = (char)c;
        if (o + k + 4 > cap) /* room for "..." and the terminator */
            break;
        memcpy(out + o, tmp, k);
        o += k;
    }
    if (i < len && o + 4 <= cap) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = 0;
}
