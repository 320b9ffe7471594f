/* bench_model.c — how fast the model answers an edit: partition + default sProgram +
 * validate for every example, and simulation of FlashAttention d128 at 16k keys per CTA.
 * Prints a Markdown table (median and worst of many runs, wall clock). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "embedded.h"
#include "propagate.h"
#include "scheduler.h"
#include "sim.h"
#include "sprogram.h"
#include "validate.h"

#define RUNS 200

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(const char *what, double *t, int n, double goal)
{
    qsort(t, (size_t)n, sizeof *t, cmp);
    printf("| %s | %.3f | %.3f | %.0f | %s |\n", what, t[n / 2], t[n - 1], goal,
           t[n / 2] <= goal ? "yes" : "NO");
}

static bool edit_cycle(const pt_graph *g, const pt_hw *hw)
{
    pt_tiling t;
    pt_stask_graph sg;
    pt_sprogram p;
    pt_validation v;
    pt_error e;
    pt_tiling_defaults(g, &t);
    if (!pt_partition(&sg, g, &t, &e))
        return false;
    bool ok = pt_sprogram_default(&p, &sg, hw, &e) && pt_validate(&p, &sg, hw, &v, &e);
    pt_sprogram_free(&p);
    pt_stask_graph_free(&sg);
    return ok;
}

int main(void)
{
    pt_hw hw;
    pt_error e;
    if (!pt_hw_load(&hw, "H200", &e)) {
        fprintf(stderr, "%s\n", e.msg);
        return 1;
    }
    static double t[RUNS];
    printf("| step | median ms | worst ms | goal ms | within goal |\n|---|---|---|---|---|\n");
    for (const pt_embedded_file *f = pt_embedded_examples; f->name; f++) {
        pt_graph g;
        for (int r = 0; r < RUNS; r++) {
            double t0 = now_ms();
            /* loading is part of what a GUI edit of the graph costs */
            if (!pt_graph_load_text(&g, f->name, f->text, strlen(f->text), NULL, &e) ||
                !edit_cycle(&g, &hw)) {
                fprintf(stderr, "%s: %s\n", f->name, e.msg);
                return 1;
            }
            t[r] = now_ms() - t0;
        }
        char what[128];
        snprintf(what, sizeof what, "load + partition + default sProgram + validate: %s", f->name);
        report(what, t, RUNS, 10);
    }
    /* FlashAttention d128, 16k keys per CTA: 128 iterations of tile 128. */
    const char *fa = pt_embedded_find(pt_embedded_examples, "flash_attention");
    pt_graph g;
    pt_tiling tl;
    pt_stask_graph sg;
    pt_sprogram p;
    if (!pt_graph_load_text(&g, "fa", fa, strlen(fa), "S=16384,D=128,B=1", &e)) {
        fprintf(stderr, "%s\n", e.msg);
        return 1;
    }
    pt_tiling_defaults(&g, &tl);
    if (!pt_partition(&sg, &g, &tl, &e) || !pt_sprogram_default(&p, &sg, &hw, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        return 1;
    }
    pt_timeline tim = {0};
    for (int r = 0; r < RUNS; r++) {
        double t0 = now_ms();
        if (!pt_simulate_eu(&p, &sg, &hw, sg.iterations, &tim, &e)) {
            fprintf(stderr, "%s\n", e.msg);
            return 1;
        }
        t[r] = now_ms() - t0;
        pt_timeline_free(&tim);
    }
    char what[160];
    snprintf(what, sizeof what, "simulate one EU: FlashAttention d128, %lld keys (%lld iterations, %lld sTask instances)",
             (long long)g.axes[pt_graph_find_axis(&g, "n")].extent, (long long)sg.iterations,
             (long long)pt_stask_graph_instances(&sg, sg.iterations));
    report(what, t, RUNS, 2);
    for (int causal = 0; causal < 2; causal++) {
        pt_stask_graph_free(&sg);
        pt_sprogram_free(&p);
        if (!pt_graph_load_text(&g, "fa", fa, strlen(fa), causal ? "S=16384,B=1,CAUSAL=1" : "S=16384,B=1", &e) ||
            !pt_partition(&sg, &g, &tl, &e) || !pt_sprogram_default(&p, &sg, &hw, &e))
            return 1;
        for (int r = 0; r < RUNS; r++) {
            double t0 = now_ms();
            if (!pt_simulate(&p, &sg, &hw, &tim, &e)) {
                fprintf(stderr, "%s\n", e.msg);
                return 1;
            }
            t[r] = now_ms() - t0;
            pt_timeline_free(&tim);
        }
        snprintf(what, sizeof what, "simulate whole kernel (EU + waves): FlashAttention d128 16k%s",
                 causal ? " causal" : "");
        report(what, t, RUNS, 2);
    }
    pt_stask_graph_free(&sg);
    pt_sprogram_free(&p);

    /* The automatic scheduler's full search (issue 5): goals GEMM <= 1 s, FlashAttention <= 10 s. */
    printf("\n| full schedule search | candidates | simulated | best predicted | seconds | goal s | within goal |\n"
           "|---|---|---|---|---|---|---|\n");
    struct {
        const char *name, *set;
        double goal;
    } jobs[] = {{"gemm_f16", NULL, 1}, {"gemm_bf16", "M=8192,N=8192,K=8192", 1},
                {"flash_attention", NULL, 10}, {"flash_attention", "S=16384,B=1,CAUSAL=1", 10},
                {"flash_decoding", NULL, 10}, {"mamba2_chunk_scan", NULL, 10},
                {"mamba2_chunk_state", NULL, 10}, {"gemm_w4a16", NULL, 10}};
    for (size_t j = 0; j < sizeof jobs / sizeof jobs[0]; j++) {
        const char *t = pt_embedded_find(pt_embedded_examples, jobs[j].name);
        pt_graph gg;
        if (!pt_graph_load_text(&gg, jobs[j].name, t, strlen(t), jobs[j].set, &e))
            return 1;
        pt_schedule_opts o = {.top_k = 5};
        pt_schedule_result r;
        double t0 = now_ms();
        if (!pt_schedule(&gg, &hw, &o, &r, &e)) {
            fprintf(stderr, "%s\n", e.msg);
            return 1;
        }
        double secs = (now_ms() - t0) / 1e3;
        printf("| %s%s%s | %lld | %lld | %.1f us (%s) | %.3f | %.0f | %s |\n", jobs[j].name,
               jobs[j].set ? " " : "", jobs[j].set ? jobs[j].set : "", (long long)r.seen,
               (long long)r.simulated, r.best[0].predicted_ns / 1e3, r.best[0].desc, secs,
               jobs[j].goal, secs <= jobs[j].goal ? "yes" : "NO");
        pt_schedule_result_free(&r);
    }
    return 0;
}
