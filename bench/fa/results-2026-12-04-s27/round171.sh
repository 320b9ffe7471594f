#!/bin/bash
# round 171: the FA3 grid with the model's own picks against cuDNN (bench/fa/run, AUTO_N=1, every
# element checked against cuDNN by fa_time.py), and the 5 GQA prefill shapes of session 3 with
# today's picks against cuDNN (K/V expanded) and flash (enable_gqa), interleaved
set -u
OUT=${OUT:-/tmp/out}
R=.dev/r171
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $OUT/gpu.txt
(meson setup .dev/build -Dgui=disabled --buildtype=release > $OUT/setup.log 2>&1 || true; timeout 200 meson compile -C .dev/build > $OUT/compile.log 2>&1) || { echo "build failed"; tail -20 $OUT/compile.log; }
CLI=$PWD/.dev/build/cli/pipethreader-cli
t "cli built"
(cd $R/g && ls -d gqa_*/ | xargs -P 16 -I{} sh -c 'make -s -C {} lib > {}/build.log 2>&1 || echo "BUILD FAILED {}"')
PLACEMENTS=2 timeout 120 python3 bench/fa/gqa_time.py $R/g/gqa_* > $OUT/gqa.jsonl 2> $OUT/gqa.err
t "gqa rc $?"
python3 - $OUT/gqa.jsonl <<'PY'
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "times" not in r: print(str(r)[:300]); continue
    T = r["times"]
    ms = {k: v["median_ms"]*1e3 for k, v in T.items()}
    print(r.get("bundle", "?").split("/")[-1], {k: round(v, 2) for k, v in ms.items()}, {k: round(v, 3) for k, v in r.items() if k.startswith("speedup") or k.startswith("ratio")}, "mism", r.get("mismatches"))
PY
DEADLINE_S=330 CHECK_MAX_SEQ=0 AUTO_N=1 timeout 400 bench/fa/run $CLI $OUT/fa > $OUT/fa.txt 2>&1
t "fa rc $?"; tail -50 $OUT/fa.txt
cd $OUT && find fa -mindepth 1 -maxdepth 1 -type d | xargs rm -rf; true
t done
