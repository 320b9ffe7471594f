/* tma.c — the names, constants and TMA transfers of a kernel program's shared-memory buffers.
 *
 * A buffer is a tile of one tensor: 128-byte swizzled, so its innermost axis is moved in atoms
 * of 128 bytes (64 f16 elements) that lie (outer tile extent x 128) bytes apart. A TMA box is
 * one atom wide; its coordinates are each axis's tile origin (the loop axis: iteration i times
 * its tile), with the batch axes flattened into one (the host's tensor map does the same). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "codegen.h"
#include "shape.h"

void sm90a_buf_name(const sm90a_shape *sh, int buf, char *lower, char *upper, size_t cap)
{
    const char *id = sh->name[buf];
    size_t i = 0;
    for (; id[i] && i + 1 < cap; i++) {
        lower[i] = (char)tolower((unsigned char)id[i]);
        upper[i] = (char)toupper((unsigned char)id[i]);
    }
    lower[i] = upper[i] = 0;
}

/* The tensor's axes as the TMA box sees them: innermost, next, and whether batch axes lead. */
static void box_axes(const sm90a_shape *sh, int b, int *inner, int *outer, bool *batched)
{
    const pt_tensor *T = &sh->kp->g->tensors[sh->kp->bufs[b].tensor];
    *inner = T->axes[T->rank - 1];
    *outer = T->axes[T->rank - 2];
    *batched = T->rank > 2;
}

int sm90a_map_dims(const sm90a_shape *sh, int b, int pos[5])
{
    const pt_tensor *T = &sh->kp->g->tensors[sh->kp->bufs[b].tensor];
    int n = sh->n_dims[b] > 0 ? sh->n_dims[b] : T->rank;
    for (int i = 0; i < n && i < 5; i++)
        pos[i] = sh->n_dims[b] > 0 ? sh->dims[b][i] : T->rank - 1 - i;
    return n;
}

int sm90a_map_span(const sm90a_shape *sh, int b, int d)
{
    return sh->n_dims[b] > 0 && d < 5 && sh->span[b][d] > 1 ? sh->span[b][d] : 1;
}

/* The origin of axis a in a transfer at iteration i. */
static const char *origin(const sm90a_shape *sh, int a, char *buf, size_t cap)
{
    if (a == sh->kp->sg->loop_axis)  /* split-K: the chunk's iterations start at k0 */
        snprintf(buf, cap, sm90a_k_ranged(sh->kp) ? "(k0 + i) * %s" : "i * %s", sh->size[a]);
    else
        snprintf(buf, cap, "%s", sh->origin[a]);
    return buf;
}

/* The origin of axis a in warpgroup part's rows of a tile (part -1: the whole tile's): the
 * warpgroups' split axis moves on by the part's share of the tile. */
static const char *part_origin(const sm90a_shape *sh, int a, int part, char *buf, size_t cap)
{
    const pt_stask_graph *sg = sh->kp->sg;
    origin(sh, a, buf, cap);
    size_t n = strlen(buf);
    if (part > 0 && a == sg->split_axis && n + 24 < cap)
        snprintf(buf + n, cap - n, "%s%lld", n ? " + " : "",
                 (long long)(part * (sg->tiling.tile[a] / sh->kp->wgs)));
    return buf;
}

/* A full-rank transfer (shape.h: full_rank) of buffer b: one box per 128-byte atom of the
 * innermost axis (one box when unswizzled), the coordinates every axis's origin. `load`: into
 * smem at `dst` completing on `bar`, else the store of the staging tile, or (part >= 0, tiling
 * wg_stores) of warpgroup part's rows of it: the map's box is one part's, and a part's rows lie
 * together in each atom. */
