/* gemm_dequant.c — a matmul whose B is dequantised in the kernel (W4A16, WFP4A16): the packed
 * weights and their group scales are loaded by TMA into rings like any operand. Two forms, as
 * the sProgram's rows axis says:
 *
 * B on wgmma's column side (the default): the producer warpgroup's three warps beside the TMA
 * thread turn each stage into the f16/bf16 tile of B's ring, which the consumers' wgmma reads
 * as if TMA had loaded it. So dequantising iteration i + 1 overlaps the mma of iteration i, as the sProgram's stages of
 * B say: the dequantising warps wait for a free stage of B (its empty barrier, released by the
 * consumers' wgmma groups), for the packed and scale stages (their full barriers), write the
 * tile, make it visible to the tensor cores' asynchronous proxy, and arrive on B's full
 * barrier; the packed and scale stages go back to the TMA thread right away.
 *
 * B on the tensor-core rows (wg_axis n, A and B swapped): each consumer warpgroup converts its
 * own rows straight into wgmma's A fragments (sm90a_gemm_emit_dequant_rows_loop), so there is
 * no tile of B in shared memory and every consumer warp dequantises. */
#include <stdio.h>

#include "common.h"
#include "gemm.h"

#define REFUSE(...) return pt_fail(err, "codegen sm90a: " __VA_ARGS__)

/* Warps of the producer warpgroup that dequantise (all but the TMA thread's), and the named
 * barrier they sync on (consumers use 1 .. WGS; a GEMM has no Waits between warpgroups). */
#define DEQ_THREADS 96
#define DEQ_BARRIER 15

/* Can the consumers hand A's stage of k block j back during block j + 1 (after its first
 * chunk's wgmma group) rather than right after block j? That release needs block j + 1's
 * packed, scale and A loads issued; the producer must not be waiting for the stage first. Its
 * load into that stage (A of block j + S) is issued at step j + S - off_A, the others at
 * j + 1 - off (in lane order within a step), so each must come first. */
static bool a_release_late(const pt_kprog *kp, int ring_a, int ring_q, int ring_s)
{
    int S = kp->bufs[ring_a].stages, ea = -1;
    for (int e = 0; e < kp->n_loads; e++)
        if (kp->load_buf[e] == ring_a)
            ea = e;
    if (S < 2 || ea < 0)
        return false;
    for (int e = 0; e < kp->n_loads; e++) {
        if (kp->load_buf[e] != ring_q && kp->load_buf[e] != ring_s)
            continue;
        int mine = 1 - kp->load_offset[e], a_refill = S - kp->load_offset[ea];
        if (mine > a_refill || (mine == a_refill && e > ea))
            return false;
    }
    return true;
}

