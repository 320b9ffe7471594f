/* refcpu_decoding.cpp — FlashDecoding's two reference kernels (codegen/reference.c) run on the
 * CPU and checked against attention computed here in double precision, key by key:
 *   - each piece's log-sum-exp and partial output over its own keys (the last piece shorter
 *     where SPLITS does not divide S: graph.h, ragged pieces);
 *   - the combine of the pieces: attention over the whole sequence.
 * usage: refcpu_decoding B HKV G S SPLITS D SCALE. K and V are [B, HKV, S, D] whatever the pieces;
 * SCALE is the softmax's, as the graph gives it.
 * The partial's reference is linked with its names prefixed partial_, the combine's combine_
 * (test_refcpu_decoding.sh). Exit 0 when every element is within tolerance. */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "refcpu.h"

extern "C" int partial_reference_run(CUmodule mod, const CUdeviceptr *slots, CUstream stream);
extern "C" int combine_reference_run(CUmodule mod, const CUdeviceptr *slots, CUstream stream);
extern refcpu_module partial_module, combine_module;

static CUdeviceptr ptr(void *p)
{
    return (CUdeviceptr)(uintptr_t)p;
}

int main(int argc, char **argv)
{
    if (argc != 8) {
        std::fprintf(stderr, "usage: refcpu_decoding B HKV G S SPLITS D SCALE\n");
        return 2;
    }
    const long long B = atoll(argv[1]), H = atoll(argv[2]), G = atoll(argv[3]), S = atoll(argv[4]),
                    P = atoll(argv[5]), D = atoll(argv[6]), N = (S + P - 1) / P;
    const double scale = atof(argv[7]);
    /* the partial's tensors in graph order: Q, K, V, Sc, P, Opart, LSE */
    std::vector<__half> q(B * H * G * D), k(B * H * S * D), v(B * H * S * D);
    for (auto &x : q)
        x = __float2half(refcpu_uniform(-1, 1));
    for (auto &x : k)
        x = __float2half(refcpu_uniform(-1, 1));
    for (auto &x : v)
        x = __float2half(refcpu_uniform(-1, 1));
    std::vector<float> sc(B * H * P * G * N, NAN), pp(B * H * P * G * N, NAN),
        opart(B * H * P * G * D, NAN), lse(B * H * P * G, NAN);
    const CUdeviceptr ps[] = {ptr(q.data()), ptr(k.data()), ptr(v.data()), ptr(sc.data()),
                              ptr(pp.data()), ptr(opart.data()), ptr(lse.data())};
    if (partial_reference_run(&partial_module, ps, nullptr) != 0)
        return 1;
    /* the combine's: Opart, LSE, Mx, Dl, W, L, Ow, Os, O */
    std::vector<float> mx(B * H * G), dl(B * H * P * G), w(B * H * P * G), l(B * H * G),
        ow(B * H * P * G * D), os(B * H * G * D), o(B * H * G * D, NAN);
    const CUdeviceptr cs[] = {ptr(opart.data()), ptr(lse.data()), ptr(mx.data()), ptr(dl.data()),
                              ptr(w.data()),     ptr(l.data()),   ptr(ow.data()), ptr(os.data()),
                              ptr(o.data())};
    if (combine_reference_run(&combine_module, cs, nullptr) != 0)
        return 1;

    long long bad = 0, checked = 0;
    double worst = 0;
    auto check = [&](double got, double want, double tol, const char *what, long long at) {
        double err = std::fabs(got - want);
        checked++;
        if (!(err <= tol)) {
            if (bad++ < 10)
                std::printf("MISMATCH %s[%lld]: %.6g, expected %.6g\n", what, at, got, want);
        }
        worst = err > worst || std::isnan(err) ? err : worst;
    };
    for (long long bh = 0; bh < B * H; bh++)
        for (long long g = 0; g < G; g++) {
            const __half *qr = &q[(bh * G + g) * D];
            std::vector<double> s(S);
            for (long long n = 0; n < S; n++) {
                double dot = 0;
                for (long long d = 0; d < D; d++)
                    dot += (double)__half2float(qr[d]) * __half2float(k[(bh * S + n) * D + d]);
                s[n] = dot * scale;
            }
            std::vector<double> full(D, 0.0);
            double m_all = -INFINITY, l_all = 0;
            for (long long n = 0; n < S; n++)
                m_all = std::fmax(m_all, s[n]);
            for (long long p = 0; p < P; p++) {
                const long long n0 = p * N, n1 = n0 + N < S ? n0 + N : S;
                double m = -INFINITY, sum = 0;
                for (long long n = n0; n < n1; n++)
                    m = std::fmax(m, s[n]);
                std::vector<double> acc(D, 0.0);
                for (long long n = n0; n < n1; n++) {
                    const double e = std::exp(s[n] - m);
                    sum += e;
                    for (long long d = 0; d < D; d++)
                        acc[d] += e * __half2float(v[(bh * S + n) * D + d]);
                }
                const long long at = (bh * P + p) * G + g;
                check(lse[at], m + std::log(sum), 1e-4 * (1 + std::fabs(m)), "LSE", at);
                /* P is rounded to f16 before P.V (the reference's convention): 2^-11 of each */
                for (long long d = 0; d < D; d++)
                    check(opart[at * D + d], acc[d] / sum, 2e-3, "Opart", at * D + d);
            }
            for (long long n = 0; n < S; n++) {
                const double e = std::exp(s[n] - m_all);
                l_all += e;
                for (long long d = 0; d < D; d++)
                    full[d] += e * __half2float(v[(bh * S + n) * D + d]);
            }
            for (long long d = 0; d < D; d++) /* O is stored in f16: half an ulp, 2^-11 */
                check(o[(bh * G + g) * D + d], full[d] / l_all, 3e-3, "O", (bh * G + g) * D + d);
        }
    std::printf("%s: B %lld HKV %lld G %lld S %lld SPLITS %lld (pieces of %lld, the last %lld) D %lld: "
                "%lld of %lld elements off, largest difference %.3g\n",
                bad ? "FAIL" : "ok", B, H, G, S, P, N, S - (P - 1) * N, D, bad, checked, worst);
    return bad ? 1 : 0;
}
