/* combine_plan.c — what the gfx942 kernel needs of FlashDecoding's combine (combine.h): X
 * [batch..., s, g] and Y [batch..., s, g, d] in f32 (the shared reading, ir/combine.c), batch
 * axes tiled by 1, every split in the tile, at most one tile row per work-item of the role's
 * two waves (any row count: rows past g are not stored, so g need not be a multiple of
 * anything), head dims in 16-byte chunks (d and the tile's columns multiples of 4), one
 * consumer role running the six combine sTasks then the output's, and the VGPRs that hold a
 * work-item's chunks of every split. Refuses, in one line naming the field, what it cannot do. */
#include <stdio.h>
#include <string.h>

#include "combine.h"

#define REFUSE(...) return pt_fail(err, "codegen gfx942: " __VA_ARGS__)

/* Arch VGPRs per lane on CDNA3: the other 256 of a wave's 512 are AccVGPRs, which the combine
 * (no MFMA) does not compute in. */
#define ARCH_VGPRS 256

static bool plan_tile(gfx942_combine *cb, pt_error *err)
{
    const pt_graph *g = cb->g;
    const pt_kcombine *c = &cb->c;
    const pt_tiling *t = &cb->kp->sg->tiling;
    const pt_tensor *O = &g->tensors[c->O];
    for (int i = 0; i < O->rank - 2; i++)
        if (t->tile[O->axes[i]] != 1)
            REFUSE("tile %s = %lld; batch axes are tiled by 1", g->axes[O->axes[i]].name,
                   (long long)t->tile[O->axes[i]]);
    if (t->tile[c->ax_s] != c->S)
        REFUSE("tile %s = %lld; a tile takes every split (expected %lld)", g->axes[c->ax_s].name,
               (long long)t->tile[c->ax_s], (long long)c->S);
    if (c->D % 4)
        REFUSE("axis %s = %lld; rows of \"%s\" and \"%s\" are read and written in 16-byte chunks "
               "of 4 f32 (expected a multiple of 4)", g->axes[c->ax_d].name, (long long)c->D,
               g->tensors[c->Y].name, O->name);
    cb->threads = 128;
    cb->GT = t->tile[c->ax_g];
    cb->DT = t->tile[c->ax_d];
    if (cb->GT < 1 || cb->GT > cb->threads)
        REFUSE("tile %s = %lld; a work-item takes one row of the tile: 1 to %d rows (the "
               "role's two waves)", g->axes[c->ax_g].name, (long long)cb->GT, cb->threads);
    if (cb->DT < 4 || cb->DT % 4)
        REFUSE("tile %s = %lld; expected a multiple of 4 (16-byte chunks of f32 columns)",
               g->axes[c->ax_d].name, (long long)cb->DT);
    cb->tpr = (int)(cb->threads / cb->GT);
    cb->chunks = (int)(cb->DT / 4);
    cb->cols = (cb->chunks + cb->tpr - 1) / cb->tpr;
    cb->tiles_g = cb->kp->sg->tile_grid[c->ax_g];
    cb->tiles_d = cb->kp->sg->tile_grid[c->ax_d];
    if (c->B * c->S * c->G * c->D > INT32_MAX * 64LL)
        REFUSE("\"%s\" has more than 2^37 elements", g->tensors[c->Y].name);
    return true;
}

/* One consumer role without a loop; X and Y loaded once per tile; the six combine sTasks, then
 * the output's (lane order is a topological order: the validator proved it). */
static bool plan_program(gfx942_combine *cb, pt_error *err)
{
    const pt_kprog *kp = cb->kp;
    const pt_graph *g = cb->g;
    if (kp->loop != PT_KLOOP_NONE || kp->wgs != 1)
        REFUSE("warpgroups = %d; the combine is generated for one consumer role (two waves) "
               "without a loop", kp->wgs);
    if (kp->split_k > 1)
        REFUSE("partition.split_k = %d; the combine has no loop to split", kp->split_k);
    cb->buf_x = pt_kprog_buf_of(kp, cb->c.X);
    cb->buf_y = pt_kprog_buf_of(kp, cb->c.Y);
    if (cb->buf_x < 0 || cb->buf_y < 0 || kp->bufs[cb->buf_x].kind != PT_KBUF_RESIDENT ||
        kp->bufs[cb->buf_y].kind != PT_KBUF_RESIDENT)
        REFUSE("expected %s and %s loaded once per tile", g->tensors[cb->c.X].name,
               g->tensors[cb->c.Y].name);
    if (kp->lane_load < 0 || kp->store_wg >= 0)
        REFUSE("%s sits on a consumer's lane; gfx942 prints the producer lane's order (loads, "
               "then the store)", kp->sg->tasks[kp->store_stask].id);
    return pt_kcombine_check_role(kp, cb->c.O, "gfx942", "role wg0", err);
}

/* VGPRs per lane: the work-item's chunks of every split (4 per chunk), the weights, the column
 * sums, about 24 for addresses and indices. */
static bool plan_registers(gfx942_combine *cb, pt_error *err)
{
    const pt_kprog *kp = cb->kp;
    int64_t y = 4LL * cb->c.S * cb->cols;
    int64_t need = y + cb->c.S + 4LL * cb->cols + 24;
    cb->vgpr_estimate = (int)(need < INT32_MAX ? need : INT32_MAX);
    int budget = kp->consumer[0].regs < ARCH_VGPRS ? kp->consumer[0].regs : ARCH_VGPRS;
    if (need > budget && cb->cols > 1)
        REFUSE("roles[wg0].regs: a work-item holds %lld splits x %d chunks of \"%s\" (%lld VGPRs) "
               "and needs about %lld; the program grants %d and a lane has %d arch VGPRs: use a "
               "smaller tile %s or fewer tile rows (fewer chunks a work-item)", (long long)cb->c.S,
               cb->cols, cb->g->tensors[cb->c.Y].name, (long long)y, (long long)need,
               kp->consumer[0].regs, ARCH_VGPRS, cb->g->axes[cb->c.ax_d].name);
    if (need > budget)
        REFUSE("roles[wg0].regs: a work-item holds one chunk of \"%s\" in each of %s = %lld splits "
               "(%lld VGPRs) and needs about %lld; the program grants %d and a lane has %d arch "
               "VGPRs: at most %d splits are generated", cb->g->tensors[cb->c.Y].name,
               cb->g->axes[cb->c.ax_s].name, (long long)cb->c.S, (long long)y, (long long)need,
               kp->consumer[0].regs, ARCH_VGPRS, (budget - 28) / 5);
    return true;
}

bool gfx942_combine_plan(gfx942_combine *cb, const pt_kprog *kp, pt_error *err)
{
    memset(cb, 0, sizeof *cb);
    cb->kp = kp;
    cb->g = kp->g;
    return pt_kcombine_read(&cb->c, cb->g, "gfx942", err) && plan_tile(cb, err) &&
           plan_program(cb, err) && plan_registers(cb, err);
}
