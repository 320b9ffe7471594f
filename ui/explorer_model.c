/* explorer_model.c — load → partition → default sProgram → validate → simulate for the
 * explorer window (see explorer_model.h). */
#include "explorer_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "busy.h"
#include "default_tiling.h"
#include "embedded.h"
#include "json_util.h"
#include "measured.h"
#include "propagate.h"
#include "ring_reuse.h"
#include "streamk.h"
#include "timeline_json.h"
#include "validate.h"

pt_explorer_model *pt_explorer_model_new(void)
{
    return calloc(1, sizeof(pt_explorer_model));
}

struct pt_explorer_state {
    uint64_t id;            /* the model's state_id when this was current */
    pt_tiling tiling;
    pt_sprogram prog;
};

static void state_free(struct pt_explorer_state *s)
{
    if (!s)
        return;
    pt_sprogram_free(&s->prog);
    free(s);
}

static void history_clear(struct pt_explorer_state **stack, int *n)
{
    for (int i = 0; i < *n; i++)
        state_free(stack[i]);
    *n = 0;
}

static void measured_clear(pt_explorer_model *m)
{
    for (int k = 1; k < m->n_measured_ctas; k++)
        free((void *)m->cta_measured[k]);
    free(m->cta_measured);
    free(m->cta_n_measured);
    free(m->cta_block);
    m->cta_measured = NULL;
    m->cta_n_measured = m->cta_block = NULL;
    m->n_measured_ctas = 0;
    free(m->measured);
    free(m->stask_error_pct);
    free(m->stask_measured_ns);
    m->measured = NULL;
    m->stask_error_pct = m->stask_measured_ns = NULL;
    m->n_measured = 0;
    m->have_measured = false;
    m->measured_kernel_ns = m->kernel_error_pct = m->measured_overhead_pct = NAN;
    m->measured_partial = false;
    m->measured_dropped = m->measured_unpaired = 0;
    m->measured_sample[0] = '\0';
    for (int l = 0; l < PT_MAX_LANES; l++) {
        m->lane_measured_partial[l] = false;
        m->lane_measured_busy_pct[l] = NAN;
    }
}

/* Drop the overlay and the trace it came from. */
static void overlay_drop(pt_explorer_model *m)
{
    measured_clear(m);
    if (m->overlay) {
        pt_trace_free(m->overlay);
        free(m->overlay);
        m->overlay = NULL;
    }
    m->trace_own_prediction = false;
}

void pt_explorer_model_clear(pt_explorer_model *m)
{
    overlay_drop(m);
    history_clear(m->undo, &m->n_undo);
    history_clear(m->redo, &m->n_redo);
    m->dirty = false;
    m->state_id = m->saved_id = m->next_id = 0;
    m->save_path[0] = '\0';
    if (m->have_tl)
        pt_timeline_free(&m->tl);
    if (m->have_prog)
        pt_sprogram_free(&m->prog);
    if (m->have_sg)
        pt_stask_graph_free(&m->sg);
    m->have_tl = m->have_prog = m->have_sg = m->have_graph = false;
    m->source[0] = m->title[0] = m->warning[0] = '\0';
}

void pt_explorer_model_free(pt_explorer_model *m)
{
    if (!m)
        return;
    pt_explorer_model_clear(m);
    free(m);
}

bool pt_explorer_model_load(pt_explorer_model *m, const char *source, const char *hw_name,
                            pt_error *err)
{
    return pt_explorer_model_load_graph_text(m, source, NULL, hw_name, err);
}

static bool load_graph_impl(pt_explorer_model *m, const char *source, const char *graph_text,
                            const char *overrides, const char *hw_name, pt_error *err);

bool pt_explorer_model_load_graph_text(pt_explorer_model *m, const char *source,
                                       const char *graph_text, const char *hw_name,
                                       pt_error *err)
{
    return load_graph_impl(m, source, graph_text, NULL, hw_name, err);
}

/* The same with graph parameter overrides ("P=V,..." or NULL). */
static bool load_graph_impl(pt_explorer_model *m, const char *source, const char *graph_text,
                            const char *overrides, const char *hw_name, pt_error *err)
{
    pt_explorer_model_clear(m);
    struct stat st;
    const char *embedded = pt_embedded_find(pt_embedded_examples, source);
    bool ok;
    if (graph_text)
        ok = pt_graph_load_text(&m->graph, source, graph_text, strlen(graph_text), overrides,
                                err);
    else if (stat(source, &st) != 0 && embedded)
        ok = pt_graph_load_text(&m->graph, source, embedded, strlen(embedded), overrides, err);
    else
        ok = pt_graph_load_file(&m->graph, source, overrides, err);
    if (!ok)
        return false;
    m->have_graph = true;
    if (!pt_hw_load(&m->hw, hw_name ? hw_name : "H200", err))
        goto fail;
    pt_tiling t;
    pt_tiling_defaults_on(&m->graph, &m->hw, &t); /* made to fit the model (MI300X's LDS) */
    m->tiling = t;
    if (!pt_partition(&m->sg, &m->graph, &t, err))
        goto fail;
    m->have_sg = true;
    if (!pt_sprogram_default(&m->prog, &m->sg, &m->hw, err))
        goto fail;
    m->have_prog = true;
    pt_error verr = {{0}};
    if (!pt_validate(&m->prog, &m->sg, &m->hw, NULL, &verr))
        snprintf(m->warning, sizeof m->warning, "%s", verr.msg);
    if (!pt_simulate(&m->prog, &m->sg, &m->hw, &m->tl, err))
        goto fail;
    m->have_tl = true;
    snprintf(m->source, sizeof m->source, "%s", source);
    snprintf(m->title, sizeof m->title, "%s", m->graph.name);
    return true;
fail:
    pt_explorer_model_clear(m);
    return false;
}

bool pt_explorer_model_set_hw(pt_explorer_model *m, const char *hw_name, pt_error *err)
{
    pt_hw hw;
    if (!pt_hw_load(&hw, hw_name, err))
        return false;
    if (!m->have_prog) {
        m->hw = hw;
        return true;
    }
    pt_timeline tl = {0};
    if (!pt_simulate(&m->prog, &m->sg, &hw, &tl, err))
        return false;
    pt_timeline_free(&m->tl);
    m->tl = tl;
    m->have_tl = true;
    m->hw = hw;
    snprintf(m->prog.hw_name, sizeof m->prog.hw_name, "%s", hw.name);
    m->warning[0] = '\0';
    pt_error verr = {{0}};
    if (!pt_validate(&m->prog, &m->sg, &m->hw, NULL, &verr))
        snprintf(m->warning, sizeof m->warning, "%s", verr.msg);
    return true;
}

