/* attn_emit.c — prints an attention kernel program (ir/kprog.h) as a CUDA kernel and its C launcher.
 *
 * Kernel shape: warpgroup 0 is the producer role (one thread issues the TMA lane: Q once per
 * tile, then K and V per loop step at the sProgram's offsets into rings of stages, and the O
 * store when it sits on that lane); warpgroup 1 + w runs consumer role w's step program: its
 * tensor-core entries (S = Q K^T from shared memory, O += P V with P from registers) and
 * CUDA-core entries (online softmax pieces, rescale) in the merged order the plan found, with
 * the wgmma.wait_group depths, K/V stage releases and named barriers (cross-warpgroup Waits)
 * it placed. Each loop step is printed once per slot of the S/softmax-state ring, so every
 * register array is indexed by constants. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn.h"
#include "attn_walk.h"
#include "common.h"
#include "shape.h"
#include "steps.h"
#include "strbuf.h"
#include "trace_abi.h"

/* The two wgmma forms: S tile from shared Q and K (scale_d = 0 starts from zero), and
 * O += P V with P's four A-fragment registers per k16 step and V read N-major (transposed). */
static void emit_wgmma(strbuf *sb, const sm90a_attn *at)
{
    int n = (int)at->a.BN, d = (int)at->a.D;
    sb_printf(sb, "// S[64 x %d] (+)= Q[64 x 16] . K^T[16 x %d]: A and B from shared memory (K-major).\n"
                  "__device__ __forceinline__ void wgmma_s(float (&d)[BN / 2], uint64_t da, uint64_t db, int scale_d)\n{\n"
                  "    pt::wgmma_ss_zero<BN, elem_t>::mma(d, da, db, scale_d);\n}\n\n"
                  "// O[64 x %d] += P[64 x 16] . V[16 x %d]: P from registers (the S accumulator layout\n"
                  "// converted in place), V from shared memory N-major (transposed form).\n"
                  "__device__ __forceinline__ void wgmma_o(float (&d)[D / 2], const uint32_t (&a)[4], uint64_t db)\n{\n"
                  "    pt::wgmma_rs<D, elem_t>::mma(d, a, db);\n}\n\n",
              n, n, d, d);
    /* the two mma sTasks, one call each in the loop body */
    sb_puts(sb, "// mma.S: S = Q . K^T over the head dim as one wgmma group (committed, not waited for).\n"
                "__device__ __forceinline__ void mma_s(float (&s)[BN / 2], uint64_t desc_q, uint8_t *smem, uint32_t stage)\n{\n"
                "    pt::keep_all(s);\n"
                "    pt::wgmma_fence();\n"
                "    // descriptors advance by (byte offset >> 4): 64-wide atoms, 32 bytes per k16 step\n"
                "    const uint64_t dq = pt::opaque(desc_q);\n"
                "    const uint64_t dk = pt::desc_sw128(smem + OFF_K + stage * K_PITCH, 16, 1024);\n"
                "    #pragma unroll\n"
                "    for (int kk = 0; kk < D / 16; ++kk)\n"
                "        wgmma_s(s, dq + (((kk / 4) * (BM * 128) + (kk % 4) * 32) >> 4),\n"
                "                dk + (((kk / 4) * (BN * 128) + (kk % 4) * 32) >> 4), kk > 0);\n"
                "    pt::wgmma_commit();\n}\n\n"
                "// mma.O: O += P . V over the key block as one wgmma group. P from registers; V N-major:\n"
                "// 64-column atoms BN*128 bytes apart, 16 rows per k16 step.\n"
                "__device__ __forceinline__ void mma_o(float (&o)[D / 2], const uint32_t (&p)[BN / 16][4],\n"
                "                                      uint8_t *smem, uint32_t stage)\n{\n"
                "    pt::keep_all(o);\n"
                "    pt::wgmma_fence();\n"
                "    const uint64_t dv = pt::desc_sw128(smem + OFF_V + stage * V_PITCH, BN * 128, 1024);\n"
                "    #pragma unroll\n"
                "    for (int kk = 0; kk < BN / 16; ++kk)\n"
                "        wgmma_o(o, p[kk], dv + ((kk * 16 * 128) >> 4));\n"
                "    pt::wgmma_commit();\n}\n\n");
}

