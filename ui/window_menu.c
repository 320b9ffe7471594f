/* window_menu.c — the context menu of PtWindow's timeline bars (Add Wait…, one Remove item per
 * Wait of the selected sTask), the Add Wait dialog and Remove Last Wait. The edits themselves go
 * through win.wait-add / win.wait-remove and the model, like every other edit. */
#include "window_private.h"

/* Add Wait…, then one Remove item per Wait of the selected sTask. */
void win_rebuild_bar_menu(PtWindow *self)
{
    if (!self->bar_menu)
        return;
    const pt_explorer_model *m = self->model;
    int sel = self->selected;
    g_menu_remove_all(self->bar_menu);
    GMenu *add = g_menu_new();
    g_menu_append(add, "Add _Wait…", "win.wait-add-dialog");
    g_menu_append_section(self->bar_menu, NULL, G_MENU_MODEL(add));
    g_object_unref(add);
    GMenu *rm = g_menu_new();
    int n = 0;
    for (int w = 0; m->have_prog && sel >= 0 && sel < m->sg.n && w < m->prog.n_waits; w++) {
        const pt_wait_entry *we = &m->prog.waits[w];
        if (we->stask != sel || we->on < 0 || we->on >= m->sg.n)
            continue;
        char *label = g_strdup_printf("Remove Wait on %s (distance %d)", m->sg.tasks[we->on].id,
                                      we->distance);
        GMenuItem *it = g_menu_item_new(label, NULL);
        g_menu_item_set_action_and_target_value(it, "win.wait-remove",
            g_variant_new("(si)", m->sg.tasks[we->on].id, we->distance));
        g_menu_append_item(rm, it);
        g_object_unref(it);
        g_free(label);
        n++;
    }
    if (!n)
        g_menu_append(rm, "No Waits to remove", "win.nothing"); /* no such action: greyed */
    g_menu_append_section(self->bar_menu, NULL, G_MENU_MODEL(rm));
    g_object_unref(rm);
}

GMenuModel *pt_window_get_bar_menu(PtWindow *self)
{
    return G_MENU_MODEL(self->bar_menu);
}

void win_on_bar_context_menu(PtTimelineView *v, int stask, gpointer data)
{
    (void)v, (void)stask;
    win_rebuild_bar_menu(PT_WINDOW(data));
}

static void on_wait_dialog_add(GtkButton *b, gpointer data)
{
    GtkWidget *dlg = data;
    PtWindow *self = g_object_get_data(G_OBJECT(dlg), "pt-window");
    GtkWidget *dd = g_object_get_data(G_OBJECT(dlg), "pt-on");
    GtkWidget *spin = g_object_get_data(G_OBJECT(dlg), "pt-distance");
    (void)b;
    GtkStringObject *item = gtk_drop_down_get_selected_item(GTK_DROP_DOWN(dd));
    if (item)
        gtk_widget_activate_action(GTK_WIDGET(self), "win.wait-add", "(si)",
                                   gtk_string_object_get_string(item),
                                   gtk_spin_button_get_value_as_int(GTK_SPIN_BUTTON(spin)));
    gtk_window_destroy(GTK_WINDOW(dlg));
}

static void on_wait_dialog_cancel(GtkButton *b, gpointer data)
{
    (void)b;
    gtk_window_destroy(GTK_WINDOW(data));
}

