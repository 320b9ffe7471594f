/* stage_waits.c — the inspector's stage-wait wording (see stage_waits.h). */
#include "stage_waits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stage_hold.h"

static const char *tensor_name(const pt_graph *g, int t)
{
    return g && t >= 0 && t < g->n_tensors ? g->tensors[t].name : "?";
}

/* The readers of load L's tile, "a, b and c", into buf. */
static int list_readers(const pt_stask_graph *sg, int load, char *buf, size_t n)
{
    int k = 0, total = 0;
    for (int c = 0; c < sg->n; c++)
        total += pt_stage_reader(sg, load, c);
    buf[0] = '\0';
    for (int c = 0; c < sg->n; c++) {
        if (!pt_stage_reader(sg, load, c))
            continue;
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, "%s%s", k == 0 ? "" : k == total - 1 ? " and " : ", ",
                 sg->tasks[c].id);
        k++;
    }
    return total;
}

static bool ring_load(const pt_stask_graph *sg, int s)
{
    const pt_stask *t = &sg->tasks[s];
    return t->kind == PT_ST_LOAD && t->buffered && t->region == PT_REGION_BODY &&
           t->tensor >= 0 && t->tensor < PT_MAX_TENSORS;
}

char *pt_stage_wait_text(const pt_sprogram *p, const pt_stask_graph *sg, const pt_graph *g,
                         const pt_hw *hw, int stask)
{
    if (!p || !sg || stask < 0 || stask >= sg->n)
        return NULL;
    pt_stage_hold h;
    pt_stage_hold_lags(p, sg, &h); /* what the simulator times: the drawn bars agree */
    char *out = malloc(1024);
    if (!out)
        return NULL;
    out[0] = '\0';
    size_t len = 0;
    if (ring_load(sg, stask)) {
        const pt_stask *t = &sg->tasks[stask];
        int S = p->stages[t->tensor] < 1 ? 1 : p->stages[t->tensor];
        int lag = h.lag[t->tensor];
        char readers[512];
        int nr = list_readers(sg, stask, readers, sizeof readers);
        len += (size_t)snprintf(out + len, 1024 - len,
            "stage wait: a free stage of the %s ring (%d stage%s): iteration i refills stage "
            "i mod %d", tensor_name(g, t->tensor), S, S == 1 ? "" : "s", S);
        if (nr > 0)
            len += (size_t)snprintf(out + len, 1024 - len,
                " once %s of iteration i%+d %s released it (%s); the first %d load%s find%s it "
                "free", readers, lag - S, nr == 1 ? "has" : "have",
                lag ? "one wgmma group kept in flight: released when the next iteration's is "
                      "issued, a stage held one iteration longer"
                    : "at their completion",
                S, S == 1 ? "" : "s", S == 1 ? "s" : "");
        else
            len += (size_t)snprintf(out + len, 1024 - len, " (no reader holds it)");
        for (int c = 0; c < sg->n && len < 900; c++) {
            int grp = pt_stage_reader(sg, stask, c) ? pt_stage_release_group(p, sg, &h, hw, c) : -1;
            if (grp >= 0)
                len += (size_t)snprintf(out + len, 1024 - len,
                    "; %s hands it back only when %s of the same iteration has completed",
                    sg->tasks[c].id, sg->tasks[grp].id);
        }
        return out;
    }
    /* A reader: which ring's stage it hands back. */
    for (int l = 0; l < sg->n; l++) {
        if (!ring_load(sg, l) || !pt_stage_reader(sg, l, stask))
            continue;
        const pt_stask *t = &sg->tasks[l];
        int S = p->stages[t->tensor] < 1 ? 1 : p->stages[t->tensor];
        int lag = h.lag[t->tensor];
        if (len >= 1000)
            break;
        int grp = pt_stage_release_group(p, sg, &h, hw, stask);
        char when[PT_STASK_ID_MAX + 128] = "";
        if (grp >= 0)
            snprintf(when, sizeof when, " when %s of the same iteration has completed (its wgmma "
                     "group consumed the registers read from the stage)", sg->tasks[grp].id);
        len += (size_t)snprintf(out + len, 1024 - len,
            "%sreleases a stage of the %s ring%s: iteration j frees the stage %s of iteration "
            "j%+d waits for", len ? "\n" : "", tensor_name(g, t->tensor), when, t->id, S - lag);
    }
    if (len == 0) {
        free(out);
        return NULL;
    }
    return out;
}
