/* sprogram.c — the sProgram and its two editing primitives, Append and Wait.
 *
 * Everything here may be called by the GUI on every user gesture, so each primitive checks
 * all of its arguments first and only then changes the program: a refused edit leaves the
 * program exactly as it was, with a one-line reason in err. */
#include "sprogram.h"
#include "regfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest |offset| of a body entry and largest Wait distance: software pipelines deeper
 * than this are not useful on an EU (stages are bounded by shared memory long before). */
#define PT_MAX_OFFSET 8
#define PT_MAX_WAIT_DISTANCE 8

/* Register budget defaults (setmaxnreg): the producer only issues TMA copies. */
#define PRODUCER_REGS 40
#define PRODUCER_TMA_ONLY_REGS 24 /* setmaxnreg's least: four consumer warpgroups need the rest */
#define PRODUCER_DEQUANT_REGS 96 /* the producer also dequantises (pt_stask_writes_ring) */
#define CONSUMER_REGS_CAP 240
#define ROLE_THREADS 128

static const char *const raster_names[] = {"row", "column", "grouped"};
static const char *const order_names[] = {"auto", "raster", "longest_first"};
static const char *const staging_names[] = {"auto", "apart", "over_resident"};

const char *pt_raster_name(pt_raster r)
{
    return (unsigned)r < 3 ? raster_names[r] : "?";
}

bool pt_raster_parse(const char *s, pt_raster *out)
{
    if (!s)
        return false;
    for (int i = 0; i < 3; i++)
        if (strcmp(s, raster_names[i]) == 0) {
            *out = (pt_raster)i;
            return true;
        }
    return false;
}

static bool parse_name(const char *s, const char *const *names, int n, int *out)
{
    for (int i = 0; s && i < n; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = i;
            return true;
        }
    return false;
}

const char *pt_tile_order_name(pt_tile_order o)
{
    return (unsigned)o < 3 ? order_names[o] : "?";
}

bool pt_tile_order_parse(const char *s, pt_tile_order *out)
{
    int i;
    if (!parse_name(s, order_names, 3, &i))
        return false;
    *out = (pt_tile_order)i;
    return true;
}

const char *pt_staging_name(pt_staging s)
{
    return (unsigned)s < 3 ? staging_names[s] : "?";
}

bool pt_staging_parse(const char *s, pt_staging *out)
{
    int i;
    if (!parse_name(s, staging_names, 3, &i))
        return false;
    *out = (pt_staging)i;
    return true;
}

/* ---- init / free / copy ---------------------------------------------------------------- */

static int clamp_warpgroups(int wg)
{
    if (wg < 1)
        return 1;
    /* one role per warpgroup plus the producer; two lanes per warpgroup plus tma */
    int max_by_roles = PT_MAX_ROLES - 1, max_by_lanes = (PT_MAX_LANES - 1) / 2;
    int max = max_by_roles < max_by_lanes ? max_by_roles : max_by_lanes;
    return wg > max ? max : wg;
}

/* The largest multiple of 8 per consumer thread such that producer + consumers fit. */
static int consumer_regs(const pt_hw *hw, int warpgroups, int producer_regs)
{
    /* setmaxnreg moves registers between warps within what the CTA was launched with */
    int64_t threads = (int64_t)(1 + warpgroups) * ROLE_THREADS;
    int64_t per_eu = (int64_t)pt_regfile_launch_regs(hw, threads) * threads;
    int64_t left = per_eu - (int64_t)producer_regs * ROLE_THREADS;
    int64_t r = left > 0 ? left / ((int64_t)warpgroups * ROLE_THREADS) : 0;
    r -= r % 8;
    if (r > CONSUMER_REGS_CAP)
        r = CONSUMER_REGS_CAP;
    return r < 8 ? 8 : (int)r;
}

static void add_role(pt_sprogram *p, const char *name, int regs, int wg)
{
    pt_role_def *r = &p->roles[p->n_roles++];
    snprintf(r->name, sizeof r->name, "%s", name);
    r->threads = ROLE_THREADS;
    r->regs = regs;
    r->wg = wg;
}

static void add_lane(pt_sprogram *p, const char *name, pt_seu_kind seu, int role)
{
    if (p->n_lanes == PT_MAX_LANES)
        return; /* seven warpgroups' own store lanes: the stores fall back to the lane "tma" */
    pt_lane *l = &p->lanes[p->n_lanes++];
    snprintf(l->name, sizeof l->name, "%s", name);
    l->seu = seu;
    l->role = role;
}

