# Hand-made experiment: double-buffer the resident Q of a generated persistent attention kernel.
import re, sys
d = sys.argv[1]
k = open(d + '/kernel.cu').read()
l = open(d + '/launch.c').read()
off_bar = int(re.search(r'constexpr int OFF_BAR = (\d+);', k).group(1))
qb = int(re.search(r'constexpr int Q_BYTES = (\d+), OFF_Q = 0;', k).group(1))
q1 = (off_bar + 256 + 1023) // 1024 * 1024
smem_old = int(re.search(r'MAX_DYNAMIC_SHARED_SIZE_BYTES, (\d+)\)', l).group(1))
smem_new = q1 + qb + 1024
def sub(pat, rep, s, n=None):
    s2, c = re.subn(pat, rep, s)
    assert c > 0 and (n is None or c == n), (pat, c)
    return s2
k = sub(r'constexpr int OFF_BAR = (\d+);', r'constexpr int OFF_BAR = \1, Q_SLOT = %d;' % q1, k, 1)
k = sub(r'\*q_full = empty_v \+ STAGES_V, \*q_empty = q_full \+ 1;', '*q_full = empty_v + STAGES_V, *q_empty = q_full + 2;', k, 1)
k = sub(r'\*o_full = q_empty \+ 1,', '*o_full = q_empty + 2,', k, 1)
k = sub(r'pt::mbar_init\(q_full, 1\);', 'pt::mbar_init(&q_full[0], 1); pt::mbar_init(&q_full[1], 1);', k, 1)
k = sub(r'pt::mbar_init\(q_empty, (4 \* WGS)\);', r'pt::mbar_init(&q_empty[0], \1); pt::mbar_init(&q_empty[1], \1);', k, 1)
k = sub(r'if \(n_tile > 0\)\n(\s*)pt::mbar_wait\(q_empty, \(n_tile - 1\) & 1\);',
        r'if (n_tile > 1)\n\1pt::mbar_wait(&q_empty[n_tile & 1], ((n_tile - 2) >> 1) & 1);', k, 1)
k = k.replace('pt::mbar_arrive(q_full);', 'pt::mbar_arrive(&q_full[n_tile & 1]);')
k = sub(r'pt::mbar_arrive_expect_tx\(q_full, Q_BYTES\);', 'pt::mbar_arrive_expect_tx(&q_full[n_tile & 1], Q_BYTES);', k, 1)
k = sub(r'pt::tma_load_3d\(smem \+ OFF_Q \+ a \* \(BM \* 128\), &tm_q, q_full,',
        'pt::tma_load_3d(smem + OFF_Q + (n_tile & 1) * Q_SLOT + a * (BM * 128), &tm_q, &q_full[n_tile & 1],', k, 1)
k = sub(r'pt::mbar_wait\(q_full, n_tile & 1\);', 'pt::mbar_wait(&q_full[n_tile & 1], (n_tile >> 1) & 1);', k)
k = sub(r'pt::desc_sw128\(smem \+ OFF_Q \+', 'pt::desc_sw128(smem + OFF_Q + (n_tile & 1) * Q_SLOT +', k)
k = sub(r'pt::mbar_arrive\(q_empty\);', 'pt::mbar_arrive(&q_empty[n_tile & 1]);', k)
assert 'q_full,' not in k and 'q_empty)' not in k
l = l.replace(str(smem_old), str(smem_new))
open(d + '/kernel.cu', 'w').write(k)
open(d + '/launch.c', 'w').write(l)
print(d, 'Q slot 1 at', q1, 'smem', smem_old, '->', smem_new)