static void full_rank_copy(strbuf *sb, const sm90a_shape *sh, int b, const char *dst,
                           const char *bar, const char *ind, bool load, int part)
{
    const pt_kprog *kp = sh->kp;
    const pt_kbuf *B = &kp->bufs[b];
    const pt_tensor *T = &kp->g->tensors[B->tensor];
    char lo[8], up[8], o[48];
    sm90a_buf_name(sh, b, lo, up, sizeof lo);
    if (sh->flat[b] && sh->flat_count[b] > 1) {  /* one 16-byte box per warpgroup's element, each
                                                    at a 128-byte aligned address (TMA's rule) */
        sb_printf(sb, "%sfor (int w = 0; w < %d; ++w)  // each consumer warpgroup's batch index\n"
                      "%s    pt::tma_load_1d(%s + w * 128, &tm_%s, %s, (int)((%s + (int64_t)w * %lld) & ~%d));\n",
                  ind, sh->flat_count[b], ind, dst, lo, bar, sh->flat[b],
                  (long long)sh->flat_stride[b], 16 / B->elem_bytes - 1);
        return;
    }
    if (sh->flat[b]) {  /* the 16-byte box around the tile's one element */
        sb_printf(sb, "%spt::tma_load_1d(%s, &tm_%s, %s, (int)((%s) & ~%d));\n", ind, dst, lo, bar,
                  sh->flat[b], 16 / B->elem_bytes - 1);
        return;
    }
    int inner = T->axes[T->rank - 1];
    bool plain = sh->plain_buf[b];
    int64_t rows = B->bytes / B->row_bytes, atom = 128 / B->elem_bytes;
    const char *ax = kp->g->axes[inner].name;
    char at[128];
    snprintf(at, sizeof at, "%s", dst);
    if (part > 0)
        snprintf(at, sizeof at, "%s + %lld", dst, (long long)(part * rows / kp->wgs * 128));
    dst = at;
    if (plain)
        sb_printf(sb, "%s{   const int a = 0;  // one unswizzled box: the tile's rows one after another\n", ind);
    else
        sb_printf(sb, "%sfor (int a = 0; a < %lld; ++a) {  // 128-byte swizzle atoms along %s\n", ind,
                  (long long)((B->row_bytes + 127) / 128), ax);
    int pos[5], n = sm90a_map_dims(sh, b, pos);
    if (load)
        sb_printf(sb, "%s    pt::tma_load_%dd(%s + a * %lld, &tm_%s, %s, ", ind, n, dst,
                  (long long)(rows * 128), lo, bar);
    else
        sb_printf(sb, "%s    pt::tma_store_%dd(&tm_%s, %s + a * %lld, ", ind, n, lo, dst,
                  (long long)(rows * 128));
    for (int d = 0; d < n; d++) {
        part_origin(sh, T->axes[pos[d]], part, o, sizeof o);
        if (d == 0) {
            sb_printf(sb, "%s%sa * %lld", o, o[0] ? " + " : "", (long long)atom);
            continue;
        }
        int span = sm90a_map_span(sh, b, d);
        if (span == 1) {
            sb_printf(sb, ", %s", o[0] ? o : "0");
            continue;
        }
        /* merged axes (unit tiles, shape.h span): from the outermost's origin, each inner
         * axis multiplies by its extent and adds its own origin */
        sb_puts(sb, ", ");
        for (int k = 1; k < span; k++)
            sb_puts(sb, "(");
        for (int k = span - 1; k >= 0; k--) {
            int a = T->axes[pos[d] - k];
            part_origin(sh, a, part, o, sizeof o);
            if (k < span - 1)
                sb_printf(sb, ") * %lld + ", (long long)kp->g->axes[a].extent);
            sb_puts(sb, o[0] ? o : "0");
        }
    }
    sb_printf(sb, ");\n%s}\n", ind);
}

