#!/bin/bash
# round 133: three bf16 M = 64 GEMMs (70B.qkv, 8B.qkv, 70B.o): the scheduler's 8 candidates and
# hand-made deep rings (8-12 stages of 64/128-wide tiles, as cuBLAS's nvjet kernels use there:
# 112x64 or 64x64 tiles, 9-13 stages, no split-K), torch.matmul interleaved, every element checked.
set -u
OUT=${OUT:-/tmp/out}
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"; R=$PWD; ROOT=$(cd ../.. && pwd)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $OUT/gpu.txt
T0=$(date +%s)
G=$R/gemm
awk '{print $1}' $G/list.txt | xargs -P 16 -I{} sh -c 'make -s -C '$G'/{} lib > '$G'/{}/build.log 2>&1 || { echo "{}: build failed"; touch '$G'/{}/BUILD_FAILED; }'
echo "built $(( $(date +%s) - T0 )) s"
PLACEMENTS=3 DEADLINE_S=300 timeout 330 python3 $ROOT/bench/gemm/torch_gemm.py $G $G/list.txt > $OUT/torch.jsonl 2> $OUT/torch.err; echo "torch rc $? $(( $(date +%s) - T0 )) s"
tail -5 $OUT/torch.err
python3 - $OUT/torch.jsonl <<'PY' | tee $OUT/summary.txt
import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l)
    print("==", r.get("name"), "torch", r.get("times",{}).get("torch",{}).get("median_ms") if isinstance(r.get("times"),dict) else "", {k:v for k,v in r.items() if k not in ("candidates","times")})
    for c in r.get("candidates",[]): print("   ", c)
    print("   times:", json.dumps(r.get("times"))[:1500])
PY
