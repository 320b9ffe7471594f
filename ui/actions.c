/* actions.c — the explorer's long-running Actions, their dialogs, the Preferences and the Code
 * page (see actions.h). The search and Compile & Profile run as jobs (jobs.h) on their own
 * copies of the graph, hardware and sProgram, so the user can go on looking and editing; their
 * results are applied on the UI thread, to the model that is shown then. */
#include "actions.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chrome.h"
#include "backend.h"
#include "code_view.h"
#include "codegen.h"
#include "jobs.h"
#include "json_util.h"
#include "measure.h"
#include "measured.h"
#include "runner.h"
#include "scheduler.h"
#include "timeline_json.h"
#include "validate.h"
#include "window.h"

typedef struct {
    PtWindow *win;             /* NULL once the window is destroyed */
    pt_jobs *jobs;
    GtkWidget *code;
    pt_prefs prefs;
    char *prefs_error;         /* a malformed preferences file, shown with the first model */
    /* The last search's candidates, for the graph they were searched for (their sTask-graphs
     * point into cands_graph). */
    pt_schedule_result cands;
    pt_graph *cands_graph;
    char cands_source[1024];
    int applied;               /* index of the candidate put in place, -1: none */
    /* The Auto-schedule dialog (NULL until first shown). */
    GtkWidget *sd, *sd_budget, *sd_unit, *sd_topk, *sd_sm90a, *sd_list, *sd_status;
    const pt_backend *sd_target; /* the target the filter check was last set for */
    bool sd_target_known;
} pt_actions;

static pt_actions *get(PtWindow *win)
{
    return g_object_get_data(G_OBJECT(win), "pt-actions");
}

static pt_explorer_model *model(pt_actions *st)
{
    return pt_window_get_model(st->win);
}

/* A failure: the banner (one line) and the log. */
static void fail(pt_actions *st, const char *what, const char *msg)
{
    char *line = g_strdup_printf("%s: %s", what, msg);
    pt_jobs_log(st->jobs, "%s", line);
    pt_window_show_error(st->win, line);
    g_free(line);
}

static gboolean loaded(pt_actions *st, const char *what)
{
    pt_explorer_model *m = model(st);
    if (m->have_prog && m->have_tl)
        return TRUE;
    fail(st, what, "nothing is loaded; open a graph first");
    return FALSE;
}

/* ---- Auto-schedule ------------------------------------------------------------------------- */

typedef struct {
    pt_actions *st;            /* UI thread only (done runs only while the window lives) */
    pt_job *job;
    pt_graph *graph;
    pt_hw hw;
    double budget_s;
    int64_t budget_candidates;
    int top_k;
    const pt_backend *target; /* NULL: any valid sProgram; else only what it generates */
    pt_decay_form decay;      /* the program's: a search keeps the decay form the user chose */
    gboolean ragged;          /* win.auto-schedule-ragged: warpgroups not dividing a batch axis */
    char source[1024];
    pt_schedule_result r;
    gboolean have_r;
} search_job;

static void search_job_free(void *p)
{
    search_job *sj = p;
    if (sj->have_r)
        pt_schedule_result_free(&sj->r);
    g_free(sj->graph);
    g_free(sj);
}

static void search_progress(void *ctx, int64_t seen, int64_t total, double best_ns)
{
    search_job *sj = ctx;
    char text[160];
    if (best_ns > 0)
        snprintf(text, sizeof text, "%lld of %lld candidates, best %.1f µs", (long long)seen,
                 (long long)total, best_ns / 1e3);
    else
        snprintf(text, sizeof text, "%lld of %lld candidates", (long long)seen, (long long)total);
    double f = total > 0 ? (double)seen / (double)total : -1;
    if (sj->budget_candidates > 0 && total > sj->budget_candidates)
        f = (double)seen / (double)sj->budget_candidates;
    pt_job_progress(sj->job, f, text);
}

static bool search_accept(void *ctx, const pt_sprogram *p, const pt_stask_graph *sg,
                          const pt_hw *hw, pt_error *why)
{
    search_job *sj = ctx;
    return !sj->target || sj->target->accepts(p, sg, hw, why);
}

static bool search_stop(void *ctx, int64_t seen)
{
    search_job *sj = ctx;
    return pt_job_cancelled(sj->job) ||
           (sj->budget_candidates > 0 && seen >= sj->budget_candidates);
}

