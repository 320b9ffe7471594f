/* kernelcpu_run.cpp — runs a generated sm90a kernel on the CPU (README.md): the driver API calls
 * of its launch.c, and the device library of include/pt_device.cuh. A launch runs the grid's
 * blocks one after another. A block's threads are fibers (ucontext) on one OS thread, switched
 * only where a thread waits (a barrier, an mbarrier, a store's read): a thread runs until it
 * must wait, so a read that should have waited for a copy sees the copy not done. The TMA unit
 * runs between switches: it takes one of the block's queued copies in random order, at random
 * switches, so a copy lands some time after the thread that issued it has moved on, and a later
 * load may land before an earlier store has read its tile. When no thread can go on and no copy
 * is queued the kernel hangs: every waiting thread's barrier and parity are printed and the
 * process exits 3 (at once: there is nothing left that could release them). A kernel that
 * spins without waiting through these calls is ended by a watchdog after WAIT_S * 3 seconds.
 * (OS threads, one a GPU thread, spent most of their time waking each other in the kernel.) */
/* the fibers switch stacks with _setjmp/_longjmp, which the fortified longjmp would refuse */
#undef _FORTIFY_SOURCE
#include <atomic>
#include <chrono>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <random>
#include <thread>
#include <unordered_map>
#include <vector>

#include <sys/mman.h>
#include <ucontext.h>

#include "include/pt_device.cuh"
#include "kernelcpu.h"

kernelcpu_dim3 threadIdx, blockIdx; /* the running fiber's */
kernelcpu_dim3 blockDim, gridDim;
/* the kernels' extern dynamic shared memory: one block at a time */
constexpr size_t SMEM_BYTES = 232448;
alignas(1024) uint8_t smem_raw[SMEM_BYTES];

