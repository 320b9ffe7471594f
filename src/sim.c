/* sim.c — discrete-event simulation of one EU running an sProgram (pt_simulate_eu). The
 * kernel-level wave model built on it (pt_simulate) is waves.c.
 *
 * One EU: every lane is a cursor over its expanded instance list (prologue entries, the
 * software-pipelined loop steps, epilogue entries). At each step the ready lane head with the
 * earliest possible issue time is committed; because committed issue times never decrease,
 * the per-EU unit queues (TMA bandwidth server, the one tensor-core stream, or the SIMDs'
 * matrix cores and vector ALUs on a model with simds_per_eu) are served FIFO in time order. Everything is precomputed per call (instance slots, dependency rules) so the
 * main loop allocates nothing. With cuda_core_fair the CUDA cores are shared fairly instead: a
 * piece that starts slows the pieces in flight, whose ends (later than the commit frontier, so
 * read by nothing final yet) are moved (cc_fair). */
#include "sim.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "busy.h"
#include "cache_reuse.h"
#include "lds_read.h"
#include "graph.h"
#include "stage_hold.h"
#include "tma_box.h"
#include "sim_check.h"
#include "simd_serve.h"
#include "splitk.h"
#include "validate.h"

/* Largest number of instances one simulation may expand to (memory and GUI latency). */
#define PT_SIM_MAX_INSTANCES 5000000

/* How a dependency edge of sTask s maps instance (s, i) to the instance it needs. */
typedef enum {
    DM_FIXED, /* (from, 0): prologue producer, or epilogue -> epilogue */
    DM_BODY,  /* (from, i - k) when inside [0, iters) */
    DM_LAST,  /* (from, iters - 1): epilogue consuming the loop's last iteration */
    DM_STAGE, /* stage reuse: (from, min(i - k + lag, iters - 1)) when i - k >= 0; with lag 1
               * its issue (one wgmma group kept in flight), not its completion */
} dep_mode;

typedef struct {
    int from;
    dep_mode mode;
    int64_t k;
    int lag;     /* DM_STAGE: stage_hold.h's release lag */
    bool issued; /* met at the issue of (from, ...), not its completion: a Wait between two
                  * warpgroups' wgmma sTasks orders their issue (pass_xwaits.c) */
} dep_ent;

/* One lane's cursor over its expanded instance list, plus the cached readiness of its head. */
typedef struct {
    int n_pro, n_body, n_epi;
    int *pro, *body, *epi;   /* entry indices into the pt_lane, by region */
    int min_off, max_off;    /* over body entries */
    int phase, pos;          /* 0 prologue, 1 loop, 2 epilogue, 3 finished */
    int64_t v;               /* current loop step */
    bool has;                /* head exists */
    int stask;
    int64_t iter;
    bool ready;              /* every dependency of the head is simulated */
    bool cross;              /* ... and one of them is another instruction stream's (a barrier
                                wait: barrier_wait_ns where the role pays it, wait_pays) */
    int dep_pos;             /* next dependency to check (cache for blocked heads) */
    double dep_t;            /* latest dependency end (+ barrier) checked so far */
} lane_state;

/* A consumer warpgroup is one instruction stream: the lanes of a warp role (its tensor-core and
 * CUDA-core sTasks) are issued in one merged order per loop step, the order the kernel's step
 * program has (docs/CODEGEN-sm90a.md: lane order kept, same-step dependencies first, an
 * asynchronous entry first when two could go). Without this, a role's tensor-core lane would run loop steps ahead of its
 * CUDA-core lane, issuing S = Q K^T of block v + 2 while block v + 1's softmax still needs the
 * only S registers. Used for roles with body entries on two or more lanes. */
#define ROLE_MAX_ENTRIES 64
typedef struct {
    bool ordered;
    bool done;               /* every body instance of the role issued */
    int n;
    int lane[ROLE_MAX_ENTRIES], stask[ROLE_MAX_ENTRIES], off[ROLE_MAX_ENTRIES];
    int min_off, max_off;
    int64_t v;               /* current loop step */
    int pos;                 /* next entry of the step */
} role_stream;

/* The EU's CUDA cores as the committed pieces use them: segment j = [t[j], t[j + 1]) has
 * used[j] of the unit in use (1 = all of it); from t[n] on nothing is. Pieces go in in commit
 * order and a later one only takes what earlier ones leave (cc_serve), so a segment never
 * changes once written except by adding; at most one piece per instruction stream is in
 * flight, so few segments are ever open. */
#define CC_SEGMENTS (4 * (PT_MAX_ROLES + PT_MAX_LANES) + 8)
typedef struct {
    int n;
    double t[CC_SEGMENTS + 1], used[CC_SEGMENTS];
    double floor; /* the latest start of a committed piece: none starts before it (FIFO
                     order of commits, as the one server had) */
} cc_timeline;

/* The EU's CUDA cores shared fairly (pt_hw.cuda_core_fair): the pieces in flight, each with the
 * work it has left (ns at its own speed alone) at `now`. Each runs at min(1, its max-min fair
 * part of the unit / its share) of that speed, so a new piece slows those already running;
 * their ends move later (cc_fair_serve re-times them). At most one piece per instruction stream
 * is in flight. */
typedef struct {
    int64_t slot, span;
    int stream, lane;
    double rem, share, latency;
    double unit_end, end; /* as published (S->end, the span, the stream's free time) */
} cc_piece;
#define CC_FAIR_MAX (PT_MAX_ROLES + PT_MAX_LANES)
typedef struct {
    int n;
    double now;
    cc_piece p[CC_FAIR_MAX];
} cc_fair;

/* A seen[] time written ahead of the commit frontier from a warp role's free time, which a
 * later CUDA-core piece may still move (cc_fair): re-timing that role's piece moves it too. */
typedef struct {
    int64_t slot;
    double t;
    int stream;
} seen_note;

typedef struct {
    const pt_sprogram *p;
    const pt_stask_graph *sg;
    const pt_hw *hw;
    int64_t iters;
    pt_chunk_end chunk_end;  /* split-K: how this work item's epilogue ends */
    int split_k;
    int n;                   /* sTasks */
    int64_t *base;           /* first slot of each sTask */
    int *lane_of;            /* lane holding each sTask, -1 = unplaced */
    double *load_scale;      /* per sTask: re-reads served by the cache (cache_reuse.h); NULL
                                when the model has no such cache */
    double *box_frac;        /* per sTask: the part of its tile bytes a load's TMA box brings
                                (tma_box.h); NULL when the model has no boxes */
    double *box_oob_ns;      /* per sTask: TMA time of the rows its box zero-fills (edge tile) */
    bool edge;               /* the work item is an edge tile (tma_box.h) */
    double *lds_ns;          /* per sTask: an mma's operand reads from LDS (lds_read.h); NULL
                                when the model has no LDS read rate */
    double *rate, *latency;  /* per sTask: its cost (the cost table's, or a dequant's rates
                                fitted on generated kernels, stask_cost) */
    int *dep_off;            /* per sTask: [dep_off[s], dep_off[s+1]) in deps */
    dep_ent *deps;
    int64_t n_slots;
    double *end;             /* per slot */
    double *issue;           /* per slot: when its lane issued it */
    uint64_t *done;          /* per slot bitmap */
    lane_state ls[PT_MAX_LANES];
    int *entry_idx;          /* storage behind ls[].pro/body/epi */
    double lane_ready[PT_MAX_LANES];
    double role_free[PT_MAX_ROLES + PT_MAX_LANES]; /* per instruction stream (stream_of) */
    double tma_free, tc_free; /* when the TMA and tensor-core servers free */
    cc_timeline cc;          /* the EU's CUDA cores: the part of them in use over time */
    double *cc_share;        /* per sTask: the part of the CUDA cores its piece uses alone
                                (rate / peak_rate; 1 without a peak rate) */
    double lds_free;         /* when the EU's LDS read port frees (lds_ns) */
    int simds;               /* hw->simds_per_eu: > 0 serves tensor-core and CUDA-core work on
                                the SIMDs of the issuing role's waves (simd_serve.h) instead of
                                tc_free / cc_free */
    double simd_tc_free[PT_MAX_SIMDS], simd_cc_free[PT_MAX_SIMDS];
    double *inflight;        /* ends of outstanding TMA copies (bounded set) */
    int n_inflight, max_inflight;
    double tma_last_admit;
    pt_span *spans;
    int64_t n_spans;
    double clock_slow;       /* on-SM work (tensor and CUDA cores) lengthened by the power cap */
    int mma_in_flight;       /* wgmma groups a consumer keeps in flight across a step
                                (stage_hold.h) */
    double *seen;            /* per slot: when a dependant's warp role first reached it */
    bool fair;               /* hw->cuda_core_fair: the CUDA cores are shared fairly (cc_fair) */
    cc_fair ccf;
    double frontier;         /* issue time of the latest commit: nothing later is final */
    seen_note *notes;        /* fair: seen[] times written past the frontier */
    int64_t n_notes, cap_notes;
    role_stream rs[PT_MAX_ROLES];
    bool wait_pays[PT_MAX_ROLES]; /* the warp role pays barrier_wait_ns (sim_setup says who) */
    uint32_t kept;           /* tensors whose ring loads the last tile left in place */
} sim_state;

/* ---- small helpers ----------------------------------------------------------------- */

static bool is_body(const pt_stask_graph *sg, int s)
{
    return sg->tasks[s].region == PT_REGION_BODY;
}

static bool slot_done(const sim_state *S, int64_t slot)
{
    return (S->done[slot >> 6] >> (slot & 63)) & 1u;
}

static void mark_done(sim_state *S, int64_t slot)
{
    S->done[slot >> 6] |= (uint64_t)1 << (slot & 63);
}

static int64_t slot_of(const sim_state *S, int s, int64_t i)
{
    return S->base[s] + (is_body(S->sg, s) ? i : 0);
}

static double amount_of(const pt_stask *t)
{
    switch (t->kind) {
    case PT_ST_LOAD:
    case PT_ST_STORE:
        return (double)t->bytes;
    case PT_ST_MMA:
        return (double)t->flops;
    default:
        return (double)t->elems;
    }
}

/* The rule shared by the simulator and pt_instance_deps: how an edge "s needs `from`,
 * `dist` iterations back" maps between regions. Returns false when the edge never applies
 * (validation rejects those shapes; the simulator ignores them). */