bool sm90a_gemm_plan_dequant(sm90a_gemm *gm, pt_error *err)
{
    const pt_kprog *kp = gm->kp;
    const pt_graph *g = gm->g;
    if (gm->deq_regs) {
        if (kp->producer.n_tasks != 0)
            REFUSE("B (\"%s\") runs along the tensor-core rows; each consumer warpgroup "
                   "dequantises its own rows, so the producer role has no dequant sTask",
                   g->tensors[gm->B].name);
        gm->deq_task = kp->consumer[0].tasks[gm->deq_i].stask;
    } else {
        if (kp->producer.n_tasks != 1 || kp->producer.tasks[0].body != PT_KB_DEQUANT)
            REFUSE("B (\"%s\") is dequantised in the kernel; expected one dequant sTask on the "
                   "producer role", g->tensors[gm->B].name);
        gm->deq_task = kp->producer.tasks[0].stask;
    }
    if (!gm->b_kmajor)
        REFUSE("the dequantised B (\"%s\") must be stored [n, k] (its packed rows run along k)",
               g->tensors[gm->B].name);
    const pt_tensor *q = &g->tensors[gm->Bq], *sc = &g->tensors[gm->Bs];
    if (q->group_axis != g->tensors[gm->B].axes[1])
        REFUSE("the groups of \"%s\" run along %s; expected the reduction axis %s", q->name,
               q->group_axis >= 0 ? g->axes[q->group_axis].name : "no axis",
               g->axes[g->tensors[gm->B].axes[1]].name);
    if (gm->group % 8)
        REFUSE("group size %lld of \"%s\"; expected a multiple of 8 (a chunk of 8 weights shares "
               "one scale)", (long long)gm->group, q->name);
    if (gm->deq_regs && gm->group % 32)
        REFUSE("group size %lld of \"%s\" with the tensor-core rows on its rows; expected a "
               "multiple of 32 (a thread's A fragments of two k16 steps share one scale per row)",
               (long long)gm->group, q->name);
    gm->frag = q->packing == PT_PACK_FRAGMENTS;
    if (gm->frag && !gm->deq_regs)
        REFUSE("\"%s\" is packed as \"fragments\", the order of wgmma's A fragments: only a "
               "tiling with the tensor-core rows on its rows (wg_axis n) reads it", q->name);
    if (gm->frag && gm->BK != 64 && gm->BK != 128 && gm->BK != 256)
        REFUSE("tile k=%lld with \"%s\" packed as \"fragments\"; expected 64, 128 or 256 (a "
               "stage row of 32, 64 or 128 bytes, which TMA swizzles)", (long long)gm->BK, q->name);
    if (sc->rank != 2 || sc->axes[0] != g->tensors[gm->B].axes[0] || sc->dtype != gm->in_dt)
        REFUSE("scales \"%s\" must be [%s, %s/%lld] of %s, the activations' type", sc->name,
               g->axes[g->tensors[gm->B].axes[0]].name, g->axes[q->group_axis].name,
               (long long)gm->group, pt_dtype_name(gm->in_dt));
    gm->ring_q = pt_kprog_buf_of(kp, gm->Bq);
    gm->ring_s = pt_kprog_buf_of(kp, gm->Bs);
    if (gm->ring_q < 0 || gm->ring_s < 0 || kp->bufs[gm->ring_q].kind != PT_KBUF_RING ||
        kp->bufs[gm->ring_s].kind != PT_KBUF_RING)
        REFUSE("\"%s\" and \"%s\" must be loaded per k block into rings of stages", q->name,
               sc->name);
    if (kp->bufs[gm->ring_q].row_bytes != gm->BK / 2)
        REFUSE("a stage of \"%s\" holds %lld bytes a row; expected BK / 2 = %lld", q->name,
               (long long)kp->bufs[gm->ring_q].row_bytes, (long long)(gm->BK / 2));
    /* The scale columns a k block needs: TMA starts the box at a multiple of 16 bytes (8
     * groups) at or before its first element's group, and it must reach its last's. */
    gm->s_cols = kp->bufs[gm->ring_s].row_bytes / 2;
    int64_t span = 0;
    for (int64_t i = 0; i < gm->k_iters; i++) {
        int64_t first = i * gm->BK / gm->group, last = (i * gm->BK + gm->BK - 1) / gm->group;
        if (last - (first & ~7LL) + 1 > span)
            span = last - (first & ~7LL) + 1;
    }
    if (span > gm->s_cols)
        REFUSE("a k block of %lld needs %lld scale columns of \"%s\" (groups of %lld, boxes "
               "starting at a multiple of 8 groups); a scale stage holds %lld: use a k tile that "
               "divides into whole groups or larger groups", (long long)gm->BK, (long long)span,
               sc->name, (long long)gm->group, (long long)gm->s_cols);
    if (!gm->deq_regs && gm->kp->producer.regs < 56)
        REFUSE("the producer role has %d registers per thread; its dequantising warps need at "
               "least 56", gm->kp->producer.regs);
    gm->a_late = gm->deq_regs && a_release_late(kp, gm->ring_a, gm->ring_q, gm->ring_s);
    const char *k0 = sm90a_k_ranged(kp) ? "(k0 + i)" : "i";
    snprintf(gm->coord_q, sizeof gm->coord_q, "%s * (BK / 2)", k0);
    snprintf(gm->coord_s, sizeof gm->coord_s, "pt::scale_col0<QGROUP>(%s * BK)", k0);
    return true;
}

