/* attn.h — the gfx942 (MI300X) target's view of an attention kernel program (matmul →
 * online_softmax → matmul, FlashAttention forward; codegen/ir/kprog.h).
 *
 * attn_plan.c reads what MFMA and LDS need (batch·heads, sequences, head dim, 32 query rows
 * per wave, the K and V rings, a VGPR estimate) and refuses in one line what they cannot do;
 * attn_emit.c prints the kernel: every wave loads its own Q rows into registers, all waves
 * share the K/V loads into LDS rings (as the GEMM's rings: gemm.h), and each wave runs its
 * role's step — one pt_tile_hip.h call per sTask — on S^T = K·Q^T in the transposed MFMA
 * layout the tile library describes. */
#ifndef PT_GFX942_ATTN_H
#define PT_GFX942_ATTN_H

#include "gemm.h"
#include "ir/attention.h"

typedef struct {
    const pt_kprog *kp;
    const pt_graph *g;
    pt_kattn a;                  /* the graph: Q, K, V, O, axes, sizes, dtypes, mask, tile
                                    (ir/attention.h) */
    int waves, threads;          /* 2 waves per consumer role, 32 query rows each */
    gfx942_ring ring[2];         /* K and V in the producer lane's order ('k', 'v') */
    int64_t lds_bytes;
    int vgpr_estimate;
    int64_t tiles_m, kv_blocks;
} gfx942_attn;

bool gfx942_attn_plan(gfx942_attn *at, const pt_kprog *kp, pt_error *err);
bool gfx942_attn_emit(const gfx942_attn *at, pt_codegen_result *out, pt_error *err);
/* attn_handout.c: the tile loop's head (static, or the dynamic hand-out of a persistent causal
 * grid), the hand-out's device counters before the kernel and its reset after the loop. */
void gfx942_attn_emit_handout_globals(strbuf *sb, const pt_kprog *kp);
void gfx942_attn_emit_tile_loop(strbuf *sb, const pt_kprog *kp);
void gfx942_attn_emit_handout_end(strbuf *sb, const pt_kprog *kp);

#endif
