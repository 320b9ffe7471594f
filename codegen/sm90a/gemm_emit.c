/* gemm_emit.c — prints a single-matmul kernel program (ir/kprog.h) as a CUDA kernel and its C launcher.
 *
 * Kernel shape: warpgroup 0 is the producer role (one thread issues the TMA lane: its loads in
 * the sProgram's order and offsets into per-tensor rings of stages, and the TMA store when the
 * store sTask sits on its lane); warpgroups 1.. are the consumer roles (wgmma on their
 * tensor-core lane, then the f32 -> output conversion of their CUDA-core lane into a 128B-
 * swizzled staging tile). Every Wait of the sProgram is an mbarrier: full[s] (load -> mma,
 * with TMA transaction bytes), empty[s] (mma -> next load into that stage), c_full (convert ->
 * store) and c_empty (store has read the staging tile -> next convert). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "gemm.h"
#include "shape.h"
#include "strbuf.h"
#include "trace_abi.h"

/* wgmma m64nNk16 with both operands from shared memory, either transposed (MN-major) where
 * its tile is stored so. Swapped, B's tile is the instruction's A operand and A's its B. */
static void emit_wgmma(strbuf *sb, const sm90a_gemm *gm)
{
    int n = (int)gm->acc_n;
    if (gm->swap)
        sb_printf(sb, "// One wgmma.m64n%dk16: D[64 x %d] += B[64 x 16] . A^T[16 x %d] (the tensor-core rows on\n"
                      "// N: D is a block of C^T), both read from shared memory through descriptors%s%s\n"
                      "// (pt_wgmma.cuh).\n", n, n, n,
                  gm->rows_kmajor ? "" : " (B N-major: the transposed form)",
                  gm->cols_kmajor ? "" : " (A M-major: the transposed form)");
    else
        sb_printf(sb, "// One wgmma.m64n%dk16: D[64 x %d] += A[64 x 16] . B[16 x %d], A and B read from\n"
                      "// shared memory through descriptors%s%s (pt_wgmma.cuh).\n", n, n, n,
                  gm->rows_kmajor ? "" : " (A M-major: the transposed form)",
                  gm->cols_kmajor ? "" : " (B N-major: the transposed form)");
    if (gm->deq_regs) {
        sb_printf(sb, "// The rows' operand (B's dequantised rows) is in registers: wgmma's A fragments.\n"
                      "__device__ __forceinline__ void wgmma_step(float (&d)[ACC_N / 2], const uint32_t (&a)[4], uint64_t db)\n{\n"
                      "    pt::wgmma_rs<ACC_N, %s, %d>::mma(d, a, db);\n}\n\n",
                  sm90a_cuda_type(gm->in_dt), gm->cols_kmajor ? 0 : 1);
        return;
    }
    sb_printf(sb, "__device__ __forceinline__ void wgmma_step(float (&d)[ACC_N / 2], uint64_t da, uint64_t db)\n{\n"
                  "    pt::wgmma_ss<ACC_N, %s, %d, %d>::mma(d, da, db);\n}\n\n",
              sm90a_cuda_type(gm->in_dt), gm->rows_kmajor ? 0 : 1, gm->cols_kmajor ? 0 : 1);
}

/* Record regions of the instrumented build: the TMA thread, each consumer warpgroup, and the
 * dequantising warps where the producer has them. */
int sm90a_gemm_trace_roles(const sm90a_gemm *gm)
{
    return 1 + gm->wgs + (gm->deq && !gm->deq_regs ? 1 : 0);
}

