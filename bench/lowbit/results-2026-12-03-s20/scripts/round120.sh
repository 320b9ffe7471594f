#!/usr/bin/env bash
# round 120 (session 20): bench/lowbit/run at M 1 and 16 (int4 and fp4, fragments packing) with
# the scheduler's picks, which may now reduce split-K through a cluster, against cuBLAS bf16 and
# torch's int4 GEMM interleaved; every output element checked.
set -u
R=/tmp/r120; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
(meson setup /tmp/b -Dgui=disabled --buildtype=release >/dev/null 2>&1 && meson compile -C /tmp/b >$R/build.log 2>&1) || { echo BUILD FAILED; tail -20 $R/build.log; }
MS="1 16" timeout 420 bash bench/lowbit/run /tmp/b/cli/pipethreader-cli $R/bench > $R/bench.txt 2>&1; echo "bench rc $?"
cp $R/bench/results.jsonl $R/results.jsonl 2>/dev/null
for x in $R/bench/*/; do mkdir -p $R/programs/$(basename $x); cp $x/program.json $x/schedule.txt $R/programs/$(basename $x)/ 2>/dev/null; done
rm -rf $R/bench/*/ 2>/dev/null
tar czf $OUT/r120.tgz -C /tmp r120
cat $R/bench.txt | tail -50
