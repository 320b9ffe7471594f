#!/usr/bin/env bash
# round 112 (session 19): bf16 GEMM at M = 64 (8B.o, 8B.qkv, 70B.o, 70B.qkv) and 70B.o at M = 16:
# the scheduler's measure candidates and hand-made variants with the tensor-core rows on N,
# every element checked, then timed (the pick also against cuBLASLt, --baseline).
set -u
R=.dev/r112
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
ls -d $R/*/ | grep -v '/c-' | xargs -P 16 -I{} sh -c 'make -s -C {} all BASELINE=1 > {}/build.log 2>&1 || echo "{} build failed"'
for d in $R/*/; do
  n=$(basename $d); case $n in c-*) continue;; esac
  a=""; case $n in *-r1) a=--baseline;; esac
  echo "$n $(cd $d && timeout 60 ./harness --json-only --placements 2 $a 2>&1 | tail -1 | python3 -c 'import sys,json; j=json.loads(sys.stdin.read()); b=j.get("baseline") or {}; print(j["correct"], j["mismatches"], round(j["time_ms_median"]*1000,2), "cublaslt", round(b["time_ms_median"]*1000,2) if b.get("time_ms_median") else "-")' 2>&1 | tail -1) predicted $(grep "^$n " $R/predicted.txt | cut -d' ' -f2)"
done
