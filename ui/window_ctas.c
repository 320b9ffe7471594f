/* window_ctas.c — the "Several CTAs" view of a prediction (issue 19). It used to repeat the one
 * simulated tile once per wave, each group offset by its wave: a staircase in which every
 * group's rows were empty but for one wave's stretch. Now each group is a class of EUs (SMs /
 * CUs, or persistent CTAs) and shows that EU's whole run, its tiles back to back as the
 * simulator's wave period places them (cta_pack.h), so the rows are filled and what differs
 * between EUs — the tail, where the EUs with one tile fewer sit idle through the last wave — is
 * what the view shows. Dependencies, the critical path and the idle tint are repeated on every
 * tile of every class. */
#include "window_private.h"
#include "waves.h"

void win_ctas_clear(PtWindow *self)
{
    for (int k = 0; k < PT_CTA_MAX_CLASSES; k++)
        pt_cta_run_free(&self->cta_run[k]);
    win_splitk_clear(self);
}

/* "SM 0–67 (68 SMs) · 16 CTAs each", with what was left out when a run is too long to draw. */
static char *class_label(const pt_explorer_model *m, int64_t first, int64_t n, int64_t tiles,
                         const pt_cta_run *r, bool tail)
{
    bool persistent = m->prog.partition.persistent;
    const char *eu = persistent ? "CTA" : strcmp(m->hw.vendor, "amd") == 0 ? "CU" : "SM";
    GString *s = g_string_new(NULL);
    if (n == 1)
        g_string_append_printf(s, "%s %" G_GINT64_FORMAT, eu, (gint64)first);
    else
        g_string_append_printf(s, "%s %" G_GINT64_FORMAT "–%" G_GINT64_FORMAT " (%" G_GINT64_FORMAT
                               " %ss)", eu, (gint64)first, (gint64)(first + n - 1), (gint64)n, eu);
    g_string_append_printf(s, " · %" G_GINT64_FORMAT " %s%s", (gint64)tiles,
                           persistent ? "tile" : "CTA", tiles == 1 ? "" : "s");
    if (n > 1)
        g_string_append(s, " each");
    if (tail)
        g_string_append(s, ", idle in the last wave");
    if (r->tiles < tiles)
        g_string_append_printf(s, " (first %" G_GINT64_FORMAT " drawn)", (gint64)r->tiles);
    return g_string_free(s, FALSE);
}

void win_ctas_fill_groups(PtWindow *self, pt_tl_model *tm)
{
    const pt_explorer_model *m = self->model;
    win_ctas_clear(self);
    if (win_splitk_fill_groups(self, tm)) /* split-K: the chunks of a tile instead */
        return;
    bool persistent = m->prog.partition.persistent;
    int64_t eus = persistent ? m->tl.grid : m->hw.eu_count;
    int64_t first[PT_CTA_MAX_CLASSES], n[PT_CTA_MAX_CLASSES], tiles[PT_CTA_MAX_CLASSES];
    int classes = pt_cta_classes(m->tl.tiles, eus, persistent ? m->prog.partition.run : 1,
                                 first, n, tiles);
    if (classes <= 0 || tm->n_spans <= 0)
        return;
    /* The mean time between an EU's successive tiles: the kernel (less its launch) over the
     * busiest EU's tiles, as the simulator spreads it (a causal kernel's tiles differ: each is
     * drawn as the representative one). */
    double period = (m->tl.kernel_time_ns - pt_waves_launch_ns(&m->hw, m->tl.dram_floor_ns)) /
                    (double)tiles[0];
    if (!(period > 0))
        period = m->tl.eu_time_ns;
    for (int k = 0; k < classes; k++) {
        pt_cta_run *r = &self->cta_run[k];
        if (!pt_cta_run_build(r, tm->spans, tm->n_spans, tiles[k], period, tm->deps,
                              tm->critical, tm->n_critical) || r->n_spans <= 0) {
            win_ctas_clear(self);
            return; /* out of memory: the plain lanes */
        }
        self->group_labels[k] = class_label(m, first[k], n[k], tiles[k], r, k >= 1);
    }
    /* Group 0 (the EUs with the most tiles, the representative tile first) replaces the lanes'
     * spans, so hover, selection, search and the red path work there as on one tile; group 1
     * has spans of its own. */
    pt_cta_run *r0 = &self->cta_run[0];
    tm->spans = r0->spans;
    tm->n_spans = r0->n_spans;
    tm->deps = r0->deps.off ? &r0->deps : NULL;
    tm->critical = r0->critical;
    tm->n_critical = r0->n_critical;
    tm->n_groups = classes;
    for (int k = 0; k < classes; k++) {
        tm->group_offset_ns[k] = 0;
        tm->group_labels[k] = self->group_labels[k];
        /* the idle tint per tile, as on one tile (cta_pack.h) */
        tm->group_idle[k] = self->cta_run[k].idle;
        tm->group_idle_lanes[k] = self->cta_run[k].idle_lanes;
        tm->group_n_idle[k] = self->cta_run[k].tiles * self->cta_run[k].idle_lanes;
    }
    for (int k = 1; k < classes; k++) {
        pt_cta_run *rk = &self->cta_run[k];
        tm->group_spans[k] = rk->spans;
        tm->group_n_spans[k] = rk->n_spans;
        tm->group_deps[k] = rk->deps.off ? &rk->deps : NULL;
        tm->group_critical[k] = rk->critical; /* its red path too, not group 0's alone */
        tm->group_n_critical[k] = rk->n_critical;
    }
}
