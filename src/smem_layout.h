/* smem_layout.h — how generated kernels for a hardware model lay out shared memory (LDS).
 *
 * The validator, the simulator's staging decision and the kernel program (codegen/ir/
 * pass_buffers.c) size buffers by these rules, so a program the validator accepts is one the
 * generator can place, and the count is neither too small (a refusal at generation) nor too
 * large (good programs refused). The rules follow the vendor's generator:
 *   NVIDIA (sm90a): 128-byte swizzled TMA/wgmma tiles on 1 KiB, rows longer than one atom
 *     stored as whole atoms, a full and an empty mbarrier per ring stage, the output staged in
 *     shared memory for the TMA store, resident tiles (attention's Q) in shared memory;
 *   AMD (gfx942): rows padded by 16 bytes against LDS bank conflicts, 16-byte alignment, no
 *     barrier memory (s_barrier / s_waitcnt), the output written from registers (no staging
 *     tile) and resident tiles read once into registers (each wave's Q rows are its own). */
#ifndef PT_SMEM_LAYOUT_H
#define PT_SMEM_LAYOUT_H

#include "hw.h"

typedef struct {
    bool staged_store;      /* the output tile passes through shared memory before the store */
    bool resident_in_smem;  /* a prologue load (one tile per output tile) has a buffer */
    bool atoms;             /* rows longer than 128 bytes take whole 128-byte swizzle atoms */
    int row_pad;            /* bytes added to every row of a loaded tile */
    int align;              /* every buffer starts on this many bytes */
    int barrier_bytes;      /* per ring stage (full + empty mbarrier) */
    int base_bytes;         /* the validator's bookkeeping barriers (pipeline start, epilogue) */
} pt_smem_layout;

/* The rules for hw (NULL: NVIDIA's, the rules every caller without a model had before). */
void pt_smem_layout_of(const pt_hw *hw, pt_smem_layout *l);

#endif
