/* simd_serve.c — per-SIMD tensor-core and CUDA-core servers (simd_serve.h). */
#include "simd_serve.h"

static int waves_of(const pt_role_def *r, int warp)
{
    int n = r->threads > 0 ? (r->threads + warp - 1) / warp : 1;
    return n > 0 ? n : 1;
}

int pt_simd_role_waves(const pt_sprogram *p, int R, const pt_hw *hw, int *first)
{
    int warp = hw->warp_size > 0 ? hw->warp_size : 64;
    const pt_role_def *role = &p->roles[R];
    int before = 0, all = 0;
    for (int r = 0; r < p->n_roles; r++) {
        const pt_role_def *o = &p->roles[r];
        if (o->wg < 0)
            continue;
        all += waves_of(o, warp);
        if (role->wg >= 0 && o->wg < role->wg)
            before += waves_of(o, warp);
    }
    if (role->wg >= 0) {
        *first = before;
        return waves_of(role, warp);
    }
    *first = 0;
    return all > 0 ? all : waves_of(role, warp); /* the producer: every consumer wave */
}

double pt_simd_serve(double *free, int simds, int first, int n, double ready, double work_ns,
                     double *start)
{
    if (simds < 1)
        simds = 1;
    if (n < 1)
        n = 1;
    double share = work_ns * simds / n, last = ready;
    for (int w = first; w < first + n; w++) {
        double *f = &free[w % simds];
        double b = ready > *f ? ready : *f;
        *f = b + share;
        if (w == first || b < *start)
            *start = b;
        if (*f > last)
            last = *f;
    }
    return last;
}
