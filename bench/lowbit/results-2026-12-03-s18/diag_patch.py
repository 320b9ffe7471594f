#!/usr/bin/env python3
"""Diagnostic rewrites of a generated register-form low-bit kernel.cu (timing only, wrong
results): mode 1 lean unpacking (one LOP3 per pair, a shift per two), 2 = 1 + a constant
wgmma per k16 step, 3 = 1 + per-group accumulators folded with the scale, 4 = 3 + 2."""
import re, sys
src, mode, dst = sys.argv[1], int(sys.argv[2]), sys.argv[3]
k = open(src).read()
step = 'wgmma_step(acc[r], f[r][t / 2][t % 2], db);'
if mode in (5, 6):
    # two accumulators: k16 steps alternate, so a group's wgmmas do not chain on one register set
    k = k.replace('    float acc[MREP][ACC_N / 2];', '    float acc[MREP][ACC_N / 2], acc2[MREP][ACC_N / 2];', 1)
    k = k.replace('                acc[r][j] = 0.f;', '                acc[r][j] = acc2[r][j] = 0.f;', 1)
    k = k.replace('pt::keep_all(acc[r]);', '{ pt::keep_all(acc[r]); pt::keep_all(acc2[r]); }', 1)
    k = k.replace(step, '{ if (t % 2) wgmma_step(acc2[r], f[r][t / 2][t % 2], db); else wgmma_step(acc[r], f[r][t / 2][t % 2], db); }')
    k = k.replace('        pt::wgmma_wait<0>();\n', '''        pt::wgmma_wait<0>();
        #pragma unroll
        for (int r = 0; r < MREP; ++r)
            #pragma unroll
            for (int j = 0; j < ACC_N / 2; ++j)
                acc[r][j] += acc2[r][j];
''', 1)
    if mode == 5:
        open(dst, 'w').write(k); sys.exit(0)
if mode in (12, 13):
    # E1: scale columns from one per-block column (chunks of one group share loads);
    # E2: one descriptor per stage, the k16 steps by adding their offset >> 4
    old = 'const int col = (kbase + (c + j) * 32) / QGROUP - g0;'
    assert old in k
    k = k.replace(old, 'const int col = SCALE_STATIC ? bcol + (QGROUP % BK == 0 ? 0 : (c + j) * 32 / QGROUP) : (kbase + (c + j) * 32) / QGROUP - g0;')
    old = 'const int kbase = (k0 + i) * BK, g0 = pt::scale_col0<QGROUP>(kbase);'
    if old not in k:
        old = 'const int kbase = i * BK, g0 = pt::scale_col0<QGROUP>(kbase);'
    assert old in k
    k = k.replace(old, old + '\n            constexpr bool SCALE_STATIC = QGROUP % BK == 0 || BK % QGROUP == 0;\n            const int bcol = kbase / QGROUP - g0;')
    old = 'const uint64_t db = pt::desc_sw128(a + (kk / 4) * (BM * 128) + (kk % 4) * 32, 16, 1024);'
    assert old in k
    k = k.replace(old, 'const uint64_t db = da0 + (uint64_t)(((kk / 4) * (BM * 128) + (kk % 4) * 32) >> 4);')
    k = k.replace('const uint8_t *a = ring_a + sa * A_PITCH;', 'const uint64_t da0 = pt::desc_sw128(ring_a + sa * A_PITCH, 16, 1024);')
    if mode == 12:
        open(dst, 'w').write(k); sys.exit(0)
    # mode 13 (timing only): a packed layout where a lane's 16 bytes hold its two rows of two
    # chunks, each word 4 pairs at nibbles (j, j + 4): one LDS.128 per two chunks, a LOP3 and a
    # shift per pair instead of a byte permute, mask and shift
    old = 'pk[j][r] = pt::frag_load(q + row * BQ_ROW + (c + j) * 16, q + (row + 8) * BQ_ROW + (c + j) * 16);'
    assert old in k
    k = k.replace(old, 'if (j % 2 == 0) pk[j][r].r0 = *reinterpret_cast<const uint4 *>(q + (cw * M_WG + r * 64 + warp * 16 + lane / 2) * BQ_ROW + (c + j) * 16 + (lane & 1) * 16);')
    call = re.search(r'pt::dequant_frag<elem_t, QKIND>\(pk\[\(c \+ h\) % LOOK\]\[r\], lane % 4, sc\[\(c \+ h\) % LOOK\]\[r\]\[0\],\s*sc\[\(c \+ h\) % LOOK\]\[r\]\[1\], f\[r\]\[h\]\);', k)
    assert call
    k = k[:call.start()] + 'pt::dequant_frag_shuf(pk[((c + h) % LOOK) & ~1][r].r0, (c + h) % 2, sc[(c + h) % LOOK][r][0], sc[(c + h) % LOOK][r][1], f[r][h]);' + k[call.end():]
    shuf = '''
namespace pt {
__device__ __forceinline__ uint32_t shuf_pair(uint32_t w, int j, __nv_bfloat16 s)
{
    return pair_value<__nv_bfloat16, Quant::INT4>(and_xor(w >> (4 * j), 0x000F000Fu, 0x43084308u), s);
}
__device__ __forceinline__ void dequant_frag_shuf(const uint4 &v, int odd, __nv_bfloat16 s0, __nv_bfloat16 s1, uint32_t (&f)[2][4])
{
    const uint32_t w0 = odd ? v.z : v.x, w1 = odd ? v.w : v.y;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        f[j / 2][(j % 2) * 2] = shuf_pair(w0, j, s0);
        f[j / 2][(j % 2) * 2 + 1] = shuf_pair(w1, j, s1);
    }
}
}
'''
    k = k.replace('#include "pt_dequant.cuh"', '#include "pt_dequant.cuh"\n' + shuf, 1)
    open(dst, 'w').write(k); sys.exit(0)