static bool map_edge(const pt_stask_graph *sg, int s, int from, int dist, dep_mode *mode,
                     int64_t *k)
{
    pt_region rs = sg->tasks[s].region, rf = sg->tasks[from].region;
    *k = 0;
    if (rf == PT_REGION_PROLOGUE) {
        *mode = DM_FIXED;
        return true;
    }
    if (rf == PT_REGION_EPILOGUE) {
        *mode = DM_FIXED;
        return rs == PT_REGION_EPILOGUE;
    }
    /* from is in the loop body */
    if (rs == PT_REGION_BODY) {
        *mode = DM_BODY;
        *k = dist;
        return true;
    }
    *mode = DM_LAST;
    return rs == PT_REGION_EPILOGUE;
}

static int64_t edge_slot(const sim_state *S, const dep_ent *d, int64_t i)
{
    switch (d->mode) {
    case DM_FIXED:
        return S->base[d->from];
    case DM_LAST:
        return S->iters > 0 ? S->base[d->from] + S->iters - 1 : -1;
    case DM_STAGE: {
        int64_t j = i - d->k;
        if (j < 0 || j >= S->iters)
            return -1;
        j += d->lag;
        return S->base[d->from] + (j < S->iters ? j : S->iters - 1);
    }
    case DM_BODY:
    default: {
        int64_t j = i - d->k;
        return (j >= 0 && j < S->iters) ? S->base[d->from] + j : -1;
    }
    }
}

static void inst_name(char *out, size_t cap, const pt_stask_graph *sg, int s, int64_t i)
{
    snprintf(out, cap, "%s[%lld]", sg->tasks[s].id, (long long)i);
}

/* ---- setup ------------------------------------------------------------------------- */

static bool check_program(const pt_sprogram *p, const pt_stask_graph *sg, pt_error *err)
{
    if (p->n_lanes < 0 || p->n_lanes > PT_MAX_LANES)
        return pt_fail(err, "simulate: %d lanes; expected 0 to %d", p->n_lanes, PT_MAX_LANES);
    if (p->n_roles < 0 || p->n_roles > PT_MAX_ROLES)
        return pt_fail(err, "simulate: %d warp roles; expected 0 to %d", p->n_roles,
                       PT_MAX_ROLES);
    for (int L = 0; L < p->n_lanes; L++) {
        const pt_lane *ln = &p->lanes[L];
        if (ln->role < 0 || ln->role >= p->n_roles)
            return pt_fail(err, "simulate: lane %s has warp role %d; expected 0 to %d",
                           ln->name, ln->role, p->n_roles - 1);
        if ((unsigned)ln->seu >= PT_SEU_COUNT)
            return pt_fail(err, "simulate: lane %s has an unknown sEU kind %d", ln->name,
                           (int)ln->seu);
        for (int e = 0; e < ln->n; e++)
            if (ln->entries[e].stask < 0 || ln->entries[e].stask >= sg->n)
                return pt_fail(err, "simulate: lane %s entry %d names sTask %d; the sTask-graph "
                               "has %d", ln->name, e, ln->entries[e].stask, sg->n);
    }
    for (int w = 0; w < p->n_waits; w++) {
        const pt_wait_entry *wt = &p->waits[w];
        if (wt->stask < 0 || wt->stask >= sg->n || wt->on < 0 || wt->on >= sg->n)
            return pt_fail(err, "simulate: wait %d names sTasks %d and %d; the sTask-graph has "
                           "%d", w, wt->stask, wt->on, sg->n);
    }
    for (int s = 0; s < sg->n; s++) {
        const pt_stask *t = &sg->tasks[s];
        if (t->n_deps < 0 || t->n_deps > PT_MAX_DEPS)
            return pt_fail(err, "simulate: sTask %s has %d dependencies; expected 0 to %d",
                           t->id, t->n_deps, PT_MAX_DEPS);
        for (int d = 0; d < t->n_deps; d++)
            if (t->deps[d].from < 0 || t->deps[d].from >= sg->n)
                return pt_fail(err, "simulate: sTask %s has a dependency on sTask %d; the "
                               "sTask-graph has %d", t->id, t->deps[d].from, sg->n);
    }
    return true;
}

/* The fix-up of split-K reads partial f32 tiles and adds them: the model needs those costs. */
static bool fixup_costs_ok(const sim_state *S, const pt_stask *t, pt_error *err)
{
    static const pt_stask_kind kinds[] = {PT_ST_LOAD, PT_ST_ELEMENTWISE};
    for (int k = 0; k < 2; k++) {
        const pt_cost *c = &S->hw->cost[kinds[k]][PT_F32];
        if (!(c->rate > 0) || !isfinite(c->rate) || !isfinite(c->latency_ns) || c->latency_ns < 0)
            return pt_fail(err, "%s: $.costs: hardware model %s has no cost for %s on f32, "
                           "which the split-K fix-up of sTask %s needs; expected an entry "
                           "{\"kind\": \"%s\", \"dtype\": \"f32\", \"rate\": ...} with a "
                           "positive rate", S->hw->file[0] ? S->hw->file : "hardware",
                           S->hw->name, pt_stask_kind_name(kinds[k]), t->id,
                           pt_stask_kind_name(kinds[k]));
    }
    return true;
}

/* Placement and costs of every placed sTask; counts the instances. */
static bool place_tasks(sim_state *S, int64_t *n_inst, pt_error *err)
{
    const pt_sprogram *p = S->p;
    const pt_stask_graph *sg = S->sg;
    *n_inst = 0;
    for (int L = 0; L < p->n_lanes; L++)
        for (int e = 0; e < p->lanes[L].n; e++) {
            int s = p->lanes[L].entries[e].stask;
            const pt_stask *t = &sg->tasks[s];
            if (S->lane_of[s] >= 0)
                return pt_fail(err, "simulate: sTask %s is placed twice (lanes %s and %s); "
                               "expected once", t->id, p->lanes[S->lane_of[s]].name,
                               p->lanes[L].name);
            S->lane_of[s] = L;
            if ((unsigned)t->kind >= PT_ST_KIND_COUNT || (unsigned)t->dtype >= PT_DTYPE_COUNT)
                return pt_fail(err, "simulate: sTask %s has an unknown kind or dtype", t->id);
            const pt_cost *c = &S->hw->cost[t->kind][t->dtype];
            if (!(c->rate > 0) || !isfinite(c->rate) || !isfinite(c->latency_ns) ||
                c->latency_ns < 0)
                return pt_fail(err, "%s: $.costs: hardware model %s has no cost for %s on %s, "
                               "which sTask %s needs; expected an entry {\"kind\": \"%s\", "
                               "\"dtype\": \"%s\", \"rate\": ...} with a positive rate",
                               S->hw->file[0] ? S->hw->file : "hardware", S->hw->name,
                               pt_stask_kind_name(t->kind), pt_dtype_name(t->dtype), t->id,
                               pt_stask_kind_name(t->kind), pt_dtype_name(t->dtype));
            if (amount_of(t) < 0)
                return pt_fail(err, "simulate: sTask %s has a negative amount of work", t->id);
            if (S->chunk_end == PT_CHUNK_FIXUP && t->kind == PT_ST_CONVERT &&
                t->region == PT_REGION_EPILOGUE && !fixup_costs_ok(S, t, err))
                return false;
            *n_inst += is_body(sg, s) ? S->iters : 1;
        }
    if (*n_inst > PT_SIM_MAX_INSTANCES)
        return pt_fail(err, "simulate: %lld sTask instances at %lld iterations is over the "
                       "limit of %d; use a larger reduction tile", (long long)*n_inst,
                       (long long)S->iters, PT_SIM_MAX_INSTANCES);
    return true;
}

/* At the power cap the SM clock falls with what the SM keeps busy. The tensor-core rates are
 * the sustained ones of GEMMs (tensor cores busy, CUDA cores idle), so they hold at that
 * capped clock; a loop that also keeps the CUDA cores busy (attention's softmax) draws more
 * power per ns and runs every on-SM unit at a lower clock: time x (u_tc + k u_cc) where k is
 * the model's cuda_core_power and u the two units' duty over a loop iteration, estimated from
 * the loop body's work (the longer of the two is busy all the time). Never faster than the
 * reference: a CUDA-core-bound loop is left as calibrated. */
/* cuda_core_fair applies unless a loop-body CUDA-core piece's cost has no peak_rate (the
 * EU's rate with several warpgroups at it): such a piece (a dequantising warpgroup's) alone
 * keeps the CUDA cores busy, and the unit stays the FIFO server (cc_serve) for the program.
 * Sharing it fairly makes two warpgroups' dequant pieces end together, where the low-bit
 * kernels' measured times say they run one after the other (bench/model/README.md). */
static bool loop_cc_all_peaked(const sim_state *S)
{
    for (int L = 0; L < S->p->n_lanes; L++) {
        if (S->p->lanes[L].seu != PT_SEU_CUDA_CORE)
            continue;
        for (int b = 0; b < S->ls[L].n_body; b++) {
            const pt_stask *t = &S->sg->tasks[S->p->lanes[L].entries[S->ls[L].body[b]].stask];
            if (!(S->hw->cost[t->kind][t->dtype].peak_rate > 0))
                return false;
        }
    }
    return true;
}

static double power_capped_slowdown(const sim_state *S)
{
    double k = S->hw->cuda_core_power, tc = 0, cc = 0;
    if (!(k > 0))
        return 1;
    for (int L = 0; L < S->p->n_lanes; L++) {
        const pt_lane *ln = &S->p->lanes[L];
        for (int e = 0; e < ln->n; e++) {
            const pt_stask *t = &S->sg->tasks[ln->entries[e].stask];
            if (t->region != PT_REGION_BODY)
                continue;
            double w = amount_of(t) / S->hw->cost[t->kind][t->dtype].rate;
            if (ln->seu == PT_SEU_TENSOR_CORE)
                tc += w;
            else if (ln->seu == PT_SEU_CUDA_CORE)
                cc += w;
        }
    }
    if (!(tc > 0) || !(cc > 0))
        return 1;
    double u_tc = cc > tc ? tc / cc : 1, u_cc = cc > tc ? 1 : cc / tc;
    double slow = u_tc + k * u_cc;
    return slow > 1 ? slow : 1;
}

/* Lane L issues asynchronous wgmma groups (Hopper's tensor cores; not MI300X's MFMAs, which
 * the issuing wave executes itself). */
static bool tc_async_lane(const sim_state *S, int L)
{
    return L >= 0 && S->p->lanes[L].seu == PT_SEU_TENSOR_CORE &&
           S->hw->seu[PT_SEU_TENSOR_CORE].async; /* L < 0: an unplaced sTask */
}

