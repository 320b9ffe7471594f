/* host.c — launch.c of every sm90a kernel: one TMA tensor map per buffer, the dynamic
 * shared-memory attribute, the launch, and the entry points the harness and the profiler call
 * (codegen.h).
 *
 * A buffer's map covers its whole tensor: the innermost axis, the next one, and the batch axes
 * flattened into a third dimension (row-major storage makes them one stride apart); the box is
 * one 128-byte swizzle atom of the innermost axis (unswizzled: a stage's whole row) by the
 * tile's extent along the next. */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "shape.h"
#include "staging.h"

static const char *tmap_type(pt_dtype d)
{
    return d == PT_BF16 ? "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16"
           : d == PT_F16 ? "CU_TENSOR_MAP_DATA_TYPE_FLOAT16"
                         : "CU_TENSOR_MAP_DATA_TYPE_FLOAT32";
}

/* The L2 promotion of a map, from the longest contiguous run of global memory one stage's loads
 * read. Promoting a 128-byte request to 256 bytes fetches the neighbouring 128 bytes into L2:
 * that pays where a stage reads 128 bytes of a longer row and the next stage reads the rest
 * (a k tile of 64 half-precision elements), but where the same stage also reads those bytes
 * (two swizzle atoms of a 256-byte row, or whole 128-byte rows back to back) the requests
 * overlap (likely some bytes are fetched twice): on the H200 a TMA ring of such boxes read 4.09 TB/s
 * with 256-byte promotion against 4.42 with 128-byte or none (bench/tma/promotion_probe.cu, modes 0
 * and 3), and 4.23 against 4.06 the other way round for 128 bytes of 8-KB rows (mode 6). */
static const char *l2_promotion(int64_t run_bytes)
{
    return run_bytes < 256 ? "CU_TENSOR_MAP_L2_PROMOTION_L2_256B" : "CU_TENSOR_MAP_L2_PROMOTION_L2_128B";
}

/* The map of buffer b over its whole tensor: the innermost axis, the next one, and the batch
 * axes flattened into a third dimension (row-major storage makes them one stride apart). A
 * swizzled box is one 128-byte atom wide; an unswizzled one (shape.h: plain, plain_inner) is a
 * stage's whole row. Packed 4-bit data is mapped as bytes. */
/* A map over every axis of the tensor (shape.h: full_rank): its innermost first with the
 * strides of row-major storage, the box the tile's extent on each axis (one 128-byte atom
 * along the innermost, or the tile's whole row unswizzled); a flat buffer is the tensor as
 * one row of elements with a 16-byte box. */
