/* window_form.c — the inspector's form in PtWindow: tile sizes per graph axis (Propagate on
 * Apply) and the axis of the tensor-core rows, stages of the buffered tensors, the inter-EU
 * partition's split-K, stream-K grid and tiles per run, and the selected loop-body sTask's
 * iteration offset, the decay's form where the graph has an exp_decay chain, and how CUDA-core
 * readers hand ring stages back where that is a choice. Its widgets only send win.tile /
 * win.stages / win.split-k / win.stream-k / win.run / win.offset / win.decay / win.release;
 * the form is rebuilt from the model after every load and edit. */
#include "window_private.h"

#include "ring_reuse.h"
#include "stage_hold.h"
#include "streamk.h"

static void apply_tile_form(PtWindow *self)
{
    const pt_explorer_model *m = self->model;
    if (!m->have_sg || !self->tile_entries)
        return;
    GString *spec = g_string_new(NULL);
    for (guint i = 0; i < self->tile_entries->len; i++) {
        GtkWidget *e = g_ptr_array_index(self->tile_entries, i);
        const char *name = g_object_get_data(G_OBJECT(e), "pt-axis");
        const char *now = g_object_get_data(G_OBJECT(e), "pt-value");
        char *text = g_strstrip(g_strdup(gtk_editable_get_text(GTK_EDITABLE(e))));
        if (g_strcmp0(text, now) != 0) /* only what the user changed: the rest propagates */
            g_string_append_printf(spec, "%s%s=%s", spec->len ? "," : "", name, text);
        g_free(text);
    }
    if (spec->len)
        gtk_widget_activate_action(GTK_WIDGET(self), "win.tile", "s", spec->str);
    g_string_free(spec, TRUE);
}

gboolean pt_window_set_tile_field(PtWindow *self, const char *axis, const char *text)
{
    for (guint i = 0; self->tile_entries && i < self->tile_entries->len; i++) {
        GtkWidget *e = g_ptr_array_index(self->tile_entries, i);
        if (g_strcmp0(g_object_get_data(G_OBJECT(e), "pt-axis"), axis) == 0) {
            gtk_editable_set_text(GTK_EDITABLE(e), text);
            return TRUE;
        }
    }
    return FALSE;
}

void pt_window_apply_tile_form(PtWindow *self)
{
    apply_tile_form(self);
}

static void on_apply_tile(GtkWidget *w, gpointer data)
{
    (void)w;
    apply_tile_form(PT_WINDOW(data));
}

/* The tensor-core rows' axis (the tiling's wg_axis): re-tile with the chosen one. */
static void on_rows_axis_changed(GObject *dd, GParamSpec *pspec, gpointer data)
{
    (void)pspec;
    PtWindow *self = data;
    GtkStringObject *o = gtk_drop_down_get_selected_item(GTK_DROP_DOWN(dd));
    if (!o || g_object_get_data(dd, "pt-building"))
        return;
    char *spec = g_strdup_printf("wg_axis=%s", gtk_string_object_get_string(o));
    gtk_widget_activate_action(GTK_WIDGET(self), "win.tile", "s", spec);
    g_free(spec);
}

/* Who stores the output (the tiling's wg_stores): re-tile with each warpgroup storing its own
 * rows, or one store of the whole tile. */
static void on_wg_stores_toggled(GtkCheckButton *b, gpointer data)
{
    if (g_object_get_data(G_OBJECT(b), "pt-building"))
        return;
    gtk_widget_activate_action(GTK_WIDGET(data), "win.tile", "s",
                               gtk_check_button_get_active(b) ? "wg_stores=1" : "wg_stores=0");
}

