/* hand_gemm.h — a hand-made GEMM sTask-graph (C[m,n] = A[m,k] B[k,n], loop over k) and a
 * round-number hardware model, shared by the sProgram and validation tests so that they do not
 * depend on the partitioner or the shipped hardware numbers. */
#ifndef HAND_GEMM_H
#define HAND_GEMM_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sprogram.h"

static pt_graph hand_g;

static void hand_graph_init(void)
{
    memset(&hand_g, 0, sizeof hand_g);
    snprintf(hand_g.name, sizeof hand_g.name, "hand_gemm");
    const char *axes[] = {"m", "n", "k"};
    int64_t ext[] = {1024, 1024, 512};
    for (int a = 0; a < 3; a++) {
        snprintf(hand_g.axes[a].name, PT_NAME_MAX, "%s", axes[a]);
        hand_g.axes[a].extent = ext[a];
    }
    hand_g.n_axes = 3;
    const char *tn[] = {"A", "B", "C"};
    int ta[3][2] = {{0, 2}, {2, 1}, {0, 1}};
    for (int t = 0; t < 3; t++) {
        pt_tensor *x = &hand_g.tensors[t];
        snprintf(x->name, PT_NAME_MAX, "%s", tn[t]);
        x->rank = 2;
        x->axes[0] = ta[t][0];
        x->axes[1] = ta[t][1];
        x->dtype = PT_F16;
        x->role = t == 2 ? PT_ROLE_OUTPUT : PT_ROLE_INPUT;
        x->view_of = x->scales = x->group_axis = -1;
    }
    hand_g.n_tensors = 3;
    hand_g.n_ops = 1;
    hand_g.ops[0].kind = PT_OP_MATMUL;
    hand_g.ops[0].acc = PT_F32;
    hand_g.default_stages = 3;
}

static int add(pt_stask_graph *sg, const char *id, pt_stask_kind kind, pt_seu_kind seu,
               pt_region region, int tensor, int wg, int64_t t0, int64_t t1)
{
    pt_stask *t = &sg->tasks[sg->n];
    memset(t, 0, sizeof *t);
    snprintf(t->id, sizeof t->id, "%s", id);
    t->kind = kind;
    t->seu = seu;
    t->region = region;
    t->tensor = tensor;
    t->wg = wg;
    t->op = kind == PT_ST_MMA ? 0 : -1;
    t->rank = 2;
    t->tile[0] = t0;
    t->tile[1] = t1;
    t->dtype = PT_F16;
    t->buffered = kind == PT_ST_LOAD && region == PT_REGION_BODY;
    return sg->n++;
}

static void dep(pt_stask_graph *sg, int to, int from, int distance)
{
    pt_stask *t = &sg->tasks[to];
    t->deps[t->n_deps++] = (pt_dep){from, distance};
}

/* wgs consumer warpgroups (1 or 2), each with its own mma and convert. */
static void hand_graph(pt_stask_graph *sg, int wgs)
{
    hand_graph_init();
    memset(sg, 0, sizeof *sg);
    sg->graph = &hand_g;
    sg->tasks = calloc(16, sizeof *sg->tasks);
    sg->tiling.tile[0] = 128;
    sg->tiling.tile[1] = 128;
    sg->tiling.tile[2] = 64;
    sg->tiling.warpgroups = wgs;
    sg->loop_axis = 2;
    sg->iterations = 8;
    sg->split_axis = wgs > 1 ? 0 : -1;
    sg->causal_op = -1;
    int a = add(sg, "load.A", PT_ST_LOAD, PT_SEU_TMA, PT_REGION_BODY, 0, -1, 128, 64);
    int b = add(sg, "load.B", PT_ST_LOAD, PT_SEU_TMA, PT_REGION_BODY, 1, -1, 64, 128);
    int mma[2], cvt[2];
    char id[64];
    for (int w = 0; w < wgs; w++) {
        snprintf(id, sizeof id, "mma.C.wg%d", w);
        mma[w] = add(sg, id, PT_ST_MMA, PT_SEU_TENSOR_CORE, PT_REGION_BODY, 2, w, 128 / wgs, 128);
        dep(sg, mma[w], a, 0);
        dep(sg, mma[w], b, 0);
        dep(sg, mma[w], mma[w], 1);
    }
    for (int w = 0; w < wgs; w++) {
        snprintf(id, sizeof id, "convert.C.wg%d", w);
        cvt[w] = add(sg, id, PT_ST_CONVERT, PT_SEU_CUDA_CORE, PT_REGION_EPILOGUE, 2, w, 128 / wgs,
                     128);
        dep(sg, cvt[w], mma[w], 0);
    }
    int st = add(sg, "store.C", PT_ST_STORE, PT_SEU_TMA, PT_REGION_EPILOGUE, 2, -1, 128, 128);
    for (int w = 0; w < wgs; w++)
        dep(sg, st, cvt[w], 0);
}

static void hand_hw(pt_hw *hw)
{
    memset(hw, 0, sizeof *hw);
    snprintf(hw->name, sizeof hw->name, "TestGPU");
    hw->smem_per_block = 232448;
    hw->smem_per_eu = 233472;
    hw->regs_per_eu = 65536;
    hw->max_regs_per_thread = 255;
    hw->min_regs_per_thread = 24;
}


#endif