static void emit_full_rank_map(strbuf *sb, const sm90a_shape *sh, int b)
{
    const pt_kprog *kp = sh->kp;
    const pt_kbuf *B = &kp->bufs[b];
    const pt_tensor *T = &kp->g->tensors[B->tensor];
    const pt_stask *st = &kp->sg->tasks[B->stask];
    char lo[8], up[8], dims[160] = "", strides[160] = "", box[96] = "";
    sm90a_buf_name(sh, b, lo, up, sizeof lo);
    bool plain = sh->plain_buf[b] || sh->flat[b];
    int64_t stride = B->elem_bytes, numel = 1, run = 0, at[PT_MAX_RANK];
    bool run_open = true;  /* the stage's run of contiguous bytes still extends outward */
    /* a ragged pair (graph.h) stores its sequence: the piece axis spans it, the count none */
    int r = pt_tensor_ragged_pos(kp->g, T);
    for (int i = T->rank - 1; i >= 0; i--) {  /* row-major storage, whatever the map's order */
        int64_t ext = i == r       ? kp->g->axes[T->axes[i]].split_total
                      : i == r - 1 ? 1
                                   : kp->g->axes[T->axes[i]].extent,
                tile = st->tile[i] > 0 ? st->tile[i] : ext;
        if (i == T->rank - 1) {  /* a stage reads its row whole: one box, or atoms side by side */
            int64_t row = ext * B->elem_bytes, got = plain ? tile * B->elem_bytes : B->row_bytes;
            run = got < row ? got : row;
            run_open = run == row;
        } else if (run_open) {
            run *= tile < ext ? tile : ext;
            run_open = tile >= ext;
        }
        at[i] = stride;
        stride *= ext;
        numel *= ext;
    }
    int pos[5], nd = sm90a_map_dims(sh, b, pos);
    for (int d = 0; d < nd; d++) {  /* the map's dimensions, innermost first (shape.h: dims) */
        int i = pos[d];
        int64_t ext = kp->g->axes[T->axes[i]].extent, tile = st->tile[i] > 0 ? st->tile[i] : ext;
        for (int k = 1; k < sm90a_map_span(sh, b, d); k++) {  /* merged unit-tile axes */
            ext *= kp->g->axes[T->axes[i - k]].extent;
            tile *= st->tile[i - k] > 0 ? st->tile[i - k] : 1;
        }
        if (r > 0 && i >= r && i - sm90a_map_span(sh, b, d) < r - 1) /* the pair: the sequence */
            ext = ext / (kp->g->axes[T->axes[r]].extent * kp->g->axes[T->axes[r - 1]].extent) *
                  kp->g->axes[T->axes[r]].split_total;
        size_t n = strlen(dims);
        snprintf(dims + n, sizeof dims - n, "%s%lldu", n ? ", " : "", (long long)ext);
        if (d > 0) {
            n = strlen(strides);
            snprintf(strides + n, sizeof strides - n, "%s%lldu", n ? ", " : "", (long long)at[i]);
        }
        n = strlen(box);
        int64_t bx = d == 0 ? (plain ? tile : 128 / B->elem_bytes) : tile;
        snprintf(box + n, sizeof box - n, "%s%lld", n ? ", " : "", (long long)bx);
    }
    sb_printf(sb, "    if (r == CUDA_SUCCESS) {  /* %s, every axis */\n", T->name);
    if (sh->flat[b])
        sb_printf(sb, "        const cuuint64_t dims[1] = {%lldu}, strides[1] = {0};\n"
                      "        const cuuint32_t box[1] = {%d};  // the 16 bytes around a tile's one element\n"
                      "        r = map_tile(&tm_%s, %s, slots[%d], 1, dims, strides, box, CU_TENSOR_MAP_SWIZZLE_NONE,\n"
                      "                     %s);\n    }\n",
                  (long long)numel, 16 / B->elem_bytes, lo, tmap_type(T->dtype), B->tensor,
                  l2_promotion(16));
    else
        sb_printf(sb, "        const cuuint64_t dims[%d] = {%s}, strides[%d] = {%s};\n"
                      "        const cuuint32_t box[%d] = {%s};\n"
                      "        r = map_tile(&tm_%s, %s, slots[%d], %d, dims, strides, box, %s,\n"
                      "                     %s);\n    }\n",
                  nd, dims, nd > 1 ? nd - 1 : 1, nd > 1 ? strides : "0",
                  nd, box, lo, tmap_type(T->dtype), B->tensor, nd,
                  plain ? "CU_TENSOR_MAP_SWIZZLE_NONE" : "CU_TENSOR_MAP_SWIZZLE_128B", l2_promotion(run));
}