static void emit_constants(strbuf *sb, const sm90a_gemm *gm)
{
    sb_printf(sb, "namespace {\n"
                  "// Problem and tile (from the graph and the sProgram's tiling).\n"
                  "// M = %lld, N = %lld, K = %lld: ragged edges are zero-filled by TMA loads and clipped by TMA stores.\n"
                  "constexpr int BM = %lld, BN = %lld, BK = %lld;\n"
                  "constexpr int WGS = %d, M_WG = %d, MREP = %d;  // consumer warpgroups, rows each, m64 blocks each\n"
                  "constexpr int ACC_N = %s;  // wgmma's N: %s\n"
                  "constexpr int TILES_M = %lld, TILES_N = %lld, TILES = %lld, K_ITERS = %lld;\n"
                  "constexpr int GROUP = %d;\n"
                  "#ifdef PT_TRACE\n"
                  "constexpr int TRACE_ROLES = %d, TRACE_CAP = %u;  // the instrumented build's record regions\n"
                  "#endif\n",
              (long long)gm->M, (long long)gm->N, (long long)gm->K, (long long)gm->BM,
              (long long)gm->BN, (long long)gm->BK, gm->wgs, gm->m_wg, gm->mrep,
              gm->swap ? "BM" : "BN",
              gm->swap ? "the tensor-core rows are on N (A and B swapped), each warpgroup's M_WG rows of C^T"
                       : "C's columns", (long long)gm->tiles_m, (long long)gm->tiles_n, (long long)gm->kp->tiles,
              (long long)gm->k_iters, gm->kp->group, sm90a_gemm_trace_roles(gm), gm->kp->trace_cap);
    if (gm->deq)
        sm90a_gemm_emit_dequant_constants(sb, gm);
    if (gm->kp->split_k > 1)
        sb_printf(sb, "constexpr int SPLIT_K = %d, WORK = TILES * SPLIT_K;  // split-K: chunks per tile, work items\n",
                  gm->kp->split_k);
    if (gm->kp->stream_k)
        sm90a_gemm_emit_streamk_constants(sb, gm);
    sm90a_emit_buffer_constants(sb, &gm->sh);
    sb_puts(sb, "static_assert(TILES == TILES_M * TILES_N, \"tile grid\");\n"
                "static_assert(GROUP > 0, \"raster group\");\n"
                "}\n\n");
}

/* sTask and lane numbers stamped into the instrumented build's records. */
static void emit_trace_ids(strbuf *sb, const sm90a_gemm *gm)
{
    sb_printf(sb, "#ifdef PT_TRACE\n"
                  "// Instrumented build: sTask and lane indices of the records (codegen/trace_abi.h).\n"
                  "namespace {\n"
                  "constexpr int ST_LOAD_A = %d, LANE_LOAD = %d;\n",
              gm->kp->bufs[gm->ring_a].stask, gm->kp->lane_load);
    if (gm->ring_b >= 0 && !gm->deq) /* a dequantised B: its packed data and scales (below) */
        sb_printf(sb, "constexpr int ST_LOAD_B = %d;\n", gm->kp->bufs[gm->ring_b].stask);
    if (gm->deq)
        sb_printf(sb, "constexpr int ST_LOAD_BQ = %d, ST_LOAD_BS = %d;\n",
                  gm->kp->bufs[gm->ring_q].stask, gm->kp->bufs[gm->ring_s].stask);
    const char *names[6] = {"ST_MMA", "LANE_MMA", "ST_CVT", "LANE_CVT", "ST_DEQ", "LANE_DEQ"};
    for (int k = 0; k < (gm->deq_regs ? 6 : 4); k++) {
        sb_printf(sb, "__device__ constexpr int %s[WGS] = {", names[k]);
        for (int w = 0; w < gm->wgs; w++) {
            const pt_krole *R = &gm->kp->consumer[w];
            const pt_ktask *t = k < 2 ? &R->tasks[gm->mma_i] : k < 4 ? &R->epilogue
                                                                    : &R->tasks[gm->deq_i];
            sb_printf(sb, "%s%d", w ? ", " : "", k % 2 ? t->lane : t->stask);
        }
        sb_puts(sb, "};\n");
    }
    sb_puts(sb, "}\n"
                "#define PT_REC(...) tracer.rec(__VA_ARGS__)\n"
                "#else\n"
                "#define PT_REC(...) ((void)0)\n"
                "#endif\n\n");
}

