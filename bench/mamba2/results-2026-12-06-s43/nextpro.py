# Hand edit of a factored ChunkScan kernel.cu (h 2, wg 2, persistent; the generator's form of
# the model's pick): the next tile's C . statesᵀ product is issued into a second accumulator
# before this tile's epilogue (unpivot + store), so the prologue's wgmma latency leaves the
# consumer's chain. Every wgmma issue stays unconditional (a wgmma under a run-time branch
# makes ptxas serialise them all): past the CTA's last tile the product runs on the stale tiles
# and is dropped. Usage: nextpro.py IN OUT
import re, sys
s = open(sys.argv[1]).read()
def sub(pat, rep, n, flags=0):
    global s
    s, k = re.subn(pat, rep, s, flags=flags)
    assert k == n, (pat, k)
s = s.replace('// The k blocks a tile runs', '''// mma.y_off into a fresh accumulator (no zeroing: the first k16 step overwrites).
__device__ __forceinline__ void mma_pro0(float (&d)[BN / 2], const uint8_t *a, const uint8_t *b)
{
    pt::wgmma_fence();
    #pragma unroll
    for (int kk = 0; kk < PK / 16; ++kk) {
        const uint64_t da = pt::desc_sw128(a + (kk / 4) * PA_ATOM + (kk % 4) * 32, 16, 1024);
        const uint64_t db = pt::desc_sw128(b + (kk / 4) * PB_ATOM + (kk % 4) * 32, 16, 1024);
        pt::wgmma_ss_zero<BN, elem_t>::mma(d, da, db, kk > 0);
    }
    pt::wgmma_commit();
}

// The k blocks a tile runs''', 1)
# the prologue's operands of each consumer, in order
args = re.findall(r'mma_pro\(acc, ([^\n]*)\);\n', s)
assert len(args) == 2, args
sub(r'(        float acc\[BN / 2\];\n)', r'\1        float acc2[BN / 2];  // C . statesᵀ of the coming tile, issued before this tile ends\n', 2)
# the first tile's product before the tile loop (every CTA has a tile: grid <= TILES)
k = iter(args)
sub(r'(        float v5_0\[2\];[^\n]*\n)(        for \(int q = 0, t = blockIdx.x \* RUN;)',
    lambda m: m.group(1) + '        pt::mbar_wait(pa_full, 0);  // Wait: the first tile\'s C landed\n        pt::mbar_wait(pb_full, 0);  // and its states\n        mma_pro0(acc2, ' + next(k) + ');\n' + m.group(2), 2)
sub(r'            #pragma unroll\n            for \(int r = 0; r < BN / 2; \+\+r\) \{\n                acc\[r\] = 0\.f;\n                pt::keep\(acc\[r\]\);[^\n]*\n            \}\n', '', 2)
sub(r'                pt::mbar_wait\(pa_full, n_tile & 1\);[^\n]*\n                pt::mbar_wait\(pb_full, n_tile & 1\);[^\n]*\n', '', 2)
sub(r'                mma_pro\(acc, [^\n]*\n                pt::wgmma_wait<0>\(\);\n                pt::keep_all\(acc\);\n',
    '                pt::wgmma_wait<0>();  // the product issued at the last tile\'s end (or before the loop)\n                pt::keep_all(acc2);\n                #pragma unroll\n                for (int r = 0; r < BN / 2; ++r)\n                    acc[r] = acc2[r];\n', 2)
k = iter(args)
sub(r'(            bbase \+= n_iter_tile;\n)',
    lambda m: m.group(1) + '''            {   // the next tile's C . statesᵀ, in flight over this tile's store
                const int qn = q + 1;
                if ((int)(((int64_t)blockIdx.x + (int64_t)(qn / RUN) * gridDim.x) * RUN + qn % RUN) < TILES) {
                    pt::mbar_wait(pa_full, (n_tile + 1) & 1);  // Wait: the next tile's C landed
                    pt::mbar_wait(pb_full, (n_tile + 1) & 1);  // and its states
                }
                mma_pro0(acc2, ''' + next(k) + ''');  // past the last tile: stale tiles, dropped
            }
''', 2)
sub(r'\n(#ifdef PT_TRACE\n        tracer\.end\(\);\n#endif\n    \}\n)', r'\n        pt::wgmma_wait<0>();  // the product issued past the last tile\n\1', 2)
open(sys.argv[2], 'w').write(s)
