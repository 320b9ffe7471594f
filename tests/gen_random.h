/* gen_random.h — what the random sProgram generator's files share (tests/gen_random_sprogram.c:
 * the modes and the GEMM, attention and low-bit draws; gen_random_more.c: Mamba2 and
 * FlashDecoding; gen_random_util.c: the pieces below). */
#ifndef PT_GEN_RANDOM_H
#define PT_GEN_RANDOM_H

#include <stdbool.h>
#include <stdint.h>

#include "propagate.h"
#include "sprogram.h"

extern bool small_sizes; /* --small: problems compute-sanitizer gets through quickly */

/* ---- a small seeded generator (splitmix64) ---- */
typedef struct {
    uint64_t s;
} rng;

uint64_t next_u64(rng *r);
int uni(rng *r, int lo, int hi); /* [lo, hi] */
bool chance(rng *r, int percent);
int pick(rng *r, const int *v, int n);
/* Sizes with a bias to the small and the ragged: half the time a few tiles, sometimes one. */
int draw_extent(rng *r, int multiple, int max);

/* ---- one draw ---- */
typedef struct {
    char workload[32];
    char set[160];          /* graph overrides, P=V,... */
    char tile[96];          /* --tile spec */
    char edits[512];        /* what was changed from the default sProgram, for people */
    pt_graph g;
    pt_hw hw;
    pt_stask_graph sg;
    pt_sprogram p;
    bool have_sg, have_p;
} draw;

/* Sometimes (30%) a persistent program of whole tiles (causal ones too) runs its tiles in runs
 * (partition.run), and then often with every ring one stage per iteration, which a run keeps
 * across full tiles (src/ring_reuse.h). */
void draw_run(draw *d, rng *r);
void draw_free(draw *d);
/* Add "what changed" to d->edits, for people (replay.txt). */
void note(draw *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int stask(const draw *d, const char *id);
/* Re-append an sTask on its own lane at a new position and/or offset. */
bool move_to(draw *d, int s, int pos, int offset, pt_error *err);
int entry_offset(const draw *d, int s);
bool set_offset(draw *d, const char *id, int offset, pt_error *err);
/* 30%: the stores move to a TMA lane of a random consumer warpgroup (of wgs). */
void store_role(draw *d, rng *r, int wgs, pt_error *err);
/* The stores on consumer warpgroup w's own TMA lane. */
void store_role_on(draw *d, int w, pt_error *err);
/* d->workload's built-in graph with d->set, on H200. */
bool load_graph(draw *d, pt_error *err);
/* Partition with d->tile over the graph's defaults; the default sProgram. */
bool partition_default(draw *d, pt_error *err);

/* gen_random_more.c: draws of Mamba2's ChunkState and ChunkScan and FlashDecoding's partial and
 * combine; false with the reason when the draw is not even set up. */
bool draw_ssd_state(draw *d, rng *r, pt_error *err);
bool draw_ssd_scan(draw *d, rng *r, pt_error *err);
bool draw_decoding(draw *d, rng *r, pt_error *err);
bool draw_unsplit(draw *d, rng *r, pt_error *err);
bool draw_combine(draw *d, rng *r, pt_error *err);

#endif