double pt_explorer_model_mean_ns(const pt_explorer_model *m, int stask, int64_t *count)
{
    double sum = 0;
    int64_t n = 0;
    if (m->have_tl)
        for (int64_t i = 0; i < m->tl.n_spans; i++)
            if (m->tl.spans[i].stask == stask) {
                sum += m->tl.spans[i].end_ns - m->tl.spans[i].issue_ns; /* busy.h's span */
                n++;
            }
    if (count)
        *count = n;
    return n ? sum / (double)n : NAN;
}

bool pt_explorer_model_measured_stale(const pt_explorer_model *m)
{
    return m->have_measured && m->state_id != m->measured_state_id;
}

double pt_explorer_model_lane_busy_pct(const pt_explorer_model *m, int lane)
{
    return m->have_tl ? pt_timeline_lane_busy_pct(&m->tl, lane) : NAN;
}

double pt_explorer_model_lane_unit_pct(const pt_explorer_model *m, int lane)
{
    return m->have_tl ? pt_timeline_lane_occupancy_pct(&m->tl, lane) : NAN;
}

/* Errors against the prediction shown, one way (pt_error_pct): per sTask the mean span of the
 * shown prediction against the measured mean, and the kernel time. */
static void refresh_errors(pt_explorer_model *m)
{
    if (!m->have_measured)
        return;
    for (int i = 0; i < m->sg.n && m->stask_error_pct; i++)
        m->stask_error_pct[i] =
            pt_error_pct(pt_explorer_model_mean_ns(m, i, NULL),
                         m->stask_measured_ns ? m->stask_measured_ns[i] : NAN);
    m->kernel_error_pct = pt_error_pct(m->tl.kernel_time_ns, m->measured_kernel_ns);
}

static bool apply_measured(pt_explorer_model *m, const pt_trace *tr, pt_error *err);
static bool overlay_take(pt_explorer_model *m, pt_trace *tr, pt_error *err);

bool pt_explorer_model_align(const pt_explorer_model *m, pt_alignment *a)
{
    memset(a, 0, sizeof *a);
    if (!m->have_measured || !m->have_tl || m->n_measured_ctas < 1)
        return false;
    /* the overlay's CTAs, already mapped to this model's sTasks and lanes */
    pt_measured tmp = {0};
    tmp.present = true;
    tmp.n_ctas = m->n_measured_ctas;
    tmp.ctas = calloc((size_t)tmp.n_ctas, sizeof *tmp.ctas);
    bool ok = tmp.ctas != NULL;
    for (int k = 0; ok && k < tmp.n_ctas; k++) {
        pt_mcta *c = &tmp.ctas[k];
        c->block = m->cta_block[k];
        c->n_spans = m->cta_n_measured[k];
        c->spans = malloc(((size_t)c->n_spans + 1) * sizeof *c->spans);
        ok = c->spans != NULL;
        for (int64_t i = 0; ok && i < c->n_spans; i++) {
            const pt_span *s = &m->cta_measured[k][i];
            c->spans[i] = (pt_mspan){s->stask, s->lane, 0, s->iter, s->start_ns, s->end_ns};
        }
    }
    tmp.kernel.plain_ms_median = m->measured_kernel_ns / 1e6;
    pt_error err = {{0}};
    ok = ok && pt_align(a, &m->tl, &tmp, m->sg.n, m->prog.n_lanes, &err);
    if (ok) { /* the sample's losses are the trace's, per lane as it said */
        a->partial = m->measured_partial;
        for (int l = 0; l < a->n_lanes && l < PT_MAX_LANES; l++)
            a->lanes[l].measured_partial = m->lane_measured_partial[l];
    }
    pt_measured_free(&tmp);
    return ok;
}

/* ---- editing ------------------------------------------------------------------------------ */

/* Validate and simulate `cand` (against *nsg when given, else m->sg). On success the model takes
 * both over (its old program, timeline and, with nsg, sTask-graph are freed); on failure both are
 * freed and the model is untouched. */
static bool install(pt_explorer_model *m, pt_sprogram *cand, pt_stask_graph *nsg,
                    const pt_tiling *tiling, pt_error *err)
{
    const pt_stask_graph *sg = nsg ? nsg : &m->sg;
    pt_timeline tl;
    bool ok = pt_validate(cand, sg, &m->hw, NULL, err) && pt_simulate(cand, sg, &m->hw, &tl, err);
    if (!ok) {
        pt_sprogram_free(cand);
        if (nsg)
            pt_stask_graph_free(nsg);
        return false;
    }
    if (m->have_tl)
        pt_timeline_free(&m->tl);
    m->tl = tl;
    m->have_tl = true;
    pt_sprogram_free(&m->prog);
    m->prog = *cand;
    if (nsg) {
        pt_stask_graph_free(&m->sg);
        m->sg = *nsg;
        /* The overlay's sTask indices may no longer hold: map it again by id and name (it
         * stays, stale, rather than being dropped). */
        pt_error e = {{0}};
        if (m->overlay && !apply_measured(m, m->overlay, &e))
            overlay_drop(m);
    }
    refresh_errors(m);
    if (tiling)
        m->tiling = *tiling;
    m->warning[0] = '\0';
    return true;
}

static struct pt_explorer_state *snapshot(const pt_explorer_model *m)
{
    struct pt_explorer_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->tiling = m->tiling;
    s->id = m->state_id;
    if (!pt_sprogram_copy(&s->prog, &m->prog)) {
        free(s);
        return NULL;
    }
    return s;
}

static void push(struct pt_explorer_state **stack, int *n, struct pt_explorer_state *s)
{
    if (*n == PT_EXPLORER_HISTORY) { /* drop the oldest */
        state_free(stack[0]);
        memmove(stack, stack + 1, (size_t)(*n - 1) * sizeof *stack);
        (*n)--;
    }
    stack[(*n)++] = s;
}

static bool begin(pt_explorer_model *m, pt_sprogram *cand, pt_error *err)
{
    if (!m->have_prog || !m->have_sg)
        return pt_fail(err, "nothing is loaded");
    if (!pt_sprogram_copy(cand, &m->prog))
        return pt_fail(err, "out of memory");
    return true;
}

