/* producer.c — the producer role of every sm90a kernel: one thread of warpgroup 0 issues the
 * program's TMA lane.
 *
 * Per tile: each resident tile once (after its readers released the last tile's; with two
 * copies, the tile's before it, so the next tile's loads overlap this one), then the
 * ring loads of every loop step in the lane's order and iteration offsets (an entry at offset
 * o loads iteration v + o in step v; steps run from -max offset so every iteration is loaded
 * once), each into the next stage of its ring once the consumers released it; then, where the
 * program puts the store on this lane, the output tile once every consumer warpgroup staged
 * its rows. A persistent causal program hands tiles out one by one through a global counter
 * (pass_grid); the consumers learn the tile through the resident tile's barrier. */
#include <stdio.h>

#include "codegen.h"
#include "shape.h"

int sm90a_first_resident(const pt_kprog *kp)
{
    for (int b = 0; b < kp->n_bufs; b++)
        if (kp->bufs[b].kind == PT_KBUF_RESIDENT)
            return b;
    return -1;
}

/* The staging tile is released (its empty barrier) right after the store read it, except when
 * a resident tile is loaded per tile and the output is staged apart from it: then the storing
 * thread waits for that read only at the next tile's store, and goes on meanwhile. */
bool sm90a_staging_release_deferred(const pt_kprog *kp)
{
    return sm90a_first_resident(kp) >= 0 && kp->bufs[kp->staging].over < 0;
}

/* Is buffer b a ring or resident tile that runs of tiles keep across them
 * (src/ring_reuse.h)? Not a resident tile the output is staged over, nor one of two copies. */
static bool kept_buf(const pt_kprog *kp, int b)
{
    const pt_kbuf *B = &kp->bufs[b];
    if (B->tensor < 0 || B->tensor >= 32 || !(kp->kept >> B->tensor & 1u))
        return false;
    if (B->kind == PT_KBUF_RING)
        return !B->written;
    return B->kind == PT_KBUF_RESIDENT && B->stages <= 1 && kp->bufs[kp->staging].over != b;
}

static bool kept_ring_any(const pt_kprog *kp)
{
    for (int b = 0; b < kp->n_bufs; b++)
        if (kept_buf(kp, b) && kp->bufs[b].kind == PT_KBUF_RING)
            return true;
    return false;
}

/* A kept ring's key: the coordinates of its tile that the next tile may repeat, as its TMA
 * transfers compute them (tma.c): the origin of each split axis but the loop's, and the batch
 * coordinate. Written to keys[], their count returned. */
static int kept_key(const sm90a_shape *sh, int b, const char **keys, int cap)
{
    const pt_kprog *kp = sh->kp;
    const pt_tensor *T = &kp->g->tensors[kp->bufs[b].tensor];
    int n = 0;
    bool batch = false;
    for (int k = 0; k < T->rank; k++) {
        int a = T->axes[k];
        if (a == kp->sg->loop_axis)
            continue;
        if (!sh->full_rank && kp->g->axes[a].batch)
            batch = true;
        else if (sh->origin[a][0] && n < cap)
            keys[n++] = sh->origin[a];
    }
    const char *bb = sh->batch_buf[b] ? sh->batch_buf[b] : sh->batch;
    if (batch && bb && n < cap)
        keys[n++] = bb;
    if (sh->row_base[b] && n < cap) /* a ragged sequence's piece */
        keys[n++] = sh->row_base[b];
    return n;
}

/* Per tile, before its ring loads: whether each kept ring's coordinates repeat the last tile's
 * (keep_x), and this tile's for the next. */