static void emit_map(strbuf *sb, const sm90a_shape *sh, int b)
{
    const pt_kprog *kp = sh->kp;
    const pt_kbuf *B = &kp->bufs[b];
    if (B->written)  /* made in shared memory by the kernel: no tensor map */
        return;
    if (sh->full_rank) {
        emit_full_rank_map(sb, sh, b);
        return;
    }
    const pt_tensor *T = &kp->g->tensors[B->tensor];
    int inner = T->axes[T->rank - 1], outer = T->axes[T->rank - 2];
    int64_t n_in = kp->g->axes[inner].extent, n_out = kp->g->axes[outer].extent, batch = 1;
    for (int i = 0; i < T->rank - 2; i++)
        batch *= kp->g->axes[T->axes[i]].extent;
    if (sh->ragged_rows[b] > 0) { /* the whole sequence per entry of the other batch axes */
        n_out = sh->ragged_rows[b];
        batch /= sh->ragged_pieces[b];
    }
    bool packed = B->elem_bits < 8, plain = sh->plain || sh->plain_inner[b];
    int64_t map_elem = packed ? 1 : B->elem_bytes, row = (n_in * B->elem_bits + 7) / 8;
    /* a staged tensor (staging.c): the map keeps the true extents, its rows the buffer's pitch */
    int64_t stride = B->staged ? pt_staged_pitch(kp->g, B->tensor) : row;
    char base[32];
    snprintf(base, sizeof base, B->staged ? "st_%d" : "slots[%d]", B->tensor);
    /* a plain kernel (the combine) lays every box out dense, rows of the tile's own extent,
     * while the buffer's row_bytes may be padded to whole atoms (192 bytes to 256) */
    int64_t box_in = sh->plain ? kp->sg->tasks[B->stask].tile[kp->sg->tasks[B->stask].rank - 1]
                     : plain   ? B->row_bytes / map_elem
                               : 128 / B->elem_bytes;
    const char *sw = plain ? "CU_TENSOR_MAP_SWIZZLE_NONE" : "CU_TENSOR_MAP_SWIZZLE_128B";
    /* the "fragments" packing: a lane reads one 16-byte column of 8 rows, which the swizzle of
     * the stage row's width spreads over the banks (pt_dequant.cuh frag_packed_load) */
    if (packed && T->packing == PT_PACK_FRAGMENTS && plain)
        sw = B->row_bytes == 32   ? "CU_TENSOR_MAP_SWIZZLE_32B"
             : B->row_bytes == 64 ? "CU_TENSOR_MAP_SWIZZLE_64B"
                                  : "CU_TENSOR_MAP_SWIZZLE_128B";
    const char *type = packed ? "CU_TENSOR_MAP_DATA_TYPE_UINT8" : tmap_type(T->dtype);
    /* the contiguous bytes a stage reads: its row, or whole rows back to back */
    int64_t got = plain ? box_in * map_elem : B->row_bytes, run = got < row ? got : row;
    if (run == row && stride == row)
        run *= B->box_rows;
    const char *promo = l2_promotion(run);
    char lo[8], up[8];
    sm90a_buf_name(sh, b, lo, up, sizeof lo);
    int64_t box_batch = sh->box_batch[b] > 0 ? sh->box_batch[b] : 1;
    sb_printf(sb, "    if (r == CUDA_SUCCESS) {  /* %s[%lld x %lld%s]%s, box %lld x %lld",
              T->name, (long long)n_out, (long long)n_in, T->rank > 2 ? " per batch" : "",
              packed ? " packed two a byte" : "", (long long)box_in, (long long)B->box_rows);
    if (box_batch > 1)
        sb_printf(sb, " x %lld", (long long)box_batch);
    sb_puts(sb, " */\n");
    if (T->rank > 2)
        sb_printf(sb, "        const cuuint64_t dims[3] = {%lldu, %lldu, %lldu}, strides[2] = {%lldu, %lldu};\n"
                      "        const cuuint32_t box[3] = {%lld, %lld, %lld};\n"
                      "        r = map_tile(&tm_%s, %s, %s, 3, dims, strides, box, %s,\n"
                      "                     %s);\n    }\n",
                  (long long)(row / map_elem), (long long)n_out, (long long)batch, (long long)stride,
                  (long long)(stride * n_out), (long long)box_in, (long long)B->box_rows,
                  (long long)box_batch, lo, type, base, sw, promo);
    else
        sb_printf(sb, "        const cuuint64_t dims[2] = {%lldu, %lldu}, strides[1] = {%lldu};\n"
                      "        const cuuint32_t box[2] = {%lld, %lld};\n"
                      "        r = map_tile(&tm_%s, %s, %s, 2, dims, strides, box, %s,\n"
                      "                     %s);\n    }\n",
                  (long long)(row / map_elem), (long long)n_out, (long long)stride, (long long)box_in,
                  (long long)B->box_rows, lo, type, base, sw, promo);
}