/* Flattened dependency rules per sTask: data deps, Waits, then buffer-stage reuse. */
static bool build_deps(sim_state *S, pt_error *err)
{
    const pt_stask_graph *sg = S->sg;
    const pt_sprogram *p = S->p;
    int n = S->n;
    /* a ring's filler gets at most two rules per reader (its own, and its lag's or its
     * group's), and one per mma reading a reader that dequantises rows: bounded by 2n + D */
    size_t cap = 0, data = 0;
    for (int s = 0; s < n; s++)
        data += (size_t)(sg->tasks[s].n_deps < 0 ? 0 : sg->tasks[s].n_deps);
    cap = data + (size_t)(p->n_waits < 0 ? 0 : p->n_waits) + 1;
    for (int s = 0; s < n; s++)
        if (pt_stask_fills_ring(sg, s))
            cap += 2 * (size_t)n + data;
    S->deps = malloc(cap * sizeof *S->deps);
    S->dep_off = malloc(((size_t)n + 1) * sizeof *S->dep_off);
    if (!S->deps || !S->dep_off)
        return pt_fail(err, "simulate: out of memory");
    pt_stage_hold hold; /* when the kernel releases a stage: the contract of stage_hold.h */
    pt_stage_hold_lags(p, sg, &hold);
    S->mma_in_flight = hold.mma_in_flight;
    int m = 0;
    for (int s = 0; s < n; s++) {
        const pt_stask *t = &sg->tasks[s];
        S->dep_off[s] = m;
        for (int d = 0; d < t->n_deps; d++) {
            dep_ent e = {.from = t->deps[d].from};
            if (map_edge(sg, s, e.from, t->deps[d].distance, &e.mode, &e.k))
                S->deps[m++] = e;
        }
        for (int w = 0; w < p->n_waits; w++) {
            const pt_wait_entry *wt = &p->waits[w];
            dep_ent e = {.from = wt->on};
            if (wt->stask == s && map_edge(sg, s, e.from, wt->distance, &e.mode, &e.k)) {
                int la = S->lane_of[e.from], lb = S->lane_of[s];
                e.issued = la >= 0 && lb >= 0 && tc_async_lane(S, la) && tc_async_lane(S, lb) &&
                           p->lanes[la].role != p->lanes[lb].role;
                S->deps[m++] = e;
            }
        }
        /* A buffered load (or a dequantised tile written into a ring) may refill stage (i mod k)
         * only after every reader of the copy k iterations back has released it
         * (stage_hold.h), timed as the kernel does: when the
         * consumer's wait for that reader's wgmma group returns — its completion, and with one
         * group kept in flight also the issue of the reader of the iteration after it. */
        if (pt_stask_fills_ring(sg, s) && t->region == PT_REGION_BODY) {
            bool ok_t = t->tensor >= 0 && t->tensor < PT_MAX_TENSORS;
            int k = ok_t ? p->stages[t->tensor] : 1;
            if (k < 1)
                k = 1;
            int lag = ok_t ? hold.lag[t->tensor] : 0;
            for (int c = 0; c < n; c++)
                if (pt_stage_reader(sg, s, c)) {
                    S->deps[m++] = (dep_ent){.from = c, .mode = DM_STAGE, .k = k, .lag = 0};
                    if (lag > 0)
                        S->deps[m++] = (dep_ent){.from = c, .mode = DM_STAGE, .k = k, .lag = lag};
                    /* a CUDA-core reader whose stages go back when a group that consumed
                     * its registers completes holds them until then */
                    int grp = pt_stage_release_group(p, sg, &hold, S->hw, c);
                    if (grp >= 0)
                        S->deps[m++] = (dep_ent){.from = grp, .mode = DM_STAGE, .k = k, .lag = 0};
                    /* a warpgroup dequantising its rows hands the packed stage back inside
                     * the step that issues their mma, after its Waits (the validator's
                     * release set, stage_hold.h): the mma's own loads hold it too */
                    if (pt_stask_dequant_rows(sg, c))
                        for (int r = 0; r < n; r++)
                            if (sg->tasks[r].kind == PT_ST_MMA && pt_stage_reader(sg, c, r))
                                S->deps[m++] = (dep_ent){.from = r, .mode = DM_STAGE, .k = k, .lag = 0};
                }
        }
    }
    S->dep_off[n] = m;
    return true;
}

static bool build_lanes(sim_state *S, pt_error *err)
{
    const pt_sprogram *p = S->p;
    size_t total = 0;
    for (int L = 0; L < p->n_lanes; L++)
        total += (size_t)p->lanes[L].n;
    S->entry_idx = malloc((total + 1) * sizeof *S->entry_idx);
    if (!S->entry_idx)
        return pt_fail(err, "simulate: out of memory");
    int *w = S->entry_idx;
    for (int L = 0; L < p->n_lanes; L++) {
        const pt_lane *ln = &p->lanes[L];
        lane_state *ls = &S->ls[L];
        memset(ls, 0, sizeof *ls);
        pt_region order[3] = {PT_REGION_PROLOGUE, PT_REGION_BODY, PT_REGION_EPILOGUE};
        for (int r = 0; r < 3; r++) {
            int *start = w, cnt = 0;
            for (int e = 0; e < ln->n; e++) {
                const pt_lane_entry *en = &ln->entries[e];
                if (S->sg->tasks[en->stask].region != order[r])
                    continue;
                if (order[r] == PT_REGION_BODY) {
                    if (cnt == 0 || en->offset < ls->min_off)
                        ls->min_off = en->offset;
                    if (cnt == 0 || en->offset > ls->max_off)
                        ls->max_off = en->offset;
                }
                *w++ = e;
                cnt++;
            }
            if (r == 0)
                ls->pro = start, ls->n_pro = cnt;
            else if (r == 1)
                ls->body = start, ls->n_body = cnt;
            else
                ls->epi = start, ls->n_epi = cnt;
        }
    }
    return true;
}

/* ---- warp-role streams ------------------------------------------------------------- */

/* Does sTask b need sTask a (a data dependency or a Wait)? Its distance in *d. */
static bool task_needs(const sim_state *S, int b, int a, int *d)
{
    const pt_stask *t = &S->sg->tasks[b];
    for (int i = 0; i < t->n_deps; i++)
        if (t->deps[i].from == a) {
            *d = t->deps[i].distance;
            return true;
        }
    for (int w = 0; w < S->p->n_waits; w++)
        if (S->p->waits[w].stask == b && S->p->waits[w].on == a) {
            *d = S->p->waits[w].distance;
            return true;
        }
    return false;
}

/* The merged step order of role R's body entries (the rule of the generator's step program).
 * Leaves the role unordered (each lane on its own, as before) when it has body entries on
 * fewer than two lanes, too many entries, or offsets that leave no order. */
static void build_role_stream(sim_state *S, int R)
{
    const pt_sprogram *p = S->p;
    role_stream *rs = &S->rs[R];
    memset(rs, 0, sizeof *rs);
    if (p->roles[R].wg < 0)
        return; /* the producer's lanes are separate streams (stream_of) */
    int n = 0, lanes_with_body = 0;
    int lane[ROLE_MAX_ENTRIES], stask[ROLE_MAX_ENTRIES], off[ROLE_MAX_ENTRIES];
    for (int L = 0; L < p->n_lanes; L++) {
        if (p->lanes[L].role != R || S->ls[L].n_body == 0)
            continue;
        lanes_with_body++;
        for (int b = 0; b < S->ls[L].n_body; b++) {
            if (n == ROLE_MAX_ENTRIES)
                return;
            const pt_lane_entry *en = &p->lanes[L].entries[S->ls[L].body[b]];
            lane[n] = L, stask[n] = en->stask, off[n] = en->offset;
            n++;
        }
    }
    if (lanes_with_body < 2)
        return;
    bool pred[ROLE_MAX_ENTRIES][ROLE_MAX_ENTRIES]; /* pred[b][a]: a goes before b */
    for (int b = 0; b < n; b++)
        for (int a = 0; a < n; a++) {
            int d;
            pred[b][a] = false;
            if (a == b)
                continue;
            if (lane[a] == lane[b] && a < b)
                pred[b][a] = true; /* collected in lane order */
            if (task_needs(S, stask[b], stask[a], &d)) {
                int gap = off[b] - off[a];
                if (gap > d)
                    return; /* needs an instance of a later step: no stream order */
                if (gap == d)
                    pred[b][a] = true;
            }
        }
    bool placed[ROLE_MAX_ENTRIES] = {false};
    for (int k = 0; k < n; k++) {
        int pick = -1;
        for (int pass = 0; pass < 2 && pick < 0; pass++)
            for (int b = 0; b < n && pick < 0; b++) {
                if (placed[b] || (pass == 0 && !S->hw->seu[p->lanes[lane[b]].seu].async))
                    continue;
                bool ready = true;
                for (int a = 0; a < n && ready; a++)
                    ready = !pred[b][a] || placed[a];
                if (ready)
                    pick = b;
            }
        if (pick < 0)
            return;
        placed[pick] = true;
        rs->lane[k] = lane[pick], rs->stask[k] = stask[pick], rs->off[k] = off[pick];
        if (k == 0 || off[pick] < rs->min_off)
            rs->min_off = off[pick];
        if (k == 0 || off[pick] > rs->max_off)
            rs->max_off = off[pick];
    }
    rs->n = n;
    rs->ordered = true;
    rs->v = -(int64_t)rs->max_off;
    rs->pos = 0;
}

/* Moves role R's cursor to its next existing instance. The kernel also waits for every wgmma
 * group of a step at its end (wait_group 0); that wait is not modelled: with the one FIFO
 * tensor-core queue it makes warpgroups convoy (a 7% change of one cost moved a 3-warpgroup
 * attention kernel by 36%), while the hardware interleaves the warpgroups' wgmmas. */
static void role_seek(sim_state *S, int R)
{
    role_stream *rs = &S->rs[R];
    while (!rs->done) {
        if (rs->pos >= rs->n) {
            rs->pos = 0;
            rs->v++;
        }
        if (S->iters <= 0 || rs->v > S->iters - 1 - rs->min_off) {
            rs->done = true;
            break;
        }
        int64_t i = rs->v + rs->off[rs->pos];
        if (i >= 0 && i < S->iters)
            return;
        rs->pos++;
    }
}

/* May lane L issue its head now, as far as its role's stream order goes? */
static bool role_allows(const sim_state *S, int L)
{
    const lane_state *ls = &S->ls[L];
    const role_stream *rs = &S->rs[S->p->lanes[L].role];
    if (!rs->ordered || ls->phase == 0)
        return true;
    if (ls->phase != 1)
        return rs->done; /* the epilogue follows the whole loop */
    return !rs->done && rs->lane[rs->pos] == L && rs->stask[rs->pos] == ls->stask &&
           rs->v + rs->off[rs->pos] == ls->iter;
}

