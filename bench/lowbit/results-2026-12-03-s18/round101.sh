#!/usr/bin/env bash
# round 101: low-bit diagnostics: two accumulators (5), with lean unpacking (6), no conversion or wgmma (9), 3 and 4 warpgroups
# one LOP3 per pair (1), plus a constant wgmma per k16 (2), with per-group accumulators folded
# by the scale (3), both (4); mode 0 is the generated kernel, checked.
set -u
R=.dev/r101
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv,noheader
ls $R | xargs -P 16 -I{} sh -c 'make -s -C '$R'/{} all > '$R'/{}/build.log 2>&1 || echo "{} build failed"'
for d in $R/*.d0 $R/*.d5; do echo -n "$d ";  (cd $d && ./harness --check-only --json-only | python3 -c "import sys,json; j=json.loads(sys.stdin.read()); print(j[\"correct\"], j[\"mismatches\"])"); done
for pass in 1 2; do
  for b in m1-n8192-k28672 wg3 wg4 m1-n28672-k4096 m16-n8192-k8192 m64-n8192-k8192 m1-n4096-k4096; do
    for m in 0 1 5 6 9; do
      d=$R/$b.d$m
      t=$(cd $d && ./harness --no-check --json-only 2>&1 | python3 -c 'import sys,json; j=json.loads(sys.stdin.read().strip().splitlines()[-1]); print(round(j["time_ms_median"]*1000,2))' 2>&1)
      echo "pass$pass $b mode$m $t"
    done
  done
done
mkdir -p $OUT/r101; cp $R/*/build.log $OUT/r101/ 2>/dev/null; true
for m in 0 5; do
  (cd $R/m1-n8192-k28672.d$m && timeout 150 ncu --section WarpStateStats --section SchedulerStats --section SpeedOfLight --section MemoryWorkloadAnalysis -k regex:pt_gemm -c 1 ./harness --check-only --json-only > $OUT/r101/ncu-mode$m.txt 2>&1; tail -60 $OUT/r101/ncu-mode$m.txt | grep -E "Stall|Issue|Throughput|Warp Cycles|Eligible|Active Warps|No Eligible|Bandwidth|Duration" | head -40)
done
