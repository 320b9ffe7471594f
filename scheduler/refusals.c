/* refusals.c — counting the scheduler's refusal reasons (refusals.h). */
#include "refusals.h"

#include <stdio.h>
#include <string.h>

void pt_refusals_add(pt_refusals *r, const char *msg)
{
    if (!msg || !msg[0])
        msg = "no reason given";
    r->total++;
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->msg[i], msg) == 0) {
            r->count[i]++;
            return;
        }
    if (r->n == PT_REFUSAL_KINDS)
        return;
    snprintf(r->msg[r->n], PT_ERROR_MAX, "%s", msg);
    r->count[r->n++] = 1;
}

const char *pt_refusals_top(const pt_refusals *r, int64_t *count)
{
    int best = -1;
    for (int i = 0; i < r->n; i++)
        if (best < 0 || r->count[i] > r->count[best])
            best = i;
    *count = best >= 0 ? r->count[best] : 0;
    return best >= 0 ? r->msg[best] : NULL;
}
