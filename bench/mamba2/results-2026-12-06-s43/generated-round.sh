#!/usr/bin/env bash
# Session 43, fourth device round (README.md here): the scheduler's pick as generated (its prologue
# product a tile ahead: "ahead") against the same program without it ("plain"), and each with
# ownstore.py (npo, po), at 8 x 2048 and 8 x 4096: mamba_ssm interleaved (ssd-vs-mamba.sh) and
# the harness, 3 passes.
set -u
. bench/common/round-start.sh r13
G=examples/mamba2_chunk_scan.json
W=/tmp/r13w; mkdir -p $W
D=bench/mamba2/results-2026-12-06-s43
for BS in ${SHAPES:-8:2048 8:4096}; do
IFS=: read -r Bn Sn <<<"$BS"
SET=B=$Bn,S=$Sn,H=64,P=64,N=128,L=256
B=$W/b$Bn-s$Sn; mkdir -p $B
"$CLI" schedule $G --set $SET --hw "$(sh bench/common/hw-model.sh)" --target sm90a -q -o "$B/pick.json" >/dev/null &&
    "$CLI" codegen $G --set $SET --program "$B/pick.json" --target sm90a -o "$B/pick" >/dev/null || { echo "pick failed"; exit 1; }
# the pick (now issuing its prologue product a tile ahead) and the same without it
python3 - "$B/pick.json" "$B/plain.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
for ln in p["lanes"]:
    ln["order"] = [e["stask"] if isinstance(e, dict) and e["stask"].startswith("mma.y_off") else e for e in ln["order"]]
json.dump(p, open(sys.argv[2], "w"), indent=1)
PY
"$CLI" codegen $G --set $SET --program "$B/plain.json" --target sm90a -o "$B/plain" >/dev/null || { echo "plain failed"; exit 1; }
mv $B/pick $B/ahead
for f in plain pick; do "$CLI" simulate $G --set $SET --program "$B/$f.json" --hw "$(sh bench/common/hw-model.sh)" | grep predicted; done
cp -r $B/ahead $B/npo && python3 $D/ownstore.py $B/npo || { echo "npo edit failed"; exit 1; }
cp -r $B/plain $B/po && python3 $D/ownstore.py $B/po || { echo "po edit failed"; exit 1; }
ls -d "$B"/*/ | xargs -P 4 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "{}: build failed"'
grep -h "C75\|Used" $B/*/build.log $B/*/kernel.ptxas.txt | sort | uniq -c
echo "$BS built $(( $(date +%s) - T0 )) s"
bash bench/common/ssd-vs-mamba.sh "$B" 200 "$B/plain" "$B/ahead" "$B/npo" "$B/po"
cp "$B/ssd.jsonl" "$R/ssd-b$Bn-s$Sn.jsonl"
bash bench/common/harness-passes.sh 3 "$B/plain" "$B/ahead" "$B/npo" "$B/po" | tee "$R/passes-b$Bn-s$Sn.txt"
done
echo "done $(( $(date +%s) - T0 )) s"
