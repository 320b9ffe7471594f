/* dtype.h — element types of tensors and their storage sizes. */
#ifndef PT_DTYPE_H
#define PT_DTYPE_H

#include <stdbool.h>

typedef enum {
    PT_F16,
    PT_BF16,
    PT_F32,
    PT_FP8_E4M3,
    PT_INT4,
    PT_FP4_E2M1,
    PT_DTYPE_COUNT
} pt_dtype;

const char *pt_dtype_name(pt_dtype d);          /* "f16", "bf16", "fp8-e4m3", ... */
bool pt_dtype_parse(const char *s, pt_dtype *out);
int pt_dtype_bits(pt_dtype d);                   /* 16, 16, 32, 8, 4, 4 */
bool pt_dtype_is_4bit(pt_dtype d);
/* Comma-separated list of every name, for "expected one of ..." messages. */
const char *pt_dtype_names(void);

#endif
