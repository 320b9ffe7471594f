#!/bin/bash
# round 173: the picks that change with the key tile 80 (rank 1 new, rank 2 previous), d128 FA grid
# (fa_time.py, cuDNN and flash interleaved) and GQA (gqa_time.py, cuDNN on expanded K/V and flash)
set -u
OUT=${OUT:-/tmp/out}
R=.dev/r173
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $OUT/gpu.txt
(cd $R/g && find . -name Makefile -printf '%h\n' | xargs -P 16 -I{} sh -c 'make -s -C {} lib > {}/build.log 2>&1 || echo "BUILD FAILED {}"')
grep -h "spill" $R/g/*/kernel.ptxas.txt | sort | uniq -c
t built
PLACEMENTS=3 timeout 240 python3 bench/fa/fa_time.py $R/g $R/g/list.txt > $OUT/fa.jsonl 2> $OUT/fa.err
t "fa rc $?"; tail -2 $OUT/fa.err
python3 - $OUT/fa.jsonl <<'PY'
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "times" not in r: print(str(r)[:400]); continue
    T = {k: v["median_ms"] * 1e3 for k, v in r["times"].items()}
    c = T.get("cudnn")
    print(r.get("config"), " ".join(f"{k} {v:.1f} ({c / v:.3f})" for k, v in sorted(T.items())), "new/old %.4f" % (T["auto1"] / T["auto2"]))
PY
PLACEMENTS=2 timeout 150 python3 bench/fa/gqa_time.py $R/g/gqa_new_* $R/g/gqa_old_* > $OUT/gqa.jsonl 2> $OUT/gqa.err
t "gqa rc $?"
python3 - $OUT/gqa.jsonl <<'PY'
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "times" not in r: print(str(r)[:300]); continue
    T = {k: v["median_ms"] * 1e3 for k, v in r["times"].items()}
    print(r.get("bundle", "?").split("/")[-1], " ".join(f"{k} {v:.2f}" for k, v in T.items()), "cudnn/ours %.3f" % (T["cudnn_expanded"] / T["ours"]), "mism", r.get("mismatches"))
PY
t done
