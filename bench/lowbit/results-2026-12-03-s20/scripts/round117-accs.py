#!/usr/bin/env python3
"""Round 117 rewrite of a generated int4 bf16 fragments-packed register-form GEMM kernel:
the group scale moves from the operand to the accumulator. Each wgmma commit group (CH chunks
of 32 k, inside one scale group) accumulates into a fresh partial (scale-d 0 on its first
step) from the raw fragments 136 + n (shift and LOP3 only), plus a wgmma with the constant
fragment -136, so the partial is sum n*x exactly as products; two commit groups later (after
wait<1>) the partial times the row's scale is added into the accumulators."""
import sys
src, dst = sys.argv[1], sys.argv[2]
wait0 = len(sys.argv) > 3 and sys.argv[3] == 'wait0'
group = len(sys.argv) > 3 and sys.argv[3] == 'group'
k = open(src).read()
def rep(old, new, count=1):
    global k
    assert k.count(old) == count, (old, k.count(old))
    k = k.replace(old, new)
assert 'QKIND = pt::Quant::INT4' in k and 'using elem_t = __nv_bfloat16' in k
helpers = r'''
// accumulator-scale form (round 117 experiment)
__device__ __forceinline__ void wg_rs_z(float (&d)[ACC_N / 2], const uint32_t (&a)[4], uint64_t db, int accumulate)
{
    if constexpr (ACC_N == 8)
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %9, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, p, 1, 1, 0;\n}\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(accumulate));
    else
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %13, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7}, {%8, %9, %10, %11}, %12, p, 1, 1, 0;\n}\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(accumulate));
}
__device__ __forceinline__ void raw_frag_packed(const uint4 &v, int odd, uint32_t (&f)[2][4])
{
    const uint32_t w0 = odd ? v.z : v.x, w1 = odd ? v.w : v.y;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        f[j / 2][(j % 2) * 2] = pt::frag_pair_bits<elem_t, QKIND>(w0, j);
        f[j / 2][(j % 2) * 2 + 1] = pt::frag_pair_bits<elem_t, QKIND>(w1, j);
    }
}
__device__ __forceinline__ void apply_scale(float (&acc)[MREP][ACC_N / 2], const float (&tp)[MREP][ACC_N / 2],
                                            const float (&s)[MREP][2])
{
#pragma unroll
    for (int r = 0; r < MREP; ++r)
#pragma unroll
        for (int j = 0; j < ACC_N / 2; ++j)
            acc[r][j] = fmaf(s[r][(j % 4) / 2], tp[r][j], acc[r][j]);
}
'''
rep('// Output tile t -> (tile row, tile column)', helpers + '\n// Output tile t -> (tile row, tile column)')
rep('    float acc[MREP][ACC_N / 2];\n',
    '    float acc[MREP][ACC_N / 2];\n    float tmp[2][MREP][ACC_N / 2], sf[2][MREP][2];\n'
    '    const uint32_t KNEG[4] = {0xC308C308u, 0xC308C308u, 0xC308C308u, 0xC308C308u};  // bf16 -136\n'
    '    static_assert(QGROUP % (32 * CH) == 0 && (BK / 32 / CH) % 2 == 0, "commit groups in one scale group, even per block");\n')
rep('                pt::wgmma_wait<1>();  // the group that read this set is done\n',
    ('                pt::wgmma_wait<0>();\n' if wait0 else '                pt::wgmma_wait<1>();  // the group that read this set is done\n') +
    '                if (i > 0 || g >= 2)\n                    apply_scale(acc, tmp[g & 1], sf[g & 1]);\n')
old_call_start = k.index('                        pt::dequant_frag_packed<elem_t, QKIND>(')
old_call_end = k.index(';', old_call_start) + 1
k = k[:old_call_start] + '''                        raw_frag_packed(pk[(c + h) % LOOK / 2][r], (c + h) % 2, f[r][h]);
                #pragma unroll
                for (int r = 0; r < MREP; ++r) {
                    sf[g & 1][r][0] = __bfloat162float(sc[c % LOOK][r][0]);
                    sf[g & 1][r][1] = __bfloat162float(sc[c % LOOK][r][1]);
                }''' + k[old_call_end:]
rep('                    pt::keep_all(acc[r]);\n', '                    pt::keep_all(acc[r]), pt::keep_all(tmp[0][r]), pt::keep_all(tmp[1][r]);\n')
rep('                        wgmma_step(acc[r], f[r][t / 2][t % 2], db);\n',
    '                    {\n                        wg_rs_z(tmp[g & 1][r], f[r][t / 2][t % 2], db, t != 0);\n'
    '                        wg_rs_z(tmp[g & 1][r], KNEG, db, 1);\n                    }\n')
NI = 'n_iter' if 'if (lead && n_iter > 0) {' in k else 'K_ITERS'
k = k.replace('if (lead && K_ITERS > 0) {', 'if (lead && n_iter > 0) {') if NI == 'K_ITERS' else k
rep('        pt::wgmma_wait<0>();\n        if (lead && n_iter > 0) {\n',
    '        pt::wgmma_wait<0>();\n        if (' + NI + ' > 0) {\n            apply_scale(acc, tmp[0], sf[0]);\n            apply_scale(acc, tmp[1], sf[1]);\n        }\n        if (lead && ' + NI + ' > 0) {\n')
if group:
    k = k.replace('float tmp[2][MREP][ACC_N / 2], sf[2][MREP][2];', 'float tmp[1][MREP][ACC_N / 2], sf[1][MREP][2];\n    constexpr int AG = QGROUP / (32 * CH);  // commit groups per scale group\n    static_assert((BK / 32 / CH) % AG == 0, "whole scale groups per block");')
    k = k.replace('                pt::wgmma_wait<1>();  // the group that read this set is done\n                if (i > 0 || g >= 2)\n                    apply_scale(acc, tmp[g & 1], sf[g & 1]);\n',
                  '                if (g % AG == 0 && (i > 0 || g > 0)) {\n                    pt::wgmma_wait<0>();\n                    apply_scale(acc, tmp[0], sf[0]);\n                } else\n                    pt::wgmma_wait<1>();  // the group that read this set is done\n')
    k = k.replace('sf[g & 1][r][0] = __bfloat162float', 'sf[0][r][0] = __bfloat162float').replace('sf[g & 1][r][1] = __bfloat162float', 'sf[0][r][1] = __bfloat162float')
    k = k.replace('wg_rs_z(tmp[g & 1][r], f[r][t / 2][t % 2], db, t != 0);', 'wg_rs_z(tmp[0][r], f[r][t / 2][t % 2], db, t != 0 || g % AG != 0);')
    k = k.replace('wg_rs_z(tmp[g & 1][r], KNEG, db, 1);', 'wg_rs_z(tmp[0][r], KNEG, db, 1);')
    k = k.replace('pt::keep_all(tmp[0][r]), pt::keep_all(tmp[1][r]);', 'pt::keep_all(tmp[0][r]);')
    k = k.replace('            apply_scale(acc, tmp[0], sf[0]);\n            apply_scale(acc, tmp[1], sf[1]);\n', '            apply_scale(acc, tmp[0], sf[0]);\n')
    open(dst + '.dbg', 'w').write(k)
    assert 'tmp[1])' not in k and 'tmp[1][r]' not in k and 'tmp[g' not in k and 'sf[g' not in k
open(dst, 'w').write(k)
