/* lds_read.h — what an mma sTask spends reading its operands from LDS into registers.
 *
 * On AMD CDNA3 the matrix instructions take their operands from VGPRs: the generated gfx942
 * kernels read every MFMA fragment out of LDS with ds_read first, and the CU's LDS moves a
 * fixed number of bytes per clock however many waves ask (docs/CODEGEN-gfx942.md). A model that
 * states that rate (`lds_read_bytes_per_clk`, MI300X) charges it; H100 and H200 leave it out
 * (wgmma reads shared memory itself: its cost is in the calibrated mma rate).
 *
 * The bytes of one instance of an mma sTask, as the gfx942 printers lay the work out: a
 * consumer role is 128 / warp_size waves splitting one output axis of the role's tile — the
 * output axis (largest tile) of an operand held in registers where there is one (attention:
 * each wave its own query rows of Q or P), else the output's innermost axis (GEMM: columns).
 * An operand in LDS (a body load's ring, a ring written by a dequant, a resident tile where the
 * layout keeps resident tiles in shared memory) is read by every wave when it lacks that axis
 * and once in all when it has it; an operand in registers (AMD's resident tiles, a value another
 * op produced) costs nothing here. An operand whose contracted axis is not its innermost is
 * gathered one element per lane and read, each element taking a 4-byte bank slot (ds_read_u16
 * for 16-bit types: half the rate of the 8-byte fragment reads). */
#ifndef PT_LDS_READ_H
#define PT_LDS_READ_H

#include "hw.h"
#include "stask.h"

/* LDS bank bytes one instance of sTask s reads; 0 for an sTask that is no mma, or on a model
 * without lds_read_bytes_per_clk. */
double pt_lds_read_bytes(const pt_stask_graph *sg, int s, const pt_hw *hw);

/* Those bytes at the model's rate (lds_read_bytes_per_clk x clock_ghz per ns), in ns. */
double pt_lds_read_ns(const pt_stask_graph *sg, int s, const pt_hw *hw);

#endif