static bool search_run(pt_job *job, void *data, pt_error *err)
{
    search_job *sj = data;
    sj->job = job;
    char what[80];
    snprintf(what, sizeof what, "the %s code generator", sj->target ? sj->target->name : "");
    pt_schedule_opts so = {.top_k = sj->top_k, .budget_s = sj->budget_s,
                           .progress = search_progress, .accept = search_accept,
                           .accept_what = what, .stop = search_stop, .ctx = sj,
                           .decay = sj->decay, .ragged_batch = sj->ragged};
    char budget[64];
    if (sj->budget_s > 0)
        snprintf(budget, sizeof budget, "%g seconds", sj->budget_s);
    else if (sj->budget_candidates > 0)
        snprintf(budget, sizeof budget, "%lld candidates", (long long)sj->budget_candidates);
    else
        snprintf(budget, sizeof budget, "none (the whole space)");
    pt_job_log(job, "searching %s on %s: top %d, budget %s", sj->graph->name, sj->hw.name,
               sj->top_k, budget);
    /* the explorer edits one instance of the graph, so a split graph keeps its count here */
    const pt_graph *g = sj->graph;
    int sp = g->split_param[0] ? pt_graph_find_param(g, g->split_param) : -1;
    if (sp >= 0)
        pt_job_log(job, "%s = %lld as loaded: the explorer keeps the graph's split count; "
                        "pipethreader-cli schedule searches it together with the %s kernel "
                        "each count implies%s%s%s",
                   g->split_param, (long long)g->params[sp].value, g->split_combine,
                   g->split_unsplit[0] ? ", and weighs the one-pass graph " : "",
                   g->split_unsplit, g->split_unsplit[0] ? " (open it to explore that kernel)" : "");
    pt_decay_chain chain;
    pt_error chain_err = {{0}};
    if (sj->decay != PT_DECAY_TILE)
        pt_job_log(job, "every candidate with the decay %s, as the program has it",
                   pt_decay_form_name(sj->decay));
    else if (pt_decay_chain_find(sj->graph, &chain, &chain_err))
        pt_job_log(job, "every candidate with the decay as a tile, as the program has it; "
                        "pipethreader-cli schedule also tries each with the decay factored and "
                        "factored16 (\"Factored decay\" and \"16-bit factor\" switch this "
                        "program's)");
    if (sj->ragged)
        pt_job_log(job, "also trying warpgroup counts that do not divide a batch axis (the last "
                        "tile ragged, charged in full)");
    if (!pt_schedule(sj->graph, &sj->hw, &so, &sj->r, err))
        return false;
    sj->have_r = true;
    if (pt_job_cancelled(job))
        return pt_fail(err, "cancelled");
    const pt_schedule_result *r = &sj->r;
    pt_job_log(job, "searched %lld of %lld candidates in %.3f s%s: %lld pruned (memory, "
                    "registers, shapes%s%s), %lld by the roofline bound, %lld simulated",
               (long long)r->seen, (long long)r->total, r->elapsed_s,
               r->budget_hit ? " (budget reached)" : "", (long long)r->pruned_invalid,
               sj->target ? ", not generated by " : "", sj->target ? sj->target->name : "",
               (long long)r->pruned_bound,
               (long long)r->simulated);
    for (int i = 0; i < r->n; i++)
        pt_job_log(job, "  #%d  %9.1f µs  %7.1f TFLOP/s  %s", i + 1, r->best[i].predicted_ns / 1e3,
                   r->best[i].tflops, r->best[i].desc);
    return true;
}

static void update_candidate_list(pt_actions *st);

/* Put candidate i of the last search in place of the sProgram (an undoable edit). */
static gboolean apply_candidate(pt_actions *st, int i)
{
    pt_explorer_model *m = model(st);
    if (st->cands.n == 0)
        return fail(st, "Auto-schedule", "no search has run yet"), FALSE;
    if (i < 0 || i >= st->cands.n) {
        char *msg = g_strdup_printf("candidate %d does not exist; expected 1 to %d", i + 1,
                                    st->cands.n);
        fail(st, "Auto-schedule", msg);
        g_free(msg);
        return FALSE;
    }
    if (!m->have_prog || strcmp(m->source, st->cands_source) != 0) {
        fail(st, "Auto-schedule", "the candidates were searched for another graph; run the "
                                  "search again");
        return FALSE;
    }
    pt_error err = {{0}};
    const pt_schedule_candidate *c = &st->cands.best[i];
    if (!pt_explorer_model_replace_program(m, &c->prog, &c->sg, &err)) {
        char *msg = g_strdup_printf("candidate #%d (%s): %s", i + 1, c->desc, err.msg);
        fail(st, "Auto-schedule", msg);
        g_free(msg);
        return FALSE;
    }
    st->applied = i;
    pt_jobs_log(st->jobs, "Auto-schedule: candidate #%d in place (%s, predicted %.1f µs); Undo "
                          "restores the previous sProgram", i + 1, c->desc, c->predicted_ns / 1e3);
    pt_window_refresh(st->win);
    update_candidate_list(st);
    return TRUE;
}

static void search_done(pt_jobs *jobs, void *data, bool ok, bool cancelled, const char *error)
{
    (void)jobs;
    search_job *sj = data;
    pt_actions *st = sj->st;
    if (st->sd_status)
        gtk_label_set_text(GTK_LABEL(st->sd_status),
                           ok ? "" : cancelled ? "Search cancelled; the sProgram is unchanged."
                                               : error);
    if (!ok) {
        if (!cancelled)
            fail(st, "Auto-schedule", error);
        return;
    }
    if (st->cands.best)
        pt_schedule_result_free(&st->cands);
    g_free(st->cands_graph);
    st->cands = sj->r; /* taken over, with the graph its sTask-graphs point into */
    st->cands_graph = sj->graph;
    sj->have_r = FALSE;
    sj->graph = NULL;
    g_strlcpy(st->cands_source, sj->source, sizeof st->cands_source);
    st->applied = -1;
    g_simple_action_set_enabled(
        G_SIMPLE_ACTION(g_action_map_lookup_action(G_ACTION_MAP(st->win), "schedule-apply")),
        TRUE);
    if (st->sd_status) {
        char *t = g_strdup_printf("Searched %lld of %lld candidates in %.2f s%s. The best is in "
                                  "place (Undo restores yours); pick another below.",
                                  (long long)st->cands.seen, (long long)st->cands.total,
                                  st->cands.elapsed_s,
                                  st->cands.budget_hit ? " (budget reached)" : "");
        gtk_label_set_text(GTK_LABEL(st->sd_status), t);
        g_free(t);
    }
    if (!apply_candidate(st, 0))
        update_candidate_list(st);
}

static void action_schedule_apply(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    apply_candidate(get(PT_WINDOW(data)), g_variant_get_int32(p));
}