/* Install cand as an edit: remember the current state for undo. */
static bool commit(pt_explorer_model *m, pt_sprogram *cand, pt_stask_graph *nsg,
                   const pt_tiling *tiling, pt_error *err)
{
    struct pt_explorer_state *old = snapshot(m);
    if (!old) {
        pt_sprogram_free(cand);
        if (nsg)
            pt_stask_graph_free(nsg);
        return pt_fail(err, "out of memory");
    }
    if (!install(m, cand, nsg, tiling, err)) {
        state_free(old);
        return false;
    }
    push(m->undo, &m->n_undo, old);
    history_clear(m->redo, &m->n_redo);
    m->state_id = ++m->next_id;
    m->dirty = m->state_id != m->saved_id;
    return true;
}

static bool check_stask(const pt_explorer_model *m, int stask, pt_error *err)
{
    if (!m->have_sg)
        return pt_fail(err, "nothing is loaded");
    if (stask < 0 || stask >= m->sg.n)
        return pt_fail(err, "no sTask is selected");
    return true;
}

bool pt_explorer_model_append(pt_explorer_model *m, int stask, int lane, int position,
                              pt_error *err)
{
    pt_sprogram c;
    if (!check_stask(m, stask, err) || !begin(m, &c, err))
        return false;
    int ol, op, offset = 0;
    if (pt_sprogram_placement(&c, stask, &ol, &op))
        offset = c.lanes[ol].entries[op].offset;
    if (!pt_append(&c, &m->sg, stask, lane, position, offset, err)) {
        pt_sprogram_free(&c);
        return false;
    }
    return commit(m, &c, NULL, NULL, err);
}

bool pt_explorer_model_set_offset(pt_explorer_model *m, int stask, int offset, pt_error *err)
{
    if (!check_stask(m, stask, err))
        return false;
    int lane, pos;
    if (!pt_sprogram_placement(&m->prog, stask, &lane, &pos))
        return pt_fail(err, "%s is not placed on a lane; Append it first", m->sg.tasks[stask].id);
    if (m->prog.lanes[lane].entries[pos].offset == offset)
        return pt_fail(err, "%s already has iteration offset %+d", m->sg.tasks[stask].id, offset);
    pt_sprogram c;
    if (!begin(m, &c, err))
        return false;
    if (!pt_append(&c, &m->sg, stask, lane, pos, offset, err)) {
        pt_sprogram_free(&c);
        return false;
    }
    return commit(m, &c, NULL, NULL, err);
}

bool pt_explorer_model_wait_add(pt_explorer_model *m, int stask, int on, int distance,
                                pt_error *err)
{
    pt_sprogram c;
    if (!check_stask(m, stask, err) || !check_stask(m, on, err))
        return false;
    if (pt_has_wait(&m->prog, stask, on, distance))
        return pt_fail(err, "%s already waits on %s (distance %d)", m->sg.tasks[stask].id,
                       m->sg.tasks[on].id, distance);
    if (!begin(m, &c, err))
        return false;
    if (!pt_wait(&c, &m->sg, stask, &on, &distance, 1, err)) {
        pt_sprogram_free(&c);
        return false;
    }
    return commit(m, &c, NULL, NULL, err);
}

bool pt_explorer_model_wait_remove(pt_explorer_model *m, int stask, int on, int distance,
                                   pt_error *err)
{
    pt_sprogram c;
    if (!check_stask(m, stask, err) || !check_stask(m, on, err))
        return false;
    if (!pt_has_wait(&m->prog, stask, on, distance))
        return pt_fail(err, "%s does not wait on %s (distance %d)", m->sg.tasks[stask].id,
                       m->sg.tasks[on].id, distance);
    if (!begin(m, &c, err))
        return false;
    pt_unwait(&c, stask, on, distance);
    return commit(m, &c, NULL, NULL, err);
}

bool pt_explorer_model_set_stages(pt_explorer_model *m, const char *tensor, int stages,
                                  pt_error *err)
{
    if (!m->have_graph)
        return pt_fail(err, "nothing is loaded");
    int t = -1;
    for (int i = 0; i < m->graph.n_tensors; i++)
        if (strcmp(m->graph.tensors[i].name, tensor) == 0)
            t = i;
    if (t < 0)
        return pt_fail(err, "no tensor '%s' in %s", tensor, m->graph.name);
    if (m->prog.stages[t] == 0)
        return pt_fail(err, "tensor '%s' is not buffered: it has no stages", tensor);
    if (stages < 1 || stages > 16)
        return pt_fail(err, "stages %d for '%s' is out of range; expected 1 to 16", stages,
                       tensor);
    pt_sprogram c;
    if (!begin(m, &c, err))
        return false;
    c.stages[t] = stages;
    return commit(m, &c, NULL, NULL, err);
}

bool pt_explorer_model_set_split_k(pt_explorer_model *m, int split_k, pt_error *err)
{
    if (!m->have_prog)
        return pt_fail(err, "nothing is loaded");
    if (split_k < 1 || split_k > PT_MAX_SPLIT_K)
        return pt_fail(err, "split-K %d is out of range; expected 1 to %d", split_k,
                       PT_MAX_SPLIT_K);
    if (pt_sprogram_split_k(&m->prog) == split_k)
        return pt_fail(err, "split-K is already %d", split_k);
    pt_sprogram c;
    if (!begin(m, &c, err))
        return false;
    c.partition.split_k = split_k; /* validated on commit: a loop to split, deep enough */
    return commit(m, &c, NULL, NULL, err);
}

bool pt_explorer_model_set_split_cluster(pt_explorer_model *m, bool cluster, pt_error *err)
{
    if (!m->have_prog)
        return pt_fail(err, "nothing is loaded");
    pt_split_reduce r = cluster ? PT_SPLIT_REDUCE_CLUSTER : PT_SPLIT_REDUCE_WORKSPACE;
    if (m->prog.partition.split_reduce == r)
        return pt_fail(err, "the split-K reduction is already through %s",
                       cluster ? "a cluster" : "the workspace");
    pt_sprogram c;
    if (!begin(m, &c, err))
        return false;
    c.partition.split_reduce = r; /* validated on commit */
    return commit(m, &c, NULL, NULL, err);
}

