/* embedded.h — files compiled into the library (tools/embed.c): hardware models and the
 * shipped example graphs, so an installed binary has them without data files. */
#ifndef PT_EMBEDDED_H
#define PT_EMBEDDED_H

typedef struct {
    const char *name;
    const char *text;
} pt_embedded_file;

/* NULL-name terminated tables. Names: hardware "H100", ...; examples "gemm_f16", ... */
extern const pt_embedded_file pt_embedded_hw[];
extern const pt_embedded_file pt_embedded_examples[];

/* Lookup by exact name; NULL if absent. */
const char *pt_embedded_find(const pt_embedded_file *table, const char *name);

#endif
