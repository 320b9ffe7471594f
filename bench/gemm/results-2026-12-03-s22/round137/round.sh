#!/bin/bash
# round 137: f16 at M 1/16/64 with the model of round 136 (refit + dram_short_run); round 134 was the stage
# search widened to 6 and 8 stages; torch.matmul interleaved, every element checked (as round 127).
set -u
R=/tmp/r137; mkdir -p $R; OUT=${OUT:-/tmp/out}
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $OUT/gpu.txt
T0=$(date +%s)
(meson setup /tmp/b -Dgui=disabled --buildtype=release >$R/setup.log 2>&1 && meson compile -C /tmp/b >$R/build.log 2>&1) || { echo BUILD FAILED; tail -20 $R/setup.log $R/build.log; exit 1; }
echo "built $(( $(date +%s) - T0 )) s"
DTYPES=f16 MODELS="8B 70B" MS="1 16 64" SKIP_HARNESS=1 DEADLINE_S=300 PLACEMENTS=3 timeout 330 bash bench/gemm/run /tmp/b/cli/pipethreader-cli $R/gemm > $OUT/gemm.txt 2>&1; echo "gemm rc $? $(( $(date +%s) - T0 )) s"
tail -34 $OUT/gemm.txt
cp $R/gemm/*.jsonl $OUT/ 2>/dev/null
for x in $R/gemm/*/; do mkdir -p $R/programs/$(basename $x); cp $x/program.json $R/programs/$(basename $x)/ 2>/dev/null; done
tar czf $OUT/programs.tgz -C $R programs
