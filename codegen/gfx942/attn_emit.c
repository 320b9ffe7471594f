/* attn_emit.c — prints an attention kernel program (ir/kprog.h) as a HIP kernel for gfx942.
 *
 * Kernel shape: 2 waves per consumer role, 32 query rows per wave, no producer waves. Per tile
 * (batch·head, query tile): every wave reads its own Q rows into registers (load.Q: they are
 * no other wave's, so they skip LDS); every wave issues its share of the producer lane's K
 * and V loads (16-byte global loads into registers, then ds_write_b128 into the ring's stage),
 * in the lane's order, as far ahead as each ring's stages allow — the GEMM's three ring
 * schedules (gemm.h); then each wave runs its role's step on the stages of key block i: one
 * pt_tile_hip.h call per sTask, in the program's order. S^T = K·Q^T puts a query per lane
 * (the transposed layout pt_tile_hip.h describes), so the softmax is per lane and P stays in
 * registers as the B operand of O^T += V^T·P^T. The Waits: load -> mma, s_waitcnt vmcnt
 * before the LDS write and lgkmcnt(0) + s_barrier before any wave reads the stage; mma -> the
 * next load into a stage, the s_barrier at the end of the iteration that read it. After the
 * loop, normalize writes O from the registers (no staging tile). */
#include <stdio.h>
#include <string.h>

#include "attn.h"
#include "attn_walk.h"

static const char *in_type(pt_dtype d)
{
    return d == PT_BF16 ? "pt::bf16" : "_Float16";
}

static const char *out_type(pt_dtype d)
{
    return d == PT_BF16 ? "short" : d == PT_F16 ? "_Float16" : "float";
}

static char up(char x)
{
    return (char)(x - 'a' + 'A');
}

static void emit_constants(strbuf *sb, const gfx942_attn *at)
{
    const double log2e = 1.4426950408889634;
    char qshare[320] = ""; /* FlashDecoding only: other kernels read Q at their own entry */
    if (at->a.qshare > 1)
        snprintf(qshare, sizeof qshare, "constexpr int QSHARE = %lld;  // O's batch entries per Q "
                 "entry: the KV splits share Q\n", (long long)at->a.qshare);
    if (at->a.pieces > 0) {
        size_t n = strlen(qshare);
        snprintf(qshare + n, sizeof qshare - n, "// A sequence's SEQ_TOTAL keys cut into PIECES pieces "
                 "of SEQ_K, the last shorter\nconstexpr int SEQ_TOTAL = %lld, PIECES = %lld;\n",
                 (long long)at->a.total, (long long)at->a.pieces);
    }
    sb_printf(sb, "namespace {\n"
                  "typedef %s T;\n"
                  "typedef %s OutT;\n"
                  "// Problem (from the graph): %lld batch x heads, %lld queries x %lld keys, head dim %lld%s.\n"
                  "constexpr int SEQ = %lld, SEQ_K = %lld, D = %lld, GROUP = %lld;  // GROUP: query heads per K/V head\n"
                  "%s"
                  "constexpr bool CAUSAL = %s;\n"
                  "constexpr float SCALE_LOG2 = %.9gf;  // softmax scale %.9g times log2(e): exp2 does the exp\n"
                  "// Tile (from the sProgram): BM query rows (32 per wave, 2 waves per consumer role), BN keys\n"
                  "// per step.\n"
                  "constexpr int BM = %lld, BN = %lld, WAVES = %d, THREADS = %d;\n"
                  "constexpr int TILES_M = %lld, TILES = %lld, KV_BLOCKS = %lld, GRID = %lld;  // %s\n"
                  "constexpr int LD = D + 8, STAGE = BN * LD;  // a K or V stage: BN rows of D, 16 bytes of padding per row\n",
              in_type(at->a.in_dt), out_type(at->a.out_dt), (long long)at->a.B, (long long)at->a.S,
              (long long)at->a.SK, (long long)at->a.D, at->a.causal ? ", causal" : "", (long long)at->a.S,
              (long long)at->a.SK, (long long)at->a.D, (long long)at->a.group, qshare,
              at->a.causal ? "true" : "false", at->a.scale * log2e, at->a.scale, (long long)at->a.BM,
              (long long)at->a.BN, at->waves, at->threads, (long long)at->tiles_m,
              (long long)at->kp->tiles, (long long)at->kv_blocks, (long long)at->kp->grid,
              at->kp->dynamic      ? "persistent: tiles handed out dynamically, longest first"
              : at->kp->persistent ? "persistent: each workgroup loops over tiles"
                                   : "one tile per workgroup");
    for (int e = 0; e < 2; e++) {
        const gfx942_ring *r = &at->ring[e];
        const char *nm = at->g->tensors[r->tensor].name;
        sb_printf(sb, "// Ring of %s (load.%s, %s in the producer lane): %d stage%s; VM_%c 16-byte loads per\n"
                      "// work-item per block, issued AHEAD_%c blocks ahead of the MFMAs that read them.\n"
                      "constexpr int STAGES_%c = %d, VM_%c = %d, AHEAD_%c = %d;\n",
                  nm, nm, e ? "second" : "first", r->stages, r->stages > 1 ? "s" : "", up(r->name),
                  up(r->name), up(r->name), r->stages, up(r->name), r->chunks_per_thread,
                  up(r->name), r->stages > 1 ? r->stages - 1 : 1);
    }
    sb_printf(sb, "static_assert(D %% 32 == 0 && BN %% 32 == 0 && BM == 32 * WAVES, \"32x32x8 MFMA blocks, 32 rows a wave\");\n"
                  "static_assert(VM_K < 64 && VM_V < 64, \"vmcnt is 6 bits\");\n"
                  "static_assert((STAGES_K + STAGES_V) * STAGE * 2 == %lld, \"LDS as planned\");\n"
                  "}\n\n",
              (long long)at->lds_bytes);
}

