#!/usr/bin/env bash
# round 110 (session 19): split-K published before the ticket and tensor maps prefetched, the
# fragments block latency 80 ns: 63 GPU variants (every split-K / stream-K one and a sample of
# the rest), racecheck and memcheck on a split-K low-bit kernel, then bench/lowbit/run (int4 and
# fp4, the new picks) against cuBLAS and torch int4, interleaved.
set -u
R=/tmp/r110; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $R/gpu.txt
(meson setup /tmp/b -Dgui=disabled --buildtype=release >/dev/null 2>&1 && meson compile -C /tmp/b >$R/build.log 2>&1) || { echo BUILD FAILED; tail -20 $R/build.log; }
HARNESS_ARGS="--iters 20 --rounds 1 --warmup-ms 20" timeout 230 sh tests/gpu/run-gpu-tests.sh /tmp/b/cli/pipethreader-cli .dev/variants-r110.txt /tmp/v110 > $R/variants.txt 2>&1; echo "variants rc $?" >> $R/variants.txt
tail -3 $R/variants.txt; grep -iE "fail|wrong|false|not run" $R/variants.txt | head -8
d=/tmp/v110/fq_w4a16_bf16_1x2048x4096_k128_sk2
for tool in racecheck memcheck synccheck; do
  (cd $d && timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 ./harness --check-only --json-only > /dev/null 2> $R/san-$tool.txt; echo "$tool rc $? $(grep -E 'ERROR SUMMARY|hazard' $R/san-$tool.txt | tail -1)")
done
timeout 330 bash bench/lowbit/run /tmp/b/cli/pipethreader-cli $R/bench > $R/bench.txt 2>&1; echo "bench rc $?"
cp $R/bench/results.jsonl $R/results.jsonl 2>/dev/null
for x in $R/bench/*/; do mkdir -p $R/programs/$(basename $x); cp $x/program.json $x/schedule.txt $R/programs/$(basename $x)/ 2>/dev/null; done
rm -rf $R/bench/*/ 2>/dev/null
cp /tmp/v110/results.jsonl $R/variants.jsonl 2>/dev/null
tar czf $OUT/r110.tgz -C /tmp r110
cat $R/bench.txt | head -60