namespace {
constexpr int WAIT_S = 20;

struct mbar {
    uint32_t count, pending;
    int64_t tx;
    uint32_t phase; /* completed phases */
};
std::unordered_map<const void *, mbar> bars;

struct named_bar {
    int count = 0, arrived = 0;
    uint64_t gen = 0;
};
/* 0-15: the named barriers (0 is __syncthreads); 16-23: each warpgroup's 128 threads; 32-63:
 * each warp's 32 (the collectives below) */
named_bar named[64];
uint32_t shfl_slot[32][32];

struct tma_op {
    bool store;
    uint8_t *smem;
    CUtensorMap map;
    int c[5], n;
    uint64_t *bar;
    int *pending; /* a store's issuing thread's count of stores not done */
};
std::deque<tma_op> queue;
/* each kernel thread's stores not yet done (a store's smem read and its write are one step here) */
int stores_pending[1024];

/* A block's threads as fibers; the scheduler resumes them in turn. */
struct fiber {
    ucontext_t ctx; /* its start only */
    jmp_buf env;    /* where it waits */
    bool started;
    uint8_t *stack;
    bool done, stuck;
    /* what it waits for, for the hang report */
    const char *what;
    long offset;
    unsigned parity;
};
constexpr size_t STACK_BYTES = 8u << 20; /* reserved, not committed: a thread's arrays live here */
std::vector<fiber> fibers;
fiber *cur;
jmp_buf sched_env;
void (*fiber_fn)(void **);
void **fiber_args;
int max_dynamic_smem = 48 * 1024;

[[noreturn]] void hang()
{
    std::fprintf(stderr, "kernelcpu: block %u hangs: no thread can go on and no copy is queued\n",
                 blockIdx.x);
    int shown = 0;
    for (size_t t = 0; t < fibers.size(); t++) {
        const fiber &f = fibers[t];
        if (f.done || shown++ >= 16)
            continue;
        std::fprintf(stderr, "  thread %zu waits on %s (shared memory offset %ld, parity %u; %d stores not done)\n", t,
                     f.what, f.offset, f.parity, stores_pending[t]);
    }
    for (const auto &[at, b] : bars)
        std::fprintf(stderr, "  mbarrier at offset %ld: %u arrivals, %u pending, %lld bytes due, phase %u\n",
                     (long)((const uint8_t *)at - smem_raw), b.count, b.pending, (long long)b.tx, b.phase);
    std::fflush(stderr);
    std::_Exit(3);
}

mbar &bar_of(const void *bar)
{
    auto it = bars.find(bar);
    if (it == bars.end()) {
        std::fprintf(stderr, "kernelcpu: mbarrier at shared memory offset %ld used before its init\n",
                     (long)((const uint8_t *)bar - smem_raw));
        std::_Exit(3);
    }
    return it->second;
}

void complete_if_done(mbar &b)
{
    if (b.pending == 0 && b.tx == 0) {
        b.phase++;
        b.pending = b.count;
    }
}

/* The calling fiber waits until ready() holds, giving the others (and the TMA unit) their turns. */
template <typename P> void wait_until(P &&ready, const char *what, long offset = -1, unsigned parity = 0)
{
    if (ready())
        return;
    cur->what = what, cur->offset = offset, cur->parity = parity;
    for (;;) {
        if (!_setjmp(cur->env))
            _longjmp(sched_env, 1);
        if (ready())
            return;
        cur->stuck = true; /* resumed for nothing: this turn changed nothing */
    }
}

/* The box of map at coordinates c, element by element (innermost first): each element's
 * global address, or NULL past the tensor's extent. */
template <typename F> void walk_box(const CUtensorMap &m, const int *c, F &&each)
{
    uint64_t total = 1;
    for (uint32_t i = 0; i < m.rank; i++)
        total *= m.box[i];
    for (uint64_t e = 0; e < total; e++) {
        uint64_t rest = e;
        bool in = true;
        uint8_t *g = (uint8_t *)m.base;
        for (uint32_t i = 0; i < m.rank; i++) {
            int64_t k = (int64_t)c[i] + (int64_t)(rest % m.box[i]);
            rest /= m.box[i];
            in &= k >= 0 && k < (int64_t)m.dims[i];
            g += k * (int64_t)m.strides[i];
        }
        each(e, in ? g : nullptr);
    }
}

/* The 128-byte swizzle of TMA and wgmma: in shared memory, bits 4-6 of an address are XORed
 * with bits 7-9 (the 16-byte chunk with the row's place among 8 rows of 128 bytes). */
uint32_t swizzle128(uint32_t a) { return a ^ (((a >> 7) & 7u) << 4); }

/* The 32- and 64-byte swizzles: bit 4 (bits 4-5) XORed with bit 7 (bits 7-8); the 128-byte one
 * is swizzle128. The span (32 << k bytes) is a box row. */
uint32_t swizzle_span(uint32_t a, uint32_t span) { return a ^ (((a >> 7) & (span / 16 - 1)) << 4); }

/* where dense box offset o lands in shared memory (a swizzled box: rows of one span) */
uint8_t *box_at(const tma_op &op, uint64_t o)
{
    if (op.map.swizzle == CU_TENSOR_MAP_SWIZZLE_NONE)
        return op.smem + o;
    const uint32_t a = (uint32_t)(op.smem - smem_raw) + (uint32_t)o;
    return smem_raw + (op.map.swizzle == CU_TENSOR_MAP_SWIZZLE_128B ? swizzle128(a)
                                                                    : swizzle_span(a, 16u << op.map.swizzle));
}

void run_op(const tma_op &op)
{
    const uint32_t eb = op.map.elem_bytes;
    if (op.store)
        walk_box(op.map, op.c, [&](uint64_t e, uint8_t *g) {
            if (g)
                std::memcpy(g, box_at(op, e * eb), eb);
        });
    else
        walk_box(op.map, op.c, [&](uint64_t e, uint8_t *g) {
            if (g)
                std::memcpy(box_at(op, e * eb), g, eb);
            else
                std::memset(box_at(op, e * eb), 0, eb);
        });
}

uint32_t box_bytes(const CUtensorMap &m)
{
    uint64_t n = m.elem_bytes;
    for (uint32_t i = 0; i < m.rank; i++)
        n *= m.box[i];
    return (uint32_t)n;
}

const char *const store_wait = "a TMA store's read";

/* whether some unfinished thread waits for op (called when every one of them waits): on its mbarrier, or on its issuer's stores */
bool awaited(const tma_op &op)
{
    for (size_t t = 0; t < fibers.size() && t < blockDim.x; t++) {
        const fiber &f = fibers[t];
        if (f.done)
            continue;
        if (op.store ? op.pending == &stores_pending[t] && f.what == store_wait
                     : f.offset == (long)((uint8_t *)op.bar - smem_raw))
            return true;
    }
    return false;
}

/* The TMA unit: one queued copy, any of them (copies have no order among themselves: only
 * their barriers and the store waits order them), done whole; with needed, one that a
 * waiting thread needs where there is one, so that the others land as late as they may (a
 * read that should have waited for them finds them not done) */
void tma_step(std::mt19937 &rng, bool fifo, bool needed = false)
{
    size_t i = fifo ? 0 : rng() % queue.size();
    if (needed && !fifo) {
        std::vector<size_t> want;
        for (size_t k = 0; k < queue.size(); k++)
            if (awaited(queue[k]))
                want.push_back(k);
        if (!want.empty())
            i = want[rng() % want.size()];
    }
    const tma_op op = queue[i];
    queue.erase(queue.begin() + (long)i);
    run_op(op);
    if (op.store) {
        --*op.pending;
    } else {
        mbar &b = bar_of(op.bar);
        b.tx -= box_bytes(op.map);
        complete_if_done(b);
    }
}

void enqueue(const tma_op &op)
{
    if (op.map.swizzle != CU_TENSOR_MAP_SWIZZLE_NONE &&
        (op.map.box[0] * op.map.elem_bytes != (16u << op.map.swizzle) ||
         (op.smem - smem_raw) % 128)) {
        std::fprintf(stderr, "kernelcpu: a swizzled copy whose box rows are not the swizzle's span, "
                             "or not at a 128-byte boundary (not emulated)\n");
        std::_Exit(3);
    }
    if ((uint32_t)op.n != op.map.rank) {
        std::fprintf(stderr, "kernelcpu: a %d-D copy through a %u-D tensor map\n", op.n, op.map.rank);
        std::_Exit(3);
    }
    queue.push_back(op);
}
} // namespace

