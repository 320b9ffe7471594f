/* streamk.h — stream-K (partition.stream_k = G): the work partition every layer shares.
 *
 * A stream-K program runs on a persistent grid of CTAs. With T output tiles (in launch order)
 * and I iterations of the reduction loop per tile, the first DP = G * floor(T / G) tiles are
 * data-parallel: CTA g runs launch positions g, g + G, ... whole. The last SK = T mod G tiles
 * ("the remainder wave", all tiles when T < G) are stream-K: their SK * I (tile, k-iteration)
 * pairs, numbered u = s * I + k for SK tile s, are cut into GS = min(grid, SK * I) contiguous
 * ranges, CTA g taking [lo(g), lo(g + 1)) with lo(g) = floor(g * SK * I / GS), so every CTA's
 * share differs by at most one iteration and none is empty. A CTA walks its range tile by
 * tile: one segment per tile it touches. A tile whose iterations one CTA covers is stored by
 * it; a tile shared by `parts` CTAs (consecutive ones: first .. first + parts - 1) is fixed up
 * as split-K's are: each takes a ticket from the tile's counter after its loop, the first
 * parts - 1 publish their partial f32 tile to their own workspace slot (slot 0 for the CTA's
 * first segment, 1 for its last: only those can be partial) and count themselves done, and
 * the last adds the others' slots and stores. Nobody waits for a CTA that has not finished its
 * loop, so no launch order deadlocks. The grid launched is G when T >= G (every CTA has DP
 * tiles), else GS. The validator, the simulator, the scheduler and the generator all read
 * these definitions (docs/FORMAT-sprogram.md, partition.stream_k). */
#ifndef PT_STREAMK_H
#define PT_STREAMK_H

#include <stdbool.h>
#include <stdint.h>

#include "sprogram.h"

#define PT_MAX_STREAM_K 1024

typedef struct {
    int64_t tiles, iters;    /* T and I */
    int64_t grid;            /* CTAs launched */
    int64_t dp_per_cta;      /* floor(T / G): whole tiles each CTA runs first */
    int64_t dp_tiles;        /* G * dp_per_cta: the stream-K tiles start at this position */
    int64_t sk_tiles;        /* T mod G */
    int64_t sk_iters;        /* sk_tiles * I */
    int64_t sk_ctas;         /* GS: CTAs sharing the stream-K iterations (0: none) */
} pt_stream_k;

/* One segment: the part of one tile's loop a CTA runs. */
typedef struct {
    int64_t tile;            /* launch position */
    int64_t sk;              /* stream-K tile index (tile - dp_tiles), -1 for a DP tile */
    int64_t first_iter, iters;
    int64_t first_cta;       /* the CTAs sharing the tile: first_cta .. first_cta + parts - 1 */
    int parts;               /* 1: this CTA runs the whole tile and stores it */
    int slot;                /* this CTA's workspace slot for it: 0 first segment, 1 last */
} pt_sk_segment;

/* The program's stream_k (0: off). */
int pt_sprogram_stream_k(const pt_sprogram *p);

/* The partition of T tiles of I iterations over a grid of G; false when G < 1, T < 1 or I < 1. */
bool pt_stream_k_init(pt_stream_k *s, int64_t tiles, int64_t iters, int64_t G);
/* lo(g): the first stream-K iteration of CTA g (sk_iters for g >= sk_ctas). */
int64_t pt_stream_k_lo(const pt_stream_k *s, int64_t cta);
/* The CTA whose range holds stream-K iteration u (0 <= u < sk_iters). */
int64_t pt_stream_k_cta_of(const pt_stream_k *s, int64_t u);
/* How many segments CTA g runs (DP tiles, then its stream-K segments). */
int64_t pt_stream_k_segments(const pt_stream_k *s, int64_t cta);
/* Segment w (0 <= w < pt_stream_k_segments) of CTA g. */
void pt_stream_k_segment(const pt_stream_k *s, int64_t cta, int64_t w, pt_sk_segment *seg);
/* The workspace's partial f32 tiles: two slots per stream-K CTA where any tile is shared. */
int64_t pt_stream_k_ws_tiles(const pt_stream_k *s);

#endif
