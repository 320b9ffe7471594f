/* timeline_tooltip.h — what the timeline's tooltip says at a point, as Pango markup: a bar (its
 * sTask, iteration, times, measured mean and error, critical path), a measured bar (its
 * measured times against the prediction), a lane's name (its sEU, busy share, bar count) or an
 * idle gap on a lane (how long, and what the next bar waited for — its dependencies, the one
 * that released it last first). Display-free so it is tested without a window. */
#ifndef PT_TIMELINE_TOOLTIP_H
#define PT_TIMELINE_TOOLTIP_H

#include "timeline_render.h"

/* malloc'd markup, or NULL: nothing to say there. */
char *pt_tl_tooltip_markup(const pt_tl_model *m, const pt_tl_viewport *v, double x, double y);

#endif