/* ---- lane cursors ------------------------------------------------------------------ */

static void set_head(sim_state *S, lane_state *ls, int stask, int64_t iter)
{
    ls->has = true;
    ls->stask = stask;
    ls->iter = iter;
    ls->ready = false;
    ls->cross = false;
    ls->dep_pos = S->dep_off[stask];
    ls->dep_t = 0;
}

/* At the start of loop step v: true if some body entry yields an instance; otherwise moves
 * v to the next step that can (skipping empty steps of far-apart offsets) or ends the loop. */
static bool step_has_work(const pt_lane *ln, lane_state *ls, int64_t iters)
{
    int64_t next = INT64_MAX;
    for (int b = 0; b < ls->n_body; b++) {
        int64_t i = ls->v + ln->entries[ls->body[b]].offset;
        if (i >= 0 && i < iters)
            return true;
        if (i < 0 && -(int64_t)ln->entries[ls->body[b]].offset < next)
            next = -(int64_t)ln->entries[ls->body[b]].offset;
    }
    if (next == INT64_MAX)
        ls->phase = 2, ls->pos = 0;
    else
        ls->v = next;
    return false;
}

/* Moves the lane's head to its next instance (has = false when the lane is finished). */
static void lane_advance(sim_state *S, int L)
{
    const pt_lane *ln = &S->p->lanes[L];
    lane_state *ls = &S->ls[L];
    ls->has = false;
    for (;;) {
        if (ls->phase == 0) {
            if (ls->pos < ls->n_pro) {
                set_head(S, ls, ln->entries[ls->pro[ls->pos++]].stask, 0);
                return;
            }
            ls->phase = 1, ls->pos = 0, ls->v = -(int64_t)ls->max_off;
            if (S->iters <= 0 || ls->n_body == 0)
                ls->phase = 2;
        } else if (ls->phase == 1) {
            if (ls->v > S->iters - 1 - ls->min_off) {
                ls->phase = 2, ls->pos = 0;
                continue;
            }
            if (ls->pos == 0 && !step_has_work(ln, ls, S->iters))
                continue;
            if (ls->pos >= ls->n_body) {
                ls->pos = 0, ls->v++;
                continue;
            }
            const pt_lane_entry *en = &ln->entries[ls->body[ls->pos++]];
            int64_t i = ls->v + en->offset;
            if (i >= 0 && i < S->iters) {
                set_head(S, ls, en->stask, i);
                return;
            }
        } else if (ls->phase == 2) {
            if (ls->pos < ls->n_epi) {
                set_head(S, ls, ln->entries[ls->epi[ls->pos++]].stask, 0);
                return;
            }
            ls->phase = 3;
        } else {
            return;
        }
    }
}

/* ---- the event loop ---------------------------------------------------------------- */

static int role_of(const sim_state *S, int L)
{
    return S->p->lanes[L].role;
}

/* The instruction stream that issues lane L: a consumer warpgroup is one stream for all its
 * lanes; the producer warpgroup runs each lane on warps of its own (the TMA thread, and the
 * warps that dequantise), so none of them waits for the others' work. */
static int stream_of(const sim_state *S, int L)
{
    int R = role_of(S, L);
    return S->p->roles[R].wg >= 0 ? R : PT_MAX_ROLES + L;
}

/* Every lane of instruction stream `stream` has issued all its instances. */
static bool stream_done(const sim_state *S, int stream)
{
    for (int L = 0; L < S->p->n_lanes; L++)
        if (S->ls[L].has && stream_of(S, L) == stream)
            return false;
    return true;
}

static void see_at(sim_state *S, int64_t slot, double t, int stream);

/* Resumes the head's dependency scan; true when all its dependencies are simulated. */
static bool head_ready(sim_state *S, int L)
{
    lane_state *ls = &S->ls[L];
    if (ls->ready)
        return true;
    int stream = stream_of(S, L);
    int end = S->dep_off[ls->stask + 1];
    for (; ls->dep_pos < end; ls->dep_pos++) {
        const dep_ent *d = &S->deps[ls->dep_pos];
        int64_t slot = edge_slot(S, d, ls->iter);
        if (slot < 0)
            continue;
        if (!slot_done(S, slot))
            return false;
        /* a done slot is always placed; a hand-off between instruction streams costs a
         * barrier */
        bool at_issue = (d->mode == DM_STAGE && d->lag > 0) || d->issued;
        double t = at_issue ? S->issue[slot] : S->end[slot];
        int from_lane = S->lane_of[d->from];
        if (stream_of(S, from_lane) != stream) {
            ls->cross = true;
            /* a ring stage comes back from a barrier the reader's warpgroup arrives on after
             * waiting for the wgmma group (wait_group): when that warpgroup first reaches an
             * sTask that needs the group, or ends the step (note_seen, step_end_seen,
             * lane_step_seen) */
            if (!at_issue && d->mode == DM_STAGE && tc_async_lane(S, from_lane)) {
                if (!isfinite(S->seen[slot]) && stream_done(S, stream_of(S, from_lane)))
                    see_at(S, slot, S->role_free[stream_of(S, from_lane)],
                           stream_of(S, from_lane)); /* its final wait */
                if (!isfinite(S->seen[slot]))
                    return false;
                if (S->seen[slot] > t)
                    t = S->seen[slot];
            }
            t += S->hw->barrier_ns;
        }
        if (t > ls->dep_t)
            ls->dep_t = t;
    }
    ls->ready = true;
    return true;
}

/* Drops copies finished by t from the in-flight set. */
static void tma_retire(sim_state *S, double t)
{
    int w = 0;
    for (int j = 0; j < S->n_inflight; j++)
        if (S->inflight[j] > t)
            S->inflight[w++] = S->inflight[j];
    S->n_inflight = w;
}

/* Admission to the TMA queue: FIFO after the previous copy, and when the in-flight bound is
 * reached, at the earliest end of an outstanding copy. Returns the issue time. */
static double tma_admit(sim_state *S, double t)
{
    if (S->max_inflight <= 0)
        return t;
    if (t < S->tma_last_admit)
        t = S->tma_last_admit;
    for (;;) {
        tma_retire(S, t);
        if (S->n_inflight < S->max_inflight)
            break;
        double earliest = S->inflight[0];
        for (int j = 1; j < S->n_inflight; j++)
            if (S->inflight[j] < earliest)
                earliest = S->inflight[j];
        t = earliest;
    }
    S->tma_last_admit = t;
    return t;
}

/* A split-K work item's epilogue (pt_chunk_end): what its converts and stores cost instead. */
static void chunk_epilogue(const sim_state *S, const pt_stask *task, const pt_cost *c,
                           double *work, double *latency)
{
    double elems = (double)task->elems, others = (double)(S->split_k - 1);
    if (S->chunk_end == PT_CHUNK_PARTIAL) {
        if (task->kind == PT_ST_CONVERT)
            *work = *latency = 0; /* the partial tile stays f32 */
        else if (task->kind == PT_ST_STORE)
            *work = elems * 4 / c->rate;
    } else if (S->chunk_end == PT_CHUNK_FIXUP && task->kind == PT_ST_CONVERT) {
        const pt_cost *rd = &S->hw->cost[PT_ST_LOAD][PT_F32];
        const pt_cost *add = &S->hw->cost[PT_ST_ELEMENTWISE][PT_F32];
        if (pt_split_k_cluster(S->p)) {
            /* the others' tiles are in this CTA's shared memory: the adds, after the cluster's
             * hand-over */
            *work += others * elems / add->rate;
            *latency += S->hw->cluster_sync_ns;
            return;
        }
        *work += others * elems * 4 / rd->rate + others * elems / add->rate;
        *latency += rd->latency_ns;
    }
}

/* Slot `slot` is seen done by its issuing side from `t` on, if not earlier. */
static void see_at(sim_state *S, int64_t slot, double t, int stream)
{
    if (!(t < S->seen[slot]))
        return;
    S->seen[slot] = t;
    if (!S->fair || t <= S->frontier)
        return;
    if (S->n_notes == S->cap_notes) { /* drop the notes that are final by now, else grow */
        int64_t w = 0;
        for (int64_t k = 0; k < S->n_notes; k++)
            if (S->notes[k].t > S->frontier)
                S->notes[w++] = S->notes[k];
        S->n_notes = w;
        if (w * 2 >= S->cap_notes) {
            int64_t cap = S->cap_notes ? 2 * S->cap_notes : 64;
            seen_note *nn = realloc(S->notes, (size_t)cap * sizeof *nn);
            if (!nn)
                return; /* out of memory: the time is kept, only a later re-timing misses it */
            S->notes = nn, S->cap_notes = cap;
        }
    }
    S->notes[S->n_notes++] = (seen_note){slot, t, stream};
}

/* Each dependency of the committed head was first reached (its completion looked for) by the
 * head's warp role at `reach`: the end of an asynchronous span as the issuing side sees it. */
static void note_seen(sim_state *S, int L, const lane_state *ls, double reach)
{
    int stream = stream_of(S, L);
    for (int d = S->dep_off[ls->stask]; d < S->dep_off[ls->stask + 1]; d++) {
        int64_t slot = edge_slot(S, &S->deps[d], ls->iter);
        if (slot < 0)
            continue;
        /* a wgmma group's end is stamped where its own warpgroup waits for it (wait_group);
         * another role waiting on its barrier does not end it */
        if (tc_async_lane(S, S->lane_of[S->deps[d].from]) &&
            stream_of(S, S->lane_of[S->deps[d].from]) != stream)
            continue;
        see_at(S, slot, reach, stream);
    }
}

/* Role R's piece of `work` ns on a compute unit ready at `ready`: on the EU's one server
 * (`one`, when it frees), or, on a model with simds_per_eu, as shares on the SIMDs of R's waves,
 * each SIMD's matrix core or vector ALU serving only the waves on it (simd_serve.h). Returns when
 * the piece ends; *start is when it began. */
static double serve(sim_state *S, int R, double *one, double *simd_free, double ready,
                    double work, double *start)
{
    if (S->simds > 0) {
        int first, n = pt_simd_role_waves(S->p, R, S->hw, &first);
        return pt_simd_serve(simd_free, S->simds, first, n, ready, work, start);
    }
    *start = ready > *one ? ready : *one;
    *one = *start + work;
    return *one;
}

/* ---- the shared CUDA cores ----------------------------------------------------------- */

