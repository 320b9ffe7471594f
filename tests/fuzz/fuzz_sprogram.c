/* fuzz_sprogram.c — libFuzzer target: the sProgram loader against three built-in graphs, then
 * validation, simulation, sm90a code generation (GEMM, attention and Mamba2 ChunkScan planners:
 * whatever they do not refuse is printed) and saving of whatever loads. */
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
    enum { N_GRAPHS = 3 };
    static pt_graph graphs[N_GRAPHS];
    static pt_hw hw;
    static bool ready;
    static const char *names[N_GRAPHS] = {"gemm_f16", "flash_attention", "mamba2_chunk_scan"};
    static const char *sets[N_GRAPHS] = {NULL, "S=1024", "B=1,S=512,H=4"};
    pt_error err;
    if (!ready) {
        for (int i = 0; i < N_GRAPHS; i++) {
            const char *t = pt_embedded_find(pt_embedded_examples, names[i]);
            if (!t || !pt_graph_load_text(&graphs[i], names[i], t, strlen(t), sets[i], &err))
                abort();
        }
        if (!pt_hw_load(&hw, "H200", &err))
            abort();
        ready = true;
    }
    for (int i = 0; i < N_GRAPHS; i++) {
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
