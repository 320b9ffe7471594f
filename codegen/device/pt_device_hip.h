// pt_device_hip.h — PipeThreader's device-side wrappers for AMD CDNA3 (gfx942, MI300X): the HIP
// side of pt_device.cuh, under the same names where the concept exists.
//
// Everything a generated gfx942 kernel needs from the hardware, in one readable page: wave64
// ids, global -> LDS tile copies, the Waits (s_waitcnt vmcnt / lgkmcnt, s_barrier), the MFMA
// instructions per shape, the math of the softmax sTasks, and the instrumented build's Tracer.
// Only clang's amdgcn builtins: no HIP runtime header, no device library (Debian's
// rocm-device-libs is ROCm 5.2 and has no gfx942 code), so it builds with
//   clang-19 -x hip --offload-arch=gfx942 -nogpulib --offload-device-only --no-gpu-bundle-output
// How AMD maps onto the sEUs: the "tma" lane issues global loads (counted by vmcnt), the
// "tensor_core" lane the MFMAs, the "cuda_core" lane the vector ALU (docs/DESIGN.md §2).
#pragma once
#include <stdint.h>

#ifndef __forceinline__ // as the HIP headers define it (clang's own HIP wrapper does not)
#define __forceinline__ inline __attribute__((always_inline))
#endif

