/* smem_layout.c — the shared-memory layout rules per vendor (see smem_layout.h). */
#include "smem_layout.h"

#include <string.h>

void pt_smem_layout_of(const pt_hw *hw, pt_smem_layout *l)
{
    if (hw && strcmp(hw->vendor, "amd") == 0) {
        /* gfx942 kernels (codegen/gfx942): static __shared__ arrays, rows of ld = cols + 8
         * 16-bit elements, outputs stored from the MFMA accumulators, Q fragments in VGPRs */
        *l = (pt_smem_layout){.staged_store = false, .resident_in_smem = false, .atoms = false,
                              .row_pad = 16, .align = 16, .barrier_bytes = 0, .base_bytes = 0};
        return;
    }
    *l = (pt_smem_layout){.staged_store = true, .resident_in_smem = true, .atoms = true,
                          .row_pad = 0, .align = 1024, .barrier_bytes = 16, .base_bytes = 64};
}
