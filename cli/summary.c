/* summary.c — the readable output of the CLI: sTask-graph tables, a text timeline with one
 * row per lane, validation reports. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "splitk.h"
#include "busy.h"
#include "idle.h"
#include "cli.h"

static char kind_char(pt_stask_kind k)
{
    static const char c[PT_ST_KIND_COUNT] = {
        [PT_ST_LOAD] = 'L',        [PT_ST_STORE] = 'S',       [PT_ST_MMA] = 'M',
        [PT_ST_SOFTMAX_MAX] = 'x', [PT_ST_SOFTMAX_EXP] = 'e', [PT_ST_SOFTMAX_SUM] = 's',
        [PT_ST_RESCALE] = 'r',     [PT_ST_NORMALIZE] = 'n',   [PT_ST_ELEMENTWISE] = 'w',
        [PT_ST_REDUCE] = 'R',      [PT_ST_DEQUANT] = 'q',     [PT_ST_CUMSUM] = 'c',
        [PT_ST_EXP_DECAY] = 'd',   [PT_ST_FILL] = 'f',        [PT_ST_CONVERT] = 'v',
    };
    return (unsigned)k < PT_ST_KIND_COUNT ? c[k] : '?';
}

static void stask_shape(const pt_stask *s, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = 0;
    for (int i = 0; i < s->rank && n + 1 < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "%s%lld", i ? "x" : "", (long long)s->tile[i]);
}

void cli_print_stask_graph(FILE *f, const cli_inputs *in)
{
    const pt_stask_graph *sg = &in->sg;
    const pt_graph *g = &in->graph;
    fprintf(f, "sTask-graph of %s: %d sTasks", g->name, sg->n);
    if (sg->loop_axis >= 0)
        fprintf(f, ", loop over \"%s\" x %lld iterations", g->axes[sg->loop_axis].name,
                (long long)sg->iterations);
    fprintf(f, ", %lld output tiles, %d consumer warpgroup%s\n", (long long)sg->tiles,
            sg->tiling.warpgroups, sg->tiling.warpgroups > 1 ? "s" : "");
    fprintf(f, "tile:");
    for (int a = 0; a < g->n_axes; a++)
        fprintf(f, " %s=%lld", g->axes[a].name, (long long)sg->tiling.tile[a]);
    fprintf(f, "\n\n  %-22s %-12s %-12s %-9s %-14s %10s %12s  %s\n", "sTask", "kind", "sEU",
            "region", "tile", "bytes", "flops", "depends on");
    for (int i = 0; i < sg->n; i++) {
        const pt_stask *s = &sg->tasks[i];
        char sh[64];
        stask_shape(s, sh, sizeof sh);
        fprintf(f, "  %-22s %-12s %-12s %-9s %-14s %10lld %12lld  ", s->id,
                pt_stask_kind_name(s->kind), pt_seu_name(s->seu), pt_region_name(s->region), sh,
                (long long)s->bytes, (long long)s->flops);
        for (int d = 0; d < s->n_deps; d++) {
            fprintf(f, "%s%s", d ? ", " : "", sg->tasks[s->deps[d].from].id);
            if (s->deps[d].distance)
                fprintf(f, "[i-%d]", s->deps[d].distance);
        }
        fputc('\n', f);
    }
}

static void fmt_time(double ns, char *out, size_t cap)
{
    if (!isfinite(ns))
        snprintf(out, cap, "? ns");
    else if (ns >= 1e6)
        snprintf(out, cap, "%.3f ms", ns / 1e6);
    else if (ns >= 1e3)
        snprintf(out, cap, "%.2f us", ns / 1e3);
    else
        snprintf(out, cap, "%.0f ns", ns);
}

/* Column of time t in a row of `width` cells over [0, span]: clamped, and 0 for NaN, so that
 * no time (however produced) can index outside the row. */
static int text_column(double t, double span, int width)
{
    double x = t / span * width;
    if (!(x >= 0)) /* negative or NaN */
        return 0;
    return x >= width ? width : (int)x;
}

/* The longest idle gaps of each lane (at most 3), each with what the lane waited for
 * (idle.h: a Wait or data dependency on which sTask and iteration, or a free stage of which
 * ring). */
