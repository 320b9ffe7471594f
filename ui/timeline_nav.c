/* timeline_nav.c — the bar an arrow key moves the selection to (see timeline_nav.h). */
#include "timeline_nav.h"

#include <math.h>

/* Distance in time between a bar and a moment: 0 inside it. */
static double dist(const pt_span *s, double t)
{
    return t < s->start_ns ? s->start_ns - t : t > s->end_ns ? t - s->end_ns : 0;
}

int64_t pt_tl_neighbour(const pt_tl_model *m, int g, int64_t span, pt_tl_step step)
{
    int64_t n;
    const pt_span *sp = pt_tl_group_spans(m, g, &n);
    if (!sp || span < 0 || span >= n)
        return -1;
    int lane = sp[span].lane;
    if (step == PT_TL_STEP_PREV || step == PT_TL_STEP_NEXT) {
        /* spans are sorted by start: the lane's neighbours in that order */
        int64_t d = step == PT_TL_STEP_NEXT ? 1 : -1;
        for (int64_t i = span + d; i >= 0 && i < n; i += d)
            if (sp[i].lane == lane)
                return i;
        return -1;
    }
    /* the nearest lane above (below) that has bars; on it, the bar nearest the selected one's
     * start, so stepping up and down again returns to about the same moment */
    int dl = step == PT_TL_STEP_DOWN ? 1 : -1;
    double t = sp[span].start_ns;
    for (int l = lane + dl; l >= 0 && l < m->n_lanes; l += dl) {
        int64_t best = -1;
        for (int64_t i = 0; i < n; i++)
            if (sp[i].lane == l && (best < 0 || dist(&sp[i], t) < dist(&sp[best], t)))
                best = i;
        if (best >= 0)
            return best;
    }
    return -1;
}
