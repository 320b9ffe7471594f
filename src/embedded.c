/* embedded.c — lookup in the compiled-in file tables. */
#include "embedded.h"

#include <string.h>

const char *pt_embedded_find(const pt_embedded_file *table, const char *name)
{
    for (const pt_embedded_file *f = table; f->name; f++)
        if (strcmp(f->name, name) == 0)
            return f->text;
    return NULL;
}
