#!/usr/bin/env bash
# round 145: ChunkScan's decay with the factored form always and the direct form out of line:
# the ssd variants and the input-range runs (the direct form), sanitizers on it, and the new
# picks against the session's starting kernels and mamba_ssm in one process
set -u
R=$OUT/r145; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $R/gpu.txt
(meson setup /tmp/b -Dgui=disabled --buildtype=release >/dev/null 2>&1 && meson compile -C /tmp/b >$R/build.log 2>&1) || { echo CLI BUILD FAILED; tail -20 $R/build.log; }
echo "cli $(( $(date +%s) - T0 )) s"
C=/tmp/b/cli/pipethreader-cli
cd .dev/r145
for sh in 8x2048 8x8192; do B=${sh%x*}; S=${sh#*x};
  $C schedule mamba2_chunk_scan --target sm90a --set B=$B,S=$S -o b/newpick-$sh.json > b/sched-$sh.txt 2>&1
  $C codegen mamba2_chunk_scan --program b/newpick-$sh.json --set B=$B,S=$S --target sm90a -o b/new_$sh > /dev/null 2>&1 || echo "CODEGEN FAILED $sh"
  cmp -s b/pick-$sh.json b/newpick-$sh.json && echo "$sh: same pick" || echo "$sh: pick differs"
  grep "best predicted" b/sched-$sh.txt
done
ls -d b/*_* | xargs -P 16 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "BUILD FAILED {}"'
echo "bundles $(( $(date +%s) - T0 )) s"
cd ../..
grep -E '^ssd_' tests/codegen/variants.txt > $R/variants-list.txt
HARNESS_ARGS="--iters 20 --rounds 1 --warmup-ms 20" timeout 150 sh tests/gpu/run-gpu-tests.sh $C $R/variants-list.txt /tmp/v145 > $R/variants.txt 2>&1; echo "variants rc $?" >> $R/variants.txt
tail -6 $R/variants.txt; grep -iE "FAILED|false" $R/variants.txt | head -5
echo "variants $(( $(date +%s) - T0 )) s"
CS=/usr/local/cuda/bin/compute-sanitizer
for tool in memcheck; do (cd /tmp/v145/ssd_scan_small && timeout 100 $CS --tool $tool --error-exitcode 9 ./harness --check-only --json-only --range dA_l=-30:30) > $R/san-$tool.log 2>&1; echo "$tool rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/san-$tool.log | tail -1) $(grep -o '"correct": [a-z]*' $R/san-$tool.log)"; done
echo "sanitizers $(( $(date +%s) - T0 )) s"
cd .dev/r145
PLACEMENTS=2 timeout 150 python3 ../../bench/mamba2/ssd_time.py ../anchors-mamba2 b/old_8x2048 b/new_8x2048 b/old_8x8192 b/new_8x8192 > $R/vs_mamba.jsonl 2> $R/vs_mamba.err
python3 - $R/vs_mamba.jsonl <<'PY'
import json,sys
for l in open(sys.argv[1]):
    j=json.loads(l)
    if 'bundle' not in j: print(l.strip()); continue
    print(j['bundle'], j.get('error',''), round(j.get('times',{}).get('ours',{}).get('median_ms',0),4), round(j.get('times',{}).get('mamba_ssm',{}).get('median_ms',0),4), round(j.get('speedup_vs_mamba_ssm',0),3), j.get('check',{}).get('mismatches'), j.get('check',{}).get('vs_mamba_ssm'))
PY
cp b/*.json b/sched-*.txt $R/ 2>/dev/null
echo "done $(( $(date +%s) - T0 )) s"