bool pt_explorer_model_set_stream_k(pt_explorer_model *m, int stream_k, pt_error *err)
{
    if (!m->have_prog)
        return pt_fail(err, "nothing is loaded");
    if (stream_k < 0 || stream_k == 1 || stream_k > PT_MAX_STREAM_K)
        return pt_fail(err, "stream-K %d is out of range; expected 0 (off) or 2 to %d CTAs",
                       stream_k, PT_MAX_STREAM_K);
    if (pt_sprogram_stream_k(&m->prog) == stream_k)
        return pt_fail(err, "stream-K is already %d", stream_k);
    pt_sprogram c;
    if (!begin(m, &c, err))
        return false;
    c.partition.stream_k = stream_k; /* validated on commit */
    if (stream_k > 0)
        c.partition.persistent = true; /* a stream-K grid is persistent */
    return commit(m, &c, NULL, NULL, err);
}

bool pt_explorer_model_set_run(pt_explorer_model *m, int run, pt_error *err)
{
    if (!m->have_prog)
        return pt_fail(err, "nothing is loaded");
    if (run < 1 || run > PT_MAX_RUN)
        return pt_fail(err, "runs of %d tiles are out of range; expected 1 to %d", run,
                       PT_MAX_RUN);
    if (pt_sprogram_run(&m->prog) == run)
        return pt_fail(err, "runs are already of %d tile%s", run, run == 1 ? "" : "s");
    pt_sprogram c;
    if (!begin(m, &c, err))
        return false;
    c.partition.run = run; /* validated on commit */
    if (run > 1)
        c.partition.persistent = true; /* only a persistent CTA runs several tiles */
    return commit(m, &c, NULL, NULL, err);
}

bool pt_explorer_model_set_decay(pt_explorer_model *m, pt_decay_form form, pt_error *err)
{
    if (!m->have_prog)
        return pt_fail(err, "nothing is loaded");
    if (m->prog.decay == form)
        return pt_fail(err, "the decay is already %s", pt_decay_form_name(form));
    pt_decay_chain chain;
    if (pt_decay_is_factored(form) && !pt_decay_chain_find(&m->graph, &chain, err))
        return false;
    pt_sprogram c;
    if (!begin(m, &c, err))
        return false;
    c.decay = form;
    return commit(m, &c, NULL, NULL, err);
}

bool pt_explorer_model_set_release(pt_explorer_model *m, pt_release_form form, pt_error *err)
{
    if (!m->have_prog)
        return pt_fail(err, "nothing is loaded");
    if (m->prog.release == form)
        return pt_fail(err, "the release is already %s", pt_release_form_name(form));
    pt_sprogram c;
    if (!begin(m, &c, err))
        return false;
    c.release = form;
    return commit(m, &c, NULL, NULL, err);
}

/* A retile that starts the lanes over (some sTask of the old partition is gone, as when each
 * warpgroup's store replaces the tile's one) still keeps what the user chose where the new
 * program stays valid with it: the decay's form, the rings' stages and the iteration offsets of
 * the sTasks both partitions have. */
static void carry_choices(const pt_explorer_model *m, pt_sprogram *np, const pt_stask_graph *nsg)
{
    pt_error verr = {{0}};
    pt_decay_form decay = np->decay;
    np->decay = m->prog.decay;
    if (!pt_validate(np, nsg, &m->hw, NULL, &verr))
        np->decay = decay;
    np->release = m->prog.release; /* valid in every program: it only moves releases */
    int stages[PT_MAX_TENSORS];
    memcpy(stages, np->stages, sizeof stages);
    for (int t = 0; t < PT_MAX_TENSORS; t++)
        if (m->prog.stages[t] > 0 && np->stages[t] > 0)
            np->stages[t] = m->prog.stages[t];
    if (!pt_validate(np, nsg, &m->hw, NULL, &verr))
        memcpy(np->stages, stages, sizeof stages);
    pt_sprogram before;
    if (!pt_sprogram_copy(&before, np))
        return;
    for (int l = 0; l < m->prog.n_lanes; l++)
        for (int e = 0; e < m->prog.lanes[l].n; e++) {
            const pt_lane_entry *old = &m->prog.lanes[l].entries[e];
            int s = old->offset ? pt_stask_find(nsg, m->sg.tasks[old->stask].id) : -1, nl, np_;
            if (s >= 0 && pt_sprogram_placement(np, s, &nl, &np_))
                np->lanes[nl].entries[np_].offset = old->offset;
        }
    if (!pt_validate(np, nsg, &m->hw, NULL, &verr)) {
        pt_sprogram_free(np);
        *np = before;
    } else {
        pt_sprogram_free(&before);
    }
}

bool pt_explorer_model_retile(pt_explorer_model *m, const char *spec, pt_error *err)
{
    if (!m->have_prog)
        return pt_fail(err, "nothing is loaded");
    pt_tiling t = m->tiling;
    if (!pt_tiling_parse(&m->graph, spec, "tile", &t, err))
        return false;
    /* Keep the placement: write the program with the new tiling and read it back, which
     * re-partitions and resolves the sTask ids; if some id no longer exists, start over from
     * the default sProgram of the new sTask-graph. */
    pt_sprogram c, np;
    pt_stask_graph nsg;
    if (!begin(m, &c, err))
        return false;
    c.tiling = t;
    char *json = pt_sprogram_to_json(&c, &m->sg);
    pt_sprogram_free(&c);
    if (!json)
        return pt_fail(err, "out of memory");
    pt_error lerr = {{0}};
    bool kept = pt_sprogram_load_text(&np, &nsg, &m->graph, "retile", json, strlen(json), &lerr);
    free(json);
    if (kept) {
        pt_error verr = {{0}};
        if (pt_validate(&np, &nsg, &m->hw, NULL, &verr)) {
            return commit(m, &np, &nsg, &t, err);
        }
        pt_sprogram_free(&np);
        pt_stask_graph_free(&nsg);
    }
    if (!pt_partition(&nsg, &m->graph, &t, err))
        return false;
    if (!pt_sprogram_default(&np, &nsg, &m->hw, err)) {
        pt_stask_graph_free(&nsg);
        return false;
    }
    /* the lanes start over, but the partition the user chose (grid, raster, split-K, ...) is
     * kept where the new tiling allows it */
    pt_partition_spec fresh = np.partition;
    np.partition = m->prog.partition;
    pt_error verr = {{0}};
    if (!pt_validate(&np, &nsg, &m->hw, NULL, &verr))
        np.partition = fresh;
    carry_choices(m, &np, &nsg);
    return commit(m, &np, &nsg, &t, err);
}

