/* expr.h — size expressions in graph files: "S", "4096", "S/256", "(B*H)", "2*D", "cdiv(S, L)". */
#ifndef PT_EXPR_H
#define PT_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph.h"

/* Integer arithmetic (+ - * / with parentheses; / must divide exactly; cdiv(a, b) divides
 * rounding up) over the graph's parameters. On failure writes the reason into why[cap] and returns false. Results are
 * kept within +-2^62 (overflow is an error, never wraps). */
bool pt_expr_eval(const char *expr, const pt_graph *g, int64_t *out, char *why, size_t cap);

#endif
