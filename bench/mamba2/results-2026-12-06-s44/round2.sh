#!/usr/bin/env bash
# Session 44, second device round (README.md here). (1) At 8 x 2048 and 8 x 4096: the scheduler's
# pick as generated (prologue product a tile ahead, each warpgroup storing its own rows: "pick"),
# the same without wg_stores ("ahead", the store on tma.wg1 as in session 43's pick), without the
# product ahead too ("plain"), and session 43's hand edit ownstore.py on "ahead" ("npo", what the
# generated pick should reproduce): mamba_ssm interleaved (ssd-vs-mamba.sh) and the harness, 3
# passes; ChunkState's pick at 8 x 8192 against it with one store (no_wg_stores.py). (2) The ssd_scan_ahead and ssd_s*_wgstores variants through run-gpu-tests.sh. (3) The
# differential test, seeds 1-40 of mamba2_chunk_scan and of mamba2_chunk_state. (4) bench/mamba2/run
# (ChunkScan picks against mamba_ssm) at the issue's shapes, as far as the time allows.
set -u
S0=$(date +%s)
. bench/common/round-start.sh r2
G=examples/mamba2_chunk_scan.json
W=/tmp/r2w; mkdir -p $W
D=bench/mamba2/results-2026-12-06-s43
HWM=$(sh bench/common/hw-model.sh)
for BS in ${SHAPES:-8:2048 8:4096}; do
IFS=: read -r Bn Sn <<<"$BS"
SET=B=$Bn,S=$Sn,H=64,P=64,N=128,L=256
B=$W/b$Bn-s$Sn; mkdir -p $B
"$CLI" schedule $G --set $SET --hw "$HWM" --target sm90a -q -o "$B/pick.json" >/dev/null || { echo "schedule failed"; exit 1; }
python3 bench/common/no_wg_stores.py "$B/pick.json" "$B/ahead.json" tma.wg1 || exit 1
python3 - "$B" <<'PY'
import json, sys
b = sys.argv[1]
p = json.load(open(b + "/ahead.json"))
p["partition"]["staging"] = "apart"
json.dump(p, open(b + "/ahead.json", "w"), indent=1)
for ln in p["lanes"]:
    ln["order"] = [e["stask"] if isinstance(e, dict) and e["stask"].startswith("mma.y_off") else e for e in ln["order"]]
json.dump(p, open(b + "/plain.json", "w"), indent=1)
PY
for f in pick ahead plain; do
    "$CLI" codegen $G --set $SET --program "$B/$f.json" --target sm90a -o "$B/$f" >/dev/null || { echo "$f: codegen failed"; exit 1; }
    echo "$f $("$CLI" simulate $G --set $SET --program "$B/$f.json" --hw "$HWM" | grep predicted)"
done
cp -r $B/ahead $B/npo && python3 $D/ownstore.py $B/npo || { echo "npo edit failed"; exit 1; }
ls -d "$B"/*/ | xargs -P 4 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "{}: build failed"'
grep -h "C75\|Used" $B/*/build.log $B/*/kernel.ptxas.txt 2>/dev/null | sort | uniq -c
echo "$BS built $(( $(date +%s) - T0 )) s"
bash bench/common/ssd-vs-mamba.sh "$B" 200 "$B/plain" "$B/ahead" "$B/pick" "$B/npo"
cp "$B/ssd.jsonl" "$R/ssd-b$Bn-s$Sn.jsonl"; cp "$B/pick.json" "$R/pick-b$Bn-s$Sn.json"
bash bench/common/harness-passes.sh 3 "$B/plain" "$B/ahead" "$B/pick" "$B/npo" | tee "$R/passes-b$Bn-s$Sn.txt"
done
echo "part 1 done $(( $(date +%s) - S0 )) s"
grep -E '^(ssd_scan_ahead|ssd_s[a-z]+_wgstores)' tests/codegen/variants.txt > /tmp/v2.txt
RUN_TIMEOUT=60 timeout 150 sh tests/gpu/run-gpu-tests.sh "$CLI" /tmp/v2.txt /tmp/v2-out 2>&1 | tail -14 > $OUT/variants.txt
cp /tmp/v2-out/results.jsonl $OUT/variants.jsonl 2>/dev/null; tail -3 $OUT/variants.txt
for w in mamba2_chunk_scan mamba2_chunk_state; do
    WORKLOADS=$w SAN_EVERY=0 DEADLINE_S=60 RUN_TIMEOUT=30 sh tests/gpu/differential.sh .dev/build ${NDIFF:-40} 1 /tmp/diff-$w 2>&1 | tail -40 > $OUT/differential-$w.txt
    tail -1 $OUT/differential-$w.txt
done
# ChunkState at 8 x 8192: its pick (each warpgroup storing its own head) against the same
# program with one store from tma.wg1 (the form the model ties it with)
GS=examples/mamba2_chunk_state.json; SET=B=8,S=8192,H=64,P=64,N=128,L=256; B=$W/state; mkdir -p $B
[ $(( ${END:-330} - ($(date +%s) - S0) )) -gt 100 ] &&
"$CLI" schedule $GS --set $SET --hw "$HWM" --target sm90a -q -o "$B/pick.json" >/dev/null &&
python3 bench/common/no_wg_stores.py "$B/pick.json" "$B/one.json" tma.wg1 &&
for f in pick one; do "$CLI" codegen $GS --set $SET --program "$B/$f.json" --target sm90a -o "$B/$f" >/dev/null &&
    echo "state $f $("$CLI" simulate $GS --set $SET --program "$B/$f.json" --hw "$HWM" | grep predicted)"; done &&
ls -d "$B"/*/ | xargs -P 2 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "{}: build failed"' &&
bash bench/common/ssd-vs-mamba.sh "$B" 120 "$B/pick" "$B/one" && cp "$B/ssd.jsonl" "$R/ssd-state-b8-s8192.jsonl" &&
bash bench/common/harness-passes.sh 3 "$B/pick" "$B/one" | tee "$R/passes-state-b8-s8192.txt"
echo "part 1b done $(( $(date +%s) - S0 )) s"
left=$(( ${END:-330} - ($(date +%s) - S0) ))
echo "part 4: $left s left"
[ $left -gt 90 ] && ANCHORS=$(pwd)/.dev/anchors KERNELS=scan SHAPES="${SWEEP:-8:8192:64:64:128:256 64:2048:64:64:128:256 64:4096:64:64:128:256}" \
    timeout $((left - 10)) bash bench/mamba2/run "$CLI" $OUT/sweep 2>&1 | tail -20
echo "all done $(( $(date +%s) - S0 )) s"