static GtkWidget *wg_stores_check(PtWindow *self)
{
    const pt_explorer_model *m = self->model;
    if (m->sg.tiling.warpgroups < 2)
        return NULL;
    GtkWidget *b = gtk_check_button_new_with_mnemonic("Warpgroups _store their own rows");
    g_object_set_data(G_OBJECT(b), "pt-building", GINT_TO_POINTER(1));
    gtk_check_button_set_active(GTK_CHECK_BUTTON(b), m->sg.tiling.wg_stores);
    g_object_set_data(G_OBJECT(b), "pt-building", NULL);
    g_object_set_data(G_OBJECT(b), "pt-wg-stores", GINT_TO_POINTER(1));
    gtk_widget_set_tooltip_text(b, "Each consumer warpgroup stores its own rows of the output "
                                   "from its own TMA lane (store.X.wgN on tma.wgN), so no "
                                   "warpgroup waits for another's epilogue; off: one store of "
                                   "the whole tile after every warpgroup's part");
    g_signal_connect(b, "toggled", G_CALLBACK(on_wg_stores_toggled), self);
    return b;
}

/* Is the graph one matmul, optionally of dequantised weights: the kinds whose kernel is
 * generated with the tensor-core rows on either output axis? */
static bool single_matmul(const pt_graph *g)
{
    int mm = 0;
    for (int i = 0; i < g->n_ops; i++) {
        if (g->ops[i].kind == PT_OP_MATMUL)
            mm++;
        else if (g->ops[i].kind != PT_OP_DEQUANTIZE)
            return false;
    }
    return mm == 1;
}

/* A drop-down of the output axes the warpgroups may split (and the tensor-core rows run
 * along), or NULL when there is no choice: offered for a single matmul (single_matmul; other
 * graphs keep their first output axis). */
static GtkWidget *rows_axis_drop_down(PtWindow *self)
{
    const pt_explorer_model *m = self->model;
    if (!single_matmul(&m->graph))
        return NULL;
    GtkStringList *list = gtk_string_list_new(NULL);
    guint sel = 0, n = 0;
    for (int a = 0; a < m->graph.n_axes; a++) {
        if (!pt_graph_axis_in_output(&m->graph, a) || m->graph.axes[a].batch)
            continue;
        if (a == m->sg.rows_axis)
            sel = n;
        gtk_string_list_append(list, m->graph.axes[a].name);
        n++;
    }
    if (n < 2) {
        g_object_unref(list);
        return NULL;
    }
    GtkWidget *dd = gtk_drop_down_new(G_LIST_MODEL(list), NULL);
    g_object_set_data(G_OBJECT(dd), "pt-building", GINT_TO_POINTER(1));
    gtk_drop_down_set_selected(GTK_DROP_DOWN(dd), sel);
    g_object_set_data(G_OBJECT(dd), "pt-building", NULL);
    g_object_set_data(G_OBJECT(dd), "pt-rows-axis", GINT_TO_POINTER(1));
    gtk_widget_set_tooltip_text(dd, "The output axis the consumer warpgroups split, along which a "
                                    "matmul's tensor-core rows (wgmma's M, 64 per warpgroup) run; "
                                    "the other axis is the instruction's N, in multiples of 8. Rows "
                                    "on a GEMM's N swap A and B: a small M is then cut finely, and "
                                    "dequantised weights are converted by each warpgroup into its "
                                    "own registers rather than by the producer into shared memory");
    gtk_accessible_update_property(GTK_ACCESSIBLE(dd), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   "Tensor-core rows along axis", -1);
    g_signal_connect(dd, "notify::selected", G_CALLBACK(on_rows_axis_changed), self);
    return dd;
}

/* The form's widget of `type` carrying data `key` (equal to the string `value` where given):
 * the form is rows of fields, each field a child of a row. */
static GtkWidget *form_widget(PtWindow *self, GType type, const char *key, const char *value)
{
    for (GtkWidget *c = self->form_box ? gtk_widget_get_first_child(self->form_box) : NULL; c;
         c = gtk_widget_get_next_sibling(c))
        for (GtkWidget *k = gtk_widget_get_first_child(c); k; k = gtk_widget_get_next_sibling(k)) {
            const char *d = g_object_get_data(G_OBJECT(k), key);
            if (G_TYPE_CHECK_INSTANCE_TYPE(k, type) && (value ? g_strcmp0(d, value) == 0 : d != NULL))
                return k;
        }
    return NULL;
}