static void emit_raster(strbuf *sb, const sm90a_gemm *gm)
{
    /* raster.h is the walk the simulator predicts (waves.c): the same code in both */
    sb_printf(sb, "// Output tile t -> (tile row, tile column): %s raster (raster.h, as the simulator\n"
                  "// walks it).\n"
                  "__device__ __forceinline__ void tile_coords(int t, int &tm, int &tn)\n{\n"
                  "    pt_raster_walk(t, %d, GROUP, TILES_M, TILES_N, &tm, &tn);\n}\n\n",
              pt_raster_name(gm->kp->raster), (int)gm->kp->raster);
}

/* mma.C as one device function: the wgmma group over BK from a stage of each ring. */
static void emit_mma_tile(strbuf *sb, const sm90a_gemm *gm)
{
    sb_puts(sb, "// mma.C: acc += A . B over BK as one wgmma group (committed, not waited for). a and b are\n"
                "// stages of A's and B's rings; warpgroup cw multiplies its M_WG rows of A.\n"
                "__device__ __forceinline__ void mma_tile(float (&acc)[MREP][ACC_N / 2], uint8_t *a, uint8_t *b, int cw)\n{\n"
                "    #pragma unroll\n"
                "    for (int r = 0; r < MREP; ++r)\n"
                "        pt::keep_all(acc[r]);\n"
                "    pt::wgmma_fence();\n"
                "    #pragma unroll\n"
                "    for (int kk = 0; kk < BK / 16; ++kk) {\n");
    /* the instruction's B operand (A's tile when swapped) and A operand (the warpgroup's rows) */
    const char *rows = gm->swap ? "b" : "a", *rows_ext = gm->swap ? "BN" : "BM";
    if (gm->swap)
        sb_puts(sb, "        // swapped: B's tile (b) gives the rows, A's tile (a) the columns\n");
    sm90a_gemm_emit_cols_desc(sb, gm, "        ");
    sb_puts(sb, "        #pragma unroll\n"
                "        for (int r = 0; r < MREP; ++r) {\n");
    if (gm->rows_kmajor)
        sb_printf(sb, "            const uint64_t da = pt::desc_sw128(%s + (kk / 4) * (%s * 128) + (cw * M_WG + r * 64) * 128\n"
                      "                                               + (kk %% 4) * 32, 16, 1024);\n", rows, rows_ext);
    else
        sb_printf(sb, "            // MN-major rows: the block's 64 rows are one atom (BK*128 bytes), 16 k rows per step\n"
                      "            const uint64_t da = pt::desc_sw128(%s + (cw * M_WG + r * 64) / 64 * (BK * 128) + kk * 16 * 128,\n"
                      "                                               BK * 128, 1024);\n", rows);
    sb_puts(sb, "            wgmma_step(acc[r], da, db);\n"
                "        }\n"
                "    }\n"
                "    pt::wgmma_commit();\n}\n\n");
}

/* mma.C of a consumer warpgroup, the head of one k iteration: its Waits on both loads (full
 * barriers: the TMA bytes have landed), then the wgmma group over BK and its commit. */
static void emit_consumer_mma(strbuf *sb, const sm90a_gemm *gm, const char *C)
{
    sb_printf(sb,
              "        for (int i = 0; i < %s; ++i) {\n"
              "            // mma.%s: Waits on load.%s and load.%s (full barriers, TMA bytes landed).\n"
              "            const uint32_t sa = cnt_a %% STAGES_A, sb = cnt_b %% STAGES_B;\n"
              "            pt::mbar_wait(&full_a[sa], (cnt_a / STAGES_A) & 1);\n"
              "            if (cw == 0)\n"
              "                PT_REC(ST_LOAD_A, LANE_LOAD, n_tile, i, 1);  // the load's bytes have landed\n"
              "            pt::mbar_wait(&full_b[sb], (cnt_b / STAGES_B) & 1);\n"
              "%s"
              "            PT_REC(ST_MMA[cw], LANE_MMA[cw], n_tile, i, 0);\n"
              "            mma_tile(acc, ring_a + sa * A_PITCH, ring_b + sb * B_PITCH, cw);\n",
              sm90a_k_ranged(gm->kp) ? "n_iter" : "K_ITERS", C, gm->g->tensors[gm->A].name,
              gm->g->tensors[gm->B].name,
              gm->deq ? "" /* B's tile was written by the dequantising warps, who record it */
                      : "            if (cw == 0)\n"
                        "                PT_REC(ST_LOAD_B, LANE_LOAD, n_tile, i, 1);\n");
}

