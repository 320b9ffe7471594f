/* gemm_splitk.c — the split-K epilogue of a GEMM (partition.split_k, src/splitk.h).
 *
 * A work item is (tile t, chunk kc). After its loop, the chunks of a tile meet through the
 * tile's ticket counter; the one that draws ticket S-1 adds the others' partial f32 tiles into
 * its accumulators, resets the counters for the next launch, and converts and stores the
 * output. Two orders, by the partial tile's size (pt_split_k_publish_first):
 *  - small tiles (M = 1 … 16 with the tensor-core rows on N): every chunk writes its partial
 *    tile to its slot kc, fences, and only then takes its ticket, so the last chunk's path is
 *    its own write, fence and atomic;
 *  - larger tiles: a chunk takes its ticket first; tickets 0 … S-2 write to the slot of their
 *    ticket, fence and count themselves done, and ticket S-1 skips its own write but waits
 *    until the others are counted.
 * Either way only a chunk that already finished its loop is ever waited for, so no launch order
 * can deadlock. The partial tiles are written in the accumulators' register order, four
 * registers per thread per 16-byte access, thread-major (every access coalesced); the last
 * chunk reads them back the same way, a few loads in flight at a time so its accumulators stay
 * in registers. With partition.split_k_reduce cluster the chunks of a tile are one thread-block
 * cluster instead, and the partial tiles go through the leader's shared memory (emit_cluster). */
#include "gemm.h"
#include "splitk.h"

static bool publish_first(const sm90a_gemm *gm)
{
    return pt_split_k_publish_first(pt_split_k_tile_elems(gm->kp->sg));
}

void sm90a_gemm_emit_splitk_globals(strbuf *sb, const sm90a_gemm *gm)
{
    if (gm->kp->cluster)
        return; /* the partial tiles stay in the cluster's shared memory */
    if (publish_first(gm))
        sb_printf(sb, "// Split-K: per tile a ticket counter (zero at module load; the last chunk resets it), and\n"
                      "// the workspace of the S partial tiles of every tile (%lld bytes).\n"
                      "__device__ unsigned int pt_splitk_ticket[TILES];\n"
                      "__device__ float pt_splitk_ws[(size_t)TILES * SPLIT_K * BM * BN];\n\n",
                  (long long)gm->kp->workspace_bytes);
    else
        sb_printf(sb, "// Split-K: per tile a ticket counter and a count of the chunks whose partial tile is\n"
                      "// written (zero at module load; the last chunk resets them), and the workspace of the\n"
                      "// S - 1 partial tiles of every tile (%lld bytes).\n"
                      "__device__ unsigned int pt_splitk_ticket[TILES], pt_splitk_done[TILES];\n"
                      "__device__ float pt_splitk_ws[(size_t)TILES * (SPLIT_K - 1) * BM * BN];\n\n",
                  (long long)gm->kp->workspace_bytes);
}

/* The write of this chunk's partial tile through the float4 pointer `dst`, at `ind`. */
static void emit_write(strbuf *sb, const char *dst, const char *ind)
{
    sb_printf(sb, "%s#pragma unroll\n"
                  "%sfor (int r = 0; r < MREP; ++r)\n"
                  "%s    #pragma unroll\n"
                  "%s    for (int j = 0; j < ACC_N / 2; j += 4)\n"
                  "%s        %s[(r * (ACC_N / 8) + j / 4) * (128 * WGS) + me] =\n"
                  "%s            make_float4(acc[r][j], acc[r][j + 1], acc[r][j + 2], acc[r][j + 3]);\n",
              ind, ind, ind, ind, ind, dst, ind);
}

/* The last chunk's adds of the other partial tiles: the S slots but its own (`skip`, the
 * expression of its slot), or with skip NULL the S - 1 slots of the others. Slot c starts at
 * `slot_c`. From the global workspace (`global`) the loads go through L2 and a few at a time
 * stay in flight so the accumulators stay in registers; the cluster leader reads its own
 * shared memory. */