void sm90a_emit_host(strbuf *sb, const sm90a_shape *sh)
{
    const pt_kprog *kp = sh->kp;
    char lo[8], up[8], args[256] = "";
    sb_printf(sb, "/* launch.c — generated by PipeThreader: host launcher of %s (CUDA driver API). */\n"
                  "#include <cuda.h>\n#include <stdint.h>\n\n"
                  "/* A tensor map: dims[0] innermost, strides in bytes. */\n"
                  "static CUresult map_tile(CUtensorMap *map, CUtensorMapDataType type, CUdeviceptr base,\n"
                  "                         cuuint32_t rank, const cuuint64_t *dims, const cuuint64_t *strides,\n"
                  "                         const cuuint32_t *box, CUtensorMapSwizzle swizzle,\n"
                  "                         CUtensorMapL2promotion promotion)\n{\n"
                  "    const cuuint32_t elem_strides[%s] = {%s};\n"
                  "    return cuTensorMapEncodeTiled(map, type, rank, (void *)base, dims, strides, box, elem_strides,\n"
                  "                                  CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,\n"
                  "                                  promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);\n}\n\n",
              kp->kernel_name, sh->full_rank ? "5" : "3", sh->full_rank ? "1, 1, 1, 1, 1" : "1, 1, 1");
    sm90a_emit_staging_helper(sb, kp);
    sb_printf(sb, "/* Slots are graph tensors; each buffer of the kernel gets a map of its tensor. */\n"
                  "static int launch(CUmodule mod, const CUdeviceptr *slots, CUdeviceptr trace, CUstream stream)\n{\n"
                  "    CUfunction f;\n"
                  "    CUresult r = cuModuleGetFunction(&f, mod, \"%s\");\n"
                  "    CUtensorMap ",
              kp->kernel_name);
    int n_maps = 0;
    for (int b = 0; b < kp->n_bufs; b++) {
        if (kp->bufs[b].written)
            continue;
        sm90a_buf_name(sh, b, lo, up, sizeof lo);
        size_t n = strlen(args);
        if (kp->bufs[b].kind == PT_KBUF_ROWS || sh->by_pointer[b]) { /* a pointer, no map */
            snprintf(args + n, sizeof args - n, "%s(void *)&slots[%d]", n ? ", " : "",
                     kp->bufs[b].tensor);
            continue;
        }
        sb_printf(sb, "%stm_%s", n_maps ? ", " : "", lo);
        snprintf(args + n, sizeof args - n, "%s&tm_%s", n ? ", " : "", lo);
        n_maps++;
    }
    sb_puts(sb, ";\n");
    sm90a_emit_staging_in(sb, kp);
    for (int b = 0; b < kp->n_bufs; b++)
        if (kp->bufs[b].kind != PT_KBUF_ROWS && !sh->by_pointer[b])
            emit_map(sb, sh, b);
    strbuf after = {0};
    sm90a_emit_staging_out(&after, kp);
    sm90a_emit_launch_tail(sb, args, after.text ? after.text : "", kp->smem_dynamic, kp->grid,
                           kp->threads, sm90a_pdl_role(kp) == SM90A_PDL_DEPENDENT);
    sb_free(&after);
    sm90a_emit_entry_points(sb, kp->grid, 1 + kp->wgs + (kp->producer.n_tasks > 0 ? 1 : 0), kp->trace_cap);
}
