#!/usr/bin/env bash
# A device round (session 34): the GEMM picks that moved when few-CTA grids got the write
# rate's share for their stores (f16 / bf16 8B.o at M 64: n 64 split 2 -> n 128 split 3; f16 at
# M 16: 1 -> 2 warpgroups), old pick (rank 1) and new (rank 2) with torch.matmul interleaved in
# one process (bench/gemm/torch_gemm.py; .dev/gab carried), every element checked first.
set -u
R=$OUT/gab; mkdir -p "$R"
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$R/gpu.txt"
ls -d .dev/gab/*/ | xargs -P 8 -I{} sh -c 'make -s -C {} lib >{}/build.log 2>&1 || { echo "{}: build failed"; touch {}/BUILD_FAILED; }'
PLACEMENTS=2 timeout 200 python3 bench/gemm/torch_gemm.py .dev/gab .dev/gab/list > "$R/torch.jsonl" 2> "$R/torch.err"
echo "rc $?"
python3 - "$R/torch.jsonl" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "config" not in r: continue
    t = {k: v["median_ms"] * 1000 for k, v in r.get("times", {}).items()}
    print(r["config"], {k: round(v, 2) for k, v in t.items()}, r.get("error", ""))
PY
