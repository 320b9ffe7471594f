/* gemm_splitk.c — the split-K epilogue of a GEMM (partition.split_k, src/splitk.h).
 *
 * A work item is (tile t, chunk kc). After its loop, the consumer warpgroups of the CTA take a
 * ticket from the tile's counter: tickets 0 .. S-2 publish their partial f32 tile to the
 * workspace slot of their ticket and count themselves done; ticket S-1 (the last chunk to get
 * here) waits until the S-1 others are done, adds their partial tiles into its accumulators,
 * resets the tile's counters for the next launch, and converts and stores the output. Only a
 * chunk that already finished its loop is ever waited for, so no launch order can deadlock.
 * The partial tiles are written in the accumulators' register order, four registers per
 * thread per 16-byte access, thread-major (every access coalesced); the last chunk reads them
 * back the same way, a few loads in flight at a time so its accumulators stay in registers. */
#include "gemm.h"

void sm90a_gemm_emit_splitk_globals(strbuf *sb, const sm90a_gemm *gm)
{
    sb_printf(sb, "// Split-K: per tile a ticket counter and a count of the chunks whose partial tile is\n"
                  "// written (zero at module load; the last chunk resets them), and the workspace of the\n"
                  "// S - 1 partial tiles of every tile (%lld bytes).\n"
                  "__device__ unsigned int pt_splitk_ticket[TILES], pt_splitk_done[TILES];\n"
                  "__device__ float pt_splitk_ws[(size_t)TILES * (SPLIT_K - 1) * BM * BN];\n\n",
              (long long)gm->kp->workspace_bytes);
}

void sm90a_gemm_emit_splitk_fixup(strbuf *sb, const sm90a_gemm *gm)
{
    (void)gm;
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
                "                float4 *slot = reinterpret_cast<float4 *>(ws + (size_t)ticket * (BM * BN));\n"
                "                #pragma unroll\n"
                "                for (int r = 0; r < MREP; ++r)\n"
                "                    #pragma unroll\n"
                "                    for (int j = 0; j < ACC_N / 2; j += 4)\n"
                "                        slot[(r * (ACC_N / 8) + j / 4) * (128 * WGS) + me] =\n"
                "                            make_float4(acc[r][j], acc[r][j + 1], acc[r][j + 2], acc[r][j + 3]);\n"
                "                __threadfence();  // the partial tile is visible before it is counted\n"
                "                pt::named_sync(1 + WGS, 128 * WGS);\n"
                "                if (cw == 0 && lead)\n"
                "                    atomicAdd(&pt_splitk_done[t], 1u);\n"
                "            } else {\n");
    sb_puts(sb, ""
                "                if (cw == 0 && lead) {\n"
                "                    while (atomicAdd(&pt_splitk_done[t], 0u) < SPLIT_K - 1) {\n"
                "                    }\n"
                "                    __threadfence();\n"
                "                    pt_splitk_done[t] = 0;  // every chunk of this tile has its ticket: reset\n"
                "                    pt_splitk_ticket[t] = 0;\n"
                "                }\n"
                "                pt::named_sync(1 + WGS, 128 * WGS);\n"
                "                for (int c = 0; c < SPLIT_K - 1; ++c) {\n"
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
