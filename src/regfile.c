/* regfile.c — the register file a workgroup takes, by vendor (see regfile.h). */
#include "regfile.h"

#include <stdint.h>
#include <string.h>

bool pt_regfile_per_kernel(const pt_hw *hw)
{
    return hw && strcmp(hw->vendor, "amd") == 0;
}

static int64_t sat_mul(int64_t a, int64_t b)
{
    return a > 0 && b > INT64_MAX / a ? INT64_MAX : a * b;
}

int pt_regfile_launch_regs(const pt_hw *hw, int64_t threads)
{
    int64_t per_eu = hw && hw->regs_per_eu > 0 ? hw->regs_per_eu : 65536;
    int64_t max = hw && hw->max_regs_per_thread > 0 ? hw->max_regs_per_thread : 255;
    int64_t r = threads > 0 ? per_eu / threads : max;
    if (r > max)
        r = max;
    r -= r % 8;
    return (int)(r < 0 ? 0 : r);
}

void pt_regfile_use_of(const pt_sprogram *p, const pt_hw *hw, pt_regfile_use *u)
{
    memset(u, 0, sizeof *u);
    int n = p->n_roles < 0 ? 0 : p->n_roles > PT_MAX_ROLES ? PT_MAX_ROLES : p->n_roles;
    if (!pt_regfile_per_kernel(hw)) {
        int64_t threads = 0;
        for (int r = 0; r < n; r++)
            if (p->roles[r].threads > 0 && p->roles[r].regs > 0) {
                int64_t c = sat_mul(p->roles[r].regs, p->roles[r].threads);
                u->claim = c > INT64_MAX - u->claim ? INT64_MAX : u->claim + c;
                threads += p->roles[r].threads > 1 << 20 ? 1 << 20 : p->roles[r].threads;
            }
        u->launch_regs = pt_regfile_launch_regs(hw, threads);
        u->pool = sat_mul(u->launch_regs, threads);
        return;
    }
    u->per_kernel = true;
    int warp = hw->warp_size > 0 ? hw->warp_size : 64;
    int64_t waves = 0; /* the validator never trusts a program: no int overflow here */
    for (int r = 0; r < n; r++) {
        if (p->roles[r].regs > u->budget)
            u->budget = p->roles[r].regs;
        if (p->roles[r].threads > 0)
            waves += ((int64_t)p->roles[r].threads + warp - 1) / warp;
    }
    u->waves = waves > INT32_MAX ? INT32_MAX : (int)waves;
    /* The model's SIMD count where it states one (simd_serve.h deals the waves the same way),
     * else what the register file implies: simds x 512 x 64. */
    int64_t per_simd = (int64_t)(hw->max_regs_per_thread > 0 ? hw->max_regs_per_thread : 1) * warp;
    int64_t simds = hw->simds_per_eu > 0 ? hw->simds_per_eu : hw->regs_per_eu / per_simd;
    u->simds = simds < 1 ? 1 : simds > 64 ? 64 : (int)simds;
    u->waves_per_simd = (int)((waves + u->simds - 1) / u->simds);
    u->claim = sat_mul(sat_mul(sat_mul(u->budget, u->waves_per_simd), warp), u->simds);
}
