#!/usr/bin/env bash
# round 111 (session 19): small-M bf16 GEMMs (Llama-3 8B / 70B projections, M 1/16/64), the
# scheduler's picks with split-K published before the ticket, against torch.matmul (cuBLAS)
# interleaved; then 40 random sPrograms (differential, every element checked, sanitizers on 2).
set -u
R=/tmp/r111; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $R/gpu.txt
(meson setup /tmp/b -Dgui=disabled --buildtype=release >/dev/null 2>&1 && meson compile -C /tmp/b >$R/build.log 2>&1) || { echo BUILD FAILED; tail -20 $R/build.log; }
DEADLINE_S=220 DTYPES=bf16 MODELS="8B 70B" MS="1 16 64" SKIP_HARNESS=1 timeout 240 bash bench/gemm/run /tmp/b/cli/pipethreader-cli $R/gemm > $R/gemm.txt 2>&1; echo "gemm rc $?"
for x in $R/gemm/*/; do [ -f $x/program.json ] && { mkdir -p $R/gemm-programs/$(basename $x); cp $x/program.json $R/gemm-programs/$(basename $x)/; }; done
find $R/gemm -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} + 2>/dev/null
SAN_EVERY=20 RUN_TIMEOUT=30 timeout 150 sh tests/gpu/differential.sh /tmp/b 40 1901 /tmp/d111 > $R/differential.txt 2>&1; echo "differential rc $?"
tail -3 $R/differential.txt
tar czf $OUT/r111.tgz -C /tmp r111
cat $R/gemm.txt | tail -45
