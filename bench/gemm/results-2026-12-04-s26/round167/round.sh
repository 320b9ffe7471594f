#!/bin/bash
# round 167: split-K through a cluster, the partial tiles handed over by st.async (complete_tx
# on the leader's barrier) against st.shared::cluster + a per-thread release arrive; harness
# A/B, 3 passes alternating, every element checked; sanitizers on one.
set -u
OUT=${OUT:-/tmp/out}
export PATH=$PATH:/usr/local/cuda/bin
D=.dev/r167
ls -d $D/w4o70 $D/bf16o $D/bf16o70 $D/*.sa | xargs -P 8 -I{} sh -c 'make -s -C {} all > {}/build.log 2>&1 || echo "{}: build failed"'
for pass in 1 2 3; do
  for n in w4o70 bf16o bf16o70; do
    for v in $n $n.sa; do
      (cd $D/$v && timeout 60 ./harness --json-only --iters 200) > $OUT/$v.p$pass.json 2>&1
      echo "$v pass $pass $(grep -o '"correct": [a-z]*' $OUT/$v.p$pass.json | head -1) $(grep -o '"time_ms_median": [0-9.e-]*' $OUT/$v.p$pass.json | head -1)"
    done
  done
done | tee $OUT/ab.txt
cd $D/bf16o.sa && for tool in memcheck racecheck synccheck; do timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 ./harness --iters 1 > $OUT/san-$tool.txt 2>&1; echo "$tool rc $?"; done | tee $OUT/san.txt
