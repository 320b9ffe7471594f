#!/usr/bin/env bash
# round 147: ChunkScan with the warpgroups on the heads (wg_axis=h): the GPU tests of every ssd
# variant and the cumsum input ranges (the decay's direct form), sanitizers, then the l=128 pick
# against the heads variants and mamba_ssm in one process per size
set -u
R=$OUT/r147; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $R/gpu.txt
(meson setup /tmp/b -Dgui=disabled --buildtype=release >/dev/null 2>&1 && meson compile -C /tmp/b >$R/build.log 2>&1) || { echo CLI BUILD FAILED; tail -20 $R/build.log; }
C=/tmp/b/cli/pipethreader-cli
echo "cli $(( $(date +%s) - T0 )) s"
(cd .dev/r147/b && ls -d *_* | grep -v '\.txt' | xargs -P 16 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "BUILD FAILED {}"') &
BPID=$!
grep -E '^ssd_' tests/codegen/variants.txt > $R/variants-list.txt
HARNESS_ARGS="--iters 20 --rounds 1 --warmup-ms 20" timeout 200 sh tests/gpu/run-gpu-tests.sh $C $R/variants-list.txt /tmp/v147 > $R/variants.txt 2>&1; echo "variants rc $?" >> $R/variants.txt
grep -E "heads|ranges|FAILED|false|variant|rc " $R/variants.txt | cut -c1-150
echo "variants $(( $(date +%s) - T0 )) s"
CS=/usr/local/cuda/bin/compute-sanitizer
(cd /tmp/v147/ssd_scan_heads2_run2_col_h6 && timeout 100 $CS --tool memcheck --error-exitcode 9 ./harness --check-only --json-only --cumsum dA_l=-1.5:-0.5) > $R/san-memcheck.log 2>&1; echo "memcheck rc $? $(grep -E 'ERROR SUMMARY' $R/san-memcheck.log | tail -1) $(grep -o '"correct": [a-z]*' $R/san-memcheck.log)"
for tool in racecheck synccheck; do (cd /tmp/v147/ssd_scan_heads2_pipelined && timeout 100 $CS --tool $tool --error-exitcode 9 ./harness --check-only --json-only) > $R/san-$tool.log 2>&1; echo "$tool rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/san-$tool.log | tail -1) $(grep -o '"correct": [a-z]*' $R/san-$tool.log)"; done
echo "sanitizers $(( $(date +%s) - T0 )) s"
wait $BPID
echo "bundles $(( $(date +%s) - T0 )) s"
cd .dev/r147
for sh in 8x2048 8x8192; do
  PLACEMENTS=2 timeout 170 python3 ../../bench/mamba2/ssd_time.py ../anchors-mamba2 b/pick_$sh b/h2col_$sh b/h2grp_$sh b/h2row_$sh b/h2over_$sh >> $R/vs_mamba.jsonl 2>> $R/vs_mamba.err
  echo "timed $sh $(( $(date +%s) - T0 )) s"
done
PLACEMENTS=1 timeout 150 python3 ../../bench/mamba2/ssd_time.py ../anchors-mamba2 b/pick_64x8192 b/h2col_64x8192 >> $R/vs_mamba.jsonl 2>> $R/vs_mamba.err
python3 - $R/vs_mamba.jsonl <<'PY'
import json,sys
for l in open(sys.argv[1]):
    j=json.loads(l)
    if 'bundle' not in j: print(l.strip()[:200]); continue
    t=j.get('times',{})
    print(j['bundle'], j.get('error',''), round(t.get('ours',{}).get('median_ms',0),4), round(t.get('mamba_ssm',{}).get('median_ms',0),4), round(j.get('speedup_vs_mamba_ssm',0),3), j.get('check',{}).get('mismatches'), j.get('check',{}).get('vs_mamba_ssm'), [round(x,3) for x in j.get('speedup_per_placement',[])] if j.get('speedup_per_placement') else '')
PY
cp b/sched-*.txt $R/ 2>/dev/null
cd $R && tar czf ../r147.tgz . && cd .. && rm -rf $R
echo "done $(( $(date +%s) - T0 )) s"
