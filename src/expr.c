/* expr.c — a small recursive-descent evaluator for size expressions. Depth is bounded so a
 * hostile "((((...))))" cannot exhaust the stack. */
#include "expr.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define EXPR_MAX_DEPTH 64
#define EXPR_LIMIT ((int64_t)1 << 62)

typedef struct {
    const char *s;
    const pt_graph *g;
    char *why;
    size_t cap;
    int depth;
    bool failed;
} parser;

static int64_t fail(parser *p, const char *msg, const char *at)
{
    if (!p->failed)
        snprintf(p->why, p->cap, "%s at \"%.16s\"", msg, at && *at ? at : "(end)");
    p->failed = true;
    return 0;
}

static void skip(parser *p)
{
    while (*p->s == ' ' || *p->s == '\t')
        p->s++;
}

static int64_t parse_sum(parser *p);

/* cdiv(a, b): a / b rounded up (the pieces of length b that cover a), for a >= 0, b > 0. */
static int64_t parse_cdiv(parser *p)
{
    if (++p->depth > EXPR_MAX_DEPTH)
        return fail(p, "nested too deeply", p->s);
    p->s++; /* the '(' */
    int64_t a = parse_sum(p);
    skip(p);
    if (p->failed)
        return 0;
    if (*p->s != ',')
        return fail(p, "cdiv takes two sizes: expected ','", p->s);
    p->s++;
    const char *at = p->s;
    int64_t b = parse_sum(p);
    skip(p);
    if (p->failed)
        return 0;
    if (*p->s != ')')
        return fail(p, "missing ')'", p->s);
    p->s++;
    p->depth--;
    if (b <= 0 || a < 0)
        return fail(p, "cdiv(a, b) needs a >= 0 and b > 0", at);
    return (a + b - 1) / b;
}

static int64_t parse_atom(parser *p)
{
    skip(p);
    if (p->failed)
        return 0;
    if (*p->s == '(') {
        if (++p->depth > EXPR_MAX_DEPTH)
            return fail(p, "nested too deeply", p->s);
        p->s++;
        int64_t v = parse_sum(p);
        skip(p);
        if (*p->s != ')')
            return fail(p, "missing ')'", p->s);
        p->s++;
        p->depth--;
        return v;
    }
    if (*p->s == '-') {
        p->s++;
        return -parse_atom(p);
    }
    if (isdigit((unsigned char)*p->s)) {
        int64_t v = 0;
        while (isdigit((unsigned char)*p->s)) {
            if (v > (EXPR_LIMIT - 9) / 10)
                return fail(p, "number too large", p->s);
            v = v * 10 + (*p->s - '0');
            p->s++;
        }
        return v;
    }
    if (isalpha((unsigned char)*p->s) || *p->s == '_') {
        char name[PT_NAME_MAX];
        size_t n = 0;
        const char *start = p->s;
        while (isalnum((unsigned char)*p->s) || *p->s == '_') {
            if (n + 1 >= sizeof name)
                return fail(p, "name too long", start);
            name[n++] = *p->s++;
        }
        name[n] = 0;
        skip(p);
        if (strcmp(name, "cdiv") == 0 && *p->s == '(')
            return parse_cdiv(p);
        int i = pt_graph_find_param(p->g, name);
        if (i < 0) {
            if (!p->failed)
                snprintf(p->why, p->cap, "parameter \"%s\" is not defined in \"params\"", name);
            p->failed = true;
            return 0;
        }
        return p->g->params[i].value;
    }
    return fail(p, "expected a number, a parameter or '('", p->s);
}

static int64_t parse_product(parser *p)
{
    int64_t v = parse_atom(p);
    for (;;) {
        skip(p);
        char op = *p->s;
        if (p->failed || (op != '*' && op != '/'))
            return v;
        const char *at = p->s++;
        int64_t r = parse_atom(p);
        if (p->failed)
            return 0;
        if (op == '*') {
            if (v != 0 && (r > EXPR_LIMIT / (v < 0 ? -v : v) || r < -EXPR_LIMIT / (v < 0 ? -v : v)))
                return fail(p, "result too large", at);
            v *= r;
        } else {
            if (r == 0)
                return fail(p, "division by zero", at);
            if (v % r != 0) {
                snprintf(p->why, p->cap, "%lld / %lld does not divide exactly", (long long)v,
                         (long long)r);
                p->failed = true;
                return 0;
            }
            v /= r;
        }
    }
}

static int64_t parse_sum(parser *p)
{
    int64_t v = parse_product(p);
    for (;;) {
        skip(p);
        char op = *p->s;
        if (p->failed || (op != '+' && op != '-'))
            return v;
        const char *at = p->s++;
        int64_t r = parse_product(p);
        if (p->failed)
            return 0;
        v = op == '+' ? v + r : v - r;
        if (v > EXPR_LIMIT || v < -EXPR_LIMIT)
            return fail(p, "result too large", at);
    }
}

bool pt_expr_eval(const char *expr, const pt_graph *g, int64_t *out, char *why, size_t cap)
{
    parser p = {.s = expr, .g = g, .why = why, .cap = cap};
    int64_t v = parse_sum(&p);
    skip(&p);
    if (!p.failed && *p.s)
        fail(&p, "unexpected text", p.s);
    if (p.failed)
        return false;
    *out = v;
    return true;
}
