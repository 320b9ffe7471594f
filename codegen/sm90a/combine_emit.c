/* combine_emit.c — prints FlashDecoding's combine (combine.h) as a CUDA kernel and its launcher.
 *
 * Per tile (batch entry bh, rows g0.., columns d0..): the producer's thread issues its lane in
 * order — X's box (every split of the tile's rows), Y's box (every split's rows and columns of
 * the tile: the splits are consecutive along the map's flattened batch dimension), and once the
 * warpgroup staged O, O's store. The consumer warpgroup runs its tasks once per tile in lane
 * order, one device call each (pt_combine.cuh, split_*): each thread owns one row of the tile and
 * chunks of 4 of its columns, keeps the row's max, weights and sum in registers, scales its own
 * chunks of Y in place, sums them over the splits and writes O / l into the staging tile. */
#include <stdio.h>
#include <string.h>

#include "combine.h"
#include "common.h"
#include "strbuf.h"

#define IND "            "

static void emit_constants(strbuf *sb, const sm90a_combine *c)
{
    const pt_kprog *kp = c->kp;
    int chunks = (int)((c->DT / 4 + c->tpr - 1) / c->tpr);
    sb_printf(sb, "namespace {\n"
                  "using out_t = %s;\n"
                  "// Problem (from the graph): %lld batch entries x %lld rows x %lld columns, %lld splits.\n"
                  "// Tile (from the sProgram): GT rows x DT columns, every split; TPR threads per row, each\n"
                  "// owning CH chunks of 4 columns (pt_combine.cuh split_chunk), or with P > 1 one chunk\n"
                  "// and every P-th split (NQ = DT / 4 chunks a row, SP = the splits a thread walks).\n"
                  "constexpr int S = %lld, GT = %lld, DT = %lld, TPR = %d, CH = %d;\n"
                  "constexpr int P = %d, NQ = DT / 4, SP = (S + P - 1) / P;\n"
                  "constexpr int TILES = %lld, TILES_G = %lld, TILES_D = %lld, WGS = 1;\n"
                  "#ifdef PT_TRACE\n"
                  "constexpr int TRACE_ROLES = 2, TRACE_CAP = %u;\n"
                  "#endif\n",
              sm90a_cuda_type(c->out_dt), (long long)c->B, (long long)c->G, (long long)c->D,
              (long long)c->S, (long long)c->S, (long long)c->GT, (long long)c->DT, c->tpr, chunks,
              c->parts, (long long)kp->tiles, (long long)c->tiles_g, (long long)c->tiles_d, kp->trace_cap);
    if (c->x_plain)
        sb_printf(sb, "// X's rows per split: %lld f32, not a 16-byte TMA stride, so the warpgroup reads X itself.\n"
                      "constexpr int XROWS = %lld;\n", (long long)c->G, (long long)c->G);
    if (c->idle)
        sb_printf(sb, "// 128 threads hold %lld rows of %d: the last %d threads have no row and only join the barriers.\n",
                  (long long)c->GT, c->tpr, (int)(128 - c->GT * c->tpr));
    sm90a_emit_buffer_constants(sb, &c->sh);
    if (c->x_plain)
        sb_puts(sb, "static_assert(X_BYTES >= S * GT * 4, \"X's buffer holds the tile the warpgroup reads\");\n");
    sb_puts(sb, "}\n\n"
                "#ifdef PT_TRACE\n#define PT_REC(...) tracer.rec(__VA_ARGS__)\n#else\n"
                "#define PT_REC(...) ((void)0)\n#endif\n\n"
                "// Launch position t -> (batch entry, row tile, column tile), row raster: the\n"
                "// column tiles of a row tile, the row tiles of a batch entry, batch entries.\n"
                "__device__ __forceinline__ void tile_coords(int t, int &bh, int &gi, int &di)\n{\n"
                "    di = t % TILES_D;\n"
                "    gi = (t / TILES_D) % TILES_G;\n"
                "    bh = t / (TILES_D * TILES_G);\n}\n\n");
}

