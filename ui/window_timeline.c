/* window_timeline.c — what PtWindow's timeline draws besides the spans: dependency arrows, the
 * critical path, measured-error colours and lane groups (several CTAs / waves). Rebuilt with
 * every model the window shows. */
#include "window_private.h"
#include "waves.h"

#include "idle.h"

/* Lane groups shown at most in the several-CTA view. */
#define PT_WINDOW_MAX_CTAS 8

void win_extras_clear(PtWindow *self)
{
    pt_span_deps_free(&self->deps);
    win_ctas_clear(self);
    g_free(self->critical);
    self->critical = NULL;
    self->n_critical = 0;
    for (int g = 0; g < PT_TL_MAX_GROUPS; g++)
        g_clear_pointer(&self->group_labels[g], g_free);
    g_clear_pointer(&self->remapped, g_ptr_array_unref);
    for (int r = 0; r < PT_TL_MAX_RINGS; r++) {
        free(self->ring_t[r]);
        free(self->ring_f[r]);
        self->ring_t[r] = NULL;
        self->ring_f[r] = NULL;
        g_clear_pointer(&self->ring_label[r], g_free);
    }
}

/* The stage-occupancy tracks of model m's rings (idle.h), one per ring, labelled with the
 * tensor (prefixed "A · " / "B · " while comparing). In the several-CTA view they cover the
 * busiest EU class's whole run, one tile's occupancy repeated per tile as the lanes are
 * (cta_pack.h): they showed the first tile only, under lanes filled for the whole run. */
static void add_rings(PtWindow *self, pt_tl_model *tm, const pt_explorer_model *m,
                      const char *prefix, const pt_cta_run *run)
{
    if (!m->have_tl || !m->have_prog)
        return;
    for (int t = 0; t < m->graph.n_tensors && t < PT_MAX_TENSORS && tm->n_rings < PT_TL_MAX_RINGS;
         t++) {
        int r = tm->n_rings, stages = 0;
        double *times = NULL;
        int *filled = NULL;
        int64_t n = pt_ring_occupancy(&m->prog, &m->sg, &m->tl, t, &times, &filled, &stages);
        if (n > 0 && run && run->tiles > 1) {
            double *rt = NULL;
            int *rf = NULL;
            int64_t rn = pt_cta_repeat_steps(times, filled, n, run->tiles, run->period_ns, &rt, &rf);
            free(times);
            free(filled);
            times = rt;
            filled = rf;
            n = rn;
        }
        if (n <= 0) {
            free(times);
            free(filled);
            continue;
        }
        self->ring_t[r] = times;
        self->ring_f[r] = filled;
        if (prefix)
            self->ring_label[r] = g_strdup_printf("%s · %s", prefix, m->graph.tensors[t].name);
        tm->ring_names[r] = prefix ? self->ring_label[r] : m->graph.tensors[t].name;
        tm->ring_stages[r] = stages;
        tm->ring_n[r] = n;
        tm->ring_t[r] = times;
        tm->ring_filled[r] = filled;
        tm->n_rings = r + 1;
    }
}

/* The rings of the shown sProgram, and while comparing those of B too (on the same time axis,
 * as its lanes). */
static void fill_rings(PtWindow *self, pt_tl_model *tm)
{
    if (self->cmp_b) {
        add_rings(self, tm, self->model, "A", NULL);
        add_rings(self, tm, self->cmp_b, "B", NULL);
        return;
    }
    const pt_cta_run *run = self->cta_run[0].n_spans > 0 ? &self->cta_run[0] : NULL;
    add_rings(self, tm, self->model, NULL, run);
}

/* Spans with their lanes as shown rows (the window keeps the copy); as they are when every lane
 * is shown. */
const pt_span *win_shown_spans(PtWindow *self, const pt_span *spans, int64_t n)
{
    const pt_explorer_model *m = self->model;
    if (!spans || n <= 0 || self->n_lanes_shown == m->prog.n_lanes)
        return spans;
    int row_of[PT_MAX_LANES];
    for (int l = 0; l < PT_MAX_LANES; l++)
        row_of[l] = -1;
    for (int r = 0; r < self->n_lanes_shown; r++)
        row_of[self->lane_shown[r]] = r;
    pt_span *c = g_memdup2(spans, (gsize)n * sizeof *spans);
    for (int64_t i = 0; i < n; i++)
        c[i].lane = c[i].lane >= 0 && c[i].lane < PT_MAX_LANES ? row_of[c[i].lane] : -1;
    if (!self->remapped)
        self->remapped = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(self->remapped, c);
    return c;
}

/* Which lanes the timeline shows: those of an sEU kind some sTask runs on, and any lane that
 * holds an sTask. */
static void choose_lanes(PtWindow *self)
{
    const pt_explorer_model *m = self->model;
    bool used[PT_SEU_COUNT] = {false};
    for (int i = 0; i < m->sg.n; i++)
        if ((int)m->sg.tasks[i].seu >= 0 && m->sg.tasks[i].seu < PT_SEU_COUNT)
            used[m->sg.tasks[i].seu] = true;
    self->n_lanes_shown = 0;
    for (int l = 0; l < m->prog.n_lanes && l < PT_MAX_LANES; l++) {
        pt_seu_kind k = m->prog.lanes[l].seu;
        bool show = m->prog.lanes[l].n > 0 || !((int)k >= 0 && k < PT_SEU_COUNT) || used[k];
        if (show)
            self->lane_shown[self->n_lanes_shown++] = l;
    }
}

