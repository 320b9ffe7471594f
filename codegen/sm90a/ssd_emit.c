/* ssd_emit.c — prints a ChunkState- or ChunkScan-like kernel program (ssd.h) as a CUDA kernel
 * and launcher.
 *
 * Warpgroup 0 is the producer role (one thread issues the TMA lane: the per-tile scalars once,
 * then every ring load per loop step at the sProgram's offsets, and the store where the
 * program puts it); warpgroup 1 + w runs consumer role w's step program (steps.c): the vector
 * ops and the A fragment on its CUDA cores, the wgmma with A from registers, in the merged
 * order and with the waits and stage releases the program placed. A ring read on the CUDA
 * cores is released by each warp once it read the stage (no wgmma wait covers it). ChunkScan's
 * prologue (once per tile, before the loop) multiplies two resident tiles into the
 * accumulators and scales their rows; the loop then adds its product onto them, so the
 * epilogue's sum is the accumulators as they stand. */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "ssd.h"
#include "steps.h"
#include "strbuf.h"

static const char *ew_name(pt_op_kind k)
{
    switch (k) {
    case PT_OP_ADD: return "ADD";
    case PT_OP_SUB: return "SUB";
    case PT_OP_MUL: return "MUL";
    case PT_OP_DIV: return "DIV";
    default: return "EXP";
    }
}

/* Bytes between the 64-column atoms of a buffer's 128B-swizzled tile (every row of one atom). */
static long long atom_bytes(const pt_kbuf *B)
{
    return (long long)(B->bytes / B->row_bytes * 128);
}

static void emit_constants(strbuf *sb, const sm90a_ssd *sd)
{
    const pt_kprog *kp = sd->kp;
    sb_printf(sb, "namespace {\n"
                  "using elem_t = %s;\n"
                  "using out_t = %s;\n"
                  "// Problem (from the graph): %s[%lld x %lld] per batch index, reduced over %s = %lld.\n"
                  "// Tile (from the sProgram): BM rows (64 per consumer warpgroup) x BN, BK per loop step.\n"
                  "constexpr int BM = %lld, BN = %lld, BK = %lld, KS = BK / 16, WGS = %d;\n"
                  "constexpr int TILES = %lld, K_ITERS = %lld;\n"
                  "#ifdef PT_TRACE\n"
                  "constexpr int TRACE_ROLES = %d, TRACE_CAP = %u;  // the instrumented build's record regions\n"
                  "#endif\n",
              sm90a_cuda_type(sd->in_dt), sm90a_cuda_type(sd->out_dt), sd->g->tensors[sd->C].name,
              (long long)sd->M, (long long)sd->N, sd->g->axes[sd->ax_k].name, (long long)sd->K,
              (long long)sd->BM, (long long)sd->BN, (long long)sd->BK, sd->wgs,
              (long long)kp->tiles, (long long)kp->iters, 1 + sd->wgs, kp->trace_cap);
    const pt_kbuf *X = &kp->bufs[sd->ring_src];
    sb_printf(sb, "constexpr uint32_t X_ATOM = %lld;  // bytes between 64-column atoms of %s's tile\n",
              atom_bytes(X), sd->g->tensors[sd->src].name);
    sb_printf(sb, "constexpr uint32_t B_ATOM = %lld;  // and of %s's%s\n",
              atom_bytes(&kp->bufs[sd->ring_b]), sd->g->tensors[sd->B].name,
              sd->wg_rows[sd->ring_b] ? " (every warpgroup's rows)" : "");
    if (sd->scan) {
        const pt_kbuf *PA = &kp->bufs[sd->res_a], *PB = &kp->bufs[sd->res_b];
        sb_printf(sb, "// The prologue product over %s = PK, both operands K-major in 64-column atoms.\n"
                      "constexpr int PK = %lld;\n"
                      "constexpr uint32_t PA_ATOM = %lld, PB_ATOM = %lld;\n",
                  sd->g->axes[sd->ax_pk].name, (long long)sd->PK,
                  atom_bytes(PA), atom_bytes(PB));
    }
    if (kp->causal)
        sb_printf(sb, "constexpr int M_EXTENT = %lld;  // %s, along which the causal mask runs\n",
                  (long long)sd->M, sd->g->axes[sd->ax_m].name);
    sm90a_emit_buffer_constants(sb, &sd->sh);
    sb_puts(sb, "}\n\n"
                "#ifdef PT_TRACE\n#define PT_REC(...) tracer.rec(__VA_ARGS__)\n#else\n"
                "#define PT_REC(stask, lane, tile, iter, end) ((void)(iter))\n#endif\n\n");
}

/* Does each consumer warpgroup run its own trip count? Under a causal mask along m, the k
 * blocks past a warpgroup's last row are all zero: it only waits for their stages and hands
 * them back, while the warpgroup of the later rows computes. */
static bool per_wg_trips(const sm90a_ssd *sd)
{
    return sd->kp->causal && sd->wgs > 1 && sd->ax_wg < 0;
}

/* Which 64-row block of the tile warpgroup w's rows are: its own (the warpgroups split the
 * rows), or block 0 (one batch index each, every warpgroup all the tile's rows). */
static int row_block(const sm90a_ssd *sd, int w)
{
    return sd->ax_wg >= 0 ? 0 : w;
}