void pt_sprogram_init(pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw)
{
    memset(p, 0, sizeof *p);
    int wgs = clamp_warpgroups(sg ? sg->tiling.warpgroups : 1);
    if (sg) {
        p->tiling = sg->tiling;
        if (sg->graph)
            snprintf(p->graph_name, sizeof p->graph_name, "%s", sg->graph->name);
    }
    if (hw)
        snprintf(p->hw_name, sizeof p->hw_name, "%s", hw->name);

    /* A tile dequantised into shared memory for the tensor cores (pt_stask_writes_ring) is
     * made by the producer warpgroup's CUDA cores, beside its TMA thread: both consumer
     * warpgroups read the whole tile, so neither of them owns it. That role needs registers
     * for its unpacking. */
    bool ring_writer = false;
    for (int i = 0; sg && sg->tasks && i < sg->n; i++)
        ring_writer |= pt_stask_writes_ring(sg, i);
    int producer_regs = ring_writer ? PRODUCER_DEQUANT_REGS : PRODUCER_REGS;
    /* from four consumer warpgroups on, the CTA launches with at most 96 registers a thread:
     * a producer that only issues TMA takes setmaxnreg's least (24), so each consumer gets 112
     * rather than 104 (with 104, 256 x 64 attention tiles spill) */
    if (!ring_writer && wgs >= 4)
        producer_regs = PRODUCER_TMA_ONLY_REGS;
    add_role(p, "producer", producer_regs, -1);
    int regs = consumer_regs(hw, wgs, producer_regs);
    char name[PT_LANE_NAME_MAX];
    for (int w = 0; w < wgs; w++) {
        snprintf(name, sizeof name, "wg%d", w);
        add_role(p, name, regs, w);
    }

    add_lane(p, "tma", PT_SEU_TMA, 0);
    for (int w = 0; w < wgs; w++) {
        snprintf(name, sizeof name, "tc.wg%d", w);
        add_lane(p, name, PT_SEU_TENSOR_CORE, 1 + w);
        snprintf(name, sizeof name, "cuda.wg%d", w);
        add_lane(p, name, PT_SEU_CUDA_CORE, 1 + w);
    }

    if (ring_writer)
        add_lane(p, "cuda.producer", PT_SEU_CUDA_CORE, 0);
    /* each warpgroup stores its own rows (tiling wg_stores): from its own TMA lane */
    for (int w = 0; sg && sg->tiling.wg_stores && w < wgs; w++) {
        snprintf(name, sizeof name, "tma.wg%d", w);
        add_lane(p, name, PT_SEU_TMA, 1 + w);
    }

    /* A ring of 2 is the least that overlaps a copy (or a dequantisation) with its consumer. */
    for (int i = 0; sg && sg->tasks && i < sg->n; i++) {
        const pt_stask *t = &sg->tasks[i];
        if (pt_stask_fills_ring(sg, i) && t->tensor >= 0 && t->tensor < PT_MAX_TENSORS)
            p->stages[t->tensor] = 2;
    }

    p->partition.raster = PT_RASTER_ROW;
    p->partition.group = 8;
    p->partition.persistent = false;
    p->partition.split_k = 1;
    p->partition.order = PT_ORDER_AUTO;
    p->partition.staging = PT_STAGING_AUTO;
}

void pt_sprogram_free(pt_sprogram *p)
{
    if (!p)
        return;
    int nl = p->n_lanes < 0 ? 0 : p->n_lanes > PT_MAX_LANES ? PT_MAX_LANES : p->n_lanes;
    for (int l = 0; l < nl; l++)
        free(p->lanes[l].entries);
    free(p->waits);
    memset(p, 0, sizeof *p);
}

const char *pt_release_form_name(pt_release_form f)
{
    return f == PT_RELEASE_FENCE ? "fence" : "group";
}

bool pt_release_form_parse(const char *s, pt_release_form *out)
{
    if (s && strcmp(s, "group") == 0)
        *out = PT_RELEASE_GROUP;
    else if (s && strcmp(s, "fence") == 0)
        *out = PT_RELEASE_FENCE;
    else
        return false;
    return true;
}

