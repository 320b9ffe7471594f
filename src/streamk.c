/* streamk.c — stream-K's shared arithmetic: the grid, each CTA's segments and who shares a
 * tile (streamk.h). The generated kernel (codegen/sm90a/gemm_streamk.c) does the same
 * integer arithmetic. */
#include "streamk.h"

int pt_sprogram_stream_k(const pt_sprogram *p)
{
    return p && p->partition.stream_k > 1 ? p->partition.stream_k : 0;
}

bool pt_stream_k_init(pt_stream_k *s, int64_t tiles, int64_t iters, int64_t G)
{
    *s = (pt_stream_k){0};
    if (G < 1 || tiles < 1 || iters < 1)
        return false;
    s->tiles = tiles;
    s->iters = iters;
    s->dp_per_cta = tiles / G;
    s->dp_tiles = G * s->dp_per_cta;
    s->sk_tiles = tiles - s->dp_tiles;
    s->sk_iters = s->sk_tiles * iters;
    /* fewer iterations than CTAs: one each, and no empty range */
    s->grid = tiles >= G ? G : (s->sk_iters < G ? s->sk_iters : G);
    s->sk_ctas = s->sk_iters < s->grid ? s->sk_iters : s->grid;
    return true;
}

int64_t pt_stream_k_lo(const pt_stream_k *s, int64_t cta)
{
    if (cta >= s->sk_ctas || s->sk_ctas < 1)
        return s->sk_iters;
    return cta * s->sk_iters / s->sk_ctas;
}

int64_t pt_stream_k_cta_of(const pt_stream_k *s, int64_t u)
{
    /* the largest g with lo(g) <= u: g * SK < (u + 1) * GS */
    return s->sk_iters > 0 ? ((u + 1) * s->sk_ctas - 1) / s->sk_iters : 0;
}

int64_t pt_stream_k_segments(const pt_stream_k *s, int64_t cta)
{
    if (cta < 0 || cta >= s->grid)
        return 0;
    int64_t lo = pt_stream_k_lo(s, cta), hi = pt_stream_k_lo(s, cta + 1);
    return s->dp_per_cta + (hi > lo ? (hi - 1) / s->iters - lo / s->iters + 1 : 0);
}

void pt_stream_k_segment(const pt_stream_k *s, int64_t cta, int64_t w, pt_sk_segment *seg)
{
    *seg = (pt_sk_segment){.tile = cta + w * s->grid, .sk = -1, .iters = s->iters,
                           .first_cta = cta, .parts = 1};
    if (w < s->dp_per_cta)
        return;
    const int64_t I = s->iters, lo = pt_stream_k_lo(s, cta), hi = pt_stream_k_lo(s, cta + 1);
    const int64_t sk = lo / I + (w - s->dp_per_cta);
    int64_t a = sk * I, b = a + I;
    a = a > lo ? a : lo;
    b = b < hi ? b : hi;
    seg->tile = s->dp_tiles + sk;
    seg->sk = sk;
    seg->first_iter = a - sk * I;
    seg->iters = b > a ? b - a : 0;
    seg->first_cta = pt_stream_k_cta_of(s, sk * I);
    seg->parts = (int)(pt_stream_k_cta_of(s, sk * I + I - 1) - seg->first_cta + 1);
    seg->slot = sk == lo / I ? 0 : 1;
}

int64_t pt_stream_k_ws_tiles(const pt_stream_k *s)
{
    return s->sk_tiles > 0 ? 2 * s->sk_ctas : 0;
}