static void action_schedule_run(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    pt_actions *st = get(PT_WINDOW(data));
    if (!loaded(st, "Auto-schedule"))
        return;
    pt_explorer_model *m = model(st);
    search_job *sj = g_new0(search_job, 1);
    gint64 cands;
    gint32 top;
    gboolean sm90a;
    g_variant_get(p, "(dxib)", &sj->budget_s, &cands, &top, &sm90a);
    sj->st = st;
    sj->budget_candidates = cands;
    sj->top_k = top < 1 ? 1 : top > 64 ? 64 : top;
    /* the generator of the hardware shown (the flag keeps its name from the first target) */
    sj->target = sm90a ? pt_backend_for_arch(m->hw.arch) : NULL;
    /* Flat structs: a plain copy is a deep one, so the worker owns its inputs. */
    sj->graph = g_memdup2(&m->graph, sizeof m->graph);
    sj->hw = m->hw;
    sj->decay = m->prog.decay;
    GVariant *ragged = g_action_group_get_action_state(G_ACTION_GROUP(st->win),
                                                       "auto-schedule-ragged");
    sj->ragged = ragged && g_variant_get_boolean(ragged);
    if (ragged)
        g_variant_unref(ragged);
    g_strlcpy(sj->source, m->source, sizeof sj->source);
    if (st->sd_status)
        gtk_label_set_text(GTK_LABEL(st->sd_status), "Searching…");
    pt_error err = {{0}};
    if (!pt_jobs_start(st->jobs, "Auto-schedule", search_run, search_done, sj, search_job_free,
                       &err))
        fail(st, "Auto-schedule", err.msg);
}

/* The dialog. */

static void update_candidate_list(pt_actions *st)
{
    if (!st->sd_list)
        return;
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(st->sd_list)))
        gtk_list_box_remove(GTK_LIST_BOX(st->sd_list), child);
    for (int i = 0; i < st->cands.n; i++) {
        const pt_schedule_candidate *c = &st->cands.best[i];
        /* The mark first: the description may be ellipsized. */
        char *text = g_strdup_printf("%s #%d   %.1f µs   %.0f TFLOP/s   %s",
                                     i == st->applied ? "✔" : "  ", i + 1, c->predicted_ns / 1e3,
                                     c->tflops, c->desc);
        GtkWidget *label = gtk_label_new(text);
        char *tip = g_strdup_printf("%s%s", c->desc, i == st->applied ? " (in place)"
                                                     : " (activate to put it in place)");
        gtk_widget_set_tooltip_text(label, tip);
        g_free(tip);
        g_free(text);
        gtk_label_set_xalign(GTK_LABEL(label), 0);
        gtk_label_set_ellipsize(GTK_LABEL(label), PANGO_ELLIPSIZE_END);
        gtk_widget_set_margin_start(label, 8);
        gtk_widget_set_margin_end(label, 8);
        gtk_widget_set_margin_top(label, 4);
        gtk_widget_set_margin_bottom(label, 4);
        if (i == st->applied)
            gtk_widget_add_css_class(label, "heading");
        gtk_list_box_append(GTK_LIST_BOX(st->sd_list), label);
    }
}

static void on_candidate_activated(GtkListBox *box, GtkListBoxRow *row, gpointer data)
{
    (void)box;
    pt_actions *st = data;
    int i = gtk_list_box_row_get_index(row);
    if (i != st->applied)
        apply_candidate(st, i);
}

static void on_search_clicked(GtkButton *b, gpointer data)
{
    (void)b;
    pt_actions *st = data;
    double budget = gtk_spin_button_get_value(GTK_SPIN_BUTTON(st->sd_budget));
    gboolean by_count = gtk_drop_down_get_selected(GTK_DROP_DOWN(st->sd_unit)) == 1;
    GVariant *p = g_variant_new("(dxib)", by_count ? 0.0 : budget,
                                (gint64)(by_count ? budget : 0),
                                gtk_spin_button_get_value_as_int(GTK_SPIN_BUTTON(st->sd_topk)),
                                gtk_check_button_get_active(GTK_CHECK_BUTTON(st->sd_sm90a)));
    g_action_group_activate_action(G_ACTION_GROUP(st->win), "auto-schedule-run", p);
}

static void on_dialog_cancel(GtkButton *b, gpointer data)
{
    (void)b;
    pt_actions *st = data;
    if (pt_jobs_busy(st->jobs))
        pt_jobs_cancel(st->jobs);
    else
        gtk_window_close(GTK_WINDOW(st->sd));
}

static GtkWidget *grid_label(const char *text, GtkWidget *target)
{
    GtkWidget *l = gtk_label_new_with_mnemonic(text);
    gtk_label_set_xalign(GTK_LABEL(l), 1);
    gtk_label_set_mnemonic_widget(GTK_LABEL(l), target);
    return l;
}

/* The generator filter follows the hardware shown: named after its target, on by default
 * where one exists (the pick should compile), off and insensitive where none does. A user's
 * choice stands until the target changes. */
static void refresh_target_check(pt_actions *st)
{
    const pt_backend *be = pt_backend_for_arch(model(st)->hw.arch);
    char *only = g_strdup_printf("Only sPrograms the %s code _generator accepts",
                                 be ? be->name : "(none)");
    gtk_check_button_set_label(GTK_CHECK_BUTTON(st->sd_sm90a), only);
    gtk_check_button_set_use_underline(GTK_CHECK_BUTTON(st->sd_sm90a), TRUE);
    g_free(only);
    if (!st->sd_target_known || be != st->sd_target) {
        gtk_check_button_set_active(GTK_CHECK_BUTTON(st->sd_sm90a), be != NULL);
        st->sd_target = be;
        st->sd_target_known = true;
    }
    gtk_widget_set_sensitive(st->sd_sm90a, be != NULL);
    gtk_widget_set_tooltip_text(st->sd_sm90a,
                                be ? "So that the result can be compiled and profiled"
                                   : "No code generator targets this hardware model");
}

