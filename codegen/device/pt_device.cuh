// pt_device.cuh — PipeThreader's device-side PTX wrappers for Hopper (sm_90a).
//
// Everything generated kernels need from the hardware, in one readable page: shared-memory
// addresses, mbarriers (init, arrive, expect_tx, parity wait), TMA bulk tensor copies, async
// proxy fences, wgmma fences/commit/wait and shared-memory matrix descriptors, setmaxnreg and
// named barriers. The wgmma instruction itself is emitted by the generator for the exact N of
// the tile. Build with -gencode=arch=compute_90a,code=sm_90a.
#pragma once
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <stdio.h>

namespace pt {

// ---- addresses ----
__device__ __forceinline__ uint32_t smem_addr(const void *p)
{
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// ---- mbarrier: the completion mechanism of TMA and of producer/consumer hand-offs ----
__device__ __forceinline__ void mbar_init(uint64_t *bar, uint32_t arrivals)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(arrivals));
}

// Makes initialised barriers visible to the async proxy (TMA) before first use.
__device__ __forceinline__ void mbar_fence_init()
{
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// One arrival that also announces `bytes` of TMA traffic completing on this barrier.
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t *bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)),
                 "r"(bytes)
                 : "memory");
}

__device__ __forceinline__ void mbar_arrive(uint64_t *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}

__device__ __forceinline__ bool mbar_try_wait(uint64_t *bar, uint32_t parity)
{
    uint32_t done;
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done)
                 : "r"(smem_addr(bar)), "r"(parity)
                 : "memory");
    return done != 0;
}

// Waits until the phase with this parity has completed. A fresh barrier counts its
// "previous" phase (parity 1) as complete, which is how a producer's first pass over an
// empty ring goes through without waiting. Debug builds (-DPT_HANG_SPINS=N) trap after N
// failed polls instead of hanging, naming the barrier.
__device__ __forceinline__ void mbar_wait(uint64_t *bar, uint32_t parity)
{
#ifdef PT_HANG_SPINS
    unsigned long long spins = 0;
    while (!mbar_try_wait(bar, parity))
        if (++spins == (unsigned long long)PT_HANG_SPINS) {
            printf("pipethreader: mbarrier wait hung (block %d thread %d, smem 0x%x, parity %u)\n",
                   blockIdx.x, threadIdx.x, smem_addr(bar), parity);
            __trap();
        }
#else
    while (!mbar_try_wait(bar, parity)) {
    }
#endif
}

// ---- TMA: bulk tensor copies (coordinates in elements, innermost first) ----
// The descriptor into the TMA unit's cache before the first copy needs it, so its fetch overlaps
// the barrier set-up rather than delaying the first load (a __grid_constant__ parameter).
__device__ __forceinline__ void prefetch_tensormap(const CUtensorMap *map)
{
    asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

__device__ __forceinline__ void tma_load_2d(void *dst, const CUtensorMap *map, uint64_t *bar,
                                            int c0, int c1)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4}], [%2];" ::"r"(smem_addr(dst)),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_addr(bar)), "r"(c0), "r"(c1)
                 : "memory");
}

// 3-D boxes (head dim, rows, batch·heads): rows past the tensor's extent are zero-filled on
// load and clipped on store, so ragged sequence ends never touch the next head.
__device__ __forceinline__ void tma_load_3d(void *dst, const CUtensorMap *map, uint64_t *bar,
                                            int c0, int c1, int c2)
{
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4, %5}], [%2];" ::"r"(smem_addr(dst)),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_addr(bar)), "r"(c0), "r"(c1), "r"(c2)
                 : "memory");
}

// Boxes over every axis of a tensor (Mamba2's x[b, c, l, h, p]: a tile of l x p at one h):
// 1-D (a 16-byte box holding one scalar per tile), 4-D and 5-D.
__device__ __forceinline__ void tma_load_1d(void *dst, const CUtensorMap *map, uint64_t *bar, int c0)
{
    asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3}], [%2];" ::"r"(smem_addr(dst)),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_addr(bar)), "r"(c0)
                 : "memory");
}

