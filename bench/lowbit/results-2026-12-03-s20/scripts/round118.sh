#!/usr/bin/env bash
# round 118: where M = 1 and 16 int4 kernels spend their time: nodq (wgmma kept, no conversion), nomma (conversion kept, no wgmma)
set -u
R=.dev/r117
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
ls -d $R/*/ | xargs -P 16 -I{} sh -c 'make -s -C {} all > {}/build.log 2>&1 || echo "{} build failed"'
t() {  # dir [harness args]
  local d=$1; shift
  (cd $d && ./harness --json-only "$@" 2>&1 | python3 -c 'import sys,json; j=json.loads(sys.stdin.read().strip().splitlines()[-1]); print(j.get("correct"), j.get("mismatches"), j.get("max_abs_err"), round(j["time_ms_median"]*1000,2))' 2>&1 | tail -1)
}
for pass in 1 2; do for d in $R/*/; do
  n=$(basename $d)
  case $n in *-nodq|*-nomma) a=--no-check;; *) a=;; esac
  echo "pass$pass $n $(t $d $a)"
done; done