static void build_schedule_dialog(pt_actions *st)
{
    GtkWidget *w = gtk_window_new();
    gtk_window_set_title(GTK_WINDOW(w), "Auto-schedule");
    gtk_window_set_transient_for(GTK_WINDOW(w), GTK_WINDOW(st->win));
    gtk_window_set_destroy_with_parent(GTK_WINDOW(w), TRUE);
    gtk_window_set_hide_on_close(GTK_WINDOW(w), TRUE);
    gtk_window_set_default_size(GTK_WINDOW(w), 620, 460);
    GtkWidget *header = gtk_header_bar_new();
    gtk_header_bar_set_show_title_buttons(GTK_HEADER_BAR(header), FALSE);
    GtkWidget *close = gtk_button_new_with_mnemonic("_Close");
    g_signal_connect(close, "clicked", G_CALLBACK(on_dialog_cancel), st);
    gtk_widget_set_tooltip_text(close, "Cancel a running search, else close");
    gtk_header_bar_pack_start(GTK_HEADER_BAR(header), close);
    GtkWidget *search = gtk_button_new_with_mnemonic("_Search");
    gtk_widget_add_css_class(search, "suggested-action");
    g_signal_connect(search, "clicked", G_CALLBACK(on_search_clicked), st);
    gtk_header_bar_pack_end(GTK_HEADER_BAR(header), search);
    gtk_window_set_titlebar(GTK_WINDOW(w), header);
    gtk_window_set_default_widget(GTK_WINDOW(w), search);

    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 10);
    gtk_widget_set_margin_start(box, 18);
    gtk_widget_set_margin_end(box, 18);
    gtk_widget_set_margin_top(box, 12);
    gtk_widget_set_margin_bottom(box, 12);
    GtkWidget *intro = gtk_label_new("Searches tile shapes, consumer warpgroups, stages, "
                                     "look-ahead, ping-pong and grids, scores each by the "
                                     "simulator and puts the best in place of the sProgram.");
    gtk_label_set_wrap(GTK_LABEL(intro), TRUE);
    gtk_label_set_xalign(GTK_LABEL(intro), 0);
    gtk_widget_add_css_class(intro, "dim-label");
    gtk_box_append(GTK_BOX(box), intro);

    GtkWidget *grid = gtk_grid_new();
    gtk_grid_set_row_spacing(GTK_GRID(grid), 8);
    gtk_grid_set_column_spacing(GTK_GRID(grid), 12);
    st->sd_budget = gtk_spin_button_new_with_range(0, 1e7, 1);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(st->sd_budget), 10);
    gtk_widget_set_tooltip_text(st->sd_budget, "0: search the whole space");
    static const char *const units[] = {"seconds", "candidates", NULL};
    st->sd_unit = gtk_drop_down_new_from_strings(units);
    gtk_accessible_update_property(GTK_ACCESSIBLE(st->sd_unit), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   "Budget unit", -1);
    GtkWidget *budget_box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    gtk_box_append(GTK_BOX(budget_box), st->sd_budget);
    gtk_box_append(GTK_BOX(budget_box), st->sd_unit);
    gtk_grid_attach(GTK_GRID(grid), grid_label("_Budget", st->sd_budget), 0, 0, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), budget_box, 1, 0, 1, 1);
    st->sd_topk = gtk_spin_button_new_with_range(1, 20, 1);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(st->sd_topk), 5);
    gtk_widget_set_halign(st->sd_topk, GTK_ALIGN_START);
    gtk_grid_attach(GTK_GRID(grid), grid_label("_Top k", st->sd_topk), 0, 1, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), st->sd_topk, 1, 1, 1, 1);
    st->sd_sm90a = gtk_check_button_new_with_mnemonic("");
    gtk_grid_attach(GTK_GRID(grid), st->sd_sm90a, 1, 2, 1, 1);
    /* bound to a window action, so that the choice outlives the dialog and tests can set it */
    GtkWidget *ragged = gtk_check_button_new_with_mnemonic("Also try _ragged warpgroup splits");
    gtk_actionable_set_action_name(GTK_ACTIONABLE(ragged), "win.auto-schedule-ragged");
    gtk_widget_set_tooltip_text(ragged, "Warpgroup counts that do not divide a batch axis (three "
                                        "warpgroups on 64 heads: the last tile one head short, "
                                        "charged in full). Untimed on a GPU so far, so off by "
                                        "default");
    gtk_grid_attach(GTK_GRID(grid), ragged, 1, 3, 1, 1);
    gtk_box_append(GTK_BOX(box), grid);

    st->sd_status = gtk_label_new(NULL);
    gtk_label_set_wrap(GTK_LABEL(st->sd_status), TRUE);
    gtk_label_set_xalign(GTK_LABEL(st->sd_status), 0);
    gtk_box_append(GTK_BOX(box), st->sd_status);
    st->sd_list = gtk_list_box_new();
    gtk_list_box_set_activate_on_single_click(GTK_LIST_BOX(st->sd_list), FALSE);
    gtk_widget_add_css_class(st->sd_list, "boxed-list");
    gtk_accessible_update_property(GTK_ACCESSIBLE(st->sd_list), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   "Candidates (activate one to put it in place)", -1);
    g_signal_connect(st->sd_list, "row-activated", G_CALLBACK(on_candidate_activated), st);
    GtkWidget *scroll = gtk_scrolled_window_new();
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroll), st->sd_list);
    gtk_widget_set_vexpand(scroll, TRUE);
    gtk_box_append(GTK_BOX(box), scroll);
    gtk_window_set_child(GTK_WINDOW(w), box);
    st->sd = w;
    if (st->cands.n > 0) {
        char *t = g_strdup_printf("The last search found %d candidates; ✔ marks the one in "
                                  "place. Activate another to put it in place.", st->cands.n);
        gtk_label_set_text(GTK_LABEL(st->sd_status), t);
        g_free(t);
    }
    update_candidate_list(st);
}

