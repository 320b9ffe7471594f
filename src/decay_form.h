/* decay_form.h — how an exp_decay tile is lowered: element by element, or as its factors.
 *
 * exp_decay makes D[r, c] = exp(x_r - y_c) (0 where c > r when causal). Where D only scales a
 * loaded tile T and a vector w along c on the way to a matmul over c (Mamba2's ChunkScan:
 * P = T · D · w, then y += P · X), the row factor leaves the reduction:
 *     y[r] += exp(x_r - p) · Σ_c T[r, c] · (exp(p - y_c) · w_c) · X[c]
 * for any pivot p. So each k block needs one exponential per column (shared by the rows) and
 * one multiply per element, and the row factor scales the accumulators once per tile. The "factored" form is
 * this; "tile" (the default) computes every element's exponential. */
#ifndef PT_DECAY_FORM_H
#define PT_DECAY_FORM_H

#include <stdbool.h>

#include "graph.h"
#include "pt_error.h"

/* FACTORED16 is the factored form with each column factor (times the vector) rounded to the
 * tile's 16-bit type before it scales the tile, so an element of the decayed tile is rounded
 * twice (the factor, then the product) where FACTORED rounds it once: half the CUDA-core
 * instructions per element (one paired multiply instead of a multiply and a fused add, one
 * shuffle instead of two), for about 1.4x the rounding error of that operand. */
typedef enum { PT_DECAY_TILE, PT_DECAY_FACTORED, PT_DECAY_FACTORED16 } pt_decay_form;

const char *pt_decay_form_name(pt_decay_form f);
bool pt_decay_form_parse(const char *s, pt_decay_form *out);
/* Either factored form (the pivot, the column factors and the row factor). */
static inline bool pt_decay_is_factored(pt_decay_form f)
{
    return f == PT_DECAY_FACTORED || f == PT_DECAY_FACTORED16;
}

/* The ops the factored form rewrites: the exp_decay, the multiply of a tile by its result
 * ("tile"), and the multiply of that by a vector along the decay's columns ("vec"), whose
 * result is an operand of a matmul reducing over those columns. */
typedef struct {
    int op_decay, op_tile, op_vec, op_matmul;
} pt_decay_chain;

/* The factored form's work per element relative to the tile form's pieces at their rates, used
 * where the hardware model gives none (hw.h decay_factored_*_work). By instruction counts per
 * thread and k block of 64 columns (pt_ssd.cuh) the pieces do far less: exp_decay 9 against 134
 * (a lane's 2 columns, each an FFMA, a range test and an MUFU.EX2, and a vote; against 18
 * exponentials and a mask per element), the tile's multiply 4 ldmatrix against 68, the vector's
 * 58 against 64 (the factor in two 16-bit parts, 16 shuffles, 16 paired multiplies and 16 fused
 * adds). Measured on the H200 the whole kernel is only about 2% faster (the tile form's decay
 * work is mostly hidden under the tensor cores), so these are the one fraction that reproduces
 * that (src/hw/H200.json says where it was fitted). */
#define PT_DECAY_FACTORED_EXP_WORK 0.92
#define PT_DECAY_FACTORED_TILE_WORK 0.92
#define PT_DECAY_FACTORED_VEC_WORK 0.92
/* The vector's multiply of FACTORED16 against FACTORED's: 34 instructions per thread and k block
 * against 58 by count (0.59), but fitted, as the three above are, to what the whole kernel
 * gained: 3.0% on the H100 with ChunkScan's pick at B 8, S 2048 and 4096 (0.25 predicts 2.8%;
 * 0.6 predicted 0.5%). */
#define PT_DECAY_FACTORED16_VEC_WORK 0.25

/* How the factored form rounds, which the reference mirrors (codegen/reference.c): each warp's
 * PT_DECAY_PIVOT_ROWS rows (aligned along the decay's rows) take the first as the pivot p, and
 * the decayed tile is rounded to 16 bits in units of the row factor exp(x_r - p): as
 * round(P / rf) * rf rather than round(P). A warp keeps that while its rows stay within the
 * range (nats from the pivot) of the tile's type, and rounds P itself otherwise. The kernel's
 * constants (codegen/device/pt_ssd.cuh FACTORED_RANGE) are these. */
#define PT_DECAY_PIVOT_ROWS 16
#define PT_DECAY_FACTORED_RANGE_BF16 40.0
#define PT_DECAY_FACTORED_RANGE_F16 4.0

/* Finds that chain in g; false with a one-line reason (what the factored form needs) when g
 * has none. */
bool pt_decay_chain_find(const pt_graph *g, pt_decay_chain *c, pt_error *err);

#endif
