/* lower.c — builds the kernel program: the passes of this folder, in order (kprog.h says what
 * each decides). Each reads only what the ones before it wrote. */
#include <string.h>

#include "passes.h"

typedef bool (*pt_kpass)(pt_kprog *kp, const char *who, pt_error *err);

static const pt_kpass passes[] = {
    pt_kpass_buffers, /* shared memory: rings, resident and staging tiles, stage holds, layout */
    pt_kpass_roles,   /* producer and consumer roles, their sTasks, who stores */
    pt_kpass_bodies,  /* what each sTask computes, its operands and values */
    pt_kpass_order,   /* each role's step order, register rings, loop form */
    pt_kpass_xwaits,  /* Waits between roles: named-barrier rings */
    pt_kpass_step,    /* waits for asynchronous groups, steady state, peeled steps */
    pt_kpass_grid,    /* tile grid, launch order, trace regions */
};

bool pt_kprog_build(pt_kprog *kp, const pt_sprogram *p, const pt_stask_graph *sg,
                    const pt_hw *hw, const char *who, pt_error *err)
{
    memset(kp, 0, sizeof *kp);
    kp->g = sg->graph;
    kp->sg = sg;
    kp->p = p;
    kp->hw = hw;
    for (size_t i = 0; i < sizeof passes / sizeof passes[0]; i++)
        if (!passes[i](kp, who, err))
            return false;
    return true;
}
