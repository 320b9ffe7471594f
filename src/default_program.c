/* default_program.c — the deterministic default sProgram of an sTask-graph.
 *
 * It is the starting point the GUI shows before any hand edit or automatic search, and the
 * reference the tests compare against, so it must depend on nothing but the sTask-graph:
 * every sTask goes to its natural lane in a topological order of the same-iteration
 * dependencies (lowest index first among ready sTasks), and every dependency that crosses
 * lanes gets a Wait with the dependency's distance. Its rings take the graph's default stage
 * count, lowered (never below 1) until they fit the target's shared memory: 3 stages of a
 * Hopper tile do not fit MI300X's 64 KB LDS (src/default_tiling.h picks a smaller tile where
 * even one stage does not). */
#include "sprogram.h"
#include "validate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pt_sprogram_natural_lane(const pt_sprogram *p, const pt_stask *t)
{
    char name[PT_LANE_NAME_MAX];
    int wg = t->wg < 0 ? 0 : t->wg;
    switch (t->seu) {
    case PT_SEU_TMA:
        /* a warpgroup's own store (tiling wg_stores) on that warpgroup's TMA lane */
        if (t->kind == PT_ST_STORE && t->wg >= 0) {
            snprintf(name, sizeof name, "tma.wg%d", t->wg);
            int own = pt_sprogram_find_lane(p, name);
            if (own >= 0)
                return own;
        }
        return pt_sprogram_find_lane(p, "tma");
    case PT_SEU_TENSOR_CORE:
        snprintf(name, sizeof name, "tc.wg%d", wg);
        return pt_sprogram_find_lane(p, name);
    case PT_SEU_CUDA_CORE:
        /* a dequantised operand every consumer warpgroup reads (pt_sprogram_init made the lane) */
        if (t->kind == PT_ST_DEQUANT && pt_sprogram_find_lane(p, "cuda.producer") >= 0)
            return pt_sprogram_find_lane(p, "cuda.producer");
        snprintf(name, sizeof name, "cuda.wg%d", wg);
        return pt_sprogram_find_lane(p, name);
    default:
        return -1;
    }
}

static bool dep_ok(const pt_stask_graph *sg, const pt_dep *d)
{
    return d->from >= 0 && d->from < sg->n;
}

static int n_deps(const pt_stask *t)
{
    return t->n_deps < 0 ? 0 : t->n_deps > PT_MAX_DEPS ? PT_MAX_DEPS : t->n_deps;
}

/* Kahn's algorithm over distance-0 edges, always taking the lowest ready index; O(n^2) is
 * fine for the tens of sTasks one EU runs. Fills order[]; false on a same-iteration cycle
 * (then *stuck names one sTask on it). */
static bool topo_order(const pt_stask_graph *sg, int *order, int *stuck)
{
    bool *done = calloc((size_t)sg->n, sizeof *done);
    if (!done)
        return false;
    int emitted = 0;
    while (emitted < sg->n) {
        int pick = -1;
        for (int s = 0; s < sg->n && pick < 0; s++) {
            if (done[s])
                continue;
            bool ready = true;
            const pt_stask *t = &sg->tasks[s];
            for (int k = 0; k < n_deps(t) && ready; k++) {
                const pt_dep *d = &t->deps[k];
                if (dep_ok(sg, d) && d->distance == 0 && !done[d->from])
                    ready = false;
            }
            if (ready)
                pick = s;
        }
        if (pick < 0) {
            for (int s = 0; s < sg->n; s++)
                if (!done[s]) {
                    *stuck = s;
                    break;
                }
            free(done);
            return false;
        }
        done[pick] = true;
        order[emitted++] = pick;
    }
    free(done);
    return true;
}

static void default_stages(pt_sprogram *p, const pt_stask_graph *sg)
{
    int stages = sg->graph && sg->graph->default_stages > 0 ? sg->graph->default_stages : 2;
    for (int t = 0; t < PT_MAX_TENSORS; t++)
        if (p->stages[t] > 0)
            p->stages[t] = stages;
}

/* Lower every ring's stages together until the program's shared memory (counted by hw's
 * layout rules, as the validator does) fits one block; a target where the graph's default
 * already fits keeps it unchanged. */
static void fit_stages(pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw)
{
    if (!hw || hw->smem_per_block <= 0)
        return;
    while (pt_sprogram_smem_bytes_on(p, sg, hw) > hw->smem_per_block) {
        bool lowered = false;
        for (int t = 0; t < PT_MAX_TENSORS; t++)
            if (p->stages[t] > 1) {
                p->stages[t]--;
                lowered = true;
            }
        if (!lowered)
            return;
    }
}

/* A Wait for each dependency whose two sTasks sit on different lanes. */
static bool cross_lane_waits(pt_sprogram *p, const pt_stask_graph *sg, pt_error *err)
{
    for (int s = 0; s < sg->n; s++) {
        const pt_stask *t = &sg->tasks[s];
        int lane_to = -1, lane_from = -1;
        if (!pt_sprogram_placement(p, s, &lane_to, NULL))
            continue;
        for (int k = 0; k < n_deps(t); k++) {
            const pt_dep *d = &t->deps[k];
            if (!dep_ok(sg, d) || !pt_sprogram_placement(p, d->from, &lane_from, NULL))
                continue;
            if (lane_from == lane_to)
                continue;
            if (!pt_wait(p, sg, s, &d->from, &d->distance, 1, err))
                return false;
        }
    }
    return true;
}

/* On failure p is left empty (freed), so callers never see half a program. */
bool pt_sprogram_default(pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                         pt_error *err)
{
    if (!p)
        return pt_fail(err, "default sProgram: no sProgram to fill");
    pt_sprogram_init(p, sg, hw);
    if (!sg || (sg->n > 0 && !sg->tasks) || sg->n < 0) {
        pt_sprogram_free(p);
        return pt_fail(err, "default sProgram: no sTask-graph");
    }
    default_stages(p, sg);
    if (sg->n == 0)
        return true;

    int *order = malloc((size_t)sg->n * sizeof *order);
    if (!order) {
        pt_sprogram_free(p);
        return pt_fail(err, "default sProgram: out of memory");
    }
    int stuck = -1;
    if (!topo_order(sg, order, &stuck)) {
        free(order);
        pt_sprogram_free(p);
        if (stuck < 0)
            return pt_fail(err, "default sProgram: out of memory");
        return pt_fail(err, "default sProgram: the sTask-graph has a cycle of same-iteration "
                            "dependencies through %s; expected a loop-carried (distance >= 1) "
                            "edge on every cycle", sg->tasks[stuck].id);
    }
    bool ok = true;
    for (int i = 0; i < sg->n && ok; i++) {
        const pt_stask *t = &sg->tasks[order[i]];
        int lane = pt_sprogram_natural_lane(p, t);
        if (lane < 0)
            ok = pt_fail(err, "default sProgram: sTask %s (sEU %s, warpgroup %d) has no lane; "
                              "the tiling has %d warpgroup(s)", t->id,
                         (unsigned)t->seu < PT_SEU_COUNT ? pt_seu_name(t->seu) : "?",
                         t->wg, p->n_roles - 1);
        else
            ok = pt_append(p, sg, order[i], lane, -1, 0, err);
    }
    free(order);
    if (ok)
        ok = cross_lane_waits(p, sg, err);
    if (ok)
        fit_stages(p, sg, hw);
    if (!ok)
        pt_sprogram_free(p);
    return ok;
}
