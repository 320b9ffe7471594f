#!/usr/bin/env bash
# round 115: split-K fix-up through a thread-block cluster (DSMEM) against the global
# publish-first epilogue and against no fix-up at all; the cluster capacity of the GPU.
set -u
R=.dev/r115
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
nvcc -arch=sm_90a -o /tmp/occ $R/occ.cu && /tmp/occ
nvcc -O3 -arch=sm_90a -o /tmp/bw $R/bw.cu && /tmp/bw
ls -d $R/*/ | xargs -P 16 -I{} sh -c 'make -s -C {} all > {}/build.log 2>&1 || echo "{} build failed"'
t() {  # dir [harness args]
  local d=$1; shift
  (cd $d && ./harness --json-only "$@" 2>&1 | python3 -c 'import sys,json; j=json.loads(sys.stdin.read().strip().splitlines()[-1]); print(j.get("correct"), j.get("mismatches"), round(j["time_ms_median"]*1000,2))' 2>&1 | tail -1)
}
for pass in 1 2; do for d in $R/*/; do
  n=$(basename $d)
  case $n in *-noepi) a=--no-check;; *) [ $pass = 1 ] && a= || a=--no-check;; esac
  echo "pass$pass $n $(t $d $a)"
done; done