GtkWidget *pt_window_get_rows_axis_drop_down(PtWindow *self)
{
    return form_widget(self, GTK_TYPE_DROP_DOWN, "pt-rows-axis", NULL);
}

static void on_stages_changed(GtkSpinButton *spin, gpointer data)
{
    PtWindow *self = data;
    const char *tensor = g_object_get_data(G_OBJECT(spin), "pt-tensor");
    gtk_widget_activate_action(GTK_WIDGET(self), "win.stages", "(si)", tensor,
                               gtk_spin_button_get_value_as_int(spin));
}

GtkWidget *pt_window_get_stages_spin(PtWindow *self, const char *tensor)
{
    return tensor ? form_widget(self, GTK_TYPE_SPIN_BUTTON, "pt-tensor", tensor) : NULL;
}

static void on_split_k_changed(GtkSpinButton *spin, gpointer data)
{
    gtk_widget_activate_action(GTK_WIDGET(data), "win.split-k", "i",
                               gtk_spin_button_get_value_as_int(spin));
}

/* The stream-K spin: 0 (off) or a grid of 2 .. the EUs; 1 steps over to 2 from off and to off
 * from 2 (the form is rebuilt from the model after the edit). */
static void on_stream_k_changed(GtkSpinButton *spin, gpointer data)
{
    PtWindow *self = data;
    int v = gtk_spin_button_get_value_as_int(spin);
    if (v == 1)
        v = pt_sprogram_stream_k(&self->model->prog) > 0 ? 0 : 2;
    gtk_widget_activate_action(GTK_WIDGET(self), "win.stream-k", "i", v);
}

static void on_split_cluster_toggled(GtkCheckButton *check, gpointer data)
{
    gtk_widget_activate_action(GTK_WIDGET(data), "win.split-cluster", "b",
                               gtk_check_button_get_active(check));
}

static void on_decay_toggled(GtkCheckButton *check, gpointer data)
{
    gtk_widget_activate_action(GTK_WIDGET(data), "win.decay", "s",
                               gtk_check_button_get_active(check) ? "factored" : "tile");
}

static void on_decay16_toggled(GtkCheckButton *check, gpointer data)
{
    gtk_widget_activate_action(GTK_WIDGET(data), "win.decay", "s",
                               gtk_check_button_get_active(check) ? "factored16" : "factored");
}

GtkWidget *pt_window_get_decay_check(PtWindow *self)
{
    return form_widget(self, GTK_TYPE_CHECK_BUTTON, "pt-decay", NULL);
}

GtkWidget *pt_window_get_decay16_check(PtWindow *self)
{
    return form_widget(self, GTK_TYPE_CHECK_BUTTON, "pt-decay16", NULL);
}

/* The decay's form (decay_form.h), only where the graph has the chain it applies to: its row,
 * or NULL. */