/* One entry of the producer's lane: X's box, Y's boxes, or the store. */
static void emit_producer_entry(strbuf *sb, const sm90a_combine *c, int stask)
{
    const pt_kprog *kp = c->kp;
    bool over = kp->bufs[kp->staging].over >= 0;
    if (c->x_plain && stask == kp->bufs[c->buf_x].stask) {
        sb_puts(sb, IND "    // read by the warpgroup itself at the tile's start (XROWS is no TMA stride)\n");
        return;
    }
    if (stask == kp->store_stask) {
        sb_printf(sb, IND "    pt::mbar_wait(o_full, n_tile & 1);  // Wait: the warpgroup staged O\n"
                      IND "    PT_REC(%d, %d, n_tile, 0, 0);\n"
                      IND "    pt::tma_store_3d(&tm_o, smem + OFF_O, di * DT, gi * GT, bh);\n"
                      IND "    pt::tma_store_commit();\n"
                      IND "    pt::tma_store_wait_read();\n"
                      IND "    PT_REC(%d, %d, n_tile, 0, 1);\n", stask, kp->store_lane, stask,
                  kp->store_lane);
        if (over) /* O sat over Y's bytes: both tiles may be reloaded now */
            sb_puts(sb, c->x_plain ? IND "    pt::mbar_arrive(y_empty);\n"
                                   : IND "    pt::mbar_arrive(x_empty);\n" IND "    pt::mbar_arrive(y_empty);\n");
        else
            sb_puts(sb, IND "    pt::mbar_arrive(o_empty);\n");
        return;
    }
    bool x = stask == kp->bufs[c->buf_x].stask;
    sb_printf(sb, IND "    if (n_tile > 0)\n"
                  IND "        pt::mbar_wait(%s_empty, (n_tile - 1) & 1);  // Wait: %s\n"
                  IND "    PT_REC(%d, %d, n_tile, 0, 0);\n"
                  IND "    pt::mbar_arrive_expect_tx(%s_full, %s_BYTES);\n",
              x ? "x" : "y",
              kp->bufs[kp->staging].over >= 0 ? "the last store read O, staged over Y"
                                               : "every warp is done with the last tile", stask, kp->lane_load, x ? "x" : "y",
              x ? "X" : "Y");
    if (x)
        sb_puts(sb, IND "    pt::tma_load_3d(smem + OFF_X, &tm_x, x_full, gi * GT, 0, bh);  // [S][GT]\n");
    else
        sb_puts(sb, IND "    pt::tma_load_3d(smem + OFF_Y, &tm_y, y_full, di * DT, gi * GT, bh * S);  // [S][GT][DT]\n");
}

static void emit_producer(strbuf *sb, const sm90a_combine *c)
{
    const pt_kprog *kp = c->kp;
    const pt_lane *L = &kp->p->lanes[kp->lane_load];
    sb_printf(sb, "    if (wg == 0) {\n"
                  "        // Producer role: lane %s, in its order, once per tile.\n"
                  "        pt::regs_decrease<%d>();\n"
                  "        if (threadIdx.x == 0) {\n"
                  "#ifdef PT_TRACE\n"
                  "            tracer.begin(pt_trace, 0, TRACE_ROLES, TRACE_CAP);\n"
                  "#endif\n"
                  "            uint32_t n_tile = 0;\n"
                  "            %s {\n"
                  "                int bh, gi, di;\n"
                  "                tile_coords(t, bh, gi, di);\n",
              L->name, kp->producer.regs, sm90a_tile_for(kp));
    for (int e = 0; e < L->n; e++) {
        sb_printf(sb, "                {   // %s\n", kp->sg->tasks[L->entries[e].stask].id);
        emit_producer_entry(sb, c, L->entries[e].stask);
        sb_puts(sb, "                }\n");
    }
    sb_puts(sb, "            }\n"
                "            pt::tma_store_wait_all();\n"
                "#ifdef PT_TRACE\n            tracer.end();\n#endif\n"
                "        }\n        return;\n    }\n\n");
}

/* The device call of a task: its op's part of the combine. The mul's is only a comment (its
 * products are formed in the reduce and never stored), so it needs no guard. */
