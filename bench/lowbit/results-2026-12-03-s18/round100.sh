#!/usr/bin/env bash
# round 100: low-bit diagnostics — how fast the register-form kernel runs when the unpacking is
# one LOP3 per pair (1), plus a constant wgmma per k16 (2), with per-group accumulators folded
# by the scale (3), both (4); mode 0 is the generated kernel, checked.
set -u
R=.dev/r100
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv,noheader
ls $R | xargs -P 16 -I{} sh -c 'make -s -C '$R'/{} all > '$R'/{}/build.log 2>&1 || echo "{} build failed"'
for d in $R/*.d0; do (cd $d && ./harness --check-only --json-only | head -c 300; echo); done
for pass in 1 2; do
  for b in m1-n8192-k28672 m1-n4096-k4096 m1-n28672-k4096 m16-n8192-k8192 m64-n8192-k8192; do
    for m in 0 1 2 3 4; do
      d=$R/$b.d$m
      t=$(cd $d && ./harness --no-check --json-only 2>&1 | python3 -c 'import sys,json; j=json.loads(sys.stdin.read().strip().splitlines()[-1]); print(round(j["time_ms_median"]*1000,2))' 2>&1)
      echo "pass$pass $b mode$m $t"
    done
  done
done
mkdir -p $OUT/r100; cp $R/*/build.log $OUT/r100/ 2>/dev/null; true
