#!/usr/bin/env bash
# round 119 (session 20): split-K through thread-block clusters. Cluster capacity for 1..8;
# the cluster variants and the split-K regressions checked on every element; sanitizers on a
# cluster kernel; 24 random sPrograms (clusters drawn); then per configuration whose pick
# reduces through a cluster: the pick, the same program with the workspace reduction and the
# pick of a model without clusters, timed interleaved in the harness (2 passes).
set -u
R=/tmp/r119; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $R/gpu.txt
cat $R/gpu.txt
(meson setup /tmp/b -Dgui=disabled --buildtype=release >/dev/null 2>&1 && meson compile -C /tmp/b >$R/build.log 2>&1) || { echo BUILD FAILED; tail -20 $R/build.log; }
nvcc -arch=sm_90a -o /tmp/occ .dev/r119/occ.cu && /tmp/occ | tee $R/occ.txt
ls -d .dev/r119/*/ | xargs -P 16 -I{} sh -c 'make -s -C {} all > {}/build.log 2>&1 || echo "{} build failed"' &
BUILD=$!
HARNESS_ARGS="--iters 20 --rounds 1 --warmup-ms 20" timeout 200 sh tests/gpu/run-gpu-tests.sh /tmp/b/cli/pipethreader-cli .dev/variants-r119.txt /tmp/v119 > $R/variants.txt 2>&1; echo "variants rc $?"
tail -16 $R/variants.txt
cp /tmp/v119/results.jsonl $R/variants.jsonl 2>/dev/null
d=/tmp/v119/cl2_w4a16_bf16_frag_1x4096x4096
for tool in racecheck memcheck synccheck; do
  (cd $d && timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 ./harness --check-only --json-only > $R/san-$tool.out 2> $R/san-$tool.txt; echo "$tool rc $? $(grep -E 'ERROR SUMMARY|hazard' $R/san-$tool.out $R/san-$tool.txt | tail -1)")
done
wait $BUILD
SAN_EVERY=20 RUN_TIMEOUT=30 timeout 120 sh tests/gpu/differential.sh /tmp/b 24 2001 /tmp/d119 > $R/differential.txt 2>&1; echo "differential rc $?"
tail -3 $R/differential.txt; grep -c "split_k_reduce cluster" /tmp/d119/*/draw.txt 2>/dev/null | grep -v ":0" | wc -l
t() {  # dir [harness args]
  local d=$1; shift
  (cd $d && ./harness --json-only "$@" 2>&1 | python3 -c 'import sys,json; j=json.loads(sys.stdin.read().strip().splitlines()[-1]); print(j.get("correct"), j.get("mismatches"), round(j["time_ms_median"]*1000,2))' 2>&1 | tail -1)
}
for pass in 1 2; do for d in .dev/r119/*/; do
  n=$(basename $d)
  [ $pass = 1 ] && a= || a=--no-check
  echo "pass$pass $n $(t $d $a)"
done; done | tee $R/ab.txt
for d in .dev/r119/*/; do mkdir -p $R/programs/$(basename $d); cp $d/program.json $d/schedule.txt $R/programs/$(basename $d)/ 2>/dev/null; done
tar czf $OUT/r119.tgz -C /tmp r119
# the random draws that reduce through a cluster (seeds found locally: 5 of 160 GEMM draws)
for s in 2030 2050 2054 2095 2150; do
  case $((s % 10)) in 0) g=gemm_f16;; 4) g=gemm_w4a16;; 5) g=gemm_wfp4a16;; 1) g=gemm_bf16;; esac
  rm -rf /tmp/rc$s; /tmp/b/tests/gen_random_sprogram $g $s /tmp/rc$s > /dev/null && make -s -C /tmp/rc$s all > /tmp/rc$s/build.log 2>&1 &&
    echo "random cluster $g seed $s: $(cd /tmp/rc$s && timeout 30 ./harness --check-only --json-only | tail -1 | cut -c1-160)" || echo "random cluster $g seed $s: FAILED"
done 2>&1 | tee -a $R/ab.txt
tar czf $OUT/r119.tgz -C /tmp r119