enum { CALL_MUL = 4 };
static void emit_call(strbuf *sb, const sm90a_combine *c, const pt_ktask *t)
{
    static const char *const calls[7] = {
        "mx = pt::split_max<S, GT, P, NQ>(smem + OFF_X, row, j);",
        "pt::split_sub<S, GT, P, NQ>(smem + OFF_X, row, mx, w, j);",
        "pt::split_exp<SP>(w);",
        "l = pt::split_sum<SP, P, NQ>(w);",
        "// done by the reduce below: each split's chunk times its weight as it is summed",
        "pt::split_reduce<S, GT, DT, TPR, CH, P>(smem + OFF_Y, row, j, w, acc);",
        "pt::split_div_store<out_t, DT, TPR, CH, P>(acc, l, smem + OFF_O, row, j);",
    };
    char expr[sizeof c->kp->sg->tasks[0].expr];
    sb_printf(sb, IND "    // %s: %s\n" IND "    PT_REC(%d, %d, n_tile, 0, 0);\n" IND "    %s%s\n"
                  IND "    PT_REC(%d, %d, n_tile, 0, 1);\n",
              c->kp->sg->tasks[t->stask].id,
              pt_codegen_comment_safe(c->kp->sg->tasks[t->stask].expr, expr, sizeof expr), t->stask,
              t->lane, c->idle && t->op != CALL_MUL ? "if (row < GT)  // a thread with a row\n" IND "        " : "",
              calls[t->op], t->stask, t->lane);
}

/* Before a task: the Wait on each loaded tile it reads, the first time this tile. */
static void emit_waits(strbuf *sb, const sm90a_combine *c, const pt_ktask *t, bool *waited)
{
    for (int i = 0; i < t->n_in; i++) {
        if (t->in[i].kind != PT_KSRC_BUF || waited[t->in[i].index])
            continue;
        int b = t->in[i].index;
        waited[b] = true;
        if (c->x_plain && b == c->buf_x) /* after the last tile's sync: nobody reads X now */
            sb_printf(sb, IND "    // %s, read here: the tile's rows of every split\n"
                          IND "    pt::split_load_x<S, GT, XROWS>(smem + OFF_X, x + ((int64_t)bh * S * XROWS + gi * GT),\n"
                          IND "                                   XROWS - gi * GT, tid);\n"
                          IND "    pt::named_sync(1, 128);  // every thread's part of X is in\n",
                      c->kp->sg->tasks[c->kp->bufs[b].stask].id);
        else /* the load's span ends where its reader sees the bytes (as in every kernel) */
            sb_printf(sb, IND "    pt::mbar_wait(%s_full, n_tile & 1);  // Wait: %s landed\n"
                          IND "    PT_REC(%d, %d, n_tile, 0, 1);\n",
                      b == c->buf_x ? "x" : "y", c->kp->sg->tasks[c->kp->bufs[b].stask].id,
                      c->kp->bufs[b].stask, c->kp->lane_load);
    }
}

static void emit_consumer(strbuf *sb, const sm90a_combine *c)
{
    const pt_kprog *kp = c->kp;
    const pt_krole *R = &kp->consumer[0];
    bool over = kp->bufs[kp->staging].over >= 0, waited[PT_KP_MAX_BUFS] = {false};
    sb_printf(sb, "    // Consumer role: warpgroup 1, its tasks once per tile in lane order.\n"
                  "    pt::regs_increase<%d>();\n"
                  "    const int tid = threadIdx.x - 128, warp_lane = threadIdx.x %% 32;\n"
                  "    const int row = tid / TPR, j = tid %% TPR;  // this thread's tile row, first column\n"
                  "    (void)warp_lane;\n"
                  "#ifdef PT_TRACE\n"
                  "    if (tid == 0)\n"
                  "        tracer.begin(pt_trace, 1, TRACE_ROLES, TRACE_CAP);\n"
                  "#endif\n"
                  "    uint32_t n_tile = 0;\n"
                  "    %s {\n"
                  "        float mx, l, w[SP];  // the row's max, sum, weights of this thread's splits\n"
                  "        float4 acc[CH];  // column sums, a chunk of 4 at a time\n",
              R->regs, sm90a_tile_for(kp));
    if (c->x_plain)
        sb_puts(sb, "        int bh, gi, di;  // where this tile's X lies\n"
                    "        tile_coords(t, bh, gi, di);\n"
                    "        (void)di;\n");
    sb_puts(sb, "        {\n");
    for (int i = 0; i < R->n_tasks; i++) {
        emit_waits(sb, c, &R->tasks[i], waited);
        emit_call(sb, c, &R->tasks[i]);
    }
    if (over)
        sb_puts(sb, IND "    pt::named_sync(1, 128);  // every thread read Y: O is staged over it\n");
    else {
        /* the loads into registers have returned before the tiles go back to the TMA
         * (docs/CODEGEN-sm90a.md, a stage read on the CUDA cores) */
        sb_puts(sb, IND "    pt::fence_proxy_async();\n");
        sb_puts(sb, c->x_plain ? IND "    if (warp_lane == 0)  // this warp is done with Y\n"
                                 IND "        pt::mbar_arrive(y_empty);\n"
                               : IND "    if (warp_lane == 0) {  // this warp is done with X and Y\n"
                                 IND "        pt::mbar_arrive(x_empty);\n"
                                 IND "        pt::mbar_arrive(y_empty);\n"
                                 IND "    }\n");
        sb_puts(sb, IND "    if (n_tile > 0)\n"
                    IND "        pt::mbar_wait(o_empty, (n_tile - 1) & 1);  // Wait: the last store read O\n");
    }
    emit_call(sb, c, &R->epilogue);
    sb_puts(sb, IND "    pt::fence_proxy_async();  // the TMA store reads what these threads wrote\n"
                IND "    pt::named_sync(1, 128);\n"
                IND "    if (tid == 0)\n"
                IND "        pt::mbar_arrive(o_full);\n"
                "        }\n    }\n"
                "#ifdef PT_TRACE\n    if (tid == 0)\n        tracer.end();\n#endif\n}\n");
}

