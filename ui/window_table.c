/* window_table.c — the sortable per-sTask tables of the sidebar and pages (Predicted vs measured,
 * the Comparison): a GtkColumnView over a GtkStringList of row indices (win_item_stask), one
 * text column per title. Each table gives its cell texts and its sort keys; column 0 is the
 * sTask id, sorted by its text, left-aligned and expanding; the others are numbers. */
#include "window_private.h"

typedef struct {
    PtWindow *self;
    const win_table_spec *spec;
    int col;
} col_ctx;

static int compare_rows(gconstpointer x, gconstpointer y, gpointer data)
{
    const col_ctx *c = data;
    int i = win_item_stask((gpointer)x), j = win_item_stask((gpointer)y);
    double ka = 0, kb = 0;
    gboolean oki = c->spec->key(c->self, i, c->col, &ka), okj = c->spec->key(c->self, j, c->col, &kb);
    if (!oki || !okj)
        return oki - okj;
    if (c->col == 0) {
        char *a = c->spec->cell(c->self, i, 0), *b = c->spec->cell(c->self, j, 0);
        int r = g_strcmp0(a, b);
        g_free(a);
        g_free(b);
        return r;
    }
    return ka < kb ? GTK_ORDERING_SMALLER : ka > kb ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
}

static void cell_setup(GtkSignalListItemFactory *f, GtkListItem *item, gpointer col)
{
    (void)f;
    GtkWidget *l = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(l), GPOINTER_TO_INT(col) == 0 ? 0 : 1);
    gtk_list_item_set_child(item, l);
}

static void cell_bind(GtkSignalListItemFactory *f, GtkListItem *item, gpointer col)
{
    PtWindow *self = g_object_get_data(G_OBJECT(f), "pt-window");
    const win_table_spec *spec = g_object_get_data(G_OBJECT(f), "pt-table-spec");
    char *t = spec->cell(self, win_item_stask(gtk_list_item_get_item(item)), GPOINTER_TO_INT(col));
    gtk_label_set_text(GTK_LABEL(gtk_list_item_get_child(item)), t);
    g_free(t);
}

GtkWidget *win_table_new(PtWindow *self, const win_table_spec *spec, GtkStringList *rows)
{
    GtkWidget *cv = gtk_column_view_new(NULL);
    gtk_column_view_set_show_column_separators(GTK_COLUMN_VIEW(cv), TRUE);
    for (int c = 0; c < spec->n_cols; c++) {
        GtkListItemFactory *f = gtk_signal_list_item_factory_new();
        g_object_set_data(G_OBJECT(f), "pt-window", self);
        g_object_set_data(G_OBJECT(f), "pt-table-spec", (gpointer)spec);
        g_signal_connect(f, "setup", G_CALLBACK(cell_setup), GINT_TO_POINTER(c));
        g_signal_connect(f, "bind", G_CALLBACK(cell_bind), GINT_TO_POINTER(c));
        GtkColumnViewColumn *col = gtk_column_view_column_new(spec->titles[c], f);
        gtk_column_view_column_set_resizable(col, TRUE);
        col_ctx *cc = g_new0(col_ctx, 1);
        cc->self = self;
        cc->spec = spec;
        cc->col = c;
        GtkCustomSorter *so = gtk_custom_sorter_new(compare_rows, cc, g_free);
        gtk_column_view_column_set_sorter(col, GTK_SORTER(so));
        g_object_unref(so);
        if (c == 0)
            gtk_column_view_column_set_expand(col, TRUE);
        gtk_column_view_append_column(GTK_COLUMN_VIEW(cv), col);
        if (c == spec->sort_col)
            gtk_column_view_sort_by_column(GTK_COLUMN_VIEW(cv), col, GTK_SORT_DESCENDING);
        g_object_unref(col);
    }
    GtkSorter *sorter = gtk_column_view_get_sorter(GTK_COLUMN_VIEW(cv));
    GtkSortListModel *sm = gtk_sort_list_model_new(G_LIST_MODEL(g_object_ref(rows)),
                                                   g_object_ref(sorter));
    GtkNoSelection *sel = gtk_no_selection_new(G_LIST_MODEL(sm));
    gtk_column_view_set_model(GTK_COLUMN_VIEW(cv), GTK_SELECTION_MODEL(sel));
    g_object_unref(sel);
    return cv;
}