void sm90a_gemm_emit_dequant(strbuf *sb, const void *gemm)
{
    const sm90a_gemm *gm = gemm;
    const pt_kprog *kp = gm->kp;
    const pt_ktask *t = &kp->producer.tasks[0];
    char lane[PT_LANE_NAME_MAX];
    bool split = sm90a_k_ranged(kp);
    sb_printf(sb,
              "        if (threadIdx.x >= 128 - DEQ_THREADS) {\n"
              "            // %s on lane %s: the other warps of the producer warpgroup turn each\n"
              "            // stage of %s and %s into B's tile, once per k block, as the consumers free B's stages.\n"
              "            const int dq = threadIdx.x - (128 - DEQ_THREADS);\n"
              "#ifdef PT_TRACE\n"
              "            if (dq == 0)\n"
              "                tracer.begin(pt_trace, 1 + WGS, TRACE_ROLES, TRACE_CAP);\n"
              "#endif\n"
              "            uint32_t cnt_bq = 0, cnt_bs = 0, cnt_b = 0, n_tile = 0;\n",
              kp->sg->tasks[t->stask].id,
              pt_codegen_comment_safe(kp->p->lanes[t->lane].name, lane, sizeof lane),
              gm->g->tensors[gm->Bq].name, gm->g->tensors[gm->Bs].name);
    sm90a_emit_work_loop(sb, &gm->sh, "            ");
    sb_puts(sb, "                int tm, tn;\n"
                "                tile_coords(t, tm, tn);\n"
                "                (void)tm;\n"
                "                (void)tn;\n");
    sm90a_emit_iters(sb, &gm->sh, "                ");
    sb_printf(sb,
              "                for (int i = 0; i < n_iter; ++i) {\n"
              "                    const uint32_t sq = cnt_bq %% STAGES_BQ, ss = cnt_bs %% STAGES_BS, sw = cnt_b %% STAGES_B;\n"
              "                    pt::mbar_wait(&full_bq[sq], (cnt_bq / STAGES_BQ) & 1);  // Wait: load.%s landed\n"
              "                    pt::mbar_wait(&full_bs[ss], (cnt_bs / STAGES_BS) & 1);  // Wait: load.%s landed\n"
              "                    pt::mbar_wait(&empty_b[sw], ((cnt_b / STAGES_B) & 1) ^ 1);  // every warpgroup released the stage\n"
              "                    if (dq == 0) {\n"
              "                        PT_REC(ST_LOAD_BQ, LANE_LOAD, n_tile, i, 1);  // the loads' bytes have landed\n"
              "                        PT_REC(ST_LOAD_BS, LANE_LOAD, n_tile, i, 1);\n"
              "                        PT_REC(%d, %d, n_tile, i, 0);\n"
              "                    }\n"
              "                    pt::dequant_tile<elem_t, pt::Quant::%s, BN, BK, QGROUP, BQ_ROW, BS_COLS, DEQ_THREADS>(\n"
              "                        smem + OFF_B + sw * B_PITCH, smem + OFF_BQ + sq * BQ_PITCH,\n"
              "                        reinterpret_cast<const elem_t *>(smem + OFF_BS + ss * BS_PITCH), %s * BK, dq);\n"
              "                    pt::fence_proxy_async();  // the wgmma reads the tile through the async proxy\n"
              "                    pt::named_sync(DEQ_BARRIER, DEQ_THREADS);\n"
              "                    if (dq == 0) {\n"
              "                        PT_REC(%d, %d, n_tile, i, 1);\n"
              "                        pt::mbar_arrive(&full_b[sw]);\n"
              "                        pt::mbar_arrive(&empty_bq[sq]);\n"
              "                        pt::mbar_arrive(&empty_bs[ss]);\n"
              "                    }\n"
              "                    ++cnt_bq;\n"
              "                    ++cnt_bs;\n"
              "                    ++cnt_b;\n"
              "                }\n"
              "            }\n"
              "#ifdef PT_TRACE\n"
              "            if (dq == 0)\n"
              "                tracer.end();\n"
              "#endif\n"
              "        }\n",
              gm->g->tensors[gm->Bq].name, gm->g->tensors[gm->Bs].name, t->stask, t->lane,
              gm->q_dt == PT_INT4 ? "INT4" : "FP4_E2M1", split ? "(k0 + i)" : "i", t->stask,
              t->lane);
}