static GtkWidget *build_decay(PtWindow *self)
{
    const pt_explorer_model *m = self->model;
    pt_decay_chain chain;
    pt_error e = {{0}};
    if (!pt_decay_chain_find(&m->graph, &chain, &e))
        return NULL;
    GtkWidget *check = gtk_check_button_new_with_mnemonic("_Factored decay");
    gtk_check_button_set_active(GTK_CHECK_BUTTON(check), pt_decay_is_factored(m->prog.decay));
    g_object_set_data(G_OBJECT(check), "pt-decay", GINT_TO_POINTER(1));
    char *tip = g_strdup_printf("%s as column factors: its row factor scales the accumulators "
                                "once per tile instead of every element; a warp whose rows span "
                                "too much falls back to the tile (win.decay)",
                                m->graph.ops[chain.op_decay].name);
    gtk_widget_set_tooltip_text(check, tip);
    g_free(tip);
    g_signal_connect(check, "toggled", G_CALLBACK(on_decay_toggled), self);
    /* the factored form's rounding: the column factor to 16 bits first (decay "factored16") */
    GtkWidget *r16 = gtk_check_button_new_with_mnemonic("_16-bit factor");
    gtk_check_button_set_active(GTK_CHECK_BUTTON(r16), m->prog.decay == PT_DECAY_FACTORED16);
    gtk_widget_set_sensitive(r16, pt_decay_is_factored(m->prog.decay));
    g_object_set_data(G_OBJECT(r16), "pt-decay16", GINT_TO_POINTER(1));
    gtk_widget_set_tooltip_text(r16, "The column factor rounded to the tile's 16-bit type before "
                                     "it scales the tile: one paired multiply per element pair "
                                     "instead of two, the decayed tile rounded twice (win.decay)");
    g_signal_connect(r16, "toggled", G_CALLBACK(on_decay16_toggled), self);
    GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6); /* a row, as the other parts */
    gtk_box_append(GTK_BOX(row), check);
    gtk_box_append(GTK_BOX(row), r16);
    gtk_box_append(GTK_BOX(self->form_box), row);
    return row;
}

static void on_release_toggled(GtkCheckButton *check, gpointer data)
{
    gtk_widget_activate_action(GTK_WIDGET(data), "win.release", "s",
                               gtk_check_button_get_active(check) ? "fence" : "group");
}

GtkWidget *pt_window_get_release_check(PtWindow *self)
{
    return form_widget(self, GTK_TYPE_CHECK_BUTTON, "pt-release", NULL);
}

/* The release form (sProgram "release"), only where it changes something: some CUDA-core
 * reader would hand its stages back with a wgmma group, or the program already fences. On
 * `row` (the decay's) where there is one, so the form keeps its height. */
static void build_release(PtWindow *self, GtkWidget *row)
{
    const pt_explorer_model *m = self->model;
    pt_sprogram g = m->prog; /* read only: the contract's decision under "group" */
    g.release = PT_RELEASE_GROUP;
    pt_stage_hold h;
    pt_stage_hold_lags(&g, &m->sg, &h);
    if (!h.defer_reads && m->prog.release != PT_RELEASE_FENCE)
        return;
    GtkWidget *check = gtk_check_button_new_with_mnemonic("Fence _releases");
    gtk_check_button_set_active(GTK_CHECK_BUTTON(check), m->prog.release == PT_RELEASE_FENCE);
    g_object_set_data(G_OBJECT(check), "pt-release", GINT_TO_POINTER(1));
    gtk_widget_set_tooltip_text(check, "CUDA-core sTasks hand the ring stages they read back "
                                       "behind a proxy fence right after their reads, instead of "
                                       "with the wgmma group that used them: the stage is free "
                                       "sooner, each read waits for its loads (win.release)");
    g_signal_connect(check, "toggled", G_CALLBACK(on_release_toggled), self);
    if (!row) {
        row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
        gtk_box_append(GTK_BOX(self->form_box), row);
    }
    gtk_box_append(GTK_BOX(row), check);
}

static void on_run_changed(GtkSpinButton *spin, gpointer data)
{
    PtWindow *self = data;
    gtk_widget_activate_action(GTK_WIDGET(self), "win.run", "i",
                               gtk_spin_button_get_value_as_int(spin));
}

GtkWidget *pt_window_get_split_k_spin(PtWindow *self)
{
    return form_widget(self, GTK_TYPE_SPIN_BUTTON, "pt-split-k", NULL);
}

GtkWidget *pt_window_get_split_cluster_check(PtWindow *self)
{
    return form_widget(self, GTK_TYPE_CHECK_BUTTON, "pt-split-cluster", NULL);
}

