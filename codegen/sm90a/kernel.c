/* kernel.c — the start of every sm90a kernel: the aligned shared-memory base and one mbarrier
 * pair per buffer stage, initialised by one thread before the roles split.
 *
 * Barriers (8 bytes each) follow the buffers in this order: each ring's full[] (the producer's
 * expect_tx arrival; the TMA bytes complete it) and empty[] (one arrival per consumer
 * warpgroup that read the stage), each resident tile's full/empty, the staging tile's full
 * (every consumer warpgroup wrote its rows) and empty (the store has read it), then the two
 * launch positions of a dynamic tile hand-out. */
#include <stdio.h>

#include "common.h"
#include "shape.h"

/* A resident tile is free again once every consumer warp is done reading it (the output is
 * staged apart, or the workload hands this one back per warp: sh->warp_release), or once the
 * store read the output staged over its rows. */
static const char *resident_empty_arrivals(const sm90a_shape *sh, int b)
{
    return sh->kp->bufs[sh->kp->staging].over < 0 || sh->warp_release[b] ? "4 * WGS" : "1";
}

void sm90a_resident_bar(const sm90a_shape *sh, int buf, const char *which, char *out, size_t cap)
{
    char lo[8], up[8];
    sm90a_buf_name(sh, buf, lo, up, sizeof lo);
    if (sh->kp->bufs[buf].stages > 1)
        snprintf(out, cap, "&%s_%s[n_tile & 1]", lo, which);
    else
        snprintf(out, cap, "%s_%s", lo, which);
}

const char *sm90a_resident_full_parity(const sm90a_shape *sh, int buf)
{
    return sh->kp->bufs[buf].stages > 1 ? "(n_tile >> 1) & 1" : "n_tile & 1";
}

void sm90a_resident_copy_offset(const sm90a_shape *sh, int buf, char *out, size_t cap)
{
    char lo[8], up[8];
    sm90a_buf_name(sh, buf, lo, up, sizeof lo);
    if (sh->kp->bufs[buf].stages > 1)
        snprintf(out, cap, " + (n_tile & 1) * %s_PITCH", up);
    else
        out[0] = 0;
}