/* The constants the dequantising warps use (after the buffer constants). */
void sm90a_gemm_emit_dequant_constants(strbuf *sb, const sm90a_gemm *gm)
{
    const pt_kprog *kp = gm->kp;
    sb_printf(sb, "using elem_t = %s;\n"
                  "// B = dequantize(%s): %s, one %s scale per group of QGROUP along k.\n"
                  "constexpr int QGROUP = %lld, BQ_ROW = %lld, BS_COLS = %lld;  // packed bytes and scale columns of a stage row\n",
              sm90a_cuda_type(gm->in_dt), gm->g->tensors[gm->Bq].name, pt_dtype_name(gm->q_dt),
              pt_dtype_name(gm->in_dt), (long long)gm->group,
              (long long)kp->bufs[gm->ring_q].row_bytes, (long long)gm->s_cols);
    if (gm->deq_regs)
        sb_printf(sb, "constexpr pt::Quant QKIND = pt::Quant::%s;\n"
                      "// Each consumer warpgroup dequantises its own M_WG rows of B into wgmma's A fragments,\n"
                      "// loading the packed bytes of LOOK chunks of 32 k at once (8 registers per chunk and 64 rows).\n"
                      "%s"
                    "constexpr int CH = MREP == 1 && BK >= 128 ? 2 : 1;  // chunks committed as one wgmma group\n"
                    "static_assert(LOOK %% CH == 0 && BK / 32 / CH >= 2, \"whole groups per batch, two groups per k block\");\n",
                  gm->q_dt == PT_INT4 ? "INT4" : "FP4_E2M1",
                  gm->frag ? "// Wq in the \"fragments\" packing: a lane's 16 bytes are its two rows of two chunks, so\n"
                             "// chunks are loaded in pairs, half the registers a chunk of the rows packing takes.\n"
                             "constexpr int LOOK = 8 / MREP < BK / 32 ? (8 / MREP) & ~1 : BK / 32;\n"
                           : "constexpr int LOOK = 4 / MREP < BK / 32 ? 4 / MREP : BK / 32;\n");
    else
        sb_printf(sb, "constexpr int DEQ_THREADS = %d, DEQ_BARRIER = %d;  // the dequantising warps and their named barrier\n",
                  DEQ_THREADS, DEQ_BARRIER);
}

/* One wgmma group of the rows loop: dequant.W of its chunks into the group's fragment set, the
 * packed and scale stages handed back after the block's last group, the Wait on A's stage
 * before the block's first, and the group's wgmmas (one descriptor a stage, a k16 step adding
 * its offset >> 4, which cannot carry out of the address field). */
static void emit_rows_group(strbuf *sb, const sm90a_gemm *gm)
{
    sb_puts(sb, "                #pragma unroll\n"
                "                for (int h = 0; h < CH; ++h)\n"
                "                    #pragma unroll\n"
                "                    for (int r = 0; r < MREP; ++r)\n");
    sb_puts(sb, gm->frag
                ? "                        pt::dequant_frag_packed<elem_t, QKIND>(pk[(c + h) % LOOK / 2][r], (c + h) % 2,\n"
                  "                                                               sc[(c + h) % LOOK][r][0], sc[(c + h) % LOOK][r][1], f[r][h]);\n"
                : "                        pt::dequant_frag<elem_t, QKIND>(pk[(c + h) % LOOK][r], lane % 4, sc[(c + h) % LOOK][r][0],\n"
                  "                                                        sc[(c + h) % LOOK][r][1], f[r][h]);\n");
    /* the fence: ptxas does not wait for a shared load's result before an mbarrier arrival, so
     * without it the producer's next TMA fill of the stage could land before this warp's loads
     * have read it (pass_step.c, decision 4, measured on ChunkScan's CB) */
    sb_puts(sb, "                if (g == BK / 32 / CH - 1) {  // this warp has read its rows of both stages\n"
                "                    pt::fence_proxy_async();  // the loads have returned before the stages go back\n"
                "                    __syncwarp();\n"
                "                    if (lane == 0) {\n"
                "                        pt::mbar_arrive(&empty_bq[sq]);\n"
                "                        pt::mbar_arrive(&empty_bs[ss]);\n"
                "                    }\n"
                "                    if (lead)\n"
                "                        PT_REC(ST_DEQ[cw], LANE_DEQ[cw], n_tile, i, 1);\n"
                "                }\n"
                "                if (g == 0) {\n"
                "                    pt::mbar_wait(&full_a[sa], (cnt_a / STAGES_A) & 1);\n"
                "                    if (cw == 0 && lead)\n"
                "                        PT_REC(ST_LOAD_A, LANE_LOAD, n_tile, i, 1);\n"
                "                    if (lead)\n"
                "                        PT_REC(ST_MMA[cw], LANE_MMA[cw], n_tile, i, 0);\n"
                "                }\n"
                "                #pragma unroll\n"
                "                for (int r = 0; r < MREP; ++r)\n"
                "                    pt::keep_all(acc[r]);\n"
                "                pt::wgmma_fence();  // the fragments were written by ordinary instructions\n");
    if (gm->cols_kmajor)
        sb_puts(sb, "                const uint64_t da0 = pt::desc_sw128(ring_a + sa * A_PITCH, 16, 1024);\n"
                    "                #pragma unroll\n"
                    "                for (int t = 0; t < 2 * CH; ++t) {\n"
                    "                    const int kk = 2 * c + t;\n"
                    "                    const uint64_t db = da0 + (uint64_t)(((kk / 4) * (BM * 128) + (kk % 4) * 32) >> 4);\n");
    else {
        sb_puts(sb, "                const uint8_t *a = ring_a + sa * A_PITCH;\n"
                    "                #pragma unroll\n"
                    "                for (int t = 0; t < 2 * CH; ++t) {\n"
                    "                    const int kk = 2 * c + t;\n");
        sm90a_gemm_emit_cols_desc(sb, gm, "                    ");
    }
    sb_puts(sb, "                    #pragma unroll\n"
                "                    for (int r = 0; r < MREP; ++r)\n"
                "                        wgmma_step(acc[r], f[r][t / 2][t % 2], db);\n"
                "                }\n"
                "                pt::wgmma_commit();\n"
                "            }\n");
}

