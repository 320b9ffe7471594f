/* shape.h — what the Hopper printers need to know about a workload's tiles besides the kernel
 * program (codegen/ir/kprog.h): how the kernel names a tile's position (its coordinates after
 * tile_coords), each graph axis's tile origin and extent as kernel expressions, and the trip
 * count of a tile's loop. gemm_plan.c and attn_plan.c fill one each; the shared printers
 * (kernel.c: shared memory and barriers; producer.c: the producer role; work.c: a role's work
 * items; host.c: the tensor maps and the launch) walk the program with it. */
#ifndef PT_SM90A_SHAPE_H
#define PT_SM90A_SHAPE_H

#include "ir/kprog.h"
#include "strbuf.h"

typedef struct {
    const pt_kprog *kp;
    /* per graph axis: its tile origin in the kernel ("tm * BM"), "" where every tile starts
     * at 0 (the axis is not split), and its tile extent as a constant ("BM", "D") */
    char origin[PT_MAX_AXES][24];
    char size[PT_MAX_AXES][12];
    const char *batch;          /* the flattened batch axes' coordinate ("bh"), NULL if none */
    const char *batch_buf[PT_KP_MAX_BUFS]; /* a buffer's own batch coordinate where its tensor
                                              has fewer batch axes ("bh / GROUP"), else NULL */
    const char *coord_decl;     /* declares the coordinates: "int tm, tn;" */
    const char *coord_args;     /* tile_coords' outputs: "tm, tn" */
    const char *iters;          /* the tile's loop trip count: "K_ITERS", "tile_iters(mt)" */
    bool plain;                 /* buffers unswizzled, a TMA box the tile's whole innermost
                                   extent (the combine's f32 tiles, read by CUDA cores), rather
                                   than 128-byte swizzle atoms for wgmma */
    char name[PT_KP_MAX_BUFS][8]; /* each buffer's name in the kernel, by its part in the
                                     workload ("a", "b", "c"; "q", "k", "v", "o") */
    /* a buffer loaded as one unswizzled box per stage (packed 4-bit weights, group scales):
     * its innermost coordinate at iteration i (in the map's elements: bytes for packed data),
     * NULL for the 128-byte swizzled atoms of the rest */
    const char *plain_inner[PT_KP_MAX_BUFS];
    /* the producer's CUDA-core tasks (dequantisation), printed by the workload after the TMA
     * thread's block; NULL when the producer has none */
    void (*producer_tasks)(strbuf *sb, const void *view);
    const void *view;
    /* Maps over every axis of a tensor (its innermost first, at most 5), rather than innermost,
     * next and the batch axes flattened: for tensors whose tile's rows are not their
     * second-innermost axis (Mamba2's x[b, c, l, h, p], a tile of l x p). Every axis then has
     * an origin (batch axes their tile index). A buffer of one element per tile (`flat`, its
     * flat index an expression of the tile coordinates) is mapped as a 1-D tensor and loaded
     * as the 16-byte box around it; plain_buf: unswizzled, the box the tile's whole row. */
    bool full_rank;
    /* A full-rank map's dimensions, innermost first, as positions in the tensor's axes (n_dims
     * of them; 0: the tensor's own order). The axis the warpgroups split is put outside the
     * tile's other axes where wgmma reads the box with descriptors (ChunkScan's x and output,
     * x[b, c, s, h, p] with h inside s): each warpgroup's batch index then lies in rows of its
     * own, one block after another, rather than interleaved row by row. TMA takes any order of
     * 16-byte-multiple strides. */
    int n_dims[PT_KP_MAX_BUFS];
    int dims[PT_KP_MAX_BUFS][5];
    /* How many of the tensor's axes map dimension d covers (0 or 1: one): axes dims[b][d],
     * dims[b][d] - 1, ... (contiguous in row-major storage, each of one element per tile), so
     * that a tensor of 6 axes (Mamba2 with ngroups: x[b, c, l, g, hg, p]) fits TMA's 5. */
    int span[PT_KP_MAX_BUFS][5];
    /* a resident tile each consumer warp hands back (4 x WGS arrivals) although the output is
     * staged over another resident tile (ChunkScan's states and dA_l) */
    bool warp_release[PT_KP_MAX_BUFS];
    bool plain_buf[PT_KP_MAX_BUFS];
    const char *flat[PT_KP_MAX_BUFS];
    /* a flat buffer holding one element per consumer warpgroup (warpgroups on a batch axis):
     * that many 16-byte boxes, flat_stride elements apart in the tensor, 128 bytes apart in
     * shared memory (a TMA destination's alignment); 0 or 1: one box */
    int flat_count[PT_KP_MAX_BUFS];
    int64_t flat_stride[PT_KP_MAX_BUFS];
    /* a buffer the kernel fills from global memory with plain loads, passed as a pointer rather
     * than a tensor map (the combine's log-sum-exps when their rows are not 16-byte strides) */
    bool by_pointer[PT_KP_MAX_BUFS];
    /* A (not full-rank) map's box extent along its flattened batch dimension, 0 for 1: the
     * combine's partial outputs Y [batch..., s, g, d], whose tile takes every split, and the
     * splits lie next to each other there, so one box brings the tile */
    int64_t box_batch[PT_KP_MAX_BUFS];
    /* A buffer over a ragged key axis (ir/attention.h): its map spans the sequence's
     * ragged_rows keys per entry of the batch axes but the pieces' (ragged_pieces of them, so
     * the map's batch extent is divided by it), and row_base is the piece's first key, added to
     * the row origin; 0, 0, NULL otherwise */
    int64_t ragged_rows[PT_KP_MAX_BUFS], ragged_pieces[PT_KP_MAX_BUFS];
    const char *row_base[PT_KP_MAX_BUFS];
} sm90a_shape;