void sm90a_emit_kernel_head(strbuf *sb, const sm90a_shape *sh, const char *const *maps, int n_maps)
{
    const pt_kprog *kp = sh->kp;
    char lo[8], up[8], prev[64] = "";
    sb_puts(sb, "    extern __shared__ __align__(1024) uint8_t smem_raw[];\n"
                "    // 128B swizzle needs 1024-byte aligned buffers; the launch adds 1024 bytes of slack.\n"
                "    uint8_t *smem = smem_raw + ((1024 - (pt::smem_addr(smem_raw) & 1023)) & 1023);\n");
    for (int pass = 0; pass < 3; pass++)
        for (int b = 0; b < kp->n_bufs; b++) {
            const pt_kbuf *B = &kp->bufs[b];
            if ((int)B->kind != pass)
                continue;
            sm90a_buf_name(sh, b, lo, up, sizeof lo);
            if (B->kind == PT_KBUF_RING) {
                if (prev[0])
                    sb_printf(sb, "    uint64_t *full_%s = %s, *empty_%s = full_%s + STAGES_%s;\n", lo,
                              prev, lo, lo, up);
                else
                    sb_printf(sb, "    uint64_t *full_%s = reinterpret_cast<uint64_t *>(smem + OFF_BAR), "
                                  "*empty_%s = full_%s + STAGES_%s;\n", lo, lo, lo, up);
                snprintf(prev, sizeof prev, "empty_%s + STAGES_%s", lo, up);
            } else {
                int n = B->stages > 1 ? B->stages : 1; /* a resident tile's copies */
                if (prev[0])
                    sb_printf(sb, "    uint64_t *%s_full = %s, *%s_empty = %s_full + %d;\n", lo, prev,
                              lo, lo, n);
                else
                    sb_printf(sb, "    uint64_t *%s_full = reinterpret_cast<uint64_t *>(smem + OFF_BAR), "
                                  "*%s_empty = %s_full + %d;\n", lo, lo, lo, n);
                sb_printf(sb, "    (void)%s_empty;\n", lo);
                snprintf(prev, sizeof prev, "%s_empty + %d", lo, n);
            }
        }
    if (kp->dynamic)
        sb_printf(sb, "    int *tile_slot = reinterpret_cast<int *>(%s);  // dynamic tile hand-out\n", prev);
    if (kp->split_k > 1 || kp->stream_k)
        sb_printf(sb, "    int *split_ticket = reinterpret_cast<int *>(%s);  // %s, per tile parity\n", prev,
                  kp->stream_k ? "stream-K: this CTA fixes the tile up" : "split-K: the chunk's arrival");
    if (kp->cluster)
        sb_puts(sb, "    uint64_t *cl_full = reinterpret_cast<uint64_t *>(smem + OFF_CLBAR);  // the leader's\n");
    if (kp->cluster_over_rings)
        sb_puts(sb, "    uint64_t *cl_go = cl_full + 1;  // this CTA's \"the leader's rings are free\"\n");
    sb_puts(sb, "    const int wg = threadIdx.x / 128;\n"
                "    if (threadIdx.x == 0) {\n");
    for (int i = 0; i < n_maps; i++)
        sb_printf(sb, "        pt::prefetch_tensormap(&tm_%s);\n", maps[i]);
    for (int pass = 0; pass < 3; pass++)
        for (int b = 0; b < kp->n_bufs; b++) {
            const pt_kbuf *B = &kp->bufs[b];
            if ((int)B->kind != pass)
                continue;
            sm90a_buf_name(sh, b, lo, up, sizeof lo);
            if (B->kind == PT_KBUF_RING) {
                char empty[64] = "WGS);  // one arrival per consumer warpgroup";
                if (B->readers == 4 * kp->wgs && kp->wgs > 0)
                    snprintf(empty, sizeof empty, "4 * WGS);  // one arrival per consumer warp");
                else if (B->readers != kp->wgs)
                    snprintf(empty, sizeof empty, "%d);  // the producer's dequantising warps read it",
                             B->readers);
                /* the comments line up with the empty barrier's */
                sb_printf(sb, "        for (int s = 0; s < STAGES_%s; ++s) {\n"
                              "            pt::mbar_init(&full_%s[s], 1);%s// %s\n"
                              "            pt::mbar_init(&empty_%s[s], %s\n"
                              "        }\n", up, lo, B->readers != kp->wgs ? "  " : "     ",
                          B->written ? "the dequantising warps wrote the stage" : "producer's expect_tx arrival",
                          lo, empty);
            }
            else if (B->kind == PT_KBUF_RESIDENT && B->stages > 1)
                sb_printf(sb, "        for (int c = 0; c < STAGES_%s; ++c) {  // tile n_tile uses copy n_tile & 1\n"
                              "            pt::mbar_init(&%s_full[c], 1);\n"
                              "            pt::mbar_init(&%s_empty[c], %s);\n"
                              "        }\n", up, lo, lo, resident_empty_arrivals(sh, b));
            else if (B->kind == PT_KBUF_RESIDENT)
                sb_printf(sb, "        pt::mbar_init(%s_full, 1);\n"
                              "        pt::mbar_init(%s_empty, %s);\n", lo, lo,
                          resident_empty_arrivals(sh, b));
            else
                sb_printf(sb, "        pt::mbar_init(%s_full, WGS);  // every consumer warpgroup staged its rows\n"
                              "        pt::mbar_init(%s_empty, 1);   // the store read the tile\n", lo, lo);
        }
    if (kp->cluster)
        sb_puts(sb, "        pt::mbar_init(cl_full, 1);  // the other chunks' partial tiles, stored by st.async\n"
                    "        pt::mbar_arrive_expect_tx(cl_full, (SPLIT_K - 1) * (BM * BN * 4));\n");
    if (kp->cluster_over_rings)
        sb_puts(sb, "        pt::mbar_init(cl_go, 1);  // the leader's loop is done with its rings\n");
    sb_puts(sb, "        pt::mbar_fence_init();\n"
                "    }\n"
                "    __syncthreads();\n");
    if (kp->cluster)
        sb_puts(sb, "    pt::cluster_arrive();  // this CTA's barriers are initialised (the other chunks wait for it)\n");
    sm90a_pdl pdl = sm90a_pdl_role(kp);
    if (pdl == SM90A_PDL_PRIMARY)
        sb_puts(sb, "    pt::grid_launch_dependents();  // the combine may launch now; it waits for this grid\n");
    else if (pdl == SM90A_PDL_DEPENDENT)
        sb_puts(sb, "    pt::grid_dependency_wait();  // the kernel before this one (the partial) is done and visible\n");
    sb_puts(sb, "#ifdef PT_TRACE\n"
                "    pt::Tracer tracer;  // written by each role's issuing thread only\n"
                "#else\n"
                "    (void)pt_trace;\n"
                "#endif\n\n");
}
