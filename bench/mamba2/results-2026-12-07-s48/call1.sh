#!/usr/bin/env bash
# Session 48, first device call: the generator's fix of session 47 (codegen/ir/pass_step.c,
# decision 4) on the GPU. (1) bench/mamba2/diag/verify.sh: the racing three-warpgroup forms as
# now generated, checked launch after launch, and the pick at 8 x 2048 against its pre-fix form
# (.dev/old-h2s, carried), timed; (2) tests/gpu/release-race-test.sh; (3) every variant of
# tests/codegen/variants.txt whose kernel.cu the fixes changed (changed-variants.txt: 89 ChunkScan /
# ChunkState, 9 decode-combine, 29 low-bit GEMM with the rows dequantised in registers, whose
# warps now fence before handing Wq's and the scales' stages back; GEMM and attention kernels
# are byte-identical) through
# run-gpu-tests.sh, every element checked; (4) tests/gpu/device-lib-test.sh; (5) with TOTAL
# seconds set, what is left of them on call2.sh's low-bit fence A/B at M 1.
# From the repository root on the GPU machine after `source .deps/unpack.sh`.
set -u
S0=$(date +%s)
D=bench/mamba2/results-2026-12-07-s48
PASSES=2 LAUNCHES=4 timeout 200 bash bench/mamba2/diag/verify.sh 2>&1 | tail -25
. bench/common/round-start.sh call1
echo "== release-race"; timeout 150 sh tests/gpu/release-race-test.sh "$CLI" 2>&1 | tee $R/race.txt | tail -12
echo "== changed variants $(( $(date +%s) - T0 )) s"
grep -wFf $D/changed-variants.txt tests/codegen/variants.txt > /tmp/chg.txt; wc -l < /tmp/chg.txt
JOBS=16 RUN_TIMEOUT=60 HARNESS_ARGS=--check-only timeout 260 sh tests/gpu/run-gpu-tests.sh "$CLI" /tmp/chg.txt /tmp/chg-out > $R/changed.txt 2>&1
echo "rc $?"; grep -v " true " $R/changed.txt | tail -20; grep -c " true " $R/changed.txt
cp /tmp/chg-out/results.jsonl $R/changed.jsonl 2>/dev/null
echo "== device lib $(( $(date +%s) - T0 )) s"; timeout 90 sh tests/gpu/device-lib-test.sh 2>&1 | tail -5
echo "done $(( $(date +%s) - T0 )) s"
# (5) with TOTAL seconds given and enough of them left: call2.sh's low-bit part at M 1
L=$(( ${TOTAL:-0} - ($(date +%s) - S0) ))
[ $L -gt 120 ] && LB_MS=1 SHAPES= PASSES=2 timeout $((L - 10)) bash $D/call2.sh 2>&1 | tail -30
