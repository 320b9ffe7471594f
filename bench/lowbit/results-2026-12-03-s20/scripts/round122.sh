#!/usr/bin/env bash
# round 122 (session 20): split-K cluster slots over the rings (M = 64): variants checked, sanitizers, and the M = 64 picks against their workspace twins (harness, 2 passes)
set -u
R=/tmp/r122; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $R/gpu.txt
cat $R/gpu.txt
(meson setup /tmp/b -Dgui=disabled --buildtype=release >/dev/null 2>&1 && meson compile -C /tmp/b >$R/build.log 2>&1) || { echo BUILD FAILED; tail -20 $R/build.log; }
ls -d .dev/r122/*/ | xargs -P 16 -I{} sh -c 'make -s -C {} all > {}/build.log 2>&1 || echo "{} build failed"' &
BUILD=$!
HARNESS_ARGS="--iters 20 --rounds 1 --warmup-ms 20" timeout 200 sh tests/gpu/run-gpu-tests.sh /tmp/b/cli/pipethreader-cli .dev/variants-r122.txt /tmp/v122 > $R/variants.txt 2>&1; echo "variants rc $?"
tail -16 $R/variants.txt
cp /tmp/v122/results.jsonl $R/variants.jsonl 2>/dev/null
d=/tmp/v122/cl2_bf16_over_rings_64x4096x4096
for tool in memcheck synccheck; do
  (cd $d && timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 ./harness --check-only --json-only > $R/san-$tool.out 2> $R/san-$tool.txt; echo "$tool rc $? $(grep -E 'ERROR SUMMARY|hazard' $R/san-$tool.out $R/san-$tool.txt | tail -1)")
done
wait $BUILD
t() {  # dir [harness args]
  local d=$1; shift
  (cd $d && ./harness --json-only "$@" 2>&1 | python3 -c 'import sys,json; j=json.loads(sys.stdin.read().strip().splitlines()[-1]); print(j.get("correct"), j.get("mismatches"), round(j["time_ms_median"]*1000,2))' 2>&1 | tail -1)
}
for pass in 1 2; do for d in .dev/r122/*/; do
  n=$(basename $d)
  [ $pass = 1 ] && a= || a=--no-check
  echo "pass$pass $n $(t $d $a)"
done; done | tee $R/ab.txt
for d in .dev/r122/*/; do mkdir -p $R/programs/$(basename $d); cp $d/program.json $d/schedule.txt $R/programs/$(basename $d)/ 2>/dev/null; done
tar czf $OUT/r122.tgz -C /tmp r122