bool pt_explorer_model_replace_program(pt_explorer_model *m, const pt_sprogram *p,
                                       const pt_stask_graph *sg, pt_error *err)
{
    if (!m->have_prog)
        return pt_fail(err, "nothing is loaded");
    if (strcmp(p->graph_name, m->graph.name) != 0)
        return pt_fail(err, "the sProgram is for graph \"%s\" but \"%s\" is shown",
                       p->graph_name, m->graph.name);
    /* Through its JSON, as a saved file would be: re-partitions m->graph with the program's
     * tiling and resolves the sTask ids against that partition. */
    char *json = pt_sprogram_to_json(p, sg);
    if (!json)
        return pt_fail(err, "out of memory");
    pt_sprogram np;
    pt_stask_graph nsg;
    bool ok = pt_sprogram_load_text(&np, &nsg, &m->graph, "the new sProgram", json, strlen(json),
                                    err);
    free(json);
    if (!ok)
        return false;
    pt_tiling t = np.tiling;
    return commit(m, &np, &nsg, &t, err);
}

bool pt_explorer_model_can_undo(const pt_explorer_model *m)
{
    return m->n_undo > 0;
}

bool pt_explorer_model_can_redo(const pt_explorer_model *m)
{
    return m->n_redo > 0;
}

/* Make state s current; false (model unchanged) if it cannot be. */
static bool restore(pt_explorer_model *m, const struct pt_explorer_state *s, pt_error *err)
{
    pt_sprogram c;
    if (!pt_sprogram_copy(&c, &s->prog))
        return pt_fail(err, "out of memory");
    pt_stask_graph nsg, *pn = NULL;
    if (memcmp(&s->tiling, &m->tiling, sizeof s->tiling) != 0) {
        if (!pt_partition(&nsg, &m->graph, &s->tiling, err)) {
            pt_sprogram_free(&c);
            return false;
        }
        pn = &nsg;
    }
    return install(m, &c, pn, &s->tiling, err);
}

static bool step(pt_explorer_model *m, struct pt_explorer_state **from, int *nfrom,
                 struct pt_explorer_state **to, int *nto, pt_error *err)
{
    if (*nfrom == 0)
        return pt_fail(err, "nothing to undo or redo");
    struct pt_explorer_state *cur = snapshot(m);
    if (!cur)
        return pt_fail(err, "out of memory");
    if (!restore(m, from[*nfrom - 1], err)) {
        state_free(cur);
        return false;
    }
    m->state_id = from[*nfrom - 1]->id;
    state_free(from[--*nfrom]);
    push(to, nto, cur);
    m->dirty = m->state_id != m->saved_id; /* back at the saved state: not modified */
    return true;
}

bool pt_explorer_model_undo(pt_explorer_model *m, pt_error *err)
{
    return step(m, m->undo, &m->n_undo, m->redo, &m->n_redo, err);
}

bool pt_explorer_model_redo(pt_explorer_model *m, pt_error *err)
{
    return step(m, m->redo, &m->n_redo, m->undo, &m->n_undo, err);
}

/* ---- files -------------------------------------------------------------------------------- */

char *pt_explorer_model_to_json(const pt_explorer_model *m)
{
    return m->have_prog ? pt_sprogram_to_json(&m->prog, &m->sg) : NULL;
}

bool pt_explorer_model_save(pt_explorer_model *m, const char *path, pt_error *err)
{
    char *json = pt_explorer_model_to_json(m);
    if (!json)
        return pt_fail(err, "nothing to save");
    bool ok = pt_write_file(path, json, err);
    free(json);
    if (ok) {
        m->dirty = false;
        m->saved_id = m->state_id;
        snprintf(m->save_path, sizeof m->save_path, "%s", path);
    }
    return ok;
}

/* Load the embedded example whose graph (or file) name is gname. */
static bool load_embedded_named(pt_explorer_model *m, const char *gname, const char *hw_name,
                                pt_error *err)
{
    for (const pt_embedded_file *e = pt_embedded_examples; e->name; e++) {
        pt_graph probe;
        pt_error perr = {{0}};
        if (!pt_graph_load_text(&probe, e->name, e->text, strlen(e->text), NULL, &perr))
            continue;
        if (strcmp(probe.name, gname) == 0 || strcmp(e->name, gname) == 0)
            return pt_explorer_model_load(m, e->name, hw_name, err);
    }
    return false;
}

bool pt_explorer_model_load_sprogram(pt_explorer_model *m, const char *path,
                                     const char *graph_source, const char *hw_name,
                                     pt_error *err)
{
    pt_explorer_model_clear(m);
    char *text = NULL;
    size_t len = 0;
    if (!pt_read_file(path, &text, &len, err))
        return false;
    bool ok = pt_explorer_model_load_sprogram_text(m, path, text, len, graph_source, NULL,
                                                   hw_name, err);
    free(text);
    if (ok)
        snprintf(m->save_path, sizeof m->save_path, "%s", path);
    return ok;
}

bool pt_explorer_model_load_sprogram_text(pt_explorer_model *m, const char *path,
                                          const char *text, size_t len,
                                          const char *graph_source, const char *graph_text,
                                          const char *hw_name, pt_error *err)
{
    pt_explorer_model_clear(m);
    cJSON *root = pt_json_parse(path, text, len, err);
    if (!root)
        return false;
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(root, "graph");
    char gname[PT_NAME_MAX] = "";
    if (cJSON_IsString(g) && g->valuestring)
        snprintf(gname, sizeof gname, "%s", g->valuestring);
    cJSON_Delete(root);
    bool ok = false;
    if (graph_source) {
        ok = pt_explorer_model_load_graph_text(m, graph_source, graph_text, hw_name, err);
    } else {
        ok = load_embedded_named(m, gname, hw_name, err);
        if (!ok && !err->msg[0])
            pt_fail(err, "%s: its graph '%s' is not a shipped example; open the graph file "
                         "first", path, gname[0] ? gname : "(none)");
    }
    if (!ok)
        return false;
    pt_sprogram np;
    pt_stask_graph nsg;
    ok = pt_sprogram_load_text(&np, &nsg, &m->graph, path, text, len, err);
    if (!ok) {
        pt_explorer_model_clear(m);
        return false;
    }
    pt_tiling t = np.tiling;
    if (!install(m, &np, &nsg, &t, err)) {
        pt_explorer_model_clear(m);
        return false;
    }
    m->dirty = false;
    m->saved_id = m->state_id;
    return true;
}

