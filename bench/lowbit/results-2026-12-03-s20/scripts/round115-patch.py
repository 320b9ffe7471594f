#!/usr/bin/env python3
"""Round 115 rewrites of a generated sm90a split-K GEMM kernel (publish-first epilogue,
one work item per CTA). modes: noepi  no reduction: every chunk converts and stores (wrong
results; the epilogue's cost); cluster  the S chunks of a tile are one thread-block cluster
and the non-leading chunks st.shared::cluster their partial tile into the leader's shared
memory, then arrive on the leader's mbarrier (release.cluster)."""
import re, sys
src, mode, dst = sys.argv[1], sys.argv[2], sys.argv[3]
k = open(src).read()
a = k.index('        // Split-K (gemm_splitk.c)')
b = k.index('        // convert.C:')
assert 'float4 *mine' in k[a:b] and '__threadfence();  // the partial tile is visible before the ticket' in k[a:b]
assert 'WORK = TILES * SPLIT_K' in k and 'persistent' not in k[:k.index('extern "C"')]
if mode == 'noepi':
    new = '''        if (cw == 0 && lead)
            split_ticket[n_tile & 1] = SPLIT_K - 1;
        pt::named_sync(1 + WGS, 128 * WGS);
'''
    k = k[:a] + new + k[b:]
elif mode == 'cluster':
    new = '''        {   // split-K through the cluster: chunk kc > 0 stores into the leader's slot kc - 1
            const int me = cw * 128 + threadIdx.x % 128;
            float *cl_slots = reinterpret_cast<float *>(smem + OFF_CL);
            uint64_t *cl_full = reinterpret_cast<uint64_t *>(smem + OFF_CLBAR);
            if (kc != 0) {
                asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
                uint32_t la, lb;
                asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(la) : "r"(pt::smem_addr(cl_slots + (size_t)(kc - 1) * (BM * BN))));
                asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(lb) : "r"(pt::smem_addr(cl_full)));
                #pragma unroll
                for (int r = 0; r < MREP; ++r)
                    #pragma unroll
                    for (int j = 0; j < ACC_N / 2; j += 4)
                        asm volatile("st.shared::cluster.v4.f32 [%0], {%1, %2, %3, %4};" ::
                                     "r"(la + 16u * (uint32_t)((r * (ACC_N / 8) + j / 4) * (128 * WGS) + me)),
                                     "f"(acc[r][j]), "f"(acc[r][j + 1]), "f"(acc[r][j + 2]), "f"(acc[r][j + 3]) : "memory");
                asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" :: "r"(lb) : "memory");
            } else {
                asm volatile("{\\n .reg .pred p;\\n W: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], 0;\\n @!p bra W;\\n}" :: "r"(pt::smem_addr(cl_full)) : "memory");
                for (int c = 0; c < SPLIT_K - 1; ++c) {
                    const float4 *slot = reinterpret_cast<const float4 *>(cl_slots + (size_t)c * (BM * BN));
                    #pragma unroll
                    for (int r = 0; r < MREP; ++r)
                        #pragma unroll
                        for (int j = 0; j < ACC_N / 2; j += 4) {
                            const float4 q = slot[(r * (ACC_N / 8) + j / 4) * (128 * WGS) + me];
                            acc[r][j] += q.x;
                            acc[r][j + 1] += q.y;
                            acc[r][j + 2] += q.z;
                            acc[r][j + 3] += q.w;
                        }
                }
            }
            if (cw == 0 && lead)
                split_ticket[n_tile & 1] = kc == 0 ? SPLIT_K - 1 : 0;
            pt::named_sync(1 + WGS, 128 * WGS);
        }
'''
    k = k[:a] + new + k[b:]
    m = re.search(r'constexpr int OFF_BAR = (\d+);', k)
    off_bar = int(m.group(1))
    off_cl = off_bar + 1024
    m2 = re.search(r'constexpr int BM = (\d+), BN = (\d+)', k)
    bm, bn = int(m2.group(1)), int(m2.group(2))
    sk = int(re.search(r'constexpr int SPLIT_K = (\d+)', k).group(1))
    off_clbar = off_cl + (sk - 1) * bm * bn * 4
    k = k.replace(m.group(0), m.group(0) + '\nconstexpr int OFF_CL = %d, OFF_CLBAR = %d;' % (off_cl, off_clbar), 1)
    k = re.sub(r'extern "C" __global__ void __launch_bounds__', 'extern "C" __global__ void __cluster_dims__(SPLIT_K, 1, 1) __launch_bounds__', k, 1)
    old = '        pt::mbar_fence_init();\n    }\n    __syncthreads();\n'
    assert old in k
    k = k.replace(old, '        pt::mbar_init(reinterpret_cast<uint64_t *>(smem + OFF_CLBAR), (SPLIT_K - 1) * 128 * WGS);\n' + old +
                  '    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");  // the leader\'s barrier is initialised\n', 1)
    new_smem = off_clbar + 8 + 1024
    print(new_smem)
else:
    sys.exit('mode?')
open(dst, 'w').write(k)
