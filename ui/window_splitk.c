/* window_splitk.c — the "Several CTAs" view of a split-K program (partition.split_k,
 * splitk.h): the chunks of the first tile launched, one lane group each, as the simulator
 * dispatched them. Group 0 is the chunk that did the fix-up: the last to arrive, or a
 * cluster's leader (partition.split_k_reduce cluster). It is the main timeline's representative
 * EU, so hover, selection, rings and the red path stay as on one EU; the others follow in k
 * order, each with its own spans (its shorter loop ending in a partial store), dependencies
 * and critical path, offset by when its EU began it. Each group is labelled "tile 0 · k 2/4 ·
 * iterations 16–31 · partial store". A stream-K program (partition.stream_k, streamk.h) shows
 * the same way the CTAs sharing its first shared tile, each with its part of that tile's loop:
 * "stream-K tile · CTA 3 · iterations 11–57 · ...". */
#include "window_private.h"

void win_splitk_clear(PtWindow *self)
{
    for (int g = 0; g < PT_MAX_SPLIT_K; g++) {
        pt_timeline_free(&self->chunk_tl[g]);
        pt_span_deps_free(&self->chunk_deps[g]);
        free(self->chunk_critical[g]);
        self->chunk_critical[g] = NULL;
        self->chunk_n_critical[g] = 0;
    }
}

static char *chunk_label(const pt_timeline *k, int c)
{
    const pt_chunk_info *ci = &k->chunks[c];
    if (k->stream_k > 1)
        return g_strdup_printf("first shared tile · CTA %" G_GINT64_FORMAT " (one of %d) · "
                               "iterations %" G_GINT64_FORMAT "–%" G_GINT64_FORMAT " · %s",
                               (gint64)ci->eu, k->n_chunks, (gint64)ci->first_iter,
                               (gint64)(ci->first_iter + ci->iters - 1),
                               ci->last ? "last to arrive: fix-up (adds the others' partial tiles)"
                                        : "partial tile to its workspace slot");
    const char *role = k->split_cluster
                           ? (ci->last ? "cluster leader: fix-up once all have arrived (adds the "
                                         "others' partial tiles from its shared memory)"
                                       : "partial tile to the leader's shared memory")
                           : (ci->last ? "last to arrive: fix-up (adds the others' partial tiles)"
                                       : "partial tile to the workspace");
    return g_strdup_printf("tile 0 · k %d/%d · iterations %" G_GINT64_FORMAT "–%" G_GINT64_FORMAT
                           " · %s · EU %" G_GINT64_FORMAT, c + 1, k->n_chunks,
                           (gint64)ci->first_iter, (gint64)(ci->first_iter + ci->iters - 1),
                           role, (gint64)ci->eu);
}

/* Group g shows chunk c of the first tile: simulated as the kernel dispatched it. */
static gboolean add_chunk(PtWindow *self, pt_tl_model *tm, int g, int c, double base_ns)
{
    const pt_explorer_model *m = self->model;
    pt_error err = {{0}};
    pt_timeline *ct = &self->chunk_tl[g];
    if (!pt_simulate_split_k_chunk(&m->prog, &m->sg, &m->hw, &m->tl, c, ct, &err))
        return FALSE;
    if (pt_span_deps_build(&self->chunk_deps[g], ct, &m->prog, &m->sg)) {
        tm->group_deps[g] = &self->chunk_deps[g];
        int64_t n = pt_critical_path(ct->spans, ct->n_spans, &self->chunk_deps[g],
                                     &self->chunk_critical[g]);
        self->chunk_n_critical[g] = n > 0 ? n : 0;
        tm->group_critical[g] = self->chunk_critical[g];
        tm->group_n_critical[g] = self->chunk_n_critical[g];
    }
    tm->group_spans[g] = win_shown_spans(self, ct->spans, ct->n_spans);
    tm->group_n_spans[g] = ct->n_spans;
    tm->group_offset_ns[g] = m->tl.chunks[c].start_ns - base_ns;
    return TRUE;
}

gboolean win_splitk_fill_groups(PtWindow *self, pt_tl_model *tm)
{
    const pt_explorer_model *m = self->model;
    const pt_timeline *k = &m->tl;
    if ((k->split_k <= 1 && k->stream_k <= 1) || k->n_chunks < 2 ||
        k->n_chunks > PT_TL_MAX_GROUPS)
        return FALSE;
    int last = k->n_chunks - 1;
    for (int c = 0; c < k->n_chunks; c++)
        if (k->chunks[c].last)
            last = c;
    double base = k->chunks[last].start_ns;
    self->group_labels[0] = chunk_label(k, last);
    int g = 1;
    for (int c = 0; c < k->n_chunks; c++) {
        if (c == last)
            continue;
        if (!add_chunk(self, tm, g, c, base)) {
            win_splitk_clear(self);
            for (int h = 0; h < g; h++)
                g_clear_pointer(&self->group_labels[h], g_free);
            for (int h = 1; h < g; h++) {
                tm->group_spans[h] = NULL;
                tm->group_n_spans[h] = 0;
                tm->group_deps[h] = NULL;
                tm->group_critical[h] = NULL;
                tm->group_n_critical[h] = 0;
            }
            return FALSE; /* out of memory: the EU classes instead */
        }
        self->group_labels[g++] = chunk_label(k, c);
    }
    tm->n_groups = g;
    for (int h = 0; h < g; h++)
        tm->group_labels[h] = self->group_labels[h];
    return TRUE;
}
