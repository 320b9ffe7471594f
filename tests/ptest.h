/* ptest.h — a tiny test harness: each test binary is one meson test; a failed CHECK prints
 * file:line and the expression, the binary exits 1 if any check failed, 77 to skip. */
#ifndef PTEST_H
#define PTEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ptest_failures;
static int ptest_checks;

#define CHECK(cond)                                                                          \
    do {                                                                                     \
        ptest_checks++;                                                                      \
        if (!(cond)) {                                                                       \
            ptest_failures++;                                                                \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);         \
        }                                                                                    \
    } while (0)

#define CHECK_MSG(cond, ...)                                                                 \
    do {                                                                                     \
        ptest_checks++;                                                                      \
        if (!(cond)) {                                                                       \
            ptest_failures++;                                                                \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);         \
            fprintf(stderr, __VA_ARGS__);                                                    \
            fputc('\n', stderr);                                                             \
        }                                                                                    \
    } while (0)

#define CHECK_NEAR(a, b, tol) CHECK_MSG(fabs((double)(a) - (double)(b)) <= (tol), "%g vs %g", (double)(a), (double)(b))
#define CHECK_STR(a, b) CHECK_MSG(strcmp((a), (b)) == 0, "\"%s\" vs \"%s\"", (a), (b))
#define CHECK_CONTAINS(hay, needle) CHECK_MSG(strstr((hay), (needle)) != NULL, "\"%s\" does not contain \"%s\"", (hay), (needle))

#define PTEST_RUN(fn)                                                                        \
    do {                                                                                     \
        int before_ = ptest_failures;                                                        \
        fn();                                                                                \
        fprintf(stderr, "%s %s\n", ptest_failures == before_ ? "ok  " : "FAIL", #fn);        \
    } while (0)

#define PTEST_END()                                                                          \
    do {                                                                                     \
        fprintf(stderr, "%d checks, %d failed\n", ptest_checks, ptest_failures);             \
        return ptest_failures ? 1 : 0;                                                       \
    } while (0)

#endif