static void barrier_sync(int slot, int id, int threads, bool wait = true);

void kernelcpu_named_sync(int id, int threads) { barrier_sync(id & 15, id, threads); }
void kernelcpu_named_arrive(int id, int threads) { barrier_sync(id & 15, id, threads, false); }
void kernelcpu_warpgroup_sync() { barrier_sync(16 + (int)(threadIdx.x / 128) % 8, -1, 128); }
void kernelcpu_warp_sync() { barrier_sync(32 + (int)(threadIdx.x / 32) % 32, -1, 32); }

uint32_t kernelcpu_shfl_xor(uint32_t v, int lane_mask)
{
    const unsigned w = threadIdx.x / 32 % 32, l = threadIdx.x % 32;
    shfl_slot[w][l] = v;
    kernelcpu_warp_sync();
    const uint32_t got = shfl_slot[w][(l ^ (unsigned)lane_mask) % 32];
    kernelcpu_warp_sync();
    return got;
}

uint32_t kernelcpu_shfl_idx(uint32_t v, int src_lane)
{
    const unsigned w = threadIdx.x / 32 % 32, l = threadIdx.x % 32;
    shfl_slot[w][l] = v;
    kernelcpu_warp_sync();
    const uint32_t got = shfl_slot[w][(unsigned)src_lane % 32];
    kernelcpu_warp_sync();
    return got;
}

