#!/usr/bin/env bash
# round 105: the "fragments" packing end to end: the low-bit GPU variants (new fq_* and the
# rows-packed rq_*/w4a16_* after the scale/descriptor change), 68 random low-bit draws (32 with
# fragments), then bench/lowbit/run with the scheduler's picks (fragments) against cuBLAS and
# torch int4, interleaved.
set -u
R=/tmp/r105; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $R/gpu.txt
(meson setup /tmp/b -Dgui=disabled --buildtype=release >/dev/null 2>&1 && meson compile -C /tmp/b >$R/build.log 2>&1) || { echo BUILD FAILED; tail -20 $R/build.log; }
ls -d .dev/r105/d/* | xargs -P 16 -I{} sh -c 'make -s -C {} > {}/build.log 2>&1 || echo "BUILD FAILED {}"'
grep -E '^(fq_|rq_|w4a16_|wfp4a16_|u_w4a16)' tests/codegen/variants.txt > $R/variants-list.txt
HARNESS_ARGS="--iters 20 --rounds 1 --warmup-ms 20" timeout 240 sh tests/gpu/run-gpu-tests.sh /tmp/b/cli/pipethreader-cli $R/variants-list.txt /tmp/v105 > $R/variants.txt 2>&1; echo "variants rc $?" >> $R/variants.txt
tail -4 $R/variants.txt; grep -iE "fail|wrong|false" $R/variants.txt | head -5
ls -d .dev/r105/d/* | xargs -P 4 -I{} sh -c 'cd {} && timeout 60 ./harness --check-only --json-only > check.json 2>check.err; echo "{} rc $? $(grep -o "\"correct\": [a-z]*" check.json | head -1) $(grep -c fragments tensors.json)"' > $R/diff.txt 2>&1
echo "random: $(grep -c 'rc 0 "correct": true' $R/diff.txt) of $(ls -d .dev/r105/d/* | wc -l) correct ($(grep 'rc 0 "correct": true 1' $R/diff.txt | wc -l) of the fragments draws)"; grep -v 'rc 0 "correct": true' $R/diff.txt | head
tar czf $OUT/r105.tgz -C /tmp r105
timeout 420 bash bench/lowbit/run /tmp/b/cli/pipethreader-cli $R/bench > $R/bench.txt 2>&1; echo "bench rc $?"
tail -12 $R/bench.txt
cp $R/bench/results.jsonl $R/results.jsonl 2>/dev/null
for d in $R/bench/*/; do mkdir -p $R/programs/$(basename $d); cp $d/program.json $d/schedule.txt $R/programs/$(basename $d)/ 2>/dev/null; done
rm -rf $R/bench/*/ 2>/dev/null
tar czf $OUT/r105.tgz -C /tmp r105
cat $R/bench.txt | head -50