__device__ __forceinline__ void tma_load_4d(void *dst, const CUtensorMap *map, uint64_t *bar,
                                            int c0, int c1, int c2, int c3)
{
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4, %5, %6}], [%2];" ::"r"(smem_addr(dst)),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_addr(bar)), "r"(c0), "r"(c1), "r"(c2),
                 "r"(c3)
                 : "memory");
}

__device__ __forceinline__ void tma_load_5d(void *dst, const CUtensorMap *map, uint64_t *bar,
                                            int c0, int c1, int c2, int c3, int c4)
{
    asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4, %5, %6, %7}], [%2];" ::"r"(smem_addr(dst)),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_addr(bar)), "r"(c0), "r"(c1), "r"(c2),
                 "r"(c3), "r"(c4)
                 : "memory");
}

__device__ __forceinline__ void tma_store_4d(const CUtensorMap *map, const void *src, int c0, int c1,
                                             int c2, int c3)
{
    asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4, %5}], [%1];"
                 ::"l"(reinterpret_cast<uint64_t>(map)), "r"(smem_addr(src)), "r"(c0), "r"(c1), "r"(c2),
                 "r"(c3)
                 : "memory");
}

__device__ __forceinline__ void tma_store_5d(const CUtensorMap *map, const void *src, int c0, int c1,
                                             int c2, int c3, int c4)
{
    asm volatile("cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4, %5, %6}], [%1];"
                 ::"l"(reinterpret_cast<uint64_t>(map)), "r"(smem_addr(src)), "r"(c0), "r"(c1), "r"(c2),
                 "r"(c3), "r"(c4)
                 : "memory");
}

__device__ __forceinline__ void tma_store_3d(const CUtensorMap *map, const void *src, int c0, int c1,
                                             int c2)
{
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4}], [%1];"
                 ::"l"(reinterpret_cast<uint64_t>(map)), "r"(smem_addr(src)), "r"(c0), "r"(c1), "r"(c2)
                 : "memory");
}

__device__ __forceinline__ void tma_store_2d(const CUtensorMap *map, const void *src, int c0, int c1)
{
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];"
                 ::"l"(reinterpret_cast<uint64_t>(map)), "r"(smem_addr(src)), "r"(c0), "r"(c1)
                 : "memory");
}

__device__ __forceinline__ void tma_store_commit()
{
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

// The source shared memory of all committed stores may be overwritten.
__device__ __forceinline__ void tma_store_wait_read()
{
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}

// All committed stores are complete (before the kernel may exit).
__device__ __forceinline__ void tma_store_wait_all()
{
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

// Generic-proxy writes to shared memory become visible to the async proxy (TMA, wgmma).
__device__ __forceinline__ void fence_proxy_async()
{
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// ---- wgmma ----
__device__ __forceinline__ void wgmma_fence()
{
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}

__device__ __forceinline__ void wgmma_commit()
{
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

template <int InFlight> __device__ __forceinline__ void wgmma_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(InFlight) : "memory");
}

// Shared-memory matrix descriptor with 128-byte swizzle. Offsets in bytes; the hardware
// takes address, leading and stride byte offsets >> 4 (bits 0-13, 16-29, 32-45), swizzle mode
// in bits 62-63 (1 = 128B). The buffer must start on a 1024-byte boundary.
__device__ __forceinline__ uint64_t desc_sw128(const void *start, uint32_t lead_bytes,
                                               uint32_t stride_bytes)
{
    uint64_t d = (uint64_t)((smem_addr(start) & 0x3FFFF) >> 4);
    d |= (uint64_t)((lead_bytes & 0x3FFFF) >> 4) << 16;
    d |= (uint64_t)((stride_bytes & 0x3FFFF) >> 4) << 32;
    d |= (uint64_t)1 << 62;
    return d;
}

// A value the compiler must recompute where it is used: keeps descriptor arithmetic from being
// hoisted out of loops into registers that stay live across the whole kernel.
__device__ __forceinline__ uint64_t opaque(uint64_t x)
{
    asm volatile("" : "+l"(x));
    return x;
}

// Keeps the compiler from moving accumulator code across wgmma fences (no C7515
// serialisation): an empty asm that "uses and defines" the register.
__device__ __forceinline__ void keep(float &r)
{
    asm volatile("" : "+f"(r)::"memory");
}

// ---- registers and barriers between warpgroups ----
template <int Regs> __device__ __forceinline__ void regs_increase()
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Regs));
}