bool kernelcpu_all(bool p)
{
    const unsigned w = threadIdx.x / 32 % 32, l = threadIdx.x % 32;
    shfl_slot[w][l] = p;
    kernelcpu_warp_sync();
    bool all = true;
    for (int i = 0; i < 32; ++i)
        all = all && shfl_slot[w][i];
    kernelcpu_warp_sync();
    return all;
}

/* ldmatrix .x4: lanes 8q .. 8q + 7 give the rows of 8x8 block q (8 16-bit elements from each
 * address); register q of lane l gets row l / 4, elements 2 (l % 4) and the next, of block q,
 * or of its transpose with trans */
void kernelcpu_ldmatrix_x4(uint32_t (&r)[4], uint32_t addr, bool trans)
{
    const unsigned w = threadIdx.x / 32 % 32, l = threadIdx.x % 32;
    shfl_slot[w][l] = addr;
    kernelcpu_warp_sync();
    auto at = [](uint32_t a) {
        if (a % 2 || a + 2 > SMEM_BYTES) {
            std::fprintf(stderr, "kernelcpu: ldmatrix reads offset %u of shared memory\n", a);
            std::_Exit(3);
        }
        uint16_t v;
        std::memcpy(&v, smem_raw + a, 2);
        return (uint32_t)v;
    };
    for (unsigned q = 0; q < 4; ++q) {
        const unsigned row = l / 4, col = 2 * (l % 4);
        uint32_t lo, hi;
        if (trans) {
            lo = at(shfl_slot[w][8 * q + col] + 2 * row);
            hi = at(shfl_slot[w][8 * q + col + 1] + 2 * row);
        } else {
            lo = at(shfl_slot[w][8 * q + row] + 2 * col);
            hi = at(shfl_slot[w][8 * q + row] + 2 * (col + 1));
        }
        r[q] = lo | hi << 16;
    }
    kernelcpu_warp_sync();
}

void kernelcpu_fence() { std::atomic_thread_fence(std::memory_order_seq_cst); }

unsigned atomicAdd(unsigned *p, unsigned v)
{
    return std::atomic_ref<unsigned>(*p).fetch_add(v);
}

unsigned atomicExch(unsigned *p, unsigned v)
{
    return std::atomic_ref<unsigned>(*p).exchange(v);
}

uint16_t kernelcpu_wgmma_operand(uint64_t desc, int mn, int k, bool mn_major)
{
    const uint32_t start = (uint32_t)(desc & 0x3FFF) << 4, lbo = (uint32_t)((desc >> 16) & 0x3FFF) << 4,
                   sbo = (uint32_t)((desc >> 32) & 0x3FFF) << 4;
    if (desc >> 62 != 1) {
        std::fprintf(stderr, "kernelcpu: a wgmma descriptor without the 128-byte swizzle (not emulated)\n");
        std::_Exit(3);
    }
    /* the canonical layouts of 16-bit operands: K-major, rows of 128 bytes along k, 8-row
     * groups sbo apart; MN-major, rows of 128 bytes along mn (64 elements), 8 k-rows a group
     * sbo apart, 64-wide blocks of mn lbo apart */
    const uint32_t a = mn_major ? start + (uint32_t)(mn / 64) * lbo + (uint32_t)(k / 8) * sbo +
                                      (uint32_t)(k % 8) * 128 + (uint32_t)(mn % 64) * 2
                                : start + (uint32_t)(mn / 8) * sbo + (uint32_t)(mn % 8) * 128 + (uint32_t)k * 2;
    const uint32_t phys = swizzle128(a);
    if (phys + 2 > SMEM_BYTES) {
        std::fprintf(stderr, "kernelcpu: a wgmma operand read past shared memory (offset %u)\n", phys);
        std::_Exit(3);
    }
    uint16_t v;
    std::memcpy(&v, smem_raw + phys, 2);
    return v;
}

