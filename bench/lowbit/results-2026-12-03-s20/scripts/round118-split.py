#!/usr/bin/env python3
"""Round 118 rewrites of a fragments-packed register-form low-bit kernel (wrong results, timing
only): nodq  the packed words go to wgmma as fragments unconverted (wgmma kept, no dequant);
nomma  dequant kept, wgmma dropped (the fragments xor-folded into one register that is
stored only if it equals a value it never takes)."""
import re, sys
src, mode, dst = sys.argv[1], sys.argv[2], sys.argv[3]
k = open(src).read()
call = re.search(r'pt::dequant_frag_packed<elem_t, QKIND>\((.*?)f\[r\]\[h\]\);', k, re.S)
assert call
if mode == 'nodq':
    k = k[:call.start()] + '''{ const uint4 &vv = pk[(c + h) % LOOK / 2][r]; const int od = (c + h) % 2;
                          const uint32_t w0 = od ? vv.z : vv.x, w1 = od ? vv.w : vv.y;
                          #pragma unroll
                          for (int jj = 0; jj < 4; ++jj) { f[r][h][jj / 2][(jj % 2) * 2] = w0 >> jj; f[r][h][jj / 2][(jj % 2) * 2 + 1] = w1 >> jj; } }''' + k[call.end():]
elif mode == 'nomma':
    step = re.search(r'wgmma_step\(acc\[r\], f\[r\]\[t / 2\]\[t % 2\], db\);', k)
    assert step
    k = k[:step.start()] + '''{ const uint32_t (&ff)[4] = f[r][t / 2][t % 2]; sink ^= ff[0] ^ ff[1] ^ ff[2] ^ ff[3]; (void)db; }''' + k[step.end():]
    k = k.replace('    float acc[MREP][ACC_N / 2];\n', '    float acc[MREP][ACC_N / 2];\n    uint32_t sink = 0;\n', 1)
    k = k.replace('        pt::wgmma_wait<0>();\n', '        pt::wgmma_wait<0>();\n        if (sink == 0x9e3779b9u) acc[0][0] += 1.f;\n', 1)
else:
    sys.exit('mode?')
open(dst, 'w').write(k)
