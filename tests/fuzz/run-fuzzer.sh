#!/bin/sh
# Run one libFuzzer target for a bounded time: run-fuzzer.sh EXE SEED_DIR SECONDS WORK_DIR
# Exits non-zero (and keeps the crashing input in WORK_DIR) if the fuzzer finds a crash.
set -eu
exe=$1 seeds=$2 secs=$3 work=$4
rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
cp -r "$seeds"/. "$work/corpus/" 2>/dev/null || true
exec "$exe" -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$work/artifacts/" -print_final_stats=1 "$work/corpus"
