/* release_lint.h — for tests: whether a generated sm90a kernel hands back every stage or
 * resident tile its warps read on the CUDA cores only once those reads have surely returned
 * (codegen/ir/pass_step.c, decision 4; docs/CODEGEN-sm90a.md): an arrival right after the
 * warp's own reads ("// this warp read the stage", "// this warp holds ...", the decode
 * combine's "// this warp is done with ...") must follow a
 * proxy fence within the four lines before it, and the rows-dequantising low-bit GEMM's release
 * block ("this warp has read its rows") must fence before its first arrival. Releases with the
 * wgmma group the values feed ("of iteration i is complete: the stages ... read go back") need
 * no fence and are counted. Returns the number of unfenced releases, the first one's text in
 * `where`. */
#ifndef PT_TEST_RELEASE_LINT_H
#define PT_TEST_RELEASE_LINT_H

#include <stdio.h>
#include <string.h>

typedef struct {
    int immediate; /* released right after the reads, behind a fence */
    int deferred;  /* released with the wgmma group the values feed */
    int unfenced;  /* released right after the reads without a fence: the race */
} pt_release_lint;

static inline int pt_release_lint_kernel(const char *k, pt_release_lint *out, char *where, size_t cap)
{
    pt_release_lint r = {0, 0, 0};
    if (where && cap)
        where[0] = 0;
    static const char *marks[] = {"// this warp read the stage", "// this warp holds", "// this warp is done with"};
    for (int m = 0; m < 3; m++)
        for (const char *p = strstr(k, marks[m]); p; p = strstr(p + 1, marks[m])) {
            const char *q = p;
            for (int lines = 0; q > k && lines < 4; q--)
                lines += *q == '\n';
            size_t n = (size_t)(p - q);
            char window[512];
            if (n > sizeof window - 1)
                n = sizeof window - 1;
            memcpy(window, q, n);
            window[n] = 0;
            if (strstr(window, "pt::fence_proxy_async();"))
                r.immediate++;
            else if (r.unfenced++ == 0 && where && cap)
                snprintf(where, cap, "%s", window);
        }
    static const char rows[] = "this warp has read its rows";
    for (const char *p = strstr(k, rows); p; p = strstr(p + 1, rows)) {
        const char *arrive = strstr(p, "pt::mbar_arrive(");
        const char *fence = strstr(p, "pt::fence_proxy_async();");
        if (arrive && fence && fence < arrive)
            r.immediate++;
        else if (r.unfenced++ == 0 && where && cap)
            snprintf(where, cap, "%.300s", p);
    }
    static const char deferred[] = "of iteration i is complete: the stages ";
    for (const char *p = strstr(k, deferred); p; p = strstr(p + 1, deferred))
        r.deferred++;
    if (out)
        *out = r;
    return r.unfenced;
}

#endif
