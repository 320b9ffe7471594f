/* validate.c — can this sProgram run on this EU, and if not, why (in the user's words).
 *
 * The GUI validates after every edit, so this never trusts the program: indices are
 * checked before use, every problem found is listed (not only the first), and the deadlock
 * search is an iterative DFS over a bounded instance graph. The instance graph uses the
 * same lane-expansion and dependency rules as the simulator (sim.c), so a cycle found here
 * is exactly a simulator deadlock. */
#include "validate.h"

#include "regfile.h"
#include "smem_layout.h"
#include "splitk.h"
#include "streamk.h"
#include "stage_hold.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SMEM_ALIGN 1024        /* 128B-swizzled TMA/wgmma buffers start on 1 KiB */
#define SMEM_BARRIER_BASE 64   /* bookkeeping barriers (pipeline start, epilogue) */
#define SMEM_ATOM 128          /* a 128-byte swizzle atom: rows longer than one are whole atoms */
#define REG_OVERHEAD 24        /* addresses, loop counters, barrier phases per thread */
#define MAX_CHECK_ITERS 64     /* bound of the unrolled instance graph */
#define MAX_OFFSET 8           /* the Append limit on |offset| (sprogram.c) */

/* ---- problem list ----------------------------------------------------------------------- */

static void problem(pt_validation *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(pt_validation *r, const char *fmt, ...)
{
    if (r->n_problems >= PT_MAX_PROBLEMS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->problems[r->n_problems++], sizeof r->problems[0], fmt, ap);
    va_end(ap);
}

/* A problem about one element of the sProgram, prefixed with its JSON path in the sProgram
 * file format ("$.lanes[1].order[3]: ..."): the loader keeps the file's order of lanes,
 * entries and Waits, so the path points into the file the program came from (and into the
 * file `program`/the explorer writes for it). Callers prefix the file name. */
static void problem_at(pt_validation *r, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void problem_at(pt_validation *r, const char *path, const char *fmt, ...)
{
    if (r->n_problems >= PT_MAX_PROBLEMS)
        return;
    char *out = r->problems[r->n_problems++];
    size_t cap = sizeof r->problems[0];
    int n = snprintf(out, cap, "%s: ", path);
    if (n < 0 || (size_t)n >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out + n, cap - (size_t)n, fmt, ap);
    va_end(ap);
}

/* ---- small safe accessors --------------------------------------------------------------- */

static const char *seu_name(pt_seu_kind k)
{
    return (unsigned)k < PT_SEU_COUNT ? pt_seu_name(k) : "?";
}

static const char *region_name(pt_region r)
{
    return (unsigned)r <= PT_REGION_EPILOGUE ? pt_region_name(r) : "?";
}

static int deps_of(const pt_stask *t)
{
    return t->n_deps < 0 ? 0 : t->n_deps > PT_MAX_DEPS ? PT_MAX_DEPS : t->n_deps;
}

static bool is_body(const pt_stask_graph *sg, int s)
{
    return sg->tasks[s].region == PT_REGION_BODY;
}

static bool tensor_ok(int t)
{
    return t >= 0 && t < PT_MAX_TENSORS;
}

static int lanes_of(const pt_sprogram *p)
{
    return p->n_lanes < 0 ? 0 : p->n_lanes > PT_MAX_LANES ? PT_MAX_LANES : p->n_lanes;
}

static int roles_of(const pt_sprogram *p)
{
    return p->n_roles < 0 ? 0 : p->n_roles > PT_MAX_ROLES ? PT_MAX_ROLES : p->n_roles;
}

static int lane_len(const pt_lane *l)
{
    return l->entries && l->n > 0 ? l->n : 0;
}

static int waits_of(const pt_sprogram *p)
{
    return p->waits && p->n_waits > 0 ? p->n_waits : 0;
}

static int64_t sat_add(int64_t a, int64_t b)
{
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* Storage bits of the tensor an sTask touches (the graph's dtype when known). */
static int tensor_bits(const pt_stask_graph *sg, const pt_stask *t)
{
    int bits = 0;
    if (sg->graph && t->tensor >= 0 && t->tensor < sg->graph->n_tensors &&
        t->tensor < PT_MAX_TENSORS)
        bits = pt_dtype_bits(sg->graph->tensors[t->tensor].dtype);
    if (bits <= 0)
        bits = pt_dtype_bits(t->dtype);
    return bits > 0 ? bits : 16;
}

static int64_t tile_elems(const pt_stask *t)
{
    int64_t e = 1;
    int rank = t->rank < 0 ? 0 : t->rank > PT_MAX_RANK ? PT_MAX_RANK : t->rank;
    for (int r = 0; r < rank; r++) {
        int64_t x = t->tile[r] > 0 ? t->tile[r] : 1;
        if (x > PT_MAX_ELEMS || e > PT_MAX_ELEMS / x)
            return PT_MAX_ELEMS;
        e *= x;
    }
    return e;
}

static int64_t round_up(int64_t x, int64_t a)
{
    return x > INT64_MAX - a ? INT64_MAX : (x + a - 1) / a * a;
}

int64_t pt_stask_smem_tile_bytes_on(const pt_stask_graph *sg, const pt_stask *t, const pt_hw *hw)
{
    pt_smem_layout L;
    pt_smem_layout_of(hw, &L);
    int rank = t->rank < 0 ? 0 : t->rank > PT_MAX_RANK ? PT_MAX_RANK : t->rank;
    int64_t inner = rank > 0 && t->tile[rank - 1] > 0 ? t->tile[rank - 1] : 1;
    int64_t row = (inner * tensor_bits(sg, t) + 7) / 8, rows = tile_elems(t) / inner;
    if (t->kind == PT_ST_LOAD && L.row_pad > 0) {
        /* a padded row: whole 16-byte chunks, then the pad (gfx942: ld = cols + 8) */
        int64_t padded = round_up(row, 16) + L.row_pad;
        return rows > INT64_MAX / 2 / padded ? INT64_MAX / 2 : rows * padded;
    }
    /* a loaded row is moved in 16-byte granules (a TMA box; a global -> LDS copy): one group
     * scale per row is loaded 16 bytes wide */
    if (t->kind == PT_ST_LOAD && row % 16)
        return rows * round_up(row, 16) > INT64_MAX / 2 ? INT64_MAX : rows * round_up(row, 16);
    if (!L.atoms || row <= SMEM_ATOM || row % SMEM_ATOM == 0)
        return (tile_elems(t) * tensor_bits(sg, t) + 7) / 8;
    int64_t padded = round_up(row, SMEM_ATOM);
    return rows > INT64_MAX / padded ? INT64_MAX : rows * padded;
}

int64_t pt_stask_smem_tile_bytes(const pt_stask_graph *sg, const pt_stask *t)
{
    return pt_stask_smem_tile_bytes_on(sg, t, NULL);
}

static int64_t tile_buffer_bytes_on(const pt_stask_graph *sg, const pt_stask *t, const pt_hw *hw)
{
    pt_smem_layout L;
    pt_smem_layout_of(hw, &L);
    return round_up(pt_stask_smem_tile_bytes_on(sg, t, hw), L.align);
}

static int64_t tile_buffer_bytes(const pt_stask_graph *sg, const pt_stask *t)
{
    return tile_buffer_bytes_on(sg, t, NULL);
}

/* The store whose tile is the output staging tile: the largest (the first of equals); any
 * other store (an online softmax's log-sum-exp rows) has a buffer of its own. -1: none. */
static int staging_store(const pt_stask_graph *sg)
{
    int best = -1;
    for (int s = 0; s < sg->n; s++)
        if (sg->tasks[s].kind == PT_ST_STORE &&
            (best < 0 || tile_buffer_bytes(sg, &sg->tasks[s]) > tile_buffer_bytes(sg, &sg->tasks[best])))
            best = s;
    return best;
}

/* ---- shared memory ---------------------------------------------------------------------- */

/* Everything but split_k_reduce cluster's slots; *rings: the bytes of the rings' stages. */
static int64_t smem_bytes_parts(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                                int64_t *rings)
{
    *rings = 0;
    if (!p || !sg || !sg->tasks || sg->n <= 0)
        return 0;
    pt_smem_layout L;
    pt_smem_layout_of(hw, &L);
    int64_t ring[PT_MAX_TENSORS] = {0}; /* one copy of every buffered tile of a tensor */
    int64_t total = L.base_bytes, resident_max = 0;
    for (int s = 0; s < sg->n; s++) {
        const pt_stask *t = &sg->tasks[s];
        if (pt_stask_fills_ring(sg, s) && tensor_ok(t->tensor))
            ring[t->tensor] = sat_add(ring[t->tensor], tile_buffer_bytes_on(sg, t, hw));
        else if (t->kind == PT_ST_LOAD && L.resident_in_smem) {
            /* resident tiles (Q in attention): one copy, or two where the next tile's is
             * loaded during this one (check_resident_stages) */
            int64_t b = tile_buffer_bytes_on(sg, t, hw);
            int copies = tensor_ok(t->tensor) && p->stages[t->tensor] == 2 ? 2 : 1;
            total = sat_add(total, copies * b);
            if (b > resident_max)
                resident_max = b;
        }
    }
    /* The output staging tile: one copy, except that a resident tile at least as large takes
     * it once the loop is done (partition.staging over_resident; auto decides by what fits,
     * pt_sprogram_staging_apart). Outputs written from registers take none. */
    int staging = staging_store(sg);
    for (int s = 0; s < sg->n && L.staged_store; s++) {
        const pt_stask *t = &sg->tasks[s];
        if (t->kind == PT_ST_STORE &&
            (s != staging || tile_buffer_bytes_on(sg, t, hw) > resident_max ||
             p->partition.staging == PT_STAGING_APART || sg->tiling.wg_stores))
            total = sat_add(total, tile_buffer_bytes_on(sg, t, hw));
    }
    for (int x = 0; x < PT_MAX_TENSORS; x++) {
        if (!ring[x])
            continue;
        int64_t stages = p->stages[x] < 0 ? 0 : p->stages[x] > 65536 ? 65536 : p->stages[x];
        int64_t bytes = ring[x] > INT64_MAX / 65536 / 2 ? INT64_MAX / 65536 / 2 : ring[x];
        total = sat_add(total, stages * bytes);
        total = sat_add(total, stages * L.barrier_bytes);
        *rings = sat_add(*rings, stages * bytes);
    }
    return total;
}

/* The leader's slots (cl bytes with its barriers, pt_split_k_cluster_smem) go beside the
 * buffers where they fit, else over the rings' stages when those are as large (the leader's
 * loop is done with them by then). */
static bool slots_over_rings(int64_t total, int64_t rings, int64_t cl, const pt_hw *hw)
{
    return cl > 16 && hw && total + cl > hw->smem_per_block && cl - 16 <= rings;
}

bool pt_sprogram_cluster_slots_over_rings(const pt_sprogram *p, const pt_stask_graph *sg,
                                          const pt_hw *hw)
{
    int64_t cl = pt_split_k_cluster_smem(p, sg), rings;
    if (cl <= 0)
        return false;
    int64_t total = smem_bytes_parts(p, sg, hw, &rings);
    return slots_over_rings(total, rings, cl, hw);
}

int64_t pt_sprogram_smem_bytes_on(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw)
{
    int64_t rings, total = smem_bytes_parts(p, sg, hw, &rings);
    int64_t cl = pt_split_k_cluster_smem(p, sg);
    if (slots_over_rings(total, rings, cl, hw))
        return sat_add(total, 16); /* the leader's barriers only */
    return sat_add(total, cl);
}

int64_t pt_sprogram_smem_bytes(const pt_sprogram *p, const pt_stask_graph *sg)
{
    return pt_sprogram_smem_bytes_on(p, sg, NULL);
}

/* Bytes of the output staging tile; 0 when no resident tile is at least as large (then the
 * staging tile has a buffer of its own and there is no choice to make). */
static int64_t staging_over_resident_bytes(const pt_stask_graph *sg)
{
    /* each warpgroup's own store (tiling wg_stores) stages its rows apart: the warpgroups
     * finish at different times, and a resident tile is free only once all are done */
    if (sg->tiling.wg_stores)
        return 0;
    int64_t resident_max = 0, staging = 0;
    for (int s = 0; s < sg->n; s++) {
        const pt_stask *t = &sg->tasks[s];
        int64_t b = tile_buffer_bytes(sg, t);
        if (t->kind == PT_ST_LOAD && !t->buffered && b > resident_max)
            resident_max = b;
    }
    int st = staging_store(sg);
    if (st >= 0)
        staging = tile_buffer_bytes(sg, &sg->tasks[st]);
    return staging > 0 && staging <= resident_max ? staging : 0;
}

int pt_sprogram_store_lane_loads(const pt_sprogram *p, const pt_stask_graph *sg)
{
    if (!p || !sg || !sg->tasks)
        return -1;
    for (int l = 0; l < lanes_of(p); l++) {
        bool load = false, store = false;
        for (int i = 0; i < lane_len(&p->lanes[l]); i++) {
            int s = p->lanes[l].entries[i].stask;
            if (s < 0 || s >= sg->n)
                continue;
            load |= sg->tasks[s].kind == PT_ST_LOAD;
            store |= sg->tasks[s].kind == PT_ST_STORE;
        }
        if (load && store)
            return l;
    }
    return -1;
}

bool pt_sprogram_staging_apart(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw)
{
    if (!p || !sg || !sg->tasks)
        return true;
    pt_smem_layout L;
    pt_smem_layout_of(hw, &L);
    if (!L.staged_store)
        return true; /* written from registers: no tile to share, the next Q never waits */
    int64_t staging = staging_over_resident_bytes(sg);
    if (staging == 0)
        return true; /* counted on its own already */
    if (p->partition.staging != PT_STAGING_AUTO)
        return p->partition.staging == PT_STAGING_APART; /* counted by pt_sprogram_smem_bytes */
    /* the generator's alignment slack (1024 bytes) is part of the budget */
    return p->partition.persistent && hw &&
           pt_sprogram_smem_bytes_on(p, sg, hw) + staging + 1024 <= hw->smem_per_block;
}

int pt_sprogram_staged_over(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw)
{
    if (!sg || !sg->tasks || pt_sprogram_staging_apart(p, sg, hw))
        return -1;
    int largest = -1;
    for (int s = 0; s < sg->n; s++) {
        const pt_stask *t = &sg->tasks[s];
        if (t->kind == PT_ST_LOAD && !t->buffered &&
            (largest < 0 || tile_buffer_bytes(sg, t) > tile_buffer_bytes(sg, &sg->tasks[largest])))
            largest = s;
    }
    return largest;
}

bool pt_sprogram_longest_first(const pt_sprogram *p, const pt_stask_graph *sg)
{
    return p && sg && sg->causal_op >= 0 && p->partition.order != PT_ORDER_RASTER;
}

/* Is there a staging choice: an output staging tile no larger than a resident tile? */
static bool staging_choice(const pt_stask_graph *sg)
{
    return staging_over_resident_bytes(sg) > 0;
}

void pt_sprogram_resolve_choices(pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw)
{
    if (!p || !sg || !sg->tasks)
        return;
    if (sg->causal_op >= 0 && p->partition.order == PT_ORDER_AUTO)
        p->partition.order =
            pt_sprogram_longest_first(p, sg) ? PT_ORDER_LONGEST_FIRST : PT_ORDER_RASTER;
    /* a part that writes the output from registers (AMD) has no staging tile: nothing to spell
     * out, and "apart" in a program that is not persistent would be refused on reading it */
    pt_smem_layout L;
    pt_smem_layout_of(hw, &L);
    if (staging_choice(sg) && L.staged_store && p->partition.staging == PT_STAGING_AUTO)
        p->partition.staging = pt_sprogram_staging_apart(p, sg, hw) ? PT_STAGING_APART
                                                                     : PT_STAGING_OVER_RESIDENT;
    /* a program built in code may leave split_k 0: it means 1, and says so */
    p->partition.split_k = pt_sprogram_split_k(p);
}

/* ---- registers -------------------------------------------------------------------------- */

static int task_wg(const pt_stask *t)
{
    return t->wg < 0 ? 0 : t->wg;
}

static int64_t fragment_regs(int64_t elems, int bits, int threads)
{
    int64_t per_reg = 32 * (int64_t)threads; /* bits held by one register across the wg */
    int64_t total_bits = elems > INT64_MAX / 64 ? INT64_MAX / 64 : elems * bits;
    return (total_bits + per_reg - 1) / per_reg;
}

static int acc_bits(const pt_stask_graph *sg, const pt_stask *t)
{
    if (sg->graph && t->op >= 0 && t->op < sg->graph->n_ops && t->op < PT_MAX_OPS) {
        int b = pt_dtype_bits(sg->graph->ops[t->op].acc);
        if (b > 0)
            return b;
    }
    return 32;
}

static bool reads_mma(const pt_stask_graph *sg, const pt_stask *t)
{
    for (int k = 0; k < deps_of(t); k++) {
        int f = t->deps[k].from;
        if (f >= 0 && f < sg->n && sg->tasks[f].kind == PT_ST_MMA)
            return true;
    }
    return false;
}

static int role_threads(const pt_sprogram *p, int wg)
{
    for (int r = 0; r < roles_of(p); r++)
        if (p->roles[r].wg == wg && p->roles[r].threads > 0)
            return p->roles[r].threads;
    return 128;
}

int pt_sprogram_regs_needed(const pt_sprogram *p, const pt_stask_graph *sg, int wg)
{
    if (!p || !sg || !sg->tasks || sg->n <= 0)
        return REG_OVERHEAD;
    int threads = role_threads(p, wg);
    bool counted[PT_MAX_TENSORS] = {false};
    int64_t regs = REG_OVERHEAD;
    /* Accumulators: one fragment per distinct mma output (S and O in attention). */
    for (int s = 0; s < sg->n; s++) {
        const pt_stask *t = &sg->tasks[s];
        if (t->kind != PT_ST_MMA || task_wg(t) != wg || !tensor_ok(t->tensor) ||
            counted[t->tensor])
            continue;
        counted[t->tensor] = true;
        regs = sat_add(regs, fragment_regs(tile_elems(t), acc_bits(sg, t), threads));
    }
    /* Register fragments that cuda-core pieces make out of accumulators (P = exp(S), ...). */
    for (int s = 0; s < sg->n; s++) {
        const pt_stask *t = &sg->tasks[s];
        if (t->seu != PT_SEU_CUDA_CORE || task_wg(t) != wg || !tensor_ok(t->tensor) ||
            counted[t->tensor] || !reads_mma(sg, t))
            continue;
        counted[t->tensor] = true;
        regs = sat_add(regs, fragment_regs(tile_elems(t), tensor_bits(sg, t), threads));
    }
    return regs > INT32_MAX ? INT32_MAX : (int)regs;
}

/* ---- placement, sEUs, offsets ----------------------------------------------------------- */

typedef struct {
    const pt_sprogram *p;
    const pt_stask_graph *sg;
    const pt_hw *hw;
    pt_validation *r;
    int *lane_of;      /* first lane an sTask is placed on, -1 = unplaced */
    int *pos_of;       /* its position there */
} vctx;

/* A prologue product issued a tile ahead (offset 1 on a prologue tensor-core sTask): a persistent
 * CTA issues the next tile's instance once this tile's loop is done, before this tile's
 * epilogue, so its latency leaves the consumer's chain (docs/FORMAT-sprogram.md). Its operands
 * must be loaded tiles, and the next tile's must not wait behind this tile's store (an output
 * staged over a resident tile), or the warpgroup would wait for loads that wait for it. */
static void check_prologue_ahead(const vctx *c, int s, int offset, const char *lane,
                                 const char *ep)
{
    const pt_stask *t = &c->sg->tasks[s];
    if (offset != 1 || !pt_stask_prologue_product(c->sg, s)) {
        problem_at(c->r, ep, "sTask %s has offset %d on lane %s but is in the %s; offsets are for "
                   "loop-body sTasks, and 1 for a prologue product issued a tile ahead", t->id,
                   offset, lane, region_name(t->region));
        return;
    }
    if (!c->p->partition.persistent)
        problem_at(c->r, ep, "sTask %s has offset 1 (issued during the tile before) but "
                   "partition.persistent is false: only a persistent CTA has a tile before", t->id);
    else if (c->sg->causal_op >= 0 && c->p->partition.run <= 1 && c->hw &&
             c->sg->tiles > c->hw->eu_count)
        /* causal tiles one at a time are handed out by an atomic (the generator's dynamic
         * walk): the next tile is not known when this one ends */
        problem_at(c->r, ep, "sTask %s has offset 1 (issued a tile ahead) but a persistent CTA "
                   "takes causal tiles one at a time from an atomic, so its next tile is not "
                   "known before this one ends; expected partition.run 2 or more", t->id);
    else if (c->p->partition.stream_k > 0)
        problem_at(c->r, ep, "sTask %s has offset 1 (issued a tile ahead) but partition.stream_k "
                   "is set; expected whole tiles walked in a fixed order", t->id);
    for (int d = 0; d < t->n_deps; d++) {
        const pt_stask *u = &c->sg->tasks[t->deps[d].from];
        if (u->kind != PT_ST_LOAD)
            problem_at(c->r, ep, "sTask %s has offset 1 (issued a tile ahead) but reads %s, which "
                       "the tile computes; expected loaded operands only", t->id, u->id);
    }
    int sl = pt_sprogram_store_lane_loads(c->p, c->sg);
    if (sl >= 0)
        problem_at(c->r, ep, "sTask %s has offset 1 (issued a tile ahead) but lane %s issues both "
                   "the loads and the store: the next tile's operands would wait for this "
                   "tile's store; expected the store on a consumer warpgroup (store_role)",
                   t->id, c->p->lanes[sl].name);
    if (!pt_sprogram_staging_apart(c->p, c->sg, c->hw))
        problem_at(c->r, ep, "sTask %s has offset 1 (issued a tile ahead) but the output is staged "
                   "over a resident tile (partition.staging): the next tile's operands would wait "
                   "for this tile's store; expected partition.staging \"apart\"", t->id);
}

static void check_placement(vctx *c)
{
    const pt_sprogram *p = c->p;
    const pt_stask_graph *sg = c->sg;
    int *count = calloc((size_t)sg->n, sizeof *count);
    if (!count) {
        problem(c->r, "out of memory while validating");
        return;
    }
    for (int l = 0; l < lanes_of(p); l++) {
        const pt_lane *ln = &p->lanes[l];
        char lp[48], ep[64];
        snprintf(lp, sizeof lp, "$.lanes[%d]", l);
        if (ln->n > 0 && !ln->entries)
            problem_at(c->r, lp, "lane %s claims %d entries but holds none", ln->name, ln->n);
        if (ln->role < 0 || ln->role >= roles_of(p))
            problem_at(c->r, lp, "lane %s is issued by role %d, which does not exist", ln->name,
                       ln->role);
        for (int i = 0; i < lane_len(ln); i++) {
            const pt_lane_entry *e = &ln->entries[i];
            snprintf(ep, sizeof ep, "$.lanes[%d].order[%d]", l, i);
            if (e->stask < 0 || e->stask >= sg->n) {
                problem_at(c->r, ep, "lane %s, position %d: sTask index %d is not in the "
                           "sTask-graph", ln->name, i, e->stask);
                continue;
            }
            const pt_stask *t = &sg->tasks[e->stask];
            if (++count[e->stask] == 1) {
                c->lane_of[e->stask] = l;
                c->pos_of[e->stask] = i;
            } else if (count[e->stask] == 2)
                problem_at(c->r, ep, "sTask %s is placed more than once (lanes %s and %s); expected "
                              "exactly one place", t->id, p->lanes[c->lane_of[e->stask]].name,
                        ln->name);
            if (ln->seu != t->seu)
                problem_at(c->r, ep, "sTask %s runs on the %s but lane %s issues to the %s", t->id,
                        seu_name(t->seu), ln->name, seu_name(ln->seu));
            if (e->offset < -MAX_OFFSET || e->offset > MAX_OFFSET)
                problem_at(c->r, ep, "sTask %s has offset %d on lane %s; expected %d to %d", t->id,
                        e->offset, ln->name, -MAX_OFFSET, MAX_OFFSET);
            else if (e->offset != 0 && t->region != PT_REGION_BODY)
                check_prologue_ahead(c, e->stask, e->offset, ln->name, ep);
        }
    }
    for (int s = 0; s < sg->n; s++)
        if (count[s] == 0)
            problem_at(c->r, "$.lanes", "sTask %s is not placed on any lane; Append it to a %s lane",
                    sg->tasks[s].id, seu_name(sg->tasks[s].seu));
    free(count);
}

/* ---- Waits ------------------------------------------------------------------------------ */

static bool wait_ok(const vctx *c, const pt_wait_entry *w)
{
    return w->stask >= 0 && w->stask < c->sg->n && w->on >= 0 && w->on < c->sg->n &&
           w->distance >= 0;
}

/* "$.waits[i]" + suffix, into buf (40 bytes). */
static const char *wait_path(int i, const char *suffix, char *buf)
{
    snprintf(buf, 40, "$.waits[%d]%s", i, suffix);
    return buf;
}

static void check_waits(vctx *c)
{
    const pt_sprogram *p = c->p;
    const pt_stask_graph *sg = c->sg;
    for (int i = 0; i < waits_of(p); i++)
        if (!wait_ok(c, &p->waits[i]))
            problem_at(c->r, wait_path(i, "", (char[40]){0}), "Wait %d refers to sTasks %d and %d at distance %d; expected sTasks "
                          "of the sTask-graph and a distance >= 0", i, p->waits[i].stask,
                    p->waits[i].on, p->waits[i].distance);
    for (int s = 0; s < sg->n; s++) {
        const pt_stask *t = &sg->tasks[s];
        for (int k = 0; k < deps_of(t); k++) {
            const pt_dep *d = &t->deps[k];
            if (d->from < 0 || d->from >= sg->n)
                continue;
            int lt = c->lane_of[s], lf = c->lane_of[d->from];
            if (lt < 0 || lf < 0 || lt == lf)
                continue;
            bool covered = false;
            int too_far = -1; /* a Wait on the same pair at a distance beyond the dependency's */
            for (int i = 0; i < waits_of(p) && !covered; i++) {
                const pt_wait_entry *w = &p->waits[i];
                if (w->stask != s || w->on != d->from)
                    continue;
                covered = w->distance >= 0 && w->distance <= d->distance;
                if (!covered && too_far < 0)
                    too_far = i;
            }
            char wp[40];
            if (!covered && too_far >= 0)
                problem_at(c->r, wait_path(too_far, ".distance", wp),
                           "the Wait of %s on %s is at distance %d, out of range for this "
                           "dependency (%s reads %s %s); expected a distance from 0 to %d",
                           t->id, sg->tasks[d->from].id, p->waits[too_far].distance, t->id,
                           sg->tasks[d->from].id,
                           d->distance == 0 ? "of the same iteration" : "iterations back",
                           d->distance);
            else if (!covered)
                problem_at(c->r, "$.waits", "%s reads %s but has no Wait on it (lanes %s and %s)",
                           t->id, sg->tasks[d->from].id, p->lanes[lt].name, p->lanes[lf].name);
        }
    }
}

static void check_stages(vctx *c)
{
    bool reported[PT_MAX_TENSORS] = {false};
    for (int s = 0; s < c->sg->n; s++) {
        const pt_stask *t = &c->sg->tasks[s];
        bool writes = pt_stask_writes_ring(c->sg, s);
        if (!pt_stask_fills_ring(c->sg, s) || !tensor_ok(t->tensor) ||
            reported[t->tensor] || c->p->stages[t->tensor] >= 1)
            continue;
        reported[t->tensor] = true;
        const char *name = c->sg->graph && t->tensor < c->sg->graph->n_tensors
                               ? c->sg->graph->tensors[t->tensor].name
                               : t->id;
        char sp[96];
        snprintf(sp, sizeof sp, "$.stages.%s", name);
        problem_at(c->r, sp, "tensor %s is %s a ring buffer by %s but has %d stages; "
                             "expected at least 1", name, writes ? "written into" : "loaded into",
                   t->id, c->p->stages[t->tensor]);
    }
}

/* Stages of a tensor that no ring holds: a prologue (resident) load may have one copy or, in a
 * persistent program with the output staged apart, two (the next tile's loaded during this
 * one); any other tensor has none to set. */
static void check_resident_stages(vctx *c)
{
    const pt_graph *g = c->sg->graph;
    for (int x = 0; x < PT_MAX_TENSORS; x++) {
        int st = c->p->stages[x];
        if (st == 0)
            continue;
        int ring = -1, resident = -1;
        for (int s = 0; s < c->sg->n; s++) {
            const pt_stask *t = &c->sg->tasks[s];
            if (t->tensor != x)
                continue;
            if (pt_stask_fills_ring(c->sg, s))
                ring = s;
            else if (t->kind == PT_ST_LOAD && !t->buffered)
                resident = s;
        }
        if (ring >= 0)
            continue; /* check_stages */
        const char *name = g && x < g->n_tensors ? g->tensors[x].name : "?";
        char sp[96];
        snprintf(sp, sizeof sp, "$.stages.%s", name);
        if (resident < 0) {
            problem_at(c->r, sp, "tensor %s is not loaded into a ring of stages or a resident "
                                 "tile, so it has no stages to set (remove the entry)", name);
            continue;
        }
        const char *id = c->sg->tasks[resident].id;
        pt_smem_layout L;
        pt_smem_layout_of(c->hw, &L);
        if (st == 2 && !L.resident_in_smem)
            problem_at(c->r, sp, "is 2, but %s keeps resident tiles in registers: one copy (use "
                                 "1)", c->hw ? c->hw->name : "this part");
        else if (st < 1 || st > 2)
            problem_at(c->r, sp, "is %d; %s loads %s once per tile: expected 1 (one copy) or 2 "
                                 "(the next tile's loaded while this one is in use)", st, id, name);
        else if (st == 2 && !c->p->partition.persistent)
            problem_at(c->r, sp, "is 2, but a CTA that runs one tile has no next tile to load "
                                 "%s for: set partition.persistent or use 1", name);
        else if (st == 2 && !pt_sprogram_staging_apart(c->p, c->sg, c->hw))
            problem_at(c->r, sp, "is 2, but the output is staged over %s (partition.staging "
                                 "over_resident, or auto without room for both): stage it apart "
                                 "or use 1", name);
    }
}

/* partition.split_k (splitk.h): a split of a loop that exists, into chunks of at least one
 * iteration, of a sum the fix-up's adds can finish. */
static void check_split_k(vctx *c)
{
    int s = c->p->partition.split_k;
    char why[240];
    if (s > PT_MAX_SPLIT_K)
        problem_at(c->r, "$.partition.split_k", "is %d; expected 1 to %d", s, PT_MAX_SPLIT_K);
    else if (s <= 1)
        return;
    else if (!pt_split_k_possible(c->sg, why, sizeof why))
        problem_at(c->r, "$.partition.split_k", "is %d, but %s; expected 1", s, why);
    else if ((int64_t)s > c->sg->iterations)
        problem_at(c->r, "$.partition.split_k", "is %d, more than the %lld iteration%s of the "
                                                "loop over %s; expected 1 to %lld",
                   s, (long long)c->sg->iterations, c->sg->iterations == 1 ? "" : "s",
                   c->sg->graph && c->sg->loop_axis < c->sg->graph->n_axes
                       ? c->sg->graph->axes[c->sg->loop_axis].name
                       : "the reduction axis",
                   (long long)(c->sg->iterations < PT_MAX_SPLIT_K ? c->sg->iterations
                                                                  : PT_MAX_SPLIT_K));
}

/* partition.split_k_reduce cluster (splitk.h): 2 to 8 chunks a tile, one tile per CTA, on
 * hardware whose model lists that cluster size. */
static void check_split_reduce(vctx *c)
{
    const pt_partition_spec *ps = &c->p->partition;
    if (ps->split_reduce != PT_SPLIT_REDUCE_CLUSTER)
        return;
    const char *k = "$.partition.split_k_reduce";
    int s = pt_sprogram_split_k(c->p);
    if (s < 2 || s > PT_HW_MAX_CLUSTER)
        problem_at(c->r, k, "is cluster with split_k %d; a cluster reduces 2 to %d chunks of a "
                            "tile: expected split_k 2 to %d or split_k_reduce workspace",
                   s, PT_HW_MAX_CLUSTER, PT_HW_MAX_CLUSTER);
    else if (ps->persistent)
        problem_at(c->r, k, "is cluster, but partition.persistent is true; the leader's slots "
                            "take one tile per cluster: expected persistent false or "
                            "split_k_reduce workspace");
    else if (c->hw && c->hw->cluster_capacity[s] <= 0)
        problem_at(c->r, k, "is cluster with split_k %d, but the hardware model %s lists no "
                            "capacity for clusters of %d CTAs ($.clusters.capacity); expected "
                            "workspace", s, c->hw->name, s);
}

/* partition.stream_k (streamk.h): a persistent grid that fits the EUs at once (the even split
 * assumes every CTA runs from the start), over a loop whose partial sums add up, not combined
 * with split-K. */
static void check_stream_k(vctx *c)
{
    int g = c->p->partition.stream_k;
    char why[240];
    if (g == 0)
        return;
    if (g < 2 || g > PT_MAX_STREAM_K)
        problem_at(c->r, "$.partition.stream_k", "is %d; expected 0 (off) or a grid of 2 to %d "
                                                 "CTAs", g, PT_MAX_STREAM_K);
    else if (!pt_split_k_possible(c->sg, why, sizeof why))
        problem_at(c->r, "$.partition.stream_k", "is %d, but %s; expected 0", g, why);
    else if (pt_sprogram_split_k(c->p) > 1)
        problem_at(c->r, "$.partition.stream_k", "is %d with split_k %d; stream-K splits the "
                                                 "loops itself: expected split_k 1 or stream_k 0",
                   g, pt_sprogram_split_k(c->p));
    else if (!c->p->partition.persistent)
        problem_at(c->r, "$.partition.stream_k", "is %d, but partition.persistent is false; a "
                                                 "stream-K grid is persistent: expected "
                                                 "persistent true", g);
    else if (c->hw && g > c->hw->eu_count)
        problem_at(c->r, "$.partition.stream_k", "is %d, more CTAs than the %d EUs of %s; "
                                                 "expected 2 to %d (every CTA runs from the "
                                                 "start)", g, c->hw->eu_count, c->hw->name,
                   c->hw->eu_count);
}

/* partition.order and partition.staging name a choice only some programs have. */
static void check_partition(vctx *c)
{
    check_split_k(c);
    check_split_reduce(c);
    check_stream_k(c);
    const pt_partition_spec *ps = &c->p->partition;
    if (ps->run > 1 && !ps->persistent)
        problem_at(c->r, "$.partition.run", "is %d, but partition.persistent is false; only a "
                                            "persistent CTA runs several tiles: set persistent "
                                            "or use 1", ps->run);
    else if (ps->run > 1 && (pt_sprogram_split_k(c->p) > 1 || pt_sprogram_stream_k(c->p) > 1))
        problem_at(c->r, "$.partition.run", "is %d, but %s; runs of launch positions are of "
                                            "whole tiles: use 1", ps->run,
                   pt_sprogram_split_k(c->p) > 1 ? "split_k cuts tiles into chunks"
                                                 : "stream_k splits the tiles' loops");
    if (ps->order == PT_ORDER_LONGEST_FIRST && c->sg->causal_op < 0)
        problem_at(c->r, "$.partition.order", "longest_first orders tiles of unequal length, "
                                              "which only a causal mask makes; this graph has "
                                              "none (use raster or auto)");
    if (ps->staging == PT_STAGING_OVER_RESIDENT && c->sg->tiling.wg_stores)
        problem_at(c->r, "$.partition.staging", "over_resident, but wg_stores is set: each "
                                                "warpgroup stages its own rows apart (a resident "
                                                "tile is free only when every warpgroup is done); "
                                                "use apart or auto");
    if (ps->staging == PT_STAGING_APART && !ps->persistent && staging_choice(c->sg))
        problem_at(c->r, "$.partition.staging", "apart: a staging tile of its own only pays in a "
                                                "persistent program (the next tile's loads run "
                                                "during this tile's store); set persistent or use "
                                                "auto");
}

/* ---- deadlock: cycle search on the instance graph ---------------------------------------- */

typedef struct {
    const vctx *c;
    int iters;
    int *base;         /* first node of each sTask */
    int n_nodes;
    int *eu, *ev;      /* edges u -> v: instance u waits for instance v */
    int n_edges, cap_edges;
    bool oom;
    const int *stages; /* ring depth per tensor (the program's, or a trial's) */
    const pt_stage_hold *hold; /* when a slot is freed (stage_hold.h); NULL: lag 0, no deferral */
} igraph;

static int node(const igraph *g, int s, int i)
{
    return g->base[s] + (is_body(g->c->sg, s) ? i : 0);
}

static void add_edge(igraph *g, int u, int v)
{
    if (u < 0 || v < 0 || g->oom)
        return;
    if (g->n_edges == g->cap_edges) {
        int cap = g->cap_edges ? g->cap_edges * 2 : 256;
        int *nu = realloc(g->eu, (size_t)cap * sizeof *nu);
        if (nu)
            g->eu = nu;
        int *nv = nu ? realloc(g->ev, (size_t)cap * sizeof *nv) : NULL;
        if (!nu || !nv) {
            g->oom = true;
            return;
        }
        g->ev = nv;
        g->cap_edges = cap;
    }
    g->eu[g->n_edges] = u;
    g->ev[g->n_edges++] = v;
}

/* The instance of `from` that instance (s, i) depends on at distance `dist`, or -1. */
static int dep_instance(const igraph *g, int s, int i, int from, int dist)
{
    const pt_stask_graph *sg = g->c->sg;
    if (!is_body(sg, from))
        return node(g, from, 0);
    if (!is_body(sg, s))
        return node(g, from, g->iters - 1);
    int j = i - dist;
    return j >= 0 ? node(g, from, j) : -1;
}

static int instances_of(const igraph *g, int s)
{
    return is_body(g->c->sg, s) ? g->iters : 1;
}

/* Does entry i of lane l take part in the instance graph? Only an sTask's first placement
 * counts (duplicates are reported, not expanded), and offsets beyond the Append limit are
 * reported and skipped so the loop below stays short. */
static bool entry_counts(const igraph *g, int l, int i)
{
    const vctx *c = g->c;
    const pt_lane_entry *e = &c->p->lanes[l].entries[i];
    return e->stask >= 0 && e->stask < c->sg->n && c->lane_of[e->stask] == l &&
           c->pos_of[e->stask] == i && e->offset >= -MAX_OFFSET && e->offset <= MAX_OFFSET;
}

/* Consecutive instances on a lane: each waits for the one issued before it. The order is
 * the lane expansion the simulator uses: prologue entries, then loop steps
 * v = -max(offset) .. iters-1-min(offset) giving (body entry, v + offset) when that
 * iteration exists, then epilogue entries. */
static void lane_edges(igraph *g, int l)
{
    const vctx *c = g->c;
    const pt_lane *ln = &c->p->lanes[l];
    int prev = -1, min_off = 0, max_off = 0;
    for (int i = 0; i < lane_len(ln); i++) {
        int s = ln->entries[i].stask;
        if (!entry_counts(g, l, i) || c->sg->tasks[s].region == PT_REGION_EPILOGUE)
            continue;
        if (is_body(c->sg, s)) {
            int o = ln->entries[i].offset;
            min_off = o < min_off ? o : min_off;
            max_off = o > max_off ? o : max_off;
            continue;
        }
        add_edge(g, node(g, s, 0), prev); /* prologue (or unknown region): before the loop */
        prev = node(g, s, 0);
    }
    for (int v = -max_off; v <= g->iters - 1 - min_off; v++)
        for (int i = 0; i < lane_len(ln); i++) {
            int s = ln->entries[i].stask;
            if (!entry_counts(g, l, i) || !is_body(c->sg, s))
                continue;
            int it = v + ln->entries[i].offset;
            if (it < 0 || it >= g->iters)
                continue;
            add_edge(g, node(g, s, it), prev);
            prev = node(g, s, it);
        }
    for (int i = 0; i < lane_len(ln); i++) {
        int s = ln->entries[i].stask;
        if (!entry_counts(g, l, i) || c->sg->tasks[s].region != PT_REGION_EPILOGUE)
            continue;
        add_edge(g, node(g, s, 0), prev);
        prev = node(g, s, 0);
    }
}

static void dependency_edges(igraph *g)
{
    const pt_stask_graph *sg = g->c->sg;
    const pt_sprogram *p = g->c->p;
    for (int s = 0; s < sg->n; s++) {
        const pt_stask *t = &sg->tasks[s];
        for (int i = 0; i < instances_of(g, s); i++) {
            int u = node(g, s, i);
            for (int k = 0; k < deps_of(t); k++)
                if (t->deps[k].from >= 0 && t->deps[k].from < sg->n)
                    add_edge(g, u, dep_instance(g, s, i, t->deps[k].from, t->deps[k].distance));
        }
    }
    for (int w = 0; w < waits_of(p); w++) {
        const pt_wait_entry *we = &p->waits[w];
        if (!wait_ok(g->c, we))
            continue;
        for (int i = 0; i < instances_of(g, we->stask); i++)
            add_edge(g, node(g, we->stask, i), dep_instance(g, we->stask, i, we->on,
                                                            we->distance));
    }
}

/* A buffered load reuses the slot of `stages` iterations ago: it waits until that older tile
 * is released at the latest point the contract allows (stage_hold.h: the end of the consumer
 * step that issues its reader at i + lag). With one wgmma group in flight (lag 1) the kernel
 * releases once the next reader is issued and the old one completed; modelled as the next
 * reader's completion, which follows its issue without waiting for anything else. */
static void stage_edges(igraph *g)
{
    const pt_stask_graph *sg = g->c->sg;
    for (int l = 0; l < sg->n; l++) {
        const pt_stask *ld = &sg->tasks[l];
        if (ld->kind != PT_ST_LOAD || !ld->buffered || !is_body(sg, l) || !tensor_ok(ld->tensor))
            continue;
        int st = g->stages[ld->tensor];
        if (st < 1 || st >= g->iters)
            continue;
        pt_stage_release rel[64];
        int nr = pt_stage_release_set(g->c->p, sg, g->hold, l, rel, 64);
        for (int r = 0; r < nr && r < 64; r++)
            for (int i = st; i < g->iters; i++) {
                int j = i - st + rel[r].delta;
                if (rel[r].clamp && j >= g->iters)
                    j = g->iters - 1;
                if (j >= 0 && j < g->iters)
                    add_edge(g, node(g, l, i), node(g, rel[r].stask, j));
            }
    }
}

/* Name of an instance for messages: "mma.C.wg0[3] (tc.wg0)". */
static int instance_name(const igraph *g, int nd, char *out, size_t cap)
{
    int s = 0;
    while (s + 1 < g->c->sg->n && g->base[s + 1] <= nd)
        s++;
    const pt_stask *t = &g->c->sg->tasks[s];
    int l = g->c->lane_of[s];
    const char *lane = l >= 0 ? g->c->p->lanes[l].name : "unplaced";
    if (is_body(g->c->sg, s))
        return snprintf(out, cap, "%s[%d] (%s)", t->id, nd - g->base[s], lane);
    return snprintf(out, cap, "%s (%s)", t->id, lane);
}

static void report_cycle(const igraph *g, const int *cyc, int len, char *msg, size_t cap)
{
    char name[PT_STASK_ID_MAX + PT_LANE_NAME_MAX + 24];
    char close[sizeof name];
    const char *tail = " (each waits for the next)";
    instance_name(g, cyc[0], close, sizeof close);
    /* room left once the closing " -> first" and the tail are reserved */
    if (!msg || cap < 128)
        return;
    size_t room = cap - strlen(close) - strlen(tail) - 16;
    size_t n = (size_t)snprintf(msg, cap, "deadlock: ");
    for (int k = 0; k < len; k++) {
        instance_name(g, cyc[k], name, sizeof name);
        if (n + strlen(name) + 4 > room) {
            n += (size_t)snprintf(msg + n, cap - n, " -> ...");
            break;
        }
        n += (size_t)snprintf(msg + n, cap - n, "%s%s", k ? " -> " : "", name);
    }
    snprintf(msg + n, cap - n, " -> %s%s", close, tail);
}

/* Iterative DFS (no recursion: the instance graph can be thousands deep). Returns 1 when a
 * cycle was found (written to msg), 0 when none, -1 when out of memory. */
static int find_cycle(igraph *g, char *msg, size_t cap)
{
    int found = 0;
    int N = g->n_nodes, E = g->n_edges;
    int *start = calloc((size_t)N + 1, sizeof *start);
    int *adj = malloc(((size_t)E + 1) * sizeof *adj);
    int *fill = calloc((size_t)N + 1, sizeof *fill);
    unsigned char *color = calloc((size_t)N + 1, 1);
    int *stack = malloc(((size_t)N + 1) * sizeof *stack);
    int *cursor = malloc(((size_t)N + 1) * sizeof *cursor);
    int *pos = malloc(((size_t)N + 1) * sizeof *pos);
    if (!start || !adj || !fill || !color || !stack || !cursor || !pos) {
        found = -1;
        goto out;
    }
    for (int e = 0; e < E; e++)
        start[g->eu[e] + 1]++;
    for (int v = 0; v < N; v++)
        start[v + 1] += start[v];
    for (int e = 0; e < E; e++)
        adj[start[g->eu[e]] + fill[g->eu[e]]++] = g->ev[e];

    for (int root = 0; root < N; root++) {
        if (color[root])
            continue;
        int sp = 0;
        stack[sp] = root;
        cursor[sp] = start[root];
        pos[root] = sp++;
        color[root] = 1;
        while (sp > 0) {
            int u = stack[sp - 1];
            if (cursor[sp - 1] == start[u + 1]) {
                color[u] = 2;
                sp--;
                continue;
            }
            int v = adj[cursor[sp - 1]++];
            if (color[v] == 0) {
                color[v] = 1;
                stack[sp] = v;
                cursor[sp] = start[v];
                pos[v] = sp++;
            } else if (color[v] == 1) {
                report_cycle(g, stack + pos[v], sp - pos[v], msg, cap);
                found = 1;
                goto out;
            }
        }
    }
out:
    free(start);
    free(adj);
    free(fill);
    free(color);
    free(stack);
    free(cursor);
    free(pos);
    return found;
}

/* Enough iterations that every stage reuse and every offset shows up at least once. */
static int check_iterations(const vctx *c, const int *stages)
{
    int max_stages = 0, min_off = 0, max_off = 0;
    for (int x = 0; x < PT_MAX_TENSORS; x++)
        if (stages[x] > max_stages)
            max_stages = stages[x] > MAX_CHECK_ITERS ? MAX_CHECK_ITERS : stages[x];
    for (int l = 0; l < lanes_of(c->p); l++)
        for (int i = 0; i < lane_len(&c->p->lanes[l]); i++) {
            int o = c->p->lanes[l].entries[i].offset;
            o = o < -MAX_CHECK_ITERS ? -MAX_CHECK_ITERS : o > MAX_CHECK_ITERS ? MAX_CHECK_ITERS : o;
            min_off = o < min_off ? o : min_off;
            max_off = o > max_off ? o : max_off;
        }
    int64_t n = (int64_t)max_stages + (max_off - min_off) + 4; /* + 1: a late release */
    if (c->sg->iterations < n)
        n = c->sg->iterations;
    if (n > MAX_CHECK_ITERS)
        n = MAX_CHECK_ITERS;
    return n < 1 ? 1 : (int)n;
}

/* Is there a cycle in the instance graph with these ring depths and release lags? 1: yes
 * (written to msg), 0: no, -1: out of memory or too large. */
static int instance_cycle(const vctx *c, const int *stages, const pt_stage_hold *hold, char *msg,
                          size_t cap)
{
    igraph g = {.c = c, .iters = check_iterations(c, stages), .stages = stages, .hold = hold};
    g.base = malloc(((size_t)c->sg->n + 1) * sizeof *g.base);
    if (!g.base)
        return -1;
    for (int s = 0; s < c->sg->n; s++) {
        g.base[s] = g.n_nodes;
        if (g.n_nodes > INT32_MAX / 2 - MAX_CHECK_ITERS) {
            free(g.base);
            return -1;
        }
        g.n_nodes += instances_of(&g, s);
    }
    g.base[c->sg->n] = g.n_nodes;
    for (int l = 0; l < lanes_of(c->p); l++)
        lane_edges(&g, l);
    dependency_edges(&g);
    stage_edges(&g);
    int found = g.oom ? -1 : find_cycle(&g, msg, cap);
    free(g.base);
    free(g.eu);
    free(g.ev);
    return found;
}

static const char *tensor_name(const pt_stask_graph *sg, int x)
{
    return sg->graph && x >= 0 && x < sg->graph->n_tensors ? sg->graph->tensors[x].name : "?";
}

/* A deadlock that more stages of one ring would remove is reported as what it is: the ring is
 * sized below how long a stage is held (stage_hold.h). */
static bool explain_stages(vctx *c, const pt_stage_hold *h)
{
    const pt_stask_graph *sg = c->sg;
    for (int l = 0; l < sg->n; l++) {
        const pt_stask *ld = &sg->tasks[l];
        if (ld->kind != PT_ST_LOAD || !ld->buffered || !is_body(sg, l) || !tensor_ok(ld->tensor) ||
            c->lane_of[l] < 0)
            continue;
        int x = ld->tensor, have = c->p->stages[x];
        int trial[PT_MAX_TENSORS];
        memcpy(trial, c->p->stages, sizeof trial);
        for (int need = have + 1; need <= 16 && need <= have + MAX_OFFSET * 2 + 2; need++) {
            trial[x] = need;
            int r = instance_cycle(c, trial, h, NULL, 0);
            if (r < 0)
                return false;
            if (r > 0)
                continue;
            int off = c->p->lanes[c->lane_of[l]].entries[c->pos_of[l]].offset;
            problem(c->r, "stages of %s = %d but a stage is held for %d iterations (%s at "
                          "offset %+d, %s); need >= %d", tensor_name(sg, x), have, need, ld->id,
                    off, h->lag[x] ? "mma group kept in flight: released one iteration late"
                                   : "released when its readers complete",
                    need);
            return true;
        }
    }
    return false;
}

static void check_deadlock(vctx *c)
{
    pt_stage_hold h;
    pt_stage_hold_decide(c->p, c->sg, &h);
    char msg[sizeof c->r->problems[0]];
    int r = instance_cycle(c, c->p->stages, &h, msg, sizeof msg);
    if (r < 0)
        problem(c->r, "out of memory while looking for deadlocks (or the sTask-graph is too "
                      "large to check)");
    else if (r > 0) {
        explain_stages(c, &h);
        problem(c->r, "%s", msg);
    }
}

bool pt_validate_ring_progress(const pt_sprogram *p, const pt_stask_graph *sg,
                               const int *stages, const pt_stage_hold *hold, char *msg,
                               size_t cap)
{
    if (msg && cap)
        msg[0] = 0;
    if (!p || !sg || !sg->tasks || sg->n <= 0 || p->n_lanes < 0 || p->n_lanes > PT_MAX_LANES)
        return false;
    pt_validation local;
    memset(&local, 0, sizeof local);
    vctx c = {.p = p, .sg = sg, .r = &local};
    c.lane_of = malloc(((size_t)sg->n + 1) * sizeof *c.lane_of);
    c.pos_of = malloc(((size_t)sg->n + 1) * sizeof *c.pos_of);
    bool ok = false;
    if (c.lane_of && c.pos_of) {
        for (int s = 0; s < sg->n; s++)
            c.lane_of[s] = c.pos_of[s] = -1;
        for (int l = 0; l < lanes_of(p); l++)
            for (int i = 0; i < lane_len(&p->lanes[l]); i++) {
                int s = p->lanes[l].entries[i].stask;
                if (s >= 0 && s < sg->n && c.lane_of[s] < 0) {
                    c.lane_of[s] = l;
                    c.pos_of[s] = i;
                }
            }
        ok = instance_cycle(&c, stages ? stages : p->stages, hold, msg, cap) == 0;
    }
    free(c.lane_of);
    free(c.pos_of);
    return ok;
}

/* ---- resources -------------------------------------------------------------------------- */

static void check_smem(vctx *c)
{
    c->r->smem_bytes = pt_sprogram_smem_bytes_on(c->p, c->sg, c->hw);
    c->r->smem_limit = c->hw ? c->hw->smem_per_block : 0;
    if (!c->hw || c->r->smem_bytes <= c->r->smem_limit)
        return;
    char stages[160] = "";
    size_t n = 0;
    for (int x = 0; x < PT_MAX_TENSORS && c->sg->graph && x < c->sg->graph->n_tensors; x++)
        if (c->p->stages[x] > 0 && n + 64 < sizeof stages)
            n += (size_t)snprintf(stages + n, sizeof stages - n, "%s%s: %d", n ? ", " : "",
                                  c->sg->graph->tensors[x].name, c->p->stages[x]);
    /* split_k_reduce cluster's slots are named apart: the workspace is the way out for them */
    int64_t cl = pt_split_k_cluster_smem(c->p, c->sg);
    char slots[96] = "";
    if (cl > 0)
        snprintf(slots, sizeof slots, ", %lld of them the other chunks' partial tiles of "
                 "split_k_reduce cluster,", (long long)cl);
    problem_at(c->r, "$.stages", "shared memory: the program needs %lld bytes%s but %s allows %lld "
                  "per block (stages %s); use fewer stages%s",
            (long long)c->r->smem_bytes, slots, c->hw->name, (long long)c->r->smem_limit,
            n ? stages : "none", cl > 0 ? ", smaller tiles or the workspace" : " or smaller tiles");
}

static void check_regs(vctx *c)
{
    const pt_sprogram *p = c->p;
    const pt_hw *hw = c->hw;
    /* AMD: one VGPR budget per kernel, up to max_regs_per_thread; NVIDIA: a budget per role,
     * setmaxnreg's range (to max + 1). Roles are whole waves / warps. */
    bool amd = pt_regfile_per_kernel(hw);
    int warp = hw && hw->warp_size > 0 ? hw->warp_size : 32;
    for (int r = 0; r < roles_of(p); r++) {
        const pt_role_def *rd = &p->roles[r];
        char rp[40];
        snprintf(rp, sizeof rp, "$.roles[%d]", r);
        int need = rd->wg >= 0 ? pt_sprogram_regs_needed(p, c->sg, rd->wg) : REG_OVERHEAD;
        c->r->regs_needed[r] = need;
        if (rd->wg >= 0 && need > rd->regs)
            problem_at(c->r, rp, "registers: role %s needs %d per thread for its accumulators and "
                          "fragments but its budget is %d", rd->name, need, rd->regs);
        if (rd->threads <= 0 || rd->threads % warp != 0)
            problem_at(c->r, rp, "role %s has %d threads; expected a positive multiple of %d (%s)",
                    rd->name, rd->threads, warp, amd ? "wave64" : "a warp");
        int hi = hw ? (amd ? hw->max_regs_per_thread : hw->max_regs_per_thread + 1) : 0;
        if (hw && (rd->regs > hi || rd->regs < hw->min_regs_per_thread || rd->regs % 8 != 0))
            problem_at(c->r, rp, "registers: role %s has a budget of %d per thread; expected a "
                          "multiple of 8 from %d to %d (%s)", rd->name, rd->regs,
                    hw->min_regs_per_thread, hi,
                    amd ? "VGPRs per lane, arch + AccVGPRs" : "setmaxnreg");
    }
    pt_regfile_use u;
    pt_regfile_use_of(p, hw, &u);
    c->r->regs_total = u.claim;
    c->r->regs_limit = hw ? hw->regs_per_eu : 0;
    if (hw && !amd && u.claim <= hw->regs_per_eu && u.claim > u.pool) {
        problem_at(c->r, "$.roles", "registers: the roles' budgets add up to %lld but the CTA is "
                      "launched with %d per thread (%lld in all), and setmaxnreg only moves "
                      "registers between its warps; lower a role's budget", (long long)u.claim,
                u.launch_regs, (long long)u.pool);
        return;
    }
    if (!hw || u.claim <= hw->regs_per_eu)
        return;
    if (amd)
        problem_at(c->r, "$.roles", "registers: on %s every wave of the kernel gets the largest "
                      "role budget, %d per lane; the %d waves put %d on one of its %d SIMDs, "
                      "which needs %lld of the %d it has per lane; lower the largest budget or "
                      "use fewer warpgroups", hw->name, u.budget, u.waves, u.waves_per_simd,
                u.simds, (long long)u.budget * u.waves_per_simd, hw->max_regs_per_thread);
    else
        problem_at(c->r, "$.roles", "registers: the roles' budgets add up to %lld per EU but %s has %lld; "
                      "lower a role's budget", (long long)u.claim, hw->name,
                (long long)hw->regs_per_eu);
}

/* ---- entry point ------------------------------------------------------------------------ */

/* The factored decay needs its chain in the graph (decay_form.h). */
static void check_decay(vctx *c)
{
    pt_decay_chain chain;
    pt_error e = {{0}};
    if (pt_decay_is_factored(c->p->decay) && c->sg->graph &&
        !pt_decay_chain_find(c->sg->graph, &chain, &e))
        problem_at(c->r, "$.decay", "%s", e.msg);
}

bool pt_validate(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                 pt_validation *report, pt_error *err)
{
    pt_validation local;
    pt_validation *r = report ? report : &local;
    memset(r, 0, sizeof *r);
    if (!p || !sg || sg->n < 0 || (sg->n > 0 && !sg->tasks))
        problem(r, "no sProgram or sTask-graph to validate");
    else if (p->n_lanes < 0 || p->n_lanes > PT_MAX_LANES || p->n_roles < 0 ||
             p->n_roles > PT_MAX_ROLES)
        problem(r, "the sProgram has %d lanes and %d roles; expected at most %d and %d",
                p->n_lanes, p->n_roles, PT_MAX_LANES, PT_MAX_ROLES);
    else if (sg->tiling.warpgroups < 1 || sg->tiling.warpgroups > PT_MAX_WARPGROUPS)
        problem(r, "the tiling has %d consumer warpgroups; expected 1 to %d",
                sg->tiling.warpgroups, PT_MAX_WARPGROUPS);
    else {
        vctx c = {.p = p, .sg = sg, .hw = hw, .r = r};
        c.lane_of = malloc(((size_t)sg->n + 1) * sizeof *c.lane_of);
        c.pos_of = malloc(((size_t)sg->n + 1) * sizeof *c.pos_of);
        if (!c.lane_of || !c.pos_of)
            problem(r, "out of memory while validating");
        else {
            for (int s = 0; s < sg->n; s++)
                c.lane_of[s] = c.pos_of[s] = -1;
            check_decay(&c);
            check_placement(&c);
            check_waits(&c);
            check_stages(&c);
            check_resident_stages(&c);
            check_partition(&c);
            check_deadlock(&c);
            check_smem(&c);
            check_regs(&c);
        }
        free(c.lane_of);
        free(c.pos_of);
    }
    if (r->n_problems > 0)
        pt_fail(err, "%s", r->problems[0]);
    return r->n_problems == 0;
}
