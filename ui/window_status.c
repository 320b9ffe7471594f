/* window_status.c — PtWindow's status bar under the pages (issue 19): whether the sm90a
 * generator accepts the sProgram (or exactly why not), registers per role and shared memory
 * against the hardware model's limits, and the predicted kernel time with its change after the
 * last edit. Always visible, on every page, so a schedule that cannot become a kernel never
 * looks valid on the timeline. */
#include "window_private.h"

#include <math.h>

GtkWidget *win_build_status_bar(PtWindow *self)
{
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2);
    gtk_widget_add_css_class(box, "pt-status-bar");
    gtk_widget_set_margin_start(box, 8);
    gtk_widget_set_margin_end(box, 8);
    gtk_widget_set_margin_top(box, 4);
    gtk_widget_set_margin_bottom(box, 4);
    GtkWidget **labels[] = {&self->status_gen, &self->status_time, &self->status_res};
    for (guint i = 0; i < G_N_ELEMENTS(labels); i++) {
        GtkWidget *l = gtk_label_new(NULL);
        gtk_label_set_xalign(GTK_LABEL(l), 0);
        gtk_label_set_wrap(GTK_LABEL(l), TRUE);
        gtk_label_set_wrap_mode(GTK_LABEL(l), PANGO_WRAP_WORD_CHAR);
        gtk_label_set_selectable(GTK_LABEL(l), TRUE);
        gtk_widget_set_focusable(l, FALSE); /* Tab goes to the controls, not to status text */
        if (i == 2)
            gtk_widget_add_css_class(l, "dim-label");
        gtk_box_append(GTK_BOX(box), l);
        *labels[i] = l;
    }
    gtk_accessible_update_property(GTK_ACCESSIBLE(box), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   "Schedule status", -1);
    self->status_prev_ns = NAN;
    return box;
}

static void set_flag_class(GtkWidget *w, const char *cls, gboolean on)
{
    if (on)
        gtk_widget_add_css_class(w, cls);
    else
        gtk_widget_remove_css_class(w, cls);
}

void win_update_status(PtWindow *self)
{
    pt_schedule_status *st = &self->status;
    pt_schedule_status_compute(st, self->model);
    char buf[PT_ERROR_MAX + 256];
    gtk_label_set_text(GTK_LABEL(self->status_gen),
                       pt_schedule_status_generator_text(st, self->model, buf, sizeof buf));
    gtk_label_set_text(GTK_LABEL(self->status_res),
                       pt_schedule_status_resources_text(st, self->model, buf, sizeof buf));
    gtk_label_set_text(GTK_LABEL(self->status_time),
                       pt_schedule_status_time_text(st, self->status_prev_ns, buf, sizeof buf));
    gboolean bad = pt_schedule_status_flagged(st);
    set_flag_class(self->status_gen, "error", bad);
    set_flag_class(self->status_gen, "success", st->gen == PT_GEN_OK && !bad);
    set_flag_class(self->status_res, "error", st->smem_over || st->regs_over);
    set_flag_class(self->status_res, "dim-label", !(st->smem_over || st->regs_over));
}

char *pt_window_dup_status_text(PtWindow *self)
{
    return g_strdup_printf("%s\n%s\n%s", gtk_label_get_text(GTK_LABEL(self->status_gen)),
                           gtk_label_get_text(GTK_LABEL(self->status_time)),
                           gtk_label_get_text(GTK_LABEL(self->status_res)));
}

gboolean pt_window_status_flagged(PtWindow *self)
{
    return pt_schedule_status_flagged(&self->status);
}
