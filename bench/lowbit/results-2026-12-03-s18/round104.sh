#!/usr/bin/env bash
# round 104: the "fragments" packing of low-bit weights (src/packing.h) and the per-stage
# descriptor / per-group scale loads in the generator: every element of 13 fragments variants
# checked (c_*), then rows and fragments packings of the same sPrograms timed in two passes (t_*).
set -u
R=.dev/r104
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv,noheader
ls $R | xargs -P 16 -I{} sh -c 'make -s -C '$R'/{} all > '$R'/{}/build.log 2>&1 || echo "{} build failed"'
for d in $R/c_* $R/t_*; do echo -n "$(basename $d) "; (cd $d && timeout 120 ./harness --check-only --json-only 2>&1 | python3 -c "import sys,json; j=json.loads(sys.stdin.read().strip().splitlines()[-1]); print(j['correct'], j['mismatches'], j['elements'], j['rel_err'])" 2>&1 | tail -1); done
for pass in 1 2; do
  for b in st4 st6 wg3st6 wg3st6k256 o_m1 gu_m1 o70_m16 o70_m64 o70_m4096; do
    for pk in rows frag; do
      d=$R/t_${b}_$pk
      t=$(cd $d && ./harness --no-check --json-only 2>&1 | python3 -c 'import sys,json; j=json.loads(sys.stdin.read().strip().splitlines()[-1]); print(round(j["time_ms_median"]*1000,2))' 2>&1)
      echo "pass$pass $b $pk $t"
    done
  done
done
mkdir -p $OUT/r104
for d in $R/c_*; do grep -h "error" $d/build.log | head -3; done
(cd $R/c_b_m1_k128 && compute-sanitizer --tool memcheck ./harness --check-only --json-only 2>&1 | tail -3) 
