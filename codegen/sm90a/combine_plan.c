/* combine_plan.c — what the Hopper instructions need of FlashDecoding's combine (combine.h):
 * X [batch..., s, g] and Y [batch..., s, g, d] in f32, each tile's splits whole, its rows at
 * most 128 (a row's threads split its columns), boxes TMA can move (16-byte multiples: columns
 * in 32s; X's rows in fours when TMA loads X, i.e. when G is a multiple of 4 — otherwise the
 * warpgroup reads X itself). Refuses, in one line, what they cannot do. */
#include <stdio.h>
#include <string.h>

#include "combine.h"
#include "common.h"
#include "ir/combine.h"

#define REFUSE(...) return pt_fail(err, "codegen sm90a: " __VA_ARGS__)

bool sm90a_combine_matches(const pt_graph *g)
{
    return pt_kcombine_matches(g);
}

/* The graph read by the reading every target shares (ir/combine.c), then what TMA needs of
 * its strides. */
static bool plan_graph(sm90a_combine *c, pt_error *err)
{
    const pt_graph *g = c->g;
    pt_kcombine r;
    if (!pt_kcombine_read(&r, g, "sm90a", err))
        return false;
    c->X = r.X;
    c->Y = r.Y;
    c->O = r.O;
    c->ax_s = r.ax_s;
    c->ax_g = r.ax_g;
    c->ax_d = r.ax_d;
    c->B = r.B;
    c->S = r.S;
    c->G = r.G;
    c->D = r.D;
    c->out_dt = r.out_dt;
    const pt_tensor *O = &g->tensors[c->O];
    int esz = pt_dtype_bits(c->out_dt) / 8;
    /* X's rows along s are G x 4 bytes: a TMA stride only in 16-byte multiples (plan_tile also
     * sets it for tiles of rows not a multiple of 4) */
    c->x_plain = c->G % 4 != 0;
    if ((c->D * esz) % 16)
        REFUSE("%s = %lld: rows of \"%s\" must be a multiple of 16 bytes (TMA strides)",
               g->axes[c->ax_d].name, (long long)c->D, O->name);
    return true;
}

static bool plan_tile(sm90a_combine *c, pt_error *err)
{
    const pt_graph *g = c->g;
    const pt_kprog *kp = c->kp;
    const pt_tiling *t = &kp->sg->tiling;
    const pt_tensor *O = &g->tensors[c->O];
    for (int i = 0; i < O->rank - 2; i++)
        if (t->tile[O->axes[i]] != 1)
            REFUSE("tile %s = %lld; batch axes are tiled by 1", g->axes[O->axes[i]].name,
                   (long long)t->tile[O->axes[i]]);
    if (t->tile[c->ax_s] != c->S)
        REFUSE("tile %s = %lld; a tile takes every split (expected %lld)", g->axes[c->ax_s].name,
               (long long)t->tile[c->ax_s], (long long)c->S);
    if (c->S > 256)
        REFUSE("%s = %lld splits; at most 256 (Y's TMA box holds every split of a tile)",
               g->axes[c->ax_s].name, (long long)c->S);
    c->GT = t->tile[c->ax_g];
    c->DT = t->tile[c->ax_d];
    int64_t gmax = c->G < 128 ? c->G : 128;
    if (c->GT < 1 || c->GT > gmax)
        REFUSE("tile %s = %lld; expected 1 to %lld (at most %s = %lld rows, and 128: a row is at "
               "least one of the warpgroup's threads)", g->axes[c->ax_g].name, (long long)c->GT,
               (long long)gmax, g->axes[c->ax_g].name, (long long)c->G);
    /* a tile of fewer than 4 rows (or rows not a multiple of 4) makes X's box narrower than
     * TMA's 16 bytes: the warpgroup reads X itself, as it does where G is no TMA stride */
    if (c->GT % 4)
        c->x_plain = true;
    if (c->DT % 32 || c->DT > 256)
        REFUSE("tile %s = %lld; expected a multiple of 32 up to 256 (f32 rows of whole 128 bytes, "
               "a TMA box at most 256 wide)", g->axes[c->ax_d].name, (long long)c->DT);
    c->tpr = (int)(128 / c->GT);
    c->idle = 128 % c->GT != 0;
    /* Parts: where a row has at least twice as many threads as chunks of 4 columns, P threads
     * (a power of two) share a chunk's splits instead of one walking all S (the MQA combine of
     * 128 splits took about as long at 16 CTAs as at 128: the walk, not the reads). Only for
     * GT a power of two, so that a row's first P x NQ <= 32 threads lie in one warp for the
     * shuffles that put the parts together. */
    int nq = (int)(c->DT / 4), parts = c->tpr / nq;
    if (parts > 32 / nq)
        parts = 32 / nq;
    while (parts & (parts - 1))
        parts &= parts - 1;
    c->parts = !c->idle && (c->GT & (c->GT - 1)) == 0 && parts >= 2 ? parts : 1;
    if ((c->S + c->parts - 1) / c->parts > 128)
        REFUSE("%s = %lld splits over %d thread(s) a column chunk (tile %s = %lld, %s = %lld); a "
               "thread keeps one weight per split it walks in registers (at most 128)",
               g->axes[c->ax_s].name, (long long)c->S, c->parts, g->axes[c->ax_g].name,
               (long long)c->GT, g->axes[c->ax_d].name, (long long)c->DT);
    c->tiles_g = kp->sg->tile_grid[c->ax_g];
    c->tiles_d = kp->sg->tile_grid[c->ax_d];
    return true;
}