static void emit_constants(strbuf *sb, const sm90a_attn *at)
{
    double log2e = 1.4426950408889634;
    sb_printf(sb, "namespace {\n"
                  "using elem_t = %s;\n"
                  "// Problem (from the graph): %lld batch x heads, %lld queries x %lld keys, head dim %lld%s.\n"
                  "constexpr int SEQ = %lld, SEQ_K = %lld, D = %lld;\n"
                  "constexpr bool CAUSAL = %s;\n"
                  "constexpr float SCALE_LOG2 = %.9gf;  // softmax scale %.9g times log2(e): exp2 does the exp\n"
                  "// Tile (from the sProgram): BM query rows (64 per consumer warpgroup), BN keys per step.\n"
                  "constexpr int BM = %lld, BN = %lld, WGS = %d;\n"
                  "constexpr int TILES_M = %lld, TILES = %lld, KV_BLOCKS = %lld;\n"
                  "#ifdef PT_TRACE\n"
                  "constexpr int TRACE_ROLES = %d, TRACE_CAP = %u;  // the instrumented build's record regions\n"
                  "#endif\n",
              sm90a_cuda_type(at->a.in_dt), (long long)at->a.B, (long long)at->a.S, (long long)at->a.SK,
              (long long)at->a.D, at->a.causal ? ", causal" : "", (long long)at->a.S, (long long)at->a.SK,
              (long long)at->a.D,
              at->a.causal ? "true" : "false", at->a.scale * log2e, at->a.scale, (long long)at->a.BM,
              (long long)at->a.BN, at->wgs, (long long)at->tiles_m, (long long)at->kp->tiles,
              (long long)at->kv_blocks, 1 + at->wgs, at->kp->trace_cap);
    if (at->a.group > 1)
        sb_printf(sb, "constexpr int GROUP = %lld;  // query heads per K/V head (grouped-query attention)\n",
                  (long long)at->a.group);
    if (at->a.qshare > 1)
        sb_printf(sb, "constexpr int QSHARE = %lld;  // batch entries per query (the KV splits of one sequence)\n",
                  (long long)at->a.qshare);
    if (at->a.pieces > 0)
        sb_printf(sb, "// The keys of a sequence, SEQ_TOTAL of them, cut into PIECES pieces of SEQ_K, the last\n"
                      "// shorter: K and V hold the whole sequence, a piece's keys start at its piece_key0, and\n"
                      "// keys past the sequence's end are masked (TMA fills them with zeros).\n"
                      "constexpr int SEQ_TOTAL = %lld, PIECES = %lld;\n"
                      "__device__ __forceinline__ int piece_key0(int bh) { return %s %% PIECES * SEQ_K; }\n"
                      "__device__ __forceinline__ int piece_keys(int bh)\n"
                      "{\n    const int left = SEQ_TOTAL - piece_key0(bh);\n    return left < SEQ_K ? left : SEQ_K;\n}\n",
                  (long long)at->a.total, (long long)at->a.pieces, at->a.group > 1 ? "bh / GROUP" : "bh");
    sm90a_emit_buffer_constants(sb, &at->sh);
    sb_puts(sb, "}\n\n");
    /* the plain build still "uses" the iteration, so that an i read only by the records is
     * no unused variable */
    sb_puts(sb, "#ifdef PT_TRACE\n#define PT_REC(...) tracer.rec(__VA_ARGS__)\n#else\n"
                "#define PT_REC(stask, lane, tile, iter, end) ((void)(iter))\n#endif\n\n");
}

static void emit_helpers(strbuf *sb, const sm90a_attn *at)
{
    pt_attn_emit_tile_walk(sb, at->kp, at->a.m);
}

/* ---- consumer step programs ---- */

