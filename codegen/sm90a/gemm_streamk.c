/* gemm_streamk.c — the stream-K walk and fix-up of a GEMM (partition.stream_k, src/streamk.h).
 *
 * Each CTA of the persistent grid runs its segments (sk_work): its DP_PER_CTA whole tiles,
 * then its contiguous range of the stream-K (tile, k-iteration) pairs, one segment per tile
 * the range touches. The producer and every consumer warpgroup walk the same segments. After
 * a segment's loop, a tile the CTA has alone is converted and stored as usual; a tile shared
 * by several CTAs takes a ticket from the tile's counter: the first parts - 1 to arrive write
 * their partial f32 tile to the CTA's own workspace slot (slot 0 for its first segment, 1 for
 * its last; a range shorter than one tile's loop has no other partial segment) and count
 * themselves done; the last waits until the others are counted, adds their slots into its
 * accumulators, resets the tile's counters for the next launch, and converts and stores. Only
 * CTAs that finished their loop are ever waited for, so no launch order deadlocks. The
 * partial tiles use split-K's layout (gemm_splitk.c): the accumulators' register order, four
 * registers per thread per 16-byte access, thread-major. */
#include "gemm.h"

void sm90a_gemm_emit_streamk_constants(strbuf *sb, const sm90a_gemm *gm)
{
    const pt_stream_k *s = &gm->kp->sk;
    sb_printf(sb, "// Stream-K (src/streamk.h): a grid of SK_GRID CTAs, each DP_PER_CTA whole tiles, then the last\n"
                  "// SK_TILES tiles' SK_ITERS (tile, k-iteration) pairs split evenly over SK_CTAS CTAs.\n"
                  "constexpr int SK_GRID = %lld, DP_PER_CTA = %lld, DP_TILES = %lld, SK_TILES = %lld, SK_CTAS = %lld;\n"
                  "constexpr long long SK_ITERS = %lldLL;\n",
              (long long)s->grid, (long long)s->dp_per_cta, (long long)s->dp_tiles,
              (long long)s->sk_tiles, (long long)s->sk_ctas, (long long)s->sk_iters);
}

static void emit_walk(strbuf *sb)
{
    sb_puts(sb, "// One segment of a CTA's work: part of one tile's loop (src/streamk.h).\n"
                "struct sk_item {\n"
                "    int t, k0, n_iter;  // launch position; its loop's iterations [k0, k0 + n_iter)\n"
                "    int s;              // stream-K tile (t - DP_TILES), -1 for a DP tile\n"
                "    int first, parts;   // the CTAs sharing the tile: first .. first + parts - 1\n"
                "    int slot;           // this CTA's workspace slot for it: 0 first segment, 1 last\n"
                "};\n\n"
                "// CTA g's first stream-K iteration (iteration u = s * K_ITERS + k of stream-K tile s).\n"
                "__device__ __forceinline__ long long sk_lo(int g)\n{\n"
                "    return g < SK_CTAS ? (long long)g * SK_ITERS / (SK_CTAS > 0 ? SK_CTAS : 1) : SK_ITERS;\n}\n\n"
                "// The CTA whose range holds stream-K iteration u: the largest g with sk_lo(g) <= u.\n"
                "__device__ __forceinline__ int sk_cta_of(long long u)\n{\n"
                "    return (int)(((u + 1) * SK_CTAS - 1) / (SK_ITERS > 0 ? SK_ITERS : 1));\n}\n\n");
    sb_puts(sb, "// Segment w of CTA g; false past its last.\n"
                "__device__ __forceinline__ bool sk_work(int g, int w, sk_item &it)\n{\n"
                "    if (w < DP_PER_CTA) {  // a whole tile, launch positions g, g + SK_GRID, ...\n"
                "        it.t = g + w * SK_GRID;\n"
                "        it.k0 = 0;\n"
                "        it.n_iter = K_ITERS;\n"
                "        it.s = -1;\n"
                "        it.first = g;\n"
                "        it.parts = 1;\n"
                "        it.slot = 0;\n"
                "        return true;\n"
                "    }\n"
                "    const long long lo = sk_lo(g), hi = sk_lo(g + 1);\n"
                "    const int s = (int)(lo / K_ITERS) + (w - DP_PER_CTA);\n"
                "    const long long u0 = (long long)s * K_ITERS;\n"
                "    const long long a = lo > u0 ? lo : u0, b = hi < u0 + K_ITERS ? hi : u0 + K_ITERS;\n"
                "    if (a >= b)\n"
                "        return false;\n"
                "    it.t = DP_TILES + s;\n"
                "    it.k0 = (int)(a - u0);\n"
                "    it.n_iter = (int)(b - a);\n"
                "    it.s = s;\n"
                "    it.first = sk_cta_of(u0);\n"
                "    it.parts = sk_cta_of(u0 + K_ITERS - 1) - it.first + 1;\n"
                "    it.slot = s == (int)(lo / K_ITERS) ? 0 : 1;\n"
                "    return true;\n}\n\n");
}

