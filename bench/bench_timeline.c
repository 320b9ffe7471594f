/* bench_timeline.c — frame time of the explorer's timeline while zooming and panning (issue 6).
 * Not a test: it prints numbers for BENCHMARKS.md.
 *
 * Renders a synthetic timeline of N bars (default 20,000; 5 lanes like flash attention: one TMA
 * lane of copies, two tensor-core and two CUDA-core lanes, with idle gaps) through the widget's
 * own render path (pt_tl_render into a cairo image surface, 1600x900 by default), with labels,
 * the critical path, the selected bar's dependency arrows and a measured overlay, over a
 * sequence of frames that zooms from the whole run into a few bars and back out while panning.
 * Prints the median, p95 and max frame time, then the same with four lane groups.
 *
 *   bench_timeline [--bars N] [--size WxH] [--frames F] */
#include <cairo.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "critical_path.h"
#include "timeline_render.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double p = *(const double *)a, q = *(const double *)b;
    return (p > q) - (p < q);
}

static int cmp_start(const void *a, const void *b)
{
    const pt_span *p = a, *q = b;
    return (p->start_ns > q->start_ns) - (p->start_ns < q->start_ns);
}

static const char *const labels[] = {"load.K", "mma.S.wg0", "softmax.wg0", "mma.S.wg1",
                                     "softmax.wg1"};
static const pt_seu_kind seus[] = {PT_SEU_TMA, PT_SEU_TENSOR_CORE, PT_SEU_CUDA_CORE,
                                   PT_SEU_TENSOR_CORE, PT_SEU_CUDA_CORE};

static void run(const char *what, const pt_tl_model *m, int W, int H, int frames)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
    cairo_t *cr = cairo_create(s);
    pt_tl_viewport v = {.width = W, .height = H, .selected_stask = 1, .hover_span = -1,
                        .selected_span = 1, .show_critical = true};
    pt_tl_fit(m, &v);
    double full0 = v.t0_ns, full1 = v.t1_ns;
    double *ms = malloc(sizeof(double) * (size_t)frames);
    bool verbose = getenv("PT_BENCH_VERBOSE") != NULL;
    pt_tl_stats st, sum = {0};
    for (int f = 0; f < frames; f++) {
        /* Zoom in about a wandering point for the first half, out again for the second, and
         * pan a little every frame: what Ctrl+wheel and A/D do. */
        int phase = f % 120;
        double factor = phase < 60 ? 1.12 : 1 / 1.12;
        double x = PT_TL_LABEL_W + (W - PT_TL_LABEL_W) * (0.3 + 0.4 * sin(f * 0.05) * 0.5 + 0.2);
        pt_tl_zoom(&v, factor, x);
        pt_tl_pan(&v, (f % 7 - 3) * 0.01);
        if (phase == 119) { /* back to the whole run between cycles */
            v.t0_ns = full0;
            v.t1_ns = full1;
        }
        double t0 = now_ms();
        pt_tl_render(cr, m, &v, &st);
        cairo_surface_flush(s);
        ms[f] = now_ms() - t0;
        if (verbose && ms[f] > 8)
            printf("  frame %d: %.2f ms, range %.0f ns, %lld bars, %lld merged, %lld labels, "
                   "%lld visited, %lld critical\n", f, ms[f], v.t1_ns - v.t0_ns,
                   (long long)st.bars, (long long)st.merged, (long long)st.labels,
                   (long long)st.visited, (long long)st.critical);
        sum.bars += st.bars;
        sum.merged += st.merged;
        sum.labels += st.labels;
        sum.visited += st.visited;
    }
    qsort(ms, (size_t)frames, sizeof *ms, cmp_double);
    printf("%-34s frames %d at %dx%d: median %.2f ms, p95 %.2f ms, max %.2f ms "
           "(per frame: %.0f bars, %.0f merged blocks, %.0f labels, %.0f spans visited)\n",
           what, frames, W, H, ms[frames / 2], ms[(int)(frames * 0.95)], ms[frames - 1],
           (double)sum.bars / frames, (double)sum.merged / frames, (double)sum.labels / frames,
           (double)sum.visited / frames);
    free(ms);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}

int main(int argc, char **argv)
{
    int n = 20000, W = 1600, H = 900, frames = 600;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--bars"))
            n = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--frames"))
            frames = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--size") && sscanf(argv[i + 1], "%dx%d", &W, &H) == 2)
            ;
        else {
            fprintf(stderr, "bench_timeline: unknown option %s; expected --bars N, --size WxH, "
                            "--frames F\n", argv[i]);
            return 2;
        }
    }
    if (n < 10 || frames < 20 || W < 200 || H < 100) {
        fprintf(stderr, "bench_timeline: --bars >= 10, --frames >= 20, --size >= 200x100\n");
        return 2;
    }
    /* One "iteration" = a copy, then mma + softmax on each warpgroup; gaps between them. */
    pt_span *spans = malloc(sizeof *spans * (size_t)n);
    pt_span *meas = malloc(sizeof *meas * (size_t)n);
    srand(1);
    double t = 0;
    for (int i = 0; i < n; i++) {
        int k = i % 5;
        double d = (k == 0 ? 250 : k % 2 ? 320 : 180) * (0.9 + 0.2 * rand() / (double)RAND_MAX);
        double start = t + (k == 0 ? 0 : 40 * k);
        spans[i] = (pt_span){k, k, i / 5, start, start, start + d, start + d, 0};
        meas[i] = (pt_span){k, k, i / 5, start * 1.03, start * 1.03, start * 1.03 + d * 1.1, 0, 0};
        if (k == 4)
            t += 400;
    }
    qsort(spans, (size_t)n, sizeof *spans, cmp_start);
    qsort(meas, (size_t)n, sizeof *meas, cmp_start);
    int64_t *chain = NULL;
    int64_t nc = pt_critical_path(spans, n, NULL, &chain);
    pt_tl_model m = {.n_lanes = 5, .n_spans = n, .spans = spans, .n_stasks = 5,
                     .stask_labels = labels, .stask_seu = seus, .n_measured = n / 4,
                     .measured = meas, .n_critical = nc > 0 ? nc : 0, .critical = chain};
    static const char *const lanes[] = {"tma", "tc.wg0", "cuda.wg0", "tc.wg1", "cuda.wg1"};
    for (int l = 0; l < 5; l++) {
        m.lane_names[l] = lanes[l];
        m.lane_seu[l] = seus[l];
    }
    char what[64];
    snprintf(what, sizeof what, "%d bars, one group:", n);
    run(what, &m, W, H, frames);
    m.n_groups = 4;
    for (int g = 1; g < 4; g++)
        m.group_offset_ns[g] = g * t * 0.01;
    snprintf(what, sizeof what, "%d bars x 4 lane groups:", n);
    run(what, &m, W, H, frames);
    free(chain);
    free(spans);
    free(meas);
    return 0;
}
