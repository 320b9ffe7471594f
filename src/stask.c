/* stask.c — names of sEU kinds, sTask kinds and regions, and which sEU runs which kind. */
#include "stask.h"

#include <string.h>

static const char *const seu_names[PT_SEU_COUNT] = {"tma", "tensor_core", "cuda_core"};

static const struct {
    const char *name;
    pt_seu_kind seu;
} kinds[PT_ST_KIND_COUNT] = {
    [PT_ST_LOAD] = {"load", PT_SEU_TMA},
    [PT_ST_STORE] = {"store", PT_SEU_TMA},
    [PT_ST_MMA] = {"mma", PT_SEU_TENSOR_CORE},
    [PT_ST_SOFTMAX_MAX] = {"softmax_max", PT_SEU_CUDA_CORE},
    [PT_ST_SOFTMAX_EXP] = {"softmax_exp", PT_SEU_CUDA_CORE},
    [PT_ST_SOFTMAX_SUM] = {"softmax_sum", PT_SEU_CUDA_CORE},
    [PT_ST_RESCALE] = {"rescale", PT_SEU_CUDA_CORE},
    [PT_ST_NORMALIZE] = {"normalize", PT_SEU_CUDA_CORE},
    [PT_ST_ELEMENTWISE] = {"elementwise", PT_SEU_CUDA_CORE},
    [PT_ST_REDUCE] = {"reduce", PT_SEU_CUDA_CORE},
    [PT_ST_DEQUANT] = {"dequant", PT_SEU_CUDA_CORE},
    [PT_ST_CUMSUM] = {"cumsum", PT_SEU_CUDA_CORE},
    [PT_ST_EXP_DECAY] = {"exp_decay", PT_SEU_CUDA_CORE},
    [PT_ST_FILL] = {"fill", PT_SEU_CUDA_CORE},
    [PT_ST_CONVERT] = {"convert", PT_SEU_CUDA_CORE},
};

const char *pt_seu_name(pt_seu_kind k)
{
    return (unsigned)k < PT_SEU_COUNT ? seu_names[k] : "?";
}

bool pt_seu_parse(const char *s, pt_seu_kind *out)
{
    for (int i = 0; i < PT_SEU_COUNT; i++)
        if (strcmp(s, seu_names[i]) == 0) {
            *out = (pt_seu_kind)i;
            return true;
        }
    return false;
}

const char *pt_stask_kind_name(pt_stask_kind k)
{
    return (unsigned)k < PT_ST_KIND_COUNT ? kinds[k].name : "?";
}

bool pt_stask_kind_parse(const char *s, pt_stask_kind *out)
{
    for (int i = 0; i < PT_ST_KIND_COUNT; i++)
        if (strcmp(s, kinds[i].name) == 0) {
            *out = (pt_stask_kind)i;
            return true;
        }
    return false;
}

pt_seu_kind pt_stask_kind_seu(pt_stask_kind k)
{
    return (unsigned)k < PT_ST_KIND_COUNT ? kinds[k].seu : PT_SEU_CUDA_CORE;
}

const char *pt_region_name(pt_region r)
{
    switch (r) {
    case PT_REGION_PROLOGUE: return "prologue";
    case PT_REGION_BODY: return "body";
    case PT_REGION_EPILOGUE: return "epilogue";
    }
    return "?";
}

bool pt_stask_dequant_rows(const pt_stask_graph *sg, int s)
{
    if (!sg || !sg->tasks || s < 0 || s >= sg->n)
        return false;
    const pt_stask *t = &sg->tasks[s];
    if (t->kind != PT_ST_DEQUANT || sg->rows_axis < 0)
        return false;
    for (int i = 0; i < t->rank && i < PT_MAX_RANK; i++)
        if (t->axes[i] == sg->rows_axis)
            return true;
    return false;
}

bool pt_stask_writes_ring(const pt_stask_graph *sg, int s)
{
    if (!sg || !sg->tasks || s < 0 || s >= sg->n)
        return false;
    const pt_stask *t = &sg->tasks[s];
    if (t->kind != PT_ST_DEQUANT || t->region != PT_REGION_BODY || t->tensor < 0 ||
        pt_stask_dequant_rows(sg, s))
        return false;
    for (int r = 0; r < sg->n; r++) {
        const pt_stask *u = &sg->tasks[r];
        int nd = u->n_deps < 0 ? 0 : u->n_deps > PT_MAX_DEPS ? PT_MAX_DEPS : u->n_deps;
        for (int k = 0; k < nd && u->kind == PT_ST_MMA; k++)
            if (u->deps[k].from == s && u->deps[k].distance == 0)
                return true;
    }
    return false;
}

bool pt_stask_prologue_product(const pt_stask_graph *sg, int s)
{
    return sg && sg->tasks && s >= 0 && s < sg->n && sg->tasks[s].region == PT_REGION_PROLOGUE &&
           sg->tasks[s].kind == PT_ST_MMA;
}

bool pt_stask_fills_ring(const pt_stask_graph *sg, int s)
{
    if (!sg || !sg->tasks || s < 0 || s >= sg->n)
        return false;
    const pt_stask *t = &sg->tasks[s];
    return (t->kind == PT_ST_LOAD && t->buffered) || pt_stask_writes_ring(sg, s);
}
