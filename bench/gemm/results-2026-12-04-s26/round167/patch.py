# patch.py DIR: the split-K cluster hand-off by st.async (complete_tx on the leader's barrier)
# instead of st.shared::cluster + a per-thread mbarrier.arrive.release.cluster
import sys, re
p = sys.argv[1] + '/kernel.cu'
s = open(p).read()
helper = '''
__device__ __forceinline__ void st_async4(uint32_t addr, float x, float y, float z, float w, uint32_t bar)
{
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], {%1, %2, %3, %4}, [%5];"
                 ::"r"(addr), "f"(x), "f"(y), "f"(z), "f"(w), "r"(bar) : "memory");
}
'''
i = s.index('#include "pt_device.cuh"')
j = s.index('\n', s.index('#include "raster.h"')) + 1
s = s[:j] + helper + s[j:]
old = 'pt::mbar_init(cl_full, (SPLIT_K - 1) * 128 * WGS);'
assert old in s
s = s.replace(old, 'pt::mbar_init(cl_full, 1);\n        pt::mbar_arrive_expect_tx(cl_full, (SPLIT_K - 1) * (BM * BN * 4));')
s = s.replace('const uint32_t slot = pt::cluster_map(smem + OFF_CL + (size_t)(kc - 1) * (BM * BN * 4), 0);',
              'const uint32_t slot = pt::cluster_map(smem + OFF_CL + (size_t)(kc - 1) * (BM * BN * 4), 0);\n                const uint32_t rbar = pt::cluster_map(cl_full, 0);')
n = s.count('pt::cluster_store4(')
assert n == 1, n
s = s.replace('pt::cluster_store4(', 'st_async4(')
s = re.sub(r'(st_async4\(slot[^;]*acc\[r\]\[j \+ 3\])\);', r'\1, rbar);', s)
assert 'rbar);' in s
old = '                pt::cluster_arrive_remote(pt::cluster_map(cl_full, 0));\n'
assert old in s
s = s.replace(old, '')
open(p, 'w').write(s)