/* The end of a k iteration: wait for the wgmma group, then hand the stages it read back to the
 * producer (empty barriers), with one group kept in flight or right away. */
static void emit_consumer_release(strbuf *sb, const sm90a_gemm *gm)
{
    /* the steady step's wait (pass_step): a group left in flight completes the previous
     * iteration's group, whose stages are released one step late */
    const pt_krole *R = &gm->kp->consumer[0];
    int in_flight = 0;
    for (int k = 0; k < R->n_ops; k++)
        if (R->ops[k].kind == PT_KOP_WAIT)
            in_flight = R->ops[k].arg;
    if (in_flight) {
        sb_puts(sb, "            // Keep one wgmma group in flight: when it returns, the previous iteration's\n"
                    "            // stages have been read and are handed back to the producer (empty barriers).\n"
                    "            // A stage is held for 2 iterations (stage_hold.h); the rings are deep enough.\n"
                    "            pt::wgmma_wait<1>();\n"
                    "            if (i > 0)\n"
                    "                PT_REC(ST_MMA[cw], LANE_MMA[cw], n_tile, i - 1, 1);\n"
                    "            if (i > 0 && lead) {\n"
                    "                pt::mbar_arrive(&empty_a[prev_a]);\n"
                    "                pt::mbar_arrive(&empty_b[prev_b]);\n"
                    "            }\n"
                    "            prev_a = sa;\n"
                    "            prev_b = sb;\n"
                    "            ++cnt_a;\n"
                    "            ++cnt_b;\n"
                    "        }\n"
                    "        pt::wgmma_wait<0>();\n");
        sb_printf(sb, "        PT_REC(ST_MMA[cw], LANE_MMA[cw], n_tile, %s - 1, 1);\n",
                  sm90a_k_ranged(gm->kp) ? "n_iter" : "K_ITERS");
        sb_puts(sb, "        #pragma unroll\n"
                    "        for (int r = 0; r < MREP; ++r)\n"
                    "            #pragma unroll\n"
                    "            for (int j = 0; j < ACC_N / 2; ++j)\n"
                    "                pt::keep(acc[r][j]);\n"
                    "        if (threadIdx.x % 128 == 0) {\n"
                    "            pt::mbar_arrive(&empty_a[prev_a]);\n"
                    "            pt::mbar_arrive(&empty_b[prev_b]);\n"
                    "        }\n");
    } else {
        sb_puts(sb, "            // The rings are sized exactly (stage_hold.h): keeping a group in flight would\n"
                    "            // hold a stage for 2 iterations and the producer could not refill it. Wait for\n"
                    "            // this iteration's group and hand its stages back right away.\n"
                    "            pt::wgmma_wait<0>();\n"
                    "            PT_REC(ST_MMA[cw], LANE_MMA[cw], n_tile, i, 1);\n"
                    "            #pragma unroll\n"
                    "            for (int r = 0; r < MREP; ++r)\n"
                    "                #pragma unroll\n"
                    "                for (int j = 0; j < ACC_N / 2; ++j)\n"
                    "                    pt::keep(acc[r][j]);\n"
                    "            if (lead) {\n"
                    "                pt::mbar_arrive(&empty_a[sa]);\n"
                    "                pt::mbar_arrive(&empty_b[sb]);\n"
                    "            }\n"
                    "            ++cnt_a;\n"
                    "            ++cnt_b;\n"
                    "        }\n");
    }
}

/* convert.C: the f32 accumulators to the output dtype in the 128B-swizzled staging tile, then
 * the arrive on c_full that the store Waits on. */

