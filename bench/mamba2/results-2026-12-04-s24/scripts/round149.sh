#!/usr/bin/env bash
# round 149: the final tree: the GPU tests of every ssd variant and the new causal-run variants
# with the ranges; the scheduler's picks (the prologue matmul's loads first) against the earlier
# picks, the l=128 pick with that order, the heads split along columns, and mamba_ssm
set -u
R=$OUT/r149; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $R/gpu.txt
(meson setup /tmp/b -Dgui=disabled --buildtype=release >/dev/null 2>&1 && meson compile -C /tmp/b >$R/build.log 2>&1) || { echo CLI BUILD FAILED; tail -20 $R/build.log; }
C=/tmp/b/cli/pipethreader-cli
echo "cli $(( $(date +%s) - T0 )) s"
(cd .dev/r149/b && ls -d *_* | grep -v '\.json' | xargs -P 16 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "BUILD FAILED {}"') &
BPID=$!
grep -E '^ssd_|^fa_d64_causal_run3_s1024' tests/codegen/variants.txt > $R/variants-list.txt
HARNESS_ARGS="--iters 20 --rounds 1 --warmup-ms 20" timeout 220 sh tests/gpu/run-gpu-tests.sh $C $R/variants-list.txt /tmp/v149 > $R/variants.txt 2>&1; echo "variants rc $?" >> $R/variants.txt
echo "$(grep -cE ' true ' $R/variants.txt) true"; grep -E "FAILED|false|rc |run2_row_h8|run3_col_h10|run3_s1024" $R/variants.txt | cut -c1-150
echo "variants $(( $(date +%s) - T0 )) s"
wait $BPID
echo "bundles $(( $(date +%s) - T0 )) s"
cd .dev/r149
for sh in 8x2048 8x8192; do
  PLACEMENTS=2 timeout 170 python3 ../../bench/mamba2/ssd_time.py ../anchors-mamba2 b/pick_$sh b/l128c_$sh b/h2col_$sh b/newpick_$sh >> $R/vs_mamba.jsonl 2>> $R/vs_mamba.err
  echo "timed $sh $(( $(date +%s) - T0 )) s"
done
PLACEMENTS=1 timeout 170 python3 ../../bench/mamba2/ssd_time.py ../anchors-mamba2 b/pick_64x8192 b/l128c_64x8192 b/h2col_64x8192 >> $R/vs_mamba.jsonl 2>> $R/vs_mamba.err
python3 - $R/vs_mamba.jsonl <<'PY'
import json,sys
for l in open(sys.argv[1]):
    j=json.loads(l)
    if 'bundle' not in j: print(l.strip()[:200]); continue
    t=j.get('times',{})
    print(j['bundle'], j.get('error',''), round(t.get('ours',{}).get('median_ms',0),4), round(t.get('mamba_ssm',{}).get('median_ms',0),4), round(j.get('speedup_vs_mamba_ssm',0),3), j.get('check',{}).get('mismatches'), j.get('check',{}).get('vs_mamba_ssm'))
PY
cp b/sched-*.txt b/*.json $R/ 2>/dev/null
cd $R && tar czf ../r149.tgz . && cd .. && rm -rf $R
echo "done $(( $(date +%s) - T0 )) s"
