#!/usr/bin/env bash
# bench/next/sweep-round.sh DIR NAME — a device round: the split sweep that
# bench/fa/split-sweep/make.sh wrote in DIR (carried), each pair timed against torch SDPA in one
# process; results in $OUT/NAME. Session 34 ran it on the picks that moved once the
# power-capped clock drop scaled with the busy SMs (NAME picks) and on B 1's long rows at 16,
# 32 and 33 splits (NAME long).
set -u
dir=${1:?usage: sweep-round.sh DIR NAME} name=${2:?usage: sweep-round.sh DIR NAME}
R=$OUT/$name; mkdir -p "$R"
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$R/gpu.txt"
timeout 300 bench/fa/split-sweep/run.sh "$dir" > "$R/sweep.log" 2>&1
echo "sweep rc $?"; grep -vE 'Warning|return F' "$R/sweep.log" | tail -12
cp "$dir/sweep.jsonl" "$dir/list" "$R/" 2>/dev/null
