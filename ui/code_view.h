/* code_view.h — PtCodeView: the explorer's "Code" page. The sm90a kernel (kernel.cu) generated
 * from the shown sProgram in a read-only GtkSourceView 5 with CUDA highlighting, regenerated
 * after each edit (lazily: when the page is shown), or a one-line note saying why there is no
 * kernel (the backend refuses the graph, the sProgram is invalid). Selecting an sTask puts the
 * cursor on the code that runs it and scrolls there. */
#ifndef PT_CODE_VIEW_H
#define PT_CODE_VIEW_H

#include <gtk/gtk.h>

#include "explorer_model.h"

G_BEGIN_DECLS

#define PT_TYPE_CODE_VIEW (pt_code_view_get_type())
G_DECLARE_FINAL_TYPE(PtCodeView, pt_code_view, PT, CODE_VIEW, GtkBox)

GtkWidget *pt_code_view_new(void);
/* The model whose kernel is shown (borrowed; NULL: none). Call again after every change of it:
 * the code is regenerated when the view is next shown (or by pt_code_view_refresh). */
void pt_code_view_set_model(PtCodeView *v, const pt_explorer_model *m);
/* Scroll to the code of sTask id (NULL: keep the position). */
void pt_code_view_show_stask(PtCodeView *v, const char *id);
/* Regenerate now if the model changed since. */
void pt_code_view_refresh(PtCodeView *v);

/* For tests: the source shown (caller frees), the note shown instead of code (NULL when code is
 * shown), the cursor's line and the first and last visible lines (1-based; 0 when unknown). */
char *pt_code_view_dup_text(PtCodeView *v);
const char *pt_code_view_get_note(PtCodeView *v);
int pt_code_view_get_cursor_line(PtCodeView *v);
void pt_code_view_get_visible_lines(PtCodeView *v, int *first, int *last);

/* The line (1-based) of `text` for sTask `id`: the first comment in the kernel function that
 * names the id as a whole word, else names it without its last ".part" (mma.C.wg1 -> mma.C,
 * the code all consumer warpgroups share), else anywhere in the text; 0 when none. */
int pt_code_find_stask_line(const char *text, const char *id);

/* Whether the page shows the graph's reference kernel because the sm90a generator refused (its
 * reason is the note). */
gboolean pt_code_view_is_reference(PtCodeView *v);
/* Whether the source is shown with the dark colour scheme (it follows the dark preference and
 * the theme). */
gboolean pt_code_view_is_dark_scheme(PtCodeView *v);
/* The page's find bar (code_search.h): Ctrl+F on the Code page starts it, Esc closes it. */
GtkWidget *pt_code_view_get_search(PtCodeView *v);

G_END_DECLS

#endif
