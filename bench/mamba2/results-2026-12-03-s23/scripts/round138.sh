#!/usr/bin/env bash
# round 138: ChunkScan prototypes: the factored decay kept as factors into a 16-bit multiply
# ("fast"), and the warpgroups' causal imbalance bound ("bal": warpgroup 1 runs warpgroup 0's
# trip count, wrong output); ncu and SASS of the pick and the fast variant
set -u
R=$OUT/r138; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $R/gpu.txt
cd .dev/r138
ls -d b/*_* | xargs -P 16 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "BUILD FAILED {}"'
echo "built $(( $(date +%s) - T0 )) s"
for d in b/base_8x2048 b/fast_8x2048; do cuobjdump -sass $d/kernel.cubin > $R/$(basename $d).sass 2>&1 || cuobjdump -sass $d/*.cubin > $R/$(basename $d).sass 2>&1; done
ls b/base_8x2048
# correctness of the checked ones (C harness, f32 reference)
for d in b/base_* b/fast_*; do (cd $d && timeout 120 ./harness --check-only --json-only > check.json 2>check.err); echo "$d rc $? $(grep -o '"correct": [a-z]*' $d/check.json | head -1)"; done | tee $R/check.txt
echo "checked $(( $(date +%s) - T0 )) s"
# A/B in the C harness, 2 passes
for pass in 1 2; do for d in b/*_8x2048 b/*_8x8192; do
  (cd $d && timeout 60 ./harness --json-only --no-check --placements 2 > t$pass.json 2>t$pass.err)
  echo "$pass $(basename $d) $(python3 -c "import json;j=json.load(open('$d/t$pass.json'));print(j.get('time_ms_median'), j.get('placement_medians_ms'))" 2>/dev/null)"
done; done | tee $R/ab.txt
echo "ab $(( $(date +%s) - T0 )) s"
# against mamba_ssm, interleaved, checked against f32 torch and mamba_ssm
PLACEMENTS=2 timeout 300 python3 ../../bench/mamba2/ssd_time.py ../anchors-mamba2 b/base_8x2048 b/fast_8x2048 b/base_8x8192 b/fast_8x8192 b/base_64x8192 b/fast_64x8192 > $R/vs_mamba.jsonl 2> $R/vs_mamba.err
python3 - $R/vs_mamba.jsonl <<'PY'
import json,sys
for l in open(sys.argv[1]):
    j=json.loads(l)
    if 'bundle' not in j: print(l.strip()); continue
    print(j['bundle'], j.get('error',''), round(j.get('times',{}).get('ours',{}).get('median_ms',0),4), round(j.get('speedup_vs_mamba_ssm',0),3), j.get('check',{}).get('rel_err'), j.get('check',{}).get('vs_mamba_ssm'))
PY
echo "vs mamba $(( $(date +%s) - T0 )) s"
for v in base fast; do (cd b/${v}_8x2048 && timeout 150 ncu --section InstructionStats --section WarpStateStats --section ComputeWorkloadAnalysis --section SchedulerStats -k regex:pt_ -c 1 ./harness --check-only --json-only > $R/ncu-$v.txt 2>&1); grep -E "Stall|Executed Ipc|Issue Slots|Executed Instructions|Eligible|Duration|No Eligible" $R/ncu-$v.txt | head -20; done
echo "done $(( $(date +%s) - T0 )) s"
