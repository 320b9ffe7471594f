/* gemm_desc.c — the shared-memory descriptor of wgmma's B operand in a single-matmul kernel,
 * printed by both forms of its k loop: operands from shared memory (gemm_emit.c) and the rows
 * dequantised into registers (gemm_dequant.c). */
#include <stdio.h>

#include "gemm.h"

/* The descriptor db of wgmma's B operand (B's tile, or A's when swapped) at k16 step kk. */
void sm90a_gemm_emit_cols_desc(strbuf *sb, const sm90a_gemm *gm, const char *indent)
{
    const char *cols = gm->swap ? "a" : "b", *cols_ext = gm->swap ? "BM" : "BN";
    if (gm->cols_kmajor)
        sb_printf(sb, "%sconst uint64_t db = pt::desc_sw128(%s + (kk / 4) * (%s * 128) + (kk %% 4) * 32, 16, 1024);\n",
                  indent, cols, cols_ext);
    else
        sb_printf(sb, "%s// MN-major operand: 64-column atoms BK*128 bytes apart, 8-row groups 1024 apart\n"
                      "%sconst uint64_t db = pt::desc_sw128(%s + kk * 16 * 128, BK * 128, 1024);\n",
                  indent, indent, cols);
}
