/* steps.h — a consumer role's step program (codegen/ir/pass_step.c) printed as its loop over
 * the tile's iterations: fill copies, peeled steps, the steady loop (two steps per turn when a
 * register value has two slots) and drain copies, and straight-line copies for tiles with
 * fewer iterations. Every copy says at print time which tasks it has (a wgmma under a run-time
 * branch makes ptxas serialise every wgmma of the kernel, C7515). The walk, the waits, the
 * kept registers and the stage releases come from the program; the workload gives one thing,
 * the printer of a task's body (`task`). */
#ifndef PT_SM90A_STEPS_H
#define PT_SM90A_STEPS_H

#include "shape.h"

typedef struct sm90a_steps sm90a_steps;

/* One printed copy of a step: its operations, and which register slots it uses. */
typedef struct {
    const sm90a_steps *st;
    int w;
    int parity;   /* (v - first step) % 2 of this copy: picks the slots of two-slot values */
    const pt_kop *ops;
    int n_ops;
} sm90a_step_ctx;

struct sm90a_steps {
    const sm90a_shape *sh;
    const void *view;            /* the workload's plan, for `task` */
    /* each value's register array in the kernel ("s", "o"), NULL where never named */
    const char *val_name[PT_KP_MAX_VALS];
    /* prints task t of the copy: its Waits on the stages it reads, its records, one call */
    void (*task)(strbuf *sb, const sm90a_step_ctx *c, const pt_ktask *t);
};

/* Slot of iteration v + offset in a register value of `slots` (1 or 2) slots. */
int sm90a_step_slot(const sm90a_step_ctx *c, int offset, int slots);

/* The loop of consumer role w over its tile's n_iter iterations. */
void sm90a_emit_steps(strbuf *sb, const sm90a_steps *st, int w);

/* Consumer role w's counters of the named-barrier rings of the Waits between warpgroups
 * (pass_xwaits.c) that the steps sync on (xs) and arrive at (xa); declared once per role,
 * before its tile loop. */
void sm90a_emit_xwait_counters(strbuf *sb, const pt_kprog *kp, int w, const char *ind);

#endif
