#!/usr/bin/env bash
# A device round (session 35) on an H100: PART=diff runs the GPU differential on random
# sPrograms (FlashDecoding's combine and partial drawn often: its generator changed in session
# 34 without a GPU check) and a profile of the H100 ChunkScan pick at 8 x 2048; PART=ssd times
# the H100 picks of ChunkScan and ChunkState against mamba_ssm (bench/mamba2/run, HW=H100).
set -u
. bench/common/round-start.sh "ssd-${PART:-diff}"
if [ "${PART:-diff}" = diff ]; then
    WORKLOADS="flash_decoding_combine flash_decoding" JOBS=16 SAN_EVERY=12 RUN_TIMEOUT=60 \
        timeout 200 sh tests/gpu/differential.sh "$CLI" 36 3501 "$R/dcomb" > "$R/diff-combine.txt" 2>&1
    echo "differential combine rc $? $(( $(date +%s) - T0 )) s"; tail -4 "$R/diff-combine.txt"
    JOBS=16 SAN_EVERY=22 RUN_TIMEOUT=60 \
        timeout 220 sh tests/gpu/differential.sh "$CLI" 44 3601 "$R/dall" > "$R/diff-all.txt" 2>&1
    echo "differential all rc $? $(( $(date +%s) - T0 )) s"; tail -4 "$R/diff-all.txt"
    grep -E 'FAIL|HUNG|fail|hung' "$R/diff-combine.txt" "$R/diff-all.txt" | head -20
    rm -rf "$R/dcomb" "$R/dall"
    set_=B=8,S=2048,H=64,P=64,N=128,L=256
    "$CLI" schedule examples/mamba2_chunk_scan.json --set $set_ --target sm90a --hw H100 -o "$R/scan-8x2048.json" > /dev/null 2>&1
    timeout 120 "$CLI" profile examples/mamba2_chunk_scan.json --hw H100 --program "$R/scan-8x2048.json" \
        --set $set_ -o "$R/scan-8x2048.trace.json" > "$R/scan-8x2048.report.txt" 2>&1
    echo "profile rc $? $(( $(date +%s) - T0 )) s"; head -70 "$R/scan-8x2048.report.txt"
else
    A=$(pwd)/../shared/anchors/mamba2-triton; [ -d "$A" ] || A=$(pwd)/.dev/anchors
    HW=H100 ANCHORS=$A JOBS=16 KERNELS="${KERNELS:-scan state}" SHAPES="${SHAPES:-8:2048:64:64:128:256 8:4096:64:64:128:256 64:2048:64:64:128:256}" \
        timeout 520 bench/mamba2/run "$CLI" "$R/b" > "$R/bench.txt" 2>&1
    echo "bench rc $? $(( $(date +%s) - T0 )) s"; cat "$R/bench.txt" | grep -v '^{' | tail -20
    cp "$R"/b/results.jsonl "$R/results.jsonl" 2>/dev/null
    for d in "$R"/b/*/; do cp "$d/program.json" "$R/$(basename "$d").program.json" 2>/dev/null; done
    rm -rf "$R/b"
fi
echo "done $(( $(date +%s) - T0 )) s"
