/* attn_handout.c — the tile loop of a gfx942 attention kernel: static (t += GRID), or, for a
 * persistent causal grid (kp->dynamic: tiles of unequal length, launched longest first), the
 * dynamic hand-out sm90a's attention printer uses — launch positions past the grid claimed one
 * by one from a device-wide counter as each workgroup finishes a tile, so the workgroups that
 * drew the long tiles do not run alone at the end (codegen/ir/pass_grid.c).
 *
 * gfx942 has no producer warp to claim ahead: work-item 0 claims at the top of each tile after
 * the first and passes the position to every wave through LDS, published by the s_barrier of
 * lds_sync. The two 4-byte slots (alternating per tile, so a claim never overwrites the one
 * another wave may still read) sit in the 16-byte pad of row 0 of K's first stage, which no copy
 * and no fragment read touches: the kernel takes no LDS beyond its rings, as the validator and
 * the kernel program count (src/smem_layout.h). */
#include "attn.h"

void gfx942_attn_emit_handout_globals(strbuf *sb, const pt_kprog *kp)
{
    if (kp->dynamic)
        sb_puts(sb, "// Dynamic tile hand-out of this persistent causal kernel: launch positions past the\n"
                    "// grid are claimed one by one (zero at module load; the last workgroup resets them).\n"
                    "__device__ unsigned int pt_next_tile = 0, pt_ctas_done = 0;\n\n");
}

void gfx942_attn_emit_tile_loop(strbuf *sb, const pt_kprog *kp)
{
    if (!kp->dynamic) {
        sb_puts(sb, "    for (int t = (int)pt::block_id_x(); t < TILES; t += GRID) {\n");
        return;
    }
    sb_puts(sb, "    // The hand-out slots: 2 ints in the pad of K's ring row 0 (attn_handout.c).\n"
                "    static_assert(LD - D >= 4, \"two 4-byte slots in the row pad\");\n"
                "    int *const slot = reinterpret_cast<int *>(ring_k + D);\n"
                "    for (int t = (int)pt::block_id_x(), n_tile = 0;; ++n_tile) {\n"
                "        if (n_tile > 0) {  // the next launch position nobody has, claimed once ready for it\n"
                "            if (tid == 0)\n"
                "                slot[n_tile & 1] = GRID + (int)__hip_atomic_fetch_add(&pt_next_tile, 1u, __ATOMIC_RELAXED,\n"
                "                                                                      __HIP_MEMORY_SCOPE_AGENT);\n"
                "            pt::lds_sync();  // every wave sees the claim\n"
                "            t = __builtin_amdgcn_readfirstlane(slot[n_tile & 1]);\n"
                "        }\n"
                "        if (t >= TILES)\n"
                "            break;  // the same t in every wave: all leave together\n");
}

void gfx942_attn_emit_handout_end(strbuf *sb, const pt_kprog *kp)
{
    if (kp->dynamic)
        sb_puts(sb, "    // The last workgroup to finish claiming resets the counters for the next launch.\n"
                    "    if (tid == 0 && __hip_atomic_fetch_add(&pt_ctas_done, 1u, __ATOMIC_RELAXED,\n"
                    "                                           __HIP_MEMORY_SCOPE_AGENT) == GRID - 1) {\n"
                    "        __hip_atomic_store(&pt_next_tile, 0u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);\n"
                    "        __hip_atomic_store(&pt_ctas_done, 0u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);\n"
                    "    }\n");
}
