/* sm90a_generate.h — for tests: the sm90a bundle of a built-in example with --set `set` and
 * --tile `tile` (NULL: the graph's defaults) and the default sProgram of that tiling on the
 * H200, as `pipethreader-cli codegen EXAMPLE --set SET --tile TILE --target sm90a` writes it.
 * False with the reason in e (out emptied) when any step refuses. */
#ifndef PT_TEST_SM90A_GENERATE_H
#define PT_TEST_SM90A_GENERATE_H

#include <string.h>

#include "codegen.h"
#include "embedded.h"
#include "propagate.h"

static inline bool pt_test_sm90a_generate(const char *example, const char *set, const char *tile,
                                          pt_codegen_result *out, pt_error *e)
{
    const char *text = pt_embedded_find(pt_embedded_examples, example);
    pt_graph g;
    pt_hw hw;
    pt_tiling t;
    pt_stask_graph sg;
    pt_sprogram p;
    memset(out, 0, sizeof *out);
    if (!text)
        return pt_fail(e, "no built-in example %s", example);
    if (!pt_graph_load_text(&g, example, text, strlen(text), set, e) || !pt_hw_load(&hw, "H200", e))
        return false;
    pt_tiling_defaults(&g, &t);
    if ((tile && !pt_tiling_parse(&g, tile, "--tile", &t, e)) || !pt_partition(&sg, &g, &t, e))
        return false;
    bool ok = pt_sprogram_default(&p, &sg, &hw, e); /* frees what it made when it fails */
    if (ok) {
        ok = pt_codegen_sm90a(&p, &sg, &hw, out, e);
        pt_sprogram_free(&p);
    }
    pt_stask_graph_free(&sg);
    return ok;
}

#endif