template <int Regs> __device__ __forceinline__ void regs_decrease()
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Regs));
}

// Named barrier `id` (1..15; 0 is __syncthreads) over `threads` threads.
__device__ __forceinline__ void named_sync(int id, int threads)
{
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// Named barrier `id`: arrive without waiting (the producer side of a cross-warpgroup Wait).
__device__ __forceinline__ void named_arrive(int id, int threads)
{
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// ---- programmatic dependent launch: a kernel of ours launched right after another ----
// The first kernel (FlashDecoding's partial) lets its dependent be launched once every CTA has
// started, so the dependent's launch and prologue overlap the first's tail; the dependent (the
// combine) waits for the first grid to finish and its writes to be visible before it touches
// global memory. Both are no-ops for a kernel not launched that way.
__device__ __forceinline__ void grid_launch_dependents()
{
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

__device__ __forceinline__ void grid_dependency_wait()
{
    asm volatile("griddepcontrol.wait;" ::: "memory");
}

// ---- thread-block clusters: split-K partial tiles handed to the leading CTA ----
// Every thread arrives once after the barriers are initialised; a CTA that writes into the
// leader's shared memory waits first, so the leader's barrier exists by then.
__device__ __forceinline__ void cluster_arrive()
{
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}

__device__ __forceinline__ void cluster_wait()
{
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// The address of this CTA's shared-memory location p in CTA `rank` of the cluster.
__device__ __forceinline__ uint32_t cluster_map(const void *p, uint32_t rank)
{
    uint32_t a;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(a) : "r"(smem_addr(p)), "r"(rank));
    return a;
}

// An asynchronous store into another CTA's shared memory (addr and bar from cluster_map) whose
// 16 bytes count towards the transaction bytes that CTA's barrier bar expects: no release fence
// and no arrival on the storing side (a per-thread mbarrier.arrive.release.cluster after plain
// st.shared::cluster stores cost 1-4% of short split-K kernels on the H200, round 167).
__device__ __forceinline__ void cluster_store4_async(uint32_t addr, float x, float y, float z, float w,
                                                     uint32_t bar)
{
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], {%1, %2, %3, %4}, [%5];"
                 ::"r"(addr), "f"(x), "f"(y), "f"(z), "f"(w), "r"(bar)
                 : "memory");
}

// Arrive on a barrier of another CTA (addr from cluster_map), after this thread's stores.
__device__ __forceinline__ void cluster_arrive_remote(uint32_t addr)
{
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(addr)
                 : "memory");
}

// mbar_wait for arrivals from other CTAs of the cluster: their stores are visible after it.
__device__ __forceinline__ void mbar_wait_cluster(uint64_t *bar, uint32_t parity)
{
    uint32_t done;
    do
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done)
                     : "r"(smem_addr(bar)), "r"(parity)
                     : "memory");
    while (!done);
}

