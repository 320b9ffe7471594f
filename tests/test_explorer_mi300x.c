/* test_explorer_mi300x.c — the explorer's model refuses on MI300X what does not fit, exactly as
 * on H200 (issue 20; display-free, suite 'unit'). flash_attention with 4 K stages needs 229.5 kB
 * of shared memory: valid on H200 (227 KiB per block); switched to MI300X (64 KiB of LDS) it is
 * kept but marked invalid — m->warning set, which the Code page, Compile & Profile and export
 * refuse on, and the status flagged, which frames the timeline — and every edit or loaded
 * sProgram that does not fit is refused with the limit named, on both. The MI300X register rule
 * (one VGPR budget for every wave, regfile.h) reaches the explorer the same way. The window's
 * side of it (red status, framed timeline) is test_explorer_issue19 /issue19/mi300x. */
#include <stdlib.h>
#include <string.h>

#include "explorer_model.h"
#include "ptest.h"
#include "schedule_status.h"

static int tensor(const pt_explorer_model *m, const char *name)
{
    for (int t = 0; t < m->graph.n_tensors; t++)
        if (strcmp(m->graph.tensors[t].name, name) == 0)
            return t;
    return -1;
}

static bool flagged(const pt_explorer_model *m, pt_schedule_status *st)
{
    pt_schedule_status_compute(st, m);
    return pt_schedule_status_flagged(st);
}

static void smem_229k(void)
{
    pt_explorer_model m;
    memset(&m, 0, sizeof m);
    pt_error err = {{0}};
    pt_schedule_status st;
    CHECK_MSG(pt_explorer_model_load(&m, "flash_attention", "H200", &err), "%s", err.msg);
    int K = tensor(&m, "K"), V = tensor(&m, "V");
    CHECK(K >= 0 && V >= 0);
    if (K < 0 || V < 0)
        return;
    CHECK_MSG(pt_explorer_model_set_stages(&m, "K", 4, &err), "%s", err.msg);
    CHECK(!flagged(&m, &st) || st.gen == PT_GEN_REFUSED); /* the generator may refuse; it fits */
    CHECK(!st.smem_over && st.val.smem_bytes > 229000 && st.val.smem_bytes <= 232448);
    CHECK(m.warning[0] == '\0');

    /* H200: an edit beyond its 232448 bytes is refused, the model unchanged */
    CHECK(!pt_explorer_model_set_stages(&m, "K", 5, &err));
    CHECK_CONTAINS(err.msg, "H200 allows 232448");
    CHECK(m.prog.stages[K] == 4);

    /* MI300X: kept, marked invalid and flagged — not drawn as valid */
    CHECK_MSG(pt_explorer_model_set_hw(&m, "MI300X", &err), "%s", err.msg);
    CHECK_CONTAINS(m.warning, "MI300X allows 65536");
    CHECK(flagged(&m, &st));
    CHECK(st.smem_over && st.val.smem_limit == 65536);
    char line[PT_ERROR_MAX + 256];
    CHECK_CONTAINS(pt_schedule_status_generator_text(&st, &m, line, sizeof line), "INVALID");
    CHECK_CONTAINS(pt_schedule_status_resources_text(&st, &m, line, sizeof line),
                   "of 64.0 KB OVER the limit");

    /* MI300X: an edit that still does not fit is refused as on H200, the model unchanged */
    int v0 = m.prog.stages[V];
    CHECK(!pt_explorer_model_set_stages(&m, "V", v0 + 1, &err));
    CHECK_CONTAINS(err.msg, "MI300X allows 65536");
    CHECK(m.prog.stages[V] == v0);

    /* a saved sProgram that does not fit is refused on open, on MI300X as on H200 */
    char *json = pt_sprogram_to_json(&m.prog, &m.sg);
    CHECK(json != NULL);
    if (json) {
        pt_explorer_model n;
        memset(&n, 0, sizeof n);
        CHECK(!pt_explorer_model_load_sprogram_text(&n, "fa_k4.json", json, strlen(json), NULL,
                                                    NULL, "MI300X", &err));
        CHECK_CONTAINS(err.msg, "MI300X allows 65536");
        CHECK_MSG(pt_explorer_model_load_sprogram_text(&n, "fa_k4.json", json, strlen(json),
                                                       NULL, NULL, "H200", &err), "%s", err.msg);
        pt_explorer_model_clear(&n);
        free(json);
    }

    /* back on H200 the same sProgram is valid again */
    CHECK_MSG(pt_explorer_model_set_hw(&m, "H200", &err), "%s", err.msg);
    CHECK(m.warning[0] == '\0');
    pt_schedule_status_compute(&st, &m);
    CHECK(!st.smem_over);
    pt_explorer_model_clear(&m);
}

/* gemm_f16 tiled to fit the LDS (one consumer warpgroup): valid on MI300X. Giving wg0 480
 * VGPRs on 256 threads makes 6 waves, two of 480 on one SIMD (960 of its 512): refused, where
 * the summed NVIDIA rule would pass it (40 x 128 + 480 x 256 = 128000 <= 131072). */
static void vgpr_rule(void)
{
    pt_explorer_model m;
    memset(&m, 0, sizeof m);
    pt_error err = {{0}};
    pt_schedule_status st;
    CHECK_MSG(pt_explorer_model_load(&m, "gemm_f16", "MI300X", &err), "%s", err.msg);
    /* the graph's 128x256x64 tile with 3 stages needs 153 KB; the default is made to fit
     * (default_tiling.h: k halved to 32, 2 stages) */
    CHECK_MSG(m.warning[0] == '\0', "%s", m.warning);
    CHECK(m.tiling.tile[pt_graph_find_axis(&m.graph, "k")] == 32);
    CHECK_MSG(pt_explorer_model_retile(&m, "m=64,n=64,k=64,wg=1", &err), "%s", err.msg);
    CHECK(!flagged(&m, &st));
    CHECK_MSG(!st.smem_over && !st.regs_over, "%lld bytes, %lld registers",
              (long long)st.val.smem_bytes, (long long)st.val.regs_total);
    pt_sprogram p = m.prog;
    int wg0 = -1;
    for (int r = 0; r < p.n_roles; r++)
        if (p.roles[r].wg == 0)
            wg0 = r;
    CHECK(wg0 >= 0);
    if (wg0 >= 0) {
        p.roles[wg0].regs = 480;
        p.roles[wg0].threads = 256;
        CHECK(!pt_explorer_model_replace_program(&m, &p, &m.sg, &err));
        CHECK_CONTAINS(err.msg, "every wave of the kernel gets the largest role budget, 480");
        CHECK(m.prog.roles[wg0].regs != 480);
    }
    pt_explorer_model_clear(&m);
}

int main(void)
{
    PTEST_RUN(smem_229k);
    PTEST_RUN(vgpr_rule);
    PTEST_END();
}
