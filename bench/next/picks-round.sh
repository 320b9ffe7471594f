#!/usr/bin/env bash
# A device round (session 34): the split counts the scheduler picks once the power-capped clock
# drop scales with the busy SMs, against the counts it picked before, each pair timed against
# torch SDPA in one process (bench/fa/split-sweep; .dev/sweep2 carried).
set -u
R=$OUT/picks; mkdir -p "$R"
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$R/gpu.txt"
timeout 300 bench/fa/split-sweep/run.sh .dev/sweep2 > "$R/sweep.log" 2>&1
echo "sweep rc $?"; grep -vE 'Warning|return F' "$R/sweep.log" | tail -12
cp .dev/sweep2/sweep.jsonl .dev/sweep2/list "$R/" 2>/dev/null
