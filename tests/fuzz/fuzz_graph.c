/* fuzz_graph.c — libFuzzer target: the operator-graph loader, then partition + default
 * sProgram + validation + a short simulation of whatever loads (they must never crash). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "propagate.h"
#include "sim.h"
#include "sprogram.h"
#include "validate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static pt_hw hw;
    static bool hw_ok;
    pt_error err;
    if (!hw_ok)
        hw_ok = pt_hw_load(&hw, "H200", &err);
    pt_graph *g = malloc(sizeof *g);
    if (!g)
        return 0;
    if (pt_graph_load_text(g, "fuzz.json", (const char *)data, size, NULL, &err)) {
        pt_tiling t;
        pt_stask_graph sg;
        pt_tiling_defaults(g, &t);
        if (pt_partition(&sg, g, &t, &err)) {
            pt_sprogram p;
            /* keep simulations small: the fuzzer is after crashes, not long loops */
            if (hw_ok && pt_stask_graph_instances(&sg, sg.iterations) < 20000 &&
                pt_sprogram_default(&p, &sg, &hw, &err)) {
                pt_validation v;
                if (pt_validate(&p, &sg, &hw, &v, &err) && sg.tiles < 100000) {
                    pt_timeline tl = {0};
                    pt_simulate(&p, &sg, &hw, &tl, &err);
                    pt_timeline_free(&tl);
                }
                pt_sprogram_free(&p);
            }
            pt_stask_graph_free(&sg);
        }
    }
    free(g);
    return 0;
}