static void emit_consumer_convert(strbuf *sb, const sm90a_gemm *gm, const char *C)
{
    bool split = sm90a_k_ranged(gm->kp);
    char cond[160] = "";
    if (split)
        snprintf(cond, sizeof cond, "        if (%s) {  // the tile's last %s converts\n",
                 sm90a_store_cond(gm->kp), gm->kp->stream_k ? "CTA" : "chunk");
    sb_printf(sb, "        // convert.%s: f32 accumulators -> %s into the 128B-swizzled staging tile, in\n"
                  "        // boxes of C_CHUNK columns. Wait until the previous store has read it.\n"
                  "        if (n_tile > 0)\n"
                  "            pt::mbar_wait(c_empty, (n_tile - 1) & 1);\n"
                  "        PT_REC(ST_CVT[cw], LANE_CVT[cw], n_tile, 0, 0);\n"
                  "%s"
                  "%s        #pragma unroll\n"
                  "%s        for (int r = 0; r < MREP; ++r)\n"
                  "%s            pt::%s<%s, ACC_N, C_CHUNK>(acc[r], stage_c, BM * 128,\n"
                  "%s                                                cw * M_WG + r * 64 + warp * 16 + lane / 4, lane);\n",
              C, pt_dtype_name(gm->out_dt),
              cond,
              split ? "    " : "", split ? "    " : "", split ? "    " : "",
              gm->swap ? "store_cols_sw128" : "store_rows_sw128", sm90a_cuda_type(gm->out_dt),
              split ? "    " : "");
    if (split)
        sb_puts(sb, "        }\n");
    sb_puts(sb, "        pt::fence_proxy_async();  // the TMA store reads what these threads wrote\n"
                "        pt::named_sync(1 + cw, 128);\n"
                "        PT_REC(ST_CVT[cw], LANE_CVT[cw], n_tile, 0, 1);\n"
                "        if (lead)\n"
                "            pt::mbar_arrive(c_full);\n");
}

/* The consumer roles: the tile loop of each consumer warpgroup, its k loop (mma, release),
 * then convert and, where the sProgram puts it there, the store. */
static void emit_consumer(strbuf *sb, const sm90a_gemm *gm)
{
    const char *C = gm->g->tensors[gm->C].name;
    bool split = gm->kp->split_k > 1;
    sb_printf(sb, "    // Consumer roles: warpgroup cw runs lanes tc.wg<cw> and cuda.wg<cw>.\n"
                  "    const int cw = wg - 1;\n"
                  "    uint8_t *ring_a = smem + OFF_A, *%s, *stage_c = smem + OFF_C;\n",
              gm->deq_regs ? "ring_bq = smem + OFF_BQ, *ring_bs = smem + OFF_BS" : "ring_b = smem + OFF_B");
    bool same = true;
    for (int w = 1; w < gm->wgs; w++)
        same &= gm->kp->consumer[w].regs == gm->kp->consumer[0].regs;
    if (same)
        sb_printf(sb, "    pt::regs_increase<%d>();\n", gm->kp->consumer[0].regs);
    else
        for (int w = 0; w < gm->wgs; w++)
            sb_printf(sb, "    if (cw == %d) pt::regs_increase<%d>();\n", w, gm->kp->consumer[w].regs);
    sb_printf(sb,
              "    const int warp = (threadIdx.x / 32) %% 4, lane = threadIdx.x %% 32;\n"
              "    const bool lead = threadIdx.x %% 128 == 0;  // the warpgroup's issuing thread\n"
              "#ifdef PT_TRACE\n"
              "    if (lead)\n"
              "        tracer.begin(pt_trace, 1 + cw, TRACE_ROLES, TRACE_CAP);\n"
              "#endif\n"
              "    uint32_t cnt_a = 0, %s, n_tile = 0;\n"
              "    float acc[MREP][ACC_N / 2];\n%s",
              gm->deq_regs ? "cnt_bq = 0, cnt_bs = 0" : "cnt_b = 0",
              gm->deq_regs ? "    uint32_t frag[2][MREP][CH][2][4];  // two groups of A fragments (CH chunks of 32 k each)\n" : "");
    sm90a_emit_work_loop(sb, &gm->sh, "    ");
    sb_printf(sb,
              "        int tm, tn;\n"
              "        tile_coords(t, tm, tn);\n"
              "%s"
              "        #pragma unroll\n"
              "        for (int r = 0; r < MREP; ++r)\n"
              "            #pragma unroll\n"
              "            for (int j = 0; j < ACC_N / 2; ++j)\n"
              "                acc[r][j] = 0.f;\n"
              "%s",
              gm->kp->stream_k ? "        const int k0 = it.k0, n_iter = it.n_iter;\n"
                                 "        (void)k0;\n"
              : split ? "        const int k0 = kc * K_ITERS / SPLIT_K, n_iter = (kc + 1) * K_ITERS / SPLIT_K - k0;\n"
                        "        (void)k0;\n"
                      : "",
              gm->deq_regs ? (gm->a_late ? "        uint32_t prev_a = 0;\n" : "")
              : gm->kp->carry ? "        uint32_t prev_a = 0, prev_b = 0;\n" : "");
    if (gm->deq_regs) {
        sm90a_gemm_emit_dequant_rows_loop(sb, gm);
    } else {
        emit_consumer_mma(sb, gm, C);
        emit_consumer_release(sb, gm);
    }
    if (split)
        sm90a_gemm_emit_splitk_fixup(sb, gm);
    if (gm->kp->stream_k)
        sm90a_gemm_emit_streamk_fixup(sb, gm);
    emit_consumer_convert(sb, gm, C);
    if (gm->kp->store_wg >= 0) {
        sb_printf(sb, "        if (cw == %d) {\n", gm->kp->store_wg);
        sm90a_emit_consumer_store(sb, &gm->sh, "            ", "threadIdx.x % 128 == 0");
        sb_puts(sb, "        }\n");
    }
    sb_puts(sb, "    }\n");
    if (!(gm->kp->store_wg < 0))
        sb_printf(sb, "    if (cw == %d && lead)\n        pt::tma_store_wait_all();\n",
                  gm->kp->store_wg);
    sb_puts(sb, "#ifdef PT_TRACE\n    tracer.end();\n#endif\n");
}