static void on_offset_changed(GtkSpinButton *spin, gpointer data)
{
    PtWindow *self = data;
    const char *id = g_object_get_data(G_OBJECT(spin), "pt-stask");
    gtk_widget_activate_action(GTK_WIDGET(self), "win.offset", "(si)", id,
                               gtk_spin_button_get_value_as_int(spin));
}

GtkWidget *pt_window_get_offset_spin(PtWindow *self)
{
    return self->offset_spin;
}

static GtkWidget *form_label(const char *text)
{
    GtkWidget *l = gtk_label_new(text);
    gtk_label_set_xalign(GTK_LABEL(l), 0);
    return l;
}

/* The selected sTask's iteration offset (loop-body sTasks): +1 issues the next iteration's
 * instance in this loop step (look-ahead); for a prologue product (ChunkScan's C . statesᵀ),
 * 0 or 1: +1 issues the next tile's instance before this tile's epilogue. Rebuilt alone when
 * the selection changes, so that what the user is typing in the tile entries stays. */
static void build_offset_row(PtWindow *self)
{
    const pt_explorer_model *m = self->model;
    GtkWidget *child;
    self->offset_spin = NULL;
    if (!self->offset_box)
        return;
    while ((child = gtk_widget_get_first_child(self->offset_box)))
        gtk_box_remove(GTK_BOX(self->offset_box), child);
    int sel = self->selected, lane, pos;
    if (!m->have_prog || !m->have_sg || sel < 0 || sel >= m->sg.n)
        return;
    bool body = m->sg.tasks[sel].region == PT_REGION_BODY;
    bool pro_mma = pt_stask_prologue_product(&m->sg, sel);
    if ((!body && !pro_mma) || !pt_sprogram_placement(&m->prog, sel, &lane, &pos))
        return;
    GtkWidget *offset_row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    char *text = g_strdup_printf(body ? "Iteration offset of %s" : "Tile offset of %s",
                                 m->sg.tasks[sel].id);
    gtk_box_append(GTK_BOX(offset_row), form_label(text));
    GtkWidget *spin = gtk_spin_button_new_with_range(body ? -8 : 0, body ? 8 : 1, 1);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(spin), m->prog.lanes[lane].entries[pos].offset);
    gtk_accessible_update_property(GTK_ACCESSIBLE(spin), GTK_ACCESSIBLE_PROPERTY_LABEL, text, -1);
    gtk_widget_set_tooltip_text(spin, body ? "Look-ahead: +1 issues the next iteration's instance in "
                                             "this loop step (win.offset)"
                                           : "+1 issues the next tile's instance once this tile's "
                                             "loop is done, before its epilogue (win.offset)");
    g_free(text);
    g_object_set_data_full(G_OBJECT(spin), "pt-stask", g_strdup(m->sg.tasks[sel].id), g_free);
    g_signal_connect(spin, "value-changed", G_CALLBACK(on_offset_changed), self);
    gtk_box_append(GTK_BOX(offset_row), spin);
    gtk_box_append(GTK_BOX(self->offset_box), offset_row);
    self->offset_spin = spin;
}

/* Stream-K (streamk.h): a persistent grid of this many CTAs (0: off) splitting the loops of
 * the last partial wave evenly; where split-K is possible at all. */
static void build_stream_k(PtWindow *self, GtkWidget *grid, gboolean possible)
{
    const pt_explorer_model *m = self->model;
    int eus = m->hw.eu_count < PT_MAX_STREAM_K ? m->hw.eu_count : PT_MAX_STREAM_K;
    GtkWidget *spin = gtk_spin_button_new_with_range(0, eus > 2 ? eus : 2, 1);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(spin), pt_sprogram_stream_k(&m->prog));
    g_object_set_data(G_OBJECT(spin), "pt-stream-k", GINT_TO_POINTER(1));
    gtk_accessible_update_property(GTK_ACCESSIBLE(spin), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   "Stream-K", -1);
    gtk_widget_set_tooltip_text(spin, possible ? "Stream-K: a persistent grid of this many CTAs "
                                                 "(0: off) splitting the last partial wave's "
                                                 "(tile, k) work evenly; a tile shared by "
                                                 "several CTAs is added up by the last to "
                                                 "finish (win.stream-k)"
                                               : "the loop cannot be split across EUs");
    gtk_widget_set_sensitive(spin, possible);
    g_signal_connect(spin, "value-changed", G_CALLBACK(on_stream_k_changed), self);
    gtk_grid_attach(GTK_GRID(grid), form_label("stream-K CTAs"), 2, 1, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), spin, 3, 1, 1, 1);
}

