/* window_pages.c — building PtWindow's pages: the start page (shipped examples, recent files),
 * the main page (summary, hint, view toggles, Timeline / sTask-graph / Code stack) and its side
 * panel (sTask table with search, inspector, form box), with the signal handlers that only these
 * widgets use. The table's text, the inspector's text and the selection logic stay in window.c. */
#include "window_private.h"

#include "actions.h"
#include "embedded.h"
#include "graph_view.h"

/* A section heading of the sidebar or the start page. */
GtkWidget *win_heading(const char *text)
{
    GtkWidget *l = gtk_label_new(text);
    gtk_widget_add_css_class(l, "heading");
    gtk_label_set_xalign(GTK_LABEL(l), 0);
    return l;
}

static const char *const col_titles[N_COLS] = {"sTask", "Kind", "sEU", "Region", "Tile",
                                               "Bytes", "Flops"};

static void cell_setup(GtkSignalListItemFactory *f, GtkListItem *li, gpointer data)
{
    (void)f;
    GtkWidget *label = gtk_label_new(NULL);
    int col = GPOINTER_TO_INT(data);
    gtk_label_set_xalign(GTK_LABEL(label), col >= COL_BYTES ? 1.0f : 0.0f);
    /* sTask ids differ at both ends (softmax_exp.P.wg0 / .wg1): cut in the middle, so the
     * warpgroup suffix stays visible; the whole text is the cell's tooltip. */
    if (col == COL_ID)
        gtk_label_set_ellipsize(GTK_LABEL(label), PANGO_ELLIPSIZE_MIDDLE);
    else if (col < COL_BYTES)
        gtk_label_set_ellipsize(GTK_LABEL(label), PANGO_ELLIPSIZE_END);
    gtk_list_item_set_child(li, label);
}

static void cell_bind(GtkSignalListItemFactory *f, GtkListItem *li, gpointer data)
{
    PtWindow *self = g_object_get_data(G_OBJECT(f), "pt-window");
    char *text = win_cell_text(self, win_item_stask(gtk_list_item_get_item(li)),
                               GPOINTER_TO_INT(data));
    gtk_label_set_text(GTK_LABEL(gtk_list_item_get_child(li)), text);
    gtk_widget_set_tooltip_text(gtk_list_item_get_child(li), text);
    g_free(text);
}

static gboolean filter_match(gpointer item, gpointer data)
{
    PtWindow *self = data;
    return win_stask_matches(self, win_item_stask(item),
                             gtk_editable_get_text(GTK_EDITABLE(self->search)));
}

/* Esc in the table's search: empty it (and the selection goes too, as Esc does elsewhere). */
static void on_search_stop(GtkSearchEntry *e, gpointer data)
{
    gtk_editable_set_text(GTK_EDITABLE(e), "");
    pt_window_select_stask(PT_WINDOW(data), -1);
}

static void on_search_changed(GtkSearchEntry *e, gpointer data)
{
    PtWindow *self = data;
    (void)e;
    gtk_filter_changed(GTK_FILTER(self->filter), GTK_FILTER_CHANGE_DIFFERENT);
}

static void on_selection_changed(GObject *o, GParamSpec *ps, gpointer data)
{
    PtWindow *self = data;
    (void)ps;
    if (self->syncing)
        return;
    int i = win_item_stask(gtk_single_selection_get_selected_item(GTK_SINGLE_SELECTION(o)));
    self->syncing = TRUE;
    self->selected = i;
    win_rebuild_offset_row(self); /* the form's offset row is the new selection's, not the last */
    pt_timeline_view_set_selected(PT_TIMELINE_VIEW(self->timeline), i);
    pt_graph_view_set_selected(PT_GRAPH_VIEW(self->graph), i);
    win_update_inspector(self, i);
    pt_actions_stask_selected(self, i);
    self->syncing = FALSE;
}

static void on_timeline_selected(PtTimelineView *v, int stask, gpointer data)
{
    (void)v;
    pt_window_select_stask(PT_WINDOW(data), stask);
}

static void on_graph_selected(PtGraphView *v, int stask, gpointer data)
{
    (void)v;
    pt_window_select_stask(PT_WINDOW(data), stask);
}

