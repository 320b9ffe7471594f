/* cta_pack.h — the "Several CTAs" view's predicted rows (issue 19): one EU's whole run, its
 * tiles (CTAs) back to back, instead of one representative tile per wave offset by the wave
 * (a staircase where each group's rows were empty but for one wave's stretch).
 *
 * The simulator times one representative tile and a wave period; every EU runs the same tile
 * schedule, so EUs differ only in how many tiles they run: with T tiles over E EUs (or a
 * persistent grid of E CTAs) the first T mod E run ceil(T/E) tiles and the rest one fewer — they
 * sit idle through the last wave (the tail). pt_cta_classes names those classes; a tile run
 * repeats the representative spans once per tile, tile t shifted by t periods, with their
 * dependencies and the critical path repeated along (so arrows, tooltips and the red path work on
 * any tile), and each lane's idle stretch per tile (the main timeline's rule, first bar to last
 * bar, applied to each tile: over the whole run it tinted lanes busy a moment per tile, such as
 * GEMM's epilogue CUDA-core lanes, from end to end). Plain C, no GTK: unit-tested without a
 * display. */
#ifndef PT_CTA_PACK_H
#define PT_CTA_PACK_H

#include <stdbool.h>
#include <stdint.h>

#include "busy.h"
#include "critical_path.h"
#include "sim.h"

/* Spans kept at most per tile run: a long run draws its first tiles only (the label says so). */
#define PT_CTA_MAX_SPANS 200000

#define PT_CTA_MAX_CLASSES 3

/* EUs grouped by tile count: class k has n_eus[k] EUs (first_eu[k] ..) running tiles[k] tiles
 * each, the busiest first. Tiles are dealt round-robin in runs of `run` consecutive ones
 * (partition.run; 1 = one at a time); a partial last run makes a third class. Returns the
 * number of classes (1 to 3; 0 when there is no tile or no EU). */
int pt_cta_classes(int64_t tiles, int64_t eus, int64_t run, int64_t first_eu[PT_CTA_MAX_CLASSES],
                   int64_t n_eus[PT_CTA_MAX_CLASSES], int64_t tiles_each[PT_CTA_MAX_CLASSES]);

typedef struct {
    int64_t n_spans;
    pt_span *spans;          /* sorted by start */
    int64_t tiles;           /* tiles drawn (may be fewer than asked: PT_CTA_MAX_SPANS) */
    double period_ns;        /* tile t is shifted by t * period_ns */
    pt_span_deps deps;       /* over spans (empty when no base deps were given) */
    int64_t n_critical;
    int64_t *critical;       /* indices into spans: tile 0's path, then tile 1's, … (one
                                tile's last step leads to the next tile's first: the EU going
                                on to its next tile) */
    int idle_lanes;          /* lanes of the base spans (highest lane + 1) */
    pt_interval *idle;       /* tiles * idle_lanes: idle[t * idle_lanes + l] is lane l's first
                                bar start to last bar end in tile t (lo > hi: no bar) */
} pt_cta_run;

/* `tiles` copies of base[0..n_base) (sorted by start), copy t shifted by t * period_ns, sorted
 * by start. deps (may be NULL) and critical (n_critical entries, may be NULL) index base and are
 * repeated for every copy. False when out of memory (r is then empty). */
bool pt_cta_run_build(pt_cta_run *r, const pt_span *base, int64_t n_base, int64_t tiles,
                      double period_ns, const pt_span_deps *deps, const int64_t *critical,
                      int64_t n_critical);
void pt_cta_run_free(pt_cta_run *r);

/* A step function of one tile (at times[k] the value becomes values[k], times ascending, 0
 * before the first) over `tiles` tiles: the sum of its copies, copy t shifted by t * period_ns —
 * a ring's stage occupancy over an EU's whole run (idle.h's pt_ring_occupancy times one tile;
 * a persistent CTA's next tile fills stages while this one drains them, so copies add).
 * Writes malloc'd arrays (equal times merged) and returns their length; -1 when out of memory. */
int64_t pt_cta_repeat_steps(const double *times, const int *values, int64_t n, int64_t tiles,
                            double period_ns, double **out_times, int **out_values);

#endif
