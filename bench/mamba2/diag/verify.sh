#!/usr/bin/env bash
# The fix of session 47 (codegen/ir/pass_step.c, decision 4) on the GPU: h3rpa at 8 x 4096 and h3
# at 8 x 8192 as now generated, checked launch after launch (mismatch.py); the committed pick at
# 8 x 2048 as now generated against the same program generated before the fix (.dev/old-h2s,
# carried), checked and timed by the harness, PASSES passes.
set -u
. bench/common/round-start.sh verify
G=examples/mamba2_chunk_scan.json
P=bench/mamba2/diag/programs
W=/tmp/verw; rm -rf $W; mkdir -p $W
"$CLI" codegen $G --set B=8,S=4096,H=64,P=64,N=128,L=256 --program $P/h3rpa.json --target sm90a -o $W/rpa >/dev/null
"$CLI" codegen $G --set B=8,S=8192,H=64,P=64,N=128,L=256 --program $P/h3.json --target sm90a -o $W/h3 >/dev/null
"$CLI" codegen $G --set B=8,S=2048,H=64,P=64,N=128,L=256 --program $P/h2.json --target sm90a -o $W/h2s >/dev/null
cp -r .dev/old-h2s $W/h2s-old
ls -d $W/*/ | xargs -P 8 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "{}: build failed"'
echo "built $(( $(date +%s) - T0 )) s"
for d in rpa h3 h2s; do
    LAUNCHES=${LAUNCHES:-3} timeout 40 python3 bench/mamba2/diag/mismatch.py $W/$d 2>>$R/mismatch.err | tee -a $R/mismatch.jsonl \
        | python3 -c 'import json,sys; [print(r["bundle"], [p["bad"] for p in r.get("per_launch", [])], r.get("error", "")) for r in map(json.loads, sys.stdin)]'
done
echo "checked $(( $(date +%s) - T0 )) s"
bash bench/common/harness-passes.sh ${PASSES:-2} $W/h2s-old $W/h2s | tee $R/perf.txt
echo "done $(( $(date +%s) - T0 )) s"