/* The consumers' k loop with B along the tensor-core rows: dequant.W of the warpgroup's rows
 * into A fragments and mma.C, interleaved 32 k at a time.
 *
 * Design: a chunk of 32 k is two k16 wgmmas; CH chunks are committed as one group (two where
 * one row block leaves registers for it and a k block holds two such groups: the group's fence,
 * commit and wait then cover 64 k). Two sets of fragment registers alternate, so the conversion
 * of group g + 1 runs while group g is in the tensor cores; before a group overwrites its set,
 * wgmma_wait<1> lets the group that read the set (two groups back) finish. The packed and
 * scale stages are handed back by every warp once it has read them (their empty barriers count
 * 4 x WGS); A's stage once the groups that read it are done: at the second group of the next k
 * block (its wait leaves only that block's first group in flight) where the producer's load
 * offsets allow it (a_release_late), else right after the block.
 *
 * The loop is issue-bound (about half its instructions unpack), so the rest is kept lean: the
 * chunks of one scale group share their scale loads (one address), and the wgmma descriptors of
 * a stage are one descriptor plus each k16 step's offset. With Wq packed as "fragments"
 * (src/packing.h) a lane loads only its own 16 bytes for two chunks (through the stage row's TMA
 * swizzle) and unpacks a pair with a shift and a mask instead of a byte permute. */