bool pt_sprogram_copy(pt_sprogram *dst, const pt_sprogram *src)
{
    if (dst == src)
        return true;
    *dst = *src;
    for (int l = 0; l < PT_MAX_LANES; l++) {
        dst->lanes[l].entries = NULL;
        dst->lanes[l].cap = 0;
    }
    dst->waits = NULL;
    dst->cap_waits = 0;
    if (dst->n_lanes < 0 || dst->n_lanes > PT_MAX_LANES) {
        memset(dst, 0, sizeof *dst);
        return false;
    }
    for (int l = 0; l < src->n_lanes; l++) {
        const pt_lane *sl = &src->lanes[l];
        pt_lane *dl = &dst->lanes[l];
        if (sl->n <= 0 || !sl->entries) {
            dl->n = 0;
            continue;
        }
        dl->entries = malloc((size_t)sl->n * sizeof *dl->entries);
        if (!dl->entries) {
            pt_sprogram_free(dst);
            return false;
        }
        memcpy(dl->entries, sl->entries, (size_t)sl->n * sizeof *dl->entries);
        dl->cap = sl->n;
    }
    if (src->n_waits > 0 && src->waits) {
        dst->waits = malloc((size_t)src->n_waits * sizeof *dst->waits);
        if (!dst->waits) {
            pt_sprogram_free(dst);
            return false;
        }
        memcpy(dst->waits, src->waits, (size_t)src->n_waits * sizeof *dst->waits);
        dst->cap_waits = src->n_waits;
    } else
        dst->n_waits = 0;
    return true;
}

/* ---- lookup ----------------------------------------------------------------------------- */

int pt_sprogram_add_lane(pt_sprogram *p, const char *name, pt_seu_kind seu, int role)
{
    if (!p || !name || p->n_lanes >= PT_MAX_LANES || role < 0 || role >= p->n_roles ||
        strlen(name) >= PT_LANE_NAME_MAX || pt_sprogram_find_lane(p, name) >= 0)
        return -1;
    add_lane(p, name, seu, role);
    return p->n_lanes - 1;
}

int pt_sprogram_find_lane(const pt_sprogram *p, const char *name)
{
    if (!p || !name)
        return -1;
    for (int l = 0; l < p->n_lanes && l < PT_MAX_LANES; l++)
        if (strcmp(p->lanes[l].name, name) == 0)
            return l;
    return -1;
}

bool pt_sprogram_placement(const pt_sprogram *p, int stask, int *lane, int *pos)
{
    if (!p)
        return false;
    for (int l = 0; l < p->n_lanes && l < PT_MAX_LANES; l++)
        for (int i = 0; i < p->lanes[l].n; i++)
            if (p->lanes[l].entries[i].stask == stask) {
                if (lane)
                    *lane = l;
                if (pos)
                    *pos = i;
                return true;
            }
    return false;
}

/* ---- Append ----------------------------------------------------------------------------- */

/* Removes every occurrence (a well-formed program has at most one); returns how many. */
static int remove_from_lane(pt_lane *l, int stask)
{
    int kept = 0, removed = 0;
    for (int i = 0; i < l->n; i++) {
        if (l->entries[i].stask == stask)
            removed++;
        else
            l->entries[kept++] = l->entries[i];
    }
    l->n = kept;
    return removed;
}

static int count_in_lane(const pt_lane *l, int stask)
{
    int c = 0;
    for (int i = 0; i < l->n; i++)
        c += l->entries[i].stask == stask;
    return c;
}

static bool reserve_entries(pt_lane *l, int need)
{
    if (need <= l->cap)
        return true;
    int cap = l->cap < 8 ? 8 : l->cap;
    while (cap < need)
        cap *= 2;
    pt_lane_entry *e = realloc(l->entries, (size_t)cap * sizeof *e);
    if (!e)
        return false;
    l->entries = e;
    l->cap = cap;
    return true;
}

bool pt_append(pt_sprogram *p, const pt_stask_graph *sg, int stask, int lane, int position,
               int offset, pt_error *err)
{
    if (!p || !sg || !sg->tasks)
        return pt_fail(err, "Append: no sProgram or sTask-graph");
    if (stask < 0 || stask >= sg->n)
        return pt_fail(err, "Append: sTask index %d is out of range; expected 0 to %d", stask,
                       sg->n - 1);
    const char *id = sg->tasks[stask].id;
    if (p->n_lanes < 0 || p->n_lanes > PT_MAX_LANES || lane < 0 || lane >= p->n_lanes)
        return pt_fail(err, "Append(%s): lane index %d is out of range; expected 0 to %d", id,
                       lane, p->n_lanes - 1);
    pt_lane *l = &p->lanes[lane];
    /* a prologue product may run a tile ahead (offset 1: validate.c says when) */
    bool ahead = offset == 1 && pt_stask_prologue_product(sg, stask);
    if (offset != 0 && sg->tasks[stask].region != PT_REGION_BODY && !ahead)
        return pt_fail(err, "Append(%s, %s): offset %d given but %s is in the %s; offsets are "
                            "for loop-body sTasks, and 1 for a prologue product issued a tile "
                            "ahead", id, l->name, offset, id,
                       pt_region_name(sg->tasks[stask].region));
    if (offset < -PT_MAX_OFFSET || offset > PT_MAX_OFFSET)
        return pt_fail(err, "Append(%s, %s): offset %d is out of range; expected %d to %d", id,
                       l->name, offset, -PT_MAX_OFFSET, PT_MAX_OFFSET);
    /* The position is counted in the lane as it is once the sTask has left its old place. */
    int n_after = l->n - count_in_lane(l, stask);
    if (position != -1 && (position < 0 || position > n_after))
        return pt_fail(err, "Append(%s, %s): position %d is out of range; expected 0 to %d or "
                            "-1 (the end)", id, l->name, position, n_after);
    /* Make room before touching anything so that a failed allocation changes nothing. */
    if (!reserve_entries(l, n_after + 1))
        return pt_fail(err, "Append(%s, %s): out of memory", id, l->name);

    for (int k = 0; k < p->n_lanes; k++)
        remove_from_lane(&p->lanes[k], stask);
    if (position == -1)
        position = l->n;
    memmove(&l->entries[position + 1], &l->entries[position],
            (size_t)(l->n - position) * sizeof *l->entries);
    l->entries[position].stask = stask;
    l->entries[position].offset = offset;
    l->n++;
    return true;
}

