"""fold_el.py BUNDLE — hand edit of a factored-decay ChunkScan bundle: the prologue's row scaling
y_inter = y_off * exp(dA_l) folded into the pivot. In the pivot's units (the row factor
exp(x_r - p)) the scaled accumulator is y_off * exp(p), one warp-uniform factor, so exp.e_l and
mul.y_inter go and the pivot multiplies by exp(p) (or, for a warp outside the factored range, by
exp(x_r) itself, which is what the two tasks did)."""
import re
import sys

d = sys.argv[1]
k = open(d + "/kernel.cu").read()
n0 = len(k)
k, a = re.subn(r"\n            \{   // exp\.e_l\.wg\d \(prologue\)\n(?:.*\n)*?            \}", "", k)
k, b = re.subn(r"\n            \{   // mul\.y_inter\.wg\d \(prologue\)\n(?:.*\n)*?            \}", "", k)
k, c = re.subn(r"pt::decay_pivot_make<elem_t>\(", "pt::decay_pivot_make_scaled<elem_t>(", k)
assert a == b == c and a > 0, (a, b, c)
open(d + "/kernel.cu", "w").write(k)
h = open(d + "/pt_ssd.cuh").read()
anchor = "// The accumulators back in their own units before the store"
add = '''// decay_pivot_make with the prologue's row scaling exp(x_r) folded in: in the row factor's
// units the scaled accumulator is acc exp(p); outside the factored range, acc exp(x_r).
template <typename T, int R, typename X>
__device__ __forceinline__ decay_pivot decay_pivot_make_scaled(const X &x, float (&acc)[R], int lane)
{
    constexpr float LOG2E = 1.4426950408889634f;
    decay_pivot f;
    const float x0 = a_at(x, 0, 0, lane), x1 = a_at(x, 0, 2, lane);
    f.owed = false;
    f.p = __shfl_sync(0xffffffffu, x0, 0);
    const float d0 = x0 - f.p, d1 = x1 - f.p;
    f.on = __all_sync(0xffffffffu, fabsf(d0) <= FACTORED_RANGE<T> && fabsf(d1) <= FACTORED_RANGE<T>);
    f.rf[0] = exp2_approx(d0 * LOG2E);
    f.rf[1] = exp2_approx(d1 * LOG2E);
    float s[2];
    if (f.on) {
        s[0] = s[1] = exp2_approx(f.p * LOG2E);
    } else {
        s[0] = __expf(x0);
        s[1] = __expf(x1);
    }
    acc_rows_op<Ew::MUL>(acc, s, lane);
    return f;
}

'''
assert anchor in h
h = h.replace(anchor, add + anchor, 1)
open(d + "/pt_ssd.cuh", "w").write(h)
print(f"{d}: folded ({a} warpgroups)")
