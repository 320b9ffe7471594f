/* gemm_emit.c — prints a single-matmul kernel program (ir/kprog.h) as a HIP kernel for gfx942.
 *
 * Kernel shape: 2 waves per consumer role, no producer waves. Every wave issues its share of the
 * producer lane's loads (16-byte global loads into registers, then ds_write_b128 into the ring's
 * stage: the global -> LDS copy), in the lane's order, as far ahead as the ring's stages allow;
 * then reads one k block's fragments from LDS and runs its MFMAs (the tensor-core lane). The
 * Waits of the sProgram become: load -> mma, s_waitcnt vmcnt before the LDS write and
 * lgkmcnt(0) + s_barrier before any wave reads the stage; mma -> the next load into a stage,
 * the s_barrier at the end of the iteration that read it. The epilogue (convert, store) turns
 * the accumulators into the output dtype and stores what lies inside the tensor. */
#include <stdio.h>
#include <string.h>

#include "gemm.h"

static const char *in_type(pt_dtype d)
{
    return d == PT_BF16 ? "pt::bf16" : "_Float16";
}

static const char *out_type(pt_dtype d)
{
    return d == PT_BF16 ? "short" : d == PT_F16 ? "_Float16" : "float";
}

static void emit_constants(strbuf *sb, const gfx942_gemm *gm)
{
    sb_printf(sb, "namespace {\n"
                  "// Problem and tile (from the graph and the sProgram's tiling). Ragged edges: loads past\n"
                  "// M, N or K read zeros, stores past M or N are skipped.\n"
                  "constexpr int M = %lld, N = %lld, K = %lld;\n"
                  "constexpr int BM = %lld, BN = %lld, BK = %lld;\n"
                  "constexpr int WAVES = %d, THREADS = %d;  // 2 waves per consumer role (%d roles)\n"
                  "constexpr int WM = %d, WN = %d;  // one wave's block of the output tile\n"
                  "constexpr int MF = %d, MK = %d;  // v_mfma_f32_%dx%dx%d\n"
                  "constexpr int RM = WM / MF, RN = WN / MF, ACC = MF * MF / 64;  // MFMA blocks, f32 per lane\n"
                  "constexpr int TILES_M = %lld, TILES_N = %lld, TILES = %lld, K_ITERS = %lld;\n"
                  "constexpr int RASTER = %d, GROUP = %d, GRID = %lld;  // %s raster (raster.h), %s\n"
                  "typedef %s T;\n"
                  "typedef %s OutT;\n",
              (long long)gm->M, (long long)gm->N, (long long)gm->K, (long long)gm->BM,
              (long long)gm->BN, (long long)gm->BK, gm->waves, gm->threads, gm->kp->wgs, gm->wm,
              gm->wn, gm->mfma, gm->mk, gm->mfma, gm->mfma, gm->mk, (long long)gm->tiles_m,
              (long long)gm->tiles_n, (long long)gm->kp->tiles, (long long)gm->k_iters,
              (int)gm->kp->raster, gm->kp->group, (long long)gm->kp->grid,
              pt_raster_name(gm->kp->raster),
              gm->kp->persistent ? "persistent: each workgroup loops over tiles" : "one tile per workgroup",
              in_type(gm->in_dt), out_type(gm->out_dt));
    for (int e = 0; e < 2; e++) {
        const gfx942_ring *r = &gm->ring[e];
        char X = (char)(r->name - 'a' + 'A');
        sb_printf(sb, "// Ring of %s (load.%s, %s in the producer lane): %d stage%s of %d x %d, rows %d apart (16 bytes\n"
                      "// of padding against LDS bank conflicts); VM_%c 16-byte loads per work-item per tile, issued\n"
                      "// AHEAD_%c k blocks ahead of the MFMAs that read them.\n"
                      "constexpr int STAGES_%c = %d, ROWS_%c = %d, COLS_%c = %d, LD_%c = %d, STAGE_%c = ROWS_%c * LD_%c, VM_%c = %d;\n"
                      "constexpr int AHEAD_%c = %d;\n",
                  gm->g->tensors[r->tensor].name, gm->g->tensors[r->tensor].name,
                  e ? "second" : "first", r->stages, r->stages > 1 ? "s" : "", r->rows, r->cols,
                  X, r->ld, X, X, r->stages, X, r->rows, X, r->cols, X, r->ld, X, X, X, X,
                  r->chunks_per_thread, X, r->stages > 1 ? r->stages - 1 : 1);
    }
    sb_printf(sb, "static_assert(WM %% MF == 0 && WN %% MF == 0 && BK %% MK == 0, \"MFMA blocks\");\n"
                  "static_assert(THREADS == 64 * WAVES && BM == WM * (WAVES / 2) && BN == 2 * WN, \"wave64 roles\");\n"
                  "static_assert(VM_A < 64 && VM_B < 64, \"vmcnt is 6 bits\");\n"
                  "static_assert((STAGES_A * STAGE_A + STAGES_B * STAGE_B) * 2 == %lld, \"LDS as planned\");\n"
                  "}\n\n",
              (long long)gm->lds_bytes);
}