void sm90a_gemm_emit_streamk_globals(strbuf *sb, const sm90a_gemm *gm)
{
    emit_walk(sb);
    sb_printf(sb, "// Per stream-K tile a ticket counter and a count of the CTAs whose partial tile is written\n"
                  "// (zero at module load; the fix-up resets them), and two partial-tile slots per stream-K\n"
                  "// CTA (%lld bytes).\n"
                  "__device__ unsigned int pt_streamk_ticket[SK_TILES > 0 ? SK_TILES : 1], pt_streamk_done[SK_TILES > 0 ? SK_TILES : 1];\n"
                  "__device__ float pt_streamk_ws[(size_t)(SK_TILES > 0 ? 2 * SK_CTAS : 1) * BM * BN];\n\n",
              (long long)gm->kp->workspace_bytes);
}

/* The accumulators to (`add` false) or from a partial tile at float4 *slot, each line
 * indented by `in` more than the publish loop's. */
static void emit_tile_io(strbuf *sb, bool add, const char *in)
{
    sb_printf(sb, "%s                #pragma unroll\n"
                  "%s                for (int r = 0; r < MREP; ++r)\n"
                  "%s                    #pragma unroll\n", in, in, in);
    if (!add) {
        sb_printf(sb, "%s                    for (int j = 0; j < ACC_N / 2; j += 4)\n"
                      "%s                        slot[(r * (ACC_N / 8) + j / 4) * (128 * WGS) + me] =\n"
                      "%s                            make_float4(acc[r][j], acc[r][j + 1], acc[r][j + 2], acc[r][j + 3]);\n",
                  in, in, in);
        return;
    }
    sb_printf(sb, "%s                    for (int j = 0; j < ACC_N / 2; j += 4) {\n"
                  "%s                        const float4 q = __ldcg(&slot[(r * (ACC_N / 8) + j / 4) * (128 * WGS) + me]);\n"
                  "%s                        acc[r][j] += q.x;\n"
                  "%s                        acc[r][j + 1] += q.y;\n"
                  "%s                        acc[r][j + 2] += q.z;\n"
                  "%s                        acc[r][j + 3] += q.w;\n"
                  "%s                        if (j %% 32 == 28)  // at most 8 loads in flight: no registers spilled\n"
                  "%s                            asm volatile(\"\" ::: \"memory\");\n"
                  "%s                    }\n", in, in, in, in, in, in, in, in, in);
}

void sm90a_gemm_emit_streamk_fixup(strbuf *sb, const sm90a_gemm *gm)
{
    (void)gm;
    sb_puts(sb, "        // Stream-K (gemm_streamk.c): a tile shared with other CTAs is published to this CTA's\n"
                "        // workspace slot, or, by the last of them to get here, fixed up from the others' slots.\n"
                "        if (it.parts > 1) {\n"
                "            pt::named_sync(1 + WGS, 128 * WGS);  // every consumer warpgroup is past its loop\n"
                "            if (cw == 0 && lead)\n"
                "                split_ticket[n_tile & 1] = atomicAdd(&pt_streamk_ticket[it.s], 1u) == (unsigned)(it.parts - 1);\n"
                "            pt::named_sync(1 + WGS, 128 * WGS);\n"
                "            const int me = cw * 128 + threadIdx.x % 128;  // this consumer thread\n"
                "            if (!split_ticket[n_tile & 1]) {\n"
                "                float4 *slot = reinterpret_cast<float4 *>(pt_streamk_ws + ((size_t)blockIdx.x * 2 + it.slot) * (BM * BN));\n");
    emit_tile_io(sb, false, "");
    sb_puts(sb, "                __threadfence();  // the partial tile is visible before it is counted\n"
                "                pt::named_sync(1 + WGS, 128 * WGS);\n"
                "                if (cw == 0 && lead)\n"
                "                    atomicAdd(&pt_streamk_done[it.s], 1u);\n"
                "            } else {\n"
                "                if (cw == 0 && lead) {\n"
                "                    while (atomicAdd(&pt_streamk_done[it.s], 0u) < (unsigned)(it.parts - 1)) {\n"
                "                    }\n"
                "                    __threadfence();\n"
                "                    pt_streamk_done[it.s] = 0;  // every CTA of this tile has its ticket: reset\n"
                "                    pt_streamk_ticket[it.s] = 0;\n"
                "                }\n"
                "                pt::named_sync(1 + WGS, 128 * WGS);\n"
                "                for (int g = it.first; g < it.first + it.parts; ++g) {\n"
                "                    if (g == (int)blockIdx.x)\n"
                "                        continue;\n"
                "                    // g wrote the tile as its first segment (slot 0) unless its range began earlier\n"
                "                    const int gs = sk_lo(g) / K_ITERS == it.s ? 0 : 1;\n"
                "                    const float4 *slot = reinterpret_cast<const float4 *>(pt_streamk_ws + ((size_t)g * 2 + gs) * (BM * BN));\n");
    emit_tile_io(sb, true, "    ");  /* inside the loop over the other CTAs */
    sb_puts(sb, "                }\n"
                "            }\n"
                "        }\n");
}