static void emit_helpers(strbuf *sb, const sm90a_ssd *sd)
{
    const pt_graph *g = sd->g;
    sb_printf(sb, "// mma.%s: C += A . B over one k block as one wgmma group: A from registers (made on\n"
                  "// the CUDA cores), B N-major: 64-column atoms B_ATOM bytes apart, 16 rows per k16 step;\n"
                  "// b_rows: this warpgroup's first byte in the stage (its own batch index's rows, or 0).\n"
                  "__device__ __forceinline__ void mma_c(float (&d)[BN / 2], const uint32_t (&a)[KS][4], uint8_t *smem,\n"
                  "                                      uint32_t stage, uint32_t b_rows)\n{\n"
                  "    pt::keep_all(d);\n"
                  "    pt::wgmma_fence();\n"
                  "    const uint64_t db = pt::desc_sw128(smem + OFF_B + stage * B_PITCH + b_rows, B_ATOM, 1024);\n"
                  "    #pragma unroll\n"
                  "    for (int kk = 0; kk < KS; ++kk)\n"
                  "        pt::wgmma_rs<BN, elem_t>::mma(d, a[kk], db + ((kk * 16 * 128) >> 4));\n"
                  "    pt::wgmma_commit();\n}\n\n",
              g->tensors[sd->C].name);
    if (sd->scan)
        sb_printf(sb, "// mma.%s (prologue): %s . %sᵀ over PK as one wgmma group, both from shared memory\n"
                      "// K-major (a: this warpgroup's first row of the resident tile, b: the other operand)%s.\n"
                      "__device__ __forceinline__ void mma_pro(float (&d)[BN / 2], const uint8_t *a, const uint8_t *b)\n{\n"
                      "%s"
                      "    pt::wgmma_fence();\n"
                      "    #pragma unroll\n"
                      "    for (int kk = 0; kk < PK / 16; ++kk) {\n"
                      "        const uint64_t da = pt::desc_sw128(a + (kk / 4) * PA_ATOM + (kk %% 4) * 32, 16, 1024);\n"
                      "        const uint64_t db = pt::desc_sw128(b + (kk / 4) * PB_ATOM + (kk %% 4) * 32, 16, 1024);\n"
                      "        %s\n"
                      "    }\n"
                      "    pt::wgmma_commit();\n}\n\n",
                  g->tensors[g->ops[sd->op_pro].out].name, g->tensors[g->ops[sd->op_pro].in[0]].name,
                  g->tensors[g->ops[sd->op_pro].in[1]].name,
                  sd->pro_ahead ? ",\n// into a fresh accumulator: the first k16 step overwrites it" : "",
                  sd->pro_ahead ? "" : "    pt::keep_all(d);\n",
                  sd->pro_ahead ? "pt::wgmma_ss_zero<BN, elem_t>::mma(d, da, db, kk > 0);"
                                : "pt::wgmma_ss<BN, elem_t, 0, 0>::mma(d, da, db);");
    if (sd->kp->causal)
        sb_puts(sb, "// The k blocks a tile runs under the causal mask: up to its last row (as the simulator\n"
                    "// counts them, pt_stask_graph_tile_iterations).\n"
                    "__device__ __forceinline__ int tile_iters(int gm)\n{\n"
                    "    const int last = (gm + 1) * BM < M_EXTENT ? (gm + 1) * BM : M_EXTENT;\n"
                    "    const int it = (last - 1) / BK + 1;\n"
                    "    return it < K_ITERS ? it : K_ITERS;\n}\n\n");
    if (per_wg_trips(sd))
        sb_puts(sb, "// The k blocks warpgroup w runs in tile gm: up to its own last row, since a block wholly past\n"
                    "// it is all zero under the mask (the simulator counts them so: pt_stask_graph_wg_iterations).\n"
                    "__device__ __forceinline__ int wg_iters(int gm, int w)\n{\n"
                    "    const int last = gm * BM + 64 * (w + 1) < M_EXTENT ? gm * BM + 64 * (w + 1) : M_EXTENT;\n"
                    "    const int it = (last - 1) / BK + 1;\n"
                    "    return it < K_ITERS ? it : K_ITERS;\n}\n\n");
}

/* The signature's tile coordinates: "int &g0, int &g2". */
static void coord_params(char *out, size_t cap, const sm90a_ssd *sd)
{
    out[0] = 0;
    for (int i = 0; i < sd->n_tiled; i++) {
        size_t n = strlen(out);
        snprintf(out + n, cap - n, "%sint &g%d", i ? ", " : "", sd->tiled[i]);
    }
    if (!sd->n_tiled)
        snprintf(out, cap, "int &g_unused");
}

/* Longest first (a causal mask): the row axis walked backwards, as the simulator launches
 * tiles (pt_launch_order_tile). */
static void emit_longest_first(strbuf *sb, const sm90a_ssd *sd)
{
    const pt_kprog *kp = sd->kp;
    if (!kp->longest_first || !kp->causal || kp->sg->tile_grid[sd->ax_m] <= 1)
        return;
    sb_printf(sb, "    g%d = %lld - 1 - g%d;  // longest tiles first\n", sd->ax_m,
              (long long)kp->sg->tile_grid[sd->ax_m], sd->ax_m);
}

static void emit_tile_coords(strbuf *sb, const sm90a_ssd *sd)
{
    char params[256];
    coord_params(params, sizeof params, sd);
    const pt_stask_graph *sg = sd->kp->sg;
    sb_printf(sb, "// Launch position t -> tile coordinates (g<axis>: the tile index along graph axis <axis>),\n"
                  "// %s raster over the two fastest tiled axes (raster.h, as the simulator walks it).\n"
                  "__device__ __forceinline__ void tile_coords(int t, %s)\n{\n",
              pt_raster_name(sd->kp->raster), params);
    if (sd->n_tiled == 0) {
        sb_puts(sb, "    (void)t;\n    g_unused = 0;\n}\n\n");
        return;
    }
    if (sd->n_tiled == 1) {
        sb_printf(sb, "    g%d = t;\n", sd->tiled[0]);
        emit_longest_first(sb, sd);
        sb_puts(sb, "}\n\n");
        return;
    }
    int slow = sd->tiled[sd->n_tiled - 2], fast = sd->tiled[sd->n_tiled - 1];
    int group = sd->kp->group < 1 ? 1 : sd->kp->group;
    sb_printf(sb, "    constexpr int SLOW = %lld, FAST = %lld;\n"
                  "    int s, f;\n"
                  "    pt_raster_walk(t %% (SLOW * FAST), %d, %d, SLOW, FAST, &s, &f);\n"
                  "    g%d = s;\n    g%d = f;\n",
              (long long)sg->tile_grid[slow], (long long)sg->tile_grid[fast], (int)sd->kp->raster,
              sd->kp->raster == PT_RASTER_GROUPED ? group : 1, slow, fast);
    if (sd->n_tiled == 2) {
        emit_longest_first(sb, sd);
        sb_puts(sb, "}\n\n");
        return;
    }
    sb_puts(sb, "    int rest = t / (SLOW * FAST);\n");
    for (int i = sd->n_tiled - 3; i >= 0; i--) {
        int a = sd->tiled[i];
        sb_printf(sb, "    g%d = rest %% %lld;\n    rest /= %lld;\n", a, (long long)sg->tile_grid[a],
                  (long long)sg->tile_grid[a]);
    }
    sb_puts(sb, "    (void)rest;\n");
    emit_longest_first(sb, sd);
    sb_puts(sb, "}\n\n");
}

/* ---- consumer step programs ---- */

typedef sm90a_step_ctx step_ctx;

/* An operand of a task as the device calls take it: a register array, a shared-memory f32
 * vector (its ring stage), or the scalar of a flat resident tile. */