typedef sm90a_step_ctx step_ctx;

static void emit_keep(strbuf *sb, const char *ind, const char *array, int slot)
{
    sb_printf(sb, "%spt::keep_all(%s%d);\n", ind, array, slot);
}

/* The Wait of an mma entry on its K or V stage: the slot's full barrier, and (warpgroup 0) the
 * end record of the load. */
static void emit_stage_wait(strbuf *sb, const step_ctx *c, bool v)
{
    const sm90a_attn *at = c->st->view;
    sb_printf(sb, "                const uint32_t c = %s + (uint32_t)i, s = c %% STAGES_%s;\n"
                  "                pt::mbar_wait(&full_%s[s], (c / STAGES_%s) & 1);  // Wait: load.%s landed\n",
              v ? "vbase" : "kbase", v ? "V" : "K", v ? "v" : "k", v ? "V" : "K",
              at->g->tensors[v ? at->a.V : at->a.K].name);
    if (c->w == 0)
        sb_printf(sb, "                PT_REC(%d, %d, n_tile, i, 1);\n",
                  v ? at->kp->bufs[at->ring_v].stask : at->kp->bufs[at->ring_k].stask, at->kp->lane_load);
}

/* One task of a step copy: its Wait on the K or V stage it reads, its records, one call. */
static void emit_entry(strbuf *sb, const step_ctx *c, const pt_ktask *e)
{
    const sm90a_attn *at = c->st->view;
    const char *id = at->kp->sg->tasks[e->stask].id;
    int ss = sm90a_step_slot(c, e->offset, at->s_bufs), ms = sm90a_step_slot(c, e->offset, at->m_bufs);
    int ps = sm90a_step_slot(c, e->offset, at->p_bufs);
    sb_printf(sb, "            {   const int i = v + %d;  // %s\n", e->offset, id);
    switch (e->body == PT_KB_MMA && e->op == at->a.op_pv ? PT_KB_KINDS : e->body) {
    case PT_KB_MMA: /* S = Q K^T */
        emit_stage_wait(sb, c, false);
        sb_printf(sb, "                PT_REC(%d, %d, n_tile, i, 0);\n", e->stask, e->lane);
        sb_printf(sb, "                mma_s(s%d, desc_q, smem, s);\n", ss);
        break;
    case PT_KB_KINDS: /* O += P V */
        emit_stage_wait(sb, c, true);
        sb_printf(sb, "                PT_REC(%d, %d, n_tile, i, 0);\n", e->stask, e->lane);
        sb_printf(sb, "                mma_o(o, p%d, smem, s);\n", ps);
        break;
    case PT_KB_ROW_MAX:
        sb_printf(sb, "                PT_REC(%d, %d, n_tile, i, 0);\n", e->stask, e->lane);
        emit_keep(sb, "                ", "s", ss);
        if (at->a.pieces > 0) /* the piece's own key count: the last piece is shorter */
            sb_printf(sb, "                pt::mask_keys<BN, CAUSAL>(s%d, i * BN, keys, row_lo, row0, lane);\n", ss);
        else
            sb_printf(sb, "                pt::mask_scores<BN, SEQ_K, CAUSAL>(s%d, i * BN, row_lo, row0, lane);\n", ss);
        sb_printf(sb, "                pt::row_max<BN>(s%d, SCALE_LOG2, m_run, al%d, mr%d);\n"
                      "                PT_REC(%d, %d, n_tile, i, 1);\n",
                  ss, ms, ms, e->stask, e->lane);
        break;
    case PT_KB_EXP_ROWS:
        sb_printf(sb, "                PT_REC(%d, %d, n_tile, i, 0);\n"
                      "                pt::exp_rows<BN, elem_t>(s%d, SCALE_LOG2, mr%d, p%d);\n"
                      "                PT_REC(%d, %d, n_tile, i, 1);\n",
                  e->stask, e->lane, ss, ms, ps, e->stask, e->lane);
        break;
    case PT_KB_ROW_SUM:
        sb_printf(sb, "                PT_REC(%d, %d, n_tile, i, 0);\n"
                      "                pt::row_sum<BN>(s%d, al%d, l_run);\n"
                      "                PT_REC(%d, %d, n_tile, i, 1);\n",
                  e->stask, e->lane, ss, ms, e->stask, e->lane);
        break;
    case PT_KB_RESCALE:
        sb_printf(sb, "                PT_REC(%d, %d, n_tile, i, 0);\n"
                      "                pt::rescale_rows<D>(o, al%d);\n"
                      "                PT_REC(%d, %d, n_tile, i, 1);\n",
                  e->stask, e->lane, ms, e->stask, e->lane);
        break;
    default:
        break;
    }
    sb_puts(sb, "            }\n");
}