int win_lane_of_row(PtWindow *self, int row)
{
    return row >= 0 && row < self->n_lanes_shown ? self->lane_shown[row] : -1;
}

/* Lane groups. Predicted: each class of EUs with its tiles back to back (window_ctas.c). A
 * trace with several sampled CTAs: one group per CTA with its measured spans, the prediction
 * offset by the wave that CTA ran in (the measured times are real: a CTA of a later wave did
 * start later). */
static void fill_groups(PtWindow *self, pt_tl_model *tm)
{
    const pt_explorer_model *m = self->model;
    if (self->cmp_b) { /* comparing: A and B as the two groups */
        win_diff_fill_groups(self, tm);
        return;
    }
    if (!self->show_ctas)
        return;
    if (!(m->have_measured && m->n_measured_ctas > 1)) {
        win_ctas_fill_groups(self, tm);
        return;
    }
    int64_t waves = m->tl.waves > 0 ? m->tl.waves : 1;
    double period = (m->tl.kernel_time_ns - pt_waves_launch_ns(&m->hw, m->tl.dram_floor_ns)) /
                    (double)waves;
    if (!(period > 0))
        period = m->tl.eu_time_ns;
    int64_t eus = m->hw.eu_count > 0 ? m->hw.eu_count : 1;
    bool persistent = m->prog.partition.persistent;
    int n = m->n_measured_ctas < PT_WINDOW_MAX_CTAS ? m->n_measured_ctas : PT_WINDOW_MAX_CTAS;
    for (int g = 0; g < n; g++) {
        int64_t b = m->cta_block[g];
        tm->group_offset_ns[g] = persistent ? 0 : (double)(b / eus) * period;
        self->group_labels[g] = g_strdup_printf("CTA %" G_GINT64_FORMAT, (gint64)b);
        if (g > 0) {
            tm->group_measured[g] = win_shown_spans(self, m->cta_measured[g], m->cta_n_measured[g]);
            tm->group_n_measured[g] = m->cta_n_measured[g];
        }
    }
    tm->n_groups = n;
    for (int g = 0; g < n; g++)
        tm->group_labels[g] = self->group_labels[g];
}

static void fill_extras(PtWindow *self, pt_tl_model *tm)
{
    const pt_explorer_model *m = self->model;
    if (pt_span_deps_build(&self->deps, &m->tl, &m->prog, &m->sg)) {
        tm->deps = &self->deps;
        int64_t n = pt_critical_path(m->tl.spans, m->tl.n_spans, &self->deps, &self->critical);
        self->n_critical = n > 0 ? n : 0;
        tm->n_critical = self->n_critical;
        tm->critical = self->critical;
    }
    if (m->have_measured) {
        tm->stask_error_pct = m->stask_error_pct;
        tm->stask_measured_ns = m->stask_measured_ns;
    }
    fill_groups(self, tm);
}

/* Give the timeline view the model's spans and everything drawn with them. */
void win_refresh_timeline(PtWindow *self)
{
    pt_explorer_model *m = self->model;
    pt_tl_model tm = {0};
    pt_timeline_view_set_model(PT_TIMELINE_VIEW(self->timeline), NULL); /* before extras go */
    win_extras_clear(self);
    choose_lanes(self);
    tm.n_lanes = self->n_lanes_shown;
    for (int r = 0; r < self->n_lanes_shown; r++) {
        tm.lane_names[r] = m->prog.lanes[self->lane_shown[r]].name;
        tm.lane_seu[r] = m->prog.lanes[self->lane_shown[r]].seu;
    }
    tm.n_spans = m->tl.n_spans;
    tm.spans = win_shown_spans(self, m->tl.spans, m->tl.n_spans);
    tm.n_stasks = m->sg.n;
    tm.stask_labels = self->labels;
    tm.stask_seu = self->stask_seu;
    tm.flagged = pt_schedule_status_flagged(&self->status);
    if (m->have_measured) {
        tm.n_measured = m->n_measured;
        tm.measured = win_shown_spans(self, m->measured, m->n_measured);
        tm.measured_stale = pt_explorer_model_measured_stale(m);
        tm.measured_partial = m->measured_partial;
    }
    /* busy % per lane, one definition (busy.h), with the measured one beside it */
    tm.have_lane_busy = m->have_tl;
    for (int r = 0; r < self->n_lanes_shown && r < PT_MAX_LANES; r++) {
        int L = self->lane_shown[r];
        tm.lane_busy_pct[r] = pt_explorer_model_lane_busy_pct(m, L);
        tm.lane_unit_pct[r] = pt_explorer_model_lane_unit_pct(m, L);
        tm.lane_measured_pct[r] = m->have_measured ? m->lane_measured_busy_pct[L] : NAN;
        tm.lane_measured_partial[r] = m->have_measured && m->lane_measured_partial[L];
    }
    fill_extras(self, &tm);
    fill_rings(self, &tm);
    if (self->keep_view)
        pt_timeline_view_update_model(PT_TIMELINE_VIEW(self->timeline), &tm);
    else
        pt_timeline_view_set_model(PT_TIMELINE_VIEW(self->timeline), &tm);
    win_search_apply(self); /* the matches of the open search, on the new sTasks */
    win_refresh_compare(self); /* the predicted-vs-measured page follows every edit */
    win_refresh_diff(self);    /* and the comparison with a second sProgram */
}