/* load.K / load.V of key block kt: 16-byte global loads into the copies' registers, clipped at
 * the sequence's end (rows past it are zeros, so P·V adds nothing for them). A block past the
 * tile's last reads the last block's address and keeps zeros: the loop issues its loads
 * unconditionally (see gemm_emit.c's loaders). */
static void emit_loaders(strbuf *sb, const gfx942_attn *at)
{
    /* a piece of a ragged sequence (ir/attention.h) clips at its own key count, and a block past
     * its keys reads the address of its last block that has any: the last piece's later blocks
     * would lie past the sequence's end */
    bool rag = at->a.pieces > 0;
    for (int e = 0; e < 2; e++)
        sb_printf(sb, "        auto load_%c = [&](int kt) {\n"
                      "            const int kc = kt < %s ? kt : %s, left = %s - kt * BN;\n"
                      "            cp_%c.load_clipped(%ch + (size_t)kc * BN * D, D, tid, kt < n_iter%s ? (left < BN ? left : BN) : 0, D);\n"
                      "        };\n",
                  "kv"[e], rag ? "kl" : "n_iter", rag ? "kl" : "n_iter - 1", rag ? "keys" : "SEQ_K",
                  "kv"[e], "KV"[e], rag ? " && left > 0" : "");
}

/* Before the loop: the first stages of each ring written, the early rings' next block in
 * flight (the GEMM's fill, over the tile's n_iter key blocks). */
static void emit_fill(strbuf *sb, const gfx942_attn *at)
{
    sb_puts(sb, "        // Fill: the stages the loop starts from (blocks 0 .. S-3 of a ring of S >= 3 stages, whose\n"
                "        // block S-2 is then left in flight; block 0 of a ring of 1 or 2).\n");
    for (int e = 0; e < 2; e++) {
        char x = at->ring[e].name, X = up(x);
        if (at->ring[e].mode == GFX942_RING_EARLY)
            sb_printf(sb, "        for (int s = 0; s < STAGES_%c - 2 && s < n_iter; ++s) {\n"
                          "            load_%c(s);\n"
                          "            cp_%c.store(ring_%c + s * STAGE, tid);\n"
                          "        }\n",
                      X, x, x, x);
        else
            sb_printf(sb, "        load_%c(0);\n        cp_%c.store(ring_%c, tid);\n", x, x, x);
    }
    for (int e = 0; e < 2; e++)
        if (at->ring[e].mode == GFX942_RING_EARLY)
            sb_printf(sb, "        load_%c(STAGES_%c - 2);\n", at->ring[e].name, up(at->ring[e].name));
    sb_puts(sb, "        pt::lds_sync();  // the filled stages are visible to every wave\n");
}