static void operand(char *out, size_t cap, const step_ctx *c, const pt_ktask *e, int k)
{
    const sm90a_ssd *sd = c->st->view;
    const pt_kprog *kp = sd->kp;
    const pt_ksrc *s = &e->in[k];
    char lo[8], up[8];
    if (s->kind == PT_KSRC_VAL) {
        snprintf(out, cap, "%s%d", sd->vname[s->index],
                 sm90a_step_slot(c, e->offset, kp->vals[s->index].slots));
        return;
    }
    sm90a_buf_name(&sd->sh, s->index, lo, up, sizeof lo);
    if (kp->bufs[s->index].kind == PT_KBUF_RESIDENT)
        snprintf(out, cap, "r_%s", lo);
    else if (sd->wg_off[s->index] && c->w)  /* this warpgroup's batch index in the box */
        snprintf(out, cap, "reinterpret_cast<const float *>(smem + OFF_%s + s_%s * %s_PITCH) + %lld",
                 up, lo, up, (long long)(sd->wg_off[s->index] * c->w));
    else
        snprintf(out, cap, "reinterpret_cast<const float *>(smem + OFF_%s + s_%s * %s_PITCH)", up,
                 lo, up);
}

/* The rings task e reads: the Wait on each stage it reads (its full barrier), and (warpgroup 0)
 * the end record of the load. */
static void emit_stage_waits(strbuf *sb, const step_ctx *c, const pt_ktask *e)
{
    const sm90a_ssd *sd = c->st->view;
    const pt_kprog *kp = sd->kp;
    int rings[PT_KTASK_INS], n = pt_kprog_task_rings(kp, e, rings);
    for (int r = 0; r < n; r++) {
        char lo[8], up[8];
        sm90a_buf_name(&sd->sh, rings[r], lo, up, sizeof lo);
        sb_printf(sb, "                const uint32_t c_%s = %sbase + (uint32_t)i, s_%s = c_%s %% STAGES_%s;\n"
                      "                pt::mbar_wait(&full_%s[s_%s], (c_%s / STAGES_%s) & 1);  // Wait: %s landed\n",
                  lo, lo, lo, lo, up, lo, lo, lo, up, kp->sg->tasks[kp->bufs[rings[r]].stask].id);
        if (c->w == 0)
            sb_printf(sb, "                PT_REC(%d, %d, n_tile, i, 1);\n", kp->bufs[rings[r]].stask,
                      kp->lane_load);
    }
}

/* Which operand of e is the loaded tile A is made from, -1. */
static int reads_src(const sm90a_ssd *sd, const pt_ktask *e)
{
    for (int k = 0; k < e->n_in; k++)
        if (e->in[k].kind == PT_KSRC_BUF && e->in[k].index == sd->ring_src)
            return k;
    return -1;
}

/* Consumer w's exp_decay task (the factored decay's first; ssd_plan.c made sure it has one). */
static const pt_ktask *decay_task(const sm90a_ssd *sd, int w)
{
    const pt_krole *R = &sd->kp->consumer[w];
    for (int i = 0; i < R->n_tasks; i++)
        if (R->tasks[i].op == sd->chain.op_decay)
            return &R->tasks[i];
    return NULL;
}

/* The first row of this warp counted along the chunk, as the causal mask counts. */
static void warp_row0(char *out, size_t cap, const sm90a_ssd *sd, int w)
{
    snprintf(out, cap, "%s * BM + %d * 64 + warp * 16", sd->row_tile, row_block(sd, w));
}

/* The factored decay's tasks (ssd.h; pt_ssd.cuh decay_cols, afrag_tile, afrag_decay). The
 * exp_decay's rows (its first operand, in registers) and column factors are named by the
 * values and buffers of the chain's first task, which the last one needs too. */
static void emit_factored(strbuf *sb, const step_ctx *c, const pt_ktask *e, const char *out)
{
    const sm90a_ssd *sd = c->st->view;
    const pt_ktask *d = decay_task(sd, c->w);
    const bool causal = sd->g->ops[sd->chain.op_decay].causal;
    char x[160], y[160], row0[64], tile[24], cols[24];  /* cols: the decay's value of e's k block */
    operand(x, sizeof x, c, d, 0);
    warp_row0(row0, sizeof row0, sd, c->w);
    if (e->op == sd->chain.op_decay) {
        operand(y, sizeof y, c, e, 1);
        sb_printf(sb, "                pt::decay_cols<%s, elem_t, KS, %s>(%s, fx, acc, %s, %s, i * BK, lane);\n",
                  causal ? "true" : "false", sd->decay_defer ? "true" : "false", out, y, row0);
    } else if (e->op == sd->chain.op_tile) {
        sb_printf(sb, "                pt::afrag_tile<KS, %s>(%s, smem + OFF_X + s_x * X_PITCH, %d * 64 + warp * 16, X_ATOM, lane);\n",
                  sd->src_mn_major ? "true" : "false", out, row_block(sd, c->w));
    } else {
        /* the tile's fragment is one operand (ssd_plan.c), the vector along k the other */
        int f = e->in[0].kind == PT_KSRC_VAL && sd->vkind[e->in[0].index] == SSD_AFRAG ? 0 : 1;
        operand(tile, sizeof tile, c, e, f);
        operand(y, sizeof y, c, e, 1 - f);
        snprintf(cols, sizeof cols, "%s%d", sd->vname[d->out],
                 sm90a_step_slot(c, e->offset, sd->kp->vals[d->out].slots));
        /* decay "factored16": the column factor rounded to 16 bits first (decay_form.h) */
        bool r16 = sd->kp->p->decay == PT_DECAY_FACTORED16;
        sb_printf(sb, "                pt::afrag_decay<%s, elem_t, KS%s>(%s, %s, %s, %s, fx, %s, %s, i * BK, lane);\n",
                  causal ? "true" : "false", r16 ? ", true" : "", out, tile, cols, y, x, row0);
    }
}

