/* gen_random_util.c — the pieces every workload's random draw shares (gen_random.h): the seeded
 * generator, the draw's record of its edits, moving sTasks, stores by a consumer, loading the
 * built-in graph and its default sProgram. Moved here unchanged from gen_random_sprogram.c, so
 * the existing workloads draw exactly what they drew before. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "embedded.h"
#include "splitk.h"
#include "gen_random.h"

bool small_sizes;

uint64_t next_u64(rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int uni(rng *r, int lo, int hi) /* [lo, hi] */
{
    return lo + (int)(next_u64(r) % (uint64_t)(hi - lo + 1));
}

bool chance(rng *r, int percent)
{
    return uni(r, 0, 99) < percent;
}

int pick(rng *r, const int *v, int n)
{
    return v[uni(r, 0, n - 1)];
}

void draw_run(draw *d, rng *r)
{
    const pt_partition_spec *ps = &d->p.partition;
    if (!ps->persistent || pt_sprogram_split_k(&d->p) > 1 || ps->stream_k > 0 ||
        !chance(r, 30))
        return;
    d->p.partition.run = pick(r, (const int[]){2, 2, 3, 4, 8, 64}, 6);
    /* a ring of one stage per iteration is what the walk keeps across tiles */
    bool keep = d->sg.iterations >= 1 && d->sg.iterations <= 8 && chance(r, 60);
    for (int s = 0; keep && s < d->sg.n; s++)
        if (d->sg.tasks[s].kind == PT_ST_LOAD && pt_stask_fills_ring(&d->sg, s))
            d->p.stages[d->sg.tasks[s].tensor] = (int)d->sg.iterations;
    note(d, "runs of %d tiles%s", d->p.partition.run,
         keep ? ", every ring one stage per iteration" : "");
}

void draw_free(draw *d)
{
    if (d->have_p)
        pt_sprogram_free(&d->p);
    if (d->have_sg)
        pt_stask_graph_free(&d->sg);
    d->have_p = d->have_sg = false;
}

void note(draw *d, const char *fmt, ...)
{
    size_t n = strlen(d->edits);
    if (n + 8 >= sizeof d->edits)
        return;
    va_list ap;
    va_start(ap, fmt);
    if (n)
        d->edits[n++] = ';', d->edits[n++] = ' ', d->edits[n] = 0;
    vsnprintf(d->edits + n, sizeof d->edits - n, fmt, ap);
    va_end(ap);
}

/* Sizes with a bias to the small and the ragged: half the time a few tiles, sometimes one. */
int draw_extent(rng *r, int multiple, int max)
{
    int v;
    switch (uni(r, 0, 5)) {
    case 0:
        v = uni(r, 1, 64);
        break;
    case 1:
        v = uni(r, 1, 4) * 64;
        break;
    case 2:
        v = uni(r, 65, 400);
        break;
    default:
        v = uni(r, 1, max);
        break;
    }
    v = (v + multiple - 1) / multiple * multiple;
    return v < multiple ? multiple : v > max ? max / multiple * multiple : v;
}

int stask(const draw *d, const char *id)
{
    return pt_stask_find(&d->sg, id);
}

/* Re-append an sTask on its own lane at a new position and/or offset. */
bool move_to(draw *d, int s, int pos, int offset, pt_error *err)
{
    int lane, cur;
    if (s < 0 || !pt_sprogram_placement(&d->p, s, &lane, &cur))
        return false;
    return pt_append(&d->p, &d->sg, s, lane, pos, offset, err);
}

int entry_offset(const draw *d, int s)
{
    int lane, pos;
    if (s < 0 || !pt_sprogram_placement(&d->p, s, &lane, &pos))
        return 0;
    return d->p.lanes[lane].entries[pos].offset;
}

bool set_offset(draw *d, const char *id, int offset, pt_error *err)
{
    int s = stask(d, id), lane, pos;
    if (s < 0 || !pt_sprogram_placement(&d->p, s, &lane, &pos))
        return false;
    if (!move_to(d, s, pos, offset, err))
        return false;
    note(d, "%s offset %+d", id, offset);
    return true;
}

void store_role(draw *d, rng *r, int wgs, pt_error *err)
{
    if (!chance(r, 30))
        return;
    store_role_on(d, uni(r, 0, wgs - 1), err);
}

/* The stores on consumer warpgroup w's own TMA lane. */
void store_role_on(draw *d, int w, pt_error *err)
{
    char role[16], lane[PT_LANE_NAME_MAX];
    snprintf(role, sizeof role, "wg%d", w);
    int ri = -1;
    for (int i = 0; i < d->p.n_roles; i++)
        if (!strcmp(d->p.roles[i].name, role))
            ri = i;
    if (ri < 0)
        return;
    snprintf(lane, sizeof lane, "tma.%s", role);
    int L = pt_sprogram_add_lane(&d->p, lane, PT_SEU_TMA, ri);
    if (L < 0)
        return;
    for (int s = 0; s < d->sg.n; s++)
        if (d->sg.tasks[s].kind == PT_ST_STORE)
            pt_append(&d->p, &d->sg, s, L, -1, 0, err);
    note(d, "stores by %s", role);
}

bool load_graph(draw *d, pt_error *err)
{
    const char *text = pt_embedded_find(pt_embedded_examples, d->workload);
    if (!text)
        return pt_fail(err, "no built-in example %s", d->workload);
    return pt_graph_load_text(&d->g, d->workload, text, strlen(text), d->set, err) &&
           pt_hw_load(&d->hw, "H200", err);
}

bool partition_default(draw *d, pt_error *err)
{
    pt_tiling t;
    pt_tiling_defaults(&d->g, &t);
    if (!pt_tiling_parse(&d->g, d->tile, "--tile", &t, err) || !pt_partition(&d->sg, &d->g, &t, err))
        return false;
    d->have_sg = true;
    if (!pt_sprogram_default(&d->p, &d->sg, &d->hw, err))
        return false;
    d->have_p = true;
    return true;
}
