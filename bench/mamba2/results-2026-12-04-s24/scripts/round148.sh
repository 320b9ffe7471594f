#!/usr/bin/env bash
# round 148: causal runs handed out dynamically (pass_grid.c): the GPU tests of every ssd variant,
# the causal attention variants and the ranges; sanitizers on a dynamic run; the l=128 pick and
# the heads split, static (round 147's bundles) against dynamic, and mamba_ssm, one process per size
set -u
R=$OUT/r148; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $R/gpu.txt
(meson setup /tmp/b -Dgui=disabled --buildtype=release >/dev/null 2>&1 && meson compile -C /tmp/b >$R/build.log 2>&1) || { echo CLI BUILD FAILED; tail -20 $R/build.log; }
C=/tmp/b/cli/pipethreader-cli
echo "cli $(( $(date +%s) - T0 )) s"
(cd .dev/r148/b && ls -d *_* | grep -v '\.txt' | xargs -P 16 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "BUILD FAILED {}"') &
BPID=$!
grep -E '^ssd_|^fa_.*causal|^gqa.*run|^fa_.*run' tests/codegen/variants.txt > $R/variants-list.txt
HARNESS_ARGS="--iters 20 --rounds 1 --warmup-ms 20" timeout 240 sh tests/gpu/run-gpu-tests.sh $C $R/variants-list.txt /tmp/v148 > $R/variants.txt 2>&1; echo "variants rc $?" >> $R/variants.txt
grep -cE " true " $R/variants.txt; grep -E "FAILED|false|rc |run[0-9]" $R/variants.txt | cut -c1-150
echo "variants $(( $(date +%s) - T0 )) s"
CS=/usr/local/cuda/bin/compute-sanitizer
for tool in memcheck racecheck synccheck; do (cd /tmp/v148/ssd_scan_heads2_run2_col_h6 && timeout 120 $CS --tool $tool --error-exitcode 9 ./harness --check-only --json-only) > $R/san-$tool.log 2>&1; echo "$tool rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/san-$tool.log | tail -1) $(grep -o '"correct": [a-z]*' $R/san-$tool.log)"; done
echo "sanitizers $(( $(date +%s) - T0 )) s"
wait $BPID
echo "bundles $(( $(date +%s) - T0 )) s"
cd .dev/r148
for sh in 8x2048 8x8192; do
  PLACEMENTS=2 timeout 200 python3 ../../bench/mamba2/ssd_time.py ../anchors-mamba2 b/pick_$sh b/pickdyn_$sh b/h2col_$sh b/h2coldyn_$sh b/h2rowdyn_$sh b/newpick_$sh >> $R/vs_mamba.jsonl 2>> $R/vs_mamba.err
  echo "timed $sh $(( $(date +%s) - T0 )) s"
done
PLACEMENTS=1 timeout 150 python3 ../../bench/mamba2/ssd_time.py ../anchors-mamba2 b/pick_64x8192 b/h2coldyn_64x8192 b/h2rowdyn_64x8192 >> $R/vs_mamba.jsonl 2>> $R/vs_mamba.err
python3 - $R/vs_mamba.jsonl <<'PY'
import json,sys
for l in open(sys.argv[1]):
    j=json.loads(l)
    if 'bundle' not in j: print(l.strip()[:200]); continue
    t=j.get('times',{})
    print(j['bundle'], j.get('error',''), round(t.get('ours',{}).get('median_ms',0),4), round(t.get('mamba_ssm',{}).get('median_ms',0),4), round(j.get('speedup_vs_mamba_ssm',0),3), j.get('check',{}).get('mismatches'), j.get('check',{}).get('vs_mamba_ssm'))
PY
cp b/sched-*.txt b/newpick-*.json $R/ 2>/dev/null
cd $R && tar czf ../r148.tgz . && cd .. && rm -rf $R
echo "done $(( $(date +%s) - T0 )) s"
