/* hw.h — hardware models: one EU (SM / CU) and its sEUs.
 *
 * Embedded defaults for H100 SXM, H200 and MI300X (JSON files in src/hw, compiled in) and JSON
 * overrides (docs/FORMAT-hw.md). Times are nanoseconds, rates are per EU (per SM), so the simulator
 * needs no clock. Every constant carries its source in the JSON ("source" fields). */
#ifndef PT_HW_H
#define PT_HW_H

#include "stask.h"

#define PT_HW_MAX_CLUSTER 8 /* CTAs of a portable thread-block cluster */

/* Cost of an sTask kind on one dtype: duration = latency_ns + amount / rate, where amount is
 * bytes (load/store), flops (mma) or elements (cuda-core pieces). rate <= 0: unsupported. */
typedef struct {
    double rate;
    double latency_ns;
    double peak_rate;      /* CUDA-core pieces: the EU's rate for this kind with several warp
                              roles running it at once (their issue-rate peak). One role's piece
                              alone runs at `rate`, which a latency-bound piece keeps below the
                              peak, and uses rate / peak_rate of the EU's CUDA cores; other roles'
                              pieces use what is left (sim.c). 0: one piece takes all of them */
} pt_cost;

typedef struct {
    bool present;
    bool async;            /* the issuing warp goes on after issue */
    int max_in_flight;     /* async: operations outstanding at once per EU (0 = no limit) */
    double issue_ns;       /* time the issuing warp spends issuing one operation */
} pt_seu_model;

