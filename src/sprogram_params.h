/* sprogram_params.h — the graph parameters an sProgram was scheduled for (its "params": the
 * split count the scheduler chose for FlashDecoding, docs/FORMAT-sprogram.md). They decide the
 * graph instance the program is read against, so a caller reads them before it loads the graph
 * and merges them with its own overrides (--set); the sProgram loader then checks that the
 * graph it is given has exactly these values. */
#ifndef PT_SPROGRAM_PARAMS_H
#define PT_SPROGRAM_PARAMS_H

#include "json_util.h"
#include "sprogram.h"

/* $.params of a parsed sProgram into out (*n of them, at most PT_SPROGRAM_MAX_PARAMS): each a
 * parameter name and a whole number from 0 to 2^40 (what --set takes). Absent: *n = 0. */
bool pt_sprogram_params_parse(const cJSON *root, const char *file, pt_sprogram_param *out,
                              int *n, pt_error *err);

/* The params of the sProgram file at `path`, read without a graph; 0 when it has none or cannot
 * be read or parsed (the sProgram loader reports those problems in full later). */
int pt_sprogram_params_peek(const char *path, pt_sprogram_param *out);

/* The graph name ($.graph) of the sProgram file at `path` into out; false when it has none or
 * cannot be read (the loader reports that in full later). */
bool pt_sprogram_graph_peek(const char *path, char *out, size_t cap);

/* The hardware model the sProgram file at `path` was scheduled for ($.hw: a built-in name or a
 * model file) into out; false when it names none or cannot be read. */
bool pt_sprogram_hw_peek(const char *path, char *out, size_t cap);

/* `set` ("P=V,...", or NULL) followed by every parameter of pp that `set` leaves out, as one
 * malloc'd override string in *out (NULL when both are empty). A parameter that `set` gives a
 * value other than the program's is refused, naming the option, the file and the value. */
bool pt_sprogram_params_merge(const char *set, const pt_sprogram_param *pp, int n,
                              const char *file, char **out, pt_error *err);

#endif
