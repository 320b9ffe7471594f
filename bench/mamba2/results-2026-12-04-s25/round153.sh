#!/usr/bin/env bash
# round 153: ChunkScan's new pick (the heads split; its kernel is round 147's h2col) against the
# previous pick (l128c) in one process; ChunkState's pick against 2-head column and 3-head row/column
set -u
R=$OUT/r153; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $R/gpu.txt
(meson setup .dev/build -Dgui=disabled --buildtype=release >/dev/null 2>&1 && meson compile -C .dev/build >$R/build.log 2>&1; echo "cli built $(( $(date +%s) - T0 )) s rc $?" ) &
CPID=$!
(cd .dev/r153/b && ls -d *_* | grep -v '\.' | xargs -P 16 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "BUILD FAILED {}"')
echo "bundles $(( $(date +%s) - T0 )) s"
cd .dev/r153
for sh in 8x2048 8x8192; do
  PLACEMENTS=2 timeout 150 python3 ../../bench/mamba2/ssd_time.py ../anchors-mamba2 b/scanpick_$sh b/l128c_$sh >> $R/vs_mamba.jsonl 2>> $R/vs_mamba.err
  echo "scan $sh $(( $(date +%s) - T0 )) s"
done
for sh in 8x2048 8x8192 64x8192; do
  PLACEMENTS=2 timeout 150 python3 ../../bench/mamba2/ssd_time.py ../anchors-mamba2 b/statepick_$sh b/st2col_$sh b/st3row_$sh b/st3col_$sh >> $R/vs_mamba.jsonl 2>> $R/vs_mamba.err
  echo "state $sh $(( $(date +%s) - T0 )) s"
done
tail -3 $R/vs_mamba.err
python3 - $R/vs_mamba.jsonl <<'PY'
import json,sys
for l in open(sys.argv[1]):
    j=json.loads(l)
    if 'bundle' not in j: print(l.strip()[:200]); continue
    t=j.get('times',{})
    print(j['bundle'], j.get('error',''), round(t.get('ours',{}).get('median_ms',0),4), round(t.get('mamba_ssm',{}).get('median_ms',0),4), round(j.get('speedup_vs_mamba_ssm',0),3), round(j.get('of_floor',0),3), j.get('check',{}).get('mismatches'), j.get('check',{}).get('vs_mamba_ssm'))
PY
wait $CPID
cd $R && tar czf ../r153.tgz . && cd .. && rm -rf $R
echo "done $(( $(date +%s) - T0 )) s"
