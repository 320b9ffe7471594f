#!/bin/bash
# round 128: correctness after the per-map L2 promotion (86 variants, 10 random sPrograms); ChunkScan
# with x's map at 128 B; a short FA grid against cuDNN, its bundles against their 256-B twins.
set -u
R=/tmp/r128; mkdir -p $R; OUT=${OUT:-/tmp/out}
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $OUT/gpu.txt
(meson setup /tmp/b -Dgui=disabled --buildtype=release >/dev/null 2>&1 && meson compile -C /tmp/b >$R/build.log 2>&1) || { echo BUILD FAILED; tail -20 $R/build.log; }
HARNESS_ARGS="--iters 5 --rounds 1 --warmup-ms 5" timeout 150 sh tests/gpu/run-gpu-tests.sh /tmp/b/cli/pipethreader-cli .dev/r128/variants.txt /tmp/v128 > $OUT/variants.txt 2>&1; echo "variants rc $?"
tail -4 $OUT/variants.txt
SAN_EVERY=0 RUN_TIMEOUT=30 timeout 90 sh tests/gpu/differential.sh /tmp/b 10 2401 /tmp/d128 > $OUT/differential.txt 2>&1; echo "differential rc $?"
tail -2 $OUT/differential.txt
S=.dev/r128/scan
bash .dev/r128/ab.sh $OUT/ab-scan.txt $S/scan2048 $S/scan2048_x128 $S/scan8192 $S/scan8192_x128
SEQS="512 2048" DIMS="64 128" DEADLINE_S=140 timeout 160 bash bench/fa/run /tmp/b/cli/pipethreader-cli $R/fa > $OUT/fa.txt 2>&1; echo "fa rc $?"
tail -14 $OUT/fa.txt
cp $R/fa/*.jsonl $OUT/ 2>/dev/null
bash .dev/r128/ab.sh $OUT/ab-fa.txt $(for d in $R/fa/*/; do [ -f $d/kernel.cu ] && echo $d; done | head -4)
