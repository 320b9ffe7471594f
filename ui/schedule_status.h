/* schedule_status.h — can the sProgram on screen become a kernel, and what does it cost: the
 * facts the explorer's permanent status bar shows after every load and edit (issue 19), so that
 * a schedule the generator refuses never looks as good as one it accepts.
 *
 * Plain C over the model and the code generators (no GTK): the status is computed once per
 * model change and formatted into one line per subject, which the window shows and a test can
 * read. */
#ifndef PT_SCHEDULE_STATUS_H
#define PT_SCHEDULE_STATUS_H

#include <stdbool.h>
#include <stddef.h>

#include "explorer_model.h"
#include "validate.h"

typedef enum {
    PT_GEN_NONE,        /* nothing loaded */
    PT_GEN_OK,          /* the backend accepts the sProgram */
    PT_GEN_REFUSED,     /* the backend refuses it: reason says why */
    PT_GEN_INVALID,     /* the sProgram does not validate on this hardware model */
    PT_GEN_NO_BACKEND,  /* no generator for this hardware (MI300X today) */
} pt_gen_state;

typedef struct {
    pt_gen_state gen;
    char backend[32];           /* "sm90a", or "" with PT_GEN_NO_BACKEND */
    char reason[PT_ERROR_MAX];  /* the refusal or the first validation problem */
    pt_validation val;          /* registers and shared memory against the limits */
    bool smem_over, regs_over;  /* beyond the hardware model's limits */
    bool role_over[PT_MAX_ROLES]; /* a role needs more registers than its budget */
    double kernel_ns;           /* predicted kernel time (NaN: none) */
} pt_schedule_status;

/* Validate, ask the generator for this hardware and read the prediction. */
void pt_schedule_status_compute(pt_schedule_status *st, const pt_explorer_model *m);

/* Whether the timeline should be drawn as not executable (refused, invalid, over a limit). */
bool pt_schedule_status_flagged(const pt_schedule_status *st);

/* The status lines, plain text (UTF-8) in out[cap]; each returns out.
 * generator: "sm90a: generatable" / "sm90a: NOT generatable — <reason>" / "MI300X (gfx942): no
 *   code generator for this hardware; …".
 * resources: "registers/thread: producer 40/40, wg0 184/152 OVER …; shared memory 229.0 KB of
 *   64.0 KB OVER".
 * time: "kernel 1.234 ms (−3.1%)": prev_ns is the kernel time before the last edit (NaN or
 *   <= 0: no change shown). */
const char *pt_schedule_status_generator_text(const pt_schedule_status *st,
                                              const pt_explorer_model *m, char *out, size_t cap);
const char *pt_schedule_status_resources_text(const pt_schedule_status *st,
                                              const pt_explorer_model *m, char *out, size_t cap);
const char *pt_schedule_status_time_text(const pt_schedule_status *st, double prev_ns, char *out,
                                         size_t cap);
/* A duration for people: "812.4 ns", "23.45 µs", "1.234 ms". */
const char *pt_schedule_status_format_ns(double ns, char *out, size_t cap);

#endif