static void emit_kept_keys(strbuf *sb, const sm90a_shape *sh, const char *ind)
{
    const pt_kprog *kp = sh->kp;
    char lo[8], up[8];
    for (int b = 0; b < kp->n_bufs; b++) {
        if (!kept_buf(kp, b))
            continue;
        sm90a_buf_name(sh, b, lo, up, sizeof lo);
        const char *keys[PT_MAX_RANK + 1];
        int n = kept_key(sh, b, keys, PT_MAX_RANK + 1);
        bool ring = kp->bufs[b].kind == PT_KBUF_RING;
        if (ring)
            sb_printf(sb, "%s// %s: its ring holds all %lld iterations; when the last tile had the same\n"
                          "%s// coordinates and ran all of them, every stage still holds the block it\n"
                          "%s// would load\n", ind, kp->sg->tasks[kp->bufs[b].stask].id,
                      (long long)kp->iters, ind, ind);
        else
            sb_printf(sb, "%s// %s: when the last tile had the same coordinates, the tile is still there\n",
                      ind, kp->sg->tasks[kp->bufs[b].stask].id);
        sb_printf(sb, "%sconst bool keep_%s = n_tile > 0", ind, lo);
        if (ring) /* a shorter (causal) tile before this one left the stages shifted */
            sb_printf(sb, " && last_iters == STAGES_%s", up);
        for (int k = 0; k < n; k++)
            sb_printf(sb, " && key_%s[%d] == (int64_t)(%s)", lo, k, keys[k]);
        sb_puts(sb, ";\n");
        for (int k = 0; k < n; k++)
            sb_printf(sb, "%skey_%s[%d] = (int64_t)(%s);\n", ind, lo, k, keys[k]);
    }
    if (kept_ring_any(kp))
        sb_printf(sb, "%slast_iters = n_iter;\n", ind);
}

static void emit_tile_loop(strbuf *sb, const sm90a_shape *sh)
{
    const pt_kprog *kp = sh->kp;
    const char *ind = "                ";
    char lo[8], up[8];
    if (kp->dynamic)
        sb_puts(sb, "            for (int t = blockIdx.x;; ++n_tile) {\n");
    else
        sm90a_emit_work_loop(sb, sh, "            ");
    for (int i = 0; i < kp->n_res; i++) {  /* in the lane's order */
        int b = kp->res_buf[i];
        sm90a_buf_name(sh, b, lo, up, sizeof lo);
        /* apart from the output: its consumers hand it back (the tile staged over is handed
         * back by the store) */
        bool apart = kp->bufs[kp->staging].over != b;
        sb_printf(sb, "%s// %s (prologue): once per tile, %s.\n", ind,
                  kp->sg->tasks[kp->bufs[b].stask].id,
                  apart ? "as soon as the consumers are done with the last one"
                        : "over the rows the last tile's output was staged in");
        /* a producer that stores over these rows waited for that store itself */
        if (kp->bufs[b].stages > 1) /* two copies (staged apart): the one of two tiles ago */
            sb_printf(sb, "%sif (n_tile > 1)\n"
                          "%s    pt::mbar_wait(&%s_empty[n_tile & 1], ((n_tile - 2) >> 1) & 1);  // Wait: every consumer warp is done with the copy of two tiles ago\n",
                      ind, ind, lo);
        else if (apart || kp->store_wg >= 0)
            sb_printf(sb, "%sif (n_tile > 0)\n"
                          "%s    pt::mbar_wait(%s_empty, (n_tile - 1) & 1);  // Wait: %s\n", ind, ind,
                      lo, apart ? "every consumer warp is done with it" : "the last store read its rows");
    }
    int r = sm90a_first_resident(kp);
    if (kp->dynamic) {
        char rbar[48];
        sm90a_resident_bar(sh, r, "full", rbar, sizeof rbar);
        sb_printf(sb, "%s// hand the tile to the consumers with %s's barrier (past the last tile: a\n"
                      "%s// plain arrival, no load, and everyone stops)\n"
                      "%sif (n_tile > 0)  // claimed once ready for it: the next launch position nobody has\n"
                      "%s    t = gridDim.x + (int)atomicAdd(&pt_next_tile, 1u);\n"
                      "%stile_slot[n_tile & 1] = t;\n"
                      "%sif (t >= TILES) {\n"
                      "%s    pt::mbar_arrive(%s);\n"
                      "%s    break;\n"
                      "%s}\n", ind, kp->g->tensors[kp->bufs[r].tensor].name, ind, ind, ind, ind,
                  ind, ind, rbar, ind, ind);
    }
    sb_printf(sb, "%s%s\n%stile_coords(t, %s);\n", ind, sh->coord_decl, ind, sh->coord_args);
    sm90a_emit_iters(sb, sh, ind);
    emit_kept_keys(sb, sh, ind);
    for (int i = 0; i < kp->n_res; i++) {  /* in the lane's order */
        int b = kp->res_buf[i];
        sm90a_buf_name(sh, b, lo, up, sizeof lo);
        char bar[48];
        sm90a_resident_bar(sh, b, "full", bar, sizeof bar);
        sb_printf(sb, "%sPT_REC(%d, %d, n_tile, 0, 0);\n", ind, kp->bufs[b].stask, kp->lane_load);
        bool kept = kept_buf(kp, b);
        char in[40];
        snprintf(in, sizeof in, "%s%s", ind, kept ? "    " : "");
        if (kept)
            sb_printf(sb, "%sif (keep_%s) {  // handed over again, no transfer\n"
                          "%s    pt::mbar_arrive(%s);\n"
                          "%s} else {\n", ind, lo, ind, bar, ind);
        sb_printf(sb, "%spt::mbar_arrive_expect_tx(%s, %s_BYTES);\n", in, bar, up);
        sm90a_emit_tma_load(sb, sh, b, kp->bufs[b].stages > 1 ? "(n_tile & 1)" : NULL, bar, in);
        if (kept)
            sb_printf(sb, "%s}\n", ind);
    }
}