typedef struct {
    char name[48];         /* "H200" */
    char vendor[16];       /* "nvidia" | "amd" */
    char arch[16];         /* "sm_90a" | "gfx942" */
    char source[256];      /* where the numbers come from, with dates */
    int eu_count;
    double clock_ghz;
    int warp_size;
    int64_t smem_per_eu;         /* bytes of shared memory / LDS per EU */
    int64_t smem_per_block;      /* largest opt-in dynamic shared memory for one block */
    int64_t regs_per_eu;         /* 32-bit registers per EU */
    int max_regs_per_thread;
    int min_regs_per_thread;     /* setmaxnreg lower bound */
    int max_threads_per_block;
    int max_warps_per_eu;
    int64_t l2_bytes;
    double hbm_bytes_per_ns;     /* whole chip (GB/s / 1) */
    double l2_bytes_per_ns;      /* whole chip */
    double hbm_write_bytes_per_ns; /* whole chip, the outputs' writes (0 = at hbm_bytes_per_ns) */
    double l2_sm_bytes_per_ns;   /* one SM's L2 port: the most one EU's loads get when fewer
                                    EUs than eu_count share l2_bytes_per_ns (0 = not modelled:
                                    loads keep their calibrated rate) */
    double reuse_bytes_per_ns;   /* whole chip: the last-level cache bandwidth that serves an
                                    operand tile other EUs already read (cache_reuse.h; MI300X's
                                    Infinity Cache). 0 = not modelled: every load at the load
                                    rate (H100, H200: calibrated with L2 hits included) */
    double dequant_rows_rate;    /* elements/ns of one EU dequantising into the mma's row
                                    operand (each consumer warpgroup its own rows into wgmma's A
                                    fragments, pt_stask_dequant_rows), for all its warpgroups
                                    together: fitted on generated kernels, whose conversions
                                    wait on shared-memory loads and the wgmma groups they feed.
                                    0 = the cost table's dequant rate */
    double dequant_rows_fp4_rate; /* the same for fp4 (e2m1) weights, whose unpacking takes more
                                    instructions per pair than int4's; 0 = dequant_rows_rate */
    double dequant_frag_rate;    /* dequant_rows_rate where the weights are packed in the order
                                    of the fragments (packing.h "fragments": a pair is a shift and
                                    a mask, no byte permute); 0 = dequant_rows_rate */
    double dequant_frag_fp4_rate; /* the same for fp4 weights; 0 = dequant_frag_rate */
    double dequant_rows_block_ns; /* and each such dequant sTask's fixed time per k block on its
                                    warpgroup (its barrier waits, its first shared-memory loads, the
                                    wgmma groups it waits for), during which the other roles may
                                    use the CUDA cores: a latency, not a rate */
    double dequant_frag_block_ns; /* dequant_rows_block_ns where the weights are packed as
                                    fragments (fewer, wider shared-memory loads before the first
                                    conversion); 0 = dequant_rows_block_ns */
    double dequant_tile_rate;    /* the same for the producer's warps dequantising a tile into a
                                    shared-memory ring that the consumers' wgmma reads
                                    (pt_stask_writes_ring); 0 = the cost table's */
    double lds_read_bytes_per_clk; /* one EU's shared-memory read bandwidth into registers, per
                                    clock: an mma whose operands the kernel reads from LDS with
                                    ds_read first (AMD CDNA3) is charged those bytes at this rate
                                    times clock_ghz (lds_read.h). 0 = not modelled (H100, H200:
                                    wgmma reads shared memory itself) */
    int simds_per_eu;            /* SIMDs of one EU, each with its own matrix core and vector ALU
                                    at 1 / simds_per_eu of the EU's mma and cuda-core rates; a
                                    wave runs on one SIMD (AMD CDNA3: 4). The simulator then
                                    serves a role's tensor-core and CUDA-core work on the SIMDs
                                    its waves sit on (simd_serve.h), and the validator deals the
                                    waves over this many SIMDs (regfile.h). 0 = not modelled:
                                    one tensor-core stream per EU shared by all roles, one
                                    CUDA-core server (H100, H200) */
    double cuda_core_power;      /* power-capped clock: CUDA-core work draws this much power per
                                    busy ns relative to the tensor cores' (whose sustained mma
                                    rates hold at the capped clock of a GEMM); a kernel keeping
                                    both busy runs every on-SM unit at a clock lowered by
                                    1 / (u_tc + cuda_core_power * u_cc) (sim.c), the whole
                                    chip's: scaled by CTAs / EUs for a grid of fewer CTAs
                                    (waves.c). 0: not modelled */
    int cuda_core_fair;          /* 1: CUDA-core pieces of different warp roles that overlap share
                                    the EU's CUDA cores max-min fairly, each piece in flight
                                    slowed when another starts (processor sharing, sim.c cc_fair);
                                    only for programs whose loop-body CUDA-core pieces all
                                    have a peak_rate (sim.c loop_cc_all_peaked);
                                    0: a piece only gets what the pieces committed before it
                                    leave (cc_serve) */
    double barrier_ns;           /* one cross-warp barrier hand-off (arrive -> waiter wakes) */
    double barrier_wait_ns;      /* what a warp role's wait on another role's barrier costs it
                                    even when the phase has already completed (try_wait, and the
                                    warpgroup's warps meeting again at the wgmma fence that
                                    follows): paid before the sTask that waits is issued.
                                    0 = free when the data is already there */
    double launch_ns;            /* kernel launch overhead added to every kernel (with
                                    launch_ramp_floor_ns: to every kernel whose DRAM floor is
                                    at least that long) */
    double launch_base_ns;       /* with launch_ramp_floor_ns: the launch of a kernel that moves
                                    almost nothing; the overhead grows linearly with the DRAM
                                    floor from this to launch_ns at launch_ramp_floor_ns, the
                                    start-up of loads every CTA issues at once (waves.h) */
    double launch_ramp_floor_ns; /* 0 = launch_ns for every kernel */
    double dependent_launch_saved_ns; /* what a kernel launched as the programmatic dependent of
                                    the kernel before it (FlashDecoding's combine after its
                                    partial) saves of launch_ns: its launch and prologue overlap
                                    the first kernel's tail. 0 = nothing (no such launch) */
    double tile_overhead_ns;     /* per output tile (block scheduling, tile index math) */
    double wg_store_stagger;     /* per-warpgroup stores (tiling wg_stores) on a persistent
                                    CTA: the share of the warpgroups' stagger at a joint store
                                    (the last warpgroup's epilogue end less the first's) that a
                                    follow-on tile wins back, its early warpgroups starting the
                                    next tile without waiting for the others (waves.c). 0 =
                                    nothing */
    double dynamic_claim_ns;     /* per tile a persistent CTA claims from a dynamic hand-out
                                    (an atomic on a global counter before the tile's loads);
                                    0 = free */
    double proxy_fence_ns;       /* per instance of a CUDA-core sTask that hands its ring stages
                                    back behind a proxy fence once read (stage_hold.h): the
                                    warp waits there for its shared-memory loads; 0 = free.
                                    Dequantisation's fitted rates already hold theirs */
    /* The factored decay's pieces (decay_form.h): their work per element as a fraction of the
     * tile form's exp_decay, tile multiply and vector multiply at those kinds' rates; 0 = the
     * instruction-count estimates of decay_form.h */
    double decay_factored_exp_work, decay_factored_tile_work, decay_factored_vec_work;
    /* decay "factored16": its vector multiply's work as a fraction of decay "factored"'s; 0 =
     * decay_form.h's */
    double decay_factored16_vec_work;
    double dram_blend_p;         /* kernel time = (span^p + floor^p)^(1/p) of the SM pipelines'
                                    span and the DRAM floor: a kernel near its floor does not
                                    overlap compute and HBM perfectly. 0 = max(span, floor) */
    double dram_short_run;       /* the fraction of hbm_gbps a tensor is read at when each load
                                    reads runs of fewer than 256 contiguous bytes along the loop
                                    axis (one 128-byte swizzle atom of a longer row per stage: a
                                    k tile of 64 half-precision elements). 0 = the full rate */
    double dram_run_halving;     /* runs shorter than 128 bytes (a k tile of 128 or 64 packed
                                    4-bit elements: 64 or 32 bytes of each weight row) read at
                                    dram_short_run times this for each halving below 128.
                                    0 = as 128-byte runs */
    double dram_overfill_ns;     /* the bytes the whole chip's rings may hold in flight, as ns of
                                    hbm_gbps, before a kernel that writes as much as it reads
                                    streams slower (pt_waves_overfill_rate). 0 = no limit */
    double dram_overfill_doubling; /* the DRAM rate's factor per doubling beyond it */
    /* thread-block clusters (hw "clusters"; partition.split_k_reduce cluster): cluster_capacity[c]
     * is how many clusters of c CTAs, one CTA per EU, are resident at once (the GPCs' SM
     * counts decide it, cudaOccupancyMaxActiveClusters measures it); 0 = clusters of c are
     * not modelled. cluster_sync_ns: a chunk's partial tile handed to the leading CTA of its
     * cluster through distributed shared memory, from the others' arrival to the leader's
     * wake-up. All 0: no clusters. */
    int cluster_capacity[PT_HW_MAX_CLUSTER + 1];
    double cluster_sync_ns;
    int mma_m;                   /* tensor-core instruction rows per warpgroup (64) */
    int mma_n_max, mma_n_step;   /* allowed N: step..max by step */
    int mma_k_bytes;             /* K-extent of one instruction, bytes (32: k16 for f16) */
    int64_t tma_box_max;         /* largest box dim, elements (256) */
    double tma_oob_row_ns;       /* TMA unit time per box row (of one atom, <= 128 bytes) that
                                    lies past the tensor's end and is zero-filled; a model with
                                    it also charges clamped boxes their rows only (tma_box.h).
                                    0 = boxes not modelled: every load costs its whole tile */
    pt_seu_model seu[PT_SEU_COUNT];
    pt_cost cost[PT_ST_KIND_COUNT][PT_DTYPE_COUNT];
    char file[256];        /* where it was loaded from ("builtin H200" or the path), for
                              messages only: not part of the model, not written back */
} pt_hw;