bool pt_unplace(pt_sprogram *p, int stask)
{
    if (!p || p->n_lanes < 0 || p->n_lanes > PT_MAX_LANES)
        return false;
    int removed = 0;
    for (int k = 0; k < p->n_lanes; k++)
        removed += remove_from_lane(&p->lanes[k], stask);
    return removed > 0;
}

/* ---- Wait ------------------------------------------------------------------------------- */

bool pt_has_wait(const pt_sprogram *p, int stask, int on, int distance)
{
    if (!p || !p->waits)
        return false;
    for (int i = 0; i < p->n_waits; i++)
        if (p->waits[i].stask == stask && p->waits[i].on == on &&
            p->waits[i].distance == distance)
            return true;
    return false;
}

static bool reserve_waits(pt_sprogram *p, int need)
{
    if (need <= p->cap_waits)
        return true;
    int cap = p->cap_waits < 16 ? 16 : p->cap_waits;
    while (cap < need)
        cap *= 2;
    pt_wait_entry *w = realloc(p->waits, (size_t)cap * sizeof *w);
    if (!w)
        return false;
    p->waits = w;
    p->cap_waits = cap;
    return true;
}

bool pt_wait(pt_sprogram *p, const pt_stask_graph *sg, int stask, const int *on,
             const int *distance, int n, pt_error *err)
{
    if (!p || !sg || !sg->tasks)
        return pt_fail(err, "Wait: no sProgram or sTask-graph");
    if (stask < 0 || stask >= sg->n)
        return pt_fail(err, "Wait: sTask index %d is out of range; expected 0 to %d", stask,
                       sg->n - 1);
    const char *id = sg->tasks[stask].id;
    if (n < 0 || (n > 0 && !on))
        return pt_fail(err, "Wait(%s): no list of sTasks to wait on", id);
    /* Check the whole list first: Wait is all or nothing. */
    for (int i = 0; i < n; i++) {
        int d = distance ? distance[i] : 0;
        if (on[i] < 0 || on[i] >= sg->n)
            return pt_fail(err, "Wait(%s): sTask index %d is out of range; expected 0 to %d", id,
                           on[i], sg->n - 1);
        if (d < 0 || d > PT_MAX_WAIT_DISTANCE)
            return pt_fail(err, "Wait(%s, %s): distance %d is out of range; expected 0 to %d",
                           id, sg->tasks[on[i]].id, d, PT_MAX_WAIT_DISTANCE);
        if (on[i] == stask && d == 0)
            return pt_fail(err, "Wait(%s, %s): an sTask cannot wait on itself in the same "
                                "iteration; use distance 1 or more", id, id);
    }
    if (p->n_waits < 0)
        p->n_waits = 0;
    if (!reserve_waits(p, p->n_waits + n))
        return pt_fail(err, "Wait(%s): out of memory", id);
    for (int i = 0; i < n; i++) {
        int d = distance ? distance[i] : 0;
        if (pt_has_wait(p, stask, on[i], d))
            continue;
        p->waits[p->n_waits++] = (pt_wait_entry){.stask = stask, .on = on[i], .distance = d};
    }
    return true;
}

bool pt_unwait(pt_sprogram *p, int stask, int on, int distance)
{
    if (!p || !p->waits)
        return false;
    int kept = 0;
    for (int i = 0; i < p->n_waits; i++) {
        pt_wait_entry w = p->waits[i];
        if (w.stask == stask && w.on == on && w.distance == distance)
            continue;
        p->waits[kept++] = w;
    }
    bool removed = kept != p->n_waits;
    p->n_waits = kept;
    return removed;
}