/* The copy of one tile of a ring: global rows of 8-element chunks, clipped at the tensor's end.
 * A block past the last (kt >= K_ITERS) reads the last block's addresses and keeps zeros: the
 * loop issues its loads unconditionally, so the registers they land in are not merged across a
 * branch (clang would then copy them, waiting for the loads right after issuing them). */
static void emit_loaders(strbuf *sb, const gfx942_gemm *gm)
{
    sb_puts(sb, "        // load.A / load.B of k block kt: 16-byte global loads into the copies' registers\n"
                "        // (in flight until the LDS write that Waits on them).\n"
                "        auto load_a = [&](int kt) {\n"
                "            const int kc = kt < K_ITERS ? kt : K_ITERS - 1, kleft = K - kt * BK;\n"
                "            cp_a.load_clipped(A + m0 * K + kc * BK, K, tid, M - m0 < BM ? M - m0 : BM,\n"
                "                              kleft < BK ? kleft : BK);\n"
                "        };\n"
                "        auto load_b = [&](int kt) {\n"
                "            const int kc = kt < K_ITERS ? kt : K_ITERS - 1, kleft = K - kt * BK;\n");
    if (gm->b_kmajor)
        sb_puts(sb, "            cp_b.load_clipped(B + n0 * K + kc * BK, K, tid, N - n0 < BN ? N - n0 : BN,\n"
                    "                              kleft < BK ? kleft : BK);\n");
    else
        sb_puts(sb, "            cp_b.load_clipped(B + kc * BK * N + n0, N, tid, kleft < BK ? kleft : BK,\n"
                    "                              N - n0 < BN ? N - n0 : BN);\n");
    sb_puts(sb, "        };\n");
}

/* Before the loop: the first stages of each ring written, the early rings' next tile in flight. */
static void emit_prologue(strbuf *sb, const gfx942_gemm *gm)
{
    sb_puts(sb, "        // Fill: the stages the loop starts from (tiles 0 .. S-3 of a ring of S >= 3 stages,\n"
                "        // whose tile S-2 is then left in flight; tile 0 of a ring of 1 or 2).\n");
    for (int e = 0; e < 2; e++) {
        const gfx942_ring *r = &gm->ring[e];
        char x = r->name, X = (char)(x - 'a' + 'A');
        if (r->mode == GFX942_RING_EARLY)
            sb_printf(sb, "        for (int s = 0; s < STAGES_%c - 2 && s < K_ITERS; ++s) {\n"
                          "            load_%c(s);\n"
                          "            cp_%c.store(ring_%c + s * STAGE_%c, tid);\n"
                          "        }\n",
                      X, x, x, x, X);
        else
            sb_printf(sb, "        load_%c(0);\n        cp_%c.store(ring_%c, tid);\n", x, x, x);
    }
    for (int e = 0; e < 2; e++) {
        const gfx942_ring *r = &gm->ring[e];
        char x = r->name, X = (char)(x - 'a' + 'A');
        if (r->mode == GFX942_RING_EARLY)
            sb_printf(sb, "        load_%c(STAGES_%c - 2);\n", x, X);
    }
    sb_puts(sb, "        pt::lds_sync();  // the filled stages are visible to every wave\n");
}