/* One sTask of the step: one call of the tile library. */
static void emit_task(strbuf *sb, const gfx942_attn *at, const pt_ktask *t)
{
    const char *id = at->kp->sg->tasks[t->stask].id;
    sb_printf(sb, "            // %s\n", id);
    switch (t->body) {
    case PT_KB_MMA:
        if (t->op == at->a.op_pv)
            sb_puts(sb, "            pt::mma_pv<BN, D, T>(o, ring_v + (i % STAGES_V) * STAGE, LD, p, lane);\n");
        else
            sb_puts(sb, "            pt::mma_scores<BN, D, T>(s, ring_k + (i % STAGES_K) * STAGE, LD, q, lane);\n");
        break;
    case PT_KB_ROW_MAX:
        sb_puts(sb, at->a.pieces > 0
                        ? "            pt::mask_keys<BN, CAUSAL>(s, i * BN, keys, q0, q0 + (int)(lane % 32), lane);\n"
                        : "            pt::mask_scores<BN, SEQ_K, CAUSAL>(s, i * BN, q0, q0 + (int)(lane % 32), lane);\n");
        sb_puts(sb, "            pt::row_max<BN>(s, SCALE_LOG2, m_run, alpha, m_sub);\n");
        break;
    case PT_KB_EXP_ROWS:
        sb_puts(sb, "            pt::exp_rows<BN, T>(s, SCALE_LOG2, m_sub, p);\n");
        break;
    case PT_KB_ROW_SUM:
        sb_puts(sb, "            pt::row_sum<BN>(s, alpha, l_run);\n");
        break;
    case PT_KB_RESCALE:
        sb_puts(sb, "            pt::rescale_rows<D>(o, alpha);\n");
        break;
    default: /* plan_steps admits the six bodies above only */
        break;
    }
}

/* One key block: early rings' writes, the loads in lane order, the step, late rings' writes,
 * and the barrier that both publishes the writes and releases the stages read. */
static void emit_loop(strbuf *sb, const gfx942_attn *at)
{
    const pt_krole *R = &at->kp->consumer[0];
    sb_puts(sb, "        for (int i = 0; i < n_iter; ++i) {\n");
    for (int e = 0; e < 2; e++) {
        const gfx942_ring *r = &at->ring[e];
        char x = r->name, X = up(x);
        if (r->mode == GFX942_RING_EARLY)
            sb_printf(sb, "            // load.%s of block i+%d landed (vmcnt): write it to its stage, read last at i-2.\n"
                          "            if (i + STAGES_%c - 2 < n_iter) {\n"
                          "                pt::vm_wait<0>();\n"
                          "                cp_%c.store(ring_%c + (i + STAGES_%c - 2) %% STAGES_%c * STAGE, tid);\n"
                          "            }\n",
                      at->g->tensors[r->tensor].name, r->stages - 2, X, x, x, X, X);
    }
    sb_puts(sb, "            // The producer lane's loads, in its order, AHEAD blocks ahead (unconditional).\n");
    for (int e = 0; e < 2; e++)
        sb_printf(sb, "            load_%c(i + AHEAD_%c);\n", at->ring[e].name, up(at->ring[e].name));
    sb_puts(sb, "            // The step (every role's, in the sProgram's order; the Waits on load.K / load.V of\n"
                "            // block i were met by the last s_barrier).\n");
    for (int k = 0; k < R->n_tasks; k++)
        emit_task(sb, at, &R->tasks[k]);
    if (at->ring[0].mode == GFX942_RING_SERIAL || at->ring[1].mode == GFX942_RING_SERIAL)
        sb_puts(sb, "            pt::lds_sync();  // a 1-stage ring: every wave has read it before it is rewritten\n");
    for (int e = 0; e < 2; e++) {
        const gfx942_ring *r = &at->ring[e];
        char x = r->name, X = up(x);
        if (r->mode == GFX942_RING_EARLY)
            continue;
        sb_printf(sb, "            if (i + 1 < n_iter) {  // load.%s of block i+1 landed: write it to its stage\n",
                  at->g->tensors[r->tensor].name);
        if (e == 0)
            sb_printf(sb, "                pt::vm_wait<VM_%c>();  // load.%s, issued after it, may still fly\n",
                      up(at->ring[1].name), at->g->tensors[at->ring[1].tensor].name);
        else
            sb_puts(sb, "                pt::vm_wait<0>();\n");
        sb_printf(sb, "                cp_%c.store(ring_%c + (i + 1) %% STAGES_%c * STAGE, tid);\n"
                      "            }\n",
                  x, x, X);
    }
    sb_puts(sb, "            // lgkmcnt(0) + s_barrier: this block's LDS writes are visible, and every wave is done\n"
                "            // reading stage i (mma -> the next load into it).\n"
                "            pt::lds_sync();\n"
                "        }\n");
}

