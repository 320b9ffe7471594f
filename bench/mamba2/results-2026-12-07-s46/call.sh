#!/usr/bin/env bash
# Session 46's device call: session 45's round1.sh (the committed ChunkScan pick against the
# three-warpgroup forms KERNELS at 8 x 2048 and 8 x 4096, PASSES harness passes, mamba_ssm
# interleaved) and, in the time left of TOTAL seconds, round2.sh (the pick against the --ragged
# pick at the larger shapes). Run from the repository root on the GPU machine after
# `source .deps/unpack.sh`.
set -u
S=$(date +%s)
TOTAL=${TOTAL:-560}
D=bench/mamba2/results-2026-12-07-s45
KERNELS=${KERNELS:-h3g3 h3rpa} PASSES=${PASSES:-2} timeout $((TOTAL - 150)) bash $D/round1.sh 2>&1 | tail -45
L=$(( TOTAL - ($(date +%s) - S) ))
echo "left $L s"
[ $L -gt 120 ] && END=$((L - 20)) timeout $L bash $D/round2.sh 2>&1 | tail -30