static void on_stask_dropped(PtTimelineView *v, int stask, int lane, double t_ns, gpointer data)
{
    PtWindow *self = data;
    (void)v;
    pt_error err = {{0}};
    lane = win_lane_of_row(self, lane); /* the view's rows skip unusable lanes */
    if (lane < 0)
        return;
    int pos = pt_explorer_model_drop_position(self->model, stask, lane, t_ns);
    self->selected = stask;
    win_edited(self, pt_explorer_model_append(self->model, stask, lane, pos, &err), &err);
}

static void on_unroll_changed(PtGraphView *v, int k, gpointer data)
{
    (void)v;
    GAction *a = g_action_map_lookup_action(G_ACTION_MAP(data), "unroll-loop");
    if (a)
        g_simple_action_set_state(G_SIMPLE_ACTION(a), g_variant_new_boolean(k > 1));
}

static void on_example_activated(GtkListBox *box, GtkListBoxRow *row, gpointer data)
{
    (void)box;
    const char *name = g_object_get_data(G_OBJECT(row), "pt-example");
    if (name)
        pt_window_request_open(PT_WINDOW(data), name);
}

/* ---- pages -------------------------------------------------------------------------- */

GtkWidget *win_build_start_page(PtWindow *self)
{
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
    gtk_widget_set_halign(box, GTK_ALIGN_CENTER);
    gtk_widget_set_valign(box, GTK_ALIGN_CENTER);
    gtk_widget_set_margin_top(box, 24);
    gtk_widget_set_margin_bottom(box, 24);
    GtkWidget *title = gtk_label_new("Open an operator graph");
    gtk_widget_add_css_class(title, "title-1");
    gtk_box_append(GTK_BOX(box), title);
    GtkWidget *sub = gtk_label_new("Use Open (Ctrl+O) for a graph JSON file, or start from a "
                                   "shipped example:");
    gtk_widget_add_css_class(sub, "dim-label");
    gtk_box_append(GTK_BOX(box), sub);
    GtkWidget *list = gtk_list_box_new();
    gtk_widget_add_css_class(list, "boxed-list");
    gtk_list_box_set_selection_mode(GTK_LIST_BOX(list), GTK_SELECTION_NONE);
    for (const pt_embedded_file *e = pt_embedded_examples; e->name; e++) {
        GtkWidget *row = gtk_list_box_row_new();
        GtkWidget *label = gtk_label_new(e->name);
        gtk_label_set_xalign(GTK_LABEL(label), 0);
        gtk_widget_set_margin_start(label, 12);
        gtk_widget_set_margin_end(label, 12);
        gtk_widget_set_margin_top(label, 8);
        gtk_widget_set_margin_bottom(label, 8);
        gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(row), label);
        g_object_set_data(G_OBJECT(row), "pt-example", (gpointer)e->name);
        gtk_list_box_append(GTK_LIST_BOX(list), row);
    }
    g_signal_connect(list, "row-activated", G_CALLBACK(on_example_activated), self);
    GtkWidget *frame = gtk_frame_new(NULL);
    gtk_frame_set_child(GTK_FRAME(frame), list);
    gtk_widget_set_size_request(frame, 360, -1);
    gtk_box_append(GTK_BOX(box), frame);
    /* Recent files (hidden while there are none). */
    GtkWidget *recent = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
    gtk_box_append(GTK_BOX(recent), win_heading("Recent files"));
    self->recent_list = gtk_list_box_new();
    gtk_list_box_set_selection_mode(GTK_LIST_BOX(self->recent_list), GTK_SELECTION_NONE);
    g_signal_connect(self->recent_list, "row-activated", G_CALLBACK(win_on_recent_activated), self);
    GtkWidget *rframe = gtk_frame_new(NULL);
    gtk_frame_set_child(GTK_FRAME(rframe), self->recent_list);
    gtk_box_append(GTK_BOX(recent), rframe);
    gtk_box_append(GTK_BOX(box), recent);
    GtkWidget *scroll = gtk_scrolled_window_new();
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroll), box);
    return scroll;
}