static void emit_consumer_epilogue(strbuf *sb, const sm90a_attn *at, int w);

static void emit_consumer_wg(strbuf *sb, const sm90a_attn *at, int w)
{
    const pt_krole *W = &at->kp->consumer[w];
    char role[PT_LANE_NAME_MAX];
    sb_printf(sb, "    if (cw == %d) {\n"
                  "        // Consumer role %s: one loop step runs, in this order:", w,
              pt_codegen_comment_safe(at->kp->p->roles[at->kp->p->lanes[W->tasks[0].lane].role].name, role,
                                      sizeof role));
    for (int k = 0; k < W->n_tasks; k++)
        sb_printf(sb, "%s %s(v%+d)", k ? "," : "", at->kp->sg->tasks[W->tasks[k].stask].id, W->tasks[k].offset);
    sb_puts(sb, "\n");
    sb_printf(sb, "        pt::regs_increase<%d>();\n", W->regs);
    sm90a_emit_xwait_counters(sb, at->kp, w, "        ");
    sb_printf(sb, "#ifdef PT_TRACE\n"
                  "        if (lead)\n"
                  "            tracer.begin(pt_trace, 1 + cw, 1 + WGS, %u);\n"
                  "#endif\n"
                  "        uint32_t kbase = 0, vbase = 0, n_tile = 0;\n"
                  "        float o[D / 2];\n", at->kp->trace_cap);
    for (int s = 0; s < at->s_bufs; s++)
        sb_printf(sb, "        float s%d[BN / 2];         // S tile of ring slot %d (scores, then exp'd in place)\n", s, s);
    for (int s = 0; s < at->m_bufs; s++)
        sb_printf(sb, "        float al%d[2], mr%d[2];    // rescale factor and row max (log2 units), slot %d\n", s, s, s);
    for (int s = 0; s < at->p_bufs; s++)
        sb_printf(sb, "        uint32_t p%d[BN / 16][4];  // P fragment of slot %d: A operand of the P.V wgmma\n", s, s);
    char qfull[32], qcopy[40];
    sm90a_resident_bar(&at->sh, at->buf_q, "full", qfull, sizeof qfull);
    sm90a_resident_copy_offset(&at->sh, at->buf_q, qcopy, sizeof qcopy);
    const char *qpar = sm90a_resident_full_parity(&at->sh, at->buf_q);
    if (at->kp->dynamic)
        sb_printf(sb, "        for (;; ++n_tile) {\n"
                      "            pt::mbar_wait(%s, %s);  // Wait: load.%s landed, or the end\n"
                      "            const int t = tile_slot[n_tile & 1];\n"
                      "            if (t >= TILES)\n"
                      "                break;\n",
                  qfull, qpar, at->g->tensors[at->a.Q].name);
    else
        sm90a_emit_work_loop(sb, &at->sh, "        ");
    sb_printf(sb, "            int bh, mt;\n"
                  "            tile_coords(t, bh, mt);\n"
                  "            const int n_iter = tile_iters(mt);\n"
                  "            const int row_lo = mt * BM + %d * 64;       // this warpgroup's first query row\n"
                  "            const int row0 = row_lo + warp * 16 + lane / 4;  // this thread's rows: row0, row0 + 8\n"
                  "            const uint64_t desc_q = pt::desc_sw128(smem + OFF_Q%s + %d * 64 * 128, 16, 1024);  // this warpgroup's Q rows\n"
                  "            (void)desc_q;\n"
                  "            (void)row0;\n"
                  "%s"
                  "            float m_run[2] = {-INFINITY, -INFINITY}, l_run[2] = {0.f, 0.f};\n"
                  "            #pragma unroll\n"
                  "            for (int r = 0; r < D / 2; ++r) {\n"
                  "                o[r] = 0.f;\n"
                  "                pt::keep(o[r]);  // zeroed here, before a wgmma is in flight (else ptxas serialises)\n"
                  "            }\n",
              w, qcopy, w,
              at->a.pieces > 0 ? "            const int keys = piece_keys(bh);  // this piece's keys: fewer in the last\n" : "");
    if (!at->kp->dynamic)
        sb_printf(sb, "            pt::mbar_wait(%s, %s);  // Wait: load.%s landed\n", qfull, qpar,
                  at->g->tensors[at->a.Q].name);
    if (w == 0)
        sb_printf(sb, "            PT_REC(%d, %d, n_tile, 0, 1);\n", at->kp->bufs[at->buf_q].stask, at->kp->lane_load);
    sm90a_steps st = {.sh = &at->sh, .view = at, .task = emit_entry};
    for (int v = 0; v < at->kp->n_vals; v++) {
        const pt_kval *V = &at->kp->vals[v];
        if (V->tensor == at->g->ops[at->a.op_qk].out)
            st.val_name[v] = "s";
        else if (V->tensor == at->a.O)
            st.val_name[v] = "o";
    }
    sm90a_emit_steps(sb, &st, w);
    emit_consumer_epilogue(sb, at, w);
}