void sm90a_gemm_emit_dequant_rows_loop(strbuf *sb, const sm90a_gemm *gm)
{
    const pt_kprog *kp = gm->kp;
    const char *k0 = sm90a_k_ranged(kp) ? "(k0 + i)" : "i";
    const char *n_iter = sm90a_k_ranged(kp) ? "n_iter" : "K_ITERS";
    bool late = gm->a_late;
    if (gm->frag)
        sb_puts(sb, "        static_assert(OFF_BQ % 1024 == 0 && BQ_PITCH % 1024 == 0, \"Wq's stages start whole swizzle patterns\");\n");
    sb_printf(sb,
              "        for (int i = 0; i < %s; ++i) {\n"
              "            // dequant.%s: Waits on load.%s and load.%s; mma.%s: Wait on load.%s and on\n"
              "            // dequant.%s (the same warpgroup's registers).\n"
              "            const uint32_t sa = cnt_a %% STAGES_A, sq = cnt_bq %% STAGES_BQ, ss = cnt_bs %% STAGES_BS;\n"
              "            pt::mbar_wait(&full_bq[sq], (cnt_bq / STAGES_BQ) & 1);\n"
              "            pt::mbar_wait(&full_bs[ss], (cnt_bs / STAGES_BS) & 1);\n"
              "            if (cw == 0 && lead) {\n"
              "                PT_REC(ST_LOAD_BQ, LANE_LOAD, n_tile, i, 1);  // the loads' bytes have landed\n"
              "                PT_REC(ST_LOAD_BS, LANE_LOAD, n_tile, i, 1);\n"
              "            }\n"
              "            if (lead)\n"
              "                PT_REC(ST_DEQ[cw], LANE_DEQ[cw], n_tile, i, 0);\n"
              "            const uint8_t *q = ring_bq + sq * BQ_PITCH;\n"
              "            const elem_t *s = reinterpret_cast<const elem_t *>(ring_bs + ss * BS_PITCH);\n"
              "            const int kbase = %s * BK, g0 = pt::scale_col0<QGROUP>(kbase);\n"
              "            // a chunk's scale column: where k blocks and groups nest, the block's column plus\n"
              "            // the chunk's whole groups, so chunks of one group load the same scales once\n"
              "            constexpr bool NESTED = QGROUP %% BK == 0 || BK %% QGROUP == 0;\n"
              "            const int bcol = kbase / QGROUP - g0;\n"
              "%s"
              "            elem_t sc[LOOK][MREP][2];\n"
              "            #pragma unroll\n"
              "            for (int g = 0; g < BK / 32 / CH; ++g) {\n"
              "                uint32_t (&f)[MREP][CH][2][4] = frag[g & 1];\n"
              "                const int c = g * CH;  // the group's first chunk\n"
              "                if (c %% LOOK == 0) {\n"
              "                    #pragma unroll\n"
              "                    for (int j = 0; j < LOOK; ++j)\n"
              "                        #pragma unroll\n"
              "                        for (int r = 0; r < MREP; ++r) {\n"
              "                            const int row = cw * M_WG + r * 64 + warp * 16 + lane / 4;\n"
              "                            const int col = NESTED ? bcol + (QGROUP %% BK == 0 ? 0 : (c + j) * 32 / QGROUP)\n"
              "                                                   : (kbase + (c + j) * 32) / QGROUP - g0;\n"
              "%s"
              "                            sc[j][r][0] = s[row * BS_COLS + col];\n"
              "                            sc[j][r][1] = s[(row + 8) * BS_COLS + col];\n"
              "                        }\n"
              "                }\n"
              "                pt::wgmma_wait<1>();  // the group that read this set is done\n",
              n_iter, gm->g->tensors[gm->B].name, gm->g->tensors[gm->Bq].name,
              gm->g->tensors[gm->Bs].name, gm->g->tensors[gm->C].name, gm->g->tensors[gm->A].name,
              gm->g->tensors[gm->B].name, k0,
              gm->frag ? "            uint4 pk[LOOK / 2][MREP];  // a lane's packed bytes of LOOK chunks, loaded together\n"
                       : "            pt::frag_words pk[LOOK][MREP];  // packed bytes of LOOK chunks, loaded together\n",
              gm->frag ? "                            if (j % 2 == 0)  // the lane's 16 bytes of this chunk and the next\n"
                         "                                pk[j / 2][r] = pt::frag_packed_load<BQ_ROW>(q, cw * M_WG + r * 64 + warp * 16 + lane % 16,\n"
                         "                                                                            (c + j) / 2 * 2 + lane / 16);\n"
                       : "                            pk[j][r] = pt::frag_load(q + row * BQ_ROW + (c + j) * 16, q + (row + 8) * BQ_ROW + (c + j) * 16);\n");
    if (late)
        sb_puts(sb, "                if (g == 1 && i > 0) {  // the previous k block's groups are all done\n"
                    "                    if (lead) {\n"
                    "                        PT_REC(ST_MMA[cw], LANE_MMA[cw], n_tile, i - 1, 1);\n"
                    "                        pt::mbar_arrive(&empty_a[prev_a]);\n"
                    "                    }\n"
                    "                }\n");
    emit_rows_group(sb, gm);
    if (!late)
        sb_puts(sb, "            pt::wgmma_wait<0>();  // the rings are sized exactly: hand A's stage back now\n"
                    "            if (lead) {\n"
                    "                PT_REC(ST_MMA[cw], LANE_MMA[cw], n_tile, i, 1);\n"
                    "                pt::mbar_arrive(&empty_a[sa]);\n"
                    "            }\n");
    if (late)
        sb_puts(sb, "            prev_a = sa;\n");
    sb_puts(sb, "            ++cnt_a;\n"
                "            ++cnt_bq;\n"
                "            ++cnt_bs;\n"
                "        }\n"
                "        pt::wgmma_wait<0>();\n");
    if (late)
        sb_printf(sb, "        if (lead && %s > 0) {\n"
                      "            PT_REC(ST_MMA[cw], LANE_MMA[cw], n_tile, %s - 1, 1);\n"
                      "            pt::mbar_arrive(&empty_a[prev_a]);\n"
                      "        }\n", n_iter, n_iter);
    sb_puts(sb, "        #pragma unroll\n"
                "        for (int r = 0; r < MREP; ++r)\n"
                "            #pragma unroll\n"
                "            for (int j = 0; j < ACC_N / 2; ++j)\n"
                "                pt::keep(acc[r][j]);\n");
}
