/* fuzz_hw.c — libFuzzer target: the hardware-model loader and its JSON writer. */
#include <stdint.h>
#include <stdlib.h>

#include "hw.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pt_hw hw;
    pt_error err;
    if (pt_hw_load_text(&hw, "fuzz.json", (const char *)data, size, &err)) {
        char *text = pt_hw_to_json(&hw);
        free(text);
    }
    return 0;
}
