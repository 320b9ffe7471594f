/* backend.c — the registry of code generation targets: the one table that lists them, and
 * the lookups every caller uses to choose a target by name. */
#include <stdio.h>
#include <string.h>

#include "backend.h"

extern const pt_backend pt_backend_sm90a; /* sm90a/backend.c */
extern const pt_backend pt_backend_gfx942; /* gfx942/backend.c */

/* Every target, the default (PT_TARGET_DEFAULT) first. */
static const pt_backend *const backends[] = {&pt_backend_sm90a, &pt_backend_gfx942};

#define N_BACKENDS (sizeof backends / sizeof backends[0])

const pt_backend *pt_backend_find(const char *name)
{
    for (size_t i = 0; name && i < N_BACKENDS; i++)
        if (strcmp(backends[i]->name, name) == 0)
            return backends[i];
    return NULL;
}

const pt_backend *pt_backend_for_arch(const char *arch)
{
    for (size_t i = 0; arch && i < N_BACKENDS; i++)
        if (strcmp(backends[i]->arch, arch) == 0)
            return backends[i];
    return NULL;
}

const char *pt_backend_names(void)
{
    static char list[256]; /* built once: the table never changes */
    if (!list[0])
        for (size_t i = 0; i < N_BACKENDS; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                     backends[i]->name);
    return list;
}

bool pt_backend_lookup(const char *name, const char *who, const pt_backend **out, pt_error *err)
{
    *out = pt_backend_find(name);
    if (*out)
        return true;
    return pt_fail(err, "%sunknown target \"%.40s\"; valid targets: %s", who ? who : "",
                   name ? name : "", pt_backend_names());
}