// ---- CUDA-core math of the softmax sTasks ----
// 2^x on the MUFU unit (flushes denormals; 2^-inf = +0, which masked scores rely on).
__device__ __forceinline__ float exp2_approx(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// Two f32 values as one register of two 16-bit values (low half = a): an A fragment of wgmma.
template <typename T> __device__ __forceinline__ uint32_t pack2(float a, float b);
template <> __device__ __forceinline__ uint32_t pack2<__half>(float a, float b)
{
    __half2 h = __floats2half2_rn(a, b);
    return *reinterpret_cast<uint32_t *>(&h);
}
template <> __device__ __forceinline__ uint32_t pack2<__nv_bfloat16>(float a, float b)
{
    __nv_bfloat162 h = __floats2bfloat162_rn(a, b);
    return *reinterpret_cast<uint32_t *>(&h);
}

// Byte offset of 16-bit element (row, col) inside a 128B-swizzled tile whose rows are 128
// bytes (64 elements): the 16-byte chunk index is XORed with the row's position in its
// 8-row group, as TMA and wgmma lay it out.
__device__ __forceinline__ uint32_t sw128_offset(uint32_t row, uint32_t col_bytes)
{
    return row * 128 + ((((col_bytes >> 4) ^ (row & 7)) << 4) | (col_bytes & 15));
}

// ---- fragments from shared memory and bit operations (pt_ssd.cuh, pt_dequant.cuh) ----
// ldmatrix .x4: four 8x8 16-bit blocks, lanes 8q .. 8q + 7 giving the addresses of block q's
// rows; register q of each lane gets its elements (row lane / 4, columns 2 (lane % 4) and one
// more), transposed with TRANS (a stored [k][m] block read as [m][k]).
template <bool TRANS> __device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr)
{
    if constexpr (TRANS)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(addr));
    else
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(addr));
}

