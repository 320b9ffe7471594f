/* harness_host_check.c — runs the bundle harness's host-side input generation and checking
 * (codegen/host/harness.c, included whole with its main renamed) without a GPU, for
 * test_harness_host.sh: the inputs must not depend on the number of threads (OpenMP) and must
 * stay the seeded stream earlier bundles drew, compare() must count every mismatch, and
 * --range must draw a named input from its range and refuse what is not an input's range. */
#define main harness_main
#include "harness.c"
#undef main

int pt_kernel_launch(CUmodule m, const CUdeviceptr *s, CUstream st)
{
    (void)m, (void)s, (void)st;
    return 1;
}

int pt_reference_run(CUmodule m, const CUdeviceptr *s, CUstream st)
{
    (void)m, (void)s, (void)st;
    return 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "compare") == 0) {
        /* 1000 f32 outputs, 7 of them wrong, one NaN: 8 mismatches, not finite. */
        tensor_info t = {"c", DT_F32, ROLE_OUTPUT, -1, 0, 1000, 1, {"a"}, {1000}, 1e-3, 1e-3};
        static float ref[1000], out[1000];
        for (int i = 0; i < 1000; i++)
            ref[i] = out[i] = (float)i * 0.25f;
        for (int i = 0; i < 7; i++)
            out[100 * i + 3] += 1.0f;
        out[999] = NAN;
        check_result r = {0, 0, 0, 0.0, 0.0, 0.0, true};
        json_only = true;
        compare(&t, ref, out, 1e-3, 1e-3, &r);
        printf("%lld %lld %d %.3f\n", r.mismatches, r.elements, r.finite ? 1 : 0, r.max_abs);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "range") == 0) {
        /* The bundle's first input A drawn from [-30, 30): every value in range, both ends
         * nearly reached; bad --range values refused; one more "ok" line per check. */
        const int a = 0;
        if (!parse_range("A=-30:30"))
            return 1;
        tensor_info t = TENSORS[a];
        t.elems = 100000;
        t.dtype = DT_F32;
        static float v[100000];
        fill_random(v, &t, a, 1234);
        float lo = v[0], hi = v[0];
        for (int i = 1; i < 100000; i++) {
            lo = v[i] < lo ? v[i] : lo;
            hi = v[i] > hi ? v[i] : hi;
        }
        printf("%s drawn in [%.0f, %.0f]\n", lo >= -30.f && hi < 30.f && lo < -29.f && hi > 29.f ? "ok" : "FAIL", lo, hi);
        const char *bad[] = {"A", "=1:2", "nope=1:2", "C=1:2", "A=2:1", "A=1", "A=1:x", "A=nan:1"};
        for (int i = 0; i < 8; i++)
            printf("%s refused %s\n", parse_range(bad[i]) ? "FAIL" : "ok", bad[i]);
        /* --cumsum A=-2:0 over rows of 256: each row falls from its first draw in steps of
         * [-2, 0), rows start afresh */
        n_input_ranges = 0;
        if (!parse_input_range("--cumsum", "A=-2:-0.5", true))
            return 1;
        t.rank = 2;
        t.extent[0] = 100000 / 250;
        t.extent[1] = 250;
        fill_random(v, &t, a, 1234);
        bool falls = true;
        for (int i = 0; i < 100000; i++) {
            float step = i % 250 ? v[i] - v[i - 1] : v[i];
            falls &= step >= -2.001f && step < -0.499f;
        }
        printf("%s cumsum rows fall in steps of [-2, -0.5) (row 0 ends at %.1f)\n",
               falls && v[249] < -124.f && v[249] > -500.f ? "ok" : "FAIL", v[249]);
        /* a decay's exponent (init 2) by default: rows fall in steps of [-0.02, 0); named by
         * --range it is drawn uniformly again */
        n_input_ranges = 0;
        t.init = 2;
        fill_random(v, &t, a, 1234);
        bool decays = true;
        for (int i = 0; i < 100000; i++) {
            float step = i % 250 ? v[i] - v[i - 1] : v[i];
            decays &= step >= -0.0201f && step <= 0.f;
        }
        printf("%s a decay exponent's rows fall in steps of [-0.02, 0) (row 0 ends at %.2f)\n",
               decays && v[249] < -1.f && v[249] > -5.f ? "ok" : "FAIL", v[249]);
        if (!parse_range("A=-1:1"))
            return 1;
        fill_random(v, &t, a, 1234);
        int rises = 0;
        for (int i = 1; i < 250; i++)
            rises += v[i] > v[i - 1];
        printf("%s --range draws a decay exponent uniformly (%d rises in a row of 250)\n",
               rises > 50 ? "ok" : "FAIL", rises);
        return 0;
    }
    /* Every input dtype, an odd element count (a half-filled last 4-bit byte). */
    tensor_info t = {"x", DT_F16, ROLE_INPUT, -1, 0, 1000001, 1, {"a"}, {1000001}, 0, 0};
    const int dts[] = {DT_F16, DT_BF16, DT_F32, DT_FP8_E4M3, DT_INT4};
    for (int i = 0; i < 5; i++) {
        t.dtype = dts[i];
        t.init = i == 2; /* group scales */
        void *b = calloc(4, (size_t)t.elems);
        fill_random(b, &t, 3, 1234);
        fwrite(b, 1, dtype_bytes(t.dtype, t.elems), stdout);
        free(b);
    }
    return 0;
}
