#!/usr/bin/env bash
# round 141: ChunkScan with the decay's direct form out of line ("cold") against the pick as
# generated and with no direct form; offset 1 likewise; the cold pick against mamba_ssm
set -u
R=$OUT/r141; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $R/gpu.txt
cd .dev/r141
ls -d b/*_* | xargs -P 16 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "BUILD FAILED {}"'
echo "built $(( $(date +%s) - T0 )) s"
for d in b/*_8x2048; do ls -la $d/kernel.cubin | awk -v d=$d '{print d, $5}'; done | tee $R/sizes.txt
for d in b/*_8x2048 b/*_8x8192; do (cd $d && timeout 120 ./harness --check-only --json-only > check.json 2>&1); echo "$d rc $? $(grep -o '"mismatches": [0-9]*' $d/check.json)"; done | tee $R/check.txt
for pass in 1 2; do for d in b/*_8x2048 b/*_8x8192; do
  (cd $d && timeout 60 ./harness --json-only --no-check --placements 2 > t$pass.json 2>t$pass.err)
  echo "$pass $(basename $d) $(python3 -c "import json;j=json.load(open('$d/t$pass.json'));print(j.get('time_ms_median'), j.get('placement_medians_ms'))" 2>/dev/null)"
done; done | tee $R/ab.txt
echo "ab $(( $(date +%s) - T0 )) s"
for v in basecold off1cold; do (cd b/${v}_8x2048 && timeout 100 ncu --metrics smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__inst_executed.sum,gpu__time_duration.sum -k regex:pt_ -c 1 ./harness --check-only --json-only > $R/ncu-$v.txt 2>&1); grep -E "stalled|inst_exec|duration" $R/ncu-$v.txt | awk -v v=$v '{print v, $1, $NF}'; done
PLACEMENTS=2 timeout 300 python3 ../../bench/mamba2/ssd_time.py ../anchors-mamba2 b/base_8x2048 b/basecold_8x2048 b/base_8x8192 b/basecold_8x8192 b/base_64x8192 b/cold_64x8192 > $R/vs_mamba.jsonl 2> $R/vs_mamba.err
python3 - $R/vs_mamba.jsonl <<'PY'
import json,sys
for l in open(sys.argv[1]):
    j=json.loads(l)
    if 'bundle' not in j: print(l.strip()); continue
    print(j['bundle'], j.get('error',''), round(j.get('times',{}).get('ours',{}).get('median_ms',0),4), round(j.get('times',{}).get('mamba_ssm',{}).get('median_ms',0),4), round(j.get('speedup_vs_mamba_ssm',0),3), j.get('check',{}).get('vs_mamba_ssm'))
PY
echo "done $(( $(date +%s) - T0 )) s"
