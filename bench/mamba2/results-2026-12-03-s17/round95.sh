#!/usr/bin/env bash
# round 95: runs of launch positions (partition.run) with kept rings: the GPU variants (new and
# ChunkState/attention/decoding for regressions), random draws with runs, sanitizers, and
# ChunkState timed by raster and run length
set -u
R=/tmp/r95; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $R/gpu.txt
(meson setup /tmp/b -Dgui=disabled --buildtype=release >/dev/null 2>&1 && meson compile -C /tmp/b >$R/build.log 2>&1) || { echo BUILD FAILED; tail -20 $R/build.log; }
cd .dev/r95
ls -d b/cs_* d/* s/* | xargs -P 16 -I{} sh -c 'make -s -C {} > {}/build.log 2>&1 || echo "BUILD FAILED {}"' > $R/builds.txt 2>&1
cat $R/builds.txt
cd ../..
grep -E '^(ssd_state|fa_d64|gqa_|dec_|f16_run|f16_128x256_s2_wg2_pers|bf16_odd_pers)' tests/codegen/variants.txt > $R/variants-list.txt
HARNESS_ARGS="--iters 20 --rounds 1 --warmup-ms 20" timeout 200 sh tests/gpu/run-gpu-tests.sh /tmp/b/cli/pipethreader-cli $R/variants-list.txt /tmp/v95 > $R/variants.txt 2>&1; echo "variants rc $?" >> $R/variants.txt
tail -4 $R/variants.txt; grep -iE "fail|wrong|false" $R/variants.txt | head -5
cd .dev/r95
ls -d d/* | xargs -P 4 -I{} sh -c 'cd {} && timeout 60 ./harness --check-only --json-only > check.json 2>check.err; echo "{} rc $? $(grep -o "\"correct\": [a-z]*" check.json | head -1)"' > $R/diff.txt 2>&1
echo "random: $(grep -c 'rc 0 "correct": true' $R/diff.txt) of $(ls -d d/* | wc -l) correct"; grep -v 'rc 0 "correct": true' $R/diff.txt | head
CS=/usr/local/cuda/bin/compute-sanitizer
for k in san_ssd san_fa; do for tool in racecheck synccheck memcheck; do (cd s/$k && timeout 100 $CS --tool $tool --error-exitcode 9 ./harness --check-only --json-only) > $R/san-$k-$tool.log 2>&1; echo "$k $tool rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/san-$k-$tool.log | tail -1)"; done; done
for pass in 1 2; do
  for d in b/cs_*; do
    case $pass$d in 2*8x2048*) continue;; esac
    extra=""; [ $pass = 2 ] && extra="--no-check"
    (cd $d && timeout 60 ./harness --json-only --placements 2 $extra > t$pass.json 2>t$pass.err)
    echo "$pass $(basename $d) rc $? $(python3 -c "import json;j=json.load(open('$d/t$pass.json'));print(j.get('correct'), j.get('time_ms_median'), j.get('placement_medians_ms'))" 2>/dev/null) | $(cat $d/predicted.txt)"
  done
done | tee $R/ab.txt
for d in b/cs_*; do mkdir -p $R/json/$(basename $d); cp $d/t*.json $d/program.json $d/kernel.ptxas.txt $R/json/$(basename $d)/ 2>/dev/null; done
cp /tmp/v95/results.jsonl $R/variants-results.jsonl 2>/dev/null
tar czf $OUT/r95.tgz -C /tmp r95
echo done
