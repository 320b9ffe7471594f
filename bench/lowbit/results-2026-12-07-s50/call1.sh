#!/usr/bin/env bash
# call1.sh — on the GPU machine: build every candidate bundle gen.sh wrote (b/), check each on
# every element once, then time them all with their own harness, 2 passes.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export PATH=$PATH:/usr/local/cuda/bin
R=$OUT/call1; mkdir -p "$R"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$R/gpu.txt"
T0=$(date +%s)
ls -d "$here"/b/*/cand-* | xargs -P 16 -I{} sh -c 'make -s -C {} kernel.cubin reference.cubin harness > {}/build.log 2>&1 || echo "{}: build failed"'
echo "built $(( $(date +%s) - T0 )) s"
for v in "$here"/b/*/cand-*; do
  c=$(basename "$(dirname "$v")")/$(basename "$v")
  r=$(cd "$v" && timeout 60 ./harness --check-only 2>&1 | tail -1)
  echo "$c $r"
done > "$R/check.txt"
echo "checked $(( $(date +%s) - T0 )) s"; echo "correct: $(grep -c '"correct": true' "$R/check.txt") of $(wc -l < "$R/check.txt")"
: > "$R/times.txt"
for pass in 1 2; do
  for d in "$here"/b/*/; do
    cfg=$(basename "$d")
    bash "$here/../../common/harness-passes.sh" 1 "$d"/cand-* | sed "s|^|$cfg pass$pass |" >> "$R/times.txt"
  done
done
echo "timed $(( $(date +%s) - T0 )) s"
cat "$R/times.txt"