/* Runs (ring_reuse.h): a persistent CTA takes this many consecutive tiles in a row; the
 * tooltip says what the current program keeps across them. */
static void build_run(PtWindow *self, GtkWidget *grid)
{
    const pt_explorer_model *m = self->model;
    GtkWidget *spin = gtk_spin_button_new_with_range(1, 64, 1);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(spin), pt_sprogram_run(&m->prog));
    g_object_set_data(G_OBJECT(spin), "pt-run", GINT_TO_POINTER(1));
    gtk_accessible_update_property(GTK_ACCESSIBLE(spin), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   "Tiles per run", -1);
    GString *tip = g_string_new("Runs: a persistent CTA takes this many consecutive tiles in a "
                                "row (1: one at a time); a ring with one stage per iteration, "
                                "or a resident tile, whose coordinates repeat is not loaded "
                                "again (win.run)");
    uint32_t kept = pt_ring_reuse_tensors(&m->prog, &m->sg, &m->hw);
    for (int x = 0, n = 0; x < m->graph.n_tensors && x < 32; x++)
        if (kept >> x & 1u)
            g_string_append_printf(tip, "%s%s", n++ ? ", " : ". Kept now: ",
                                   m->graph.tensors[x].name);
    gtk_widget_set_tooltip_text(spin, tip->str);
    g_string_free(tip, TRUE);
    g_signal_connect(spin, "value-changed", G_CALLBACK(on_run_changed), self);
    gtk_grid_attach(GTK_GRID(grid), form_label("tiles per run"), 2, 2, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), spin, 3, 2, 1, 1);
}

/* The inter-EU partition: split-K, a spin button like the stages' (splitk.h: the loop of each
 * output tile in chunks run by separate work items, the last to finish adding them up). Only
 * where the loop can be split; otherwise the reason is the tooltip. */
