/* timeline_nav.h — moving the selection between bars with the arrow keys (issue 19: arrow keys
 * did nothing on the timeline). Left / Right go to the previous / next bar of the selected
 * bar's lane, Up / Down to the bar of the lane above / below nearest in time, within the bar's
 * lane group (a group's spans, as pt_tl_group_spans gives them). Display-free: tested without
 * GTK. */
#ifndef PT_TIMELINE_NAV_H
#define PT_TIMELINE_NAV_H

#include "timeline_render.h"

typedef enum { PT_TL_STEP_PREV, PT_TL_STEP_NEXT, PT_TL_STEP_UP, PT_TL_STEP_DOWN } pt_tl_step;

/* The bar one step from span (an index into group g's spans) in that direction, or -1 when
 * there is none (the lane's first/last bar, the group's top/bottom lane with bars). */
int64_t pt_tl_neighbour(const pt_tl_model *m, int g, int64_t span, pt_tl_step step);

#endif