static GtkWidget *build_side_panel(PtWindow *self)
{
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
    gtk_widget_set_margin_start(box, 6);
    gtk_widget_set_margin_end(box, 6);
    gtk_widget_set_margin_top(box, 6);
    gtk_widget_set_margin_bottom(box, 6);
    self->search = gtk_search_entry_new();
    /* The property exists in 4.8; the setter only from 4.10. */
    g_object_set(self->search, "placeholder-text", "Search sTasks (id, kind, sEU, expr)", NULL);
    gtk_accessible_update_property(GTK_ACCESSIBLE(self->search), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   "Search sTasks", -1);
    g_signal_connect(self->search, "search-changed", G_CALLBACK(on_search_changed), self);
    g_signal_connect(self->search, "stop-search", G_CALLBACK(on_search_stop), self);
    gtk_box_append(GTK_BOX(box), self->search);

    self->rows = gtk_string_list_new(NULL);
    self->filter = gtk_custom_filter_new(filter_match, self, NULL);
    GtkFilterListModel *fm = gtk_filter_list_model_new(G_LIST_MODEL(self->rows),
                                                       GTK_FILTER(self->filter));
    self->selection = gtk_single_selection_new(G_LIST_MODEL(fm));
    gtk_single_selection_set_autoselect(self->selection, FALSE);
    gtk_single_selection_set_can_unselect(self->selection, TRUE);
    g_signal_connect(self->selection, "notify::selected", G_CALLBACK(on_selection_changed), self);
    self->column_view = gtk_column_view_new(GTK_SELECTION_MODEL(self->selection));
    gtk_column_view_set_show_column_separators(GTK_COLUMN_VIEW(self->column_view), TRUE);
    for (int c = 0; c < N_COLS; c++) {
        GtkListItemFactory *f = gtk_signal_list_item_factory_new();
        g_object_set_data(G_OBJECT(f), "pt-window", self);
        g_signal_connect(f, "setup", G_CALLBACK(cell_setup), GINT_TO_POINTER(c));
        g_signal_connect(f, "bind", G_CALLBACK(cell_bind), GINT_TO_POINTER(c));
        GtkColumnViewColumn *col = gtk_column_view_column_new(col_titles[c], f);
        gtk_column_view_column_set_resizable(col, TRUE);
        if (c == COL_ID) {
            /* The id column takes the room the sidebar has (and grows with it, or by dragging
             * its edge); what still does not fit is cut in the middle. */
            gtk_column_view_column_set_expand(col, TRUE);
            gtk_column_view_column_set_fixed_width(col, 150);
        }
        gtk_column_view_append_column(GTK_COLUMN_VIEW(self->column_view), col);
        g_object_unref(col);
    }
    GtkWidget *scroll = gtk_scrolled_window_new();
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroll), self->column_view);
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scroll), GTK_POLICY_AUTOMATIC,
                                   GTK_POLICY_AUTOMATIC);
    gtk_widget_set_vexpand(scroll, TRUE);
    GtkWidget *frame = gtk_frame_new(NULL);
    gtk_frame_set_child(GTK_FRAME(frame), scroll);
    gtk_widget_set_vexpand(frame, TRUE);
    gtk_box_append(GTK_BOX(box), frame);

    gtk_box_append(GTK_BOX(box), win_build_range_section(self));
    gtk_box_append(GTK_BOX(box), win_build_diff_section(self));
    gtk_box_append(GTK_BOX(box), win_heading("Inspector"));
    self->inspector = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(self->inspector), 0);
    gtk_label_set_yalign(GTK_LABEL(self->inspector), 0);
    gtk_label_set_wrap(GTK_LABEL(self->inspector), TRUE);
    gtk_label_set_wrap_mode(GTK_LABEL(self->inspector), PANGO_WRAP_WORD_CHAR);
    gtk_label_set_selectable(GTK_LABEL(self->inspector), TRUE);
    GtkWidget *iscroll = gtk_scrolled_window_new();
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(iscroll), GTK_POLICY_NEVER,
                                   GTK_POLICY_AUTOMATIC);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(iscroll), self->inspector);
    /* with the form below, the sidebar fits a 700-px-high window */
    gtk_widget_set_size_request(iscroll, -1, 180);
    gtk_box_append(GTK_BOX(box), iscroll);
    self->form_box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 8);
    gtk_box_append(GTK_BOX(box), self->form_box);
    /* Narrow enough for a 1024 px screen to leave the timeline most of the width; the
     * divider widens it. */
    gtk_widget_set_size_request(box, 300, -1);
    self->sidebar = box;
    return box;
}