static void emit_entry(strbuf *sb, const step_ctx *c, const pt_ktask *e)
{
    const sm90a_ssd *sd = c->st->view;
    const pt_kprog *kp = sd->kp;
    const pt_graph *g = sd->g;
    sb_printf(sb, "            {   const int i = v + %d;  // %s\n", e->offset,
              kp->sg->tasks[e->stask].id);
    emit_stage_waits(sb, c, e);
    sb_printf(sb, "                PT_REC(%d, %d, n_tile, i, 0);\n", e->stask, e->lane);
    char x[160] = "", y[160] = "0.f", out[24] = "";
    if (e->out >= 0)
        snprintf(out, sizeof out, "%s%d", sd->vname[e->out],
                 sm90a_step_slot(c, e->offset, kp->vals[e->out].slots));
    if (sd->factored && (e->op == sd->chain.op_decay || e->op == sd->chain.op_tile ||
                         e->op == sd->chain.op_vec)) {
        emit_factored(sb, c, e, out);
    } else if (e->body == PT_KB_MMA) {
        operand(x, sizeof x, c, e, 0);
        if (sd->decay_defer)  /* every group is complete here (ssd_plan.c) */
            sb_puts(sb, "                pt::decay_settle(fx, acc, lane);  // a multiply back the decay owes\n");
        sb_printf(sb, "                mma_c(acc, %s, smem, s_b, %lld);\n", x,
                  (long long)(sd->wg_rows[sd->ring_b] * 128 * c->w));
    } else if (e->body == PT_KB_EXP_DECAY) {
        operand(x, sizeof x, c, e, 0);
        operand(y, sizeof y, c, e, 1);
        sb_printf(sb, "                pt::atile_exp_decay<%s>(%s, %s, %s, %s * BM + %d * 64 + warp * 16, i * BK, lane);\n",
                  g->ops[e->op].causal ? "true" : "false", out, x, y, sd->row_tile,
                  row_block(sd, c->w));
    } else if (reads_src(sd, e) >= 0) {
        /* the loaded tile with the other operand: the A fragment (times it) or an f32 tile */
        int other = 1 - reads_src(sd, e);
        operand(y, sizeof y, c, e, other);
        if (sd->vkind[e->out] == SSD_AFRAG && sd->ax_wg >= 0)
            sb_printf(sb, "                pt::afrag_scaled<elem_t, KS, %s>(%s, smem + OFF_X + s_x * X_PITCH,\n"
                          "                                              warp * 16, X_ATOM, %s, lane, %lld, %lld);"
                          "  // rows of batch index %d\n",
                      sd->src_mn_major ? "true" : "false", out, y, (long long)sd->x_rows,
                      (long long)(sd->x_wg_rows * c->w), c->w);
        else if (sd->vkind[e->out] == SSD_AFRAG)
            sb_printf(sb, "                pt::afrag_scaled<elem_t, KS, %s>(%s, smem + OFF_X + s_x * X_PITCH,\n"
                          "                                              %d * 64 + warp * 16, X_ATOM, %s, lane);\n",
                      sd->src_mn_major ? "true" : "false", out, c->w, y);
        else
            sb_printf(sb, "                pt::atile_from_tile<elem_t, KS, %s, pt::Ew::%s>(%s, smem + OFF_X + s_x * X_PITCH,\n"
                          "                                                            %d * 64 + warp * 16, X_ATOM, %s, lane);\n",
                      sd->src_mn_major ? "true" : "false", ew_name(g->ops[e->op].kind), out,
                      row_block(sd, c->w), y);
    } else if (sd->vkind[e->out] != SSD_KVEC) {
        operand(x, sizeof x, c, e, 0);
        if (e->n_in > 1)
            operand(y, sizeof y, c, e, 1);
        ssd_val_kind k = sd->vkind[e->out];
        sb_printf(sb, "                pt::%s<%s%s>(%s, %s, %s, lane);\n",
                  k == SSD_AFRAG ? "afrag_op" : k == SSD_ATILE ? "atile_op" : "mvec_op",
                  k == SSD_AFRAG ? "elem_t, pt::Ew::" : "pt::Ew::", ew_name(g->ops[e->op].kind), out,
                  x, y);
    } else {
        operand(x, sizeof x, c, e, 0);
        if (e->n_in > 1)
            operand(y, sizeof y, c, e, 1);
        sb_printf(sb, "                pt::kvec_op<pt::Ew::%s>(%s, %s, %s, lane);\n",
                  ew_name(g->ops[e->op].kind), out, x, y);
    }
    if (!e->async) {
        /* done on this thread; each warp hands back the stages it read: with the group its
         * values feed (steps.c), or now, after a fence that waits for its loads (pass_step.c,
         * decision 4) */
        sb_printf(sb, "                PT_REC(%d, %d, n_tile, i, 1);\n", e->stask, e->lane);
        int rings[PT_KTASK_INS], n = pt_kprog_task_rings(kp, e, rings);
        if (kp->consumer[c->w].release_with[e - kp->consumer[c->w].tasks] >= 0)
            n = 0;
        if (n)
            sb_puts(sb, "                pt::fence_proxy_async();  // the loads have returned before the stage goes back\n"
                        "                __syncwarp();\n");
        for (int r = 0; r < n; r++) {
            char lo[8], up[8];
            sm90a_buf_name(&sd->sh, rings[r], lo, up, sizeof lo);
            sb_printf(sb, "                if (lane == 0)\n"
                          "                    pt::mbar_arrive(&empty_%s[s_%s]);  // this warp read the stage\n",
                      lo, lo);
        }
    }
    sb_puts(sb, "            }\n");
}

/* A resident vector along m: this thread's two rows into registers, and the buffer handed back
 * at once, so the producer may load the next tile's while this tile's loop runs. */
static void emit_mvec_read(strbuf *sb, const sm90a_ssd *sd, int b, int w)
{
    const pt_kprog *kp = sd->kp;
    char lo[8], up[8];
    sm90a_buf_name(&sd->sh, b, lo, up, sizeof lo);
    sb_printf(sb, "            pt::mbar_wait(%s_full, n_tile & 1);  // Wait: %s landed\n", lo,
              kp->sg->tasks[kp->bufs[b].stask].id);
    if (w == 0)
        sb_printf(sb, "            PT_REC(%d, %d, n_tile, 0, 1);\n", kp->bufs[b].stask, kp->lane_load);
    sb_printf(sb, "            float r_%s[2];  // %s of this thread's rows\n"
                  "            {\n"
                  "                const float *p = reinterpret_cast<const float *>(smem + OFF_%s) + %lld + warp * 16 + lane / 4;\n"
                  "                r_%s[0] = p[0];\n"
                  "                r_%s[1] = p[8];\n"
                  "            }\n"
                  "            pt::fence_proxy_async();  // the loads have returned before the tile goes back\n"
                  "            __syncwarp();\n"
                  "            if (lane == 0)\n"
                  "                pt::mbar_arrive(%s_empty);  // this warp holds its rows in registers\n",
              lo, sd->g->tensors[kp->bufs[b].tensor].name, up,
              /* this warpgroup's rows, or its batch index's vector */
              (long long)(sd->ax_wg >= 0 ? sd->wg_off[b] * w : 64 * w), lo, lo, lo);
}

/* The prologue product of tile TILE (an expression) into ACC: its Waits on both tiles and its
 * records (under `if (GUARD)` when GUARD is given: tiles that exist), then its issue, under no
 * branch (ptxas serialises every wgmma of a kernel when one is issued under a run-time
 * branch, C7518). Tile n_tile's in place, or (pro_ahead) the first tile's before the loop and
 * the next tile's at this one's end; the caller waits for the group. */
