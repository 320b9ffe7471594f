/* trace_abi.h — the device buffer an instrumented kernel (built with -DPT_TRACE) fills with
 * per-sTask start/end times: the one definition, read by the device header (pt_device.cuh,
 * whose Tracer writes it), the bundle's harness (which sizes the buffer), the generated
 * launcher (pt_kernel_trace_layout) and traces/ (which parses it into measured spans). Every
 * bundle carries a copy, so this file must stay plain C that CUDA C++ also compiles.
 *
 * Layout (little-endian, all offsets in bytes):
 *   pt_trace_header                                   (64 bytes, written by CTA 0)
 *   for each sampled CTA c in [0, n_ctas):
 *     for each warp role r in [0, n_roles):           (0 = producer, 1 + w = consumer wg w)
 *       pt_trace_role_header                          (48 bytes)
 *       pt_trace_record[cap]                          (16 bytes each)
 * A CTA b is sampled when b % stride == 0 and b / stride < n_ctas (stride spreads the sample
 * over the grid, so over SMs). Each (CTA, role) region has a single writer, the role's
 * issuing thread, so no atomics are needed. Records hold clock64() values; the role header
 * brackets them with %globaltimer and clock64() read together at the role's first and last
 * record, which maps clocks to global time (ns) on that SM. A role that wrote more than `cap`
 * records keeps the first `cap` and counts the rest in `dropped`; the generated launcher
 * reports a `cap` sized from the launch (pt_kernel_trace_layout), so that does not happen
 * below PT_TRACE_CAP. */
#ifndef PT_TRACE_ABI_H
#define PT_TRACE_ABI_H

#include <stdint.h>

#define PT_TRACE_MAGIC 0x3145434152545450ull /* "PTTRACE1" */
#define PT_TRACE_VERSION 1u
#define PT_TRACE_MAX_CTAS 8u
#define PT_TRACE_MAX_ROLES 4u
/* Most records one (CTA, role) region holds. The generator sizes each launch's regions for
 * every record its tiles make (codegen/ir/pass_grid.c) up to this; beyond it a role keeps its first
 * `cap` records and counts the rest in `dropped`, which the trace and the explorer state. */
#define PT_TRACE_CAP 131072u

typedef struct {
    uint64_t magic;
    uint32_t version;
    uint32_t n_ctas;      /* sampled CTAs */
    uint32_t n_roles;
    uint32_t cap;         /* records per (CTA, role) */
    uint32_t stride;      /* CTA sampling stride */
    uint32_t grid;        /* CTAs launched */
    uint64_t reserved[4];
} pt_trace_header;

typedef struct {
    uint32_t block;       /* blockIdx.x of the CTA; 0xffffffff if this role wrote nothing */
    uint32_t smid;        /* %smid */
    uint32_t count;       /* records written (<= cap) */
    uint32_t dropped;     /* records that did not fit */
    uint64_t gt0, clk0;   /* %globaltimer and clock64() at the role's first record */
    uint64_t gt1, clk1;   /* ... and after its last */
} pt_trace_role_header;

typedef struct {
    uint64_t clk;         /* clock64() */
    uint16_t stask;       /* sTask index in the sTask-graph */
    uint8_t lane;         /* lane index in the sProgram */
    uint8_t is_end;       /* 0 start, 1 end */
    uint16_t tile;        /* tile number within this CTA (persistent kernels run several) */
    uint16_t iter;        /* loop iteration (0 for prologue/epilogue sTasks) */
} pt_trace_record;

#ifdef __cplusplus
static_assert(sizeof(pt_trace_header) == 64 && sizeof(pt_trace_role_header) == 48 &&
                  sizeof(pt_trace_record) == 16, "trace ABI sizes");
#endif

static inline uint64_t pt_trace_buffer_bytes(uint32_t n_ctas, uint32_t n_roles, uint32_t cap)
{
    return sizeof(pt_trace_header) +
           (uint64_t)n_ctas * n_roles * (sizeof(pt_trace_role_header) + (uint64_t)cap * sizeof(pt_trace_record));
}

#endif