static void print_idle_gaps(FILE *f, const cli_inputs *in, const pt_timeline *tl)
{
    enum { TOP = 3 };
    bool header = false;
    for (int l = 0; l < in->prog.n_lanes; l++) {
        int64_t best[TOP];
        double gap[TOP];
        int nb = 0;
        double busy_until = -HUGE_VAL;
        /* the lane's spans in issue order (they come sorted by start) */
        int64_t cnt = 0;
        for (int64_t i = 0; i < tl->n_spans; i++)
            cnt += tl->spans[i].lane == l;
        int64_t *idx = malloc(((size_t)cnt + 1) * sizeof *idx);
        if (!idx)
            return;
        int64_t k = 0;
        for (int64_t i = 0; i < tl->n_spans; i++)
            if (tl->spans[i].lane == l)
                idx[k++] = i;
        /* insertion by issue time (spans of a lane come nearly in issue order already) */
        for (int64_t a = 1; a < k; a++) {
            int64_t v = idx[a], b = a - 1;
            while (b >= 0 && tl->spans[idx[b]].issue_ns > tl->spans[v].issue_ns) {
                idx[b + 1] = idx[b];
                b--;
            }
            idx[b + 1] = v;
        }
        for (int64_t a = 0; a < k; a++) {
            const pt_span *s = &tl->spans[idx[a]];
            double g = a > 0 && s->issue_ns > busy_until ? s->issue_ns - busy_until : 0;
            if (s->end_ns > busy_until)
                busy_until = s->end_ns;
            if (!(g > 0.5))
                continue;
            int pos;
            if (nb < TOP)
                pos = nb++;
            else if (g > gap[TOP - 1])
                pos = TOP - 1;
            else
                continue;
            best[pos] = idx[a];
            gap[pos] = g;
            for (int q = pos; q > 0 && gap[q] > gap[q - 1]; q--) {
                double tg = gap[q];
                gap[q] = gap[q - 1];
                gap[q - 1] = tg;
                int64_t tb = best[q];
                best[q] = best[q - 1];
                best[q - 1] = tb;
            }
        }
        free(idx);
        for (int q = 0; q < nb; q++) {
            pt_wait_reason r;
            char why[320];
            if (!pt_span_wait_reason(&in->prog, &in->sg, tl, best[q], &r))
                continue;
            pt_wait_reason_text(&r, &in->prog, &in->sg, why, sizeof why);
            if (!header) {
                fprintf(f, "\n  longest idle gaps (what the lane waits for):\n");
                header = true;
            }
            const pt_span *s = &tl->spans[best[q]];
            fprintf(f, "  %-10s %.0f ns before %s[%lld] at %.0f ns: %s\n",
                    in->prog.lanes[l].name, gap[q], in->sg.tasks[s->stask].id,
                    (long long)s->iter, s->issue_ns, why);
        }
    }
}

