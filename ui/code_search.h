/* code_search.h — find in the Code page's kernel source: a search bar over a GtkSourceView
 * (GtkSourceSearchContext: every match highlighted, Enter / Ctrl+G next, Shift+Enter /
 * Shift+Ctrl+G previous, wrapping at the ends, "n of m" shown). */
#ifndef PT_CODE_SEARCH_H
#define PT_CODE_SEARCH_H

#include <gtksourceview/gtksource.h>

/* The bar (a GtkSearchBar) for `view`; hidden until started. */
GtkWidget *pt_code_search_new(GtkSourceView *view);
/* Shows the bar and focuses its entry. */
void pt_code_search_start(GtkWidget *bar);
/* Hides the bar (and the highlights); FALSE when it was not shown. */
gboolean pt_code_search_close(GtkWidget *bar);
/* Sets the text searched for and selects the first match from the cursor on. */
void pt_code_search_set_text(GtkWidget *bar, const char *text);
/* Selects and scrolls to the next (or previous) match; FALSE when there is none. */
gboolean pt_code_search_step(GtkWidget *bar, gboolean forward);
/* Matches of the text in the whole source (-1 while still counting). */
int pt_code_search_count(GtkWidget *bar);

#endif