static void emit_adds(strbuf *sb, const char *skip, const char *slot_c, bool global)
{
    sb_printf(sb, "                for (int c = 0; c < %s; ++c) {\n", skip ? "SPLIT_K" : "SPLIT_K - 1");
    if (skip)
        sb_printf(sb, "                    if (c == %s)\n"
                      "                        continue;\n", skip);
    sb_printf(sb, "                    const float4 *slot = reinterpret_cast<const float4 *>(%s);\n"
                  "                    #pragma unroll\n"
                  "                    for (int r = 0; r < MREP; ++r)\n"
                  "                        #pragma unroll\n"
                  "                        for (int j = 0; j < ACC_N / 2; j += 4) {\n"
                  "                            const float4 q = %s;\n"
                  "                            acc[r][j] += q.x;\n"
                  "                            acc[r][j + 1] += q.y;\n"
                  "                            acc[r][j + 2] += q.z;\n"
                  "                            acc[r][j + 3] += q.w;\n",
              slot_c, global ? "__ldcg(&slot[(r * (ACC_N / 8) + j / 4) * (128 * WGS) + me])"
                             : "slot[(r * (ACC_N / 8) + j / 4) * (128 * WGS) + me]");
    if (global)
        sb_puts(sb, "                            if (j % 32 == 28)  // at most 8 loads in flight: no registers spilled\n"
                    "                                asm volatile(\"\" ::: \"memory\");\n");
    sb_puts(sb, "                        }\n"
                "                }\n");
}

static void emit_publish_first(strbuf *sb)
{
    sb_puts(sb, "        // Split-K (gemm_splitk.c): publish this chunk's partial tile, then take a ticket; the\n"
                "        // tile's last chunk adds the others' into the accumulators.\n"
                "        {\n"
                "            float *ws = pt_splitk_ws + (size_t)t * SPLIT_K * (BM * BN);\n"
                "            const int me = cw * 128 + threadIdx.x % 128;  // this consumer thread\n"
                "            float4 *mine = reinterpret_cast<float4 *>(ws + (size_t)kc * (BM * BN));\n");
    emit_write(sb, "mine", "            ");
    sb_puts(sb, "            __threadfence();  // the partial tile is visible before the ticket counts it\n"
                "            pt::named_sync(1 + WGS, 128 * WGS);  // every consumer warpgroup has written\n"
                "            if (cw == 0 && lead) {\n"
                "                const int ticket = (int)atomicAdd(&pt_splitk_ticket[t], 1u);\n"
                "                if (ticket == SPLIT_K - 1) {\n"
                "                    pt_splitk_ticket[t] = 0;  // every chunk of this tile has its ticket: reset\n"
                "                    __threadfence();  // the others' partial tiles are read after their tickets\n"
                "                }\n"
                "                split_ticket[n_tile & 1] = ticket;\n"
                "            }\n"
                "            pt::named_sync(1 + WGS, 128 * WGS);\n"
                "            if (split_ticket[n_tile & 1] == SPLIT_K - 1) {\n");
    emit_adds(sb, "kc", "ws + (size_t)c * (BM * BN)", true);
    sb_puts(sb, "            }\n"
                "        }\n");
}

static void emit_ticket_first(strbuf *sb)
{
    sb_puts(sb, "        // Split-K (gemm_splitk.c): publish this chunk's partial tile, or, as the tile's last\n"
                "        // chunk, add the others' into the accumulators.\n"
                "        pt::named_sync(1 + WGS, 128 * WGS);  // every consumer warpgroup is past its loop\n"
                "        if (cw == 0 && lead)\n"
                "            split_ticket[n_tile & 1] = (int)atomicAdd(&pt_splitk_ticket[t], 1u);\n"
                "        pt::named_sync(1 + WGS, 128 * WGS);\n"
                "        {\n"
                "            const int ticket = split_ticket[n_tile & 1];\n"
                "            float *ws = pt_splitk_ws + (size_t)t * (SPLIT_K - 1) * (BM * BN);\n"
                "            const int me = cw * 128 + threadIdx.x % 128;  // this consumer thread\n"
                "            if (ticket < SPLIT_K - 1) {\n"
                "                float4 *slot = reinterpret_cast<float4 *>(ws + (size_t)ticket * (BM * BN));\n");
    emit_write(sb, "slot", "                ");
    sb_puts(sb, "                __threadfence();  // the partial tile is visible before it is counted\n"
                "                pt::named_sync(1 + WGS, 128 * WGS);\n"
                "                if (cw == 0 && lead)\n"
                "                    atomicAdd(&pt_splitk_done[t], 1u);\n"
                "            } else {\n"
                "                if (cw == 0 && lead) {\n"
                "                    while (atomicAdd(&pt_splitk_done[t], 0u) < SPLIT_K - 1) {\n"
                "                    }\n"
                "                    __threadfence();\n"
                "                    pt_splitk_done[t] = 0;  // every chunk of this tile has its ticket: reset\n"
                "                    pt_splitk_ticket[t] = 0;\n"
                "                }\n"
                "                pt::named_sync(1 + WGS, 128 * WGS);\n");
    emit_adds(sb, NULL, "ws + (size_t)c * (BM * BN)", true);
    sb_puts(sb, "            }\n"
                "        }\n");
}

