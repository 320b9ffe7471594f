#!/usr/bin/env bash
# round 107: fragments-packed int4 at M = 1 for 70B.down (2-4 warpgroups, k 128/256, 4/6 stages)
# and 8B.o (1-3 warpgroups, k 64-256, split-K 2-6), the model's predictions beside them; the fp4
# 8B.gate_up M = 16 pick of the final model. Every element checked, then timed in two passes.
set -u
R=.dev/r107
ls -d $R/*/ | xargs -P 16 -I{} sh -c 'make -s -C {} all > {}/build.log 2>&1 || echo "{} build failed"'
for pass in 1 2; do for d in $R/*/; do
  n=$(basename $d)
  echo "pass$pass $n $(cd $d && ./harness --json-only 2>&1 | python3 -c 'import sys,json; j=json.loads(sys.stdin.read().strip().splitlines()[-1]); print(j["correct"], j["mismatches"], round(j["time_ms_median"]*1000,2))') predicted $(grep "^$n " $R/predicted.txt | cut -d" " -f2)"
done; done
