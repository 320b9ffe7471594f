/* refusals.h — why the scheduler's candidates were refused, counted by reason, so that a
 * search that finds nothing can say what stopped it ("most often: rows of B or C are not a
 * multiple of 16 bytes (N = 1001) ...") instead of a generic list of possible causes. */
#ifndef PT_REFUSALS_H
#define PT_REFUSALS_H

#include <stdint.h>

#include "pt_error.h"

#define PT_REFUSAL_KINDS 32

typedef struct {
    int n;                               /* distinct reasons kept */
    int64_t total;                       /* refusals counted, kept or not */
    char msg[PT_REFUSAL_KINDS][PT_ERROR_MAX];
    int64_t count[PT_REFUSAL_KINDS];
} pt_refusals;

/* Count one refusal (an empty message counts as "no reason given"). Messages that differ only
 * in their numbers are one reason, worded as the one whose first number is smallest (for a
 * shared-memory or register count, the candidate nearest to passing). Once PT_REFUSAL_KINDS
 * distinct reasons are kept, a new one only adds to the total. */
void pt_refusals_add(pt_refusals *r, const char *msg);
/* The reason given most often (the first seen among equals) and its count; NULL when none. */
const char *pt_refusals_top(const pt_refusals *r, int64_t *count);
/* The same among the reasons that do not begin with `skip`, and the overall one where every
 * reason does. */
const char *pt_refusals_top_but(const pt_refusals *r, const char *skip, int64_t *count);

#endif