/* partition.split_k_reduce cluster: chunk kc is CTA kc of its tile's cluster. The others
 * store their partial tiles into the leader's slot kc - 1 (distributed shared memory) with
 * st.async, once they know the leader's barrier is initialised: each store's bytes complete on
 * that barrier, which the leader armed for every other chunk's whole tile (kernel.c), so the
 * storing threads neither fence nor arrive. The leader waits for all of them and adds the slots
 * from its own shared memory. Every cluster holds one tile (a grid of one
 * work item per CTA), so the barrier completes once, phase 0. Where the slots lie over the
 * leader's rings (they do not fit beside its buffers), the others first wait on their own
 * barrier for the leader's "my loop is done" (cl_go), which the leader gives once all its
 * consumer warpgroups are past their loops: their last wgmma has read its stages, and every
 * load of the loop has landed. */
static void emit_cluster(strbuf *sb, bool over_rings)
{
    sb_puts(sb, "        // Split-K through the cluster (gemm_splitk.c): the other chunks store their partial\n"
                "        // tiles into the leader's shared memory; the leader (chunk 0) adds them.\n"
                "        {\n"
                "            const int me = cw * 128 + threadIdx.x % 128;  // this consumer thread\n"
                "            if (kc != 0) {\n"
                "                pt::cluster_wait();  // the leader's barriers are initialised\n");
    if (over_rings)
        sb_puts(sb, "                pt::mbar_wait_cluster(cl_go, 0);  // the slots lie over the leader's rings: its loop is done\n");
    sb_puts(sb, "                const uint32_t slot = pt::cluster_map(smem + OFF_CL + (size_t)(kc - 1) * (BM * BN * 4), 0);\n"
                "                const uint32_t full = pt::cluster_map(cl_full, 0);  // the leader's: it expects these bytes\n"
                "                static_assert(MREP * (ACC_N / 2) * 128 * WGS == BM * BN, \"the chunks store the whole tile the leader expects\");\n"
                "                #pragma unroll\n"
                "                for (int r = 0; r < MREP; ++r)\n"
                "                    #pragma unroll\n"
                "                    for (int j = 0; j < ACC_N / 2; j += 4)\n"
                "                        pt::cluster_store4_async(slot + 16u * (uint32_t)((r * (ACC_N / 8) + j / 4) * (128 * WGS) + me),\n"
                "                                                 acc[r][j], acc[r][j + 1], acc[r][j + 2], acc[r][j + 3], full);\n"
                "            } else {\n");
    if (over_rings)
        sb_puts(sb, "                pt::cluster_wait();  // the others' barriers are initialised\n"
                    "                pt::named_sync(1 + WGS, 128 * WGS);  // every consumer warpgroup is past its loop\n"
                    "                if (cw == 0 && lead)\n"
                    "                    for (int c = 1; c < SPLIT_K; ++c)  // the rings are free for the slots\n"
                    "                        pt::cluster_arrive_remote(pt::cluster_map(cl_go, c));\n");
    sb_puts(sb, "                pt::mbar_wait_cluster(cl_full, 0);\n");
    emit_adds(sb, NULL, "smem + OFF_CL + (size_t)c * (BM * BN * 4)", false);
    sb_puts(sb, "            }\n"
                "            if (cw == 0 && lead)  // the leader converts, its producer stores\n"
                "                split_ticket[n_tile & 1] = kc == 0 ? SPLIT_K - 1 : 0;\n"
                "            pt::named_sync(1 + WGS, 128 * WGS);\n"
                "        }\n");
}

void sm90a_gemm_emit_splitk_fixup(strbuf *sb, const sm90a_gemm *gm)
{
    if (gm->kp->cluster)
        emit_cluster(sb, gm->kp->cluster_over_rings);
    else if (publish_first(gm))
        emit_publish_first(sb);
    else
        emit_ticket_first(sb);
}
