#!/usr/bin/env bash
# Session 43, second and third device rounds (README.md here): the pick against its hand edits
# (nextpro.py: np; ownstore.py: po, and both: npo), built from this checkout, timed with mamba_ssm
# (ssd-vs-mamba.sh) and by their own harness, 3 passes interleaved. The second round ran pick, np
# and a second copy of pick (pick2).
set -u
. bench/common/round-start.sh r12
G=examples/mamba2_chunk_scan.json
W=/tmp/r12w; mkdir -p $W
for BS in ${SHAPES:-8:2048 8:4096}; do
IFS=: read -r Bn Sn <<<"$BS"
SET=B=$Bn,S=$Sn,H=64,P=64,N=128,L=256
B=$W/b$Bn-s$Sn; mkdir -p $B
"$CLI" schedule $G --set $SET --hw "$(sh bench/common/hw-model.sh)" --target sm90a -q -o "$B/pick.json" >/dev/null &&
    "$CLI" codegen $G --set $SET --program "$B/pick.json" --target sm90a -o "$B/pick" >/dev/null || { echo "pick failed"; exit 1; }
cp -r $B/pick $B/np && python3 bench/mamba2/results-2026-12-06-s43/nextpro.py $B/pick/kernel.cu $B/np/kernel.cu || { echo "edit failed"; exit 1; }
cp -r $B/np $B/npo && python3 bench/mamba2/results-2026-12-06-s43/ownstore.py $B/npo || { echo "npo edit failed"; exit 1; }
cp -r $B/pick $B/po && python3 bench/mamba2/results-2026-12-06-s43/ownstore.py $B/po || { echo "po edit failed"; exit 1; }
ls -d "$B"/*/ | xargs -P 4 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "{}: build failed"'
grep -h "C75\|Used" $B/*/build.log $B/*/kernel.ptxas.txt | sort | uniq -c
echo "$BS built $(( $(date +%s) - T0 )) s"
bash bench/common/ssd-vs-mamba.sh "$B" 200 "$B/pick" "$B/np" "$B/npo" "$B/po"
cp "$B/ssd.jsonl" "$R/ssd-b$Bn-s$Sn.jsonl"
bash bench/common/harness-passes.sh 3 "$B/pick" "$B/np" "$B/npo" "$B/po" | tee "$R/passes-b$Bn-s$Sn.txt"
done
echo "done $(( $(date +%s) - T0 )) s"