static void emit_kernel(strbuf *sb, const gfx942_attn *at)
{
    char gname[PT_NAME_MAX];
    const pt_krole *R = &at->kp->consumer[0];
    sb_printf(sb, "// kernel.hip — generated by PipeThreader (target gfx942, MI300X) from graph \"%s\" and its\n"
                  "// sProgram. O = softmax(Q K^T * %.9g%s) V over %lld x %lld per batch·head, %s in, f32\n"
                  "// accumulate, %s out. Do not edit: regenerate.\n"
                  "// Build: hipcc --offload-arch=gfx942 --genco -O3 (or clang -x hip --offload-device-only).\n"
                  "// Never run: no MI300X was available (README.md).\n\n"
                  "#include \"pt_device_hip.h\"\n"
                  "#include \"pt_tile_hip.h\"\n"
                  "#define PT_RASTER_INT int\n"
                  "#include \"raster.h\"\n\n",
              pt_codegen_comment_safe(at->g->name, gname, sizeof gname), at->a.scale,
              at->a.causal ? ", causal" : "", (long long)at->a.S, (long long)at->a.SK,
              pt_dtype_name(at->a.in_dt), pt_dtype_name(at->a.out_dt));
    emit_constants(sb, at);
    pt_attn_emit_tile_walk(sb, at->kp, at->a.m);
    gfx942_attn_emit_handout_globals(sb, at->kp);
    sb_printf(sb, "extern \"C\" __global__ PT_LAUNCH_BOUNDS(THREADS) void\n"
                  "%s(const T *__restrict__ Q, const T *__restrict__ K, const T *__restrict__ V,\n"
                  "   OutT *__restrict__ O%s)\n{\n"
                  "    __shared__ __attribute__((aligned(16))) T ring_k[STAGES_K * STAGE];\n"
                  "    __shared__ __attribute__((aligned(16))) T ring_v[STAGES_V * STAGE];\n"
                  "    const uint32_t tid = pt::thread_id(), lane = pt::lane_id(), wave = pt::wave_id();\n"
                  "    pt::tile_copy<BN, D, THREADS, LD> cp_k, cp_v;\n",
              at->kp->kernel_name, at->a.L >= 0 ? ", float *__restrict__ L" : "");
    gfx942_attn_emit_tile_loop(sb, at->kp);
    sb_printf(sb, "        int bh, mt;\n"
                  "        tile_coords(t, bh, mt);\n"
                  "        const int n_iter = tile_iters(mt);\n"
                  "        // Consumer role wave / 2 takes rows [role * 64, +64) of the tile, this wave its 32 rows\n"
                  "        // from q0. Every wave also issues its share of the producer lane's loads.\n"
                  "        const int q0 = mt * BM + 32 * (int)wave;\n"
                  "%s"
                  "        // %s: this wave's Q rows, global -> VGPRs (the B operand of S^T = K·Q^T).\n"
                  "        typename pt::frag4<T>::type q[D / 8];\n"
                  "        pt::load_q<D, SEQ, T>(q, Q + (size_t)%s * SEQ * D, q0, lane);\n"
                  "        pt::f32x16 o[D / 32], s[BN / 32];  // O^T and S^T: a query per lane (pt_tile_hip.h)\n"
                  "        typename pt::frag4<T>::type p[BN / 8];  // P: the B operand of O^T += V^T·P^T\n"
                  "#pragma unroll\n"
                  "        for (int c = 0; c < D / 32; ++c)\n"
                  "            o[c] = 0.f;\n"
                  "        float m_run = -__builtin_inff(), l_run = 0.f, alpha = 1.f, m_sub = 0.f;  // softmax state\n",
              at->a.pieces > 0
                  ? "        // a piece of a ragged sequence: its entry's whole sequence, from the piece's first key\n"
                    "        const int kv = bh / GROUP, keys = SEQ_TOTAL - kv % PIECES * SEQ_K < SEQ_K ? SEQ_TOTAL - kv % PIECES * SEQ_K : SEQ_K;\n"
                    "        const size_t key0 = (size_t)(kv / PIECES) * SEQ_TOTAL + (size_t)(kv % PIECES) * SEQ_K;\n"
                    "        const T *Kh = K + key0 * D, *Vh = V + key0 * D;\n"
                    "        const int kl = (keys - 1) / BN;  // the piece's last key block\n"
                  : "        const T *Kh = K + (size_t)(bh / GROUP) * SEQ_K * D, *Vh = V + (size_t)(bh / GROUP) * SEQ_K * D;\n",
              at->kp->sg->tasks[at->kp->bufs[pt_kprog_buf_of(at->kp, at->a.Q)].stask].id,
              at->a.qshare > 1 ? "(bh / QSHARE)" : "bh");
    emit_loaders(sb, at);
    emit_fill(sb, at);
    sb_puts(sb, "        // Consumer step, in this order:");
    for (int k = 0; k < R->n_tasks; k++)
        sb_printf(sb, "%s %s", k ? "," : "", at->kp->sg->tasks[R->tasks[k].stask].id);
    sb_puts(sb, "\n");
    emit_loop(sb, at);
    const pt_ktask *ep = &R->epilogue;
    sb_printf(sb, "        // %s + store: O / l (the two halves of the wave's row sums added first), converted\n"
                  "        // to %s and written from the registers; rows past the sequence are not stored.\n"
                  "        const float inv_l = pt::inverse_row_sum(l_run);\n"
                  "        const int row = q0 + (int)(lane %% 32);\n"
                  "        if (row < SEQ)\n"
                  "            pt::store_rows<D, OutT>(o, O + ((size_t)bh * SEQ + row) * D, inv_l, lane);\n",
              at->kp->sg->tasks[ep->stask].id, pt_dtype_name(at->a.out_dt));
    if (R->rows_task.stask >= 0)
        sb_printf(sb, "        // %s: m + log(l) of this lane's row (natural log; every lane takes part in the\n"
                      "        // half-wave exchange), written by the lower half-wave.\n"
                      "        const float lse = pt::row_lse(m_run, l_run);\n"
                      "        if (row < SEQ && lane < 32)\n"
                      "            L[(size_t)bh * SEQ + row] = lse;\n",
                  at->kp->sg->tasks[R->rows_task.stask].id);
    sb_puts(sb, "    }\n");
    gfx942_attn_emit_handout_end(sb, at->kp);
    sb_puts(sb, "}\n");
}