/* mma.C of one k block: each wave's fragments from the stage, RM x RN MFMAs per k step. */
static void emit_mma(strbuf *sb, const gfx942_gemm *gm)
{
    const char *C = gm->g->tensors[gm->C].name;
    sb_printf(sb, "            // mma.%s: Waits on load.%s and load.%s of this k block (made visible by the\n"
                  "            // last s_barrier); k steps of MK, RM x RN blocks of this wave.\n"
                  "            const T *sa = ring_a + (i %% STAGES_A) * STAGE_A, *sb = ring_b + (i %% STAGES_B) * STAGE_B;\n"
                  "#pragma unroll\n"
                  "            for (int kk = 0; kk < BK; kk += MK) {\n"
                  "                typename pt::frag4<T>::type fa[RM], fb[RN];\n"
                  "#pragma unroll\n"
                  "                for (int r = 0; r < RM; ++r)\n"
                  "                    fa[r] = pt::frag<T, MF>(sa + (wm0 + r * MF) * LD_A, LD_A, kk, lane);\n"
                  "#pragma unroll\n"
                  "                for (int c = 0; c < RN; ++c)\n",
              C, gm->g->tensors[gm->A].name, gm->g->tensors[gm->B].name);
    if (gm->b_kmajor)
        sb_puts(sb, "                    fb[c] = pt::frag<T, MF>(sb + (wn0 + c * MF) * LD_B, LD_B, kk, lane);\n");
    else
        sb_puts(sb, "                    fb[c] = pt::frag_kn<T, MF>(sb + wn0 + c * MF, LD_B, kk, lane);  // B is K x N\n");
    sb_puts(sb, "#pragma unroll\n"
                "                for (int r = 0; r < RM; ++r)\n"
                "#pragma unroll\n"
                "                    for (int c = 0; c < RN; ++c)\n"
                "                        pt::mma<T, MF>(acc[r][c], fa[r], fb[c]);\n"
                "            }\n");
}

/* The Wait before a late ring's LDS write: vmcnt down to the loads issued after this ring's
 * (the other ring's, when it comes later in the lane order and loaded this iteration). */
static void emit_late_wait(strbuf *sb, const gfx942_gemm *gm, int e)
{
    if (e == 0)
        sb_printf(sb, "                pt::vm_wait<VM_%c>();  // load.%s, issued after it, may still fly\n",
                  (char)(gm->ring[1].name - 'a' + 'A'), gm->g->tensors[gm->ring[1].tensor].name);
    else
        sb_puts(sb, "                pt::vm_wait<0>();\n");
}

/* One k iteration: early rings' writes, the loads in lane order, the MFMAs, late rings' writes,
 * and the barrier that both publishes the writes and releases the stages read. */
