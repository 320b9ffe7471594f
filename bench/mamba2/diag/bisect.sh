#!/usr/bin/env bash
# Which part of the store path the wrong elements of the three-warpgroup ChunkScan with its
# warpgroups' own stores come from (README.md here): h3rpa at 8 x 4096 and h3 at 8 x 8192, each
# as generated and with each edit.py VARIANT, checked launch after launch by mismatch.py (a+b: both edits); then
# compute-sanitizer's racecheck and synccheck on h3rpa at 1 x 4096 through the harness (SAN=1).
# h2 (the committed two-warpgroup pick) at 8 x 8192 and h2big at 64 x 2048 are checked when
# CHECK names them; h2s: h2 at 8 x 2048. PERF: bundles (names under the work folder) timed by the
# harness, PASSES passes. Env BASES, VARIANTS, CHECK, LAUNCHES, SASS (set: rpa's SASS kept).
set -u
CHECK=${CHECK:-}
. bench/common/round-start.sh bisect
G=examples/mamba2_chunk_scan.json
P=bench/mamba2/diag/programs
W=/tmp/bisw; rm -rf $W; mkdir -p $W
"$CLI" codegen $G --set B=8,S=4096,H=64,P=64,N=128,L=256 --program $P/h3rpa.json --target sm90a -o $W/rpa >/dev/null
"$CLI" codegen $G --set B=8,S=8192,H=64,P=64,N=128,L=256 --program $P/h3.json --target sm90a -o $W/h3 >/dev/null
"$CLI" codegen $G --set B=8,S=8192,H=64,P=64,N=128,L=256 --program $P/h2.json --target sm90a -o $W/h2 >/dev/null
"$CLI" codegen $G --set B=8,S=2048,H=64,P=64,N=128,L=256 --program $P/h2.json --target sm90a -o $W/h2s >/dev/null
"$CLI" codegen $G --set B=64,S=2048,H=64,P=64,N=128,L=256 --program $P/h2.json --target sm90a -o $W/h2big >/dev/null
"$CLI" codegen $G --set B=1,S=4096,H=64,P=64,N=128,L=256 --program $P/h3rpa.json --target sm90a -o $W/small >/dev/null
for b in ${BASES:-rpa h3}; do for v in ${VARIANTS:-id4 waitall swap eager fencew sync4}; do
    cp -r $W/$b $W/$b-$v && for e in ${v//+/ }; do python3 bench/mamba2/diag/edit.py $W/$b-$v/kernel.cu $e; done
done; done
ls -d $W/*/ | xargs -P 16 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "{}: build failed"'
echo "built $(( $(date +%s) - T0 )) s"
for d in $(for b in ${BASES:-rpa h3}; do ls -d $W/$b/ $W/$b-*/; done) $(for b in $CHECK; do echo $W/$b/; done); do
    LAUNCHES=${LAUNCHES:-4} timeout 100 python3 bench/mamba2/diag/mismatch.py $d 2>>$R/mismatch.err | tee -a $R/mismatch.jsonl \
        | python3 -c 'import json,sys; [print(r["bundle"], [p["bad"] for p in r.get("per_launch", [])], r.get("error", ""), r.get("by", {}).get("h_in_group", "")) for r in map(json.loads, sys.stdin)]' | tee -a $R/summary.txt
done
echo "checked $(( $(date +%s) - T0 )) s"
[ -n "${PERF:-}" ] && bash bench/common/harness-passes.sh ${PASSES:-3} $(for b in $PERF; do echo $W/$b; done) | tee $R/perf.txt
[ -n "${SASS:-}" ] && cuobjdump -sass $W/rpa/kernel.cubin > $R/rpa.sass
[ "${SAN:-1}" = 1 ] || exit 0
cd $W/small
for tool in racecheck synccheck; do
    timeout 150 compute-sanitizer --tool $tool --print-limit 20 ./harness --check-only > $R/$tool.txt 2>&1
    echo "$tool rc $?"; grep -E "ERROR SUMMARY|Error|error" $R/$tool.txt | head -8
done
echo "done $(( $(date +%s) - T0 )) s"
