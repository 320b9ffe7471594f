/* dtype.c — names and sizes of element types. */
#include "dtype.h"

#include <string.h>

static const struct {
    const char *name;
    int bits;
} dtypes[PT_DTYPE_COUNT] = {
    [PT_F16] = {"f16", 16},      [PT_BF16] = {"bf16", 16},   [PT_F32] = {"f32", 32},
    [PT_FP8_E4M3] = {"fp8-e4m3", 8}, [PT_INT4] = {"int4", 4}, [PT_FP4_E2M1] = {"fp4-e2m1", 4},
};

const char *pt_dtype_name(pt_dtype d)
{
    return (unsigned)d < PT_DTYPE_COUNT ? dtypes[d].name : "?";
}

bool pt_dtype_parse(const char *s, pt_dtype *out)
{
    for (int i = 0; i < PT_DTYPE_COUNT; i++)
        if (strcmp(s, dtypes[i].name) == 0) {
            *out = (pt_dtype)i;
            return true;
        }
    return false;
}

int pt_dtype_bits(pt_dtype d)
{
    return (unsigned)d < PT_DTYPE_COUNT ? dtypes[d].bits : 0;
}

bool pt_dtype_is_4bit(pt_dtype d)
{
    return pt_dtype_bits(d) == 4;
}

const char *pt_dtype_names(void)
{
    return "f16, bf16, f32, fp8-e4m3, int4, fp4-e2m1";
}