static const char timeline_hint[] =
    "Ctrl+wheel or W/S zoom · A/D pan · F fit · click a bar to select (empty space: none; arrow "
    "keys: its neighbours), drag "
    "it to move it (Append) · drag the ruler (or Shift+drag) to measure a time range, Z zoom to "
    "it · drag the overview to pan · Ctrl+F find · F9 sidebar · colours: blue TMA, green tensor "
    "core, orange CUDA core, grey merged; thin magenta outlined bars: measured (a loaded trace); "
    "red strip: critical path; amber: idle; arrows of the clicked bar: solid data, dashed Wait, "
    "dotted violet a free ring stage, dash-dot its unit busy (queued behind another lane's "
    "bar); right-click a bar for its Waits";
static const char graph_hint[] =
    "Ctrl+wheel or W/S zoom at the pointer · drag or wheel to pan · F (Ctrl+0) fit · click a box "
    "to select · double-click the loop body (or Unroll Loop, Ctrl+3) to show iterations · "
    "colours: blue TMA, green tensor core, orange CUDA core; dashed edges: loop-carried";

/* The hint line and the toggles belong to a page: the timeline's (critical path, several
 * CTAs) are not shown with the sTask-graph, whose own is Unroll Loop; the Code page has
 * neither. */
static void on_view_changed(GObject *o, GParamSpec *ps, gpointer data)
{
    PtWindow *self = data;
    (void)ps;
    const char *page = gtk_stack_get_visible_child_name(GTK_STACK(o));
    gboolean graph = page && strcmp(page, "graph") == 0;
    gboolean timeline = !page || strcmp(page, "timeline") == 0;
    gtk_widget_set_visible(self->view_hint, graph || timeline);
    gtk_widget_set_visible(self->view_bar, graph || timeline);
    gtk_label_set_text(GTK_LABEL(self->view_hint), graph ? graph_hint : timeline_hint);
    gtk_widget_set_visible(self->critical_toggle, timeline);
    gtk_widget_set_visible(self->cta_toggle, timeline);
    gtk_widget_set_visible(self->unroll_toggle, graph);
}