static void emit_pro_issue(strbuf *sb, const sm90a_ssd *sd, int w, const pt_ktask *e,
                           const char *ind, const char *acc, const char *tile, const char *guard)
{
    const pt_kprog *kp = sd->kp;
    char la[8], ua[8], lb[8], ub[8];
    sm90a_buf_name(&sd->sh, sd->res_a, la, ua, sizeof la);
    sm90a_buf_name(&sd->sh, sd->res_b, lb, ub, sizeof lb);
    const char *in = guard ? "    " : "";
    if (guard)
        sb_printf(sb, "%sif (%s) {\n", ind, guard);
    char par[48];
    snprintf(par, sizeof par, strcmp(tile, "0") == 0 ? "%s" : strchr(tile, ' ') ? "(%s) & 1" : "%s & 1",
             tile);
    sb_printf(sb, "%s%spt::mbar_wait(%s_full, %s);  // Wait: %s landed\n"
                  "%s%spt::mbar_wait(%s_full, %s);  // Wait: %s landed\n",
              ind, in, la, par, kp->sg->tasks[kp->bufs[sd->res_a].stask].id, ind, in, lb, par,
              kp->sg->tasks[kp->bufs[sd->res_b].stask].id);
    if (w == 0)
        sb_printf(sb, "%s%sPT_REC(%d, %d, %s, 0, 1);\n"
                      "%s%sPT_REC(%d, %d, %s, 0, 1);\n",
                  ind, in, kp->bufs[sd->res_a].stask, kp->lane_load, tile, ind, in,
                  kp->bufs[sd->res_b].stask, kp->lane_load, tile);
    sb_printf(sb, "%s%sPT_REC(%d, %d, %s, 0, 0);\n", ind, in, e->stask, e->lane, tile);
    if (guard)
        sb_printf(sb, "%s}\n", ind);
    /* this warpgroup's rows of the row operand (or the tile's, shared by the batch indices)
     * and its batch index's rows of the other (or all of it, shared) */
    long long pa = sd->ax_wg >= 0 ? sd->wg_rows[sd->res_a] * 128 * w : 64LL * 128 * w;
    long long pb = sd->ax_wg >= 0 ? sd->wg_rows[sd->res_b] * 128 * w : 0;
    sb_printf(sb, "%smma_pro(%s, smem + OFF_%s + %lld, smem + OFF_%s + %lld);%s\n", ind, acc, ua, pa,
              ub, pb, guard ? "  // past the CTA's last tile: on the tiles still there, dropped" : "");
}

/* A prologue task: once per tile before the loop. The product waits for both resident tiles,
 * completes (the accumulators are read next) and hands them back; the rest are CUDA-core
 * vector ops and the accumulators' row scaling. */
static void emit_prologue_task(strbuf *sb, const sm90a_steps *st, int w, const pt_ktask *e)
{
    const sm90a_ssd *sd = st->view;
    const pt_kprog *kp = sd->kp;
    const pt_graph *g = sd->g;
    char la[8], ua[8], lb[8], ub[8];
    sb_printf(sb, "            {   // %s (prologue%s)\n", kp->sg->tasks[e->stask].id,
              sd->pro_ahead && e->body == PT_KB_MMA ? ", issued a tile ahead" : "");
    if (e->body == PT_KB_MMA) {
        sm90a_buf_name(&sd->sh, sd->res_a, la, ua, sizeof la);
        sm90a_buf_name(&sd->sh, sd->res_b, lb, ub, sizeof lb);
        if (sd->pro_ahead) {
            sb_printf(sb, "                pt::wgmma_wait<0>();  // issued at the last tile's end, or before the first\n"
                          "                pt::keep_all(acc2);\n"
                          "                PT_REC(%d, %d, n_tile, 0, 1);\n"
                          "                #pragma unroll\n"
                          "                for (int r = 0; r < BN / 2; ++r)\n"
                          "                    acc[r] = acc2[r];\n"
                          "                __syncwarp();\n"
                          "                if (lane == 0) {  // this warp's reads of both tiles are done\n",
                      e->stask, e->lane);
        } else {
            emit_pro_issue(sb, sd, w, e, "                ", "acc", "n_tile", NULL);
            sb_printf(sb, "                pt::wgmma_wait<0>();\n"
                          "                pt::keep_all(acc);\n"
                          "                PT_REC(%d, %d, n_tile, 0, 1);\n"
                          "                __syncwarp();\n"
                          "                if (lane == 0) {  // this warp's reads of both tiles are done\n",
                      e->stask, e->lane);
        }
        /* the output staged over either operand: its rows are handed back by the store */
        if (kp->bufs[kp->staging].over != sd->res_a)
            sb_printf(sb, "                    pt::mbar_arrive(%s_empty);\n", la);
        if (kp->bufs[kp->staging].over != sd->res_b)
            sb_printf(sb, "                    pt::mbar_arrive(%s_empty);\n", lb);
        sb_puts(sb, "                }\n"
                    "            }\n");
        return;
    }
    sm90a_step_ctx c = {.st = st, .w = w};
    char x[160] = "", y[160] = "0.f", out[24] = "";
    snprintf(out, sizeof out, "%s0", sd->vname[e->out]);
    sb_printf(sb, "                PT_REC(%d, %d, n_tile, 0, 0);\n", e->stask, e->lane);
    if (sd->vkind[e->out] == SSD_ACC) {
        int vec = e->in[0].kind == PT_KSRC_VAL && sd->vkind[e->in[0].index] == SSD_ACC ? 1 : 0;
        operand(y, sizeof y, &c, e, vec);
        sb_printf(sb, "                pt::acc_rows_op<pt::Ew::%s>(acc, %s, lane);  // %s in place\n",
                  ew_name(g->ops[e->op].kind), y, g->tensors[g->ops[e->op].out].name);
    } else {
        operand(x, sizeof x, &c, e, 0);
        if (e->n_in > 1)
            operand(y, sizeof y, &c, e, 1);
        sb_printf(sb, "                pt::mvec_op<pt::Ew::%s>(%s, %s, %s, lane);\n",
                  ew_name(g->ops[e->op].kind), out, x, y);
    }
    sb_printf(sb, "                PT_REC(%d, %d, n_tile, 0, 1);\n"
                  "            }\n", e->stask, e->lane);
}

/* At a tile's start: each resident vector or scalar into registers and handed back (the
 * prologue product's tiles are waited for by the product). */
