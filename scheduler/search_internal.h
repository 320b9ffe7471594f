/* search_internal.h — the two halves of pt_schedule (scheduler.h), for the scheduler's own files:
 * the joint search over one graph instance (search.c) and the choice of a graph's split count,
 * which runs that search once per count (split_search.c). */
#ifndef PT_SEARCH_INTERNAL_H
#define PT_SEARCH_INTERNAL_H

#include "scheduler.h"

/* The joint search over g as loaded (o->source is not looked at). */
bool pt_schedule_graph(const pt_graph *g, const pt_hw *hw, const pt_schedule_opts *o,
                       pt_schedule_result *r, pt_error *err);

/* The search over g's split counts (g->split_param set, o->source given). */
bool pt_schedule_split(const pt_graph *g, const pt_hw *hw, const pt_schedule_opts *o,
                       pt_schedule_result *r, pt_error *err);

#endif