/* Smallest positive cost rate (amount per ns) and bandwidth (bytes per ns) a model may give:
 * with the largest amounts the graph limits allow (2^46 elements), every duration, and every
 * sum of them the simulator forms, stays a finite double far below 1e308. */
#define PT_HW_MIN_RATE 1e-6
#define PT_HW_MAX_RATE 1e9

/* Names of the embedded models: "H100", "H200", "MI300X" (case-insensitive on lookup). */
const char *const *pt_hw_builtin_names(void);
/* Load a builtin by name, else a JSON file path (which may itself say "base": "H200" and
 * override a few fields). */
bool pt_hw_load(pt_hw *hw, const char *name_or_file, pt_error *err);
bool pt_hw_load_text(pt_hw *hw, const char *name, const char *text, size_t len, pt_error *err);
/* The embedded JSON text of a builtin, or NULL. */
const char *pt_hw_builtin_json(const char *name);
/* Write a model as JSON (the same format the loader reads). Returns malloc'd text. */
char *pt_hw_to_json(const pt_hw *hw);

/* Duration of one sTask of `kind` on `dtype` moving/doing `amount` (ns); < 0 if unsupported. */
double pt_hw_duration(const pt_hw *hw, pt_stask_kind kind, pt_dtype dtype, double amount);

#endif
