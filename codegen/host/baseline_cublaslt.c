/* baseline_cublaslt.c — the harness's vendor baseline for a GEMM graph: cuBLASLt computing
 * the same product on the same inputs, layouts and output dtype as the generated kernel.
 *
 * Linked only by 'make BASELINE=1' (the plain bundle needs nothing but nvcc). The algorithm is
 * chosen the way a tuned library user would: cuBLASLt's heuristic proposes its top candidates
 * for a 32 MiB workspace, each is timed as a CUDA graph of back-to-back launches, the fastest is
 * kept. The harness then checks and times it exactly as it times the kernel.
 * In PipeThreader's tree this is codegen/host/baseline_cublaslt.c. */
#include <cublasLt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pt_harness.h"

#define WORKSPACE_BYTES ((size_t)32 << 20) /* what NVIDIA recommends for Hopper */
#define MAX_CANDIDATES 8
#define TRIAL_LAUNCHES 10

static cublasLtHandle_t lt;
static cublasLtMatmulDesc_t op;
static cublasLtMatrixLayout_t lx, ly, ld;
static cublasLtMatmulAlgo_t algo;
static CUdeviceptr workspace;
static baseline_desc desc;
static char described[256];

static void *dptr(CUdeviceptr p)
{
    return (void *)(uintptr_t)p;
}

static int data_type(int dt, cudaDataType_t *out)
{
    switch (dt) {
    case DT_F16: *out = CUDA_R_16F; return 0;
    case DT_BF16: *out = CUDA_R_16BF; return 0;
    case DT_F32: *out = CUDA_R_32F; return 0;
    default: return -1;
    }
}

static int fail(char *why, size_t cap, const char *what, int status)
{
    snprintf(why, cap, "cuBLASLt: %s failed (status %d)", what, status);
    return -1;
}

/* One run with algorithm `a` (NULL: cuBLASLt's own choice). */
static cublasStatus_t run(const cublasLtMatmulAlgo_t *a, const CUdeviceptr *slots, CUstream stream)
{
    const float alpha = 1.0f, beta = 0.0f;
    void *d = dptr(slots[desc.d_slot]);
    return cublasLtMatmul(lt, op, &alpha, dptr(slots[desc.x_slot]), lx, dptr(slots[desc.y_slot]), ly,
                          &beta, d, ld, d, ld, a, dptr(workspace), WORKSPACE_BYTES,
                          (cudaStream_t)stream);
}

/* ms per launch of candidate `a`: a captured graph of TRIAL_LAUNCHES, replayed (twice: the
 * first replay warms up), so host dispatch does not decide which candidate wins. < 0: failed. */
static float trial(const cublasLtMatmulAlgo_t *a, const CUdeviceptr *slots, CUstream stream)
{
    CUgraph graph = NULL;
    CUgraphExec exec = NULL;
    if (cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_RELAXED) != CUDA_SUCCESS)
        return -1;
    bool ok = true;
    for (int i = 0; i < TRIAL_LAUNCHES && ok; i++)
        ok = run(a, slots, stream) == CUBLAS_STATUS_SUCCESS;
    ok = cuStreamEndCapture(stream, &graph) == CUDA_SUCCESS && ok && graph &&
         cuGraphInstantiate(&exec, graph, 0) == CUDA_SUCCESS;
    if (graph)
        cuGraphDestroy(graph);
    float ms = -1;
    CUevent e0 = NULL, e1 = NULL;
    if (ok && cuEventCreate(&e0, CU_EVENT_DEFAULT) == CUDA_SUCCESS &&
        cuEventCreate(&e1, CU_EVENT_DEFAULT) == CUDA_SUCCESS &&
        cuGraphLaunch(exec, stream) == CUDA_SUCCESS && cuEventRecord(e0, stream) == CUDA_SUCCESS &&
        cuGraphLaunch(exec, stream) == CUDA_SUCCESS && cuEventRecord(e1, stream) == CUDA_SUCCESS &&
        cuStreamSynchronize(stream) == CUDA_SUCCESS && cuEventElapsedTime(&ms, e0, e1) == CUDA_SUCCESS)
        ms /= TRIAL_LAUNCHES;
    else
        ms = -1;
    if (e0)
        cuEventDestroy(e0);
    if (e1)
        cuEventDestroy(e1);
    if (exec)
        cuGraphExecDestroy(exec);
    return ms;
}

static int algo_attr(const cublasLtMatmulAlgo_t *a, cublasLtMatmulAlgoConfigAttributes_t attr)
{
    int v = -1;
    size_t written = 0;
    if (cublasLtMatmulAlgoConfigGetAttribute(a, attr, &v, sizeof v, &written) != CUBLAS_STATUS_SUCCESS)
        return -1;
    return v;
}