/* bar.sync (wait) or bar.arrive (count this thread, go on) on barrier `slot` */
static void barrier_sync(int slot, int id, int threads, bool wait)
{
    named_bar &b = named[slot];
    if (b.arrived == 0)
        b.count = threads;
    else if (b.count != threads) {
        std::fprintf(stderr, "kernelcpu: barrier %d (slot %d) with %d and %d threads\n", id, slot,
                     b.count, threads);
        std::_Exit(3);
    }
    uint64_t gen = b.gen;
    if (++b.arrived == b.count) {
        b.arrived = 0;
        b.gen++;
        return;
    }
    if (!wait)
        return;
    wait_until([&] { return b.gen != gen; }, id >= 0 ? "a named barrier" : "a warp or warpgroup collective",
               -1, (unsigned)slot);
}

void kernelcpu_mbar_init(uint64_t *bar, uint32_t arrivals)
{
    bars[bar] = mbar{arrivals, arrivals, 0, 0};
}

void kernelcpu_mbar_arrive(uint64_t *bar, uint32_t tx_bytes)
{
    mbar &b = bar_of(bar);
    if (b.pending == 0) {
        std::fprintf(stderr, "kernelcpu: more arrivals than the %u of the mbarrier at offset %ld\n",
                     b.count, (long)((uint8_t *)bar - smem_raw));
        std::_Exit(3);
    }
    b.tx += tx_bytes;
    b.pending--;
    complete_if_done(b);
}

void kernelcpu_mbar_wait(uint64_t *bar, uint32_t parity)
{
    /* the phase of this parity is complete once the current phase has the other parity */
    mbar &b = bar_of(bar);
    wait_until([&] { return (b.phase & 1u) != (parity & 1u); }, "an mbarrier",
               (long)((uint8_t *)bar - smem_raw), parity);
}

void kernelcpu_tma_load(void *dst, const CUtensorMap *map, uint64_t *bar, const int *c, int n)
{
    tma_op op{false, (uint8_t *)dst, *map, {0}, n, bar, nullptr};
    std::memcpy(op.c, c, sizeof(int) * (size_t)n);
    enqueue(op);
}

void kernelcpu_tma_store(const CUtensorMap *map, const void *src, const int *c, int n)
{
    tma_op op{true, (uint8_t *)src, *map, {0}, n, nullptr, &stores_pending[threadIdx.x]};
    std::memcpy(op.c, c, sizeof(int) * (size_t)n);
    ++stores_pending[threadIdx.x];
    enqueue(op);
}

void kernelcpu_tma_store_wait()
{
    const unsigned t = threadIdx.x;
    wait_until([t] { return stores_pending[t] == 0; }, store_wait);
}

extern "C" CUresult cuTensorMapEncodeTiled(CUtensorMap *map, CUtensorMapDataType type,
                                           cuuint32_t rank, void *base, const cuuint64_t *dims,
                                           const cuuint64_t *strides, const cuuint32_t *box,
                                           const cuuint32_t *elem_strides, CUtensorMapInterleave,
                                           CUtensorMapSwizzle swizzle, CUtensorMapL2promotion,
                                           CUtensorMapFloatOOBfill)
{
    /* the driver's rules (cuTensorMapEncodeTiled): what it refuses, refused here with why */
    const uint32_t eb = type == CU_TENSOR_MAP_DATA_TYPE_FLOAT32                 ? 4
                        : type == CU_TENSOR_MAP_DATA_TYPE_FLOAT16 ||
                                  type == CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 ? 2
                                                                           : 1;
    const char *why = nullptr;
    if (rank < 1 || rank > 5)
        why = "rank outside 1..5";
    else if ((uintptr_t)base % 16)
        why = "base address not 16-byte aligned";
    for (uint32_t i = 0; !why && i < rank; i++) {
        if (dims[i] < 1 || dims[i] > (1ull << 32))
            why = "a dimension outside 1..2^32";
        else if (box[i] < 1 || box[i] > 256)
            why = "a box side outside 1..256";
        else if (elem_strides[i] < 1 || elem_strides[i] > 8)
            why = "an element stride outside 1..8";
        else if (i > 0 && (strides[i - 1] % 16 || strides[i - 1] >= (1ull << 40)))
            why = "a stride not a multiple of 16 bytes (or past 2^40)";
    }
    if (!why && (box[0] * eb) % 16)
        why = "the box's inner side not a multiple of 16 bytes";
    if (why) {
        std::fprintf(stderr, "kernelcpu: cuTensorMapEncodeTiled refuses the map: %s\n", why);
        return 1;
    }
    std::memset(map, 0, sizeof *map);
    map->base = base;
    map->rank = rank;
    map->elem_bytes = eb;
    map->swizzle = swizzle;
    for (uint32_t i = 0; i < rank; i++) {
        map->dims[i] = dims[i];
        map->strides[i] = i == 0 ? eb : strides[i - 1];
        map->box[i] = box[i];
    }
    return CUDA_SUCCESS;
}

