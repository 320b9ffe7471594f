/* graph_source.h — where an operator graph came from (a file, a built-in example, or text the
 * caller holds) and the overrides it was loaded with, so that it can be loaded again with other
 * parameter values. The scheduler's choice of a split count (graph.h: split_param, FlashDecoding's
 * SPLITS) instantiates the graph once per count it tries, and loads the graph of the kernel that
 * combines the pieces (split_combine) from beside it. */
#ifndef PT_GRAPH_SOURCE_H
#define PT_GRAPH_SOURCE_H

#include "graph.h"

typedef struct {
    const char *arg;        /* a file path or a built-in example's name, as the user gave it */
    const char *text;       /* the graph's text when not read from the file arg (an example's,
                               a GUI buffer); not copied, must outlive every load */
    size_t len;
    const char *overrides;  /* "P=V,..." the graph was loaded with, or NULL */
} pt_graph_source;

/* Load src again with `more` ("P=V,...", may be NULL) applied after its own overrides. */
bool pt_graph_source_load(const pt_graph_source *src, const char *more, pt_graph *g,
                          pt_error *err);

/* Load the graph `name` that src's graph refers to (its split's combine) with `overrides`: the
 * file NAME.json in the directory of src's file when src is a file and that exists, else the
 * built-in example NAME. */
bool pt_graph_source_load_named(const pt_graph_source *src, const char *name,
                                const char *overrides, pt_graph *g, pt_error *err);

/* The graph `name` that g (an instance of src) refers to (its combine or its one-pass form),
 * loaded as pt_graph_source_load_named does, with every parameter both graphs declare set to
 * g's value. */
bool pt_graph_source_load_sibling(const pt_graph_source *src, const pt_graph *g,
                                  const char *name, pt_graph *out, pt_error *err);

/* Do src's overrides give parameter `name` a value? */
bool pt_graph_source_sets(const pt_graph_source *src, const char *name);

/* The name of src's split parameter ($.split.param) read from its JSON without instantiating the
 * graph (whose sizes may not divide under that parameter's default): true with the name in out,
 * false when src has no split, cannot be read, or is not JSON. */
bool pt_graph_source_split_param(const pt_graph_source *src, char *out, size_t cap);

#endif