/* Add Wait…: choose the sTask waited on and the distance (iterations back). */
void win_action_wait_add_dialog(GSimpleAction *a, GVariant *p, gpointer data)
{
    PtWindow *self = data;
    (void)a, (void)p;
    const pt_explorer_model *m = self->model;
    if (!m->have_sg || self->selected < 0 || self->selected >= m->sg.n) {
        pt_window_show_error(self,
                             "Add Wait: no sTask is selected; click a bar or a table row first");
        return;
    }
    GtkStringList *ids = gtk_string_list_new(NULL);
    for (int i = 0; i < m->sg.n; i++)
        if (i != self->selected)
            gtk_string_list_append(ids, m->sg.tasks[i].id);
    GtkWidget *dlg = gtk_window_new();
    char *title = g_strdup_printf("Add Wait to %s", m->sg.tasks[self->selected].id);
    gtk_window_set_title(GTK_WINDOW(dlg), title);
    g_free(title);
    gtk_window_set_transient_for(GTK_WINDOW(dlg), GTK_WINDOW(self));
    gtk_window_set_modal(GTK_WINDOW(dlg), TRUE);
    gtk_window_set_resizable(GTK_WINDOW(dlg), FALSE);
    GtkWidget *grid = gtk_grid_new();
    gtk_grid_set_row_spacing(GTK_GRID(grid), 8);
    gtk_grid_set_column_spacing(GTK_GRID(grid), 8);
    gtk_widget_set_margin_start(grid, 12);
    gtk_widget_set_margin_end(grid, 12);
    gtk_widget_set_margin_top(grid, 12);
    gtk_widget_set_margin_bottom(grid, 12);
    GtkWidget *l1 = gtk_label_new_with_mnemonic("Wait _on");
    GtkWidget *dd = gtk_drop_down_new(G_LIST_MODEL(ids), NULL); /* takes ids */
    gtk_label_set_mnemonic_widget(GTK_LABEL(l1), dd);
    GtkWidget *l2 = gtk_label_new_with_mnemonic("_Distance (iterations back)");
    GtkWidget *spin = gtk_spin_button_new_with_range(0, 8, 1);
    gtk_label_set_mnemonic_widget(GTK_LABEL(l2), spin);
    gtk_grid_attach(GTK_GRID(grid), l1, 0, 0, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), dd, 1, 0, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), l2, 0, 1, 1, 1);
    gtk_grid_attach(GTK_GRID(grid), spin, 1, 1, 1, 1);
    GtkWidget *buttons = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
    gtk_widget_set_halign(buttons, GTK_ALIGN_END);
    GtkWidget *cancel = gtk_button_new_with_mnemonic("_Cancel");
    GtkWidget *ok = gtk_button_new_with_mnemonic("_Add Wait");
    gtk_widget_add_css_class(ok, "suggested-action");
    gtk_box_append(GTK_BOX(buttons), cancel);
    gtk_box_append(GTK_BOX(buttons), ok);
    gtk_grid_attach(GTK_GRID(grid), buttons, 0, 2, 2, 1);
    gtk_window_set_child(GTK_WINDOW(dlg), grid);
    gtk_window_set_default_widget(GTK_WINDOW(dlg), ok);
    g_object_set_data(G_OBJECT(dlg), "pt-window", self);
    g_object_set_data(G_OBJECT(dlg), "pt-on", dd);
    g_object_set_data(G_OBJECT(dlg), "pt-distance", spin);
    g_signal_connect(ok, "clicked", G_CALLBACK(on_wait_dialog_add), dlg);
    g_signal_connect(cancel, "clicked", G_CALLBACK(on_wait_dialog_cancel), dlg);
    gtk_window_present(GTK_WINDOW(dlg));
}

/* Remove the most recently added Wait of the selected sTask (the keyboard's quick undo of a
 * Wait; the context menu lists every one). */
void win_action_wait_remove_last(GSimpleAction *a, GVariant *p, gpointer data)
{
    PtWindow *self = data;
    (void)a, (void)p;
    const pt_explorer_model *m = self->model;
    pt_error err = {{0}};
    int last = -1;
    for (int w = 0; m->have_prog && w < m->prog.n_waits; w++)
        if (m->prog.waits[w].stask == self->selected)
            last = w;
    if (self->selected < 0 || self->selected >= m->sg.n) {
        pt_fail(&err, "Remove Wait: no sTask is selected; click a bar or a table row first");
        win_edited(self, FALSE, &err);
        return;
    }
    if (last < 0) {
        pt_fail(&err, "Remove Wait: %s has no Waits", m->sg.tasks[self->selected].id);
        win_edited(self, FALSE, &err);
        return;
    }
    pt_wait_entry we = m->prog.waits[last];
    win_edited(self,
               pt_explorer_model_wait_remove(self->model, we.stask, we.on, we.distance, &err),
               &err);
}
