#!/usr/bin/env bash
# Session 45, the larger shapes (README.md here): at each of SHAPES session 44's pick (two
# warpgroups on two heads, programs/h2-*) against the scheduler's pick with --ragged (a ragged
# three-head split searched: three warpgroups on 22 head triples), both on this GPU's model; mamba_ssm interleaved (ssd-vs-mamba.sh,
# PLACEMENTS 1, every element checked) and the harness, 2 passes. Stops starting shapes at END s.
set -u
S0=$(date +%s)
. bench/common/round-start.sh r2
G=examples/mamba2_chunk_scan.json
W=/tmp/r2w; mkdir -p $W
HWM=$(sh bench/common/hw-model.sh)
for BS in ${SHAPES:-8:8192 64:2048 64:4096}; do
[ $(( ${END:-400} - ($(date +%s) - S0) )) -gt 60 ] || { echo "no time for $BS"; continue; }
IFS=: read -r Bn Sn <<<"$BS"
SET=B=$Bn,S=$Sn,H=64,P=64,N=128,L=256
B=$W/b$Bn-s$Sn; mkdir -p $B
cp bench/mamba2/results-2026-12-07-s45/programs/h2-$HWM-b$Bn-s$Sn.json "$B/pick.json"
"$CLI" schedule $G --set $SET --hw "$HWM" --target sm90a -q --ragged -o "$B/h3.json" | grep -A1 "^  1 " | head -1
for f in pick h3; do
    "$CLI" codegen $G --set $SET --program "$B/$f.json" --target sm90a -o "$B/$f" >/dev/null || { echo "$f: codegen failed"; exit 1; }
    echo "$f $("$CLI" simulate $G --set $SET --program "$B/$f.json" --hw "$HWM" | grep predicted)"
done
ls -d "$B"/*/ | xargs -P 2 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "{}: build failed"'
echo "$BS built $(( $(date +%s) - S0 )) s"
PLACEMENTS=1 bash bench/common/ssd-vs-mamba.sh "$B" 200 "$B/pick" "$B/h3"
cp "$B/ssd.jsonl" "$R/ssd-b$Bn-s$Sn.jsonl"; cp "$B/h3.json" "$R/h3-b$Bn-s$Sn.json"
bash bench/common/harness-passes.sh 2 "$B/pick" "$B/h3" | tee "$R/passes-b$Bn-s$Sn.txt"
done
echo "all done $(( $(date +%s) - S0 )) s"