void cli_print_timeline(FILE *f, const cli_inputs *in, const pt_timeline *tl, int width)
{
    char kt[32], et[32], ft[32];
    fmt_time(tl->kernel_time_ns, kt, sizeof kt);
    fmt_time(tl->eu_time_ns, et, sizeof et);
    fmt_time(tl->dram_floor_ns, ft, sizeof ft);
    char items[96] = "";
    if (tl->split_k > 1)
        snprintf(items, sizeof items, " x split-K %d = %lld work items", tl->split_k,
                 (long long)tl->work_items);
    if (tl->stream_k > 1)
        snprintf(items, sizeof items, ", stream-K over %d CTAs = %lld segments", tl->stream_k,
                 (long long)tl->work_items);
    fprintf(f, "predicted kernel time %s, %.1f TFLOP/s on %s (%lld tiles%s on %lld CTAs, %lld "
               "wave%s; memory floor %s)\n",
            kt, tl->tflops, in->hw.name, (long long)tl->tiles, items, (long long)tl->grid,
            (long long)tl->waves, tl->waves == 1 ? "" : "s", ft);
    if (tl->staged > 0) {
        char st[32];
        fmt_time(tl->staging_ns, st, sizeof st);
        fprintf(f, "staging: %d tensor%s with rows not a multiple of 16 bytes copied through "
                   "aligned buffers: %.2f MB, %s (included)\n", tl->staged,
                tl->staged == 1 ? "" : "s", tl->staging_bytes / 1e6, st);
    }
    if (tl->split_k > 1) {
        /* the chunks of the first tile, as dispatched: who stored a partial, who fixed up */
        if (pt_split_k_cluster(&in->prog))
            fprintf(f, "split-K through each tile's cluster of %d CTAs: %.1f KB of f32 partial "
                       "tiles in the leader's shared memory; first tile:", tl->split_k,
                    (double)pt_split_k_cluster_smem(&in->prog, &in->sg) / 1024);
        else
            fprintf(f, "split-K: %.2f MB of f32 partial tiles written and read back; first tile:",
                    tl->workspace_bytes / 1e6);
        for (int c = 0; c < tl->n_chunks; c++)
            fprintf(f, "%s k %d/%d iterations %lld-%lld %s", c ? "," : "", c + 1, tl->n_chunks,
                    (long long)tl->chunks[c].first_iter,
                    (long long)(tl->chunks[c].first_iter + tl->chunks[c].iters - 1),
                    tl->chunks[c].last ? "fix-up" : "partial");
        fputc('\n', f);
    }
    if (tl->stream_k > 1) {
        /* the CTAs sharing the first shared tile, in the order they arrived */
        fprintf(f, "stream-K: %.2f MB of f32 partial tiles written and read back; first shared "
                   "tile:", tl->workspace_bytes / 1e6);
        for (int c = 0; c < tl->n_chunks; c++)
            fprintf(f, "%s CTA %lld iterations %lld-%lld %s", c ? "," : "",
                    (long long)tl->chunks[c].eu, (long long)tl->chunks[c].first_iter,
                    (long long)(tl->chunks[c].first_iter + tl->chunks[c].iters - 1),
                    tl->chunks[c].last ? "fix-up" : "partial");
        fprintf(f, "%s\n", tl->n_chunks ? "" : " none (every tile has one CTA)");
    }
    fprintf(f, "one EU%s, %lld iteration%s: %s\n\n",
            tl->split_k > 1 || (tl->stream_k > 1 && tl->n_chunks > 0) ? " (the fix-up)" : "",
            (long long)tl->eu_iterations, tl->eu_iterations == 1 ? "" : "s", et);
    if (width < 20)
        width = 100;
    char *row = malloc((size_t)width + 1);
    if (!row)
        return;
    double span = tl->eu_time_ns > 0 && isfinite(tl->eu_time_ns) ? tl->eu_time_ns : 1;
    for (int l = 0; l < in->prog.n_lanes; l++) {
        memset(row, '.', (size_t)width);
        row[width] = 0;
        /* A span is issue -> completion ('-' where the unit is not working on it: queued
         * behind other work, or its latency); the unit's occupancy gets the kind's letter
         * (busy.h). */
        for (int64_t i = 0; i < tl->n_spans; i++) {
            const pt_span *s = &tl->spans[i];
            if (s->lane != l || (unsigned)s->stask >= (unsigned)in->sg.n)
                continue;
            int a = text_column(s->issue_ns, span, width), b = text_column(s->end_ns, span, width);
            for (int c = a; c < b && c < width; c++)
                if (row[c] == '.')
                    row[c] = '-';
        }
        for (int64_t i = 0; i < tl->n_spans; i++) {
            const pt_span *s = &tl->spans[i];
            if (s->lane != l || (unsigned)s->stask >= (unsigned)in->sg.n)
                continue;
            int a = text_column(s->start_ns, span, width), b = text_column(pt_span_unit_end(s), span, width);
            if (b <= a)
                b = a + 1;
            for (int c = a; c < b && c < width; c++)
                row[c] = kind_char(in->sg.tasks[s->stask].kind);
        }
        fprintf(f, "  %-10s |%s| %5.1f%% busy, unit %5.1f%%\n", in->prog.lanes[l].name, row,
                pt_timeline_lane_busy_pct(tl, l), pt_timeline_lane_occupancy_pct(tl, l));
    }
    free(row);
    print_idle_gaps(f, in, tl);
    fprintf(f, "\n  legend:");
    bool seen[PT_ST_KIND_COUNT] = {false};
    for (int i = 0; i < in->sg.n; i++)
        seen[in->sg.tasks[i].kind] = true;
    for (int k = 0; k < PT_ST_KIND_COUNT; k++)
        if (seen[k])
            fprintf(f, " %c=%s", kind_char((pt_stask_kind)k), pt_stask_kind_name((pt_stask_kind)k));
    fprintf(f, " -=issued, unit not on it (queued or latency) .=idle\n"
               "  busy: issue to completion, as the instrumented kernel stamps it; unit: the "
               "unit's own occupancy\n");
}

void cli_print_validation(FILE *f, const pt_validation *v)
{
    fprintf(f, "shared memory %lld of %lld bytes; registers %lld of %lld\n",
            (long long)v->smem_bytes, (long long)v->smem_limit, (long long)v->regs_total,
            (long long)v->regs_limit);
    for (int i = 0; i < v->n_problems; i++)
        fprintf(f, "  problem: %s\n", v->problems[i]);
}
