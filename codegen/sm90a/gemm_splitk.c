/* gemm_splitk.c — the split-K epilogue of a GEMM (partition.split_k, src/splitk.h).
 *
 * A work item is (tile t, chunk kc). After its loop, every chunk publishes its partial f32 tile
 * to the tile's workspace slot kc, makes it visible (a fence), and only then takes a ticket
 * from the tile's counter. The chunk that draws ticket S-1 knows the other S-1 partial tiles
 * are written: it resets the counter for the next launch, adds them into its accumulators and
 * converts and stores the output. One atomic per chunk and no waiting: the last chunk's path is
 * its own write, fence and atomic, where taking the ticket first (and having the others count
 * themselves done after their writes) puts another chunk's write, fence and atomic on it
 * (bench/lowbit/results-2026-12-03-s19). Nothing waits for a chunk that has not finished its
 * loop, so no launch order can deadlock.
 * The partial tiles are written in the accumulators' register order, four registers per
 * thread per 16-byte access, thread-major (every access coalesced); the last chunk reads them
 * back the same way, a few loads in flight at a time so its accumulators stay in registers. */
#include "gemm.h"

void sm90a_gemm_emit_splitk_globals(strbuf *sb, const sm90a_gemm *gm)
{
    sb_printf(sb, "// Split-K: per tile a ticket counter (zero at module load; the last chunk resets it), and\n"
                  "// the workspace of the S partial tiles of every tile (%lld bytes).\n"
                  "__device__ unsigned int pt_splitk_ticket[TILES];\n"
                  "__device__ float pt_splitk_ws[(size_t)TILES * SPLIT_K * BM * BN];\n\n",
              (long long)gm->kp->workspace_bytes);
}

void sm90a_gemm_emit_splitk_fixup(strbuf *sb, const sm90a_gemm *gm)
{
    (void)gm;
    sb_puts(sb, "        // Split-K (gemm_splitk.c): publish this chunk's partial tile, then take a ticket; the\n"
                "        // tile's last chunk adds the others' into the accumulators.\n"
                "        {\n"
                "            float *ws = pt_splitk_ws + (size_t)t * SPLIT_K * (BM * BN);\n"
                "            const int me = cw * 128 + threadIdx.x % 128;  // this consumer thread\n"
                "            float4 *mine = reinterpret_cast<float4 *>(ws + (size_t)kc * (BM * BN));\n"
                "            #pragma unroll\n"
                "            for (int r = 0; r < MREP; ++r)\n"
                "                #pragma unroll\n"
                "                for (int j = 0; j < ACC_N / 2; j += 4)\n"
                "                    mine[(r * (ACC_N / 8) + j / 4) * (128 * WGS) + me] =\n"
                "                        make_float4(acc[r][j], acc[r][j + 1], acc[r][j + 2], acc[r][j + 3]);\n"
                "            __threadfence();  // the partial tile is visible before the ticket counts it\n"
                "            pt::named_sync(1 + WGS, 128 * WGS);  // every consumer warpgroup has written\n"
                "            if (cw == 0 && lead) {\n"
                "                const int ticket = (int)atomicAdd(&pt_splitk_ticket[t], 1u);\n"
                "                if (ticket == SPLIT_K - 1) {\n"
                "                    pt_splitk_ticket[t] = 0;  // every chunk of this tile has its ticket: reset\n"
                "                    __threadfence();  // the others' partial tiles are read after their tickets\n"
                "                }\n"
                "                split_ticket[n_tile & 1] = ticket;\n"
                "            }\n"
                "            pt::named_sync(1 + WGS, 128 * WGS);\n");
    sb_puts(sb, "            if (split_ticket[n_tile & 1] == SPLIT_K - 1) {\n"
                "                for (int c = 0; c < SPLIT_K; ++c) {\n"
                "                    if (c == kc)\n"
                "                        continue;\n"
                "                    const float4 *slot = reinterpret_cast<const float4 *>(ws + (size_t)c * (BM * BN));\n"
                "                    #pragma unroll\n"
                "                    for (int r = 0; r < MREP; ++r)\n"
                "                        #pragma unroll\n"
                "                        for (int j = 0; j < ACC_N / 2; j += 4) {\n"
                "                            const float4 q = __ldcg(&slot[(r * (ACC_N / 8) + j / 4) * (128 * WGS) + me]);\n"
                "                            acc[r][j] += q.x;\n"
                "                            acc[r][j + 1] += q.y;\n"
                "                            acc[r][j + 2] += q.z;\n"
                "                            acc[r][j + 3] += q.w;\n"
                "                            if (j % 32 == 28)  // at most 8 loads in flight: no registers spilled\n"
                "                                asm volatile(\"\" ::: \"memory\");\n"
                "                        }\n"
                "                }\n"
                "            }\n"
                "        }\n");
}
