#!/usr/bin/env bash
# A device round (session 34): B 1 at KV 64k and 128k with 16 (the pick), 32 and 33 splits:
# do more pieces than SMs (264 CTAs, two full waves) read faster than 128 CTAs?
# Timed with torch SDPA in one process (bench/fa/split-sweep; .dev/sweep3 carried).
set -u
R=$OUT/long; mkdir -p "$R"
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$R/gpu.txt"
timeout 300 bench/fa/split-sweep/run.sh .dev/sweep3 > "$R/sweep.log" 2>&1
echo "sweep rc $?"; grep -vE 'Warning|return F' "$R/sweep.log" | tail -12
cp .dev/sweep3/sweep.jsonl .dev/sweep3/list "$R/" 2>/dev/null