static void action_schedule(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a, (void)p;
    pt_actions *st = get(PT_WINDOW(data));
    if (!loaded(st, "Auto-schedule"))
        return;
    if (!st->sd)
        build_schedule_dialog(st);
    refresh_target_check(st);
    gtk_window_present(GTK_WINDOW(st->sd));
}

/* ---- Compile & Profile -------------------------------------------------------------------- */

typedef struct {
    pt_actions *st;            /* UI thread only */
    pt_job *job;
    pt_graph *graph;
    pt_hw hw;
    char *prog_json;           /* the sProgram when the job started */
    char source[1024];
    pt_prefs prefs;
    char *cache_dir;           /* where the trace is written */
    GString *line;             /* the child's stdout line being read */
    char *trace_path;          /* the result */
} profile_job;

static void profile_job_free(void *p)
{
    profile_job *pj = p;
    g_free(pj->graph);
    free(pj->prog_json);
    g_free(pj->cache_dir);
    g_string_free(pj->line, TRUE);
    g_free(pj->trace_path);
    g_free(pj);
}

/* The child's output: stderr (the build log) as is; of stdout (the reply, with a trace in
 * base64) only the PT- lines, which also say which phase it is in. */
static void profile_output(void *ctx, int fd, const char *data, size_t n)
{
    profile_job *pj = ctx;
    if (fd == 2) {
        pt_job_log_raw(pj->job, data, n);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (data[i] != '\n') {
            if (pj->line->len < 4096)
                g_string_append_c(pj->line, data[i]);
            continue;
        }
        const char *l = pj->line->str;
        if (g_str_has_prefix(l, "PT-")) {
            pt_job_log(pj->job, "%s", l);
            if (g_str_has_prefix(l, "PT-PHASE build"))
                pt_job_progress(pj->job, -1, "building the kernel");
            else if (g_str_has_prefix(l, "PT-PHASE run"))
                pt_job_progress(pj->job, -1, "running on the GPU");
            else if (g_str_has_prefix(l, "PT-TRACE "))
                pt_job_progress(pj->job, -1, "reading the trace");
        }
        g_string_truncate(pj->line, 0);
    }
}

static bool profile_cancelled(void *ctx)
{
    return pt_job_cancelled(((profile_job *)ctx)->job);
}

/* The runner's advice names the CLI's option; here it is the Preferences. */
static void ui_advice(pt_error *err)
{
    char *at = strstr(err->msg, "--remote 'CMD'");
    if (!at)
        return;
    char rest[PT_ERROR_MAX];
    g_strlcpy(rest, at + strlen("--remote 'CMD'"), sizeof rest);
    *at = '\0';
    g_strlcat(err->msg, "a remote command (Preferences)", sizeof err->msg);
    g_strlcat(err->msg, rest, sizeof err->msg);
}

static bool profile_run(pt_job *job, void *data, pt_error *err)
{
    profile_job *pj = data;
    pj->job = job;
    const char *remote = pj->prefs.remote[0] ? pj->prefs.remote : NULL;
    pt_sprogram p;
    pt_stask_graph sg;
    pt_timeline tl = {0};
    pt_measurement ms;
    pt_measured meas = {0};
    pt_alignment al = {0};
    char *text = NULL;
    bool ok = false, have_p = false, have_ms = false;
    pt_job_progress(job, 0.02, "checking the sProgram");
    if (!pt_sprogram_load_text(&p, &sg, pj->graph, "the sProgram", pj->prog_json,
                               strlen(pj->prog_json), err))
        return false;
    have_p = true;
    if (!pt_validate(&p, &sg, &pj->hw, NULL, err) || !pt_simulate(&p, &sg, &pj->hw, &tl, err))
        goto out;
    if (!remote) {
        pt_job_progress(job, 0.04, "checking this machine");
        if (!pt_runner_check_local(err)) {
            ui_advice(err);
            goto out;
        }
    }
    pt_job_progress(job, 0.06, "generating the kernel");
    have_ms = true;
    if (!pt_measure_generate(&ms, &p, &sg, &pj->hw, PT_TARGET_DEFAULT, err))
        goto out;
    const char *what = ms.what;
    pt_job_log(job, "%s: bundle in %s; building and running %s", what, ms.dir,
               remote ? "through the remote command" : "on this machine");
    pt_job_progress(job, -1, remote ? "running the remote command" : "building the kernel");
    pt_measure_request rq = {.remote = remote, .timeout_s = pj->prefs.timeout_s,
                             .build_timeout_s = pj->prefs.build_timeout_s, .trace = true,
                             .output = profile_output, .cancelled = profile_cancelled,
                             .ctx = pj};
    if (!pt_measure_run(&ms, &rq, err))
        goto out;
    pt_job_progress(job, 0.95, "aligning the trace with the prediction");
    if (!pt_measure_align(&ms, &tl, &p, &sg, &meas, &al, err))
        goto out;
    text = pt_profile_to_json(&tl, &p, &sg, &pj->hw, &meas, &al);
    if (!text) {
        pt_fail(err, "out of memory writing the trace");
        goto out;
    }
    if (g_mkdir_with_parents(pj->cache_dir, 0700) != 0) {
        pt_fail(err, "%s: cannot create the folder: %s", pj->cache_dir, g_strerror(errno));
        goto out;
    }
    GDateTime *t_now = g_date_time_new_now_local();
    char *stamp = g_date_time_format(t_now, "%Y%m%d-%H%M%S");
    g_date_time_unref(t_now);
    char *name = g_strdup_printf("%s-%s.trace.json", pj->graph->name, stamp);
    pj->trace_path = g_build_filename(pj->cache_dir, name, NULL);
    g_free(name);
    g_free(stamp);
    if (!pt_write_file(pj->trace_path, text, err))
        goto out;
    pt_job_log(job, "%s: correct (%lld elements); measured %.2f µs, predicted %.2f µs; trace "
                    "written to %s", what, (long long)ms.h.elements, ms.h.time_ms_median * 1e3,
               tl.kernel_time_ns / 1e3, pj->trace_path);
    ok = true;
out:
    free(text);
    if (have_ms)
        pt_measurement_free(&ms); /* also removes the bundle */
    pt_alignment_free(&al);
    pt_measured_free(&meas);
    pt_timeline_free(&tl);
    if (have_p) {
        pt_sprogram_free(&p);
        pt_stask_graph_free(&sg);
    }
    return ok;
}

