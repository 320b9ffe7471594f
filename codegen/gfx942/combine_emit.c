/* combine_emit.c — prints FlashDecoding's combine (combine.h) as a HIP kernel for gfx942 and its
 * launcher.
 *
 * Per tile (batch entry bh, row tile gi, column tile di), every work-item of the role's two
 * waves owns row gi·GT + tid / TPR of the tile and its chunks j + TPR·k (j = tid % TPR): it
 * issues the producer lane's loads in the lane's order, straight into VGPRs (load.X: the row's
 * S log-sum-exps; load.Y: its chunks of the row in every split; there is no producer wave and
 * no LDS on gfx942, and no other work-item reads them), then runs the role's sTasks once in
 * lane order, one pt_tile_hip.h call each, and writes O from the registers (the store's Wait
 * on the output's sTask is program order). The Waits of the sTasks on the loads are the vmcnt
 * waits the compiler puts before the first use of a loaded register: vmcnt counts in issue
 * order, so the lane's order decides which loads are still in flight when the first sTask runs.
 * Rows past g and chunks past d are loaded from addresses that exist and never stored. */
#include <stdio.h>
#include <string.h>

#include "combine.h"
#include "gemm.h"

static const char *out_type(pt_dtype d)
{
    return d == PT_BF16 ? "short" : d == PT_F16 ? "_Float16" : "float";
}

static void emit_constants(strbuf *sb, const gfx942_combine *cb)
{
    const pt_kcombine *c = &cb->c;
    sb_printf(sb, "namespace {\n"
                  "typedef %s OutT;\n"
                  "// Problem (from the graph): %lld batch entries x %lld rows x %lld columns, %lld splits.\n"
                  "constexpr int S = %lld, G = %lld, D = %lld;\n"
                  "// Tile (from the sProgram): GT rows x DT columns, every split. TPR work-items per row (the\n"
                  "// %d of the role's two waves, rounded down: %d have no row), each owning COLS 16-byte\n"
                  "// chunks of the row (chunk j + TPR * k, CHUNKS = DT / 4 in all).\n"
                  "constexpr int GT = %lld, DT = %lld, TPR = %d, CHUNKS = %d, COLS = %d, THREADS = %d;\n"
                  "constexpr int TILES = %lld, TILES_G = %lld, TILES_D = %lld, GRID = %lld;  // %s\n"
                  "static_assert(D %% 4 == 0 && DT %% 4 == 0 && GT * TPR <= THREADS, \"16-byte chunks, a row per work-item\");\n"
                  "}\n\n",
              out_type(c->out_dt), (long long)c->B, (long long)c->G, (long long)c->D,
              (long long)c->S, (long long)c->S, (long long)c->G, (long long)c->D, cb->threads,
              cb->threads - (int)cb->GT * cb->tpr, (long long)cb->GT, (long long)cb->DT, cb->tpr,
              cb->chunks, cb->cols, cb->threads, (long long)cb->kp->tiles, (long long)cb->tiles_g,
              (long long)cb->tiles_d, (long long)cb->kp->grid,
              cb->kp->persistent ? "persistent: each workgroup loops over tiles"
                                 : "one tile per workgroup");
    sb_puts(sb, "// Launch position t -> (batch entry, row tile, column tile), row raster: the column tiles\n"
                "// of a row tile, the row tiles of a batch entry, batch entries (the sm90a combine's order).\n"
                "__device__ __forceinline__ void tile_coords(int t, int &bh, int &gi, int &di)\n{\n"
                "    di = t % TILES_D;\n"
                "    gi = (t / TILES_D) % TILES_G;\n"
                "    bh = t / (TILES_D * TILES_G);\n}\n\n");
}

/* One entry of the producer lane: a load into this work-item's VGPRs, or the store's place. */
static void emit_producer_entry(strbuf *sb, const gfx942_combine *cb, int stask)
{
    const pt_kprog *kp = cb->kp;
    const char *id = kp->sg->tasks[stask].id;
    if (stask == kp->store_stask)
        sb_printf(sb, "        // %s: written from the registers by the output's sTask below (no staging tile).\n", id);
    else if (stask == kp->bufs[cb->buf_x].stask)
        sb_printf(sb, "        // %s: this row's log-sum-exp of every split -> VGPRs.\n"
                      "        pt::load_splits<S, G>(x, X + (size_t)bh * S * G, gc);\n", id);
    else
        sb_printf(sb, "        // %s: this work-item's chunks of the row in every split -> VGPRs.\n"
                      "        pt::load_split_rows<S, G, D, TPR, COLS, CHUNKS>(y, Y + (size_t)bh * S * G * D, gc, d0, j);\n",
                  id);
}

