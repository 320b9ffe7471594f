#!/usr/bin/env bash
# round 121 (session 20): small-M bf16 GEMMs (Llama-3 8B / 70B projections, M 1/16/64), the
# scheduler's picks (split-K may reduce through a cluster) against torch.matmul interleaved
set -u
R=/tmp/r121; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
(meson setup /tmp/b -Dgui=disabled --buildtype=release >/dev/null 2>&1 && meson compile -C /tmp/b >$R/build.log 2>&1) || { echo BUILD FAILED; tail -20 $R/build.log; }
DEADLINE_S=230 DTYPES=bf16 MODELS="8B 70B" MS="1 16 64" SKIP_HARNESS=1 timeout 250 bash bench/gemm/run /tmp/b/cli/pipethreader-cli $R/gemm > $R/gemm.txt 2>&1; echo "gemm rc $?"
for x in $R/gemm/*/; do [ -f $x/program.json ] && { mkdir -p $R/gemm-programs/$(basename $x); cp $x/program.json $R/gemm-programs/$(basename $x)/; }; done
find $R/gemm -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} + 2>/dev/null
tar czf $OUT/r121.tgz -C /tmp r121
cat $R/gemm.txt | tail -40
