/* pass_buffers.c — the kernel's shared memory: one buffer per load and one for the store.
 *
 * A body load (a new tile every iteration) gets a ring of the sProgram's stages; a prologue
 * load (one tile per output tile) a resident buffer; the store a staging tile, apart or over
 * the largest resident tile as pt_sprogram_staging_apart decides for the simulator too. What
 * holds a ring stage, and so how late the consumers release it, is the contract's decision
 * (src/stage_hold.h), read here once. Layout: resident tiles, rings, the staging tile, then
 * the barriers, every buffer on the 1024 bytes 128-byte swizzle needs; the launch asks for
 * 1024 bytes more so the kernel can align its base. On a part whose kernels store from
 * registers and read resident tiles into registers (src/smem_layout.h: AMD), those buffers
 * keep their place in the program but take no shared memory, rows are padded and there is
 * no barrier memory: the validator counts the same bytes. */
#include <stdio.h>
#include <string.h>

#include "streamk.h"
#include "passes.h"
#include "splitk.h"
#include "stage_hold.h"
#include "smem_layout.h"
#include "staging.h"
#include "validate.h"

static int64_t align_up(int64_t x, int64_t a)
{
    return (x + a - 1) / a * a;
}

static bool add_buf(pt_kprog *kp, pt_kbuf_kind kind, int s, const char *who, pt_error *err)
{
    const pt_stask *t = &kp->sg->tasks[s];
    if (kp->n_bufs == PT_KP_MAX_BUFS)
        KREFUSE("%s: more than %d loaded or stored tensors", who, PT_KP_MAX_BUFS);
    pt_kbuf *b = &kp->bufs[kp->n_bufs++];
    memset(b, 0, sizeof *b);
    b->kind = kind;
    b->tensor = t->tensor;
    b->stask = s;
    b->over = -1;
    int pos;
    if (!pt_sprogram_placement(kp->p, s, &b->lane, &pos))
        KREFUSE("%s: sTask %s is not placed", who, t->id);
    b->elem_bits = pt_dtype_bits(kp->g->tensors[t->tensor].dtype);
    b->elem_bytes = b->elem_bits >= 8 ? b->elem_bits / 8 : 1;
    pt_smem_layout L;
    pt_smem_layout_of(kp->hw, &L);
    /* the validator's rule: whole atoms (or padded rows), rows of a load at least 16 bytes */
    b->bytes = pt_stask_smem_tile_bytes_on(kp->sg, t, kp->hw);
    int64_t rows = 1;
    for (int i = 0; i + 1 < t->rank; i++)
        rows *= t->tile[i] > 0 ? t->tile[i] : 1;
    b->row_bytes = b->bytes / rows;
    b->written = pt_stask_writes_ring(kp->sg, s);
    b->staged = !b->written && pt_tensor_staged(kp->g, t->tensor); /* the model's decision */
    b->pitch = align_up(b->bytes, L.align);
    if (((kind == PT_KBUF_STAGING || kind == PT_KBUF_ROWS) && !L.staged_store) ||
        (kind == PT_KBUF_RESIDENT && !L.resident_in_smem))
        b->pitch = 0; /* in registers on this part */
    b->stages = 1;
    if (kind == PT_KBUF_RESIDENT && kp->p->stages[t->tensor] > 1) {
        /* a second copy: the next tile's loaded during this one (validate.c's rule) */
        b->stages = kp->p->stages[t->tensor];
        if (b->stages != 2 || !kp->p->partition.persistent)
            KREFUSE("%s: stages of %s = %d%s; a resident tile has 1 copy, or 2 in a persistent "
                    "program", who, kp->g->tensors[t->tensor].name, b->stages,
                    kp->p->partition.persistent ? "" : " in a program that is not persistent");
        if (b->pitch == 0)
            KREFUSE("%s: stages of %s = 2, but this part keeps resident tiles in registers: one "
                    "copy is generated", who, kp->g->tensors[t->tensor].name);
    }
    if (kind == PT_KBUF_RING) {
        b->stages = kp->p->stages[t->tensor];
        if (b->stages < 1 || b->stages > 16)
            KREFUSE("%s: stages of %s = %d; expected 1 to 16", who,
                    kp->g->tensors[t->tensor].name, b->stages);
    }
    return true;
}

/* Is tensor t the log-sum-exp output of an online softmax? */
static bool lse_of(const pt_graph *g, int t)
{
    for (int o = 0; o < g->n_ops; o++)
        if (g->ops[o].kind == PT_OP_ONLINE_SOFTMAX && g->ops[o].lse == t)
            return true;
    return false;
}

/* Buffers in sTask order, each kind together: resident, rings, staging, the rows of a
 * log-sum-exp (the kernel's parameters follow this order). */
