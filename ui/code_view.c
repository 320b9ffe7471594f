/* code_view.c — PtCodeView, the generated kernel in a GtkSourceView (see code_view.h). */
#include "code_view.h"

#include "style.h"

#include <ctype.h>
#include <gtksourceview/gtksource.h>
#include <string.h>

#include "backend.h"
#include "code_search.h"
#include "codegen.h"

struct _PtCodeView {
    GtkBox parent_instance;
    GtkWidget *info, *note, *scroll, *view, *search;
    GtkSourceBuffer *buffer;
    const pt_explorer_model *model;
    gboolean stale;            /* the model changed since the code was generated */
    char *note_text;           /* why there is no code, or NULL */
    char *stask;               /* the sTask to show, or NULL */
    guint scroll_idle;         /* the scroll again once the layout is complete */
};

G_DEFINE_FINAL_TYPE(PtCodeView, pt_code_view, GTK_TYPE_BOX)

/* ---- finding an sTask's code -------------------------------------------------------------- */

static gboolean id_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Does the id (n bytes) at p stand as a whole word ("mma.C" not in "mma.C.wg0" nor in
 * "wgmma.C")? */
static gboolean whole_word(const char *text, const char *p, size_t n)
{
    if (p > text && (id_char(p[-1]) || p[-1] == '.'))
        return FALSE;
    char c = p[n];
    return !id_char(c) && !(c == '.' && id_char(p[n + 1]));
}

/* First line at or after offset `from` whose comment names id (n bytes); 0 when none. With
 * lead, only comments that begin with the id count: that is where generated code marks the
 * sTask's own statements ("// mma.O.wg1 at iteration v+0"), ahead of lists that mention it. */
static int find_in_comments(const char *text, size_t from, const char *id, size_t n, gboolean lead)
{
    int line = 1;
    for (size_t i = 0; i < from && text[i]; i++)
        line += text[i] == '\n';
    const char *s = text + from;
    while (*s) {
        const char *eol = strchr(s, '\n');
        size_t len = eol ? (size_t)(eol - s) : strlen(s);
        const char *c = NULL;
        for (size_t k = 0; k + 1 < len && !c; k++)
            if (s[k] == '/' && (s[k + 1] == '/' || s[k + 1] == '*'))
                c = s + k + 2;
        if (c && lead)
            while (c < s + len && *c == ' ')
                c++;
        for (const char *p = c; p && p + n <= s + len; p++) {
            if (memcmp(p, id, n) == 0 && whole_word(text, p, n))
                return line;
            if (lead)
                break;
        }
        if (!eol)
            break;
        s = eol + 1;
        line++;
    }
    return 0;
}

int pt_code_find_stask_line(const char *text, const char *id)
{
    if (!text || !id || !*id)
        return 0;
    const char *kernel = strstr(text, "__global__");
    size_t from = 0;
    if (kernel) {
        while (kernel > text && kernel[-1] != '\n')
            kernel--;
        from = (size_t)(kernel - text);
    }
    size_t n = strlen(id);
    /* The id, then the id less its last part (per-warpgroup sTasks share their code). */
    for (;;) {
        int line = find_in_comments(text, from, id, n, TRUE);
        if (!line)
            line = find_in_comments(text, from, id, n, FALSE);
        if (!line && from)
            line = find_in_comments(text, 0, id, n, FALSE);
        if (line)
            return line;
        const char *dot = NULL;
        for (size_t k = 0; k < n; k++)
            if (id[k] == '.')
                dot = id + k;
        if (!dot || dot == id)
            return 0;
        n = (size_t)(dot - id);
    }
}

/* ---- generating ------------------------------------------------------------------------- */

static void set_note(PtCodeView *v, const char *note)
{
    g_free(v->note_text);
    v->note_text = note ? g_strdup(note) : NULL;
    gtk_label_set_text(GTK_LABEL(v->note), note ? note : "");
    /* The (then empty) source view stays: unmapping a GtkTextView in the middle of an update
     * trips a GTK 4.8 critical. */
    gtk_widget_set_visible(v->note, note != NULL);
}