static void profile_done(pt_jobs *jobs, void *data, bool ok, bool cancelled, const char *error)
{
    (void)jobs;
    profile_job *pj = data;
    pt_actions *st = pj->st;
    if (!ok) {
        if (!cancelled)
            fail(st, "Compile & Profile", error);
        return;
    }
    pt_explorer_model *m = model(st);
    if (!m->have_prog || strcmp(m->source, pj->source) != 0) {
        char *msg = g_strdup_printf("the profile finished after another graph was opened; its "
                                    "trace is %s", pj->trace_path);
        fail(st, "Compile & Profile", msg);
        g_free(msg);
        return;
    }
    char *now = pt_explorer_model_to_json(m);
    if (now && strcmp(now, pj->prog_json) != 0)
        pt_jobs_log(st->jobs, "Compile & Profile: the sProgram was edited while it ran; the "
                              "measured bars are those of the sProgram as it was");
    free(now);
    pt_error err = {{0}};
    gboolean ok2 = pt_explorer_model_overlay_trace(m, pj->trace_path, &err);
    pt_window_refresh(st->win); /* also when refused: an earlier overlay was dropped */
    if (!ok2)
        fail(st, "Compile & Profile", err.msg);
}

static void action_profile(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a, (void)p;
    pt_actions *st = get(PT_WINDOW(data));
    if (!loaded(st, "Compile & Profile"))
        return;
    pt_explorer_model *m = model(st);
    if (m->warning[0]) {
        char *msg = g_strdup_printf("the sProgram is invalid: %s", m->warning);
        fail(st, "Compile & Profile", msg);
        g_free(msg);
        return;
    }
    profile_job *pj = g_new0(profile_job, 1);
    pj->st = st;
    pj->graph = g_memdup2(&m->graph, sizeof m->graph);
    pj->hw = m->hw;
    pj->prog_json = pt_explorer_model_to_json(m);
    g_strlcpy(pj->source, m->source, sizeof pj->source);
    pj->prefs = st->prefs;
    pj->cache_dir = g_build_filename(g_get_user_cache_dir(), "pipethreader", "profiles", NULL);
    pj->line = g_string_new(NULL);
    pt_error err = {{0}};
    if (!pj->prog_json) {
        profile_job_free(pj);
        fail(st, "Compile & Profile", "out of memory");
        return;
    }
    if (!pt_jobs_start(st->jobs, "Compile & Profile", profile_run, profile_done, pj,
                       profile_job_free, &err))
        fail(st, "Compile & Profile", err.msg);
}

/* ---- exports ------------------------------------------------------------------------------ */

static void export_kernel_to(pt_actions *st, const char *dir)
{
    const char *what = "Export kernel source";
    if (!loaded(st, what))
        return;
    pt_explorer_model *m = model(st);
    if (m->warning[0]) {
        char *msg = g_strdup_printf("the sProgram is invalid: %s", m->warning);
        fail(st, what, msg);
        g_free(msg);
        return;
    }
    pt_codegen_result info = {0};
    pt_error err = {{0}};
    if (!pt_codegen_bundle(dir, &m->prog, &m->sg, &m->hw, PT_TARGET_DEFAULT, &info, &err)) {
        fail(st, what, err.msg);
        return;
    }
    pt_jobs_log(st->jobs, "%s: wrote %s: %s (grid %lld, block %d, smem %lld)", what, dir,
                pt_bundle_file_list(), (long long)info.grid, info.block_threads, (long long)info.smem_bytes);
    pt_window_show_error(st->win, NULL);
}

static void export_chrome_to(pt_actions *st, const char *path)
{
    const char *what = "Export Chrome trace";
    if (!loaded(st, what))
        return;
    pt_explorer_model *m = model(st);
    char *text = NULL;
    if (m->have_measured && m->n_measured_ctas > 0) {
        /* With a measured overlay: the prediction and every sampled CTA's spans, as the CLI's
         * profile --chrome writes them (times as laid over the prediction). */
        pt_measured ms = {.present = true, .n_ctas = m->n_measured_ctas};
        ms.ctas = calloc((size_t)m->n_measured_ctas, sizeof *ms.ctas);
        bool ok = ms.ctas != NULL;
        for (int c = 0; ok && c < m->n_measured_ctas; c++) {
            pt_mcta *t = &ms.ctas[c];
            t->block = m->cta_block ? m->cta_block[c] : c;
            t->smid = -1;
            t->n_spans = m->cta_n_measured[c];
            t->spans = calloc((size_t)(t->n_spans > 0 ? t->n_spans : 1), sizeof *t->spans);
            ok = t->spans != NULL;
            for (int64_t i = 0; ok && i < t->n_spans; i++) {
                const pt_span *sp = &m->cta_measured[c][i];
                t->spans[i] = (pt_mspan){sp->stask, sp->lane, 0, sp->iter, sp->start_ns, sp->end_ns};
            }
        }
        if (ok)
            text = pt_chrome_trace_profile(&m->tl, &m->prog, &m->sg, &ms);
        pt_measured_free(&ms);
    } else
        text = pt_chrome_trace(&m->tl, &m->prog, &m->sg, NULL);
    pt_error err = {{0}};
    if (!text)
        fail(st, what, "out of memory");
    else if (!pt_write_file(path, text, &err))
        fail(st, what, err.msg);
    else {
        pt_jobs_log(st->jobs, "%s: wrote %s (open it in Perfetto or chrome://tracing)", what,
                    path);
        pt_window_show_error(st->win, NULL);
    }
    free(text);
}