/* The log-sum-exp task: this warpgroup's rows of it, and their store by the threads that hold
 * them (pt_tile.cuh says why not by the storing thread). The store's stamps come from the last
 * warpgroup, so that the store is one span per tile, as predicted. */
static void emit_lse(strbuf *sb, const sm90a_attn *at, int w)
{
    const pt_kprog *kp = at->kp;
    const pt_ktask *t = &kp->consumer[w].rows_task;
    int st = kp->rows >= 0 ? kp->bufs[kp->rows].stask : -1, sl = kp->rows >= 0 ? kp->bufs[kp->rows].lane : -1;
    bool stamp = st >= 0 && w == kp->wgs - 1;
    sb_printf(sb, "            // %s: m + log(l) per row (natural log), as f32.\n"
                  "            PT_REC(%d, %d, n_tile, 0, 0);\n"
                  "            float lse[2];\n"
                  "            pt::lse_rows(m_run, l_run, lse);\n"
                  "            PT_REC(%d, %d, n_tile, 0, 1);\n",
              kp->sg->tasks[t->stask].id, t->stask, t->lane, t->stask, t->lane);
    if (stamp)
        sb_printf(sb, "            PT_REC(%d, %d, n_tile, 0, 0);  // %s\n", st, sl, kp->sg->tasks[st].id);
    sb_printf(sb, "            pt::store_lse_rows(lse_out + (size_t)bh * SEQ + mt * BM, lse, %d * 64 + warp * 16 + lane / 4,\n"
                  "                               lane, SEQ - mt * BM < BM ? SEQ - mt * BM : BM);\n", w);
    if (stamp)
        sb_printf(sb, "            PT_REC(%d, %d, n_tile, 0, 1);\n", st, sl);
}

/* After a tile's loop: hand Q back, normalize O into the staging tile (the log-sum-exp, in lane
 * order, straight to global memory) and (on the store lane) store it; then the end of the role. */
