#!/usr/bin/env bash
# The short form of parts-round.sh for a call with little device time left: the combine and MQA
# decoding variants checked on the GPU, then the A/B of bench/fa/parts-ab (.dev/ab carried).
set -u
R=$OUT/parts; mkdir -p "$R"
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$R/gpu.txt"
timeout 100 bench/fa/parts-ab/run.sh .dev/ab > "$R/ab.log" 2>&1
echo "a/b rc $? $(( $(date +%s) - T0 )) s"; grep -vE 'Warning|return F' "$R/ab.log" | tail -6
timeout 60 sh -c 'meson setup .dev/build -Dgui=disabled --buildtype=release >/dev/null 2>&1; meson compile -C .dev/build' > "$R/build.log" 2>&1 || { echo "CLI build failed"; exit 1; }
CLI=$(pwd)/.dev/build/cli/pipethreader-cli
grep -E '^(dec_combine_[a-z0-9_]*|dec_mqa_[a-z0-9_]*) ' tests/codegen/variants.txt > "$R/variants.txt"
JOBS=16 RUN_TIMEOUT=40 timeout 100 sh tests/gpu/run-gpu-tests.sh "$CLI" "$R/variants.txt" "$R/gpu" > "$R/gpu.log" 2>&1
echo "gpu tests rc $? $(( $(date +%s) - T0 )) s"; grep -vE '^\S+\s+true ' "$R/gpu.log" | tail -6; grep -cE '^\S+\s+true ' "$R/gpu.log"
cp .dev/ab/ab.jsonl "$R/" 2>/dev/null
rm -rf "$R/gpu"/*/ 2>/dev/null
echo "done $(( $(date +%s) - T0 )) s"