static void build_partition(PtWindow *self)
{
    const pt_explorer_model *m = self->model;
    GtkWidget *grid = gtk_grid_new();
    gtk_grid_set_column_spacing(GTK_GRID(grid), 6);
    gtk_grid_set_row_spacing(GTK_GRID(grid), 4);
    gtk_grid_attach(GTK_GRID(grid), form_label("Partition (across EUs)"), 0, 0, 4, 1);
    int64_t max = m->sg.iterations < PT_MAX_SPLIT_K ? m->sg.iterations : PT_MAX_SPLIT_K;
    GtkWidget *spin = gtk_spin_button_new_with_range(1, (double)(max > 1 ? max : 1), 1);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(spin), pt_sprogram_split_k(&m->prog));
    g_object_set_data(G_OBJECT(spin), "pt-split-k", GINT_TO_POINTER(1));
    gtk_accessible_update_property(GTK_ACCESSIBLE(spin), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   "Split-K", -1);
    char why[PT_ERROR_MAX];
    if (pt_split_k_possible(&m->sg, why, sizeof why) && max > 1) {
        const char *axis = m->sg.loop_axis >= 0 && m->sg.loop_axis < m->graph.n_axes
                               ? m->graph.axes[m->sg.loop_axis].name
                               : "the loop";
        char *tip = g_strdup_printf("Split-K: each output tile's loop over %s cut into this many "
                                    "chunks, each its own CTA; the last to finish adds the "
                                    "others' partial tiles (win.split-k)", axis);
        gtk_widget_set_tooltip_text(spin, tip);
        g_free(tip);
    } else {
        gtk_widget_set_tooltip_text(spin, max > 1 ? why : "the loop has a single iteration");
        gtk_widget_set_sensitive(spin, FALSE);
    }
    g_signal_connect(spin, "value-changed", G_CALLBACK(on_split_k_changed), self);
    gtk_grid_attach(GTK_GRID(grid), form_label("split-K"), 0, 1, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), spin, 1, 1, 1, 1);
    /* the chunks' partial tiles through the tile's thread-block cluster */
    GtkWidget *cl = gtk_check_button_new_with_label("through a cluster");
    gtk_check_button_set_active(GTK_CHECK_BUTTON(cl),
                                m->prog.partition.split_reduce == PT_SPLIT_REDUCE_CLUSTER);
    g_object_set_data(G_OBJECT(cl), "pt-split-cluster", GINT_TO_POINTER(1));
    gtk_widget_set_tooltip_text(cl, "Split-K through a thread-block cluster: a tile's chunks run "
                                    "together, the others store their partial tiles into the "
                                    "first chunk's shared memory and it adds them; needs one "
                                    "tile per CTA (win.split-cluster)");
    gtk_widget_set_sensitive(cl, pt_sprogram_split_k(&m->prog) > 1 ||
                                     m->prog.partition.split_reduce == PT_SPLIT_REDUCE_CLUSTER);
    g_signal_connect(cl, "toggled", G_CALLBACK(on_split_cluster_toggled), self);
    gtk_grid_attach(GTK_GRID(grid), cl, 0, 2, 2, 1);
    build_stream_k(self, grid, pt_split_k_possible(&m->sg, why, sizeof why) && max > 1);
    build_run(self, grid);
    gtk_box_append(GTK_BOX(self->form_box), grid);
}

