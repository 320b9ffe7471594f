#!/usr/bin/env bash
# Session 44, first device round: session 43's generated-round.sh (the scheduler's pick with its
# prologue product a tile ahead, against the same program without it, each also with
# ownstore.py), then the four ssd_scan_ahead variants of tests/codegen/variants.txt through
# run-gpu-tests.sh (every element checked), then the differential test on mamba2_chunk_scan
# (seeds 1-48, of which 11, 13, 32, 43 and 48 draw the prologue product a tile ahead) until
# about 560 s from the start.
set -u
S0=$(date +%s)
bash bench/mamba2/results-2026-12-06-s43/generated-round.sh
CLI=$(pwd)/.dev/build/cli/pipethreader-cli
V=$OUT/variants; mkdir -p $V
grep '^ssd_scan_ahead' tests/codegen/variants.txt > /tmp/ahead-variants.txt
RUN_TIMEOUT=60 timeout 200 sh tests/gpu/run-gpu-tests.sh "$CLI" /tmp/ahead-variants.txt /tmp/ahead-out 2>&1 | tail -12 | tee $V/table.txt
cp /tmp/ahead-out/results.jsonl $V/ 2>/dev/null
left=$(( 560 - ($(date +%s) - S0) ))
echo "differential: $left s left"
[ $left -gt 60 ] && WORKLOADS=mamba2_chunk_scan SAN_EVERY=0 DEADLINE_S=$((left - 30)) RUN_TIMEOUT=30 \
    sh tests/gpu/differential.sh .dev/build 48 1 /tmp/diff 2>&1 | tail -60 > $OUT/differential.txt
tail -3 $OUT/differential.txt
echo "all done $(( $(date +%s) - S0 )) s"
