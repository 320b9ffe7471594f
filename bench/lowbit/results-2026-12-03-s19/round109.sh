#!/usr/bin/env bash
# round 109: fragments int4 bf16 grid at M = 1/16 (warpgroups, k, stages, split-K) against the
# model; split-K fix-up and tensor-map prefetch rewrites; launch and stage-passing floors; the
# default sPrograms of the three fragments graphs (check only).
set -u
R=.dev/r109
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
ls -d $R/*/ | xargs -P 16 -I{} sh -c 'make -s -C {} all > {}/build.log 2>&1 || echo "{} build failed"'
for d in $R/default-*/; do
  echo "check $(basename $d) $(cd $d && ./harness --check-only --json-only 2>&1 | tail -1)"
done
t() {  # dir [harness args]
  local d=$1; shift
  (cd $d && ./harness --json-only "$@" 2>&1 | python3 -c 'import sys,json; j=json.loads(sys.stdin.read().strip().splitlines()[-1]); print(j.get("correct"), j.get("mismatches"), round(j["time_ms_median"]*1000,2))' 2>&1 | tail -1)
}
for pass in 1 2; do for d in $R/*/; do
  n=$(basename $d)
  case $n in default-*) continue;; *-empty|*-floor) a=--no-check;; *) a=;; esac
  echo "pass$pass $n $(t $d $a) predicted $(grep "^${n} " $R/predicted.txt | cut -d' ' -f2)"
done; done