void sm90a_emit_dynamic_globals(strbuf *sb, const pt_kprog *kp)
{
    if (kp->dynamic)
        sb_puts(sb, "// Dynamic tile hand-out of this persistent causal kernel: launch positions past the\n"
                    "// grid are claimed one by one (zero at module load; the last CTA resets them).\n"
                    "__device__ unsigned int pt_next_tile = 0, pt_ctas_done = 0;\n\n");
}

static void emit_ring_loads(strbuf *sb, const sm90a_shape *sh)
{
    const pt_kprog *kp = sh->kp;
    char lo[8], up[8], bar[48];
    sb_printf(sb, "                // Loop steps of the lane: its loads at their iteration offsets.\n"
                  "                for (int v = %d; v < n_iter + %d; ++v) {\n", -kp->off_max,
              -kp->off_min);
    for (int e = 0; e < kp->n_loads; e++) {
        int b = kp->load_buf[e];
        sm90a_buf_name(sh, b, lo, up, sizeof lo);
        snprintf(bar, sizeof bar, "&full_%s[s]", lo);
        sb_printf(sb, "                    {   // %s at iteration v%+d\n"
                      "                        const int i = v + %d;\n"
                      "                        if (i >= 0 && i < n_iter) {\n"
                      "                            const uint32_t s = cnt_%s %% STAGES_%s, ph = (cnt_%s / STAGES_%s) & 1;\n"
                      "                            pt::mbar_wait(&empty_%s[s], ph ^ 1);  // Wait: every warpgroup released the stage\n"
                      "                            PT_REC(%d, %d, n_tile, i, 0);\n",
                  kp->sg->tasks[kp->bufs[b].stask].id, kp->load_offset[e], kp->load_offset[e], lo,
                  up, lo, up, lo, kp->bufs[b].stask, kp->lane_load);
        bool kept = kept_buf(kp, b);
        if (kept)
            sb_printf(sb, "                            if (keep_%s) {  // handed over again, no transfer\n"
                          "                                pt::mbar_arrive(&full_%s[s]);\n"
                          "                            } else {\n", lo, lo);
        const char *in = kept ? "                                " : "                            ";
        sb_printf(sb, "%spt::mbar_arrive_expect_tx(&full_%s[s], %s_BYTES);\n", in, lo, up);
        sm90a_emit_tma_load(sb, sh, b, "s", bar, in);
        if (kept)
            sb_puts(sb, "                            }\n");
        sb_printf(sb, "                            ++cnt_%s;\n"
                      "                        }\n"
                      "                    }\n", lo);
    }
    sb_puts(sb, "                }\n");
}