static void emit_kernel(strbuf *sb, const sm90a_gemm *gm)
{
    char gname[PT_NAME_MAX];
    sb_printf(sb, "// %s.cu — generated by PipeThreader (target sm90a) from graph \"%s\" and its sProgram.\n"
                  "// C[%lld x %lld] = A . B%s, %s in, f32 accumulate, %s out. Do not edit: regenerate.\n"
                  "// Build: nvcc -cubin -O3 -gencode=arch=compute_90a,code=sm_90a\n\n",
              gm->kp->kernel_name, pt_codegen_comment_safe(gm->g->name, gname, sizeof gname),
              (long long)gm->M, (long long)gm->N,
              gm->b_kmajor ? "^T (B stored N x K)" : " (B stored K x N)", pt_dtype_name(gm->in_dt),
              pt_dtype_name(gm->out_dt));
    sm90a_emit_device_header(sb, true);
    if (gm->deq)
        sb_puts(sb, "#include \"pt_dequant.cuh\"  // dequant.W: packed 4-bit tile x group scales -> B's tile\n\n");
    emit_constants(sb, gm);
    emit_trace_ids(sb, gm);
    emit_wgmma(sb, gm);
    if (!gm->deq_regs)
        emit_mma_tile(sb, gm);
    emit_raster(sb, gm);
    if (gm->kp->split_k > 1)
        sm90a_gemm_emit_splitk_globals(sb, gm);
    if (gm->kp->stream_k)
        sm90a_gemm_emit_streamk_globals(sb, gm);
    sb_printf(sb, "extern \"C\" __global__ void %s__launch_bounds__(%d, 1)\n%s(",
              gm->kp->cluster ? "__cluster_dims__(SPLIT_K, 1, 1) " : "", gm->kp->threads,
              gm->kp->kernel_name);
    char names[PT_KP_MAX_BUFS][8];
    const char *maps[PT_KP_MAX_BUFS];
    int n_maps = 0;
    for (int b = 0; b < gm->kp->n_bufs; b++) {  /* a tensor map per loaded or stored buffer */
        char up[8];
        if (gm->kp->bufs[b].written)
            continue;
        sm90a_buf_name(&gm->sh, b, names[n_maps], up, sizeof names[n_maps]);
        sb_printf(sb, "const __grid_constant__ CUtensorMap tm_%s,\n   ", names[n_maps]);
        maps[n_maps] = names[n_maps];
        n_maps++;
    }
    sb_puts(sb, "uint8_t *pt_trace)\n{\n");
    /* the tensor maps prefetched: at M = 1 the first loads are on a short kernel's critical
     * path (0.3-1.2% measured; attention and Mamba2 kernels gained nothing measurable) */
    sm90a_emit_kernel_head(sb, &gm->sh, maps, n_maps);
    sm90a_emit_producer(sb, &gm->sh);
    emit_consumer(sb, gm);
    sb_puts(sb, "}\n");
    sm90a_emit_staging_device(sb, gm->kp);
}