static bool collect(pt_kprog *kp, const char *who, pt_error *err)
{
    const pt_stask_graph *sg = kp->sg;
    kp->staging = kp->rows = -1;
    for (int pass = 0; pass < 4; pass++)
        for (int s = 0; s < sg->n; s++) {
            const pt_stask *t = &sg->tasks[s];
            if (pass == 0 && t->kind == PT_ST_LOAD && t->region == PT_REGION_PROLOGUE) {
                if (!add_buf(kp, PT_KBUF_RESIDENT, s, who, err))
                    return false;
            } else if (pass == 1 && t->kind == PT_ST_LOAD && t->region != PT_REGION_PROLOGUE) {
                if (t->region != PT_REGION_BODY || !t->buffered)
                    KREFUSE("%s: %s is a %s load that is not buffered; loads are generated into "
                            "a ring of stages (body) or a resident tile (prologue)", who, t->id,
                            pt_region_name(t->region));
                if (!add_buf(kp, PT_KBUF_RING, s, who, err))
                    return false;
            } else if (pass == 1 && pt_stask_writes_ring(sg, s)) {
                if (!add_buf(kp, PT_KBUF_RING, s, who, err))
                    return false;
            } else if (pass == 3 && t->kind == PT_ST_STORE && lse_of(kp->g, t->tensor)) {
                if (kp->rows >= 0)
                    KREFUSE("%s: two log-sum-exp outputs (%s and %s); one is generated", who,
                            kp->g->tensors[kp->bufs[kp->rows].tensor].name,
                            kp->g->tensors[t->tensor].name);
                if (!add_buf(kp, PT_KBUF_ROWS, s, who, err))
                    return false;
                kp->rows = kp->n_bufs - 1;
            } else if (pass == 2 && t->kind == PT_ST_STORE && !lse_of(kp->g, t->tensor)) {
                if (kp->staging >= 0 && sg->tiling.wg_stores &&
                    kp->bufs[kp->staging].tensor == t->tensor)
                    continue; /* another warpgroup's rows of the one staging tile */
                if (kp->staging >= 0)
                    KREFUSE("%s: the graph stores two tensors (%s and %s); one output is generated "
                            "so far", who, kp->g->tensors[kp->bufs[kp->staging].tensor].name,
                            kp->g->tensors[t->tensor].name);
                if (!add_buf(kp, PT_KBUF_STAGING, s, who, err))
                    return false;
                kp->staging = kp->n_bufs - 1;
            }
        }
    if (kp->staging < 0)
        KREFUSE("%s: the sTask-graph stores no output", who);
    if (sg->tiling.wg_stores) {
        /* one staging tile holds every warpgroup's rows (each stores its own part, a box of
         * the part's shape): wgs times the store sTask's tile */
        pt_kbuf *st = &kp->bufs[kp->staging];
        pt_smem_layout L;
        pt_smem_layout_of(kp->hw, &L);
        st->bytes *= sg->tiling.warpgroups;
        if (st->pitch > 0)
            st->pitch = align_up(st->bytes, L.align);
    }
    return true;
}

/* The contract on ring stages: which lag each ring is released with, and whether the rings
 * progress at all (the validator proved it; a program that slipped past is refused here). */
static bool hold(pt_kprog *kp, const char *who, pt_error *err)
{
    pt_stage_hold h;
    pt_stage_hold_decide(kp->p, kp->sg, &h);
    char rings[160] = "";
    for (int i = 0; i < kp->n_bufs; i++) {
        pt_kbuf *b = &kp->bufs[i];
        if (b->kind != PT_KBUF_RING)
            continue;
        b->lag = h.lag[b->tensor];
        size_t n = strlen(rings);
        snprintf(rings + n, sizeof rings - n, "%s%s (%d stages)", n ? ", " : "",
                 kp->g->tensors[b->tensor].name, b->stages);
    }
    if (!h.progress)
        KREFUSE("%s: the rings of %s cannot make progress with this producer order (validate the "
                "sProgram for the stage count it needs)", who, rings);
    kp->carry = h.mma_in_flight;
    kp->hold = h;
    return true;
}