namespace pt {

// ---- types ----
// bf16 elements travel as their bits: gfx942 has bf16 MFMAs but no bf16 arithmetic.
struct bf16 {
    uint16_t bits;
};
typedef _Float16 f16x4 __attribute__((ext_vector_type(4)));
typedef short bf16x4 __attribute__((ext_vector_type(4)));
typedef float f32x4 __attribute__((ext_vector_type(4)));
typedef float f32x16 __attribute__((ext_vector_type(16)));
// Views for loads and stores that reinterpret tile memory (LDS holds raw 16-byte chunks).
typedef int i32x4 __attribute__((ext_vector_type(4)));
typedef i32x4 i32x4_mem __attribute__((may_alias, aligned(16)));
typedef f16x4 f16x4_mem __attribute__((may_alias, aligned(8)));
typedef bf16x4 bf16x4_mem __attribute__((may_alias, aligned(8)));

// A kernel's workgroup size as the compiler must know it: with no bound it assumes 1024
// work-items and allows only 128 VGPRs per lane (16 waves on 4 SIMDs).
#define PT_LAUNCH_BOUNDS(threads) __attribute__((amdgpu_flat_work_group_size(1, threads)))

// ---- ids (wave64) ----
__device__ __forceinline__ uint32_t thread_id() { return __builtin_amdgcn_workitem_id_x(); }
__device__ __forceinline__ uint32_t block_id_x() { return __builtin_amdgcn_workgroup_id_x(); }
__device__ __forceinline__ uint32_t block_id_y() { return __builtin_amdgcn_workgroup_id_y(); }

__device__ __forceinline__ uint32_t lane_id()
{
    return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
}

// Wave index in the workgroup, in a scalar register (uniform: branches on it are scalar).
__device__ __forceinline__ uint32_t wave_id()
{
    return __builtin_amdgcn_readfirstlane(thread_id() / 64);
}

// ---- the Waits ----
// s_waitcnt's immediate on gfx9: vmcnt in bits 3:0 and 15:14, expcnt in 6:4, lgkmcnt in 11:8;
// a field at its maximum does not wait. The compiler keeps these and adds its own where a
// register is read; these are for what it cannot see (another wave reading the LDS).

// Until at most N vector-memory loads of this wave are outstanding (vmcnt counts in issue order:
// N = the loads issued after the one waited for).
template <int N> __device__ __forceinline__ void vm_wait()
{
    static_assert(N >= 0 && N < 64, "vmcnt is 6 bits");
    __builtin_amdgcn_s_waitcnt((N & 15) | ((N >> 4) << 14) | (7 << 4) | (15 << 8));
}

// Until at most N LDS / scalar-memory operations of this wave are outstanding.
template <int N> __device__ __forceinline__ void lgkm_wait()
{
    static_assert(N >= 0 && N < 16, "lgkmcnt is 4 bits");
    __builtin_amdgcn_s_waitcnt(15 | (3 << 14) | (7 << 4) | (N << 8));
}

// Every wave of the workgroup meets here. The signal fences keep the compiler from moving
// memory accesses across; they emit nothing. gfx942 does not wait for outstanding memory at a
// barrier: what must be complete is waited for first (lds_sync).
__device__ __forceinline__ void barrier()
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    __builtin_amdgcn_s_barrier();
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

// The barrier-sTask of a Wait on an LDS tile: this wave's LDS writes (and reads) are done,
// then all waves meet — after it every wave may read what the others wrote, or overwrite what
// they read.
__device__ __forceinline__ void lds_sync()
{
    lgkm_wait<0>();
    barrier();
}

// ---- global -> LDS copies ----
// A ROWS x COLS tile of 16-bit elements, copied by THREADS work-items in 16-byte chunks, in two
// steps so that the copy of the next stage is in flight while this one is computed on:
// load() issues global_load_dwordx4 into registers and returns at once; store() writes them to
// LDS (ds_write_b128) — the compiler puts the vmcnt wait for those registers before it. The
// LDS rows are LD elements apart (LD > COLS pads rows against bank conflicts).
// Not the LDS-DMA form (global_load_lds_dword, 4 bytes a lane on gfx942): clang 19.1.7's
// builtin for it crashes the post-RA scheduler as soon as the LDS address has an offset
// (fixed upstream by llvm-project PR 123627), and it has no buffer_load ... lds builtin.
template <int ROWS, int COLS, int THREADS, int LD = COLS> struct tile_copy {
    static constexpr int ROW_CHUNKS = COLS * 2 / 16;
    static constexpr int CHUNKS = ROWS * ROW_CHUNKS;
    static constexpr int N = (CHUNKS + THREADS - 1) / THREADS; // chunks per work-item
    // A tile that does not split evenly leaves the last work-items' last chunk idle (EVEN false).
    static constexpr bool EVEN = CHUNKS % THREADS == 0;
    static_assert(COLS * 2 % 16 == 0 && LD * 2 % 16 == 0, "rows must be whole 16-byte chunks");
    static_assert(N <= 32, "one bit of `keep` per chunk");
    i32x4 r[N];
    uint32_t keep = ~0u; // chunk i is stored as loaded (bit i) or as zeros (load_clipped)

    // g: the tile's first element; ld: elements between its rows in global memory.
    template <typename T> __device__ __forceinline__ void load(const T *g, int ld, uint32_t tid)
    {
#pragma unroll
        for (int i = 0; i < N; ++i) {
            const int c = (int)tid + i * THREADS;
            if (!EVEN && c >= CHUNKS)
                break;
            r[i] = *reinterpret_cast<const i32x4_mem *>(g + (c / ROW_CHUNKS) * ld +
                                                        (c % ROW_CHUNKS) * 8);
        }
    }

    // The same from a tile at the edge of its tensor: only `rows` rows and `cols` columns exist
    // (cols a multiple of 8, so a chunk is wholly in or out); the others read as zero, which
    // adds nothing to a dot product and is never stored. Branch-free: a chunk outside reads the
    // tile's first chunk (which exists) and is replaced by zeros when stored, so every work-item
    // issues exactly N loads and nothing reads the loaded registers before store() (reading them
    // earlier would make the compiler wait for the loads there).
    template <typename T>
    __device__ __forceinline__ void load_clipped(const T *g, int ld, uint32_t tid, int rows, int cols)
    {
        keep = 0;
#pragma unroll
        for (int i = 0; i < N; ++i) {
            const int c = (int)tid + i * THREADS, row = c / ROW_CHUNKS, col = (c % ROW_CHUNKS) * 8;
            const bool in = (EVEN || c < CHUNKS) && row < rows && col < cols;
            r[i] = *reinterpret_cast<const i32x4_mem *>(in ? g + row * ld + col : g);
            keep |= (uint32_t)in << i;
        }
    }

    template <typename T> __device__ __forceinline__ void store(T *lds, uint32_t tid) const
    {
#pragma unroll
        for (int i = 0; i < N; ++i) {
            const int c = (int)tid + i * THREADS;
            if (!EVEN && c >= CHUNKS)
                break;
            *reinterpret_cast<i32x4_mem *>(lds + (c / ROW_CHUNKS) * LD + (c % ROW_CHUNKS) * 8) =
                (keep >> i & 1u) ? r[i] : i32x4{0, 0, 0, 0};
        }
    }
};

// ---- MFMA ----
// One M x M x K block per wave: 32x32x8 (16 accumulator floats per lane) or 16x16x16 (4).
// Layouts (CDNA3 ISA, "Matrix Fused Multiply Add"; AMD's matrix instruction calculator):
//   A[i][k]: lane l holds i = l % M, k = 4·(l / M) + e for its four elements e;
//   B[k][j]: lane l holds j = l % M, k = 4·(l / M) + e;
//   D[i][j] register g: j = l % M, i = 8·(g/4) + 4·(l/32) + g%4 (M = 32), 4·(l/16) + g (M = 16).
// So A and B are both read as rows of a K-contiguous tile (frag()), and acc_row / acc_col place
// an accumulator register in its block.
template <typename T> struct frag4;
template <> struct frag4<_Float16> {
    typedef f16x4 type;
    typedef f16x4_mem mem;
};
template <> struct frag4<bf16> {
    typedef bf16x4 type;
    typedef bf16x4_mem mem;
};
template <int M> struct acc;
template <> struct acc<32> {
    typedef f32x16 type;
    static constexpr int k = 8;
};
template <> struct acc<16> {
    typedef f32x4 type;
    static constexpr int k = 16;
};

// The A or B operand of an M-row block at rows [0, M) and columns [k0, k0 + K) of a
// K-contiguous tile (LDS or global) whose rows are ld elements apart: one 8-byte read per lane.
template <typename T, int M>
__device__ __forceinline__ typename frag4<T>::type frag(const T *tile, int ld, int k0, uint32_t lane)
{
    return *reinterpret_cast<const typename frag4<T>::mem *>(tile + (lane % M) * ld + k0 +
                                                             4 * (lane / M));
}

// The B operand of an M-column block from a tile stored the other way, N-contiguous (row k
// holds columns [0, M) at tile + k·ld): lane l's four k values are four rows apart in LDS, so
// four 2-byte reads (ds_read_u16) gather them. What a K x N (row-major) B costs on gfx942.
template <typename T, int M>
__device__ __forceinline__ typename frag4<T>::type frag_kn(const T *tile, int ld, int k0, uint32_t lane)
{
    typedef short __attribute__((may_alias)) s16_mem;
    const s16_mem *p = reinterpret_cast<const s16_mem *>(tile + (k0 + 4 * (int)(lane / M)) * ld +
                                                        (int)(lane % M));
    typedef short s16x4 __attribute__((ext_vector_type(4)));
    const s16x4 v{p[0], p[ld], p[2 * ld], p[3 * ld]};
    return __builtin_bit_cast(typename frag4<T>::type, v);
}

template <int M> __device__ __forceinline__ int acc_row(uint32_t lane, int g)
{
    return M == 32 ? 8 * (g / 4) + 4 * (int)(lane / 32) + g % 4 : 4 * (int)(lane / 16) + g;
}
template <int M> __device__ __forceinline__ int acc_col(uint32_t lane) { return (int)(lane % M); }

// c += a·b on the matrix cores.
template <typename T, int M>
__device__ __forceinline__ void mma(typename acc<M>::type &c, typename frag4<T>::type a,
                                    typename frag4<T>::type b);
template <> __device__ __forceinline__ void mma<_Float16, 32>(f32x16 &c, f16x4 a, f16x4 b)
{
    c = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c, 0, 0, 0);
}
template <> __device__ __forceinline__ void mma<_Float16, 16>(f32x4 &c, f16x4 a, f16x4 b)
{
    c = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, c, 0, 0, 0);
}
template <> __device__ __forceinline__ void mma<bf16, 32>(f32x16 &c, bf16x4 a, bf16x4 b)
{
    c = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, b, c, 0, 0, 0);
}
template <> __device__ __forceinline__ void mma<bf16, 16>(f32x4 &c, bf16x4 a, bf16x4 b)
{
    c = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, b, c, 0, 0, 0);
}

