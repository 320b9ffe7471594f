#!/usr/bin/env bash
# Session 48's device call: the generator's fixes on the GPU, most needed first, within TOTAL
# seconds (partial results stay under $OUT). (1) tests/gpu/release-race-test.sh: the three-
# warpgroup ChunkScan forms that raced and the pick, several seeds; (2) every variant of
# tests/codegen/variants.txt whose kernel.cu the fixes changed (changed-variants.txt: 89 ChunkScan /
# ChunkState, 9 decode-combine, 29 low-bit GEMM with the rows dequantised in registers, whose
# warps now fence before handing Wq's and the scales' stages back; GEMM and attention kernels
# are byte-identical) through run-gpu-tests.sh, every element checked; (3) bench/mamba2/diag/
# verify.sh: the racing forms checked launch after launch, and the pick at 8 x 2048 timed against
# its pre-fix form (.dev/old-h2s, carried); (4) call2.sh's low-bit fence A/B at M 1.
# From the repository root on the GPU machine after `source .deps/unpack.sh`.
set -u
S0=$(date +%s)
TOTAL=${TOTAL:-560}
left() { echo $(( TOTAL - ($(date +%s) - S0) )); }
D=bench/mamba2/results-2026-12-07-s48
. bench/common/round-start.sh call1
echo "== release-race"; timeout 150 sh tests/gpu/release-race-test.sh "$CLI" 2>&1 | tee $R/race.txt | tail -12
echo "== changed variants $(( $(date +%s) - T0 )) s"
grep -wFf $D/changed-variants.txt tests/codegen/variants.txt > /tmp/chg.txt; wc -l < /tmp/chg.txt
JOBS=16 RUN_TIMEOUT=60 HARNESS_ARGS=--check-only timeout $(( $(left) - 20 )) sh tests/gpu/run-gpu-tests.sh "$CLI" /tmp/chg.txt /tmp/chg-out > $R/changed.txt 2>&1
echo "rc $?"; grep -v " true " $R/changed.txt | tail -20; grep -c " true " $R/changed.txt
cp /tmp/chg-out/results.jsonl $R/changed.jsonl 2>/dev/null
echo "== verify, $(left) s left"
[ $(left) -gt 100 ] && PASSES=2 LAUNCHES=3 timeout $(( $(left) - 10 )) bash bench/mamba2/diag/verify.sh 2>&1 | tail -25
echo "== low-bit, $(left) s left"
[ $(left) -gt 100 ] && LB_MS=1 SHAPES= PASSES=2 timeout $(( $(left) - 10 )) bash $D/call2.sh 2>&1 | tail -30
echo "done $(( $(date +%s) - S0 )) s"
