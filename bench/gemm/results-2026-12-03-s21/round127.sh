#!/bin/bash
# round 127: bf16 GEMM at M 1/16/64 (Llama-3 8B and 70B) with the per-map L2 promotion, torch.matmul
# interleaved; the 8B picks at M 1 and 64 against their 256-B twins in the harness.
set -u
R=/tmp/r127; mkdir -p $R; OUT=${OUT:-/tmp/out}
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $OUT/gpu.txt
(meson setup /tmp/b -Dgui=disabled --buildtype=release >/dev/null 2>&1 && meson compile -C /tmp/b >$R/build.log 2>&1) || { echo BUILD FAILED; tail -20 $R/build.log; }
DTYPES=bf16 MODELS="8B 70B" MS="1 16 64" SKIP_HARNESS=1 DEADLINE_S=280 PLACEMENTS=3 timeout 300 bash bench/gemm/run /tmp/b/cli/pipethreader-cli $R/gemm > $OUT/gemm.txt 2>&1; echo "gemm rc $?"
tail -32 $OUT/gemm.txt
cp $R/gemm/*.jsonl $OUT/ 2>/dev/null
for x in $R/gemm/*/; do mkdir -p $R/programs/$(basename $x); cp $x/program.json $R/programs/$(basename $x)/ 2>/dev/null; done
tar czf $OUT/programs.tgz -C $R programs
bash .dev/r127/ab.sh $OUT/ab.txt $(ls -d $R/gemm/bf16-8B.*-m1 $R/gemm/bf16-8B.*-m64 $R/gemm/bf16-70B.o-m1 $R/gemm/bf16-70B.down-m16)