void sm90a_emit_tma_load(strbuf *sb, const sm90a_shape *sh, int b, const char *stage,
                         const char *bar, const char *ind)
{
    if (sh->full_rank) {
        char lo[8], up[8], dst[96];
        sm90a_buf_name(sh, b, lo, up, sizeof lo);
        if (stage)
            snprintf(dst, sizeof dst, "smem + OFF_%s + %s * %s_PITCH", up, stage, up);
        else
            snprintf(dst, sizeof dst, "smem + OFF_%s", up);
        full_rank_copy(sb, sh, b, dst, bar, ind, true, -1);
        return;
    }
    int inner, outer;
    bool batched;
    box_axes(sh, b, &inner, &outer, &batched);
    char lo[8], up[8], oi[48], oo[96];
    sm90a_buf_name(sh, b, lo, up, sizeof lo);
    origin(sh, inner, oi, sizeof oi);
    origin(sh, outer, oo, sizeof oo);
    if (sh->row_base[b]) { /* a piece of a ragged sequence: its keys from the piece's first */
        char rel[96];
        snprintf(rel, sizeof rel, "%s", oo);
        snprintf(oo, sizeof oo, "%.40s%s%.48s", sh->row_base[b], rel[0] ? " + " : "", rel);
    }
    char at[48] = "";
    if (stage)
        snprintf(at, sizeof at, " + %s * %s_PITCH", stage, up);
    if (sh->plain_inner[b]) {  /* one unswizzled box: the rows of a stage lie one after another */
        sb_printf(sb, "%spt::tma_load_2d(smem + OFF_%s%s, &tm_%s, %s, %s, %s);\n", ind, up, at, lo,
                  bar, sh->plain_inner[b], oo[0] ? oo : "0");
        return;
    }
    sb_printf(sb, "%sfor (int a = 0; a < (%s + 63) / 64; ++a)  // 64-wide swizzle atoms along %s\n"
                  "%s    pt::tma_load_%dd(smem + OFF_%s%s + a * (%s * 128), &tm_%s, %s,\n"
                  "%s                    %s%sa * 64, %s%s%s);\n",
              ind, sh->size[inner], sh->kp->g->axes[inner].name, ind, batched ? 3 : 2, up, at,
              sh->size[outer], lo, bar, ind, oi, oi[0] ? " + " : "", oo[0] ? oo : "0",
              batched ? ", " : "", !batched ? "" : sh->batch_buf[b] ? sh->batch_buf[b] : sh->batch);
}

void sm90a_emit_tma_store(strbuf *sb, const sm90a_shape *sh, const char *ind)
{
    const pt_kprog *kp = sh->kp;
    if (sh->full_rank) {
        sm90a_emit_tma_store_part(sb, sh, ind, -1);
        return;
    }
    int b = kp->staging, inner, outer;
    bool batched;
    box_axes(sh, b, &inner, &outer, &batched);
    char lo[8], up[8], oi[48], oo[48];
    sm90a_buf_name(sh, b, lo, up, sizeof lo);
    origin(sh, inner, oi, sizeof oi);
    origin(sh, outer, oo, sizeof oo);
    sb_printf(sb, "%sfor (int c = 0; c < (%s + %s_CHUNK - 1) / %s_CHUNK; ++c)  // 128-byte boxes along %s\n"
                  "%s    pt::tma_store_%dd(&tm_%s, smem + OFF_%s + c * (%s * 128), %s%sc * %s_CHUNK, %s%s%s);\n",
              ind, sh->size[inner], up, up, kp->g->axes[inner].name, ind, batched ? 3 : 2, lo, up,
              sh->size[outer], oi, oi[0] ? " + " : "", up, oo[0] ? oo : "0", batched ? ", " : "",
              batched ? sh->batch : "");
}

void sm90a_emit_tma_store_part(strbuf *sb, const sm90a_shape *sh, const char *ind, int part)
{
    char lo[8], up[8], src[48];
    sm90a_buf_name(sh, sh->kp->staging, lo, up, sizeof lo);
    snprintf(src, sizeof src, "smem + OFF_%s", up);
    full_rank_copy(sb, sh, sh->kp->staging, src, NULL, ind, false, part);
}

/* The bytes a buffer's loads bring (its expect_tx). A swizzled box is whole 128-byte atoms, so
 * a row brings the buffer's padded row; a plain kernel's box is the tile's own innermost
 * extent (host.c), so its rows bring only that, whatever the buffer's padded footprint. */
static long long tx_bytes(const sm90a_shape *sh, const pt_kbuf *B)
{
    int b = (int)(B - sh->kp->bufs);
    if (sh->flat[b] && sh->flat_count[b] > 1)
        return 16LL * sh->flat_count[b];
    if (!sh->plain || B->row_bytes <= 0)
        return (long long)B->tx_bytes;
    const pt_stask *t = &sh->kp->sg->tasks[B->stask];
    int64_t rows = B->tx_bytes / B->row_bytes;
    return (long long)(rows * t->tile[t->rank - 1] * B->elem_bytes);
}

