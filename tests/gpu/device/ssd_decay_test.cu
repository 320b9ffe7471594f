// ssd_decay_test.cu — checks pt::atile_exp_decay (codegen/device/pt_ssd.cuh) against
// exp(x[row] - y[col]) computed in double, on every element: seeded random row and column
// vectors at several scales, so both the factored form (small steps within a k block, as
// Mamba2's cumulative decays have) and the direct form it falls back to (steep steps, wide
// values, non-finite inputs) run; causal and not, blocks before, across and past the diagonal.
// One warpgroup per case; exit status 0 when every element is within tolerance.
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "pt_device.cuh"
#include "pt_ssd.cuh"

constexpr int KS = 4, BK = 16 * KS, ROWS = 64;

// out[r][c] for this warpgroup's 64 rows and the k block's BK columns.
template <bool CAUSAL>
__global__ void decay_kernel(const float *x, const float *y, int row0, int col0, float *out)
{
    __shared__ float ys[BK];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    if (tid < BK)
        ys[tid] = y[tid];
    __syncthreads();
    const int r = warp * 16 + lane / 4;
    const float xr[2] = {x[r], x[r + 8]};
    float tile[KS][8];
    pt::atile_exp_decay<CAUSAL>(tile, xr, static_cast<const float *>(ys), row0 + warp * 16, col0,
                                lane);
    const int t = lane % 4;
    for (int kk = 0; kk < KS; ++kk)
        for (int e = 0; e < 8; ++e) {
            const int row = warp * 16 + lane / 4 + 8 * ((e >> 1) & 1);
            const int col = 16 * kk + 2 * t + (e & 1) + 8 * (e >> 2);
            out[row * BK + col] = tile[kk][e];
        }
}

static unsigned long long rng = 0x9e3779b97f4a7c15ull;
static double uniform(double lo, double hi)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return lo + (hi - lo) * (double)(rng >> 11) / 9007199254740992.0;
}

#define CK(x)                                                                                    \
    do {                                                                                         \
        cudaError_t e_ = (x);                                                                    \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                             \
            exit(2);                                                                             \
        }                                                                                        \
    } while (0)

static double finite_abs(float v)
{
    return std::isfinite(v) ? fabs((double)v) : 0.0;
}

// One case: returns the number of elements outside tolerance.
static long run_case(const char *name, bool causal, const std::vector<float> &x,
                     const std::vector<float> &y, int row0, int col0)
{
    float *dx, *dy, *dout;
    CK(cudaMalloc(&dx, ROWS * sizeof(float)));
    CK(cudaMalloc(&dy, BK * sizeof(float)));
    CK(cudaMalloc(&dout, ROWS * BK * sizeof(float)));
    CK(cudaMemcpy(dx, x.data(), ROWS * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dy, y.data(), BK * sizeof(float), cudaMemcpyHostToDevice));
    if (causal)
        decay_kernel<true><<<1, 128>>>(dx, dy, row0, col0, dout);
    else
        decay_kernel<false><<<1, 128>>>(dx, dy, row0, col0, dout);
    CK(cudaGetLastError());
    std::vector<float> out(ROWS * BK);
    CK(cudaMemcpy(out.data(), dout, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    long bad = 0;
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < BK; c++) {
            const bool masked = causal && col0 + c > row0 + r;
            double ref = masked ? 0.0 : exp((double)x[r] - (double)y[c]);
            // past f32's largest finite value the f32 result is inf (exp(x - y) does the same)
            if (ref > (double)FLT_MAX)
                ref = INFINITY;
            const double o = out[r * BK + c];
            // ex2.approx (a few ulp) and the f32 exponents, each rounded to about 2^-24 of the
            // values it is formed from (x, y and the pivot y[0]); a factor that flushes to zero
            // stands for a product below e^-47
            const double rel = 4e-6 + 3e-7 * (finite_abs(x[r]) + finite_abs(y[c]) + finite_abs(y[0]));
            // (within tolerance of f32's largest value, rounding may give inf)
            const bool ok = (std::isnan(ref) && std::isnan(o)) || (std::isinf(ref) && o == ref) ||
                            fabs(o - ref) <= rel * fabs(ref) + 1e-20 ||
                            (o == INFINITY && ref >= (double)FLT_MAX * (1 - rel));
            if (!ok && bad++ < 3)
                printf("  %s: row %d col %d: got %.9g, expected %.9g (x %.9g, y %.9g)\n", name,
                       row0 + r, col0 + c, o, ref, x[r], y[c]);
        }
    printf("%s %s: %ld of %d elements outside tolerance\n", bad ? "FAIL" : "ok  ", name, bad,
           ROWS * BK);
    CK(cudaFree(dx));
    CK(cudaFree(dy));
    CK(cudaFree(dout));
    return bad;
}

int main()
{
    long bad = 0;
    // (name, causal, row step range, row0, col0, flavour)
    for (int rep = 0; rep < 4; rep++) {
        for (int causal = 0; causal < 2; causal++) {
            // cumulative decays along the chunk: x[r] = a(row0 + r), y[c] = a(col0 + c)
            for (double step : {0.01, 0.3, 1.5}) {
                const int row0 = 64 * (rep % 2 + 1), col0 = 64 * (rep / 2 + (causal ? 1 : 0));
                std::vector<double> a(512);
                double s = uniform(-50, 50);
                for (int i = 0; i < 512; i++)
                    a[i] = (s -= uniform(0, step));
                std::vector<float> x(ROWS), y(BK);
                for (int r = 0; r < ROWS; r++)
                    x[r] = (float)a[row0 + r];
                for (int c = 0; c < BK; c++)
                    y[c] = (float)a[col0 + c];
                char name[96];
                snprintf(name, sizeof name, "cumulative step<=%.2f causal=%d row0=%d col0=%d", step,
                         causal, row0, col0);
                bad += run_case(name, causal, x, y, row0, col0);
            }
            // unordered values, narrow and wide
            for (double w : {1.0, 30.0, 100.0}) {
                std::vector<float> x(ROWS), y(BK);
                for (auto &v : x)
                    v = (float)uniform(-w, w);
                for (auto &v : y)
                    v = (float)uniform(-w, w);
                char name[96];
                snprintf(name, sizeof name, "random +-%g causal=%d", w, causal);
                bad += run_case(name, causal, x, y, 0, 0);
            }
        }
    }
    // non-finite inputs: NaN and infinities in a row, a column and the pivot column
    {
        std::vector<float> x(ROWS), y(BK);
        for (auto &v : x)
            v = (float)uniform(-1, 0);
        for (auto &v : y)
            v = (float)uniform(-1, 0);
        x[5] = NAN, x[20] = -INFINITY, y[9] = NAN, y[33] = INFINITY;
        bad += run_case("non-finite row and column", false, x, y, 0, 0);
        y[0] = -INFINITY;
        bad += run_case("infinite pivot", false, x, y, 0, 0);
        y[0] = NAN;
        bad += run_case("NaN pivot", true, x, y, 64, 0);
    }
    printf("%s\n", bad ? "FAILED" : "all elements within tolerance");
    return bad ? 1 : 0;
}
