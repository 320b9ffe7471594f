/* attn_walk.c — the attention tile walk every target prints (see attn_walk.h). */
#include "attn_walk.h"

bool pt_attn_matches(const pt_graph *g)
{
    if (g->n_ops != 3)
        return false;
    const pt_op *a = &g->ops[0], *s = &g->ops[1], *b = &g->ops[2];
    return a->kind == PT_OP_MATMUL && s->kind == PT_OP_ONLINE_SOFTMAX &&
           b->kind == PT_OP_MATMUL && s->in[0] == a->out && b->in[0] == s->out;
}

void pt_attn_emit_tile_walk(strbuf *sb, const pt_kprog *kp, int ax_m)
{
    /* the launch order of the sProgram's partition through raster.h, the walk the simulator
     * uses (waves.c, over the two fastest tiled axes: heads or batch ("rows", SLOW of them)
     * and query tiles): row = batch·head-major; column = query-tile-major within each block of
     * SLOW rows; grouped = bands of `group` rows walked query tile by query tile; then
     * partition.order (longest first) */
    pt_raster ra = kp->p->partition.raster;
    int group = kp->p->partition.group < 1 ? 1 : kp->p->partition.group;
    const pt_stask_graph *sg = kp->sg;
    int slow = -1, fast = -1;
    for (int a = 0; a < kp->g->n_axes; a++)
        if (sg->tile_grid[a] > 1)
            slow = fast, fast = a;
    if (slow < 0 || fast != ax_m)
        ra = PT_RASTER_ROW; /* one query tile per head, or one head: every order is the same */
    sb_printf(sb, "// Launch position t -> (batch·head, query tile): %s raster%s (raster.h, as the\n"
                  "// simulator walks it).\n"
                  "__device__ __forceinline__ void tile_coords(int t, int &bh, int &mt)\n{\n",
              pt_raster_name(ra), kp->longest_first ? ", causal tiles longest first" : "");
    if (ra == PT_RASTER_ROW)
        sb_puts(sb, "    pt_raster_walk(t, 0, 1, 1, TILES_M, &bh, &mt);\n");
    else
        sb_printf(sb, "    constexpr int SLOW = %lld;\n"
                      "    const int q = t %% (SLOW * TILES_M), rest = t / (SLOW * TILES_M);\n"
                      "    int s;\n"
                      "    pt_raster_walk(q, %d, %d, SLOW, TILES_M, &s, &mt);\n"
                      "    bh = rest * SLOW + s;\n",
                  (long long)sg->tile_grid[slow], (int)ra, ra == PT_RASTER_GROUPED ? group : 1);
    if (kp->longest_first)
        sb_puts(sb, "    mt = TILES_M - 1 - mt;\n");
    sb_puts(sb, "}\n\n");
    sb_puts(sb, "// Key blocks of query tile mt: all of them, or under the causal mask only those left of\n"
                "// the diagonal (fully masked blocks are skipped, not computed).\n"
                "__device__ __forceinline__ int tile_iters(int mt)\n{\n"
                "    if (!CAUSAL)\n"
                "        return KV_BLOCKS;\n"
                "    const int last = (mt + 1) * BM < SEQ ? (mt + 1) * BM : SEQ;\n"
                "    const int it = (last - 1) / BN + 1;\n"
                "    return it < KV_BLOCKS ? it : KV_BLOCKS;\n}\n\n");
}
