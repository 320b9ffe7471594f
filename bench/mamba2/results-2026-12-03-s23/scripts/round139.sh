#!/usr/bin/env bash
# round 139: ChunkScan with the CUDA-core tasks one k block ahead of the mma (offset 1), with
# and without the factored 16-bit multiply; the fast variant's harness check; stall reasons
set -u
R=$OUT/r139; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $R/gpu.txt
cd .dev/r139
ls -d b/*_* | xargs -P 16 -I{} sh -c 'make -s -C {} all > {}/build.log 2>&1 || echo "BUILD FAILED {}"'
echo "built $(( $(date +%s) - T0 )) s"
cuobjdump -sass b/off1_8x2048/kernel.cubin > $R/off1_8x2048.sass 2>&1
for d in b/*_8x2048 b/*_8x8192; do (cd $d && timeout 120 ./harness --check-only > check.txt 2>&1); echo "$d rc $?"; tail -3 $d/check.txt; done > $R/check.txt 2>&1
cat $R/check.txt | head -40
echo "checked $(( $(date +%s) - T0 )) s"
for pass in 1 2; do for d in b/*_8x2048 b/*_8x8192; do
  (cd $d && timeout 60 ./harness --json-only --no-check --placements 2 > t$pass.json 2>t$pass.err)
  echo "$pass $(basename $d) $(python3 -c "import json;j=json.load(open('$d/t$pass.json'));print(j.get('time_ms_median'), j.get('placement_medians_ms'))" 2>/dev/null)"
done; done | tee $R/ab.txt
echo "ab $(( $(date +%s) - T0 )) s"
M=smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
for r in short_scoreboard wait barrier membar math_pipe_throttle mio_throttle dispatch_stall no_instruction selected not_selected sleeping branch_resolving lg_throttle misc; do M=$M,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio; done
for v in base off1 fast; do (cd b/${v}_8x2048 && timeout 100 ncu --metrics $M,smsp__inst_executed.sum,gpu__time_duration.sum -k regex:pt_ -c 1 ./harness --check-only --json-only > $R/ncu-$v.txt 2>&1); grep -E "stalled|inst_exec|duration" $R/ncu-$v.txt | awk '{print $1, $NF}'; done
echo "done $(( $(date +%s) - T0 )) s"