bool pt_explorer_model_load_compare(pt_explorer_model *b, const pt_explorer_model *a,
                                    const char *path, const char *hw_name, pt_error *err)
{
    pt_explorer_model_clear(b);
    if (!a->have_graph)
        return pt_fail(err, "Cannot compare: no graph is shown");
    if (pt_explorer_is_trace_file(path)) {
        /* a profiled trace: its own prediction (graph parameters, hardware, sProgram) with its
         * measured spans over it, as Open shows it — of the shown graph only */
        if (!pt_explorer_model_load_trace(b, path, hw_name, err))
            return false;
        if (strcmp(b->graph.name, a->graph.name) != 0) {
            pt_fail(err, "Cannot compare: %s is a trace of graph '%s'; the shown sProgram is of "
                         "graph '%s'", path, b->graph.name, a->graph.name);
            pt_explorer_model_clear(b);
            return false;
        }
        snprintf(b->save_path, sizeof b->save_path, "%s", path);
        return true;
    }
    char *text = NULL;
    size_t len = 0;
    if (!pt_read_file(path, &text, &len, err))
        return false;
    cJSON *root = pt_json_parse(path, text, len, err);
    if (!root) {
        free(text);
        return false;
    }
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(root, "format");
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(root, "graph");
    char gname[PT_NAME_MAX] = "";
    if (cJSON_IsString(g) && g->valuestring)
        snprintf(gname, sizeof gname, "%s", g->valuestring);
    bool is_prog = cJSON_IsString(f) && f->valuestring &&
                   strcmp(f->valuestring, "pipethreader.sprogram") == 0;
    cJSON_Delete(root);
    if (!is_prog) {
        free(text);
        pt_fail(err, "Cannot compare: %s is not a saved sProgram", path);
        return false;
    }
    if (strcmp(gname, a->graph.name) != 0) {
        free(text);
        pt_fail(err, "Cannot compare: %s is an sProgram of graph '%s'; the shown sProgram is of "
                     "graph '%s'", path, gname[0] ? gname : "(none)", a->graph.name);
        return false;
    }
    /* a's own graph: its file when it came from one, else the shipped example of that name */
    struct stat st;
    const char *gsrc = a->source[0] && stat(a->source, &st) == 0 &&
                               !pt_explorer_is_sprogram_file(a->source) &&
                               !pt_explorer_is_trace_file(a->source)
                           ? a->source : NULL;
    bool ok = pt_explorer_model_load_sprogram_text(b, path, text, len, gsrc, NULL, hw_name, err);
    free(text);
    if (ok)
        snprintf(b->save_path, sizeof b->save_path, "%s", path);
    return ok;
}

/* The JSON of a file, or NULL (unreadable, not JSON): the sniffers below only ask. */
static cJSON *sniff_json(const char *path)
{
    char *text = NULL;
    size_t len = 0;
    pt_error err = {{0}};
    if (!pt_read_file(path, &text, &len, &err))
        return NULL;
    cJSON *root = pt_json_parse(path, text, len, &err);
    free(text);
    return root;
}

bool pt_explorer_is_sprogram_file(const char *path)
{
    return pt_file_sniff(path) == PT_FILE_SPROGRAM;
}

bool pt_explorer_sprogram_graph_embedded(const char *path)
{
    cJSON *root = sniff_json(path);
    const cJSON *g = root ? cJSON_GetObjectItemCaseSensitive(root, "graph") : NULL;
    bool yes = false;
    if (cJSON_IsString(g) && g->valuestring)
        for (const pt_embedded_file *e = pt_embedded_examples; e->name && !yes; e++) {
            pt_graph probe;
            pt_error perr = {{0}};
            yes = strcmp(e->name, g->valuestring) == 0 ||
                  (pt_graph_load_text(&probe, e->name, e->text, strlen(e->text), NULL, &perr) &&
                   strcmp(probe.name, g->valuestring) == 0);
        }
    cJSON_Delete(root);
    return yes;
}

int pt_explorer_model_drop_position(const pt_explorer_model *m, int stask, int lane, double t_ns)
{
    if (!m->have_prog || !m->have_tl || lane < 0 || lane >= m->prog.n_lanes)
        return -1;
    const pt_lane *l = &m->prog.lanes[lane];
    int k = 0;
    for (int e = 0; e < l->n; e++) {
        int s = l->entries[e].stask;
        if (s == stask)
            continue;
        double first = INFINITY;
        for (int64_t i = 0; i < m->tl.n_spans; i++)
            if (m->tl.spans[i].stask == s && m->tl.spans[i].lane == lane &&
                m->tl.spans[i].start_ns < first)
                first = m->tl.spans[i].start_ns;
        if (first > t_ns)
            return k;
        k++;
    }
    return -1;
}

/* ---- traces ------------------------------------------------------------------------------- */

static int cmp_span_start(const void *a, const void *b)
{
    const pt_span *p = a, *q = b;
    if (p->start_ns != q->start_ns)
        return p->start_ns < q->start_ns ? -1 : 1;
    return (p->lane > q->lane) - (p->lane < q->lane);
}

bool pt_explorer_is_trace_file(const char *path)
{
    return pt_file_sniff(path) == PT_FILE_TRACE;
}

/* The model's sTask index of the trace's sTask k, or -1. */
static int trace_stask(const pt_explorer_model *m, const pt_trace *tr, int k)
{
    if (k < 0 || k >= tr->n_stasks)
        return -1;
    return pt_stask_find(&m->sg, tr->stask_ids[k]);
}

static bool apply_measured(pt_explorer_model *m, const pt_trace *tr, pt_error *err);

/* The embedded example named gname (its file name or its graph's name), or NULL. */
static const char *embedded_name(const char *gname)
{
    for (const pt_embedded_file *e = pt_embedded_examples; e->name; e++) {
        pt_graph probe;
        pt_error perr = {{0}};
        if (strcmp(e->name, gname) == 0)
            return e->name;
        if (pt_graph_load_text(&probe, e->name, e->text, strlen(e->text), NULL, &perr) &&
            strcmp(probe.name, gname) == 0)
            return e->name;
    }
    return NULL;
}

/* The trace's own prediction: its graph (a shipped example) with its parameters, its hardware
 * and its sProgram (a trace with parameters only: the default sProgram of that shape),
 * simulated. False (model empty) when the trace names neither. */