static void scroll_to_stask(PtCodeView *v)
{
    if (!v->stask || v->note_text) /* a reference kernel has no sTasks to scroll to */
        return;
    GtkTextBuffer *b = GTK_TEXT_BUFFER(v->buffer);
    GtkTextIter a, e;
    gtk_text_buffer_get_bounds(b, &a, &e);
    char *text = gtk_text_buffer_get_text(b, &a, &e, FALSE);
    int line = pt_code_find_stask_line(text, v->stask);
    g_free(text);
    if (line <= 0)
        return;
    GtkTextIter it;
    gtk_text_buffer_get_iter_at_line(b, &it, line - 1);
    gtk_text_buffer_place_cursor(b, &it);
    /* Scrolled once the view has its layout (GtkTextView keeps a pending scroll till then). */
    gtk_text_view_scroll_to_mark(GTK_TEXT_VIEW(v->view), gtk_text_buffer_get_insert(b), 0.0, TRUE,
                                 0.0, 0.25);
}

/* GtkTextView's own pending scroll lands short on a buffer whose layout is not validated yet
 * (a fresh kernel): scroll once more from an idle below the validation's priority. */
static gboolean scroll_again(gpointer data)
{
    PtCodeView *v = data;
    v->scroll_idle = 0;
    scroll_to_stask(v);
    return G_SOURCE_REMOVE;
}

static void scroll_soon(PtCodeView *v)
{
    scroll_to_stask(v);
    if (!v->scroll_idle && v->stask)
        v->scroll_idle = g_idle_add_full(G_PRIORITY_LOW, scroll_again, v, NULL);
}

/* The generator refused (why: `why`): the graph's naive reference kernel instead, so the page
 * is never empty — every example graph has one (codegen/reference.c) — with the refusal in the
 * note above it. */
static void show_reference(PtCodeView *v, const char *why)
{
    const pt_explorer_model *m = v->model;
    GtkTextBuffer *b = GTK_TEXT_BUFFER(v->buffer);
    pt_codegen_result r = {0};
    pt_error err = {{0}};
    if (!pt_codegen_reference(&m->graph, &r, &err)) {
        char *n = g_strdup_printf("No sm90a kernel: %s (and no reference kernel: %s)", why,
                                  err.msg);
        gtk_text_buffer_set_text(b, "", 0);
        gtk_label_set_text(GTK_LABEL(v->info), "");
        set_note(v, n);
        g_free(n);
        pt_codegen_result_free(&r);
        return;
    }
    char *n = g_strdup_printf("No sm90a kernel: %s. Shown instead: the graph's reference "
                              "kernel.", why);
    set_note(v, n);
    g_free(n);
    char *info = g_strdup_printf("reference.cu of %s: the naive reference (one thread per output "
                                 "element, f32 accumulation) that generated kernels are checked "
                                 "against; it follows no sProgram.", m->graph.name);
    gtk_label_set_text(GTK_LABEL(v->info), info);
    g_free(info);
    gtk_text_buffer_set_text(b, r.kernel_cu ? r.kernel_cu : "", -1);
    pt_codegen_result_free(&r);
    GtkTextIter start;
    gtk_text_buffer_get_start_iter(b, &start);
    gtk_text_buffer_place_cursor(b, &start);
}

gboolean pt_code_view_is_reference(PtCodeView *v)
{
    return v->note_text && g_str_has_prefix(v->note_text, "No sm90a kernel: ") &&
           strstr(v->note_text, "Shown instead: the graph's reference kernel") != NULL;
}