static void emit_consumer_epilogue(strbuf *sb, const sm90a_attn *at, int w)
{
    const pt_krole *W = &at->kp->consumer[w];
    sb_puts(sb, "            kbase += n_iter;\n            vbase += n_iter;\n");
    if ((at->kp->bufs[at->kp->staging].over < 0)) {
        /* every wgmma group retired inside the loop: this warp's reads of Q are done */
        char qempty[32];
        sm90a_resident_bar(&at->sh, at->buf_q, "empty", qempty, sizeof qempty);
        sb_printf(sb, "            if (lane == 0)\n"
                      "                pt::mbar_arrive(%s);  // the producer may load %s Q\n", qempty,
                  at->kp->bufs[at->buf_q].stages > 1 ? "the tile after next's" : "the next tile's");
        if (!(at->kp->store_wg < 0) && at->kp->store_wg == w)
            sb_puts(sb, "            if (n_tile > 0 && lead) {  // the last store read the staging tile\n"
                        "                pt::tma_store_wait_read();\n"
                        "                pt::mbar_arrive(o_empty);\n"
                        "            }\n");
        sb_puts(sb, "            if (n_tile > 0)\n"
                    "                pt::mbar_wait(o_empty, (n_tile - 1) & 1);  // Wait: the staging tile is free\n");
    }
    bool lse = W->rows_task.stask >= 0;
    int lpos = 0, npos = 0, lane;
    if (lse) {
        pt_sprogram_placement(at->kp->p, W->rows_task.stask, &lane, &lpos);
        pt_sprogram_placement(at->kp->p, W->epilogue.stask, &lane, &npos);
    }
    if (lse && lpos < npos)
        emit_lse(sb, at, w);
    sb_printf(sb, "            // %s: O / l (the row sums of the 4 lanes of a row added first), converted to\n"
                  "            // %s and staged 128B-swizzled in this warpgroup's rows of the staging tile.\n"
                  "            PT_REC(%d, %d, n_tile, 0, 0);\n"
                  "            float inv_l[2] = {l_run[0], l_run[1]};\n"
                  "            pt::inverse_row_sums(inv_l);\n"
                  "            pt::store_rows_sw128<%s, D, O_CHUNK>(o, smem + OFF_O, BM * 128, %d * 64 + warp * 16 + lane / 4,\n"
                  "                                                lane, inv_l);\n"
                  "            PT_REC(%d, %d, n_tile, 0, 1);\n",
              at->kp->sg->tasks[W->epilogue.stask].id, pt_dtype_name(at->a.out_dt), W->epilogue.stask,
              W->epilogue.lane, sm90a_cuda_type(at->a.out_dt), w, W->epilogue.stask, W->epilogue.lane);
    if (lse && lpos >= npos)
        emit_lse(sb, at, w);
    sb_printf(sb, "            pt::fence_proxy_async();  // the TMA store reads what these threads wrote\n"
                  "            pt::named_sync(%d, 128);\n"
                  "            if (lead)\n"
                  "                pt::mbar_arrive(o_full);\n",
              1 + w);
    if (at->kp->store_wg == w)
        sm90a_emit_consumer_store(sb, &at->sh, "            ", "lead");
    sb_puts(sb, "        }\n");
    if (!(at->kp->store_wg < 0) && at->kp->store_wg == w)
        sb_puts(sb, "        if (lead)\n            pt::tma_store_wait_all();\n");
    sb_puts(sb, "#ifdef PT_TRACE\n        tracer.end();\n#endif\n    }\n");
}