if mode in (10, 11):
    # no scale loads: the producer arrives on the scale stage's full barrier without a TMA load
    m = re.search(r'pt::mbar_arrive_expect_tx\(&full_bs\[s\], BS_BYTES\);\s*pt::tma_load_2d\([^;]*&tm_bs[^;]*;', k, re.S)
    assert m, "scale load"
    k = k[:m.start()] + 'pt::mbar_arrive(&full_bs[s]);' + k[m.end():]
    if mode == 10:
        open(dst, 'w').write(k); sys.exit(0)
if mode in (9, 11):
    # no conversion and no wgmma: the consumers only take and hand back stages
    call = re.search(r'pt::dequant_frag<elem_t, QKIND>\(.*?f\[r\]\[h\]\);', k, re.S)
    k = k[:call.start()] + '(void)0;' + k[call.end():]
    k = k.replace(step, '(void)db;')
    open(dst, 'w').write(k); sys.exit(0)
lean = '''
namespace pt {
__device__ __forceinline__ void dequant_frag_lean(const frag_words &pk, uint32_t (&f)[2][4])
{
    const uint32_t wa[4] = {pk.r0.x, pk.r0.y, pk.r0.z, pk.r0.w}, wb[4] = {pk.r1.x, pk.r1.y, pk.r1.z, pk.r1.w};
#pragma unroll
    for (int w = 0; w < 4; ++w) {
        f[w / 2][(w % 2) * 2] = and_xor(wa[w] >> ((w & 1) * 4), 0x000F000Fu, 0x43084308u);
        f[w / 2][(w % 2) * 2 + 1] = and_xor(wb[w] >> ((w & 1) * 4), 0x000F000Fu, 0x43084308u);
    }
}
}
'''
k = k.replace('#include "pt_dequant.cuh"', '#include "pt_dequant.cuh"\n' + lean, 1)
call = re.search(r'pt::dequant_frag<elem_t, QKIND>\(pk\[\(c \+ h\) % LOOK\]\[r\], lane % 4, sc\[\(c \+ h\) % LOOK\]\[r\]\[0\],\s*sc\[\(c \+ h\) % LOOK\]\[r\]\[1\], f\[r\]\[h\]\);', k)
assert call, "dequant_frag call"
k = k[:call.start()] + 'pt::dequant_frag_lean(pk[(c + h) % LOOK][r], f[r][h]); (void)sc;' + k[call.end():]
assert mode == 6 or step in k
if mode in (3, 4):
    # accumulate each wgmma group into accg[g & 1]; fold the set two groups back after wait<1>
    k = k.replace('    float acc[MREP][ACC_N / 2];', '    float acc[MREP][ACC_N / 2];\n    float accg[2][MREP][ACC_N / 2];', 1)
    k = k.replace('''                acc[r][j] = 0.f;''', '''                acc[r][j] = accg[0][r][j] = accg[1][r][j] = 0.f;''', 1)
    # convert group g, then wait for every group (g - 1 included), fold g - 1's accumulator
    # with its scale, and issue g into it: one group accumulator, no wait<1>
    fold = '''
                pt::wgmma_wait<0>();
                #pragma unroll
                for (int r = 0; r < MREP; ++r) {
                    const float s0 = __bfloat162float(sc[c % LOOK][r][0]), s1 = __bfloat162float(sc[c % LOOK][r][1]);
                    #pragma unroll
                    for (int j = 0; j < ACC_N / 2; ++j) {
                        acc[r][j] += ((j / 2) % 2 ? s1 : s0) * accg[0][r][j];
                        accg[0][r][j] = 0.f;
                    }
                }'''
    k = k.replace('                pt::wgmma_wait<1>();  // the group that read this set is done\n', '', 1)
    k = k.replace('                pt::wgmma_fence();  // the fragments', fold + '\n                pt::wgmma_fence();  // the fragments', 1)
    k = k.replace('pt::keep_all(acc[r]);', 'pt::keep_all(accg[0][r]);', 1)
    k = k.replace(step, 'wgmma_step(accg[0][r], f[r][t / 2][t % 2], db);')
    step2 = 'wgmma_step(accg[0][r], kneg, db);'
    k = k.replace('        pt::wgmma_wait<0>();\n', '''        pt::wgmma_wait<0>();
        #pragma unroll
        for (int r = 0; r < MREP; ++r)
            #pragma unroll
            for (int j = 0; j < ACC_N / 2; ++j)
                acc[r][j] += 0.01f * accg[0][r][j] + 0.02f * accg[1][r][j];
''', 1)
else:
    step2 = 'wgmma_step(acc[r], kneg, db);'
if mode in (2, 4):
    cur = step if mode == 2 else 'wgmma_step(accg[0][r], f[r][t / 2][t % 2], db);'
    k = k.replace(cur, '{ ' + cur + ' ' + step2 + ' }')
    k = k.replace('    uint32_t prev_a = 0;', '    uint32_t prev_a = 0;\n        const uint32_t kneg[4] = {0xC308C308u, 0xC308C308u, 0xC308C308u, 0xC308C308u};', 1)
open(dst, 'w').write(k)