static void emit_tile_residents(strbuf *sb, const sm90a_ssd *sd, int w)
{
    const pt_kprog *kp = sd->kp;
    char lo[8], up[8];
    for (int b = 0; b < kp->n_bufs; b++)
        if (sd->mvec_buf[b])
            emit_mvec_read(sb, sd, b, w);
        else if (kp->bufs[b].kind == PT_KBUF_RESIDENT && !(sd->scan && (b == sd->res_a || b == sd->res_b))) {
            sm90a_buf_name(&sd->sh, b, lo, up, sizeof lo);
            sb_printf(sb, "            pt::mbar_wait(%s_full, n_tile & 1);  // Wait: %s landed\n", lo,
                      kp->sg->tasks[kp->bufs[b].stask].id);
            if (w == 0)
                sb_printf(sb, "            PT_REC(%d, %d, n_tile, 0, 1);\n", kp->bufs[b].stask,
                          kp->lane_load);
            /* one scalar per tile: kept in a register, so the producer may load the next
             * tile's (and that tile's rings) while this tile's loop runs */
            if (sd->sh.flat_count[b] > 1)  /* this warpgroup's batch index: its own 16-byte box */
                sb_printf(sb, "            const float r_%s = reinterpret_cast<const float *>(smem + OFF_%s + %d * 128)[(%s + (int64_t)%d * %lld) & %d];\n",
                          lo, up, w, sd->sh.flat[b], w, (long long)sd->sh.flat_stride[b],
                          16 / kp->bufs[b].elem_bytes - 1);
            else
                sb_printf(sb, "            const float r_%s = reinterpret_cast<const float *>(smem + OFF_%s)[(%s) & %d];\n",
                          lo, up, sd->sh.flat[b], 16 / kp->bufs[b].elem_bytes - 1);
            sb_printf(sb, "            pt::fence_proxy_async();  // the load has returned before the tile goes back\n"
                          "            __syncwarp();\n"
                          "            if (lane == 0)\n"
                          "                pt::mbar_arrive(%s_empty);  // this warp holds the tile's %s in a register\n",
                      lo, sd->g->tensors[kp->bufs[b].tensor].name);
        }
}

/* The tile's k blocks past this warpgroup's rows: each loop task's stages are waited for as in
 * the loop (emit_stage_waits, with warpgroup 0's load records) and handed back as the loop
 * hands them back (an asynchronous task's by the warpgroup, a CUDA-core task's by each warp),
 * so the rings' phases stay those of the warpgroup that computes them. */
static void emit_skipped_blocks(strbuf *sb, const sm90a_steps *st, int w)
{
    const sm90a_ssd *sd = st->view;
    const pt_kprog *kp = sd->kp;
    const pt_krole *W = &kp->consumer[w];
    const step_ctx c = {.st = st, .w = w};
    sb_puts(sb, "            for (int i = n_iter; i < n_iter_tile; ++i) {  // all zero for these rows\n");
    for (int k = 0; k < W->n_tasks; k++) {
        const pt_ktask *e = &W->tasks[k];
        int rings[PT_KTASK_INS], n = pt_kprog_task_rings(kp, e, rings);
        if (!n)
            continue;
        sb_printf(sb, "            {   // %s: skipped\n", kp->sg->tasks[e->stask].id);
        emit_stage_waits(sb, &c, e);
        if (!e->async)
            sb_puts(sb, "                __syncwarp();\n");
        for (int r = 0; r < n; r++) {
            char lo[8], up[8];
            sm90a_buf_name(&sd->sh, rings[r], lo, up, sizeof lo);
            sb_printf(sb, "                if (%s)\n"
                          "                    pt::mbar_arrive(&empty_%s[s_%s]);\n",
                      e->async ? "lead" : "lane == 0", lo, lo);
        }
        sb_puts(sb, "            }\n");
    }
    sb_puts(sb, "            }\n");
}

/* A consumer's register values, one array per ring slot, in the form each holds (ssd.h). */
static void emit_value_decls(strbuf *sb, const sm90a_ssd *sd)
{
    const pt_kprog *kp = sd->kp;
    for (int v = 0; v < kp->n_vals; v++)
        for (int s = 0; s < kp->vals[v].slots && sd->vkind[v] != SSD_ACC; s++) {
            const char *name = sd->g->tensors[kp->vals[v].tensor].name;
            if (sd->vkind[v] == SSD_DCOLS) {
                sb_printf(sb, "        float %s%d[pt::DPAIRS<KS>][2];  // %s of ring slot %d: this lane's pairs of column factors (the factored decay)\n",
                          sd->vname[v], s, name, s);
                continue;
            }
            if (sd->vkind[v] == SSD_MVEC || sd->vkind[v] == SSD_ATILE) {
                bool mv = sd->vkind[v] == SSD_MVEC;
                sb_printf(sb, "        float %s%d%s;  // %s of ring slot %d: %s\n", sd->vname[v], s,
                          mv ? "[2]" : "[KS][8]", name, s,
                          mv ? "a vector along m (this thread's two rows)"
                             : "an f32 tile in the A fragment's order");
                continue;
            }
            sb_printf(sb, "        %s %s%d[KS][4];  // %s of ring slot %d%s\n",
                      sd->vkind[v] == SSD_AFRAG ? "uint32_t" : "float", sd->vname[v], s, name, s,
                      sd->vkind[v] == SSD_AFRAG ? ": the wgmma's A fragment" : ": a vector along k");
        }
}

/* The factored decay's pivot, once per tile after the prologue (pt::decay_pivot_make): from
 * the rows exp_decay reads, which are in registers. */
static void emit_decay_pivot(strbuf *sb, const sm90a_steps *st, int w)
{
    const sm90a_ssd *sd = st->view;
    char x[160];
    const step_ctx c = {.st = st, .w = w};
    operand(x, sizeof x, &c, decay_task(sd, w), 0);
    sb_printf(sb, "            // the factored decay: this warp's pivot; its accumulator rows in units of\n"
                  "            // the row factor exp(%s - pivot) until the store\n"
                  "            pt::decay_pivot fx = pt::decay_pivot_make<elem_t>(%s, acc, lane);\n",
              sd->g->tensors[sd->g->ops[sd->chain.op_decay].in[0]].name, x);
}

/* The end of consumer w's tile: its accumulators (back in their own units) staged for the
 * store, handed to the storing role, and stored where that is this warpgroup. */
