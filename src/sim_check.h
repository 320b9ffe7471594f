/* sim_check.h — what the EU simulator (sim.c) and the wave model (waves.c) share: the check
 * that a timeline holds finite numbers, and the error that names the hardware model when not. */
#ifndef PT_SIM_CHECK_H
#define PT_SIM_CHECK_H

#include "sim.h"

bool pt_sim_timeline_finite(const pt_timeline *tl);
bool pt_sim_not_finite(const pt_hw *hw, pt_error *err);

#endif