void pt_code_view_refresh(PtCodeView *v)
{
    if (!v->stale)
        return;
    v->stale = FALSE;
    const pt_explorer_model *m = v->model;
    GtkTextBuffer *b = GTK_TEXT_BUFFER(v->buffer);
    if (!m || !m->have_prog) {
        gtk_text_buffer_set_text(b, "", 0);
        gtk_label_set_text(GTK_LABEL(v->info), "");
        set_note(v, "Open a graph to see the kernel generated from its sProgram.");
        return;
    }
    if (m->warning[0]) {
        char *n = g_strdup_printf("the sProgram is invalid: %s", m->warning);
        show_reference(v, n);
        g_free(n);
        return;
    }
    pt_codegen_result r = {0};
    pt_error err = {{0}};
    /* The target that generates for the shown hardware model, as the status bar asks. */
    const pt_backend *be = pt_backend_for_arch(m->hw.arch);
    if (!be) {
        char *n = g_strdup_printf("no code generator targets %s (%s) yet; the registered "
                                  "targets are %s", m->hw.name, m->hw.arch, pt_backend_names());
        show_reference(v, n);
        g_free(n);
        return;
    }
    if (!be->generate(&m->prog, &m->sg, &m->hw, &r, &err)) {
        pt_codegen_result_free(&r);
        /* The generator's own refusal says what it lacks (a graph it has no lowering for, a
         * hardware model it does not target, an sProgram shape it cannot emit). */
        show_reference(v, err.msg[0] ? err.msg : "the backend refused the sProgram");
        return;
    }
    char *info = g_strdup_printf("kernel.cu of %s (%s, %s): grid %lld CTAs of %d threads, "
                                 "%lld bytes of shared memory. Read-only: edit the sProgram "
                                 "and it is regenerated.",
                                 m->graph.name, be->name, r.kernel_name, (long long)r.grid, r.block_threads,
                                 (long long)r.smem_bytes);
    gtk_label_set_text(GTK_LABEL(v->info), info);
    g_free(info);
    gtk_text_buffer_set_text(b, r.kernel_cu ? r.kernel_cu : "", -1);
    pt_codegen_result_free(&r);
    set_note(v, NULL);
    GtkTextIter start;
    gtk_text_buffer_get_start_iter(b, &start);
    gtk_text_buffer_place_cursor(b, &start);
    scroll_soon(v);
}

void pt_code_view_set_model(PtCodeView *v, const pt_explorer_model *m)
{
    v->model = m;
    v->stale = TRUE;
    if (gtk_widget_get_mapped(GTK_WIDGET(v)))
        pt_code_view_refresh(v);
}

void pt_code_view_show_stask(PtCodeView *v, const char *id)
{
    if (!id)
        return;
    g_free(v->stask);
    v->stask = g_strdup(id);
    if (!v->stale)
        scroll_soon(v);
}

/* The source's colours follow the dark preference and the theme (GTK_THEME=Adwaita:dark sets
 * no preference, but the theme's text is light). */
static void apply_scheme(PtCodeView *v)
{
    gboolean dark = pt_style_widget_is_dark(GTK_WIDGET(v));
    GtkSourceStyleScheme *scheme = gtk_source_style_scheme_manager_get_scheme(
        gtk_source_style_scheme_manager_get_default(), dark ? "Adwaita-dark" : "Adwaita");
    if (scheme && gtk_source_buffer_get_style_scheme(v->buffer) != scheme)
        gtk_source_buffer_set_style_scheme(v->buffer, scheme);
}

gboolean pt_code_view_is_dark_scheme(PtCodeView *v)
{
    GtkSourceStyleScheme *s = gtk_source_buffer_get_style_scheme(v->buffer);
    return s && strcmp(gtk_source_style_scheme_get_id(s), "Adwaita-dark") == 0;
}

static void on_map(GtkWidget *w, gpointer data)
{
    (void)data;
    PtCodeView *v = PT_CODE_VIEW(w);
    apply_scheme(v); /* the theme may have changed while the page was hidden */
    if (v->stale)
        pt_code_view_refresh(v);
    else
        scroll_soon(v);
}

/* ---- accessors ----------------------------------------------------------------------------- */

char *pt_code_view_dup_text(PtCodeView *v)
{
    GtkTextIter a, b;
    gtk_text_buffer_get_bounds(GTK_TEXT_BUFFER(v->buffer), &a, &b);
    return gtk_text_buffer_get_text(GTK_TEXT_BUFFER(v->buffer), &a, &b, FALSE);
}

const char *pt_code_view_get_note(PtCodeView *v)
{
    return v->note_text;
}

int pt_code_view_get_cursor_line(PtCodeView *v)
{
    GtkTextBuffer *b = GTK_TEXT_BUFFER(v->buffer);
    GtkTextIter it;
    gtk_text_buffer_get_iter_at_mark(b, &it, gtk_text_buffer_get_insert(b));
    return gtk_text_iter_get_line(&it) + 1;
}

void pt_code_view_get_visible_lines(PtCodeView *v, int *first, int *last)
{
    *first = *last = 0;
    if (!gtk_widget_get_mapped(v->view))
        return;
    GdkRectangle r;
    gtk_text_view_get_visible_rect(GTK_TEXT_VIEW(v->view), &r);
    if (r.height <= 0)
        return;
    GtkTextIter a, b;
    int top;
    gtk_text_view_get_line_at_y(GTK_TEXT_VIEW(v->view), &a, r.y, &top);
    gtk_text_view_get_line_at_y(GTK_TEXT_VIEW(v->view), &b, r.y + r.height - 1, &top);
    *first = gtk_text_iter_get_line(&a) + 1;
    *last = gtk_text_iter_get_line(&b) + 1;
}

