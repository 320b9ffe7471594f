/* work.c — a role's work items in every sm90a kernel: the head of its loop over them (the CTA's
 * tiles, split-K's (tile, chunk) items, stream-K's segments), an item's trip count, whether an
 * item runs a range of the loop (k0, n_iter) and the condition under which such an item stores
 * its tile. The producer (producer.c), the consumers of each workload and the TMA transfers
 * (tma.c: a ranged item's origin along the loop) print them. */
#include "shape.h"

bool sm90a_k_ranged(const pt_kprog *kp)
{
    return kp->split_k > 1 || kp->stream_k;
}

const char *sm90a_store_cond(const pt_kprog *kp)
{
    /* stream-K: a tile the CTA has alone, or its fix-up (the tile's last ticket) */
    return kp->stream_k ? "it.parts == 1 || split_ticket[n_tile & 1]"
                        : "split_ticket[n_tile & 1] == SPLIT_K - 1";
}

void sm90a_emit_work_loop(strbuf *sb, const sm90a_shape *sh, const char *ind)
{
    if (sh->kp->stream_k)
        sb_printf(sb, "%ssk_item it;\n"
                      "%sfor (int w = 0; sk_work(blockIdx.x, w, it); ++w, ++n_tile) {\n"
                      "%s    const int t = it.t;  // launch position; iterations [it.k0, it.k0 + it.n_iter) of its loop\n",
                  ind, ind, ind);
    else if (sh->kp->split_k > 1)
        sb_printf(sb, "%sfor (int w = blockIdx.x; w < WORK; w += gridDim.x, ++n_tile) {\n"
                      "%s    const int t = w / SPLIT_K, kc = w %% SPLIT_K;  // tile and its chunk of the loop\n",
                  ind, ind);
    else
        sb_printf(sb, "%s%s {\n", ind, sm90a_tile_for(sh->kp));
}

/* The launch position of a CTA's tile q in runs of RUN positions: CTA i takes runs i, i + grid,
 * ..., so that consecutive tiles share the coordinates a kept ring needs (src/ring_reuse.h); t
 * grows with q. One expression for the loop's walk and for the next tile's position (a product
 * issued a tile ahead), so the two cannot drift apart. q: a primary expression. */
#define RUN_POS(q) "(int)(((int64_t)blockIdx.x + (int64_t)(" q " / RUN) * gridDim.x) * RUN + " q " % RUN)"

const char *sm90a_tile_for(const pt_kprog *kp)
{
    return kp->run > 1 ? "for (int q = 0, t = blockIdx.x * RUN; t < TILES; ++q, ++n_tile, t = " RUN_POS("q") ")"
                       : "for (int t = blockIdx.x; t < TILES; t += gridDim.x, ++n_tile)";
}

const char *sm90a_tile_first(const pt_kprog *kp)
{
    return kp->run > 1 ? "(int)blockIdx.x * RUN" : "(int)blockIdx.x";
}

const char *sm90a_tile_next(const pt_kprog *kp)
{
    return kp->run > 1 ? RUN_POS("(q + 1)") : "t + (int)gridDim.x";
}

void sm90a_emit_iters(strbuf *sb, const sm90a_shape *sh, const char *ind)
{
    if (sh->kp->stream_k)  /* the segment's range of the loop (src/streamk.h) */
        sb_printf(sb, "%sconst int k0 = it.k0, n_iter = it.n_iter;\n", ind);
    else if (sh->kp->split_k > 1)  /* chunk kc runs iterations [kc*I/S, (kc+1)*I/S) (src/splitk.h) */
        sb_printf(sb, "%sconst int k0 = kc * %s / SPLIT_K, n_iter = (kc + 1) * %s / SPLIT_K - k0;\n",
                  ind, sh->iters, sh->iters);
    else
        sb_printf(sb, "%sconst int n_iter = %s;\n", ind, sh->iters);
}