static void action_export_kernel_to(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    export_kernel_to(get(PT_WINDOW(data)), g_variant_get_string(p, NULL));
}

static void action_export_chrome_to(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a;
    export_chrome_to(get(PT_WINDOW(data)), g_variant_get_string(p, NULL));
}

static void on_export_response(GtkNativeDialog *d, int response, gpointer data)
{
    pt_actions *st = data;
    gboolean kernel = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(d), "pt-kernel"));
    if (response == GTK_RESPONSE_ACCEPT && st->win) {
        GFile *f = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(d));
        char *path = f ? g_file_get_path(f) : NULL;
        if (!path)
            fail(st, kernel ? "Export kernel source" : "Export Chrome trace",
                 "the chosen location has no local path");
        else if (kernel)
            export_kernel_to(st, path);
        else
            export_chrome_to(st, path);
        g_free(path);
        if (f)
            g_object_unref(f);
    }
    gtk_native_dialog_destroy(d);
    g_object_unref(d);
}

static void export_dialog(pt_actions *st, gboolean kernel)
{
    if (!loaded(st, kernel ? "Export kernel source" : "Export Chrome trace"))
        return;
    GtkFileChooserNative *fc = gtk_file_chooser_native_new(
        kernel ? "Export Kernel Source (a Folder for the Bundle)" : "Export Chrome Trace",
        GTK_WINDOW(st->win),
        kernel ? GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER : GTK_FILE_CHOOSER_ACTION_SAVE, "_Export",
        "_Cancel");
    if (!kernel) {
        char *name = g_strdup_printf("%s.chrome.json", model(st)->graph.name);
        gtk_file_chooser_set_current_name(GTK_FILE_CHOOSER(fc), name);
        g_free(name);
    }
    g_object_set_data(G_OBJECT(fc), "pt-kernel", GINT_TO_POINTER(kernel));
    g_signal_connect(fc, "response", G_CALLBACK(on_export_response), st);
    gtk_native_dialog_show(GTK_NATIVE_DIALOG(fc));
}

static void action_export_kernel(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a, (void)p;
    export_dialog(get(PT_WINDOW(data)), TRUE);
}

static void action_export_chrome(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a, (void)p;
    export_dialog(get(PT_WINDOW(data)), FALSE);
}

/* ---- jobs, log, preferences --------------------------------------------------------------- */

static void action_cancel_job(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a, (void)p;
    pt_jobs_cancel(get(PT_WINDOW(data))->jobs);
}

static void action_show_log(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a, (void)p;
    pt_jobs_show_log(get(PT_WINDOW(data))->jobs);
}

static void on_prefs_saved(gpointer data, const char *error)
{
    pt_actions *st = data;
    if (!st->win)
        return;
    if (error)
        fail(st, "Preferences", error);
    else {
        char *path = pt_prefs_path();
        pt_jobs_log(st->jobs, "Preferences: saved to %s", path);
        g_free(path);
    }
}

static void action_preferences(GSimpleAction *a, GVariant *p, gpointer data)
{
    (void)a, (void)p;
    pt_actions *st = get(PT_WINDOW(data));
    GtkWidget *d = pt_preferences_dialog_new(GTK_WINDOW(st->win), &st->prefs, on_prefs_saved, st);
    gtk_window_present(GTK_WINDOW(d));
}

/* ---- hooks --------------------------------------------------------------------------------- */

static const GActionEntry entries[] = {
    {"auto-schedule", action_schedule, NULL, NULL, NULL, {0}},
    {"auto-schedule-run", action_schedule_run, "(dxib)", NULL, NULL, {0}},
    {"auto-schedule-ragged", NULL, NULL, "false", NULL, {0}},
    {"schedule-apply", action_schedule_apply, "i", NULL, NULL, {0}},
    {"profile", action_profile, NULL, NULL, NULL, {0}},
    {"export-kernel", action_export_kernel, NULL, NULL, NULL, {0}},
    {"export-kernel-to", action_export_kernel_to, "s", NULL, NULL, {0}},
    {"export-chrome", action_export_chrome, NULL, NULL, NULL, {0}},
    {"export-chrome-to", action_export_chrome_to, "s", NULL, NULL, {0}},
    {"cancel-job", action_cancel_job, NULL, NULL, NULL, {0}},
    {"show-log", action_show_log, NULL, NULL, NULL, {0}},
    {"preferences", action_preferences, NULL, NULL, NULL, {0}},
};

/* Actions that need something loaded. */
static const char *const need_model[] = {"auto-schedule", "auto-schedule-run", "profile",
                                         "export-kernel", "export-kernel-to", "export-chrome",
                                         "export-chrome-to"};

static void set_enabled(pt_actions *st, const char *name, gboolean on)
{
    GAction *a = g_action_map_lookup_action(G_ACTION_MAP(st->win), name);
    if (a)
        g_simple_action_set_enabled(G_SIMPLE_ACTION(a), on);
}

