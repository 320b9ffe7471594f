/* gen_fake_profile.c — test helper: a synthetic profile of a graph's default sProgram, as the
 * GPU would return it, so that the profile verb can be tested end to end without a GPU.
 *
 * usage: gen_fake_profile GRAPH P=V,...|- OUTDIR
 * From the predicted timeline of the default sProgram it makes a trace buffer in the layout of
 * codegen/trace_abi.h (2 sampled CTAs of grid 8, one warp role per lane role, clocks at 1.5 GHz,
 * the first record 15 us after the CUPTI kernel start) and writes into OUTDIR:
 *   trace.bin         the raw buffer
 *   result.json       the harness's JSON line (correct, CUPTI fields)
 *   reply.txt         what pt-run.sh prints for them (the remote contract of traces/runner.h)
 *   reply_wrong.txt   the reply of a kernel with wrong results (exit 3, no timing)
 *   reply_badmagic.txt  a reply whose trace buffer has a wrong magic
 *   reply_cut.txt     a reply whose trace is cut off (no PT-TRACE-END)
 *   reply_fault.txt   a reply of a harness that hit an illegal address while timing
 * Exit 0, or 1 with a one-line message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "embedded.h"
#include "propagate.h"
#include "json_util.h"
#include "runner.h"
#include "sim.h"
#include "trace_abi.h"

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static bool write_bytes(const char *dir, const char *name, const void *data, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(data, 1, n, f) == n;
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok)
        fprintf(stderr, "gen_fake_profile: cannot write %s\n", path);
    return ok;
}

static bool write_reply(const char *dir, const char *name, const char *json, int status,
                        const unsigned char *trace, size_t n, bool cut)
{
    char *b64 = trace ? pt_base64_encode(trace, n) : NULL;
    size_t cap = (b64 ? strlen(b64) : 0) + strlen(json) + 512;
    char *text = malloc(cap);
    if (!text || (trace && !b64)) {
        free(text);
        free(b64);
        return false;
    }
    int k = snprintf(text, cap, "Welcome to the GPU machine\nPT-PHASE build\nPT-CUPTI 1\n"
                     "PT-PHASE run\nPT-EXIT %d\n", status);
    if (json)
        k += snprintf(text + k, cap - (size_t)k, "PT-RESULT %s\n", json);
    if (b64) {
        k += snprintf(text + k, cap - (size_t)k, "PT-TRACE base64 %zu\n", n);
        size_t len = strlen(b64);
        if (cut)
            len /= 2;
        memcpy(text + k, b64, len);
        k += (int)len;
        if (!cut)
            k += snprintf(text + k, cap - (size_t)k, "PT-TRACE-END\n");
    }
    bool ok = write_bytes(dir, name, text, (size_t)k);
    free(text);
    free(b64);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: gen_fake_profile GRAPH P=V,...|- OUTDIR\n");
        return 2;
    }
    static pt_graph g;
    pt_hw hw;
    pt_stask_graph sg;
    pt_sprogram p;
    pt_timeline tl = {0};
    pt_error err = {{0}};
    const char *sets = strcmp(argv[2], "-") ? argv[2] : NULL;
    const char *text = pt_embedded_find(pt_embedded_examples, argv[1]);
    pt_tiling t;
    if (!text || !pt_graph_load_text(&g, argv[1], text, strlen(text), sets, &err) ||
        !pt_hw_load(&hw, "H200", &err)) {
        fprintf(stderr, "gen_fake_profile: %s\n", text ? err.msg : "not a built-in example");
        return 1;
    }
    pt_tiling_defaults(&g, &t);
    if (!pt_partition(&sg, &g, &t, &err) || !pt_sprogram_default(&p, &sg, &hw, &err) ||
        !pt_simulate(&p, &sg, &hw, &tl, &err)) {
        fprintf(stderr, "gen_fake_profile: %s\n", err.msg);
        return 1;
    }
    const uint32_t n_ctas = 2, stride = 4, grid = 8, cap = 4096;
    uint32_t n_roles = 1;
    for (int r = 0; r < p.n_roles; r++)
        if (p.roles[r].wg + 2 > (int)n_roles)
            n_roles = (uint32_t)p.roles[r].wg + 2;
    size_t bytes = (size_t)pt_trace_buffer_bytes(n_ctas, n_roles, cap);
    unsigned char *buf = calloc(1, bytes);
    if (!buf)
        return 1;
    put64(buf, PT_TRACE_MAGIC);
    put32(buf + 8, PT_TRACE_VERSION);
    put32(buf + 12, n_ctas);
    put32(buf + 16, n_roles);
    put32(buf + 20, cap);
    put32(buf + 24, stride);
    put32(buf + 28, grid);
    const uint64_t kstart = 1764000000000000000ull, delay = 15000;
    double eu = tl.eu_time_ns;
    for (uint32_t c = 0; c < n_ctas; c++) {
        uint64_t gt0 = kstart + delay + 100 * c, clk0 = 1000000000ull * (c + 1);
        for (uint32_t r = 0; r < n_roles; r++) {
            unsigned char *h = buf + 64 + ((size_t)c * n_roles + r) * (48 + (size_t)cap * 16);
            uint32_t n = 0;
            for (int64_t i = 0; i < tl.n_spans; i++) {
                const pt_span *sp = &tl.spans[i];
                const pt_lane *ln = &p.lanes[sp->lane];
                uint32_t role = (uint32_t)(p.roles[ln->role].wg + 1);
                if (role != r || n + 2 > cap)
                    continue;
                double tt[2] = {sp->issue_ns, sp->end_ns}; /* issue -> completion (busy.h) */
                for (int e = 0; e < 2; e++) {
                    unsigned char *q = h + 48 + (size_t)n++ * 16;
                    put64(q, clk0 + (uint64_t)(tt[e] * 1.5 + 0.5));
                    q[8] = (unsigned char)sp->stask;
                    q[9] = (unsigned char)(sp->stask >> 8);
                    q[10] = (unsigned char)sp->lane;
                    q[11] = (unsigned char)e;
                    q[12] = q[13] = 0;
                    q[14] = (unsigned char)sp->iter;
                    q[15] = (unsigned char)(sp->iter >> 8);
                }
            }
            if (n == 0)
                continue;
            put32(h, c * stride);
            put32(h + 4, 10 + 7 * c);
            put32(h + 8, n);
            put32(h + 12, 0);
            put64(h + 16, gt0);
            put64(h + 24, clk0);
            put64(h + 32, gt0 + (uint64_t)(eu + 0.5) + 100);
            put64(h + 40, clk0 + (uint64_t)((eu + 0.5 + 100) * 1.5));
        }
    }
    double ms = (eu + 2 * delay) * 1e-6;
    char json[2048];
    snprintf(json, sizeof json,
             "{\"graph\": \"%s\", \"target\": \"sm90a\", \"kernel\": \"fake_kernel\", "
             "\"correct\": true, \"mismatches\": 0, \"elements\": %lld, \"max_abs_err\": 0.00390625, "
             "\"rel_err\": 0.0002, \"time_ms_median\": %.6g, \"time_ms_min\": %.6g, "
             "\"time_ms_max\": %.6g, \"tflops\": 1, \"grid\": %u, \"block\": 384, \"smem\": 214128, "
             "\"seed\": 1234, \"rotate\": 16, \"iters\": 50, \"timing\": \"graph\", "
             "\"trace_time_ms_median\": %.6g, \"trace_time_ms_min\": %.6g, \"trace_time_ms_max\": %.6g, "
             "\"trace_bytes\": %zu, \"cupti\": {\"median_ms\": %.6g, \"min_ms\": %.6g, \"max_ms\": %.6g, "
             "\"records\": 50, \"registers\": 168, \"smem\": 214128, \"grid\": %u, \"block\": 384, "
             "\"start_ns_first\": 1763999999000000000, \"end_ns_first\": 1763999999000030000}, "
             "\"trace_kernel_start_ns\": %llu, \"trace_kernel_end_ns\": %llu}",
             g.name, (long long)g.axes[0].extent * g.axes[1].extent, ms * 1.02, ms, ms * 1.05,
             grid, ms * 1.10, ms * 1.08, ms * 1.12, bytes, ms, ms * 0.99, ms * 1.03, grid,
             (unsigned long long)kstart,
             (unsigned long long)(kstart + (uint64_t)(eu + 2 * delay + 0.5)));
    const char *dir = argv[3];
    mkdir(dir, 0777);
    char wrong[512];
    snprintf(wrong, sizeof wrong,
             "{\"graph\": \"%s\", \"target\": \"sm90a\", \"kernel\": \"fake_kernel\", "
             "\"correct\": false, \"mismatches\": 1234, \"elements\": 262144, \"max_abs_err\": 3.5, "
             "\"rel_err\": 0.5, \"time_ms_median\": null, \"cupti\": null}", g.name);
    bool ok = write_bytes(dir, "trace.bin", buf, bytes) &&
              write_bytes(dir, "result.json", json, strlen(json)) &&
              write_reply(dir, "reply.txt", json, 0, buf, bytes, false) &&
              write_reply(dir, "reply_wrong.txt", wrong, 3, NULL, 0, false) &&
              write_reply(dir, "reply_cut.txt", json, 0, buf, bytes, true);
    put64(buf, 0x1122334455667788ull);
    ok = ok && write_reply(dir, "reply_badmagic.txt", json, 0, buf, bytes, false);
    static const char fault[] =
        "PT-PHASE build\nPT-PHASE run\nPT-EXIT 1\n";
    ok = ok && write_bytes(dir, "reply_fault.txt", fault, sizeof fault - 1);
    free(buf);
    pt_timeline_free(&tl);
    pt_sprogram_free(&p);
    pt_stask_graph_free(&sg);
    return ok ? 0 : 1;
}