static void emit_kernel(strbuf *sb, const sm90a_attn *at)
{
    char gname[PT_NAME_MAX];
    sb_printf(sb, "// %s.cu — generated by PipeThreader (target sm90a) from graph \"%s\" and its sProgram.\n"
                  "// O = softmax(Q K^T * %.9g%s) V over %lld x %lld per batch·head%s, %s in, f32 accumulate,\n"
                  "// %s out. Do not edit: regenerate.\n"
                  "// Build: nvcc -cubin -O3 -gencode=arch=compute_90a,code=sm_90a\n\n",
              at->kp->kernel_name, pt_codegen_comment_safe(at->g->name, gname, sizeof gname), at->a.scale, at->a.causal ? ", causal" : "", (long long)at->a.S,
              (long long)at->a.SK, at->buf_l >= 0 ? " and its log-sum-exp" : "",
              pt_dtype_name(at->a.in_dt), pt_dtype_name(at->a.out_dt));
    sm90a_emit_device_header(sb, true);
    sb_puts(sb, "#include <math.h>\n\n");
    emit_constants(sb, at);
    emit_wgmma(sb, at);
    emit_helpers(sb, at);
    sm90a_emit_dynamic_globals(sb, at->kp);
    sb_printf(sb, "extern \"C\" __global__ void __launch_bounds__(%d, 1)\n"
                  "%s(const __grid_constant__ CUtensorMap tm_q, const __grid_constant__ CUtensorMap tm_k,\n"
                  "   const __grid_constant__ CUtensorMap tm_v, const __grid_constant__ CUtensorMap tm_o,%s\n"
                  "   uint8_t *pt_trace)\n{\n",
              at->kp->threads, at->kp->kernel_name,
              at->buf_l >= 0 ? "\n   float *__restrict__ lse_out," : "");
    sm90a_emit_kernel_head(sb, &at->sh, NULL, 0);
    sm90a_emit_producer(sb, &at->sh);
    sb_puts(sb, "    // Consumer roles: warpgroup 1 + cw runs role cw's lanes.\n"
                "    const int cw = wg - 1;\n"
                "    const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;\n"
                "    const bool lead = threadIdx.x % 128 == 0;  // the warpgroup's issuing thread\n");
    for (int w = 0; w < at->wgs; w++)
        emit_consumer_wg(sb, at, w);
    sb_puts(sb, "}\n");
    sm90a_emit_staging_device(sb, at->kp);
}

bool sm90a_attn_emit(const sm90a_attn *at, pt_codegen_result *out, pt_error *err)
{
    strbuf k = {0}, h = {0};
    emit_kernel(&k, at);
    sm90a_emit_host(&h, &at->sh);
    if (!sm90a_finish_result(out, &k, &h, at->kp->kernel_name, at->kp->grid, at->kp->threads,
                             at->kp->smem_dynamic, err))
        return false;
    char order[256] = "";
    const pt_krole *W = &at->kp->consumer[0];
    for (int k2 = 0; k2 < W->n_tasks; k2++) {
        size_t n = strlen(order);
        snprintf(order + n, sizeof order - n, "%s%s%+d", k2 ? ", " : "",
                 pt_stask_kind_name(at->kp->sg->tasks[W->tasks[k2].stask].kind), W->tasks[k2].offset);
    }
    snprintf(out->summary, sizeof out->summary,
             "%s: attention tile %lldx%lld (d %lld), %d consumer warpgroup%s, stages K %d / V %d, "
             "warpgroup 0 step [%s], %d S tile%s and %d P fragment%s live, %d cross-warpgroup Wait%s, %s grid of "
             "%lld CTAs (%lld tiles), %lld bytes of shared memory%s, registers %d/%d",
             at->kp->kernel_name, (long long)at->a.BM, (long long)at->a.BN, (long long)at->a.D, at->wgs,
             at->wgs > 1 ? "s" : "", at->kp->bufs[at->ring_k].stages, at->kp->bufs[at->ring_v].stages, order, at->s_bufs,
             at->s_bufs > 1 ? "s" : "", at->p_bufs, at->p_bufs > 1 ? "s" : "", at->kp->n_xwaits, at->kp->n_xwaits == 1 ? "" : "s",
             at->kp->dynamic ? "persistent (dynamic tiles)" : at->kp->persistent ? "persistent" : "one-tile-per-CTA", (long long)at->kp->grid,
             (long long)at->kp->tiles, (long long)at->kp->smem_dynamic,
             at->kp->bufs[at->buf_q].stages > 1 ? " (two copies of Q: the next tile's loads during this one; O staged apart)"
             : (at->kp->bufs[at->kp->staging].over < 0) ? " (O staged apart from Q)" : "", at->kp->producer.regs, at->kp->consumer[0].regs);
    return true;
}