static void on_window_destroy(GtkWidget *w, gpointer data)
{
    (void)w;
    pt_actions *st = data;
    if (!st->win)
        return;
    pt_jobs_detach(st->jobs);
    st->jobs = NULL;
    st->win = NULL;
    st->sd = st->sd_list = st->sd_status = NULL; /* destroyed with their parent */
}

static void actions_free(gpointer p)
{
    pt_actions *st = p;
    if (st->cands.best)
        pt_schedule_result_free(&st->cands);
    g_free(st->cands_graph);
    g_free(st->prefs_error);
    if (st->jobs) /* never destroyed as a widget */
        pt_jobs_detach(st->jobs);
    g_free(st);
}

static void add_shortcut(GtkShortcutController *sc, const char *accel, const char *action)
{
    gtk_shortcut_controller_add_shortcut(
        sc, gtk_shortcut_new(gtk_shortcut_trigger_parse_string(accel),
                             gtk_named_action_new(action)));
}

void pt_actions_install(PtWindow *win, GtkHeaderBar *header)
{
    pt_actions *st = g_new0(pt_actions, 1);
    st->win = win;
    st->applied = -1;
    st->jobs = pt_jobs_new(GTK_WINDOW(win));
    st->code = pt_code_view_new();
    pt_error err = {{0}};
    gboolean prefs_ok = pt_prefs_load(&st->prefs, &err);
    g_object_set_data_full(G_OBJECT(win), "pt-actions", st, actions_free);
    g_action_map_add_action_entries(G_ACTION_MAP(win), entries, G_N_ELEMENTS(entries), win);
    for (guint i = 0; i < G_N_ELEMENTS(need_model); i++)
        set_enabled(st, need_model[i], FALSE);
    set_enabled(st, "schedule-apply", FALSE);
    gtk_header_bar_pack_end(header, pt_jobs_status_widget(st->jobs));
    g_signal_connect(win, "destroy", G_CALLBACK(on_window_destroy), st);
    GtkEventController *sc = gtk_shortcut_controller_new();
    gtk_shortcut_controller_set_scope(GTK_SHORTCUT_CONTROLLER(sc), GTK_SHORTCUT_SCOPE_GLOBAL);
    add_shortcut(GTK_SHORTCUT_CONTROLLER(sc), "<Control>comma", "win.preferences");
    add_shortcut(GTK_SHORTCUT_CONTROLLER(sc), "<Control><Shift>a", "win.auto-schedule");
    add_shortcut(GTK_SHORTCUT_CONTROLLER(sc), "<Control><Shift>p", "win.profile");
    add_shortcut(GTK_SHORTCUT_CONTROLLER(sc), "<Control><Shift>l", "win.show-log");
    gtk_widget_add_controller(GTK_WIDGET(win), sc);
    if (!prefs_ok) { /* the banner is not built yet: shown with the first model */
        pt_jobs_log(st->jobs, "Preferences: %s (using the defaults)", err.msg);
        st->prefs_error = g_strdup_printf("Preferences: %s (using the defaults)", err.msg);
    }
}

GMenuModel *pt_actions_menu(void)
{
    GMenu *m = g_menu_new();
    g_menu_append(m, "_Auto-schedule…", "win.auto-schedule");
    g_menu_append(m, "_Compile & Profile", "win.profile");
    g_menu_append(m, "Export _Kernel Source…", "win.export-kernel");
    g_menu_append(m, "Export _Chrome Trace…", "win.export-chrome");
    g_menu_append(m, "Job _Log", "win.show-log");
    g_menu_append(m, "_Preferences", "win.preferences");
    return G_MENU_MODEL(m);
}

GtkWidget *pt_actions_code_view(PtWindow *win)
{
    return get(win)->code;
}

void pt_actions_model_changed(PtWindow *win)
{
    pt_actions *st = get(win);
    if (!st || !st->win)
        return;
    pt_explorer_model *m = model(st);
    gboolean on = m->have_prog && m->have_tl;
    for (guint i = 0; i < G_N_ELEMENTS(need_model); i++)
        set_enabled(st, need_model[i], on);
    pt_code_view_set_model(PT_CODE_VIEW(st->code), m);
    if (st->prefs_error) {
        pt_window_show_error(win, st->prefs_error);
        g_clear_pointer(&st->prefs_error, g_free);
    }
}

void pt_actions_stask_selected(PtWindow *win, int stask)
{
    pt_actions *st = get(win);
    if (!st || !st->win)
        return;
    pt_explorer_model *m = model(st);
    if (m->have_sg && stask >= 0 && stask < m->sg.n)
        pt_code_view_show_stask(PT_CODE_VIEW(st->code), m->sg.tasks[stask].id);
}

gboolean pt_actions_job_busy(PtWindow *win)
{
    pt_actions *st = get(win);
    return st->jobs && pt_jobs_busy(st->jobs);
}

char *pt_actions_dup_log(PtWindow *win)
{
    pt_actions *st = get(win);
    return st->jobs ? pt_jobs_dup_log(st->jobs) : g_strdup("");
}

pt_prefs *pt_actions_prefs(PtWindow *win)
{
    return &get(win)->prefs;
}

int pt_actions_n_candidates(PtWindow *win)
{
    return get(win)->cands.n;
}

void pt_actions_schedule_filter(PtWindow *win, gboolean *on, gboolean *sensitive)
{
    pt_actions *st = get(win);
    if (!st->sd)
        build_schedule_dialog(st);
    refresh_target_check(st);
    *on = gtk_check_button_get_active(GTK_CHECK_BUTTON(st->sd_sm90a));
    *sensitive = gtk_widget_get_sensitive(st->sd_sm90a);
}