static void build_form_now(PtWindow *self)
{
    const pt_explorer_model *m = self->model;
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(self->form_box)))
        gtk_box_remove(GTK_BOX(self->form_box), child);
    g_ptr_array_set_size(self->tile_entries, 0);
    self->offset_box = self->offset_spin = NULL;
    if (!m->have_prog || !m->have_sg)
        return;
    GtkWidget *tile = gtk_grid_new();
    gtk_grid_set_column_spacing(GTK_GRID(tile), 6);
    gtk_grid_set_row_spacing(GTK_GRID(tile), 4);
    gtk_grid_attach(GTK_GRID(tile), form_label("Tile (Propagate)"), 0, 0, 4, 1);
    int col = 0, row = 1;
    for (int a = 0; a <= m->graph.n_axes; a++) {
        bool wg = a == m->graph.n_axes;
        const char *name = wg ? "wg" : m->graph.axes[a].name;
        char *value = g_strdup_printf("%" G_GINT64_FORMAT,
                                      wg ? (gint64)m->sg.tiling.warpgroups
                                         : (gint64)m->sg.tiling.tile[a]);
        GtkWidget *e = gtk_entry_new();
        gtk_editable_set_text(GTK_EDITABLE(e), value);
        gtk_editable_set_width_chars(GTK_EDITABLE(e), 5);
        g_object_set_data_full(G_OBJECT(e), "pt-axis", g_strdup(name), g_free);
        g_object_set_data_full(G_OBJECT(e), "pt-value", value, g_free);
        char *acc = g_strdup_printf("Tile size of axis %s", name);
        gtk_accessible_update_property(GTK_ACCESSIBLE(e), GTK_ACCESSIBLE_PROPERTY_LABEL, acc, -1);
        g_free(acc);
        g_signal_connect(e, "activate", G_CALLBACK(on_apply_tile), self);
        gtk_grid_attach(GTK_GRID(tile), form_label(name), col, row, 1, 1);
        gtk_grid_attach(GTK_GRID(tile), e, col + 1, row, 1, 1);
        g_ptr_array_add(self->tile_entries, e);
        col += 2;
        if (col >= 6) {
            col = 0;
            row++;
        }
    }
    GtkWidget *rows_dd = rows_axis_drop_down(self);
    if (rows_dd) { /* beside the last fields where there is room: the form keeps its height */
        if (col > 4) {
            col = 0;
            row++;
        }
        gtk_grid_attach(GTK_GRID(tile), form_label("rows on"), col, row, 1, 1);
        gtk_grid_attach(GTK_GRID(tile), rows_dd, col + 1, row, 1, 1);
        col += 2;
    }
    GtkWidget *apply = gtk_button_new_with_mnemonic("Apply _Tile");
    gtk_widget_set_tooltip_text(apply, "Re-tile: Propagate the changed sizes through the graph "
                                       "and re-partition (Enter in a field does the same)");
    g_signal_connect(apply, "clicked", G_CALLBACK(on_apply_tile), self);
    gtk_grid_attach(GTK_GRID(tile), apply, 0, row + 1, 3, 1);
    GtkWidget *stores = wg_stores_check(self);
    if (stores)
        gtk_grid_attach(GTK_GRID(tile), stores, 3, row + 1, 3, 1);
    gtk_box_append(GTK_BOX(self->form_box), tile);

    GtkWidget *stages = gtk_grid_new();
    gtk_grid_set_column_spacing(GTK_GRID(stages), 6);
    gtk_grid_set_row_spacing(GTK_GRID(stages), 4);
    gtk_grid_attach(GTK_GRID(stages), form_label("Stages (buffered tensors)"), 0, 0, 4, 1);
    int k = 0;
    for (int t = 0; t < m->graph.n_tensors && t < PT_MAX_TENSORS; t++) {
        if (m->prog.stages[t] <= 0)
            continue;
        GtkWidget *spin = gtk_spin_button_new_with_range(1, 16, 1);
        gtk_spin_button_set_value(GTK_SPIN_BUTTON(spin), m->prog.stages[t]);
        g_object_set_data_full(G_OBJECT(spin), "pt-tensor", g_strdup(m->graph.tensors[t].name),
                               g_free);
        char *acc = g_strdup_printf("Stages of %s", m->graph.tensors[t].name);
        gtk_accessible_update_property(GTK_ACCESSIBLE(spin), GTK_ACCESSIBLE_PROPERTY_LABEL, acc,
                                       -1);
        g_free(acc);
        g_signal_connect(spin, "value-changed", G_CALLBACK(on_stages_changed), self);
        gtk_grid_attach(GTK_GRID(stages), form_label(m->graph.tensors[t].name), (k % 2) * 2,
                        1 + k / 2, 1, 1);
        gtk_grid_attach(GTK_GRID(stages), spin, (k % 2) * 2 + 1, 1 + k / 2, 1, 1);
        k++;
    }
    if (!k)
        gtk_grid_attach(GTK_GRID(stages), form_label("none"), 0, 1, 1, 1);
    gtk_box_append(GTK_BOX(self->form_box), stages);
    build_partition(self);
    build_release(self, build_decay(self));

    self->offset_box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    gtk_box_append(GTK_BOX(self->form_box), self->offset_box);
    build_offset_row(self);
}

static gboolean build_form_idle(gpointer data)
{
    PtWindow *self = data;
    if (self->form_box)
        build_form_now(self);
    g_object_unref(self);
    return G_SOURCE_REMOVE;
}

static gboolean offset_row_idle(gpointer data)
{
    PtWindow *self = data;
    if (self->form_box)
        build_offset_row(self);
    g_object_unref(self);
    return G_SOURCE_REMOVE;
}

void win_rebuild_offset_row(PtWindow *self)
{
    g_idle_add(offset_row_idle, g_object_ref(self));
}

/* After every load and edit. An edit may come from a form widget's own signal: rebuilding then
 * would free the widget under its handler, so it waits for the main loop. */
void win_rebuild_form(PtWindow *self)
{
    g_idle_add(build_form_idle, g_object_ref(self));
}
