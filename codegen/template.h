/* template.h — filling in the bundle's text templates (codegen/host/ files ending in .in,
 * compiled into the library): each @WORD@ (capital letters, digits and '_' between two '@') is replaced by its
 * value; lines starting with "@@ " are notes of the template and are dropped; every other byte
 * (make's $@ and @echo included) is copied as it is. Values are not scanned again. */
#ifndef PT_TEMPLATE_H
#define PT_TEMPLATE_H

#include "pt_error.h"

typedef struct {
    const char *key;           /* "NAME" for @NAME@ */
    const char *value;
} pt_template_var;

/* The filled-in text (malloc'd), or NULL with err naming the template (name) and a
 * placeholder it has no value for, or saying it ran out of memory. */
char *pt_template_fill(const char *name, const char *tmpl, const pt_template_var *vars, int n,
                       pt_error *err);

#endif