static void emit_store(strbuf *sb, const sm90a_shape *sh)
{
    const pt_kprog *kp = sh->kp;
    char lo[8], up[8];
    sm90a_buf_name(sh, kp->staging, lo, up, sizeof lo);
    bool deferred = sm90a_staging_release_deferred(kp);
    if (deferred)
        sb_printf(sb, "                if (n_tile > 0) {  // the last store read the staging tile: it may be rewritten\n"
                      "                    pt::tma_store_wait_read();\n"
                      "                    pt::mbar_arrive(%s_empty);\n"
                      "                }\n", lo);
    sb_printf(sb, "                // %s (epilogue of this lane): Wait for every warpgroup's %s.\n"
                  "                pt::mbar_wait(%s_full, n_tile & 1);\n",
              kp->sg->tasks[kp->store_stask].id,
              pt_stask_kind_name(kp->sg->tasks[kp->consumer[0].epilogue.stask].kind), lo);
    bool ranged = sm90a_k_ranged(kp);
    const char *in = ranged ? "                    " : "                ";
    if (ranged)
        sb_printf(sb, "                if (%s) {  // the tile's last %s stores\n",
                  sm90a_store_cond(kp), kp->stream_k ? "CTA" : "chunk");
    sb_printf(sb, "%sPT_REC(%d, %d, n_tile, 0, 0);\n", in, kp->store_stask, kp->store_lane);
    sm90a_emit_tma_store(sb, sh, in);
    sb_printf(sb, "%spt::tma_store_commit();\n", in);
    if (!deferred)
        sb_printf(sb, "%spt::tma_store_wait_read();  // %s\n", in,
                  kp->bufs[kp->staging].over >= 0 ? "the next tile's load may land on these rows"
                                                   : "the staging tile may be rewritten");
    sb_printf(sb, "%sPT_REC(%d, %d, n_tile, 0, 1);\n", in, kp->store_stask, kp->store_lane);
    if (ranged)
        sb_puts(sb, "                }\n");
    if (!deferred && kp->bufs[kp->staging].over < 0)
        sb_printf(sb, "                pt::mbar_arrive(%s_empty);\n", lo);
}

void sm90a_emit_producer(strbuf *sb, const sm90a_shape *sh)
{
    const pt_kprog *kp = sh->kp;
    char lane[PT_LANE_NAME_MAX], lo[32], up[32];
    sb_printf(sb, "    if (wg == 0) {\n"
                  "        // Producer role: lane %s (%d registers per thread).\n"
                  "        pt::regs_decrease<%d>();\n"
                  "        if (threadIdx.x == 0) {\n"
                  "#ifdef PT_TRACE\n"
                  "            tracer.begin(pt_trace, 0, TRACE_ROLES, TRACE_CAP);\n"
                  "#endif\n"
                  "            uint32_t ",
              pt_codegen_comment_safe(kp->p->lanes[kp->lane_load].name, lane, sizeof lane),
              kp->producer.regs, kp->producer.regs);
    for (int b = 0; b < kp->n_bufs; b++)
        if (kp->bufs[b].kind == PT_KBUF_RING && !kp->bufs[b].written) {
            sm90a_buf_name(sh, b, lo, up, sizeof lo);
            sb_printf(sb, "cnt_%s = 0, ", lo);
        }
    sb_puts(sb, "n_tile = 0;\n");
    for (int b = 0; b < kp->n_bufs; b++)
        if (kept_buf(kp, b)) {
            sm90a_buf_name(sh, b, lo, up, sizeof lo);
            sb_printf(sb, "            int64_t key_%s[%d] = {};  // the last tile's coordinates of %s\n",
                      lo, PT_MAX_RANK + 1, kp->g->tensors[kp->bufs[b].tensor].name);
        }
    if (kept_ring_any(kp))
        sb_puts(sb, "            int last_iters = 0;  // the last tile's trip count\n");
    emit_tile_loop(sb, sh);
    emit_ring_loads(sb, sh);
    if (kp->store_wg < 0)
        emit_store(sb, sh);
    sb_puts(sb, "            }\n");
    if (kp->dynamic)
        sb_puts(sb, "            // the last CTA to finish handing out resets the counters for the next launch\n"
                    "            if (atomicAdd(&pt_ctas_done, 1u) == gridDim.x - 1) {\n"
                    "                atomicExch(&pt_next_tile, 0u);\n"
                    "                atomicExch(&pt_ctas_done, 0u);\n"
                    "            }\n");
    if (kp->store_wg < 0)
        sb_puts(sb, "            pt::tma_store_wait_all();\n");
    sb_puts(sb, "#ifdef PT_TRACE\n            tracer.end();\n#endif\n        }\n");
    if (sh->producer_tasks)
        sh->producer_tasks(sb, sh->view);
    sb_puts(sb, "        return;\n    }\n\n");
}