static void emit_loop(strbuf *sb, const gfx942_gemm *gm)
{
    sb_puts(sb, "        for (int i = 0; i < K_ITERS; ++i) {\n");
    for (int e = 0; e < 2; e++) {
        const gfx942_ring *r = &gm->ring[e];
        char x = r->name, X = (char)(x - 'a' + 'A');
        if (r->mode == GFX942_RING_EARLY)
            sb_printf(sb, "            // load.%s of block i+%d landed (vmcnt): write it to its stage, read last at i-2.\n"
                          "            if (i + STAGES_%c - 2 < K_ITERS) {\n"
                          "                pt::vm_wait<0>();\n"
                          "                cp_%c.store(ring_%c + (i + STAGES_%c - 2) %% STAGES_%c * STAGE_%c, tid);\n"
                          "            }\n",
                      gm->g->tensors[r->tensor].name, r->stages - 2, X, x, x, X, X, X);
    }
    sb_puts(sb, "            // The producer lane's loads, in its order, AHEAD blocks ahead (unconditional: see load_a).\n");
    for (int e = 0; e < 2; e++) {
        char x = gm->ring[e].name, X = (char)(x - 'a' + 'A');
        sb_printf(sb, "            load_%c(i + AHEAD_%c);  // past the last block: zeros, never written\n", x, X);
    }
    emit_mma(sb, gm);
    bool serial = gm->ring[0].mode == GFX942_RING_SERIAL || gm->ring[1].mode == GFX942_RING_SERIAL;
    if (serial)
        sb_puts(sb, "            pt::lds_sync();  // a 1-stage ring: every wave has read it before it is rewritten\n");
    for (int e = 0; e < 2; e++) {
        const gfx942_ring *r = &gm->ring[e];
        char x = r->name, X = (char)(x - 'a' + 'A');
        if (r->mode == GFX942_RING_EARLY)
            continue;
        sb_printf(sb, "            if (i + 1 < K_ITERS) {  // load.%s of block i+1 landed: write it to its stage\n",
                  gm->g->tensors[r->tensor].name);
        emit_late_wait(sb, gm, e);
        sb_printf(sb, "                cp_%c.store(ring_%c + (i + 1) %% STAGES_%c * STAGE_%c, tid);\n"
                      "            }\n",
                  x, x, X, X);
    }
    sb_puts(sb, "            // lgkmcnt(0) + s_barrier: this block's LDS writes are visible, and every wave is\n"
                "            // done reading stage i (mma -> the next load into it).\n"
                "            pt::lds_sync();\n"
                "        }\n");
}

/* convert.C and store.C: f32 -> the output dtype, stored where it lies inside the tensor. */
static void emit_epilogue(strbuf *sb, const gfx942_gemm *gm)
{
    const char *C = gm->g->tensors[gm->C].name;
    const char *cvt = gm->out_dt == PT_BF16 ? "pt::bf16_bits(v)" : gm->out_dt == PT_F16 ? "(_Float16)v" : "v";
    sb_printf(sb, "        // convert.%s + store.%s: each wave writes its own block from its registers (no staging\n"
                  "        // tile: the Wait store -> convert is program order within the wave); rows of 32\n"
                  "        // lanes are consecutive columns, so a row's stores coalesce.\n"
                  "#pragma unroll\n"
                  "        for (int r = 0; r < RM; ++r)\n"
                  "#pragma unroll\n"
                  "            for (int c = 0; c < RN; ++c)\n"
                  "#pragma unroll\n"
                  "                for (int g = 0; g < ACC; ++g) {\n"
                  "                    const int row = m0 + wm0 + r * MF + pt::acc_row<MF>(lane, g);\n"
                  "                    const int col = n0 + wn0 + c * MF + pt::acc_col<MF>(lane);\n"
                  "                    const float v = acc[r][c][g];\n"
                  "                    if (row < M && col < N)\n"
                  "                        C[row * N + col] = %s;\n"
                  "                }\n",
              C, C, cvt);
}