bool gfx942_attn_emit(const gfx942_attn *at, pt_codegen_result *out, pt_error *err)
{
    strbuf k = {0}, h = {0};
    emit_kernel(&k, at);
    const int slots[] = {at->a.Q, at->a.K, at->a.V, at->a.O, at->a.L};
    gfx942_emit_host(&h, at->kp, slots, at->a.L >= 0 ? 5 : 4, at->threads, at->lds_bytes);
    memset(out, 0, sizeof *out);
    out->kernel_cu = sb_take(&k);
    out->host_c = sb_take(&h);
    if (!out->kernel_cu || !out->host_c) {
        pt_codegen_result_free(out);
        return pt_fail(err, "codegen gfx942: out of memory");
    }
    snprintf(out->kernel_name, sizeof out->kernel_name, "%s", at->kp->kernel_name);
    out->grid = at->kp->grid;
    out->block_threads = at->threads;
    out->smem_bytes = 0; /* LDS is static (__shared__ arrays): the code object states it */
    static const char *const mode[] = {"1 stage", "2 stages, written at the end of the iteration",
                                       "3+ stages, written at the start of the next"};
    snprintf(out->summary, sizeof out->summary,
             "%s: attention tile %lldx%lld (d %lld%s%s%s%s), %d waves (%d consumer roles x 2, 32 query "
             "rows each, S^T = K.Q^T and O^T += V^T.P^T in v_mfma_f32_32x32x8 blocks), Q in VGPRs, "
             "every wave issuing the K/V loads; ring %c %d (%s), ring %c %d (%s); %s grid of %lld "
             "workgroups (%lld tiles); %lld bytes of LDS; about %d VGPRs per lane",
             at->kp->kernel_name, (long long)at->a.BM, (long long)at->a.BN, (long long)at->a.D,
             at->a.causal ? ", causal" : "", at->a.group > 1 ? ", grouped K/V" : "",
             at->a.qshare > 1 ? ", Q shared by KV splits" : "", at->a.L >= 0 ? ", log-sum-exp" : "",
             at->waves,
             at->kp->wgs, up(at->ring[0].name), at->ring[0].stages, mode[at->ring[0].mode],
             up(at->ring[1].name), at->ring[1].stages, mode[at->ring[1].mode],
             at->kp->dynamic      ? "persistent (dynamic tiles)"
             : at->kp->persistent ? "persistent"
                                  : "one-tile-per-workgroup",
             (long long)at->kp->grid,
             (long long)at->kp->tiles, (long long)at->lds_bytes, at->vgpr_estimate);
    return true;
}
