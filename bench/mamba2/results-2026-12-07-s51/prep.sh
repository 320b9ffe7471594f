#!/usr/bin/env bash
# prep.sh CLI — (here, before the device call) into b/: the scheduler's ChunkState and ChunkScan
# picks (`schedule --target sm90a --hw HW`, default decay search) for the H100 and the H200 models
# at the shapes the call times, and random Mamba2 draws for the GPU differential
# (tests/gen_random_sprogram, seeds from 51001; the draws' decay forms are in draws.txt).
set -eu
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../../.." && pwd)
cli=$1; gen=$(dirname "$(dirname "$cli")")/tests/gen_random_sprogram
rm -rf "$here/b"; mkdir -p "$here/b"
pick() {  # pick KERNEL HW B S
  d=$here/b/$1-$2-b$3-s$4; set_=B=$3,S=$4,H=64,P=64,N=128,L=256
  g=$root/examples/mamba2_chunk_$1.json
  "$cli" schedule "$g" --set $set_ --target sm90a --hw $2 -o "$d.json" >/dev/null 2>&1
  "$cli" codegen "$g" --set $set_ --program "$d.json" --target sm90a -o "$d" >/dev/null
  mv "$d.json" "$d/program.json"
}
for hw in H100 H200; do
  for s in 8:2048 8:4096 8:8192 64:2048 64:8192; do pick state $hw ${s%:*} ${s#*:}; done
  for s in 8:2048 64:8192; do pick scan $hw ${s%:*} ${s#*:}; done
done
: > "$here/draws.txt"
for i in $(seq 0 39); do
  seed=$((51001 + i)); w=mamba2_chunk_scan; [ $((i % 4)) = 3 ] && w=mamba2_chunk_state
  "$gen" $w $seed "$here/b/draw-$seed" | head -1 >> "$here/draws.txt"
done
# two small draws for compute-sanitizer (memcheck, racecheck): the first factored16 scan draws
n=0
for seed in $(grep -n 'decay factored16' "$here/draws.txt" | cut -d: -f1); do
  s=$((51000 + seed)); "$gen" mamba2_chunk_scan $s "$here/b/small-$s" --small | head -1 >> "$here/draws.txt"
  n=$((n + 1)); [ $n = 2 ] && break
done
