/* window_diff_trace.c — a profiled trace as the compared schedule B (issue 19: "open a second
 * sProgram or trace against the current one"; only sPrograms could be opened). B is then the
 * trace's own prediction (its bars, as Open shows a trace) with its measured spans under them in
 * B's lanes, and the comparison's B figures are the measured ones — the kernel time and each
 * sTask's mean span (issue -> completion, busy.h) — so Δ says how the shown schedule's prediction
 * compares with what ran. */
#include "window_private.h"

#include <math.h>

gboolean win_diff_b_is_trace(PtWindow *self)
{
    return self->cmp_b && self->cmp_b->have_measured;
}

void win_diff_free_b_measured(PtWindow *self)
{
    g_clear_pointer(&self->cmp_b_measured, g_free);
    self->cmp_b_n_measured = 0;
}

void win_diff_remap_b_measured(PtWindow *self, const int *row_of, const int *task_of)
{
    win_diff_free_b_measured(self);
    const pt_explorer_model *b = self->cmp_b;
    if (!win_diff_b_is_trace(self) || b->n_measured <= 0)
        return;
    pt_span *c = g_new(pt_span, b->n_measured);
    int64_t n = 0;
    for (int64_t i = 0; i < b->n_measured; i++) {
        pt_span s = b->measured[i];
        if (s.lane < 0 || s.lane >= b->prog.n_lanes || s.lane >= PT_MAX_LANES ||
            row_of[s.lane] < 0)
            continue; /* a lane A does not show, as B's predicted bars */
        s.lane = row_of[s.lane];
        s.stask = s.stask >= 0 && s.stask < b->sg.n ? task_of[s.stask] : -1;
        c[n++] = s;
    }
    self->cmp_b_measured = c;
    self->cmp_b_n_measured = n;
}

double win_diff_b_kernel_ns(PtWindow *self)
{
    const pt_explorer_model *b = self->cmp_b;
    if (win_diff_b_is_trace(self) && isfinite(b->measured_kernel_ns))
        return b->measured_kernel_ns;
    return b->tl.kernel_time_ns;
}

double win_diff_b_mean_ns(PtWindow *self, int i, int64_t *count)
{
    const pt_explorer_model *b = self->cmp_b;
    double predicted = pt_explorer_model_mean_ns(b, i, count);
    if (win_diff_b_is_trace(self) && b->stask_measured_ns && isfinite(b->stask_measured_ns[i]))
        return b->stask_measured_ns[i];
    return win_diff_b_is_trace(self) ? NAN : predicted; /* not measured: no figure */
}

void win_diff_append_param_note(PtWindow *self, GString *s)
{
    if (win_diff_b_is_trace(self) && !self->cmp_b->trace_own_prediction)
        g_string_append(s, " The trace does not name its graph parameters, hardware and "
                           "sProgram (written before issue 18): B's bars are the example's "
                           "defaults, its measured figures what ran.");
    const pt_graph *a = &self->model->graph, *b = &self->cmp_b->graph;
    gboolean differ = a->n_params != b->n_params;
    for (int i = 0; i < a->n_params && i < b->n_params && !differ; i++)
        differ = a->params[i].value != b->params[i].value;
    if (!differ)
        return;
    /* a trace keeps the problem size it ran at: say so, or a Δ of the size reads as the
     * schedule's */
    g_string_append(s, " B's graph parameters differ:");
    for (int i = 0; i < b->n_params; i++)
        g_string_append_printf(s, " %s=%" G_GINT64_FORMAT, b->params[i].name,
                               (gint64)b->params[i].value);
    g_string_append(s, " (A:");
    for (int i = 0; i < a->n_params; i++)
        g_string_append_printf(s, " %s=%" G_GINT64_FORMAT, a->params[i].name,
                               (gint64)a->params[i].value);
    g_string_append(s, ").");
}
