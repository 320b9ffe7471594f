/* measured.c — parse the instrumented kernel's trace buffer into measured spans, place them on
 * the CUPTI kernel span, and align them with the predicted timeline (measured.h).
 *
 * The buffer is read field by field as little-endian integers at computed offsets (never
 * through casts of the buffer), after its size has been checked against its own header, so a
 * truncated or corrupt file is refused with one line and never read past its end. */
#include "measured.h"
#include "json_util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HDR_BYTES 64u
#define ROLE_BYTES 48u
#define REC_BYTES 16u

_Static_assert(sizeof(pt_trace_header) == HDR_BYTES, "trace_abi.h header size");
_Static_assert(sizeof(pt_trace_role_header) == ROLE_BYTES, "trace_abi.h role header size");
_Static_assert(sizeof(pt_trace_record) == REC_BYTES, "trace_abi.h record size");

static uint64_t rd(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* ---- parsing ---- */

typedef struct {
    int stask, lane, tile, iter;
    double start;
} pending;

/* One record, its clock mapped to ns. */
typedef struct {
    double t;
    int stask, lane, tile, iter, is_end;
    size_t seq;
} rec;

/* Time order; at equal times starts before ends, then buffer order. */
static int cmp_rec(const void *a, const void *b)
{
    const rec *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->is_end != y->is_end)
        return x->is_end - y->is_end;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

typedef struct {
    pt_mspan *v;
    int64_t n, cap;
} span_vec;

static bool push_span(span_vec *s, const pt_mspan *sp)
{
    if (s->n == s->cap) {
        int64_t cap = s->cap ? 2 * s->cap : 256;
        pt_mspan *nv = realloc(s->v, (size_t)cap * sizeof *nv);
        if (!nv)
            return false;
        s->v = nv;
        s->cap = cap;
    }
    s->v[s->n++] = *sp;
    return true;
}

static int cmp_span(const void *a, const void *b)
{
    const pt_mspan *x = a, *y = b;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    if (x->lane != y->lane)
        return x->lane - y->lane;
    return (x->end_ns > y->end_ns) - (x->end_ns < y->end_ns);
}

/* One (CTA, role) region: its header fields. */
typedef struct {
    uint32_t block, smid, count, dropped;
    uint64_t gt0, clk0, gt1, clk1;
    bool empty;
} role_hdr;

static void read_role(const unsigned char *p, role_hdr *h)
{
    h->block = (uint32_t)rd(p, 4);
    h->smid = (uint32_t)rd(p + 4, 4);
    h->count = (uint32_t)rd(p + 8, 4);
    h->dropped = (uint32_t)rd(p + 12, 4);
    h->gt0 = rd(p + 16, 8);
    h->clk0 = rd(p + 24, 8);
    h->gt1 = rd(p + 32, 8);
    h->clk1 = rd(p + 40, 8);
    /* A role that wrote nothing: zeroed by the harness, or marked by the kernel. */
    h->empty = h->block == 0xffffffffu || (h->count == 0 && h->dropped == 0);
}

bool pt_measured_parse(pt_measured *m, const char *name, const void *buf, size_t len,
                       int n_stasks, int n_lanes, pt_error *err)
{
    memset(m, 0, sizeof *m);
    const unsigned char *b = buf;
    if (!b || len < HDR_BYTES)
        return pt_fail(err, "%s: is %zu bytes; expected at least %u (the trace header): not a "
                       "trace buffer, or truncated", name, len, HDR_BYTES);
    uint64_t magic = rd(b, 8);
    uint32_t version = (uint32_t)rd(b + 8, 4), n_ctas = (uint32_t)rd(b + 12, 4);
    uint32_t n_roles = (uint32_t)rd(b + 16, 4), cap = (uint32_t)rd(b + 20, 4);
    uint32_t stride = (uint32_t)rd(b + 24, 4), grid = (uint32_t)rd(b + 28, 4);
    if (magic != PT_TRACE_MAGIC)
        return pt_fail(err, "%s: header.magic: 0x%016llx is not a PipeThreader trace buffer; "
                       "expected 0x%016llx (\"PTTRACE1\")", name, (unsigned long long)magic,
                       (unsigned long long)PT_TRACE_MAGIC);
    if (version != PT_TRACE_VERSION)
        return pt_fail(err, "%s: header.version: %u; expected %u", name, version,
                       PT_TRACE_VERSION);
    if (n_ctas < 1 || n_ctas > PT_TRACE_MAX_CTAS)
        return pt_fail(err, "%s: header.n_ctas: %u; expected 1 to %u", name, n_ctas,
                       PT_TRACE_MAX_CTAS);
    if (n_roles < 1 || n_roles > PT_TRACE_MAX_ROLES)
        return pt_fail(err, "%s: header.n_roles: %u; expected 1 to %u", name, n_roles,
                       PT_TRACE_MAX_ROLES);
    if (cap < 1 || cap > PT_TRACE_CAP)
        return pt_fail(err, "%s: header.cap: %u; expected 1 to %u", name, cap, PT_TRACE_CAP);
    if (grid < 1 || stride < 1 || (uint64_t)(n_ctas - 1) * stride >= grid)
        return pt_fail(err, "%s: header.stride: %u with %u sampled CTAs does not fit header.grid "
                       "%u; expected stride >= 1 and (n_ctas - 1) * stride < grid", name, stride,
                       n_ctas, grid);
    uint64_t want = pt_trace_buffer_bytes(n_ctas, n_roles, cap);
    if ((uint64_t)len != want)
        return pt_fail(err, "%s: is %zu bytes; expected %llu for %u CTAs x %u roles x %u records "
                       "(header.n_ctas, n_roles, cap)%s", name, len, (unsigned long long)want,
                       n_ctas, n_roles, cap, (uint64_t)len < want ? ": truncated" : "");
    if (n_stasks < 1 || n_stasks > 65536 || n_lanes < 1 || n_lanes > 256)
        return pt_fail(err, "%s: cannot check the records: %d sTasks and %d lanes given", name,
                       n_stasks, n_lanes);

    m->ctas = calloc(n_ctas, sizeof *m->ctas);
    const size_t pend_cap = (size_t)n_roles * cap;
    pending *pend = malloc(pend_cap * sizeof *pend);
    span_vec sv = {0};
    if (!m->ctas || !pend) {
        free(pend);
        free(m->ctas);
        m->ctas = NULL;
        return pt_fail(err, "%s: out of memory", name);
    }
    m->n_ctas = (int)n_ctas;
    m->sample_grid = grid;
    m->sample_stride = stride;
    m->sample_ctas = n_ctas;
    m->sample_cap = cap;
    const size_t region = ROLE_BYTES + (size_t)cap * REC_BYTES;
    /* Times are first taken relative to `base`, the smallest globaltimer anchor, in integer
     * arithmetic: globaltimer values (~1e18) do not fit a double to the nanosecond. */
    uint64_t base = UINT64_MAX;
    for (uint32_t c = 0; c < n_ctas; c++)
        for (uint32_t r = 0; r < n_roles; r++) {
            role_hdr h;
            read_role(b + HDR_BYTES + ((size_t)c * n_roles + r) * region, &h);
            if (!h.empty && h.gt0 < base)
                base = h.gt0;
        }
    bool ok = true;
    int kept = 0;
    for (uint32_t c = 0; c < n_ctas && ok; c++) {
        pt_mcta *ct = &m->ctas[kept];
        bool any = false;
        sv.n = 0;
        /* Pass 1: the role headers. All warps of a CTA read one SM clock, so one line maps it
         * to globaltimer ns for every role: from the earliest opening stamps to the latest
         * closing ones (the longest baseline). */
        uint64_t f_gt = 0, f_clk = UINT64_MAX, l_gt = 0, l_clk = 0;
        size_t n_rec = 0;
        for (uint32_t r = 0; r < n_roles && ok; r++) {
            role_hdr h;
            read_role(b + HDR_BYTES + ((size_t)c * n_roles + r) * region, &h);
            if (h.empty)
                continue;
            char where[64];
            snprintf(where, sizeof where, "ctas[%u].roles[%u]", c, r);
            if (h.block != (uint64_t)c * stride)
                ok = pt_fail(err, "%s: %s.block: %u; expected %llu (sampled CTA %u, stride %u)",
                             name, where, h.block, (unsigned long long)c * stride, c, stride);
            else if (h.count > cap)
                ok = pt_fail(err, "%s: %s.count: %u is more than header.cap %u", name, where,
                             h.count, cap);
            else if (any && (int64_t)h.smid != ct->smid)
                ok = pt_fail(err, "%s: %s.smid: %u differs from the CTA's other roles (%lld); "
                             "expected one SM per CTA", name, where, h.smid, (long long)ct->smid);
            else if (h.count > 0 && (h.gt1 < h.gt0 || h.clk1 < h.clk0))
                ok = pt_fail(err, "%s: %s: the closing stamps (globaltimer %llu, clock %llu) are "
                             "before the opening ones (%llu, %llu); expected them after", name,
                             where, (unsigned long long)h.gt1, (unsigned long long)h.clk1,
                             (unsigned long long)h.gt0, (unsigned long long)h.clk0);
            if (!ok)
                break;
            any = true;
            ct->block = h.block;
            ct->smid = h.smid;
            ct->dropped += h.dropped;
            n_rec += h.count;
            if (h.clk0 < f_clk) {
                f_clk = h.clk0;
                f_gt = h.gt0;
            }
            if (h.clk1 >= l_clk) {
                l_clk = h.clk1;
                l_gt = h.gt1;
            }
        }
        if (!ok)
            break;
        if (!any)
            continue; /* a CTA with no records at all is left out */
        double slope = 1.0 / PT_MEASURED_DEFAULT_GHZ; /* ns per clock */
        if (l_clk > f_clk && l_gt > f_gt) {
            double s = (double)(l_gt - f_gt) / (double)(l_clk - f_clk);
            if (s > 0.05 && s < 20.0) /* a plausible SM clock: 50 MHz to 20 GHz */
                slope = s;
        }
        double anchor = (double)(int64_t)(f_gt - base);
        /* Pass 2: every record of the CTA in time order (a load starts on the producer's role
         * and ends on a consumer's), then starts and ends paired by (sTask, lane, tile,
         * iteration). */
        rec *rv = malloc((n_rec + 1) * sizeof *rv);
        if (!rv) {
            ok = pt_fail(err, "%s: out of memory", name);
            break;
        }
        size_t k = 0;
        for (uint32_t r = 0; r < n_roles && ok; r++) {
            const unsigned char *p = b + HDR_BYTES + ((size_t)c * n_roles + r) * region;
            role_hdr h;
            read_role(p, &h);
            if (h.empty)
                continue;
            for (uint32_t i = 0; i < h.count; i++) {
                const unsigned char *q = p + ROLE_BYTES + (size_t)i * REC_BYTES;
                uint64_t clk = rd(q, 8);
                rec x = {0, (int)rd(q + 8, 2), (int)rd(q + 10, 1), (int)rd(q + 12, 2),
                         (int)rd(q + 14, 2), (int)rd(q + 11, 1), k};
                if (x.stask >= n_stasks)
                    ok = pt_fail(err, "%s: ctas[%u].roles[%u].records[%u].stask: %d is out of "
                                 "range; expected 0 to %d (the sTask-graph's sTasks)", name, c, r,
                                 i, x.stask, n_stasks - 1);
                else if (x.lane >= n_lanes)
                    ok = pt_fail(err, "%s: ctas[%u].roles[%u].records[%u].lane: %d is out of "
                                 "range; expected 0 to %d (the sProgram's lanes)", name, c, r, i,
                                 x.lane, n_lanes - 1);
                else if (x.is_end > 1)
                    ok = pt_fail(err, "%s: ctas[%u].roles[%u].records[%u].is_end: %d; expected "
                                 "0 (start) or 1 (end)", name, c, r, i, x.is_end);
                if (!ok)
                    break;
                /* signed clock difference: a record may precede the opening stamps a little */
                x.t = anchor + (double)(int64_t)(clk - f_clk) * slope;
                rv[k++] = x;
            }
        }
        if (ok && k > 0) /* qsort must not get a NULL array, even with no elements */
            qsort(rv, k, sizeof *rv, cmp_rec);
        int n_pend = 0;
        for (size_t i = 0; ok && i < k; i++) {
            const rec *x = &rv[i];
            int j = n_pend - 1; /* the latest matching start */
            while (j >= 0 && !(pend[j].stask == x->stask && pend[j].lane == x->lane &&
                               pend[j].tile == x->tile && pend[j].iter == x->iter))
                j--;
            if (!x->is_end) {
                if (j >= 0) {
                    ct->unpaired++; /* a second start: the first one never ended */
                    ct->unpaired_lanes |= 1u << (x->lane & 31);
                    pend[j].start = x->t;
                } else if ((size_t)n_pend < pend_cap)
                    pend[n_pend++] = (pending){x->stask, x->lane, x->tile, x->iter, x->t};
                else {
                    ct->unpaired++;
                    ct->unpaired_lanes |= 1u << (x->lane & 31);
                }
                continue;
            }
            if (j < 0) {
                ct->unpaired++; /* an end without its start */
                ct->unpaired_lanes |= 1u << (x->lane & 31);
                continue;
            }
            pt_mspan sp = {x->stask, x->lane, x->tile, x->iter, pend[j].start, x->t};
            memmove(&pend[j], &pend[j + 1], (size_t)(n_pend - j - 1) * sizeof *pend);
            n_pend--;
            if (!push_span(&sv, &sp))
                ok = pt_fail(err, "%s: out of memory", name);
        }
        ct->unpaired += n_pend; /* starts that never ended (or whose end did not fit) */
        for (int j = 0; j < n_pend; j++)
            ct->unpaired_lanes |= 1u << (pend[j].lane & 31);
        free(rv);
        if (!ok)
            break;
        if (sv.n > 0)
            qsort(sv.v, (size_t)sv.n, sizeof *sv.v, cmp_span);
        ct->spans = malloc(((size_t)sv.n + 1) * sizeof *ct->spans);
        if (!ct->spans) {
            ok = pt_fail(err, "%s: out of memory", name);
            break;
        }
        if (sv.n)
            memcpy(ct->spans, sv.v, (size_t)sv.n * sizeof *sv.v);
        ct->n_spans = sv.n;
        ct->iter_first = ct->iter_last = -1;
        for (int64_t i = 0; i < sv.n; i++) {
            if (ct->iter_first < 0 || sv.v[i].iter < ct->iter_first)
                ct->iter_first = sv.v[i].iter;
            if (sv.v[i].iter > ct->iter_last)
                ct->iter_last = sv.v[i].iter;
        }
        kept++;
        m->n_ctas = kept;
    }
    free(sv.v);
    free(pend);
    if (ok && kept == 0)
        ok = pt_fail(err, "%s: no sampled CTA recorded anything (every role's count is 0): the "
                     "kernel was not the instrumented build, or it did not run", name);
    if (!ok) {
        m->n_ctas = (int)n_ctas; /* every slot: calloc'd, spans NULL where none were made */
        pt_measured_free(m);
        return false;
    }
    m->n_ctas = kept;
    /* time 0 = the earliest record */
    double t0 = HUGE_VAL, t1 = -HUGE_VAL;
    for (int c = 0; c < m->n_ctas; c++)
        for (int64_t i = 0; i < m->ctas[c].n_spans; i++) {
            if (m->ctas[c].spans[i].start_ns < t0)
                t0 = m->ctas[c].spans[i].start_ns;
            if (m->ctas[c].spans[i].end_ns > t1)
                t1 = m->ctas[c].spans[i].end_ns;
        }
    if (t0 == HUGE_VAL)
        t0 = t1 = 0;
    if (!(t0 > -1e15 && t1 < 1e15)) {
        pt_measured_free(m);
        return pt_fail(err, "%s: the records' times span beyond 1e15 ns of the first CTA start "
                            "(role headers' globaltimer/clock64 stamps are inconsistent); expected "
                            "the records of one kernel launch", name);
    }
    double whole = floor(t0);
    for (int c = 0; c < m->n_ctas; c++)
        for (int64_t i = 0; i < m->ctas[c].n_spans; i++) {
            m->ctas[c].spans[i].start_ns -= whole;
            m->ctas[c].spans[i].end_ns -= whole;
        }
    m->origin_globaltimer = base + (uint64_t)(int64_t)whole; /* whole may be < 0 */
    m->present = true;
    strcpy(m->build, "instrumented");
    strcpy(m->origin, "first_record");
    m->first_warp_delay_ns = m->last_warp_gap_ns = NAN;
    pt_mkernel *k = &m->kernel;
    k->plain_ms_median = k->plain_ms_min = k->plain_ms_max = NAN;
    k->instr_ms_median = k->instr_ms_min = k->instr_ms_max = NAN;
    k->overhead_pct = k->traced_kernel_ns = NAN;
    k->cupti_ms_median = k->cupti_ms_min = k->cupti_ms_max = NAN;
    return true;
}

bool pt_measured_load_file(pt_measured *m, const char *path, int n_stasks, int n_lanes,
                           pt_error *err)
{
    memset(m, 0, sizeof *m);
    char *text = NULL;
    size_t n = 0;
    /* The shared reader: regular files only (a FIFO must not hang the profiler). */
    bool ok = pt_read_file_limit(path, (size_t)256 << 20, &text, &n, err);
    unsigned char *buf = (unsigned char *)text;
    ok = ok && buf && pt_measured_parse(m, path, buf, n, n_stasks, n_lanes, err);
    free(buf);
    return ok;
}

/* ---- placement ---- */

void pt_measured_place(pt_measured *m, uint64_t kernel_start_ns, uint64_t kernel_end_ns)
{
    if (!m || !m->present || kernel_end_ns < kernel_start_ns)
        return;
    double t0 = HUGE_VAL, t1 = -HUGE_VAL;
    for (int c = 0; c < m->n_ctas; c++)
        for (int64_t i = 0; i < m->ctas[c].n_spans; i++) {
            const pt_mspan *s = &m->ctas[c].spans[i];
            t0 = s->start_ns < t0 ? s->start_ns : t0;
            t1 = s->end_ns > t1 ? s->end_ns : t1;
        }
    if (t0 == HUGE_VAL)
        t0 = t1 = 0;
    /* the records' span in globaltimer ns, relative to the kernel start */
    double shift = (double)(int64_t)(m->origin_globaltimer - kernel_start_ns);
    double first = shift + t0, last = shift + t1;
    double length = (double)(kernel_end_ns - kernel_start_ns), slack = 1000.0;
    if (first >= -slack && last <= length + slack) {
        strcpy(m->origin, "cupti_kernel_start");
        m->first_warp_delay_ns = first;
        m->last_warp_gap_ns = length - last;
    } else {
        shift = -t0; /* the earliest record at the kernel start */
        strcpy(m->origin, "kernel_start_aligned");
        m->first_warp_delay_ns = m->last_warp_gap_ns = NAN;
    }
    for (int c = 0; c < m->n_ctas; c++)
        for (int64_t i = 0; i < m->ctas[c].n_spans; i++) {
            m->ctas[c].spans[i].start_ns += shift;
            m->ctas[c].spans[i].end_ns += shift;
        }
    m->origin_globaltimer = kernel_start_ns;
    m->kernel.traced_kernel_ns = length;
}

/* ---- alignment ---- */

bool pt_align(pt_alignment *a, const pt_timeline *tl, const pt_measured *m, int n_stasks,
              int n_lanes, pt_error *err)
{
    memset(a, 0, sizeof *a);
    if (!tl || !m || n_stasks < 0 || n_lanes < 0 || n_lanes > PT_MAX_LANES)
        return pt_fail(err, "align: missing timeline or measured spans, or %d lanes (at most %d)",
                       n_lanes, PT_MAX_LANES);
    a->stasks = calloc((size_t)n_stasks + 1, sizeof *a->stasks);
    double *p_sum = calloc((size_t)n_stasks + 1, sizeof *p_sum);
    double *p_first = malloc(((size_t)n_stasks + 1) * sizeof *p_first);
    double *m_sum = calloc((size_t)n_stasks + 1, sizeof *m_sum);
    double *m_sq = calloc((size_t)n_stasks + 1, sizeof *m_sq);
    double *f_sum = calloc((size_t)n_stasks + 1, sizeof *f_sum);   /* first starts, summed */
    int64_t *f_cnt = calloc((size_t)n_stasks + 1, sizeof *f_cnt);
    double *g_first = malloc(((size_t)n_stasks + 1) * sizeof *g_first); /* per (CTA, tile) */
    int64_t max_spans = 0;
    for (int c = 0; c < m->n_ctas; c++)
        max_spans = m->ctas[c].n_spans > max_spans ? m->ctas[c].n_spans : max_spans;
    pt_interval *iv = malloc(((size_t)max_spans + 1) * sizeof *iv);
    bool ok = a->stasks && p_sum && p_first && m_sum && m_sq && f_sum && f_cnt && g_first && iv;
    if (!ok) {
        pt_fail(err, "align: out of memory");
        goto done;
    }
    /* predicted */
    /* A span is issue -> completion (busy.h), predicted and measured alike. */
    double p0 = HUGE_VAL;
    for (int64_t i = 0; i < tl->n_spans; i++)
        p0 = tl->spans[i].issue_ns < p0 ? tl->spans[i].issue_ns : p0;
    for (int s = 0; s < n_stasks; s++)
        p_first[s] = HUGE_VAL;
    for (int64_t i = 0; i < tl->n_spans; i++) {
        const pt_span *sp = &tl->spans[i];
        if (sp->stask < 0 || sp->stask >= n_stasks)
            continue;
        a->stasks[sp->stask].predicted_count++;
        p_sum[sp->stask] += sp->end_ns - sp->issue_ns;
        if (sp->issue_ns - p0 < p_first[sp->stask])
            p_first[sp->stask] = sp->issue_ns - p0;
    }
    /* measured: durations over every span; first starts per (CTA, tile) */
    for (int c = 0; c < m->n_ctas; c++) {
        const pt_mcta *ct = &m->ctas[c];
        int max_tile = -1;
        for (int64_t i = 0; i < ct->n_spans; i++) {
            const pt_mspan *sp = &ct->spans[i];
            if (sp->stask < 0 || sp->stask >= n_stasks)
                continue;
            pt_align_stask *o = &a->stasks[sp->stask];
            double d = sp->end_ns - sp->start_ns;
            if (o->measured_count == 0 || d < o->measured_min_ns)
                o->measured_min_ns = d;
            if (o->measured_count == 0 || d > o->measured_max_ns)
                o->measured_max_ns = d;
            o->measured_count++;
            m_sum[sp->stask] += d;
            m_sq[sp->stask] += d * d;
            max_tile = sp->tile > max_tile ? sp->tile : max_tile;
        }
        for (int tile = 0; tile <= max_tile; tile++) {
            double g0 = HUGE_VAL;
            for (int s = 0; s < n_stasks; s++)
                g_first[s] = HUGE_VAL;
            for (int64_t i = 0; i < ct->n_spans; i++) {
                const pt_mspan *sp = &ct->spans[i];
                if (sp->tile != tile || sp->stask < 0 || sp->stask >= n_stasks)
                    continue;
                g0 = sp->start_ns < g0 ? sp->start_ns : g0;
                if (sp->start_ns < g_first[sp->stask])
                    g_first[sp->stask] = sp->start_ns;
            }
            for (int s = 0; s < n_stasks && g0 < HUGE_VAL; s++)
                if (g_first[s] < HUGE_VAL) {
                    f_sum[s] += g_first[s] - g0;
                    f_cnt[s]++;
                }
        }
    }
    for (int s = 0; s < n_stasks; s++) {
        pt_align_stask *o = &a->stasks[s];
        o->stask = s;
        o->predicted_mean_ns = o->predicted_count ? p_sum[s] / (double)o->predicted_count : NAN;
        o->measured_mean_ns = o->measured_count ? m_sum[s] / (double)o->measured_count : NAN;
        if (o->measured_count) {
            double var = m_sq[s] / (double)o->measured_count -
                         o->measured_mean_ns * o->measured_mean_ns;
            o->measured_stddev_ns = var > 0 ? sqrt(var) : 0;
        } else
            o->measured_min_ns = o->measured_max_ns = o->measured_stddev_ns = NAN;
        o->error_pct = pt_error_pct(o->predicted_mean_ns, o->measured_mean_ns);
        o->predicted_first_start_ns = p_first[s] < HUGE_VAL ? p_first[s] : NAN;
        o->measured_first_start_ns = f_cnt[s] ? f_sum[s] / (double)f_cnt[s] : NAN;
        o->start_error_ns = o->predicted_first_start_ns - o->measured_first_start_ns;
        if (!isfinite(o->start_error_ns))
            o->start_error_ns = NAN;
    }
    a->n_stasks = n_stasks;
    /* lanes */
    for (int L = 0; L < n_lanes; L++) {
        pt_align_lane *o = &a->lanes[L];
        o->lane = L;
        o->predicted_busy_pct = pt_timeline_lane_busy_pct(tl, L);
        o->predicted_occupancy_pct = pt_timeline_lane_occupancy_pct(tl, L);
        o->measured_partial = pt_measured_lane_partial(m, L);
        double sum = 0;
        int n = 0;
        for (int c = 0; c < m->n_ctas; c++) {
            const pt_mcta *ct = &m->ctas[c];
            double lo = HUGE_VAL, hi = -HUGE_VAL;
            int64_t k = 0;
            for (int64_t i = 0; i < ct->n_spans; i++) {
                const pt_mspan *sp = &ct->spans[i];
                lo = sp->start_ns < lo ? sp->start_ns : lo;
                hi = sp->end_ns > hi ? sp->end_ns : hi;
                if (sp->lane == L)
                    iv[k++] = (pt_interval){sp->start_ns, sp->end_ns};
            }
            double pct = pt_busy_pct(iv, k, lo, hi);
            if (!isfinite(pct))
                continue;
            sum += pct;
            n++;
        }
        o->measured_busy_pct = n ? sum / n : NAN;
    }
    a->n_lanes = n_lanes;
    a->predicted_kernel_ns = tl->kernel_time_ns;
    a->measured_kernel_ns = m->kernel.plain_ms_median * 1e6;
    if (!isfinite(a->measured_kernel_ns))
        a->measured_kernel_ns = NAN;
    a->kernel_error_pct = pt_error_pct(a->predicted_kernel_ns, a->measured_kernel_ns);
    a->partial = pt_measured_partial(m);
    a->present = true;
done:
    free(p_sum);
    free(p_first);
    free(m_sum);
    free(m_sq);
    free(f_sum);
    free(f_cnt);
    free(g_first);
    free(iv);
    if (!ok)
        pt_alignment_free(a);
    return ok;
}
