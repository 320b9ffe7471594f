#!/usr/bin/env bash
# A device round (session 35, H100): every Mamba2 variant of tests/codegen/variants.txt (and its
# input-range runs) on the GPU with this session's input draws and f32 convert; 30 random Mamba2
# sPrograms (tests/gpu/differential.sh); then .dev/exp4 (carried): the H100 ChunkScan picks at
# 8 x 8192 and 64 x 8192, ChunkState at 64 x 8192 with its producer 4 and 2 steps ahead, against
# mamba_ssm in one process (ssd_time.py, every element checked).
set -u
. bench/common/round-start.sh ssd-final
grep -E '^ssd_' tests/codegen/variants.txt > "$R/variants.txt"
JOBS=16 RUN_TIMEOUT=60 timeout 170 sh tests/gpu/run-gpu-tests.sh "$CLI" "$R/variants.txt" "$R/gpu" > "$R/gpu-tests.txt" 2>&1
echo "gpu tests rc $? $(( $(date +%s) - T0 )) s"; grep -E "FAIL|fail|variants correct|WRONG" "$R/gpu-tests.txt" | tail -6
rm -rf "$R/gpu"
WORKLOADS="mamba2_chunk_state mamba2_chunk_scan" JOBS=16 SAN_EVERY=15 RUN_TIMEOUT=60 \
    timeout 120 sh tests/gpu/differential.sh "$CLI" 30 3701 "$R/diff" > "$R/diff.txt" 2>&1
echo "differential rc $? $(( $(date +%s) - T0 )) s"; tail -1 "$R/diff.txt"; rm -rf "$R/diff"
E=.dev/exp4
ls -d $E/*/ | xargs -P 8 -I{} sh -c 'make -s -C {} lib kernel.cubin > {}/build.log 2>&1 || echo "BUILD FAILED {}"'
PLACEMENTS=1 bench/common/ssd-vs-mamba.sh "$R" 200 $E/*/
echo "done $(( $(date +%s) - T0 )) s"
