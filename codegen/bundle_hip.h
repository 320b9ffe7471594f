/* bundle_hip.h — the whole bundle of a HIP target (bundle_hip.c), which the bundle writer
 * (bundle.c: pt_codegen_bundle) hands a HIP backend to. */
#ifndef PT_BUNDLE_HIP_H
#define PT_BUNDLE_HIP_H

#include "backend.h"

/* The whole bundle of a HIP target: kernel.hip, launch.c, reference.hip, the device library,
 * harness.hip with its table, Makefile for hipcc, README. */
bool pt_bundle_hip(const char *dir, const pt_sprogram *p, const pt_stask_graph *sg,
                   const pt_hw *hw, const pt_backend *be, pt_codegen_result *info, pt_error *err);

#endif
