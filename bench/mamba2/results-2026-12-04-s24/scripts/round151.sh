#!/usr/bin/env bash
# round 151: the heads split along columns in runs of 2 with 4, 5 and 6 stages, and mamba_ssm
set -u
R=$OUT/r151; mkdir -p $R
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $R/gpu.txt
cd .dev/r151
ls -d b/*_* | xargs -P 16 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "BUILD FAILED {}"'
echo "bundles $(( $(date +%s) - T0 )) s"
for sh in 8x2048 8x8192; do
  PLACEMENTS=2 timeout 200 python3 ../../bench/mamba2/ssd_time.py ../anchors-mamba2 b/h2st4_$sh b/h2st5_$sh b/h2st6_$sh b/h2st4b_$sh >> $R/vs_mamba.jsonl 2>> $R/vs_mamba.err
  echo "timed $sh $(( $(date +%s) - T0 )) s"
done
python3 - $R/vs_mamba.jsonl <<'PY'
import json,sys
for l in open(sys.argv[1]):
    j=json.loads(l)
    if 'bundle' not in j: print(l.strip()[:200]); continue
    t=j.get('times',{})
    print(j['bundle'], j.get('error',''), round(t.get('ours',{}).get('median_ms',0),4), round(t.get('mamba_ssm',{}).get('median_ms',0),4), round(j.get('speedup_vs_mamba_ssm',0),3), j.get('check',{}).get('mismatches'), j.get('check',{}).get('vs_mamba_ssm'))
PY
cd $R && tar czf ../r151.tgz . && cd .. && rm -rf $R
echo "done $(( $(date +%s) - T0 )) s"