static bool load_trace_prediction(pt_explorer_model *m, const pt_trace *tr, const char *hw,
                                  const char *path, pt_error *err)
{
    const char *ename = embedded_name(tr->graph);
    if (!ename || (!tr->sprogram_json && tr->n_params < 0))
        return false;
    char over[PT_MAX_PARAMS * (PT_NAME_MAX + 24)];
    pt_trace_params_text(tr, over, sizeof over);
    if (!load_graph_impl(m, ename, NULL, over[0] ? over : NULL, hw, err))
        return false;
    if (!tr->sprogram_json) /* parameters only: the default sProgram of that shape */
        return true;
    pt_sprogram np;
    pt_stask_graph nsg;
    if (!pt_sprogram_load_text(&np, &nsg, &m->graph, path, tr->sprogram_json,
                               strlen(tr->sprogram_json), err)) {
        pt_explorer_model_clear(m);
        return false;
    }
    pt_tiling t = np.tiling;
    if (!install(m, &np, &nsg, &t, err)) {
        pt_explorer_model_clear(m);
        return false;
    }
    return true;
}

bool pt_explorer_model_load_trace(pt_explorer_model *m, const char *path, const char *hw_name,
                                  pt_error *err)
{
    pt_explorer_model_clear(m);
    pt_trace *tr = calloc(1, sizeof *tr);
    if (!tr)
        return pt_fail(err, "out of memory");
    if (!pt_trace_load_file(tr, path, err)) {
        free(tr);
        return false;
    }
    pt_hw probe;
    pt_error herr = {{0}};
    const char *hw = tr->hw[0] && pt_hw_load(&probe, tr->hw, &herr) ? tr->hw : hw_name;
    /* Lay the trace over the prediction of its own graph, parameters, hardware and sProgram;
     * only a trace that does not name them falls back to the example's defaults (and says so:
     * trace_own_prediction is false). */
    pt_error perr = {{0}};
    bool own = load_trace_prediction(m, tr, hw, path, &perr);
    if (!own && perr.msg[0]) {
        pt_fail(err, "%s: cannot re-simulate the trace's own sProgram: %s", path, perr.msg);
        pt_trace_free(tr);
        free(tr);
        return false;
    }
    bool ok = own || load_embedded_named(m, tr->graph, hw, err);
    if (!ok) {
        if (!err->msg[0])
            pt_fail(err, "%s: its graph '%s' is not a shipped example; open the graph file first",
                    path, tr->graph[0] ? tr->graph : "(none)");
        pt_trace_free(tr);
        free(tr);
        return false;
    }
    if (!overlay_take(m, tr, err)) {
        pt_explorer_model_clear(m);
        return false;
    }
    m->trace_own_prediction = own;
    snprintf(m->source, sizeof m->source, "%s", path);
    return true;
}

/* Keep the sampled CTAs after the first too (for the timeline's several-CTA view): mapped by id
 * and name like CTA 0, shifted by the same amount. False when out of memory. */
static bool keep_all_ctas(pt_explorer_model *m, const pt_trace *tr, double shift)
{
    int n = tr->measured.n_ctas;
    m->cta_measured = calloc((size_t)n, sizeof *m->cta_measured);
    m->cta_n_measured = calloc((size_t)n, sizeof *m->cta_n_measured);
    m->cta_block = calloc((size_t)n, sizeof *m->cta_block);
    if (!m->cta_measured || !m->cta_n_measured || !m->cta_block)
        return false;
    m->n_measured_ctas = 1;
    m->cta_measured[0] = m->measured;
    m->cta_n_measured[0] = m->n_measured;
    m->cta_block[0] = tr->measured.ctas[0].block;
    for (int k = 1; k < n; k++) {
        const pt_mcta *c = &tr->measured.ctas[k];
        pt_span *out = calloc((size_t)(c->n_spans > 0 ? c->n_spans : 1), sizeof *out);
        if (!out)
            return false;
        int64_t j = 0;
        for (int64_t i = 0; i < c->n_spans; i++) {
            const pt_mspan *ms = &c->spans[i];
            int s = trace_stask(m, tr, ms->stask);
            int lane = ms->lane >= 0 && ms->lane < tr->n_lanes
                           ? pt_sprogram_find_lane(&m->prog, tr->lane_names[ms->lane]) : -1;
            if (s < 0 || lane < 0)
                continue;
            /* measured: issue -> completion, the unit's occupancy unknown (busy.h) */
            out[j] = (pt_span){s, lane, ms->iter, ms->start_ns + shift, ms->start_ns + shift,
                               ms->end_ns + shift, 0, 0};
            j++;
        }
        qsort(out, (size_t)j, sizeof(pt_span), cmp_span_start);
        m->cta_measured[k] = out;
        m->cta_n_measured[k] = j;
        m->cta_block[k] = c->block;
        m->n_measured_ctas = k + 1;
    }
    return true;
}

/* Fill the overlay fields from the measured side of tr (if any), mapping its sTasks and lanes
 * to the model's by id and name. Errors are computed against the shown prediction
 * (refresh_errors); the sample's partiality and per-lane measured busy % come with it. */
