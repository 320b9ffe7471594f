/* codegen_util.c — what every backend and the bundle writer share, below all of them: names
 * made safe for generated comments and C identifiers, and freeing a generation's texts (see
 * codegen.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

void pt_codegen_result_free(pt_codegen_result *r)
{
    free(r->kernel_cu);
    free(r->host_c);
    r->kernel_cu = r->host_c = NULL;
}

const char *pt_codegen_comment_safe(const char *in, char *out, size_t cap)
{
    static const char keep[] = " ._-+=,:()[]#";
    size_t o = 0;
    if (cap == 0)
        return out;
    for (size_t i = 0; in && in[i] && o + 1 < cap; i++) {
        unsigned char c = (unsigned char)in[i];
        out[o++] = isalnum(c) || (c && strchr(keep, c)) ? (char)c : '_';
    }
    out[o] = 0;
    return out;
}

const char *pt_codegen_c_ident(const char *prefix, const char *name, char *out, size_t cap)
{
    if (cap == 0)
        return out;
    size_t o = 0;
    for (const char *s = prefix ? prefix : ""; *s && o + 1 < cap; s++)
        out[o++] = *s;
    for (const char *s = name ? name : ""; *s && o + 1 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        out[o++] = isalnum(c) || c == '_' ? (char)c : '_';
    }
    if (o == 0 || isdigit((unsigned char)out[0])) { /* no prefix and an empty or digit start */
        if (o + 1 >= cap)
            o = cap - 2;
        memmove(out + 1, out, o);
        out[0] = '_';
        o++;
    }
    out[o] = 0;
    return out;
}