static void emit_kernel(strbuf *sb, const gfx942_gemm *gm)
{
    char gname[PT_NAME_MAX];
    sb_printf(sb, "// kernel.hip — generated by PipeThreader (target gfx942, MI300X) from graph \"%s\" and its\n"
                  "// sProgram. C[%lld x %lld] = A . B%s, %s in, f32 accumulate, %s out. Do not edit: regenerate.\n"
                  "// Build: hipcc --offload-arch=gfx942 --genco -O3 (or clang -x hip --offload-device-only).\n"
                  "// docs/CODEGEN-gfx942.md maps the kernel program onto this code.\n\n"
                  "#include \"pt_device_hip.h\"\n"
                  "#define PT_RASTER_INT int\n"
                  "#include \"raster.h\"\n\n",
              pt_codegen_comment_safe(gm->g->name, gname, sizeof gname), (long long)gm->M,
              (long long)gm->N, gm->b_kmajor ? "^T (B stored N x K)" : " (B stored K x N)",
              pt_dtype_name(gm->in_dt), pt_dtype_name(gm->out_dt));
    emit_constants(sb, gm);
    sb_printf(sb, "extern \"C\" __global__ PT_LAUNCH_BOUNDS(THREADS) void\n"
                  "%s(const T *__restrict__ A, const T *__restrict__ B, OutT *__restrict__ C)\n{\n"
                  "    __shared__ __attribute__((aligned(16))) T ring_a[STAGES_A * STAGE_A];\n"
                  "    __shared__ __attribute__((aligned(16))) T ring_b[STAGES_B * STAGE_B];\n"
                  "    const uint32_t tid = pt::thread_id(), lane = pt::lane_id(), wave = pt::wave_id();\n"
                  "    // Consumer role wave / 2 takes rows [role * WM, +WM) of the tile; its two waves the\n"
                  "    // column halves. Every wave also issues its share of the producer lane's loads.\n"
                  "    const int wm0 = (int)(wave / 2) * WM, wn0 = (int)(wave %% 2) * WN;\n"
                  "    pt::tile_copy<ROWS_A, COLS_A, THREADS, LD_A> cp_a;\n"
                  "    pt::tile_copy<ROWS_B, COLS_B, THREADS, LD_B> cp_b;\n"
                  "    for (int t = (int)pt::block_id_x(); t < TILES; t += GRID) {\n"
                  "        int tm, tn;\n"
                  "        pt_raster_walk(t, RASTER, GROUP, TILES_M, TILES_N, &tm, &tn);\n"
                  "        const int m0 = tm * BM, n0 = tn * BN;\n"
                  "        typename pt::acc<MF>::type acc[RM][RN] = {};\n",
              gm->kp->kernel_name);
    emit_loaders(sb, gm);
    emit_prologue(sb, gm);
    emit_loop(sb, gm);
    emit_epilogue(sb, gm);
    sb_puts(sb, "    }\n}\n");
}

bool gfx942_gemm_emit(const gfx942_gemm *gm, pt_codegen_result *out, pt_error *err)
{
    strbuf k = {0}, h = {0};
    emit_kernel(&k, gm);
    const int slots[] = {gm->A, gm->B, gm->C};
    gfx942_emit_host(&h, gm->kp, slots, 3, gm->threads, gm->lds_bytes);
    memset(out, 0, sizeof *out);
    out->kernel_cu = sb_take(&k);
    out->host_c = sb_take(&h);
    if (!out->kernel_cu || !out->host_c) {
        pt_codegen_result_free(out);
        return pt_fail(err, "codegen gfx942: out of memory");
    }
    snprintf(out->kernel_name, sizeof out->kernel_name, "%s", gm->kp->kernel_name);
    out->grid = gm->kp->grid;
    out->block_threads = gm->threads;
    out->smem_bytes = 0; /* LDS is static (__shared__ arrays): the code object states it */
    static const char *const mode[] = {"1 stage: barrier, write, barrier",
                                       "2 stages: written at the end of the iteration",
                                       "3+ stages: written at the start of the next"};
    snprintf(out->summary, sizeof out->summary,
             "%s: tile %lldx%lldx%lld, %d waves (%d consumer roles x 2, each wave %dx%d in "
             "v_mfma_f32_%dx%dx%d blocks), every wave issuing the loads; ring %c %d (%s), ring %c %d "
             "(%s); B %s; %s grid of %lld workgroups (%lld tiles, %s raster); %lld bytes of LDS; "
             "about %d VGPRs per lane",
             gm->kp->kernel_name, (long long)gm->BM, (long long)gm->BN, (long long)gm->BK,
             gm->waves, gm->kp->wgs, gm->wm, gm->wn, gm->mfma, gm->mfma, gm->mk,
             gm->ring[0].name - 'a' + 'A', gm->ring[0].stages, mode[gm->ring[0].mode],
             gm->ring[1].name - 'a' + 'A', gm->ring[1].stages, mode[gm->ring[1].mode],
             gm->b_kmajor ? "N x K" : "K x N (fragments gathered)",
             gm->kp->persistent ? "persistent" : "one-tile-per-workgroup", (long long)gm->kp->grid,
             (long long)gm->kp->tiles, pt_raster_name(gm->kp->raster), (long long)gm->lds_bytes,
             gm->vgpr_estimate);
    return true;
}
