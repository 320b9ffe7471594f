#!/usr/bin/env bash
# round 163: the final tree's GEMM picks at M = 64 (f16 and bf16, Llama-3 8B and 70B) against
# torch.matmul, interleaved, every element checked
set -u
R=$OUT/r163; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
(meson setup .dev/build -Dgui=disabled --buildtype=release >/dev/null 2>&1; meson compile -C .dev/build > $R/build.log 2>&1; echo "cli rc $? $(( $(date +%s) - T0 )) s")
DTYPES="f16 bf16" MODELS="8B 70B" MS=64 SKIP_HARNESS=1 DEADLINE_S=150 timeout 170 bash bench/gemm/run .dev/build/cli/pipethreader-cli /tmp/g163 > $R/gemm.txt 2>&1; echo "gemm rc $? $(( $(date +%s) - T0 )) s"
cp /tmp/g163/*.jsonl /tmp/g163/*.txt $R/ 2>/dev/null
tail -24 $R/gemm.txt
cd $R && tar czf ../r163.tgz . && cd .. && rm -rf $R
