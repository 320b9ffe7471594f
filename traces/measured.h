/* measured.h — the measured side of a profile: the instrumented kernel's device buffer
 * (codegen/trace_abi.h) turned into spans per sampled CTA and lane, placed on the kernel's
 * CUPTI span, and aligned with the predicted timeline.
 *
 * Parsing validates everything before use (size against the header, magic, version, counts
 * against cap, every index) and refuses a bad buffer with one line naming the file and the
 * field, e.g. "trace.bin: ctas[1].roles[0].records[17].lane: 9 is out of range; expected 0
 * to 4 (the sProgram's lanes)". It never reads outside the buffer. */
#ifndef PT_MEASURED_H
#define PT_MEASURED_H

#include <stddef.h>
#include <stdint.h>

#include "timeline_json.h"
#include "trace_abi.h"

/* Clock rate assumed when a role's header cannot give one (its first and last clock64()
 * reads are equal): the H100/H200 SM clock. */
#define PT_MEASURED_DEFAULT_GHZ 1.98

/* Parse a raw trace buffer. n_stasks and n_lanes bound the records' sTask and lane indices
 * (the sTask-graph's sTasks, the sProgram's lanes). Start and end records of the same (sTask,
 * lane, tile, iter) written by one warp role pair into a span; clock64() values become ns on
 * the line through the role's (globaltimer, clock) pairs. Times are relative to the earliest
 * record (origin "first_record"; m->origin_globaltimer holds its %globaltimer). The kernel
 * timing (m->kernel) is left unknown (NaN). Free with pt_measured_free. */
bool pt_measured_parse(pt_measured *m, const char *name, const void *buf, size_t len,
                       int n_stasks, int n_lanes, pt_error *err);
/* The same from a file (at most 256 MiB). */
bool pt_measured_load_file(pt_measured *m, const char *path, int n_stasks, int n_lanes,
                           pt_error *err);

/* Place the spans on the instrumented launch's CUPTI span [kernel_start_ns, kernel_end_ns]
 * (GPU timestamps; %globaltimer reads the same clock). When every record lies inside the span
 * (1 us of slack), time 0 becomes the kernel start and the spans keep their real offsets
 * (origin "cupti_kernel_start"; first_warp_delay_ns = earliest record - kernel start,
 * last_warp_gap_ns = kernel end - latest record). Otherwise the clocks disagree: the earliest
 * record is put at the kernel start (origin "kernel_start_aligned", delays unknown). */
void pt_measured_place(pt_measured *m, uint64_t kernel_start_ns, uint64_t kernel_end_ns);

/* Align predicted (tl) with measured (m): per sTask (mean duration, error, first start),
 * per lane (busy %), and the kernel time (tl->kernel_time_ns against the plain build's median
 * m->kernel.plain_ms_median). Definitions in timeline_json.h (pt_align_stask, pt_align_lane).
 * Every sTask in [0, n_stasks) and lane in [0, n_lanes) gets an entry. Free with
 * pt_alignment_free. */
bool pt_align(pt_alignment *a, const pt_timeline *tl, const pt_measured *m, int n_stasks,
              int n_lanes, pt_error *err);

/* The relative error is pt_error_pct() (busy.h, via timeline_json.h). */

#endif