/* The buffer's name in the kernel (sh->name: "a", "q"), and upper case for its constants
 * (STAGES_A, OFF_Q). */
void sm90a_buf_name(const sm90a_shape *sh, int buf, char *lower, char *upper, size_t cap);

/* A resident tile with two copies (kprog.h: stages 2): tile n_tile uses copy n_tile & 1. Its
 * barrier `which` ("full", "empty") as an mbarrier pointer for this tile ("q_full", or
 * "&q_full[n_tile & 1]"), and the phase parity that tile n_tile waits for on it (the full
 * barrier: "n_tile & 1" or "(n_tile >> 1) & 1"). */
void sm90a_resident_bar(const sm90a_shape *sh, int buf, const char *which, char *out, size_t cap);
const char *sm90a_resident_full_parity(const sm90a_shape *sh, int buf);
/* "" for one copy, " + (n_tile & 1) * Q_PITCH" for two: added to OFF_Q. */
void sm90a_resident_copy_offset(const sm90a_shape *sh, int buf, char *out, size_t cap);

/* The map's dimensions of full-rank buffer b, innermost first, as positions in its tensor's axes
 * (sh->dims, or the tensor's own order). Returns how many. */
int sm90a_map_dims(const sm90a_shape *sh, int b, int pos[5]);
/* How many tensor axes map dimension d of buffer b covers (1 unless merged). */
int sm90a_map_span(const sm90a_shape *sh, int b, int d);

/* The device-library TMA call that loads stage `stage` (an expression; NULL: a one-stage
 * buffer) of buffer b at loop
 * iteration i, 64-element swizzle atoms along the innermost axis; `bar` is its full barrier. */
void sm90a_emit_tma_load(strbuf *sb, const sm90a_shape *sh, int b, const char *stage,
                         const char *bar, const char *ind);
/* The TMA store of the staging tile, in 128-byte boxes along the innermost axis. */
void sm90a_emit_tma_store(strbuf *sb, const sm90a_shape *sh, const char *ind);
/* The store of consumer warpgroup part's rows of the staging tile (tiling wg_stores; a
 * full-rank map whose box is one part's), or of the whole tile (part -1, any full-rank map). */
void sm90a_emit_tma_store_part(strbuf *sb, const sm90a_shape *sh, const char *ind, int part);

/* The constants of the buffers: STAGES_X, X_BYTES, X_PITCH, OFF_X, X_CHUNK (staging), OFF_BAR. */
void sm90a_emit_buffer_constants(strbuf *sb, const sm90a_shape *sh);
/* The kernel's start: the aligned shared-memory base, the barriers of every buffer and their
 * initialisation (after prefetching the n_maps tensor maps named tm_<maps[i]>), the tracer. */
void sm90a_emit_kernel_head(strbuf *sb, const sm90a_shape *sh, const char *const *maps, int n_maps);
/* A role's work items (work.c). The head of a role's loop over them, ind its indentation: the
 * CTA's tiles from blockIdx.x in steps of the grid, or with split-K its (tile, chunk) items (t
 * and kc), or with stream-K its segments (sk_work: t and the k range in `it`). */
void sm90a_emit_work_loop(strbuf *sb, const sm90a_shape *sh, const char *ind);
/* The head of a loop over the CTA's whole tiles, one line without its `{`: strided by the
 * grid, or in runs of RUN positions (partition.run; the kernel defines RUN). */
const char *sm90a_tile_for(const pt_kprog *kp);
/* The launch position of the CTA's first tile, and of the tile after t (tile q of a run) in that
 * walk: where a product issued a tile ahead looks (past TILES: the CTA has no such tile). */
const char *sm90a_tile_first(const pt_kprog *kp);
const char *sm90a_tile_next(const pt_kprog *kp);
/* `const int n_iter = ...;` of a work item: the tile's trip count, or its split-K chunk's
 * (k0 and n_iter from t and kc). */
void sm90a_emit_iters(strbuf *sb, const sm90a_shape *sh, const char *ind);
/* Does a work item run a range of the loop (split-K chunk, stream-K segment: k0 and n_iter)? */
bool sm90a_k_ranged(const pt_kprog *kp);
/* The condition under which a split-K or stream-K work item converts and stores its tile. */
const char *sm90a_store_cond(const pt_kprog *kp);
/* The producer role: resident loads once per tile, ring loads per loop step at their offsets,
 * the store where the program puts it on this role. */
void sm90a_emit_producer(strbuf *sb, const sm90a_shape *sh);
/* The first resident buffer (its full barrier carries a dynamic hand-out's tile), -1. */
int sm90a_first_resident(const pt_kprog *kp);
/* The counters of a dynamic tile hand-out (kp->dynamic), which the producer claims tiles from. */
void sm90a_emit_dynamic_globals(strbuf *sb, const pt_kprog *kp);
/* Is the staging tile's release deferred to the producer's next store (producer.c)? */
bool sm90a_staging_release_deferred(const pt_kprog *kp);
/* The store of the staging tile from the consumer role that issues it (kp->store_wg). */
void sm90a_emit_consumer_store(strbuf *sb, const sm90a_shape *sh, const char *ind,
                               const char *issuer);
/* launch.c: a tensor map per buffer, the dynamic shared-memory attribute, the launch and the
 * exported entry points. */
void sm90a_emit_host(strbuf *sb, const sm90a_shape *sh);

#endif
