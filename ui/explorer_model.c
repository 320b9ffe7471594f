/* explorer_model.c — load → partition → default sProgram → validate → simulate for the
 * explorer window (see explorer_model.h). */
#include "explorer_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "embedded.h"
#include "propagate.h"
#include "validate.h"

pt_explorer_model *pt_explorer_model_new(void)
{
    return calloc(1, sizeof(pt_explorer_model));
}

void pt_explorer_model_clear(pt_explorer_model *m)
{
    if (m->have_tl)
        pt_timeline_free(&m->tl);
    if (m->have_prog)
        pt_sprogram_free(&m->prog);
    if (m->have_sg)
        pt_stask_graph_free(&m->sg);
    m->have_tl = m->have_prog = m->have_sg = m->have_graph = false;
    m->source[0] = m->title[0] = m->warning[0] = '\0';
}

void pt_explorer_model_free(pt_explorer_model *m)
{
    if (!m)
        return;
    pt_explorer_model_clear(m);
    free(m);
}

bool pt_explorer_model_load(pt_explorer_model *m, const char *source, const char *hw_name,
                            pt_error *err)
{
    pt_explorer_model_clear(m);
    struct stat st;
    const char *embedded = pt_embedded_find(pt_embedded_examples, source);
    bool ok;
    if (stat(source, &st) != 0 && embedded)
        ok = pt_graph_load_text(&m->graph, source, embedded, strlen(embedded), NULL, err);
    else
        ok = pt_graph_load_file(&m->graph, source, NULL, err);
    if (!ok)
        return false;
    m->have_graph = true;
    if (!pt_hw_load(&m->hw, hw_name ? hw_name : "H200", err))
        goto fail;
    pt_tiling t;
    pt_tiling_defaults(&m->graph, &t);
    if (!pt_partition(&m->sg, &m->graph, &t, err))
        goto fail;
    m->have_sg = true;
    if (!pt_sprogram_default(&m->prog, &m->sg, &m->hw, err))
        goto fail;
    m->have_prog = true;
    pt_error verr = {{0}};
    if (!pt_validate(&m->prog, &m->sg, &m->hw, NULL, &verr))
        snprintf(m->warning, sizeof m->warning, "%s", verr.msg);
    if (!pt_simulate(&m->prog, &m->sg, &m->hw, &m->tl, err))
        goto fail;
    m->have_tl = true;
    snprintf(m->source, sizeof m->source, "%s", source);
    snprintf(m->title, sizeof m->title, "%s", m->graph.name);
    return true;
fail:
    pt_explorer_model_clear(m);
    return false;
}

double pt_explorer_model_mean_ns(const pt_explorer_model *m, int stask, int64_t *count)
{
    double sum = 0;
    int64_t n = 0;
    if (m->have_tl)
        for (int64_t i = 0; i < m->tl.n_spans; i++)
            if (m->tl.spans[i].stask == stask) {
                sum += m->tl.spans[i].end_ns - m->tl.spans[i].start_ns;
                n++;
            }
    if (count)
        *count = n;
    return n ? sum / (double)n : NAN;
}