static void emit_tile_store(strbuf *sb, const sm90a_ssd *sd, int w)
{
    const pt_kprog *kp = sd->kp;
    const pt_krole *W = &kp->consumer[w];
    bool over = kp->bufs[kp->staging].over >= 0;
    if (kp->wg_stores)  /* its own rows of the staging tile: free once its own last store read them */
        sb_printf(sb, "            if (n_tile > 0) {  // this warpgroup's last store has read its rows\n"
                      "                if (lead)\n"
                      "                    pt::tma_store_wait_read();\n"
                      "                pt::named_sync(%d, 128);\n"
                      "            }\n", 1 + w);
    else if (kp->store_wg == w && sm90a_staging_release_deferred(kp))
        sb_puts(sb, "            if (n_tile > 0 && lead) {  // the last store read the staging tile\n"
                    "                pt::tma_store_wait_read();\n"
                    "                pt::mbar_arrive(c_empty);\n"
                    "            }\n");
    if (over)  /* this tile's rows of the resident tile, which this warpgroup's product has read */
        sb_printf(sb, "            // %s: f32 accumulators -> %s, staged 128B-swizzled in this warpgroup's rows\n"
                      "            // of %s's tile.\n",
                  kp->sg->tasks[W->epilogue.stask].id, pt_dtype_name(sd->out_dt),
                  sd->g->tensors[kp->bufs[kp->bufs[kp->staging].over].tensor].name);
    else {
        if (!kp->wg_stores)
            sb_puts(sb, "            if (n_tile > 0)\n"
                        "                pt::mbar_wait(c_empty, (n_tile - 1) & 1);  // Wait: the staging tile is free\n");
        sb_printf(sb, "            // %s: f32 accumulators -> %s, staged 128B-swizzled in this warpgroup's rows.\n",
                  kp->sg->tasks[W->epilogue.stask].id, pt_dtype_name(sd->out_dt));
    }
    /* the staging tile's 64-column boxes hold every warpgroup's rows: (batch index, m) when
     * the warpgroups split a batch axis */
    sb_printf(sb, "            PT_REC(%d, %d, n_tile, 0, 0);\n", W->epilogue.stask, W->epilogue.lane);
    if (sd->factored)
        sb_puts(sb, "            pt::decay_unpivot(fx, acc, lane);  // the row factor back on the sum\n");
    sb_printf(sb, "            pt::store_rows_sw128<out_t, BN, C_CHUNK>(acc, smem + OFF_C, %s,\n"
                  "                                                    %d * 64 + warp * 16 + lane / 4, lane);\n"
                  "            PT_REC(%d, %d, n_tile, 0, 1);\n"
                  "            pt::fence_proxy_async();  // the TMA store reads what these threads wrote\n"
                  "            pt::named_sync(%d, 128);\n",
              sd->ax_wg >= 0 ? "WGS * BM * 128" : "BM * 128", w,
              W->epilogue.stask, W->epilogue.lane, 1 + w);
    if (kp->wg_stores) {  /* this warpgroup's rows, without waiting for the others */
        sb_printf(sb, "            if (lead) {  // %s sits on this warpgroup's lane\n"
                      "                PT_REC(%d, %d, n_tile, 0, 0);\n",
                  kp->sg->tasks[kp->wg_store_stask[w]].id, kp->wg_store_stask[w], kp->wg_store_lane[w]);
        sm90a_emit_tma_store_part(sb, &sd->sh, "                ", w);
        sb_printf(sb, "                pt::tma_store_commit();\n"
                      "                PT_REC(%d, %d, n_tile, 0, 1);\n"
                      "            }\n", kp->wg_store_stask[w], kp->wg_store_lane[w]);
        return;
    }
    sb_puts(sb, "            if (lead)\n"
                "                pt::mbar_arrive(c_full);\n");
    if (kp->store_wg == w)
        sm90a_emit_consumer_store(sb, &sd->sh, "            ", "lead");
}

static void emit_consumer_wg(strbuf *sb, const sm90a_ssd *sd, int w)
{
    const pt_kprog *kp = sd->kp;
    const pt_krole *W = &kp->consumer[w];
    char role[PT_LANE_NAME_MAX], lo[8], up[8];
    sb_printf(sb, "    if (cw == %d) {\n"
                  "        // Consumer role %s: one loop step runs, in this order:", w,
              pt_codegen_comment_safe(kp->p->roles[W->role].name, role, sizeof role));
    for (int k = 0; k < W->n_tasks; k++)
        sb_printf(sb, "%s %s(v%+d)", k ? "," : "", kp->sg->tasks[W->tasks[k].stask].id,
                  W->tasks[k].offset);
    sb_printf(sb, "\n        pt::regs_increase<%d>();\n"
                  "#ifdef PT_TRACE\n"
                  "        if (lead)\n"
                  "            tracer.begin(pt_trace, 1 + cw, TRACE_ROLES, TRACE_CAP);\n"
                  "#endif\n", W->regs);
    sm90a_emit_xwait_counters(sb, kp, w, "        ");
    sb_puts(sb, "        uint32_t n_tile = 0");
    for (int b = 0; b < kp->n_bufs; b++)
        if (kp->bufs[b].kind == PT_KBUF_RING) {
            sm90a_buf_name(&sd->sh, b, lo, up, sizeof lo);
            sb_printf(sb, ", %sbase = 0", lo);
        }
    sb_puts(sb, ";\n        float acc[BN / 2];\n");
    const pt_ktask *pro_mma = NULL;  /* the prologue product, issued a tile ahead */
    for (int i = 0; sd->pro_ahead && i < W->n_pro; i++)
        if (W->pro[i].body == PT_KB_MMA)
            pro_mma = &W->pro[i];
    if (pro_mma)
        sb_printf(sb, "        float acc2[BN / 2];  // %s of the tile to come, issued before this one's epilogue\n",
                  kp->sg->tasks[pro_mma->stask].id);
    emit_value_decls(sb, sd);
    if (kp->dynamic) {
        int r = sm90a_first_resident(kp);
        sm90a_buf_name(&sd->sh, r, lo, up, sizeof lo);
        /* lane 0 reads the slot and later hands the residents back itself, so the read is
         * ordered before the producer rewrites the slot two tiles on by that thread's own
         * arrivals */
        sb_printf(sb, "        for (;; ++n_tile) {\n"
                      "            pt::mbar_wait(%s_full, n_tile & 1);  // Wait: %s landed, or the end\n"
                      "            const int t = __shfl_sync(0xffffffffu, lane == 0 ? tile_slot[n_tile & 1] : 0, 0);\n"
                      "            if (t >= TILES)\n"
                      "                break;\n", lo, kp->sg->tasks[kp->bufs[r].stask].id);
    } else {
        if (pro_mma) {  /* the first tile's product (a CTA without tiles issues it on nothing) */
            char has[96];
            snprintf(has, sizeof has, "%s < TILES", sm90a_tile_first(kp));
            emit_pro_issue(sb, sd, w, pro_mma, "        ", "acc2", "0", has);
        }
        sm90a_emit_work_loop(sb, &sd->sh, "        ");
    }
    sb_printf(sb, "            %s\n            tile_coords(t, %s);\n"
                  "            const int n_iter_tile = %s;\n", sd->sh.coord_decl, sd->sh.coord_args,
              sd->sh.iters);
    if (per_wg_trips(sd))
        sb_printf(sb, "            const int n_iter = wg_iters(%s, %d);  // this warpgroup's k blocks\n",
                  sd->row_tile, w);
    else
        sb_puts(sb, "            const int n_iter = n_iter_tile;\n");
    if (!pro_mma)  /* else the product's copy sets them */
        sb_puts(sb, "            #pragma unroll\n"
                    "            for (int r = 0; r < BN / 2; ++r) {\n"
                    "                acc[r] = 0.f;\n"
                    "                pt::keep(acc[r]);  // zeroed before a wgmma is in flight\n"
                    "            }\n");
    emit_tile_residents(sb, sd, w);
    sm90a_steps st = {.sh = &sd->sh, .view = sd, .task = emit_entry};
    for (int v = 0; v < kp->n_vals; v++)
        st.val_name[v] = sd->vname[v];
    for (int i = 0; i < W->n_pro; i++)
        emit_prologue_task(sb, &st, w, &W->pro[i]);
    if (sd->factored)
        emit_decay_pivot(sb, &st, w);
    sm90a_emit_steps(sb, &st, w);
    if (per_wg_trips(sd))
        emit_skipped_blocks(sb, &st, w);
    for (int b = 0; b < kp->n_bufs; b++)
        if (kp->bufs[b].kind == PT_KBUF_RING) {
            sm90a_buf_name(&sd->sh, b, lo, up, sizeof lo);
            sb_printf(sb, "            %sbase += n_iter_tile;\n", lo);
        }
    if (pro_mma) {  /* the next tile's product, in flight over this tile's epilogue */
        sb_printf(sb, "            // %s of the next tile, in flight over this tile's epilogue\n",
                  kp->sg->tasks[pro_mma->stask].id);
        char has[160];
        snprintf(has, sizeof has, "%s < TILES", sm90a_tile_next(kp));
        emit_pro_issue(sb, sd, w, pro_mma, "            ", "acc2", "n_tile + 1", has);
    }
    emit_tile_store(sb, sd, w);
    sb_puts(sb, "        }\n");
    if (pro_mma)
        sb_puts(sb, "        pt::wgmma_wait<0>();  // the product issued past the CTA's last tile\n");
    if (kp->store_wg == w || kp->wg_stores)
        sb_puts(sb, "        if (lead)\n            pt::tma_store_wait_all();\n");
    sb_puts(sb, "#ifdef PT_TRACE\n        tracer.end();\n#endif\n    }\n");
}