/* ---- construction ---------------------------------------------------------------------- */

static void pt_code_view_dispose(GObject *o)
{
    PtCodeView *v = PT_CODE_VIEW(o);
    if (v->scroll_idle) {
        g_source_remove(v->scroll_idle);
        v->scroll_idle = 0;
    }
    G_OBJECT_CLASS(pt_code_view_parent_class)->dispose(o);
}

static void pt_code_view_finalize(GObject *o)
{
    PtCodeView *v = PT_CODE_VIEW(o);
    g_free(v->note_text);
    g_free(v->stask);
    g_clear_object(&v->buffer);
    G_OBJECT_CLASS(pt_code_view_parent_class)->finalize(o);
}

static void pt_code_view_class_init(PtCodeViewClass *klass)
{
    G_OBJECT_CLASS(klass)->dispose = pt_code_view_dispose;
    G_OBJECT_CLASS(klass)->finalize = pt_code_view_finalize;
    gtk_source_init();
}

static void pt_code_view_init(PtCodeView *v)
{
    gtk_orientable_set_orientation(GTK_ORIENTABLE(v), GTK_ORIENTATION_VERTICAL);
    gtk_box_set_spacing(GTK_BOX(v), 4);
    v->info = gtk_label_new(NULL);
    gtk_label_set_xalign(GTK_LABEL(v->info), 0);
    gtk_label_set_wrap(GTK_LABEL(v->info), TRUE);
    gtk_widget_add_css_class(v->info, "dim-label");
    gtk_widget_set_margin_start(v->info, 8);
    gtk_box_append(GTK_BOX(v), v->info);
    v->note = gtk_label_new(NULL);
    gtk_label_set_wrap(GTK_LABEL(v->note), TRUE);
    gtk_label_set_selectable(GTK_LABEL(v->note), TRUE);
    gtk_widget_set_margin_top(v->note, 12);
    gtk_widget_set_margin_bottom(v->note, 12);
    gtk_widget_set_margin_start(v->note, 24);
    gtk_widget_set_margin_end(v->note, 24);
    gtk_box_append(GTK_BOX(v), v->note);

    GtkSourceLanguageManager *lm = gtk_source_language_manager_get_default();
    GtkSourceLanguage *lang = gtk_source_language_manager_get_language(lm, "cuda");
    if (!lang)
        lang = gtk_source_language_manager_get_language(lm, "cpp");
    v->buffer = lang ? gtk_source_buffer_new_with_language(lang) : gtk_source_buffer_new(NULL);
    apply_scheme(v);
    pt_style_connect_changed(G_OBJECT(v), G_CALLBACK(apply_scheme));
    v->view = gtk_source_view_new_with_buffer(v->buffer);
    gtk_text_view_set_editable(GTK_TEXT_VIEW(v->view), FALSE);
    gtk_text_view_set_monospace(GTK_TEXT_VIEW(v->view), TRUE);
    gtk_source_view_set_show_line_numbers(GTK_SOURCE_VIEW(v->view), TRUE);
    gtk_source_view_set_highlight_current_line(GTK_SOURCE_VIEW(v->view), TRUE);
    gtk_accessible_update_property(GTK_ACCESSIBLE(v->view), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   "Generated kernel source", -1);
    v->search = pt_code_search_new(GTK_SOURCE_VIEW(v->view));
    gtk_box_append(GTK_BOX(v), v->search);
    v->scroll = gtk_scrolled_window_new();
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(v->scroll), v->view);
    gtk_widget_set_vexpand(v->scroll, TRUE);
    gtk_widget_set_hexpand(v->scroll, TRUE);
    gtk_box_append(GTK_BOX(v), v->scroll);
    v->stale = TRUE;
    set_note(v, "Open a graph to see the kernel generated from its sProgram.");
    g_signal_connect(v, "map", G_CALLBACK(on_map), NULL);
}

GtkWidget *pt_code_view_new(void)
{
    return g_object_new(PT_TYPE_CODE_VIEW, NULL);
}

GtkWidget *pt_code_view_get_search(PtCodeView *v)
{
    return v->search;
}