extern "C" CUresult cuFuncSetAttribute(CUfunction, CUfunction_attribute attr, int value)
{
    if (attr == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
        max_dynamic_smem = value;
    return CUDA_SUCCESS;
}

extern "C" CUresult cuModuleGetFunction(CUfunction *f, CUmodule mod, const char *name)
{
    for (const kernelcpu_kernel *k = mod->kernels; k->name; k++)
        if (std::strcmp(k->name, name) == 0) {
            *f = k;
            return CUDA_SUCCESS;
        }
    std::fprintf(stderr, "kernelcpu: no kernel %s in the module\n", name);
    return 1;
}

/* a fiber's life: the current kernel, once for every block it is given */
static void fiber_entry()
{
    for (;;) {
        fiber_fn(fiber_args);
        cur->done = true;
        if (!_setjmp(cur->env))
            _longjmp(sched_env, 1);
    }
}

/* fb's start on its own stack (getcontext returns twice: a frame of its own) */
[[gnu::noinline]] static void prepare(fiber &fb)
{
    getcontext(&fb.ctx);
    fb.ctx.uc_stack.ss_sp = fb.stack;
    fb.ctx.uc_stack.ss_size = STACK_BYTES;
    fb.ctx.uc_link = nullptr; /* it never returns */
    makecontext(&fb.ctx, fiber_entry, 0);
}

/* fiber fb's turn, back here when it waits or ends (a frame of its own: nothing of the caller's
 * lives across the _setjmp) */
[[gnu::noinline]] static void resume(fiber &fb)
{
    if (!_setjmp(sched_env)) {
        if (fb.started)
            _longjmp(fb.env, 1);
        fb.started = true;
        setcontext(&fb.ctx);
    }
}

static CUresult run_grid(CUfunction f, unsigned gx, unsigned bx, unsigned smem, void **args)
{
    if (smem > SMEM_BYTES || (smem > 48 * 1024 && (int)smem > max_dynamic_smem)) {
        std::fprintf(stderr, "kernelcpu: %u bytes of dynamic shared memory (the attribute allows %d)\n",
                     smem, max_dynamic_smem);
        return 1;
    }
    if (bx > sizeof stores_pending / sizeof *stores_pending) {
        std::fprintf(stderr, "kernelcpu: %u threads a block (at most 1024)\n", bx);
        return 1;
    }
    gridDim = {gx, 1, 1};
    blockDim = {bx, 1, 1};
    const bool fifo = std::getenv("KERNELCPU_FIFO") && std::getenv("KERNELCPU_FIFO")[0] == '1';
    while (fibers.size() < bx) {
        void *st = mmap(nullptr, STACK_BYTES, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
        if (st == MAP_FAILED) {
            std::fprintf(stderr, "kernelcpu: no memory for %u threads' stacks\n", bx);
            return 1;
        }
        fibers.push_back(fiber{});
        fibers.back().stack = (uint8_t *)st;
    }
    /* a fiber, once started, runs the current kernel for every block it is given: switches are
     * _setjmp/_longjmp (swapcontext's signal-mask system calls made the reference kernels, a
     * block of 256 short threads for every 256 elements, mostly system time) */
    fiber_fn = f->call;
    fiber_args = args;
    /* a kernel that spins (a split-K wait on a chunk no block will run) never comes back to the
     * scheduler: the watchdog ends it */
    std::atomic<unsigned> running_block{~0u};
    std::atomic<bool> grid_over{false};
    std::thread watchdog([&] {
        unsigned seen = ~0u;
        int ticks = 0;
        while (!grid_over) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            const unsigned now = running_block;
            ticks = now == seen ? ticks + 1 : 0;
            seen = now;
            if (ticks > 10 * WAIT_S * 3) {
                std::fprintf(stderr, "kernelcpu: block %u still runs after %d s: the kernel hangs or spins\n",
                             now, WAIT_S * 3);
                std::_Exit(3);
            }
        }
    });
    for (unsigned b = 0; b < gx; b++) {
        running_block = b;
        std::memset(smem_raw, 0xff, smem); /* NaN floats until written */
        bars.clear();
        queue.clear();
        for (auto &n : named)
            n = named_bar{};
        for (auto &p : stores_pending)
            p = 0;
        blockIdx = {b, 0, 0};
        std::mt19937 rng(1234u + b);
        for (unsigned t = 0; t < bx; t++) {
            fiber &fb = fibers[t];
            fb.done = false;
            if (!fb.started)
                prepare(fb);
        }
        /* turns: every unfinished thread in order; the TMA unit takes a copy after one turn in
         * 8 bx at random (about one every 8 rounds), and whenever a round left every thread
         * where it was, then one that a thread waits for: copies land late, so a thread that
         * does not wait for one runs ahead of it */
        for (unsigned live = bx; live;) {
            bool progressed = false;
            live = 0;
            for (unsigned t = 0; t < bx; t++) {
                fiber &fb = fibers[t];
                if (fb.done)
                    continue;
                cur = &fb;
                threadIdx = {t, 0, 0};
                fb.stuck = false;
                resume(fb);
                progressed |= !fb.stuck;
                live += !fb.done;
                if (!queue.empty() && (fifo || rng() % (8 * bx) == 0)) {
                    tma_step(rng, fifo);
                    progressed = true;
                }
            }
            if (live && !progressed) {
                if (queue.empty())
                    hang();
                tma_step(rng, fifo, true);
            }
        }
        if (!queue.empty()) /* copies a block left behind land before the next block starts */
            while (!queue.empty())
                tma_step(rng, fifo);
    }
    grid_over = true;
    watchdog.join();
    return CUDA_SUCCESS;
}

extern "C" CUresult cuModuleGetGlobal(CUdeviceptr *ptr, size_t *bytes, CUmodule mod, const char *name)
{
    for (const kernelcpu_global *g = mod->globals; g && g->name; g++)
        if (std::strcmp(g->name, name) == 0) {
            *ptr = (CUdeviceptr)(uintptr_t)g->at;
            if (bytes)
                *bytes = g->bytes;
            return CUDA_SUCCESS;
        }
    std::fprintf(stderr, "kernelcpu: no global %s in the module\n", name);
    return 1;
}

extern "C" CUresult cuLaunchKernelEx(const CUlaunchConfig *cfg, CUfunction f, void **args, void **)
{
    return run_grid(f, cfg->gridDimX, cfg->blockDimX, cfg->sharedMemBytes, args);
}

extern "C" CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned, unsigned, unsigned bx,
                                   unsigned, unsigned, unsigned smem, CUstream, void **args, void **)
{
    return run_grid(f, gx, bx, smem, args);
}