bool sm90a_combine_emit(const sm90a_combine *c, pt_codegen_result *out, pt_error *err)
{
    const pt_kprog *kp = c->kp;
    strbuf k = {0}, h = {0};
    char gname[PT_NAME_MAX];
    sb_printf(&k, "// %s.cu — generated by PipeThreader (target sm90a) from graph \"%s\" and its sProgram.\n"
                  "// FlashDecoding's combine: O = sum_s exp(X_s - max X) Y_s / sum_s exp(X_s - max X), f32 in,\n"
                  "// %s out. Do not edit: regenerate.\n"
                  "// Build: nvcc -cubin -O3 -gencode=arch=compute_90a,code=sm_90a\n\n",
              kp->kernel_name, pt_codegen_comment_safe(c->g->name, gname, sizeof gname),
              pt_dtype_name(c->out_dt));
    sm90a_emit_device_header(&k, false); /* its tasks are pt_combine.cuh's, not the tile library's */
    sb_puts(&k, "#include <math.h>\n"
                "#include \"pt_combine.cuh\"  // the combine's CUDA-core tasks\n\n");
    emit_constants(&k, c);
    sb_printf(&k, "extern \"C\" __global__ void __launch_bounds__(%d, 1)\n"
                  "%s(%s, const __grid_constant__ CUtensorMap tm_y,\n"
                  "   const __grid_constant__ CUtensorMap tm_o, uint8_t *pt_trace)\n{\n",
              kp->threads, kp->kernel_name,
              c->x_plain ? "const float *__restrict__ x" : "const __grid_constant__ CUtensorMap tm_x");
    sm90a_emit_kernel_head(&k, &c->sh, NULL, 0);
    emit_producer(&k, c);
    emit_consumer(&k, c);
    sm90a_emit_staging_device(&k, kp);
    sm90a_emit_host(&h, &c->sh);
    if (!sm90a_finish_result(out, &k, &h, kp->kernel_name, kp->grid, kp->threads,
                             kp->smem_dynamic, err))
        return false;
    snprintf(out->summary, sizeof out->summary,
             "%s: combine of %lld splits, tile %lldx%lld (%d threads a row, %d to a column chunk), O staged %s, grid of "
             "%lld CTAs (%lld tiles), %lld bytes of shared memory, registers %d/%d",
             kp->kernel_name, (long long)c->S, (long long)c->GT, (long long)c->DT, c->tpr, c->parts,
             kp->bufs[kp->staging].over >= 0 ? "over Y" : "apart", (long long)kp->grid,
             (long long)kp->tiles, (long long)kp->smem_dynamic, kp->producer.regs,
             kp->consumer[0].regs);
    return true;
}