bool sm90a_gemm_emit(const sm90a_gemm *gm, pt_codegen_result *out, pt_error *err)
{
    strbuf k = {0}, h = {0};
    emit_kernel(&k, gm);
    sm90a_emit_host(&h, &gm->sh);
    if (!sm90a_finish_result(out, &k, &h, gm->kp->kernel_name, gm->kp->grid, gm->kp->threads,
                             gm->kp->smem_dynamic, err))
        return false;
    char loads[128] = "";
    for (int e = 0; e < gm->kp->n_loads; e++) {
        size_t n = strlen(loads);
        snprintf(loads + n, sizeof loads - n, "%sload.%s%+d", e ? ", " : "",
                 gm->g->tensors[gm->kp->bufs[gm->kp->load_buf[e]].tensor].name, gm->kp->load_offset[e]);
    }
    snprintf(out->summary, sizeof out->summary,
             "%s: tile %lldx%lldx%lld, %d consumer warpgroup%s (%d rows each), stages A %d / B %d "
             "(wgmma wait_group<%d>: a stage held %d iteration%s), "
             "producer order [%s], A %s, B %s, store issued by %s, %s grid of %lld CTAs (%lld tiles, %s "
             "raster), %lld bytes of shared memory, registers %d/%d",
             gm->kp->kernel_name, (long long)gm->BM, (long long)gm->BN, (long long)gm->BK, gm->wgs,
             gm->wgs > 1 ? "s" : "", gm->m_wg, gm->kp->bufs[gm->ring_a].stages,
             gm->kp->bufs[gm->deq_regs ? gm->ring_q : gm->ring_b].stages, gm->kp->carry,
             1 + gm->kp->carry, gm->kp->carry ? "s" : "", loads,
             gm->a_kmajor ? "K-major" : "M-major", gm->b_kmajor ? "K-major" : "N-major",
             (gm->kp->store_wg < 0) ? "the producer" : "a consumer",
             gm->kp->persistent ? "persistent" : "one-tile-per-CTA", (long long)gm->kp->grid,
             (long long)gm->kp->tiles, pt_raster_name(gm->kp->raster), (long long)gm->kp->smem_dynamic,
             gm->kp->producer.regs, gm->kp->consumer[0].regs);
    if (gm->kp->stream_k) { /* gemm_streamk.c */
        const pt_stream_k *s = &gm->kp->sk;
        size_t len = strlen(out->summary);
        snprintf(out->summary + len, sizeof out->summary - len,
                 "; stream-K: %lld whole tile%s per CTA, then %lld tile%s' %lld iterations over "
                 "%lld CTAs (%lld bytes of workspace)", (long long)s->dp_per_cta,
                 s->dp_per_cta == 1 ? "" : "s", (long long)s->sk_tiles,
                 s->sk_tiles == 1 ? "" : "s", (long long)s->sk_iters, (long long)s->sk_ctas,
                 (long long)gm->kp->workspace_bytes);
    }
    for (int b = 0, n = 0; b < gm->kp->n_bufs; b++) /* unaligned rows: staging.c */
        if (gm->kp->bufs[b].staged) {
            size_t len = strlen(out->summary);
            snprintf(out->summary + len, sizeof out->summary - len, "%s%s", n++ ? ", " :
                     "; staged by the launcher (rows not 16-byte multiples): ",
                     gm->g->tensors[gm->kp->bufs[b].tensor].name);
        }
    return true;
}