static bool plan_program(sm90a_combine *c, pt_error *err)
{
    const pt_kprog *kp = c->kp;
    if (kp->loop != PT_KLOOP_NONE || kp->wgs != 1)
        REFUSE("the combine is generated for one consumer warpgroup without a loop (%d "
               "warpgroups)", kp->wgs);
    if (kp->split_k > 1)
        REFUSE("partition.split_k = %d; the combine has no loop to split", kp->split_k);
    if (kp->store_wg >= 0)
        REFUSE("%s sits on a consumer's lane; the combine stores from the producer's",
               kp->sg->tasks[kp->store_stask].id);
    c->buf_x = pt_kprog_buf_of(kp, c->X);
    c->buf_y = pt_kprog_buf_of(kp, c->Y);
    if (c->buf_x < 0 || c->buf_y < 0 || kp->bufs[c->buf_x].kind != PT_KBUF_RESIDENT ||
        kp->bufs[c->buf_y].kind != PT_KBUF_RESIDENT)
        REFUSE("expected %s and %s loaded once per tile", c->g->tensors[c->X].name,
               c->g->tensors[c->Y].name);
    /* X read by the warpgroup is rewritten by it at every tile, while the store may still read
     * a tile staged over it */
    if (c->x_plain && kp->bufs[kp->staging].over == c->buf_x)
        REFUSE("the output is staged over \"%s\", which the warpgroup reads itself (%s = %lld is "
               "not a multiple of 4); stage it apart or over \"%s\" (partition.staging)",
               c->g->tensors[c->X].name, c->g->axes[c->ax_g].name, (long long)c->G,
               c->g->tensors[c->Y].name);
    if (!pt_kcombine_check_role(kp, c->O, "sm90a", "warpgroup 0", err))
        return false;
    const pt_krole *R = &kp->consumer[0];
    /* a thread's columns: whole chunks of 4 (pt_combine.cuh) */
    int sp = (int)((c->S + c->parts - 1) / c->parts);
    int cols = 4 * (int)((c->DT / 4 + c->tpr - 1) / c->tpr), need = sp + cols + 40;
    if (R->regs < need)
        REFUSE("consumer warpgroup 0 has %d registers per thread; %d split weights and %d "
               "columns need at least %d", R->regs, sp, cols, need);
    return true;
}

bool sm90a_combine_plan(sm90a_combine *c, const pt_kprog *kp, pt_error *err)
{
    memset(c, 0, sizeof *c);
    c->kp = kp;
    c->g = kp->g;
    if (!sm90a_one_resident_copy(kp, "combine", err) || !plan_graph(c, err) || !plan_tile(c, err) || !plan_program(c, err))
        return false;
    sm90a_shape *sh = &c->sh;
    sh->kp = kp;
    sh->plain = true;
    snprintf(sh->name[c->buf_x], sizeof sh->name[0], "x");
    snprintf(sh->name[c->buf_y], sizeof sh->name[0], "y");
    snprintf(sh->name[kp->staging], sizeof sh->name[0], "o");
    sh->by_pointer[c->buf_x] = c->x_plain;
    sh->box_batch[c->buf_y] = c->S; /* at most 256 (plan_tile): TMA's largest box side */
    return true;
}