/* The device call of a consumer task: its op's part of the combine. */
static void emit_call(strbuf *sb, const gfx942_combine *cb, const pt_ktask *t)
{
    static const char *const calls[7] = {
        "mx = pt::split_max<S>(x);",
        "pt::split_sub<S>(x, mx, w);",
        "pt::split_exp<S>(w);",
        "l = pt::split_sum<S>(w);",
        "pt::split_scale<S, COLS>(y, w);",
        "pt::split_reduce<S, COLS>(y, acc);",
        ("if (g < G)  // rows past the tensor are not stored\n"
         "            pt::split_div_store<OutT, D, TPR, COLS, CHUNKS>(acc, l, O + ((size_t)bh * G + g) * D, d0, j);"),
    };
    const pt_stask *s = &cb->kp->sg->tasks[t->stask];
    char expr[sizeof s->expr];
    bool waits = false;
    for (int i = 0; i < t->n_in; i++)
        waits = waits || t->in[i].kind == PT_KSRC_BUF;
    sb_printf(sb, "        // %s: %s%s\n        %s\n", s->id,
              pt_codegen_comment_safe(s->expr, expr, sizeof expr),
              waits ? " (Wait on its load: the compiler's vmcnt before the first read)" : "",
              calls[t->op]);
}

static void emit_kernel(strbuf *sb, const gfx942_combine *cb)
{
    const pt_kprog *kp = cb->kp;
    const pt_krole *R = &kp->consumer[0];
    const pt_lane *L = &kp->p->lanes[kp->lane_load];
    char gname[PT_NAME_MAX];
    sb_printf(sb, "// kernel.hip — generated by PipeThreader (target gfx942, MI300X) from graph \"%s\" and its\n"
                  "// sProgram. FlashDecoding's combine: O = sum_s exp(X_s - max X) Y_s / sum_s exp(X_s - max X),\n"
                  "// f32 in, %s out. Do not edit: regenerate.\n"
                  "// Build: hipcc --offload-arch=gfx942 --genco -O3 (or clang -x hip --offload-device-only).\n"
                  "// Never run: no MI300X was available (README.md).\n\n"
                  "#include \"pt_device_hip.h\"\n"
                  "#include \"pt_tile_hip.h\"\n\n",
              pt_codegen_comment_safe(cb->g->name, gname, sizeof gname), pt_dtype_name(cb->c.out_dt));
    emit_constants(sb, cb);
    sb_printf(sb, "extern \"C\" __global__ PT_LAUNCH_BOUNDS(THREADS) void\n"
                  "%s(const float *__restrict__ X, const float *__restrict__ Y, OutT *__restrict__ O)\n{\n"
                  "    const int tid = (int)pt::thread_id(), row = tid / TPR, j = tid %% TPR;\n"
                  "    if (row >= GT)\n"
                  "        return;  // GT * TPR < THREADS: no row for this work-item (no barrier follows)\n"
                  "    for (int t = (int)pt::block_id_x(); t < TILES; t += GRID) {\n"
                  "        int bh, gi, di;\n"
                  "        tile_coords(t, bh, gi, di);\n"
                  "        const int g = gi * GT + row, gc = g < G ? g : G - 1, d0 = di * DT;  // gc: a row that exists\n"
                  "        float x[S], w[S], mx, l;  // the row's log-sum-exps, split weights, max and sum\n"
                  "        pt::f32x4 y[S][COLS], acc[COLS];  // this work-item's chunks of every split; their sums\n"
                  "        // Producer lane %s, in its order (issued by this work-item: no producer wave on gfx942).\n",
              kp->kernel_name, L->name);
    for (int e = 0; e < L->n; e++)
        emit_producer_entry(sb, cb, L->entries[e].stask);
    sb_puts(sb, "        pt::loads_issued();  // all in flight before the first sTask (vmcnt counts in this order)\n");
    sb_puts(sb, "        // Consumer role wg0, its sTasks in lane order.\n");
    for (int i = 0; i < R->n_tasks; i++)
        emit_call(sb, cb, &R->tasks[i]);
    emit_call(sb, cb, &R->epilogue);
    sb_puts(sb, "    }\n}\n");
}

bool gfx942_combine_emit(const gfx942_combine *cb, pt_codegen_result *out, pt_error *err)
{
    const pt_kprog *kp = cb->kp;
    strbuf k = {0}, h = {0};
    emit_kernel(&k, cb);
    const int slots[] = {cb->c.X, cb->c.Y, cb->c.O}; /* the kernel's parameters, in order */
    gfx942_emit_host(&h, kp, slots, 3, cb->threads, 0);
    memset(out, 0, sizeof *out);
    out->kernel_cu = sb_take(&k);
    out->host_c = sb_take(&h);
    if (!out->kernel_cu || !out->host_c) {
        pt_codegen_result_free(out);
        return pt_fail(err, "codegen gfx942: out of memory");
    }
    snprintf(out->kernel_name, sizeof out->kernel_name, "%s", kp->kernel_name);
    out->grid = kp->grid;
    out->block_threads = cb->threads;
    out->smem_bytes = 0;
    snprintf(out->summary, sizeof out->summary,
             "%s: combine of %lld splits, tile %lldx%lld (%d work-items a row, %d 16-byte chunks "
             "each), X and Y read into VGPRs and O written from them; %s grid of %lld workgroups "
             "(%lld tiles) of %d work-items; 0 bytes of LDS; about %d VGPRs per lane",
             kp->kernel_name, (long long)cb->c.S, (long long)cb->GT, (long long)cb->DT, cb->tpr,
             cb->cols, kp->persistent ? "persistent" : "one-tile-per-workgroup",
             (long long)kp->grid, (long long)kp->tiles, cb->threads, cb->vgpr_estimate);
    return true;
}
