#!/usr/bin/env bash
# round 152: Mamba2 with ngroups > 1: the GPU tests of the grouped variants (and three ngroups-1
# ones beside them), then the grouped picks against mamba_ssm called with ngroups = 8
set -u
R=$OUT/r152; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $R/gpu.txt
(meson setup /tmp/b -Dgui=disabled --buildtype=release >/dev/null 2>&1 && meson compile -C /tmp/b >$R/build.log 2>&1) || { echo CLI BUILD FAILED; tail -20 $R/build.log; }
C=/tmp/b/cli/pipethreader-cli
echo "cli $(( $(date +%s) - T0 )) s"
(cd .dev/r152/b && ls -d *_* | grep -v '\.' | xargs -P 16 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "BUILD FAILED {}"') &
BPID=$!
grep -E '^ssd_[a-z]*_grouped|^ssd_scan_small |^ssd_state_small |^ssd_scan_heads2_run2_col_h6 ' tests/codegen/variants.txt > $R/variants-list.txt
HARNESS_ARGS="--iters 20 --rounds 1 --warmup-ms 20" timeout 150 sh tests/gpu/run-gpu-tests.sh $C $R/variants-list.txt /tmp/v152 > $R/variants.txt 2>&1; echo "variants rc $?" >> $R/variants.txt
cut -c1-150 $R/variants.txt | grep -vE "^\s*$"
echo "variants $(( $(date +%s) - T0 )) s"
wait $BPID
cd .dev/r152
PLACEMENTS=1 timeout 150 python3 ../../bench/mamba2/ssd_time.py ../anchors-mamba2 b/pick_mamba2_chunk_scan_grouped b/h2col_scan_grouped b/pick_mamba2_chunk_state_grouped > $R/vs_mamba.jsonl 2> $R/vs_mamba.err
tail -3 $R/vs_mamba.err
python3 - $R/vs_mamba.jsonl <<'PY'
import json,sys
for l in open(sys.argv[1]):
    j=json.loads(l)
    if 'bundle' not in j: print(l.strip()[:200]); continue
    t=j.get('times',{})
    print(j['bundle'], j.get('error',''), j.get('G'), round(t.get('ours',{}).get('median_ms',0),4), round(t.get('mamba_ssm',{}).get('median_ms',0),4), round(j.get('speedup_vs_mamba_ssm',0),3), round(j.get('of_floor',0),3), j.get('check',{}).get('mismatches'), j.get('check',{}).get('vs_mamba_ssm'))
PY
cp b/*.json b/*.txt $R/ 2>/dev/null
cd $R && tar czf ../r152.tgz . && cd .. && rm -rf $R
echo "done $(( $(date +%s) - T0 )) s"