void sm90a_emit_buffer_constants(strbuf *sb, const sm90a_shape *sh)
{
    const pt_kprog *kp = sh->kp;
    if (kp->run > 1)
        sb_printf(sb, "constexpr int RUN = %d;  // launch positions a CTA takes in a row (partition.run)\n",
                  kp->run);
    sb_puts(sb, "// Shared memory (bytes from the 1024-aligned base): each buffer's stages, the bytes a\n"
                "// stage's loads bring, its pitch (1024-aligned for the 128-byte swizzle) and offset;\n"
                "// the barriers after them.\n");
    for (int b = 0; b < kp->n_bufs; b++) {
        const pt_kbuf *B = &kp->bufs[b];
        char lo[8], up[8];
        sm90a_buf_name(sh, b, lo, up, sizeof lo);
        if (B->kind == PT_KBUF_RING && B->written)
            sb_printf(sb, "constexpr int STAGES_%s = %d, %s_PITCH = %lld, OFF_%s = %lld;  // ring written in the kernel\n",
                      up, B->stages, up, (long long)B->pitch, up, (long long)B->offset);
        else if (B->kind == PT_KBUF_RING)
            sb_printf(sb, "constexpr int STAGES_%s = %d, %s_BYTES = %lld, %s_PITCH = %lld, OFF_%s = %lld;  // ring\n",
                      up, B->stages, up, tx_bytes(sh, B), up, (long long)B->pitch, up,
                      (long long)B->offset);
        else if (B->kind == PT_KBUF_RESIDENT && B->stages > 1)
            sb_printf(sb, "constexpr int STAGES_%s = %d, %s_BYTES = %lld, %s_PITCH = %lld, OFF_%s = %lld;  // resident, two copies: the next tile's loads during this one\n",
                      up, B->stages, up, tx_bytes(sh, B), up, (long long)B->pitch, up,
                      (long long)B->offset);
        else if (B->kind == PT_KBUF_RESIDENT)
            sb_printf(sb, "constexpr int %s_BYTES = %lld, OFF_%s = %lld;  // resident: one tile per output tile\n",
                      up, tx_bytes(sh, B), up, (long long)B->offset);
        else if (B->kind == PT_KBUF_STAGING && sh->plain)
            sb_printf(sb, "constexpr int OFF_%s = %lld;  // %lld bytes staged %s, unswizzled: one store box\n",
                      up, (long long)B->offset, (long long)B->bytes,
                      B->over >= 0 ? "over a resident tile" : "apart");
        else if (B->kind == PT_KBUF_ROWS)
            sb_printf(sb, "[[maybe_unused]] constexpr int OFF_%s = %lld;  // %lld bytes, one f32 per row, in the layout\n"
                          "// the model counts; the rows go from the threads that hold them to global memory\n",
                      up, (long long)B->offset, (long long)B->bytes);
        else
            sb_printf(sb, "constexpr int OFF_%s = %lld, %s_CHUNK = %d;  // %lld bytes staged %s; %d elements per store box\n",
                      up, (long long)B->offset, up, 128 / B->elem_bytes, (long long)B->bytes,
                      B->over >= 0 ? "over a resident tile's rows" : "apart", 128 / B->elem_bytes);
    }
    sb_printf(sb, "constexpr int OFF_BAR = %lld;\n", (long long)kp->off_bar);
    if (kp->cluster)
        sb_printf(sb, "// split-K through the cluster: the leader's slots for the other chunks' partial tiles\n"
                      "// (%s), then the barrier they arrive on (and, over the rings, the leader's \"rings free\")\n"
                      "constexpr int OFF_CL = %lld, OFF_CLBAR = %lld;\n",
                  kp->cluster_over_rings ? "over its rings, once its loop is done" : "after the barriers",
                  (long long)kp->off_cluster, (long long)kp->off_clbar);
}
