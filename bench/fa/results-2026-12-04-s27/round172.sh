#!/bin/bash
# round 172: FA d256 variants (see gen.sh) interleaved with cuDNN and flash, every element
# checked against cuDNN (fa_time.py)
set -u
OUT=${OUT:-/tmp/out}
R=.dev/r172
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $OUT/gpu.txt
(cd $R/g && ls -d d256-*-v*/ | xargs -P 16 -I{} sh -c 'make -s -C {} lib > {}/build.log 2>&1 || echo "BUILD FAILED {}"')
grep -h "spill" $R/g/d256-*-v*/kernel.ptxas.txt | sort | uniq -c
t built
PLACEMENTS=3 timeout 300 python3 bench/fa/fa_time.py $R/g $R/g/list.txt > $OUT/fa.jsonl 2> $OUT/fa.err
t "fa rc $?"; tail -3 $OUT/fa.err
python3 - $OUT/fa.jsonl <<'PY'
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "times" not in r: print(str(r)[:400]); continue
    T = {k: v["median_ms"] * 1e3 for k, v in r["times"].items()}
    c = T.get("cudnn")
    print(r.get("config"), " ".join(f"{k} {v:.1f} ({c / v:.3f})" for k, v in sorted(T.items())), r.get("checks", ""))
PY
t done
