/* stage_waits.h — the inspector's words for the waits that come from ring stages, not from the
 * sProgram's Wait list: a buffered load waits for a free stage of its tensor's ring (which ring,
 * how many stages, which readers of which earlier iteration release it, src/stage_hold.h); a
 * reader releases the stage it read. Plain C (no GTK) so the wording is unit-tested. */
#ifndef PT_STAGE_WAITS_H
#define PT_STAGE_WAITS_H

#include "graph.h"
#include "hw.h"
#include "sprogram.h"

/* A malloc'd paragraph for sTask `stask`, or NULL when no stage rule involves it. hw (NULL:
 * Hopper's) says whether a CUDA-core reader may hand its stage back with a wgmma group. */
char *pt_stage_wait_text(const pt_sprogram *p, const pt_stask_graph *sg, const pt_graph *g,
                         const pt_hw *hw, int stask);

#endif