/* Index of a breakpoint at time x in the timeline (splitting the segment holding x); -1 when
 * there is no room. x is never before c->t[0] (cc_serve starts at or after it). */
static int cc_split(cc_timeline *c, double x)
{
    int j = 0;
    while (j <= c->n && c->t[j] < x)
        j++;
    if (j <= c->n && c->t[j] == x)
        return j;
    if (c->n == CC_SEGMENTS)
        return -1;
    if (c->n == 0 && j == 0) {
        c->t[0] = x; /* an empty timeline starts anywhere */
        return 0;
    }
    for (int k = c->n + 1; k > j; k--) /* breakpoints j.. move up one */
        c->t[k] = c->t[k - 1];
    c->t[j] = x;
    if (j == c->n + 1) {
        c->used[c->n] = 0; /* past the old end: free */
    } else if (j == 0) {
        for (int k = c->n; k > 0; k--)
            c->used[k] = c->used[k - 1];
        c->used[0] = 0; /* before the old start: free */
    } else {
        for (int k = c->n; k > j; k--) /* segment j - 1 split in two with the same use */
            c->used[k] = c->used[k - 1];
        c->used[j] = c->used[j - 1];
    }
    c->n++;
    return j;
}

/* Adds `use` of the unit over [a, b). */
static void cc_add(cc_timeline *c, double a, double b, double use)
{
    int ja = cc_split(c, a), jb = cc_split(c, b);
    if (ja < 0 || jb < 0) {
        /* no room (not reached with one piece in flight per stream): merge equal neighbours
         * and try once more, else leave the use out */
        int w = 0;
        for (int k = 1; k < c->n; k++)
            if (c->used[k] == c->used[w])
                continue;
            else
                c->t[++w] = c->t[k], c->used[w] = c->used[k];
        c->t[w + 1] = c->t[c->n];
        c->n = c->n > 0 ? w + 1 : 0;
        ja = cc_split(c, a);
        jb = cc_split(c, b);
        if (ja < 0 || jb < 0)
            return;
    }
    for (int k = ja; k < jb; k++)
        c->used[k] += use;
}

/* A CUDA-core piece of `work` ns (alone) that uses `share` of the EU's CUDA cores when it runs
 * alone, ready at `ready`: it runs as fast as what the pieces committed before it leave allows
 * (min(1, left / share) of its own speed), so a latency-bound piece of one warpgroup overlaps
 * another's (the SM's warp schedulers issue for several warps at once), and pieces that each
 * use all of it (share 1) queue FIFO, as on one server. Earlier pieces keep their speed: the
 * older warp's instructions are issued first, and the prediction stays a one-pass
 * simulation. Returns when it ends; *start is when it first progresses. */
static double cc_serve(cc_timeline *c, double ready, double work, double share, double *start)
{
    double pos = ready > c->floor ? ready : c->floor;
    while (c->n > 0 && c->t[1] <= pos) { /* drop segments over before it */
        for (int k = 0; k < c->n; k++)
            c->t[k] = c->t[k + 1], c->used[k] = c->used[k + 1];
        c->n--;
    }
    if (c->n == 0 && c->t[0] < pos)
        c->t[0] = pos;
    enum { MAXI = CC_SEGMENTS + 1 };
    double ia[MAXI], ib[MAXI], iu[MAXI];
    int ni = 0;
    double rem = work, first = -1, end = pos;
    for (int j = 0; j < c->n && rem > 0; j++) {
        if (c->t[j + 1] <= pos)
            continue;
        double a = pos > c->t[j] ? pos : c->t[j], b = c->t[j + 1];
        pos = b;
        double left = 1 - c->used[j];
        if (left < 1e-9)
            continue;
        double speed = left < share ? left / share : 1;
        if (first < 0)
            first = a;
        if (rem <= speed * (b - a)) {
            end = a + rem / speed;
            rem = 0;
        } else {
            end = b;
            rem -= speed * (b - a);
        }
        ia[ni] = a, ib[ni] = end, iu[ni] = speed * share, ni++;
    }
    if (rem > 0) { /* past every committed piece: the unit is free */
        if (first < 0)
            first = pos;
        end = pos + rem;
        ia[ni] = pos, ib[ni] = end, iu[ni] = share, ni++;
    }
    if (first < 0)
        first = end = pos; /* no work */
    for (int k = 0; k < ni; k++)
        if (ib[k] > ia[k])
            cc_add(c, ia[k], ib[k], iu[k]);
    c->floor = first;
    *start = first;
    return end;
}

/* ---- the CUDA cores shared fairly (cc_fair) ----------------------------------------- */

/* Each in-flight piece's speed (a part of its speed alone): the unit is dealt max-min fairly
 * over the pieces' shares (a piece that alone uses less than an equal part gets all it uses,
 * the rest is split among the others). */