static bool layout(pt_kprog *kp, const char *who, pt_error *err)
{
    pt_smem_layout L;
    pt_smem_layout_of(kp->hw, &L);
    pt_kbuf *st = &kp->bufs[kp->staging];
    int largest = -1;
    for (int i = 0; i < kp->n_bufs; i++)
        if (kp->bufs[i].kind == PT_KBUF_RESIDENT &&
            (largest < 0 || kp->bufs[i].bytes > kp->bufs[largest].bytes))
            largest = i;
    if (largest >= 0 && L.staged_store && !pt_sprogram_staging_apart(kp->p, kp->sg, kp->hw)) {
        if (kp->bufs[largest].stages > 1)
            KREFUSE("%s: %s has 2 copies (stages 2) and the output would be staged over it; "
                    "stage it apart (partition.staging)", who,
                    kp->g->tensors[kp->bufs[largest].tensor].name);
        if (kp->bufs[largest].pitch < st->pitch)
            KREFUSE("%s: the output tile (%lld bytes) does not fit over %s's (%lld); stage it "
                    "apart (partition.staging)", who, (long long)st->bytes,
                    kp->g->tensors[kp->bufs[largest].tensor].name,
                    (long long)kp->bufs[largest].bytes);
        st->over = largest;
    }
    int64_t off = 0, bar = 0;
    for (int i = 0; i < kp->n_bufs; i++) {
        pt_kbuf *b = &kp->bufs[i];
        if (b->kind != PT_KBUF_ROWS) /* rows are synchronised with the staging tile */
            bar += (int64_t)L.barrier_bytes * b->stages; /* a full and an empty barrier */
        if (b->over >= 0) {
            b->offset = kp->bufs[b->over].offset;
            continue;
        }
        b->offset = off;
        off += b->stages * b->pitch;
    }
    /* two launch positions of a dynamic tile hand-out (causal: tiles of unequal length), or
     * the split-K tickets of two work items in flight */
    if (L.barrier_bytes > 0 && (kp->sg->causal_op >= 0 || pt_sprogram_split_k(kp->p) > 1 ||
                                pt_sprogram_stream_k(kp->p) > 1))
        bar += 8;
    kp->off_bar = off;
    kp->bar_bytes = bar;
    /* split-K through a cluster: the leader's slots for the other chunks' partial tiles, after
     * the barriers or over the rings (the validator's choice), then its two barriers */
    int64_t cl = pt_split_k_cluster_smem(kp->p, kp->sg), end = off + bar;
    kp->cluster_over_rings = cl > 0 && pt_sprogram_cluster_slots_over_rings(kp->p, kp->sg, kp->hw);
    if (kp->cluster_over_rings) {
        for (int i = 0; i < kp->n_bufs; i++) /* the slots cover only rings, from offset 0 */
            if (kp->bufs[i].kind != PT_KBUF_RING && kp->bufs[i].over < 0 &&
                kp->bufs[i].offset < cl - 16)
                KREFUSE("%s: split_k_reduce cluster: the leader's %lld bytes of partial tiles do "
                        "not fit beside the buffers nor over the rings alone", who,
                        (long long)(cl - 16));
        kp->off_cluster = 0;
        kp->off_clbar = align_up(end, 16);
        end = kp->off_clbar + 16;
    } else if (cl > 0) {
        kp->off_cluster = align_up(end, 16);
        kp->off_clbar = kp->off_cluster + cl - 16;
        end = kp->off_clbar + 16;
    }
    /* dynamic shared memory starts on 16 bytes: one alignment more lets the kernel align its
     * base; static LDS arrays (align 16) need none */
    kp->smem_dynamic = align_up(end, 16) + (L.align > 16 ? L.align : 0);
    if (kp->smem_dynamic > kp->hw->smem_per_block) {
        char parts[256] = "";
        for (int i = 0; i < kp->n_bufs; i++) {
            const pt_kbuf *b = &kp->bufs[i];
            size_t n = strlen(parts);
            snprintf(parts + n, sizeof parts - n, "%s%s %d x %lld", n ? ", " : "",
                     kp->g->tensors[b->tensor].name, b->stages, (long long)b->bytes);
        }
        KREFUSE("%s: needs %lld bytes of shared memory (%s%s, barriers, 1024 of alignment slack); "
                "%s allows %lld", who, (long long)kp->smem_dynamic, parts,
                st->over >= 0 ? ", the output over a resident tile" : "", kp->hw->name,
                (long long)kp->hw->smem_per_block);
    }
    return true;
}

/* Is axis a one of the stored output's axes? */
static bool output_axis(const pt_kprog *kp, int a)
{
    const pt_tensor *O = &kp->g->tensors[kp->bufs[kp->staging].tensor];
    for (int i = 0; i < O->rank; i++)
        if (O->axes[i] == a)
            return true;
    return false;
}

/* TMA boxes: a tile that runs past the end of an output axis (M = 1 with 64-row tiles) loads
 * only the rows that exist; zero-filling the others costs the TMA unit as much as loading. */
static void boxes(pt_kprog *kp)
{
    for (int i = 0; i < kp->n_bufs; i++) {
        pt_kbuf *b = &kp->bufs[i];
        const pt_tensor *T = &kp->g->tensors[b->tensor];
        int outer = T->rank >= 2 ? T->axes[T->rank - 2] : -1;
        int64_t rows = outer >= 0 ? kp->sg->tiling.tile[outer] : 1;
        b->box_rows = rows;
        if (outer >= 0 && outer != kp->sg->loop_axis && output_axis(kp, outer) &&
            kp->g->axes[outer].extent < rows)
            b->box_rows = kp->g->axes[outer].extent;
        b->tx_bytes = b->written ? 0 : rows > 0 ? b->bytes / rows * b->box_rows : b->bytes;
    }
}

bool pt_kpass_buffers(pt_kprog *kp, const char *who, pt_error *err)
{
    if (!collect(kp, who, err) || !hold(kp, who, err) || !layout(kp, who, err))
        return false;
    boxes(kp);
    return true;
}

int pt_kprog_buf_of(const pt_kprog *kp, int tensor)
{
    for (int i = 0; i < kp->n_bufs; i++)
        if (kp->bufs[i].tensor == tensor)
            return i;
    return -1;
}
