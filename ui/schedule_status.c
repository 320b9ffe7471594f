/* schedule_status.c — the status bar's facts (see schedule_status.h). */
#include "schedule_status.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "codegen.h"

void pt_schedule_status_compute(pt_schedule_status *st, const pt_explorer_model *m)
{
    memset(st, 0, sizeof *st);
    st->kernel_ns = NAN;
    if (!m || !m->have_prog || !m->have_sg)
        return;
    if (m->have_tl)
        st->kernel_ns = m->tl.kernel_time_ns;
    pt_error verr = {{0}};
    bool valid = pt_validate(&m->prog, &m->sg, &m->hw, &st->val, &verr);
    st->smem_over = st->val.smem_limit > 0 && st->val.smem_bytes > st->val.smem_limit;
    st->regs_over = st->val.regs_limit > 0 && st->val.regs_total > st->val.regs_limit;
    for (int r = 0; r < m->prog.n_roles && r < PT_MAX_ROLES; r++)
        st->role_over[r] = m->prog.roles[r].wg >= 0 &&
                           st->val.regs_needed[r] > m->prog.roles[r].regs;
    const pt_backend *be = pt_backend_for_arch(m->hw.arch);
    if (!be) {
        st->gen = PT_GEN_NO_BACKEND;
        if (!valid)
            snprintf(st->reason, sizeof st->reason, "%s", verr.msg);
        return;
    }
    snprintf(st->backend, sizeof st->backend, "%s", be->name);
    if (!valid) {
        st->gen = PT_GEN_INVALID;
        snprintf(st->reason, sizeof st->reason, "%s", verr.msg);
        return;
    }
    /* The whole generator, not only its plan: what the Code page and the export would do, so the
     * status and the kernel can never disagree. */
    pt_codegen_result r = {0};
    pt_error gerr = {{0}};
    if (be->generate(&m->prog, &m->sg, &m->hw, &r, &gerr)) {
        st->gen = PT_GEN_OK;
    } else {
        st->gen = PT_GEN_REFUSED;
        snprintf(st->reason, sizeof st->reason, "%s",
                 gerr.msg[0] ? gerr.msg : "the generator refused the sProgram");
    }
    pt_codegen_result_free(&r);
}

bool pt_schedule_status_flagged(const pt_schedule_status *st)
{
    return st->gen == PT_GEN_REFUSED || st->gen == PT_GEN_INVALID || st->smem_over ||
           st->regs_over || (st->gen == PT_GEN_NO_BACKEND && st->reason[0]);
}

const char *pt_schedule_status_format_ns(double ns, char *out, size_t cap)
{
    if (!isfinite(ns))
        snprintf(out, cap, "—");
    else if (fabs(ns) >= 1e6)
        snprintf(out, cap, "%.3f ms", ns / 1e6);
    else if (fabs(ns) >= 1e3)
        snprintf(out, cap, "%.2f µs", ns / 1e3);
    else
        snprintf(out, cap, "%.1f ns", ns);
    return out;
}

const char *pt_schedule_status_generator_text(const pt_schedule_status *st,
                                              const pt_explorer_model *m, char *out, size_t cap)
{
    switch (st->gen) {
    case PT_GEN_NONE:
        snprintf(out, cap, "nothing loaded");
        break;
    case PT_GEN_OK:
        snprintf(out, cap, "✓ %s: generatable", st->backend);
        break;
    case PT_GEN_REFUSED:
        snprintf(out, cap, "✗ %s: NOT generatable — %s", st->backend, st->reason);
        break;
    case PT_GEN_INVALID:
        snprintf(out, cap, "✗ INVALID on %s (%s cannot generate it) — %s", m->hw.name,
                 st->backend, st->reason);
        break;
    case PT_GEN_NO_BACKEND:
        if (st->reason[0])
            snprintf(out, cap, "✗ %s (%s): no code generator for this hardware, and the sProgram "
                     "is INVALID here — %s", m->hw.name, m->hw.arch, st->reason);
        else
            snprintf(out, cap, "%s (%s): no code generator for this hardware — the timeline is a "
                     "prediction only", m->hw.name, m->hw.arch);
        break;
    }
    return out;
}

static const char *kb(int64_t bytes, char *out, size_t cap)
{
    snprintf(out, cap, "%.1f KB", (double)bytes / 1024.0);
    return out;
}

const char *pt_schedule_status_resources_text(const pt_schedule_status *st,
                                              const pt_explorer_model *m, char *out, size_t cap)
{
    if (st->gen == PT_GEN_NONE) {
        snprintf(out, cap, "—");
        return out;
    }
    size_t n = 0;
    n += (size_t)snprintf(out + n, cap - n, "registers/thread (needed/budget):");
    for (int r = 0; r < m->prog.n_roles && r < PT_MAX_ROLES && n < cap; r++)
        n += (size_t)snprintf(out + n, cap - n, "%s %s %d/%d%s", r ? "," : "",
                              m->prog.roles[r].name, st->val.regs_needed[r],
                              m->prog.roles[r].regs, st->role_over[r] ? " OVER" : "");
    if (n < cap)
        n += (size_t)snprintf(out + n, cap - n, "; per EU %lld of %lld%s",
                              (long long)st->val.regs_total, (long long)st->val.regs_limit,
                              st->regs_over ? " OVER" : "");
    char a[32], b[32];
    if (n < cap)
        snprintf(out + n, cap - n, " · shared memory %s of %s%s",
                 kb(st->val.smem_bytes, a, sizeof a), kb(st->val.smem_limit, b, sizeof b),
                 st->smem_over ? " OVER the limit" : "");
    return out;
}

const char *pt_schedule_status_time_text(const pt_schedule_status *st, double prev_ns, char *out,
                                         size_t cap)
{
    char t[48];
    pt_schedule_status_format_ns(st->kernel_ns, t, sizeof t);
    if (isfinite(st->kernel_ns) && isfinite(prev_ns) && prev_ns > 0) {
        double pct = (st->kernel_ns - prev_ns) / prev_ns * 100.0;
        /* U+2212 for minus, as typeset; "±0.0%" when the edit did not move it. */
        if (fabs(pct) < 0.05)
            snprintf(out, cap, "predicted kernel %s (±0.0%%)", t);
        else
            snprintf(out, cap, "predicted kernel %s (%s%.1f%%)", t, pct < 0 ? "−" : "+",
                     fabs(pct));
    } else {
        snprintf(out, cap, "predicted kernel %s", t);
    }
    return out;
}