static bool apply_measured(pt_explorer_model *m, const pt_trace *tr, pt_error *err)
{
    measured_clear(m);
    if (!(tr->has_measured && tr->measured.present && tr->measured.n_ctas > 0))
        return true;
    const pt_mcta *c = &tr->measured.ctas[0];
    size_t n = (size_t)(c->n_spans > 0 ? c->n_spans : 1);
    size_t ns = (size_t)(m->sg.n > 0 ? m->sg.n : 1);
    m->measured = calloc(n, sizeof(pt_span));
    m->stask_error_pct = malloc(ns * sizeof(double));
    m->stask_measured_ns = malloc(ns * sizeof(double));
    int64_t *cnt = calloc(ns, sizeof *cnt);
    double *sum = calloc(ns, sizeof *sum);
    if (!m->measured || !m->stask_error_pct || !m->stask_measured_ns || !cnt || !sum) {
        free(cnt);
        free(sum);
        measured_clear(m);
        return pt_fail(err, "out of memory");
    }
    for (int i = 0; i < m->sg.n; i++)
        m->stask_error_pct[i] = m->stask_measured_ns[i] = NAN;
    double first = INFINITY;
    for (int64_t i = 0; i < c->n_spans; i++) {
        const pt_mspan *ms = &c->spans[i];
        int s = trace_stask(m, tr, ms->stask);
        int lane = ms->lane >= 0 && ms->lane < tr->n_lanes
                       ? pt_sprogram_find_lane(&m->prog, tr->lane_names[ms->lane]) : -1;
        if (s < 0 || lane < 0)
            continue;
        pt_span *o = &m->measured[m->n_measured++];
        o->stask = s;
        o->lane = lane;
        o->iter = ms->iter;
        o->issue_ns = o->start_ns = ms->start_ns;
        o->end_ns = ms->end_ns;
        o->unit_end_ns = 0; /* not measurable: the span only (busy.h) */
        if (ms->start_ns < first)
            first = ms->start_ns;
    }
    /* measured mean span per sTask over every sampled CTA, as the alignment takes it */
    for (int k = 0; k < tr->measured.n_ctas; k++)
        for (int64_t i = 0; i < tr->measured.ctas[k].n_spans; i++) {
            const pt_mspan *ms = &tr->measured.ctas[k].spans[i];
            int s = trace_stask(m, tr, ms->stask);
            if (s < 0)
                continue;
            sum[s] += ms->end_ns - ms->start_ns;
            cnt[s]++;
        }
    for (int i = 0; i < m->sg.n; i++)
        if (cnt[i])
            m->stask_measured_ns[i] = sum[i] / (double)cnt[i];
    free(sum);
    free(cnt);
    double p0 = INFINITY;
    for (int64_t i = 0; i < m->tl.n_spans; i++)
        p0 = m->tl.spans[i].issue_ns < p0 ? m->tl.spans[i].issue_ns : p0;
    double shift = m->tl.n_spans > 0 && m->n_measured > 0 ? p0 - first : 0;
    for (int64_t i = 0; i < m->n_measured; i++) {
        m->measured[i].issue_ns += shift;
        m->measured[i].start_ns += shift;
        m->measured[i].end_ns += shift;
    }
    qsort(m->measured, (size_t)m->n_measured, sizeof(pt_span), cmp_span_start);
    if (!keep_all_ctas(m, tr, shift)) {
        measured_clear(m);
        return pt_fail(err, "out of memory");
    }
    m->measured_block = c->block;
    m->trace_iterations = tr->tl.eu_iterations;
    m->measured_kernel_ns = NAN;
    m->measured_overhead_pct = tr->measured.kernel.overhead_pct; /* NaN where unknown */
    if (tr->measured.kernel.plain_ms_median > 0)
        m->measured_kernel_ns = tr->measured.kernel.plain_ms_median * 1e6;
    else if (tr->alignment.present && tr->alignment.measured_kernel_ns > 0)
        m->measured_kernel_ns = tr->alignment.measured_kernel_ns;
    /* The sample, and per-lane measured busy % (busy.h) with its partiality. */
    const pt_measured *ms = &tr->measured;
    m->measured_dropped = pt_measured_dropped(ms);
    m->measured_unpaired = pt_measured_unpaired(ms);
    m->measured_partial = pt_measured_partial(ms);
    int64_t it0 = -1, it1 = -1;
    char *o = m->measured_sample;
    size_t cap = sizeof m->measured_sample, len = 0;
#define ADD(...)                                                                             \
    do {                                                                                     \
        if (len < cap)                                                                       \
            len += (size_t)snprintf(o + len, cap - len, __VA_ARGS__);                        \
    } while (0)
    ADD("%d CTA%s (block%s", ms->n_ctas, ms->n_ctas == 1 ? "" : "s", ms->n_ctas == 1 ? "" : "s");
    for (int k = 0; k < ms->n_ctas; k++) {
        if (k < 6)
            ADD("%s%lld", k ? ", " : " ", (long long)ms->ctas[k].block);
        if (ms->ctas[k].iter_first >= 0 && (it0 < 0 || ms->ctas[k].iter_first < it0))
            it0 = ms->ctas[k].iter_first;
        if (ms->ctas[k].iter_last > it1)
            it1 = ms->ctas[k].iter_last;
    }
    ADD("%s)", ms->n_ctas > 6 ? ", ..." : "");
    if (ms->sample_grid > 0)
        ADD(" of grid %lld", (long long)ms->sample_grid);
    if (it0 >= 0)
        ADD(", iterations %lld-%lld", (long long)it0, (long long)it1);
#undef ADD
    pt_alignment al;
    pt_error aerr = {{0}};
    if (pt_align(&al, &tr->tl, ms, tr->n_stasks, tr->n_lanes, &aerr)) {
        for (int k = 0; k < al.n_lanes; k++) {
            int lane = pt_sprogram_find_lane(&m->prog, tr->lane_names[al.lanes[k].lane]);
            if (lane < 0 || lane >= PT_MAX_LANES)
                continue;
            m->lane_measured_busy_pct[lane] = al.lanes[k].measured_busy_pct;
            m->lane_measured_partial[lane] = al.lanes[k].measured_partial;
        }
        pt_alignment_free(&al);
    }
    m->have_measured = true;
    refresh_errors(m);
    return true;
}

/* Keep tr (taken over) as the model's overlay, measured on the sProgram shown now. */
static bool overlay_take(pt_explorer_model *m, pt_trace *tr, pt_error *err)
{
    overlay_drop(m);
    if (!apply_measured(m, tr, err)) {
        pt_trace_free(tr);
        free(tr);
        return false;
    }
    m->overlay = tr;
    m->measured_state_id = m->state_id;
    return true;
}

bool pt_explorer_model_overlay_trace(pt_explorer_model *m, const char *path, pt_error *err)
{
    if (!m->have_tl)
        return pt_fail(err, "%s: nothing is loaded to lay the measured trace over", path);
    pt_trace *tr = calloc(1, sizeof *tr);
    if (!tr)
        return pt_fail(err, "out of memory");
    bool ok = pt_trace_load_file(tr, path, err);
    if (ok && strcmp(tr->graph, m->graph.name) != 0)
        ok = pt_fail(err, "%s: graph \"%s\" was profiled but \"%s\" is shown now", path,
                     tr->graph, m->graph.name);
    else if (ok && !(tr->has_measured && tr->measured.present && tr->measured.n_ctas > 0))
        ok = pt_fail(err, "%s: the trace has no measured spans (expected a profiled trace)",
                     path);
    if (!ok) {
        overlay_drop(m);
        pt_trace_free(tr); /* safe on the zeroed struct a failed load leaves */
        free(tr);
        return false;
    }
    /* measured on another sProgram than the one shown (edited while it was profiled): the
     * overlay is stale from the start */
    bool other = false;
    if (tr->sprogram_json) {
        char *now = pt_explorer_model_to_json(m);
        cJSON *x = now ? cJSON_Parse(now) : NULL, *y = cJSON_Parse(tr->sprogram_json);
        other = x && y && !cJSON_Compare(x, y, true);
        cJSON_Delete(x);
        cJSON_Delete(y);
        free(now);
    }
    if (!overlay_take(m, tr, err))
        return false;
    if (other)
        m->measured_state_id = UINT64_MAX;
    return true;
}