static void cc_fair_speeds(const cc_fair *f, double *speed)
{
    int order[CC_FAIR_MAX];
    for (int i = 0; i < f->n; i++) {
        int j = i;
        for (; j > 0 && f->p[order[j - 1]].share > f->p[i].share; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    double left = 1;
    for (int k = 0; k < f->n; k++) {
        const cc_piece *pc = &f->p[order[k]];
        double part = left / (f->n - k);
        double use = pc->share < part ? pc->share : part;
        speed[order[k]] = use / pc->share;
        left -= use;
    }
}

/* Runs the shared unit from f->now to t (no new piece in between), dropping the pieces that
 * end by then; with t = HUGE_VAL, to the end, writing every piece's unit end to ends[] (by
 * its index at the call). */
static void cc_fair_run(cc_fair *f, double t, double *ends)
{
    int idx[CC_FAIR_MAX];
    for (int i = 0; i < f->n; i++)
        idx[i] = i;
    while (f->n > 0) {
        double speed[CC_FAIR_MAX], dt = HUGE_VAL;
        cc_fair_speeds(f, speed);
        int first = 0;
        for (int i = 0; i < f->n; i++) {
            double d = f->p[i].rem / speed[i];
            if (d < dt)
                dt = d, first = i;
        }
        if (f->now + dt > t) {
            for (int i = 0; i < f->n; i++)
                f->p[i].rem -= speed[i] * (t - f->now);
            f->now = t;
            return;
        }
        f->now += dt;
        for (int i = 0; i < f->n; i++)
            f->p[i].rem -= speed[i] * dt;
        f->p[first].rem = 0;
        for (int i = f->n - 1; i >= 0; i--) /* every piece done by now (ties end together) */
            if (f->p[i].rem <= 1e-12 * (1 + f->now)) {
                if (ends)
                    ends[idx[i]] = f->now;
                f->p[i] = f->p[f->n - 1];
                idx[i] = idx[f->n - 1];
                f->n--;
            }
    }
    if (t > f->now && isfinite(t))
        f->now = t;
}

/* A piece in flight ends later than published (a new piece slows it): its slot, span and warp
 * role's free time move, and so do the seen[] times written from that free time; the lanes'
 * cached readiness is dropped (a dependant's may have counted the old end). */
static void cc_fair_retime(sim_state *S, cc_piece *pc, double unit_end)
{
    double old = pc->end, end = unit_end + pc->latency;
    pc->unit_end = unit_end;
    if (end == old)
        return;
    pc->end = end;
    S->end[pc->slot] = end;
    S->spans[pc->span].end_ns = end;
    S->spans[pc->span].unit_end_ns = unit_end;
    if (S->lane_ready[pc->lane] == old)
        S->lane_ready[pc->lane] = end;
    if (S->role_free[pc->stream] == old)
        S->role_free[pc->stream] = end;
    for (int64_t k = 0; k < S->n_notes; k++) {
        seen_note *nt = &S->notes[k];
        if (nt->stream != pc->stream || nt->t != old)
            continue;
        if (S->seen[nt->slot] == old)
            S->seen[nt->slot] = end;
        nt->t = end;
    }
    for (int L = 0; L < S->p->n_lanes; L++) {
        lane_state *ls = &S->ls[L];
        if (ls->has)
            ls->ready = false, ls->cross = false, ls->dep_pos = S->dep_off[ls->stask],
            ls->dep_t = 0;
    }
}

/* Lane L's CUDA-core piece (slot, span) of `work` ns alone, using `share` of the unit alone,
 * ready at `ready` (never before an earlier piece's): it starts at once and shares the unit with
 * the pieces in flight, which are re-timed. Returns its unit end. */
static double cc_fair_serve(sim_state *S, int L, int64_t slot, int64_t span, double ready,
                            double work, double share, double latency)
{
    cc_fair *f = &S->ccf;
    if (ready > f->now)
        cc_fair_run(f, ready, NULL);
    if (f->n == CC_FAIR_MAX) { /* not reached: one piece per stream */
        double ends[CC_FAIR_MAX];
        cc_fair_run(f, HUGE_VAL, ends);
    }
    f->p[f->n++] = (cc_piece){.slot = slot, .span = span, .stream = stream_of(S, L), .lane = L,
                              .rem = work, .share = share, .latency = latency};
    cc_fair copy = *f;
    double ends[CC_FAIR_MAX];
    cc_fair_run(&copy, HUGE_VAL, ends);
    for (int i = 0; i < f->n - 1; i++)
        cc_fair_retime(S, &f->p[i], ends[i]);
    cc_piece *mine = &f->p[f->n - 1];
    mine->unit_end = ends[f->n - 1];
    mine->end = mine->unit_end + latency;
    return mine->unit_end;
}

/* The kernel ends each loop step of a consumer warpgroup by waiting for every wgmma group it
 * issued (wait_group 0): from `t`, when the role has issued step v, those groups are seen done.
 * That wait is not a dependency of the role's next step here (role_seek says why); it bounds
 * when the role reports the groups done and hands their stages back. */
static void step_end_seen(sim_state *S, int R, int64_t v, double t)
{
    const role_stream *rs = &S->rs[R];
    for (int k = 0; k < rs->n; k++) {
        int64_t i = v + rs->off[k];
        if (i < 0 || i >= S->iters || !tc_async_lane(S, rs->lane[k]))
            continue;
        see_at(S, slot_of(S, rs->stask[k], i), t, R);
    }
}

/* A warpgroup whose loop step is one wgmma sTask (GEMM's consumer) waits for it at the end of
 * its step (wait_group 0), or, keeping mma_in_flight groups in flight, for the group that many
 * steps back once the next is issued (wait_group 1): from `t`, when instance `iter` is issued. */
static void lane_step_seen(sim_state *S, int L, int stask, int64_t iter, double t)
{
    int64_t j = iter - (S->mma_in_flight > 0 ? S->mma_in_flight : 0);
    if (j < 0)
        return;
    see_at(S, slot_of(S, stask, j), t, stream_of(S, L));
}

static void commit(sim_state *S, int L, double t, double reach, double fence)
{
    lane_state *ls = &S->ls[L];
    const pt_stask *task = &S->sg->tasks[ls->stask];
    const pt_lane *ln = &S->p->lanes[L];
    const pt_cost *c = &S->hw->cost[task->kind][task->dtype];
    double work = amount_of(task) / S->rate[ls->stask], latency = S->latency[ls->stask];
    double start, end, unit_end, ready = t;
    if (ln->seu == PT_SEU_TENSOR_CORE || ln->seu == PT_SEU_CUDA_CORE)
        work *= S->clock_slow;
    if (S->load_scale)
        work *= S->load_scale[ls->stask];
    if (S->box_frac)
        work = work * S->box_frac[ls->stask] + S->box_oob_ns[ls->stask];
    if (S->chunk_end != PT_CHUNK_WHOLE && task->region == PT_REGION_EPILOGUE)
        chunk_epilogue(S, task, c, &work, &latency);
    int R = ln->role;
    bool async = true;
    /* a warpgroup's k block past its rows: it waits for the stages and hands them back */
    bool skip = task->region == PT_REGION_BODY &&
                ls->iter >= pt_stask_graph_wg_iterations(S->sg, task->wg, S->iters);
    /* a ring's stages or a resident tile the CTA's last tile left in place (ring_reuse.h):
     * handed over again */
    skip |= task->kind == PT_ST_LOAD && task->tensor >= 0 && task->tensor < 32 &&
            (S->kept >> task->tensor & 1u);
    if (skip) {
        start = unit_end = end = t;
        async = false;
    } else switch (ln->seu) {
    case PT_SEU_TMA:
        t = tma_admit(S, t);
        start = t > S->tma_free ? t : S->tma_free;
        S->tma_free = start + work;
        unit_end = S->tma_free;
        end = S->tma_free + latency;
        if (S->max_inflight > 0)
            S->inflight[S->n_inflight++] = end;
        async = S->hw->seu[PT_SEU_TMA].async;
        break;
    case PT_SEU_TENSOR_CORE:
        if (S->lds_ns && S->lds_ns[ls->stask] > 0) {
            /* its operands are first read from LDS into registers, on the EU's one LDS port
             * (other roles' MFMAs go on meanwhile); the MFMAs start once they are in */
            double r0 = t > S->lds_free ? t : S->lds_free;
            S->lds_free = r0 + S->lds_ns[ls->stask] * S->clock_slow;
            ready = S->lds_free;
        }
        unit_end = serve(S, R, &S->tc_free, S->simd_tc_free, ready, work, &start);
        end = unit_end + latency;
        /* a synchronous matrix unit (MI300X: each wave executes its own v_mfma) keeps the
         * issuing role until the result is there */
        async = S->hw->seu[PT_SEU_TENSOR_CORE].async;
        break;
    default:
        /* The SM's CUDA cores are one unit for all warp roles (cc_serve): a piece that alone
         * keeps them all busy (no peak_rate) queues FIFO behind the others' (microbenchmarked
         * exp2: two warpgroups together each get about half the rate one gets alone), one that
         * alone uses a part of their issue rate leaves the rest to the others. With
         * cuda_core_fair the pieces in flight share the unit fairly (cc_fair_serve). The
         * latency (shuffles) overlaps. The role itself is busy until its piece ends. */
        if (S->simds > 0) {
            unit_end = serve(S, R, NULL, S->simd_cc_free, t, work, &start);
        } else if (S->fair) {
            unit_end = cc_fair_serve(S, L, slot_of(S, ls->stask, ls->iter), S->n_spans, t, work,
                                     S->cc_share[ls->stask], latency);
            start = t;
        } else
            unit_end = cc_serve(&S->cc, t, work, S->cc_share[ls->stask], &start);
        end = unit_end + latency;
        async = false;
        break;
    }
    double next = async ? t + S->hw->seu[ln->seu].issue_ns : end;
    S->lane_ready[L] = S->role_free[stream_of(S, L)] = next;
    int64_t slot = slot_of(S, ls->stask, ls->iter);
    S->end[slot] = end;
    S->issue[slot] = t;
    mark_done(S, slot);
    if (!skip) /* the kernel stamps nothing for a skipped block either */
        S->spans[S->n_spans++] = (pt_span){.stask = ls->stask, .lane = L, .iter = ls->iter,
                                           .issue_ns = t, .start_ns = start, .end_ns = end,
                                           .unit_end_ns = unit_end, .fence_ns = fence};
    note_seen(S, L, ls, reach);
    role_stream *rs = &S->rs[R];
    if (!skip && ls->phase != 1 && tc_async_lane(S, L)) {
        see_at(S, slot, next, stream_of(S, L)); /* outside the loop a wgmma group is waited for right after its issue */
    } else if (!rs->ordered && !skip && tc_async_lane(S, L)) {
        lane_step_seen(S, L, ls->stask, ls->iter, next);
    }
    if (rs->ordered && ls->phase == 1) {
        int64_t v = rs->v;
        rs->pos++;
        role_seek(S, R);
        if (rs->done || rs->v != v)
            step_end_seen(S, R, v, S->role_free[stream_of(S, L)]);
    }
    lane_advance(S, L);
}

/* ---- deadlock report --------------------------------------------------------------- */

/* First unsimulated dependency of lane L's head, as (stask, iter). */
static bool first_blocker(const sim_state *S, int L, int *from, int64_t *iter)
{
    const lane_state *ls = &S->ls[L];
    for (int d = S->dep_off[ls->stask]; d < S->dep_off[ls->stask + 1]; d++) {
        int64_t slot = edge_slot(S, &S->deps[d], ls->iter);
        if (slot >= 0 && !slot_done(S, slot)) {
            *from = S->deps[d].from;
            *iter = is_body(S->sg, *from) ? slot - S->base[*from] : 0;
            return true;
        }
    }
    return false;
}

static bool report_deadlock(const sim_state *S, pt_error *err)
{
    const pt_sprogram *p = S->p;
    const pt_stask_graph *sg = S->sg;
    int chain[PT_MAX_LANES + 1], n = 0, pos_of[PT_MAX_LANES];
    int dep_s[PT_MAX_LANES + 1];
    int64_t dep_i[PT_MAX_LANES + 1];
    for (int L = 0; L < PT_MAX_LANES; L++)
        pos_of[L] = -1;
    int L = 0;
    while (L < p->n_lanes && !S->ls[L].has)
        L++;
    if (L >= p->n_lanes)
        return pt_fail(err, "deadlock: no lane can make progress");
    char a[PT_STASK_ID_MAX + 24], b[PT_STASK_ID_MAX + 24];
    while (L < p->n_lanes && pos_of[L] < 0) {
        pos_of[L] = n;
        chain[n] = L;
        if (!first_blocker(S, L, &dep_s[n], &dep_i[n]))
            return pt_fail(err, "deadlock: no lane can make progress");
        int next = S->lane_of[dep_s[n]];
        if (next < 0) {
            inst_name(a, sizeof a, sg, S->ls[L].stask, S->ls[L].iter);
            return pt_fail(err, "sTask %s is not placed on any lane (%s on %s waits for it)",
                           sg->tasks[dep_s[n]].id, a, p->lanes[L].name);
        }
        n++;
        L = next;
    }
    char msg[PT_ERROR_MAX];
    size_t len = (size_t)snprintf(msg, sizeof msg, "deadlock:");
    for (int c = pos_of[L]; c < n && len < sizeof msg; c++) {
        int H = chain[c], D = S->lane_of[dep_s[c]];
        inst_name(a, sizeof a, sg, S->ls[H].stask, S->ls[H].iter);
        inst_name(b, sizeof b, sg, dep_s[c], dep_i[c]);
        len += (size_t)snprintf(msg + len, sizeof msg - len, "%s %s (%s) waits for %s (%s)",
                                c == pos_of[L] ? "" : ";", a, p->lanes[H].name, b,
                                p->lanes[D].name);
        bool at_head = S->ls[D].stask == dep_s[c] && S->ls[D].iter == dep_i[c];
        if (!at_head && len < sizeof msg) {
            inst_name(a, sizeof a, sg, S->ls[D].stask, S->ls[D].iter);
            len += (size_t)snprintf(msg + len, sizeof msg - len, ", queued behind %s", a);
        }
    }
    if (len < sizeof msg)
        snprintf(msg + len, sizeof msg - len, " (cycle)");
    return pt_fail(err, "%s", msg);
}

/* ---- results ----------------------------------------------------------------------- */

static bool span_before(const pt_span *x, const pt_span *y)
{
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns;
    return x->lane < y->lane;
}

/* Stable bottom-up merge sort by (start, lane): equal keys keep commit order. */
static bool sort_spans(pt_span *v, int64_t n)
{
    bool sorted = true;
    for (int64_t i = 1; i < n && sorted; i++)
        sorted = !span_before(&v[i], &v[i - 1]);
    if (sorted)
        return true;
    pt_span *tmp = malloc((size_t)n * sizeof *tmp);
    if (!tmp)
        return false;
    pt_span *src = v, *dst = tmp;
    for (int64_t w = 1; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                dst[k++] = span_before(&src[j], &src[i]) ? src[j++] : src[i++];
            while (i < mid)
                dst[k++] = src[i++];
            while (j < hi)
                dst[k++] = src[j++];
        }
        pt_span *t = src;
        src = dst;
        dst = t;
    }
    if (src != v)
        memcpy(v, src, (size_t)n * sizeof *v);
    free(tmp);
    return true;
}

/* Busy and occupancy per lane, one way (busy.h): unions of issue -> completion spans and of
 * start -> unit_end occupancies. The EU time is first issue to last completion. */
static void summarise(const sim_state *S, pt_timeline *tl)
{
    double first = 0, last = 0;
    for (int64_t k = 0; k < S->n_spans; k++) {
        const pt_span *sp = &S->spans[k];
        if (k == 0 || sp->issue_ns < first)
            first = sp->issue_ns;
        if (k == 0 || sp->end_ns > last)
            last = sp->end_ns;
    }
    pt_timeline view = {.n_spans = S->n_spans, .spans = S->spans};
    /* out of memory: left 0 (pt_timeline_lane_busy_pct recomputes on demand) */
    (void)pt_timeline_lane_unions(&view, tl->lane_busy_ns, tl->lane_occupied_ns);
    tl->eu_time_ns = S->n_spans ? last - first : 0;
}

static void sim_free(sim_state *S)
{
    free(S->base);
    free(S->lane_of);
    free(S->load_scale);
    free(S->rate);
    free(S->latency);
    free(S->cc_share);
    free(S->box_frac);
    free(S->box_oob_ns);
    free(S->lds_ns);
    free(S->dep_off);
    free(S->deps);
    free(S->end);
    free(S->issue);
    free(S->done);
    free(S->entry_idx);
    free(S->inflight);
    free(S->spans);
    free(S->seen);
    free(S->notes);
}

/* The packing of the 4-bit tensor a dequant sTask reads (its op's input). */
static pt_packing dequant_packing(const pt_stask_graph *sg, int s)
{
    int op = sg->tasks[s].op;
    if (op < 0 || sg->graph->ops[op].n_in < 1)
        return PT_PACK_ROWS;
    return sg->graph->tensors[sg->graph->ops[op].in[0]].packing;
}

/* sTask s's rate and latency: the cost table's, except a dequantisation's where the model has
 * rates fitted on generated kernels (into the mma's row fragments, or into a ring), the former
 * with a fixed time per k block as its latency. */
static void stask_cost(const sim_state *S, const pt_decay_chain *decay, int s, double *rate,
                       double *latency)
{
    const pt_stask *t = &S->sg->tasks[s];
    const pt_cost *c = &S->hw->cost[t->kind][t->dtype];
    *rate = c->rate;
    *latency = c->latency_ns;
    if (decay && t->op >= 0) {  /* the factored decay's pieces do less per element */
        const pt_hw *h = S->hw;
        if (t->op == decay->op_decay)
            *rate /= h->decay_factored_exp_work > 0 ? h->decay_factored_exp_work
                                                   : PT_DECAY_FACTORED_EXP_WORK;
        else if (t->op == decay->op_tile)
            *rate /= h->decay_factored_tile_work > 0 ? h->decay_factored_tile_work
                                                    : PT_DECAY_FACTORED_TILE_WORK;
        else if (t->op == decay->op_vec) {
            *rate /= h->decay_factored_vec_work > 0 ? h->decay_factored_vec_work
                                                   : PT_DECAY_FACTORED_VEC_WORK;
            if (S->p->decay == PT_DECAY_FACTORED16)  /* the factor rounded: fitted, decay_form.h */
                *rate /= h->decay_factored16_vec_work > 0 ? h->decay_factored16_vec_work
                                                         : PT_DECAY_FACTORED16_VEC_WORK;
        }
    }
    if (t->kind != PT_ST_DEQUANT)
        return;
    if (pt_stask_dequant_rows(S->sg, s) && S->hw->dequant_rows_rate > 0) {
        bool fp4 = t->dtype == PT_FP4_E2M1;
        *rate = fp4 && S->hw->dequant_rows_fp4_rate > 0 ? S->hw->dequant_rows_fp4_rate
                                                        : S->hw->dequant_rows_rate;
        *latency = S->hw->dequant_rows_block_ns;
        if (dequant_packing(S->sg, s) == PT_PACK_FRAGMENTS) {
            if (S->hw->dequant_frag_rate > 0)
                *rate = fp4 && S->hw->dequant_frag_fp4_rate > 0 ? S->hw->dequant_frag_fp4_rate
                                                               : S->hw->dequant_frag_rate;
            if (S->hw->dequant_frag_block_ns > 0)
                *latency = S->hw->dequant_frag_block_ns;
        }
    } else if (pt_stask_writes_ring(S->sg, s) && S->hw->dequant_tile_rate > 0) {
        *rate = S->hw->dequant_tile_rate;
    }
}

/* A CUDA-core sTask that reads a ring stage into registers and hands it back behind a proxy
 * fence (the sProgram's "release": "fence", or where no wgmma group can take it: stage_hold.h)
 * waits at the fence for its loads: hw.proxy_fence_ns more per instance. Dequantisation is left
 * out: its rates were fitted on kernels that fence. */
static void charge_fences(sim_state *S)
{
    const pt_stask_graph *sg = S->sg;
    if (S->hw->proxy_fence_ns <= 0)
        return;
    pt_stage_hold hold;
    pt_stage_hold_lags(S->p, sg, &hold);
    for (int s = 0; s < sg->n; s++) {
        const pt_stask *t = &sg->tasks[s];
        int L, pos;
        if (t->region != PT_REGION_BODY || t->kind == PT_ST_MMA || t->kind == PT_ST_LOAD ||
            t->kind == PT_ST_DEQUANT || !pt_sprogram_placement(S->p, s, &L, &pos) ||
            S->p->lanes[L].seu != PT_SEU_CUDA_CORE || pt_stask_fills_ring(sg, s) ||
            pt_stage_release_group(S->p, sg, &hold, S->hw, s) >= 0)
            continue;
        bool reads_ring = false;
        for (int l = 0; l < sg->n && !reads_ring; l++)
            reads_ring = pt_stask_fills_ring(sg, l) && sg->tasks[l].region == PT_REGION_BODY &&
                         pt_stage_reader(sg, l, s);
        if (reads_ring)
            S->latency[s] += S->hw->proxy_fence_ns;
    }
}

static bool sim_setup(sim_state *S, int64_t *n_inst, pt_error *err)
{
    const pt_stask_graph *sg = S->sg;
    int n = sg->n;
    S->n = n;
    S->base = malloc(((size_t)n + 1) * sizeof *S->base);
    S->lane_of = malloc(((size_t)n + 1) * sizeof *S->lane_of);
    if (!S->base || !S->lane_of)
        return pt_fail(err, "simulate: out of memory");
    int64_t slots = 0;
    for (int s = 0; s < n; s++) {
        S->base[s] = slots;
        S->lane_of[s] = -1;
        slots += is_body(sg, s) ? S->iters : 1;
    }
    S->n_slots = slots;
    S->rate = malloc(((size_t)n + 1) * sizeof *S->rate);
    S->latency = malloc(((size_t)n + 1) * sizeof *S->latency);
    if (!S->rate || !S->latency)
        return pt_fail(err, "simulate: out of memory");
    S->cc_share = malloc(((size_t)n + 1) * sizeof *S->cc_share);
    if (!S->cc_share)
        return pt_fail(err, "simulate: out of memory");
    pt_decay_chain chain;
    pt_error decay_err = {{0}};
    const pt_decay_chain *decay =
        pt_decay_is_factored(S->p->decay) && sg->graph && pt_decay_chain_find(sg->graph, &chain, &decay_err)
            ? &chain
            : NULL;
    for (int s = 0; s < n; s++) {
        stask_cost(S, decay, s, &S->rate[s], &S->latency[s]);
        const pt_stask *t = &sg->tasks[s];
        double peak = S->hw->cost[t->kind][t->dtype].peak_rate;
        S->cc_share[s] = peak > 0 && S->rate[s] < peak ? S->rate[s] / peak : 1;
    }
    if (S->hw->reuse_bytes_per_ns > 0) {
        S->load_scale = malloc(((size_t)n + 1) * sizeof *S->load_scale);
        if (!S->load_scale)
            return pt_fail(err, "simulate: out of memory");
        for (int s = 0; s < n; s++)
            S->load_scale[s] = pt_cache_reuse_scale(sg, &sg->tasks[s], S->hw);
    }
    if (S->hw->tma_oob_row_ns > 0) {
        S->box_frac = malloc(((size_t)n + 1) * sizeof *S->box_frac);
        S->box_oob_ns = malloc(((size_t)n + 1) * sizeof *S->box_oob_ns);
        if (!S->box_frac || !S->box_oob_ns)
            return pt_fail(err, "simulate: out of memory");
        for (int s = 0; s < n; s++) {
            const pt_stask *t = &sg->tasks[s];
            S->box_frac[s] = pt_box_bytes_fraction(sg, t, S->hw, S->edge);
            S->box_oob_ns[s] = S->edge ? pt_box_oob_ns(sg, t, S->hw) : 0;
        }
    }
    if (S->hw->lds_read_bytes_per_clk > 0) {
        S->lds_ns = malloc(((size_t)n + 1) * sizeof *S->lds_ns);
        if (!S->lds_ns)
            return pt_fail(err, "simulate: out of memory");
        for (int s = 0; s < n; s++)
            S->lds_ns[s] = pt_lds_read_ns(sg, s, S->hw);
    }
    if (!place_tasks(S, n_inst, err) || !build_deps(S, err) || !build_lanes(S, err))
        return false;
    charge_fences(S);
    S->clock_slow = power_capped_slowdown(S);
    S->simds = S->hw->simds_per_eu > PT_MAX_SIMDS ? PT_MAX_SIMDS : S->hw->simds_per_eu;
    S->fair = S->hw->cuda_core_fair && S->simds == 0 && loop_cc_all_peaked(S);
    if (slots > (int64_t)PT_SIM_MAX_INSTANCES + n)
        return pt_fail(err, "simulate: %lld iterations x %d sTasks is over the limit of %d "
                       "instances; use a larger reduction tile", (long long)S->iters, n,
                       PT_SIM_MAX_INSTANCES);
    S->end = malloc(((size_t)slots + 1) * sizeof *S->end);
    S->issue = malloc(((size_t)slots + 1) * sizeof *S->issue);
    S->done = calloc((size_t)(slots >> 6) + 1, sizeof *S->done);
    S->spans = malloc(((size_t)*n_inst + 1) * sizeof *S->spans);
    S->seen = malloc(((size_t)slots + 1) * sizeof *S->seen);
    if (S->seen)
        for (int64_t k = 0; k <= slots; k++)
            S->seen[k] = HUGE_VAL;
    /* barrier_wait_ns is paid by a consumer warpgroup whose loop step has a CUDA-core piece
     * reading its own wgmma result (attention's softmax of S), when another warpgroup's has
     * too: its 4 warps, kept apart by the other warpgroup's CUDA-core issue, meet again at the
     * wgmma fence after the wait. GEMM's consumers (no CUDA-core loop work), warpgroups that
     * only dequantise loaded tiles into wgmma operands, and a lone softmax warpgroup do not
     * pay it. Fitting the H200 model (barrier_wait_ns 240), charging a lone warpgroup
     * too took the FA rows of bench/measured-2026-12-02-s12 from mean |error| 6.7% (max 20.5%)
     * to 8.1% (32.5%, the one-warpgroup d256 kernels); charging the dequantising warpgroups
     * took the 40 low-bit picks of bench/lowbit/results-2026-12-02-s11 from 19% to 62%. */
    int cc_roles = 0;
    for (int L = 0; L < S->p->n_lanes; L++) {
        int R = S->p->lanes[L].role;
        if (S->p->lanes[L].seu != PT_SEU_CUDA_CORE || R < 0 || R >= PT_MAX_ROLES ||
            S->p->roles[R].wg < 0 || S->wait_pays[R])
            continue;
        for (int b = 0; b < S->ls[L].n_body && !S->wait_pays[R]; b++) {
            int s = S->p->lanes[L].entries[S->ls[L].body[b]].stask;
            for (int d = S->dep_off[s]; d < S->dep_off[s + 1]; d++) {
                int from = S->lane_of[S->deps[d].from];
                if (from >= 0 && S->p->lanes[from].seu == PT_SEU_TENSOR_CORE &&
                    S->p->lanes[from].role == R) {
                    S->wait_pays[R] = true, cc_roles++;
                    break;
                }
            }
        }
    }
    if (cc_roles < 2)
        memset(S->wait_pays, 0, sizeof S->wait_pays);
    for (int R = 0; R < S->p->n_roles; R++) {
        build_role_stream(S, R);
        if (S->rs[R].ordered)
            role_seek(S, R);
    }
    int mif = S->hw->seu[PT_SEU_TMA].max_in_flight;
    S->max_inflight = mif > 0 ? (mif < *n_inst + 1 ? mif : (int)(*n_inst + 1)) : 0;
    S->inflight = malloc(((size_t)S->max_inflight + 1) * sizeof *S->inflight);
    if (!S->end || !S->issue || !S->done || !S->spans || !S->inflight || !S->seen)
        return pt_fail(err, "simulate: out of memory for %lld instances", (long long)*n_inst);
    return true;
}

static bool sim_run(sim_state *S, int64_t n_inst, pt_error *err)
{
    const pt_sprogram *p = S->p;
    for (int L = 0; L < p->n_lanes; L++)
        lane_advance(S, L);
    for (int64_t left = n_inst; left > 0; left--) {
        int best = -1;
        double best_t = 0, best_reach = 0, best_fence = 0;
        for (int L = 0; L < p->n_lanes; L++) {
            if (!S->ls[L].has || !role_allows(S, L))
                continue;
            double t = S->lane_ready[L];
            if (S->role_free[stream_of(S, L)] > t)
                t = S->role_free[stream_of(S, L)];
            double reach = t;
            if (!head_ready(S, L)) {
                /* its warp role is already waiting there: a wgmma group it needs is seen
                 * done from then on, which may be what another role waits for */
                note_seen(S, L, &S->ls[L], reach);
                continue;
            }
            /* without the barrier wait it would issue at max(t, dep_t): the rest is the fence */
            double plain = S->ls[L].dep_t > t ? S->ls[L].dep_t : t;
            if (S->ls[L].cross && S->wait_pays[role_of(S, L)])
                t += S->hw->barrier_wait_ns;
            if (S->ls[L].dep_t > t)
                t = S->ls[L].dep_t;
            if (best < 0 || t < best_t)
                best = L, best_t = t, best_reach = reach, best_fence = t - plain;
        }
        if (best < 0)
            return report_deadlock(S, err);
        S->frontier = best_t;
        commit(S, best, best_t, best_reach, best_fence);
    }
    return true;
}

/* A span of an asynchronous unit ends when the issuing side sees its result (busy.h): the
 * completion, or later, when the side that stamps it only then came to wait for it — what the
 * instrumented kernel stamps. A copy: the first dependant's warp role waiting on the full
 * barrier. A wgmma group: its own warpgroup's wait_group (note_seen, step_end_seen,
 * lane_step_seen), which may come after more CUDA-core work. A consumer that keeps one wgmma
 * group in flight (stage_hold.h) waits for group i only after issuing group i + 1
 * (wait_group<1>): a tensor-core span ends no earlier than the lane's next issue is done.
 * Dependencies within a role were resolved with the completion itself (the wait_group returns
 * then); a ring stage read by a wgmma came back at that wait (head_ready). */
static void observed_ends(sim_state *S)
{
    double next_issue[PT_MAX_LANES];
    for (int L = 0; L < PT_MAX_LANES; L++)
        next_issue[L] = -HUGE_VAL;
    const double tc_issue = S->hw->seu[PT_SEU_TENSOR_CORE].issue_ns;
    /* backwards over the commit order, which is each lane's issue order */
    for (int64_t k = S->n_spans - 1; k >= 0; k--) {
        pt_span *sp = &S->spans[k];
        pt_seu_kind seu = S->p->lanes[sp->lane].seu;
        if (!S->hw->seu[seu].async)
            continue;
        double seen = S->seen[slot_of(S, sp->stask, sp->iter)];
        if (isfinite(seen) && seen > sp->end_ns)
            sp->end_ns = seen;
        if (seu != PT_SEU_TENSOR_CORE || S->mma_in_flight <= 0 || sp->lane >= PT_MAX_LANES)
            continue;
        double retire = next_issue[sp->lane] + tc_issue;
        if (retire > sp->end_ns)
            sp->end_ns = retire;
        next_issue[sp->lane] = sp->issue_ns;
    }
}

/* Every time the writers and the text timeline will print or index with: a model that got
 * past the loader's rate limits cannot make them infinite, but a model built in code (or a
 * future formula) might, and inf/NaN must never reach JSON or an array index. */
bool pt_sim_timeline_finite(const pt_timeline *tl)
{
    if (!isfinite(tl->eu_time_ns) || !isfinite(tl->kernel_time_ns) || !isfinite(tl->tflops) ||
        !isfinite(tl->dram_floor_ns) || !isfinite(tl->flops))
        return false;
    for (int64_t i = 0; i < tl->n_spans; i++) {
        const pt_span *s = &tl->spans[i];
        if (!isfinite(s->issue_ns) || !isfinite(s->start_ns) || !isfinite(s->end_ns))
            return false;
    }
    return true;
}

bool pt_sim_not_finite(const pt_hw *hw, pt_error *err)
{
    return pt_fail(err, "%s: simulate: the predicted times with hardware model %s are not "
                   "finite numbers; expected cost rates and bandwidths of at least %g per ns",
                   hw->file[0] ? hw->file : "hardware", hw->name, PT_HW_MIN_RATE);
}

bool pt_simulate_eu(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                    int64_t iters, pt_timeline *tl, pt_error *err)
{
    return pt_simulate_chunk(p, sg, hw, iters, PT_CHUNK_WHOLE, tl, err);
}

bool pt_simulate_chunk(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                       int64_t iters, pt_chunk_end end, pt_timeline *tl, pt_error *err)
{
    return pt_simulate_chunk_of(p, sg, hw, iters, end, pt_sprogram_split_k(p) - 1, tl, err);
}

bool pt_simulate_chunk_of(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                          int64_t iters, pt_chunk_end end, int others, pt_timeline *tl,
                          pt_error *err)
{
    return pt_simulate_item(p, sg, hw, iters, end, others, false, tl, err);
}

bool pt_simulate_item(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                      int64_t iters, pt_chunk_end end, int others, bool edge, pt_timeline *tl,
                      pt_error *err)
{
    return pt_simulate_kept(p, sg, hw, iters, end, others, edge, 0, tl, err);
}

bool pt_simulate_kept(const pt_sprogram *p, const pt_stask_graph *sg, const pt_hw *hw,
                      int64_t iters, pt_chunk_end end, int others, bool edge, uint32_t kept,
                      pt_timeline *tl, pt_error *err)
{
    tl->spans = NULL;
    tl->n_spans = 0;
    if (!p || !sg || !hw || (sg->n > 0 && !sg->tasks) || sg->n < 0)
        return pt_fail(err, "simulate: missing program, sTask-graph or hardware model");
    if (iters < 0 || iters > PT_SIM_MAX_INSTANCES)
        return pt_fail(err, "simulate: %lld iterations; expected 0 to %d", (long long)iters,
                       PT_SIM_MAX_INSTANCES);
    if (!check_program(p, sg, err))
        return false;
    sim_state S;
    memset(&S, 0, sizeof S);
    S.p = p;
    S.sg = sg;
    S.hw = hw;
    S.iters = iters;
    S.chunk_end = end;
    S.split_k = (others > 0 ? others : 0) + 1;
    S.edge = edge;
    S.kept = kept;
    int64_t n_inst = 0;
    bool ok = sim_setup(&S, &n_inst, err) && sim_run(&S, n_inst, err);
    if (ok)
        observed_ends(&S);
    if (ok && !sort_spans(S.spans, S.n_spans))
        ok = pt_fail(err, "simulate: out of memory");
    if (ok) {
        summarise(&S, tl);
        if (!pt_sim_timeline_finite(&(pt_timeline){.spans = S.spans, .n_spans = S.n_spans,
                                                   .eu_time_ns = tl->eu_time_ns}))
            ok = pt_sim_not_finite(hw, err);
    }
    if (ok) {
        tl->spans = S.spans;
        tl->n_spans = S.n_spans;
        tl->n_lanes = p->n_lanes;
        tl->eu_iterations = iters;
        S.spans = NULL;
    }
    sim_free(&S);
    return ok;
}

/* ---- dependency instances (for exports and the GUI) -------------------------------- */

int pt_instance_deps(const pt_sprogram *p, const pt_stask_graph *sg, int stask, int64_t iter,
                     int64_t iters, int *dep_stask, int64_t *dep_iter, int cap)
{
    if (!sg || stask < 0 || stask >= sg->n)
        return 0;
    const pt_stask *t = &sg->tasks[stask];
    int n_edges = t->n_deps + (p ? p->n_waits : 0), count = 0;
    for (int e = 0; e < n_edges; e++) {
        int from, dist;
        if (e < t->n_deps) {
            from = t->deps[e].from;
            dist = t->deps[e].distance;
        } else {
            const pt_wait_entry *w = &p->waits[e - t->n_deps];
            if (w->stask != stask)
                continue;
            from = w->on;
            dist = w->distance;
        }
        dep_mode mode;
        int64_t k, j;
        if (from < 0 || from >= sg->n || !map_edge(sg, stask, from, dist, &mode, &k))
            continue;
        if (mode == DM_FIXED)
            j = 0;
        else if (mode == DM_LAST)
            j = iters - 1;
        else
            j = iter - k;
        if (j < 0 || (mode != DM_FIXED && j >= iters))
            continue;
        if (count < cap) {
            dep_stask[count] = from;
            dep_iter[count] = j;
        }
        count++;
    }
    return count;
}

void pt_timeline_free(pt_timeline *tl)
{
    if (!tl)
        return;
    free(tl->spans);
    memset(tl, 0, sizeof *tl);
}