// ---- vector-ALU math of the softmax sTasks ----
// 2^x (v_exp_f32: 2^-inf = +0, which masked scores rely on).
__device__ __forceinline__ float exp2_approx(float x) { return __builtin_amdgcn_exp2f(x); }

// The value lane l ^ 32 holds: the other half of the wave (ds_bpermute_b32 moves it through
// the LDS crossbar without touching LDS memory).
__device__ __forceinline__ float swap_halves(float x)
{
    return __builtin_bit_cast(
        float, __builtin_amdgcn_ds_bpermute((int)((lane_id() ^ 32u) << 2), __builtin_bit_cast(int, x)));
}

// f32 -> bf16 bits, rounded to nearest even (NaN stays a quiet NaN).
__device__ __forceinline__ short bf16_bits(float x)
{
    uint32_t u = __builtin_bit_cast(uint32_t, x);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (short)((u >> 16) | 0x40u);
    return (short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// Four f32 values as one MFMA operand (rounded to nearest even): P of softmax as the next
// MFMA's input.
template <typename T> __device__ __forceinline__ typename frag4<T>::type pack4(float a, float b, float c, float d);
template <> __device__ __forceinline__ f16x4 pack4<_Float16>(float a, float b, float c, float d)
{
    return f16x4{(_Float16)a, (_Float16)b, (_Float16)c, (_Float16)d};
}
template <> __device__ __forceinline__ bf16x4 pack4<bf16>(float a, float b, float c, float d)
{
    return bf16x4{bf16_bits(a), bf16_bits(b), bf16_bits(c), bf16_bits(d)};
}

// ---- instrumented builds (-DPT_TRACE): per-sTask start/end stamps ----
// The same buffer layout as the sm90a Tracer (trace_abi.h). Never run: no MI300X here.
// Clocks: clk = s_memtime (the shader clock); gt = s_memrealtime, a constant 100 MHz counter
// on MI200/MI300 (hipDeviceAttributeWallClockRate), scaled to ns; smid = XCC id << 8 | the
// SE/SH/CU bits of HW_ID.
#ifdef PT_TRACE
#include "trace_abi.h" // the one definition of the layout, shared with the harness and traces/

__device__ __forceinline__ uint64_t clock64() { return __builtin_amdgcn_s_memtime(); }
__device__ __forceinline__ uint64_t globaltimer() { return __builtin_amdgcn_s_memrealtime() * 10; }

// s_getreg immediates (size - 1) << 11 | offset << 6 | register: HW_REG_HW_ID (4) bits 15:8,
// HW_REG_XCC_ID (20) bits 3:0.
__device__ __forceinline__ uint32_t sm_id()
{
    return (__builtin_amdgcn_s_getreg((3 << 11) | 20) << 8) |
           __builtin_amdgcn_s_getreg((7 << 11) | (8 << 6) | 4);
}

// Workgroups in x: from the dispatch packet (grid_size_x in work-items at byte 12,
// workgroup_size_x at byte 4), as gridDim.x is not available without the HIP headers.
__device__ __forceinline__ uint32_t grid_blocks_x()
{
    const __attribute__((address_space(4))) uint8_t *pkt =
        (const __attribute__((address_space(4))) uint8_t *)__builtin_amdgcn_dispatch_ptr();
    const uint32_t grid = *(const __attribute__((address_space(4))) uint32_t *)(pkt + 12);
    const uint32_t wg = *(const __attribute__((address_space(4))) uint16_t *)(pkt + 4);
    return (grid + wg - 1) / wg;
}

struct Tracer {
    pt_trace_role_header *h = nullptr;
    pt_trace_record *r = nullptr;
    uint32_t n = 0, cap = 0;

    // Sampled workgroups: n_ctas of them spread over the grid; role 0 = producer, 1 + w = consumer w.
    __device__ void begin(uint8_t *buf, uint32_t role, uint32_t n_roles, uint32_t cap_)
    {
        if (!buf)
            return;
        const uint32_t blocks = grid_blocks_x(), block = block_id_x();
        const uint32_t n_ctas = blocks < PT_TRACE_MAX_CTAS ? blocks : PT_TRACE_MAX_CTAS;
        const uint32_t stride = blocks / n_ctas;
        if (block == 0 && role == 0) {
            pt_trace_header *th = reinterpret_cast<pt_trace_header *>(buf);
            th->magic = PT_TRACE_MAGIC;
            th->version = PT_TRACE_VERSION;
            th->n_ctas = n_ctas;
            th->n_roles = n_roles;
            th->cap = cap_;
            th->stride = stride;
            th->grid = blocks;
        }
        if (block % stride || block / stride >= n_ctas)
            return;
        uint8_t *base = buf + sizeof(pt_trace_header) +
                        ((size_t)(block / stride) * n_roles + role) *
                            (sizeof(pt_trace_role_header) + (size_t)cap_ * sizeof(pt_trace_record));
        h = reinterpret_cast<pt_trace_role_header *>(base);
        r = reinterpret_cast<pt_trace_record *>(base + sizeof(pt_trace_role_header));
        cap = cap_;
        h->block = block;
        h->smid = sm_id();
        h->gt0 = globaltimer();
        h->clk0 = clock64();
    }

    __device__ __forceinline__ void rec(int stask, int lane, uint32_t tile, int iter, int is_end)
    {
        if (!h)
            return;
        if (n < cap)
            r[n] = pt_trace_record{clock64(), (uint16_t)stask, (uint8_t)lane, (uint8_t)is_end,
                                   (uint16_t)tile, (uint16_t)iter};
        ++n;
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
