/* refusals.c — counting the scheduler's refusal reasons (refusals.h). */
#include "refusals.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* Two refusals are one reason when they differ only in their numbers: shared memory refused
 * with "needs 266240 bytes" and with "needs 528448 bytes" is one problem, which counted apart
 * would lose to a rarer reason whose text repeats exactly. */
static bool same_reason(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            while (isdigit((unsigned char)*a))
                a++;
            while (isdigit((unsigned char)*b))
                b++;
        } else if (*a++ != *b++)
            return false;
    }
    return *a == *b;
}

/* The first number in a message (the bytes, registers or extent it refuses), or a huge value. */
static double first_number(const char *m)
{
    while (*m && !isdigit((unsigned char)*m))
        m++;
    return *m ? strtod(m, NULL) : HUGE_VAL;
}

void pt_refusals_add(pt_refusals *r, const char *msg)
{
    if (!msg || !msg[0])
        msg = "no reason given";
    r->total++;
    for (int i = 0; i < r->n; i++)
        if (same_reason(r->msg[i], msg)) {
            /* worded as the one nearest to passing: "needs 266240 bytes" says more than the
             * largest tile's need */
            if (first_number(msg) < first_number(r->msg[i]))
                snprintf(r->msg[i], PT_ERROR_MAX, "%s", msg);
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
    return pt_refusals_top_but(r, NULL, count);
}

const char *pt_refusals_top_but(const pt_refusals *r, const char *skip, int64_t *count)
{
    int best = -1;
    size_t k = skip ? strlen(skip) : 0;
    for (int pass = 0; pass < 2 && best < 0; pass++)
        for (int i = 0; i < r->n; i++)
            if ((pass || !k || strncmp(r->msg[i], skip, k) != 0) &&
                (best < 0 || r->count[i] > r->count[best]))
                best = i;
    *count = best >= 0 ? r->count[best] : 0;
    return best >= 0 ? r->msg[best] : NULL;
}
