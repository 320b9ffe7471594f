/* packing.h — where a 4-bit tensor's elements lie in its bytes.
 *
 * "rows" (the default): row-major, two elements per byte, the even element along the innermost
 * axis in the low nibble.
 *
 * "fragments": the order in which a Hopper warp holds wgmma's A fragments (m64 x k16 per
 * warpgroup, as mma.m16n8k16's A per warp), so that the register form of the low-bit GEMM (the
 * tensor-core rows on the weights' rows) turns a 16-byte shared-memory load into its registers
 * with one mask per element pair and no byte permutes. A [N, K] tensor keeps its [N, K/2] bytes;
 * each block of 16 rows by 64 k (512 bytes) is re-ordered in place, so TMA boxes of whole blocks
 * load it as they load "rows":
 *   - lane L of the warp holding the block's rows takes rows L/4 and L/4 + 8 and, within each
 *     k16 step, the element pairs starting at k 2(L%4) and 2(L%4) + 8;
 *   - its 16 bytes are four words: chunk 0 (k 0..31) of its two rows, then chunk 1 (k 32..63);
 *   - in a word, pair j = 2t + h (k16 step t, h = 1 for the pair 8 k later) keeps its first
 *     element at nibble j and its second at nibble j + 4, so (word >> 4j) & 0x000F000F is the pair
 *     in the two halves of a 32-bit register;
 *   - the 16 bytes lie at row L % 16 of the block, bytes 16 (L / 16) on: the 8 lanes of a
 *     shared-memory phase then read 8 different rows of one 16-byte column, which TMA's swizzle
 *     spreads over all banks.
 * It needs the rows a multiple of 16 and the innermost extent a multiple of 64. */
#ifndef PT_PACKING_H
#define PT_PACKING_H

#include <stdbool.h>
#include <stdint.h>

#include "pt_error.h"

typedef enum { PT_PACK_ROWS = 0, PT_PACK_FRAGMENTS } pt_packing;

#define PT_PACK_FRAG_ROWS 16
#define PT_PACK_FRAG_K 64

const char *pt_packing_name(pt_packing p);
/* false for an unknown name */
bool pt_packing_parse(const char *name, pt_packing *out);

/* The nibble index (byte = index / 2, low nibble when even) of element (n, k) of a [rows, K]
 * tensor packed as p. */
int64_t pt_packed_nibble(pt_packing p, int64_t n, int64_t k, int64_t K);

/* Whether a [rows, K] tensor can be packed as p; when not, err says which extent and the rule
 * (`what` names the tensor for the message). */
bool pt_packing_fits(pt_packing p, int64_t rows, int64_t K, const char *what, pt_error *err);

#endif