/* The store on a consumer warpgroup's lane. The whole warpgroup waits for the full barrier and
 * only then does the issuing thread (`issuer`, a C condition) store: a spin-wait by one thread
 * inside its branch left ptxas keeping more registers live across the divergent loop, and at 152
 * per thread (three consumer warpgroups) the attention kernels spilled 400 bytes. The other
 * threads lose nothing: the warpgroup's next wgmma waits for the issuing warp anyway. */
void sm90a_emit_consumer_store(strbuf *sb, const sm90a_shape *sh, const char *ind,
                               const char *issuer)
{
    const pt_kprog *kp = sh->kp;
    char lo[8], up[8], rl[8], ru[8];
    sm90a_buf_name(sh, kp->staging, lo, up, sizeof lo);
    int over = kp->bufs[kp->staging].over;
    bool deferred = sm90a_staging_release_deferred(kp);
    sb_printf(sb, "%s// %s sits on this warpgroup's lane: Wait for every warpgroup's %s.\n"
                  "%spt::mbar_wait(%s_full, n_tile & 1);\n"
                  "%sif (%s) {\n", ind, kp->sg->tasks[kp->store_stask].id,
              pt_stask_kind_name(kp->sg->tasks[kp->consumer[0].epilogue.stask].kind), ind, lo,
              ind, issuer);
    char body[40], in[44];
    snprintf(body, sizeof body, "%s    ", ind);
    bool ranged = sm90a_k_ranged(kp);
    snprintf(in, sizeof in, "%s%s", body, ranged ? "    " : "");
    if (ranged)
        sb_printf(sb, "%sif (%s) {  // the tile's last %s stores\n", body, sm90a_store_cond(kp),
                  kp->stream_k ? "CTA" : "chunk");
    sb_printf(sb, "%sPT_REC(%d, %d, n_tile, 0, 0);\n", in, kp->store_stask, kp->store_lane);
    sm90a_emit_tma_store(sb, sh, in);
    sb_printf(sb, "%spt::tma_store_commit();\n", in);
    if (!deferred)
        sb_printf(sb, "%spt::tma_store_wait_read();\n", in);
    sb_printf(sb, "%sPT_REC(%d, %d, n_tile, 0, 1);\n", in, kp->store_stask, kp->store_lane);
    if (ranged)
        sb_printf(sb, "%s}\n", body);
    if (over >= 0) {
        sm90a_buf_name(sh, over, rl, ru, sizeof rl);
        sb_printf(sb, "%spt::mbar_arrive(%s_empty);  // the next tile's %s may land\n", body, rl,
                  kp->g->tensors[kp->bufs[over].tensor].name);
    } else if (!deferred) {
        sb_printf(sb, "%spt::mbar_arrive(%s_empty);\n", body, lo);
    }
    sb_printf(sb, "%s}\n", ind);
}