static void emit_kernel(strbuf *sb, const sm90a_ssd *sd)
{
    const pt_kprog *kp = sd->kp;
    char gname[PT_NAME_MAX], up[8];
    sb_printf(sb, "// %s.cu — generated by PipeThreader (target sm90a) from graph \"%s\" and its sProgram.\n"
                  "// %s = %s (made each k block on the CUDA cores) . %s, %s in, f32\n"
                  "// accumulate, %s out. Do not edit: regenerate.\n"
                  "// Build: nvcc -cubin -O3 -gencode=arch=compute_90a,code=sm_90a\n\n",
              kp->kernel_name, pt_codegen_comment_safe(sd->g->name, gname, sizeof gname),
              sd->g->tensors[sd->C].name, sd->g->tensors[sd->A].name, sd->g->tensors[sd->B].name,
              pt_dtype_name(sd->in_dt), pt_dtype_name(sd->out_dt));
    sm90a_emit_device_header(sb, true);
    sb_puts(sb, "#include \"pt_ssd.cuh\"  // vectors along k, the A fragment made from a tile\n\n");
    emit_constants(sb, sd);
    emit_helpers(sb, sd);
    emit_tile_coords(sb, sd);
    sm90a_emit_dynamic_globals(sb, kp);
    sb_printf(sb, "extern \"C\" __global__ void __launch_bounds__(%d, 1)\n%s(", kp->threads,
              kp->kernel_name);
    for (int b = 0; b < kp->n_bufs; b++) {
        char lo[8];
        sm90a_buf_name(&sd->sh, b, lo, up, sizeof lo);
        sb_printf(sb, "const __grid_constant__ CUtensorMap tm_%s,\n   ", lo);
    }
    sb_puts(sb, "uint8_t *pt_trace)\n{\n");
    sm90a_emit_kernel_head(sb, &sd->sh, NULL, 0);
    sm90a_emit_producer(sb, &sd->sh);
    sb_puts(sb, "    // Consumer roles: warpgroup 1 + cw runs role cw's lanes.\n"
                "    const int cw = wg - 1;\n"
                "    const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;\n"
                "    const bool lead = threadIdx.x % 128 == 0;  // the warpgroup's issuing thread\n"
                "    (void)warp;\n");
    for (int w = 0; w < sd->wgs; w++)
        emit_consumer_wg(sb, sd, w);
    sb_puts(sb, "}\n");
}

bool sm90a_ssd_emit(const sm90a_ssd *sd, pt_codegen_result *out, pt_error *err)
{
    strbuf k = {0}, h = {0};
    emit_kernel(&k, sd);
    sm90a_emit_host(&h, &sd->sh);
    if (!sm90a_finish_result(out, &k, &h, sd->kp->kernel_name, sd->kp->grid, sd->kp->threads,
                             sd->kp->smem_dynamic, err))
        return false;
    const pt_krole *W = &sd->kp->consumer[0];
    char order[256] = "";
    for (int i = 0; i < W->n_tasks; i++) {
        size_t n = strlen(order);
        snprintf(order + n, sizeof order - n, "%s%s%+d", i ? ", " : "",
                 sd->kp->sg->tasks[W->tasks[i].stask].id, W->tasks[i].offset);
    }
    snprintf(out->summary, sizeof out->summary,
             "%s: %s tile %lldx%lld, k block %lld, %d consumer warpgroup%s, A made on the CUDA cores "
             "from %s (%s%s), warpgroup 0 step [%s], %s grid of %lld CTAs (%lld tiles), %lld bytes of "
             "shared memory, registers %d/%d",
             sd->kp->kernel_name, sd->g->tensors[sd->C].name, (long long)sd->BM, (long long)sd->BN,
             (long long)sd->BK, sd->wgs, sd->wgs > 1 ? "s" : "", sd->g->tensors[sd->src].name,
             sd->src_mn_major ? "stored k-major rows of m" : "stored m-major rows of k",
             sd->factored ? "; the decay factored, its row factor on the accumulators" : "", order,
             sd->kp->persistent ? "persistent" : "one-tile-per-CTA", (long long)sd->kp->grid,
             (long long)sd->kp->tiles, (long long)sd->kp->smem_dynamic, sd->kp->producer.regs,
             W->regs);
    return true;
}
