/* window_hw.c — PtWindow's hardware selector: the header bar's drop-down of builtin models
 * (and "Custom JSON…", a hardware-model file), pt_window_set_hw, and putting the loaded sProgram
 * on the chosen hardware (re-validated and re-simulated; a refused switch reverts the drop-down).
 * The drop-down itself is made in pt_window_init (window.c). */
#include "window_private.h"

const char *const win_hw_names[] = {"H100", "H200", "MI300X", "Custom JSON…", NULL};

/* Put the loaded sProgram on hardware `name` (re-validated and re-simulated: edits are kept);
 * on failure the banner says why and the drop-down goes back to the model in use. */
static void apply_hw(PtWindow *self, const char *name, guint index)
{
    pt_error err = {{0}};
    if (self->model->have_prog && !pt_explorer_model_set_hw(self->model, name, &err)) {
        pt_window_show_error(self, err.msg);
        self->hw_reverting = TRUE;
        gtk_drop_down_set_selected(GTK_DROP_DOWN(self->hw_dropdown), self->hw_index);
        self->hw_reverting = FALSE;
        return;
    }
    g_strlcpy(self->hw_name, name, sizeof self->hw_name);
    self->hw_index = index;
    if (self->model->have_tl)
        pt_window_refresh(self);
}

gboolean pt_window_set_hw(PtWindow *self, const char *name)
{
    guint index = HW_CUSTOM;
    for (guint i = 0; i < HW_CUSTOM; i++)
        if (g_str_equal(win_hw_names[i], name))
            index = i;
    apply_hw(self, name, index);
    if (!g_str_equal(self->hw_name, name))
        return FALSE;
    self->hw_reverting = TRUE;
    gtk_drop_down_set_selected(GTK_DROP_DOWN(self->hw_dropdown), index);
    self->hw_reverting = FALSE;
    return TRUE;
}

static void on_hw_file_response(GtkNativeDialog *d, int response, gpointer data)
{
    PtWindow *self = data;
    GFile *f = response == GTK_RESPONSE_ACCEPT ? gtk_file_chooser_get_file(GTK_FILE_CHOOSER(d))
                                               : NULL;
    char *path = f ? g_file_get_path(f) : NULL;
    if (path)
        apply_hw(self, path, HW_CUSTOM);
    else {
        self->hw_reverting = TRUE;
        gtk_drop_down_set_selected(GTK_DROP_DOWN(self->hw_dropdown), self->hw_index);
        self->hw_reverting = FALSE;
    }
    g_free(path);
    if (f)
        g_object_unref(f);
    gtk_native_dialog_destroy(d);
    g_object_unref(d);
}

void win_on_hw_changed(GObject *o, GParamSpec *ps, gpointer data)
{
    PtWindow *self = data;
    (void)ps;
    guint i = gtk_drop_down_get_selected(GTK_DROP_DOWN(o));
    if (self->hw_reverting || i >= G_N_ELEMENTS(win_hw_names) - 1)
        return;
    if (i == HW_CUSTOM) {
        GtkFileChooserNative *fc = gtk_file_chooser_native_new(
            "Hardware Model", GTK_WINDOW(self), GTK_FILE_CHOOSER_ACTION_OPEN, "_Use", "_Cancel");
        GtkFileFilter *json = gtk_file_filter_new();
        gtk_file_filter_set_name(json, "Hardware models (*.json)");
        gtk_file_filter_add_pattern(json, "*.json");
        gtk_file_chooser_add_filter(GTK_FILE_CHOOSER(fc), json);
        g_object_unref(json);
        g_signal_connect(fc, "response", G_CALLBACK(on_hw_file_response), self);
        gtk_native_dialog_show(GTK_NATIVE_DIALOG(fc));
        return;
    }
    if (g_str_equal(self->hw_name, win_hw_names[i]))
        return;
    apply_hw(self, win_hw_names[i], i);
}