GtkWidget *win_build_main_page(PtWindow *self)
{
    GtkWidget *left = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
    self->summary = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(self->summary), 0);
    gtk_label_set_wrap(GTK_LABEL(self->summary), TRUE);
    gtk_widget_set_margin_start(self->summary, 8);
    gtk_widget_set_margin_top(self->summary, 6);
    gtk_box_append(GTK_BOX(left), self->summary);
    GtkWidget *hint = gtk_label_new(timeline_hint);
    gtk_widget_add_css_class(hint, "dim-label");
    gtk_label_set_xalign(GTK_LABEL(hint), 0);
    gtk_label_set_wrap(GTK_LABEL(hint), TRUE);
    gtk_widget_set_margin_start(hint, 8);
    gtk_box_append(GTK_BOX(left), hint);
    GtkWidget *bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    gtk_widget_set_margin_start(bar, 8);
    static const struct { const char *label, *action, *tip; } toggles[] = {
        {"_Critical Path", "win.show-critical",
         "Red: the chain of bars that set the EU's length; amber: idle lane time (Ctrl+1)"},
        {"Several _CTAs", "win.show-ctas",
         "Lane groups: a trace's sampled CTAs, else the waves one EU runs (Ctrl+2)"},
        {"_Unroll Loop", "win.unroll-loop",
         "sTask-graph: show 3 loop iterations with their loop-carried edges (Ctrl+3; or "
         "double-click the loop body)"},
    };
    for (guint i = 0; i < G_N_ELEMENTS(toggles); i++) {
        GtkWidget *t = gtk_toggle_button_new_with_mnemonic(toggles[i].label);
        gtk_actionable_set_action_name(GTK_ACTIONABLE(t), toggles[i].action);
        gtk_widget_set_tooltip_text(t, toggles[i].tip);
        gtk_widget_add_css_class(t, "flat");
        gtk_box_append(GTK_BOX(bar), t);
        if (i == 0)
            self->critical_toggle = t;
        if (i == 1)
            self->cta_toggle = t;
        if (i == 2)
            self->unroll_toggle = t;
    }
    gtk_box_append(GTK_BOX(left), bar);
    self->view_hint = hint;
    self->view_bar = bar;
    gtk_widget_set_visible(self->unroll_toggle, FALSE); /* the timeline is shown first */
    self->timeline = pt_timeline_view_new();
    self->bar_menu = g_menu_new();
    pt_timeline_view_set_context_menu(PT_TIMELINE_VIEW(self->timeline),
                                      G_MENU_MODEL(self->bar_menu));
    g_signal_connect(self->timeline, "context-menu", G_CALLBACK(win_on_bar_context_menu), self);
    g_signal_connect(self->timeline, "stask-selected", G_CALLBACK(on_timeline_selected), self);
    g_signal_connect(self->timeline, "stask-dropped", G_CALLBACK(on_stask_dropped), self);
    GtkWidget *scroll = gtk_scrolled_window_new();
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(scroll), GTK_POLICY_NEVER,
                                   GTK_POLICY_AUTOMATIC);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroll), self->timeline);
    gtk_widget_set_vexpand(scroll, TRUE);
    gtk_widget_set_hexpand(scroll, TRUE);
    /* Two pages over the same selection: the timeline and the sTask-graph (switcher in the
     * header bar). */
    self->graph = pt_graph_view_new();
    g_signal_connect(self->graph, "stask-selected", G_CALLBACK(on_graph_selected), self);
    g_signal_connect(self->graph, "unroll-changed", G_CALLBACK(on_unroll_changed), self);
    gtk_widget_set_vexpand(self->graph, TRUE);
    gtk_widget_set_hexpand(self->graph, TRUE);
    self->views = gtk_stack_new();
    GtkWidget *tl_page = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    gtk_box_append(GTK_BOX(tl_page), win_build_timeline_search(self));
    gtk_box_append(GTK_BOX(tl_page), scroll);
    gtk_stack_add_titled(GTK_STACK(self->views), tl_page, "timeline", "Timeline");
    gtk_stack_add_titled(GTK_STACK(self->views), self->graph, "graph", "sTask-graph");
    gtk_stack_add_titled(GTK_STACK(self->views), pt_actions_code_view(self), "code", "Code");
    /* predicted vs measured: an icon in the switcher (its title is the tooltip), so the
     * header bar stays narrow enough for a 1024 px screen */
    GtkStackPage *cp = gtk_stack_add_titled(GTK_STACK(self->views), win_build_compare_page(self),
                                            "compare", "Predicted vs measured");
    gtk_stack_page_set_icon_name(cp, "x-office-spreadsheet-symbolic");
    gtk_stack_set_visible_child_name(GTK_STACK(self->views), "timeline");
    g_signal_connect(self->views, "notify::visible-child-name", G_CALLBACK(on_view_changed), self);
    gtk_widget_set_vexpand(self->views, TRUE);
    gtk_box_append(GTK_BOX(left), self->views);
    gtk_box_append(GTK_BOX(left), gtk_separator_new(GTK_ORIENTATION_HORIZONTAL));
    gtk_box_append(GTK_BOX(left), win_build_status_bar(self));

    GtkWidget *paned = gtk_paned_new(GTK_ORIENTATION_HORIZONTAL);
    gtk_paned_set_wide_handle(GTK_PANED(paned), TRUE); /* a divider one can see and grab */
    self->paned = paned;
    gtk_paned_set_start_child(GTK_PANED(paned), left);
    gtk_paned_set_end_child(GTK_PANED(paned), build_side_panel(self));
    gtk_paned_set_resize_end_child(GTK_PANED(paned), FALSE);
    gtk_paned_set_shrink_end_child(GTK_PANED(paned), FALSE);
    gtk_paned_set_shrink_start_child(GTK_PANED(paned), FALSE);
    return paned;
}
