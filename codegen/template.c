/* template.c — @WORD@ substitution for the bundle's text templates (template.h). */
#include "template.h"

#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

/* Length of the placeholder name at s (after its opening '@'), or 0 when s does not start a
 * placeholder: make's "$@ x" and "@echo" are not ones. */
static size_t key_len(const char *s)
{
    size_t n = 0;
    while ((s[n] >= 'A' && s[n] <= 'Z') || (n > 0 && ((s[n] >= '0' && s[n] <= '9') || s[n] == '_')))
        n++;
    return n > 0 && s[n] == '@' ? n : 0;
}

char *pt_template_fill(const char *name, const char *tmpl, const pt_template_var *vars, int n,
                       pt_error *err)
{
    strbuf b = {0};
    const char *s = tmpl;
    while (*s) {
        if (strncmp(s, "@@ ", 3) == 0 && (s == tmpl || s[-1] == '\n')) { /* a note: dropped */
            const char *nl = strchr(s, '\n');
            s = nl ? nl + 1 : s + strlen(s);
            continue;
        }
        const char *at = strchr(s, '@');
        if (!at) {
            sb_puts(&b, s);
            break;
        }
        sb_putn(&b, s, (size_t)(at - s));
        size_t k = key_len(at + 1);
        if (k == 0) {
            sb_putn(&b, "@", 1);
            s = at + 1;
            continue;
        }
        int v = 0;
        while (v < n && !(strlen(vars[v].key) == k && strncmp(vars[v].key, at + 1, k) == 0))
            v++;
        if (v == n) {
            free(sb_take(&b));
            pt_fail(err, "codegen: the template %s has @%.*s@, which has no value", name,
                    (int)k, at + 1);
            return NULL;
        }
        sb_puts(&b, vars[v].value);
        s = at + 1 + k + 1;
    }
    char *out = sb_take(&b);
    if (!out)
        pt_fail(err, "codegen: out of memory filling in %s", name);
    return out;
}
