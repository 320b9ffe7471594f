/* harness_host_check.c — runs the bundle harness's host-side input generation and checking
 * (codegen/host/harness.c, included whole with its main renamed) without a GPU, for
 * test_harness_host.sh: the inputs must not depend on the number of threads (OpenMP) and must
 * stay the seeded stream earlier bundles drew, and compare() must count every mismatch. */
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
    /* Every input dtype, an odd element count (a half-filled last 4-bit byte). */
    tensor_info t = {"x", DT_F16, ROLE_INPUT, -1, 0, 1000001, 1, {"a"}, {1000001}, 0, 0};
    const int dts[] = {DT_F16, DT_BF16, DT_F32, DT_FP8_E4M3, DT_INT4};
    for (int i = 0; i < 5; i++) {
        t.dtype = dts[i];
        t.is_scales = i == 2;
        void *b = calloc(4, (size_t)t.elems);
        fill_random(b, &t, 3, 1234);
        fwrite(b, 1, dtype_bytes(t.dtype, t.elems), stdout);
        free(b);
    }
    return 0;
}
