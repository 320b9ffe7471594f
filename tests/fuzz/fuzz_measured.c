/* fuzz_measured.c — libFuzzer target: the profiling layer's parsers of what comes back from a
 * GPU run: the instrumented kernel's trace buffer (first byte 0) and the harness's JSON result
 * line (first byte 1). Neither may crash on any input. */
#include <stdint.h>
#include <string.h>

#include "measured.h"
#include "runner.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    pt_error err;
    if (data[0] == 0) {
        pt_measured m;
        /* a GEMM's sTask-graph (7 sTasks) on the default lanes (5) */
        if (pt_measured_parse(&m, "fuzz.bin", data + 1, size - 1, 7, 5, &err)) {
            pt_measured_place(&m, 1000, 50000);
            pt_measured_free(&m);
        }
    } else {
        pt_harness_result h;
        pt_harness_parse(&h, "fuzz.json", (const char *)data + 1, size - 1, &err);
    }
    return 0;
}
