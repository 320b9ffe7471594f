#!/bin/bash
# round 132: the three bf16 GEMMs at M = 64 that run below 0.95 of torch.matmul (70B.qkv, 8B.qkv,
# 70B.o): the scheduler's 12 candidates each (refitted model), torch.matmul interleaved; and
# which cuBLAS kernels torch runs there (ncu).
set -u
R=/tmp/r132; mkdir -p $R; OUT=${OUT:-/tmp/out}
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $OUT/gpu.txt
T0=$(date +%s)
(meson setup /tmp/b -Dgui=disabled --buildtype=release >/dev/null 2>&1 && meson compile -C /tmp/b >$R/build.log 2>&1) || { echo BUILD FAILED; tail -20 $R/build.log; }
echo "built $(( $(date +%s) - T0 )) s"
cat > $R/cublas.py <<'PY'
import torch
for (M,N,K) in [(64,10240,8192),(64,6144,4096),(64,8192,8192)]:
    A=torch.randn(M,K,device='cuda',dtype=torch.bfloat16); B=torch.randn(N,K,device='cuda',dtype=torch.bfloat16)
    for _ in range(3): C=torch.matmul(A,B.t())
    torch.cuda.synchronize()
PY
timeout 120 ncu --metrics launch__grid_size,launch__block_size,launch__cluster_dim_x,launch__cluster_dim_y,gpu__time_duration.sum,dram__bytes_read.sum python3 $R/cublas.py > $OUT/ncu.txt 2>&1; echo "ncu rc $? $(( $(date +%s) - T0 )) s"
grep -E "^  [a-zA-Z_].*\(|grid_size|block_size|cluster_dim|duration|dram__bytes" $OUT/ncu.txt | head -80
DTYPES=bf16 MODELS="8B 70B" MS="64" ONLY="bf16-70B.qkv-m64 bf16-8B.qkv-m64 bf16-70B.o-m64" AUTO_N=12 SKIP_HARNESS=1 DEADLINE_S=300 PLACEMENTS=3 timeout 330 bash bench/gemm/run /tmp/b/cli/pipethreader-cli $R/gemm > $OUT/gemm.txt 2>&1; echo "gemm rc $? $(( $(date +%s) - T0 )) s"
tail -12 $OUT/gemm.txt
cp $R/gemm/*.jsonl $OUT/ 2>/dev/null
for c in $R/gemm/*/; do n=$(basename $c); mkdir -p $OUT/cands/$n; cp $c/cands.txt $c/cands/*.json $OUT/cands/$n/ 2>/dev/null; done
ls $OUT