int pt_baseline_init(const baseline_desc *d, const CUdeviceptr *slots, CUstream stream, char *why,
                     size_t why_cap)
{
    desc = *d;
    if (d->kind != BASELINE_GEMM) {
        snprintf(why, why_cap, "%s", d->why_none ? d->why_none : "no baseline for this graph");
        return -1;
    }
    cudaDataType_t tin, tout;
    if (data_type(d->in_dtype, &tin) != 0 || data_type(d->out_dtype, &tout) != 0) {
        snprintf(why, why_cap, "cuBLASLt baseline: only f16, bf16 and f32 tensors");
        return -1;
    }
    cublasStatus_t st;
    if ((st = cublasLtCreate(&lt)) != CUBLAS_STATUS_SUCCESS)
        return fail(why, why_cap, "cublasLtCreate", st);
    if ((st = cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F)) != CUBLAS_STATUS_SUCCESS)
        return fail(why, why_cap, "cublasLtMatmulDescCreate", st);
    cublasOperation_t tx = d->x_trans ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasOperation_t ty = d->y_trans ? CUBLAS_OP_T : CUBLAS_OP_N;
    if ((st = cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &tx, sizeof tx)) != 0 ||
        (st = cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &ty, sizeof ty)) != 0)
        return fail(why, why_cap, "cublasLtMatmulDescSetAttribute(TRANSA/B)", st);
    /* Stored shapes (column-major): op(X) is rows x depth, op(Y) depth x cols. */
    uint64_t xr = (uint64_t)(d->x_trans ? d->depth : d->rows), xc = (uint64_t)(d->x_trans ? d->rows : d->depth);
    uint64_t yr = (uint64_t)(d->y_trans ? d->cols : d->depth), yc = (uint64_t)(d->y_trans ? d->depth : d->cols);
    if ((st = cublasLtMatrixLayoutCreate(&lx, tin, xr, xc, d->ldx)) != 0 ||
        (st = cublasLtMatrixLayoutCreate(&ly, tin, yr, yc, d->ldy)) != 0 ||
        (st = cublasLtMatrixLayoutCreate(&ld, tout, (uint64_t)d->rows, (uint64_t)d->cols, d->ldd)) != 0)
        return fail(why, why_cap, "cublasLtMatrixLayoutCreate", st);
    CUresult cr = cuMemAlloc(&workspace, WORKSPACE_BYTES);
    if (cr != CUDA_SUCCESS) {
        snprintf(why, why_cap, "cuBLASLt baseline: cuMemAlloc(workspace) failed (code %d)", (int)cr);
        return -1;
    }
    cublasLtMatmulPreference_t pref;
    size_t ws = WORKSPACE_BYTES;
    if ((st = cublasLtMatmulPreferenceCreate(&pref)) != 0 ||
        (st = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                                   sizeof ws)) != 0)
        return fail(why, why_cap, "cublasLtMatmulPreference", st);
    cublasLtMatmulHeuristicResult_t cand[MAX_CANDIDATES];
    int n = 0;
    st = cublasLtMatmulAlgoGetHeuristic(lt, op, lx, ly, ld, ld, pref, MAX_CANDIDATES, cand, &n);
    cublasLtMatmulPreferenceDestroy(pref);
    if (st != CUBLAS_STATUS_SUCCESS || n == 0)
        return fail(why, why_cap, "cublasLtMatmulAlgoGetHeuristic (no algorithm)", st);
    int best = -1, tried = 0;
    float best_ms = 0;
    for (int i = 0; i < n; i++) {
        if (cand[i].state != CUBLAS_STATUS_SUCCESS)
            continue;
        float ms = trial(&cand[i].algo, slots, stream);
        tried++;
        if (ms > 0 && (best < 0 || ms < best_ms)) {
            best = i;
            best_ms = ms;
        }
    }
    if (best < 0) {
        snprintf(why, why_cap, "cuBLASLt: none of the %d heuristic candidates ran", n);
        return -1;
    }
    algo = cand[best].algo;
    snprintf(described, sizeof described,
             "cuBLASLt %zu, algo %d tile %d stages %d split-k %d (fastest of %d heuristic "
             "candidates, rank %d)",
             cublasLtGetVersion(), algo_attr(&algo, CUBLASLT_ALGO_CONFIG_ID),
             algo_attr(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID), algo_attr(&algo, CUBLASLT_ALGO_CONFIG_STAGES_ID),
             algo_attr(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM), tried, best + 1);
    return 0;
}

int pt_baseline_launch(const CUdeviceptr *slots, CUstream stream)
{
    return run(&algo, slots, stream) == CUBLAS_STATUS_SUCCESS ? 0 : (int)CUDA_ERROR_LAUNCH_FAILED;
}

const char *pt_baseline_describe(void)
{
    return described;
}

void pt_baseline_fini(void)
{
    cublasLtMatrixLayoutDestroy(lx);
    cublasLtMatrixLayoutDestroy(ly);
    cublasLtMatrixLayoutDestroy(ld);
    cublasLtMatmulDescDestroy(op);
    cublasLtDestroy(lt);
    cuMemFree(workspace);
}
