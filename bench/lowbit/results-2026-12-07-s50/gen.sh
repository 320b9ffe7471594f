#!/usr/bin/env bash
# gen.sh CLI OUT NCAND — the low-bit rows that hold issue 17's M <= 16 geomean down, each with
# the NCAND diverse candidates `schedule --measure` would time (best of each tile shape, stage
# count, schedule), generated as bundles OUT/CONFIG/cand-RANK (rank 1 is the model's pick).
set -eu
cli=$1; out=$2; n=${3:-6}
root=$(cd "$(dirname "$0")/../../.." && pwd)
configs=${CONFIGS:-"w4a16:8B.o:4096:4096:1 w4a16:8B.o:4096:4096:16 w4a16:8B.down:4096:14336:1 w4a16:8B.down:4096:14336:16
wfp4a16:8B.o:4096:4096:1 wfp4a16:8B.o:4096:4096:16 wfp4a16:8B.down:4096:14336:1 wfp4a16:8B.down:4096:14336:16
wfp4a16:8B.gate_up:28672:4096:1 wfp4a16:8B.gate_up:28672:4096:16 wfp4a16:70B.o:8192:8192:1 wfp4a16:70B.o:8192:8192:16"}
for c in $configs; do
  IFS=: read -r f nm N K M <<<"$c"
  g=$root/tests/codegen/graphs/gemm_${f}_bf16_frag.json
  set_="M=$M,N=$N,K=$K,G=128"
  d=$out/$f-$nm-m$M
  mkdir -p "$d"
  "$cli" schedule "$g" --hw H100 --set "$set_" --measure "$n" --candidates "$d/progs" > "$d/cands.txt" 2>/dev/null
  for p in "$d"/progs/cand-*.json; do
    r=$(basename "$p" .json)
    "$cli" codegen "$g" --hw H100 --set "$set_" --program "$p" --target sm90a -o "$d/$r" > /dev/null
  done
done
