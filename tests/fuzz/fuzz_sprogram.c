/* fuzz_sprogram.c — libFuzzer target: the sProgram loader against two built-in graphs, then
 * validation, simulation, sm90a code generation (GEMM and attention planners: whatever they do
 * not refuse is printed) and saving of whatever loads. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "embedded.h"
#include "sim.h"
#include "sprogram.h"
#include "validate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static pt_graph graphs[2];
    static pt_hw hw;
    static bool ready;
    static const char *names[2] = {"gemm_f16", "flash_attention"};
    static const char *sets[2] = {NULL, "S=1024"};
    pt_error err;
    if (!ready) {
        for (int i = 0; i < 2; i++) {
            const char *t = pt_embedded_find(pt_embedded_examples, names[i]);
            if (!t || !pt_graph_load_text(&graphs[i], names[i], t, strlen(t), sets[i], &err))
                abort();
        }
        if (!pt_hw_load(&hw, "H200", &err))
            abort();
        ready = true;
    }
    for (int i = 0; i < 2; i++) {
        pt_sprogram p;
        pt_stask_graph sg;
        if (!pt_sprogram_load_text(&p, &sg, &graphs[i], "fuzz.json", (const char *)data, size,
                                   &err))
            continue;
        pt_validation v;
        if (pt_validate(&p, &sg, &hw, &v, &err) &&
            pt_stask_graph_instances(&sg, sg.iterations) < 50000) {
            pt_timeline tl = {0};
            pt_simulate(&p, &sg, &hw, &tl, &err);
            pt_timeline_free(&tl);
            pt_codegen_result r;
            if (pt_codegen_sm90a(&p, &sg, &hw, &r, &err))
                pt_codegen_result_free(&r);
        }
        char *text = pt_sprogram_to_json(&p, &sg);
        free(text);
        pt_sprogram_free(&p);
        pt_stask_graph_free(&sg);
    }
    return 0;
}
