/* fuzz_trace.c — libFuzzer target: the trace-file reader. */
#include <stdint.h>

#include "timeline_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pt_trace tr;
    pt_error err;
    if (pt_trace_load_text(&tr, "fuzz.json", (const char *)data, size, &err))
        pt_trace_free(&tr);
    return 0;
}