// (a & b) ^ c in one LOP3: ptxas will not fuse a mask and an xor that both have immediate
// operands (one immediate per LOP3), and the low-bit unpacking is issue-bound.
__device__ __forceinline__ uint32_t and_xor(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t d;
    asm("lop3.b32 %0, %1, %2, %3, 0x6a;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}

// ---- staging copies of tensors whose rows are not 16-byte multiples (src/staging.h) ----

// TMA needs 16-byte global strides, so the launcher copies such a tensor to a buffer whose rows
// are padded to 16 bytes (and an output back from one). Copies rows x cols elements of T from
// rows sp elements apart to rows dp elements apart. One thread per 16 bytes of a row: on the
// side whose rows are 16-byte aligned that is one vector access, on the other V element
// accesses (consecutive threads still touch consecutive bytes, so both sides coalesce). The
// padding of a destination row is written with zeros, so the padded buffer holds nothing stale.
template <typename T>
__device__ __forceinline__ void restride(const T *__restrict__ src, long long sp, T *__restrict__ dst,
                                         long long dp, long long rows, long long cols)
{
    constexpr int V = 16 / sizeof(T);
    const long long per_row = (cols + V - 1) / V, n = rows * per_row;
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        const long long r = i / per_row, c0 = i % per_row * V;
        const T *s = src + r * sp + c0;
        T *d = dst + r * dp + c0;
        union { uint4 v; T e[V]; } x;
        if (sp % V == 0 && ((uintptr_t)s & 15) == 0)
            x.v = *reinterpret_cast<const uint4 *>(s);  // the padded side: whole row chunks
        else
#pragma unroll
            for (int j = 0; j < V; ++j)
                x.e[j] = c0 + j < cols ? s[j] : T(0);
        if (dp % V == 0 && ((uintptr_t)d & 15) == 0) {
#pragma unroll
            for (int j = 0; j < V; ++j)  // padding past the row's end reads as zero
                if (c0 + j >= cols)
                    x.e[j] = T(0);
            *reinterpret_cast<uint4 *>(d) = x.v;
        } else {
#pragma unroll
            for (int j = 0; j < V; ++j)
                if (c0 + j < cols)
                    d[j] = x.e[j];
        }
    }
}

// ---- instrumented builds (-DPT_TRACE): per-sTask start/end stamps ----
// The buffer layout is trace_abi.h (codegen/trace_abi.h, written into the bundle): a header,
// then per sampled CTA and warp role a role header and `cap` records. Only the role's issuing
// thread writes its region.
#ifdef PT_TRACE
#include "trace_abi.h" // the one definition of the layout, shared with the harness and traces/

__device__ __forceinline__ uint64_t globaltimer()
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ __forceinline__ uint32_t sm_id()
{
    uint32_t s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}

// rec() writes a record as two 64-bit words: the clock, then the fields packed in this order.
static_assert(offsetof(pt_trace_record, stask) == 8 && offsetof(pt_trace_record, lane) == 10 &&
                  offsetof(pt_trace_record, is_end) == 11 && offsetof(pt_trace_record, tile) == 12 &&
                  offsetof(pt_trace_record, iter) == 14, "trace record layout");

struct Tracer {
    pt_trace_role_header *h = nullptr;
    pt_trace_record *r = nullptr;
    uint32_t n = 0, cap = 0;

    // Sampled CTAs: n_ctas of them spread over the grid; role 0 = producer, 1 + w = consumer w.
    __device__ void begin(uint8_t *buf, uint32_t role, uint32_t n_roles, uint32_t cap_)
    {
        if (!buf)
            return;
        const uint32_t n_ctas = gridDim.x < PT_TRACE_MAX_CTAS ? gridDim.x : PT_TRACE_MAX_CTAS;
        const uint32_t stride = gridDim.x / n_ctas;
        if (blockIdx.x == 0 && role == 0) {
            pt_trace_header *th = reinterpret_cast<pt_trace_header *>(buf);
            th->magic = PT_TRACE_MAGIC;
            th->version = PT_TRACE_VERSION;
            th->n_ctas = n_ctas;
            th->n_roles = n_roles;
            th->cap = cap_;
            th->stride = stride;
            th->grid = gridDim.x;
        }
        if (blockIdx.x % stride || blockIdx.x / stride >= n_ctas)
            return;
        uint8_t *base = buf + sizeof(pt_trace_header) +
                        ((size_t)(blockIdx.x / stride) * n_roles + role) *
                            (sizeof(pt_trace_role_header) + (size_t)cap_ * sizeof(pt_trace_record));
        h = reinterpret_cast<pt_trace_role_header *>(base);
        r = reinterpret_cast<pt_trace_record *>(base + sizeof(pt_trace_role_header));
        cap = cap_;
        h->block = blockIdx.x;
        h->smid = sm_id();
        h->gt0 = globaltimer();
        h->clk0 = clock64();
    }

    // Every thread of the role runs the same instructions: a clock read and one store predicated
    // on being the writer. A branch around the store (only the writer inside) splits the warp
    // role's code into basic blocks at every stamp, which keeps ptxas from interleaving the
    // sTasks' instructions as it does in the plain build; a predicated store does not.
    __device__ __forceinline__ void rec(int stask, int lane, uint32_t tile, int iter, int is_end)
    {
        const uint64_t t = clock64();
        const uint64_t meta = (uint64_t)(uint16_t)stask | (uint64_t)(uint8_t)lane << 16 |
                              (uint64_t)(uint8_t)is_end << 24 | (uint64_t)(uint16_t)tile << 32 |
                              (uint64_t)(uint16_t)iter << 48;
        const uint32_t write = h != nullptr && n < cap;
        pt_trace_record *at = r + (write ? n : 0);
        asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %0, 0;\n\t"
                     "@p st.global.v2.u64 [%1], {%2, %3};\n\t}"
                     ::"r"(write), "l"(at), "l"(t), "l"(meta));
        n += h != nullptr;
    }

    __device__ void end()
    {
        if (!h)
            return;
        h->clk1 = clock64();
        h->gt1 = globaltimer();
        h->count = n < cap ? n : cap;
        h->dropped = n > cap ? n - cap : 0;
    }
};
#endif

} // namespace pt
