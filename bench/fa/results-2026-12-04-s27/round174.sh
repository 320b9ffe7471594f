#!/bin/bash
# round 174, the final tree: the decode grid (bench/fa/decode_run, the scheduler's picks: split
# pairs or the unsplit kernel; torch SDPA interleaved, every element of O checked against torch),
# the two d256 16k picks that changed (n 80, rank 1) against the previous (n 64, rank 2) with
# cuDNN, and 44 random sPrograms over all 11 workloads (4 of them also small under sanitizers)
set -u
OUT=${OUT:-/tmp/out}
R=.dev/r174
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $OUT/gpu.txt
(meson setup .dev/build -Dgui=disabled --buildtype=release > $OUT/setup.log 2>&1 || true; timeout 200 meson compile -C .dev/build > $OUT/compile.log 2>&1) || { echo "build failed"; tail -20 $OUT/compile.log; }
CLI=$PWD/.dev/build/cli/pipethreader-cli
t "cli built"
CHECK=0 JOBS=16 timeout 300 bench/fa/decode_run $CLI $OUT/decode > $OUT/decode.txt 2>&1
t "decode rc $?"
python3 - $OUT/decode/decode.jsonl <<'PY'
import json, sys, math
lg = []
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "partial" not in r: continue
    if "times" not in r: print(r["partial"].split("/")[-1], "ERROR", r.get("error")); continue
    T = r["times"]; b = r["torch_best"]
    name = r["partial"].split("/")[-1]
    lg.append(math.log(r["speedup_vs_torch_best"]))
    print(f"{name:<26} ours {T['ours']['median_ms']*1e3:9.2f} us  {b} {T[b]['median_ms']*1e3:9.2f}  ratio {r['speedup_vs_torch_best']:.3f}  {r['tb_per_s']['ours']:.2f} TB/s  mism {r['mismatches']}")
print("geomean", round(math.exp(sum(lg) / len(lg)), 4), len(lg))
PY
(cd $R/g && ls -d d256-*-r*/ | xargs -P 16 -I{} sh -c 'make -s -C {} lib > {}/build.log 2>&1 || echo "BUILD FAILED {}"')
PLACEMENTS=3 timeout 150 python3 bench/fa/fa_time.py $R/g $R/g/list.txt > $OUT/fa.jsonl 2> $OUT/fa.err
t "fa rc $?"
python3 - $OUT/fa.jsonl <<'PY'
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "times" not in r: print(str(r)[:400]); continue
    T = {k: v["median_ms"] * 1e3 for k, v in r["times"].items()}
    c = T.get("cudnn")
    print(r.get("config"), " ".join(f"{k} {v:.1f} ({c / v:.3f})" for k, v in sorted(T.items())), "new/old %.4f" % (T["auto1"] / T["auto2"]))
PY
SAN_EVERY=11 RUN_TIMEOUT=30 timeout 240 tests/gpu/differential.sh .dev/build 44 4000 $OUT/diff > $OUT/diff.txt 2>&1
t "differential rc $?"; grep -E "^differential:" $OUT/diff.txt; grep -E "FAIL|HUNG|hung|wrong" $OUT/diff.txt | head
cd $OUT && rm -rf diff/*/ && find decode -mindepth 1 -maxdepth 1 -type d | xargs rm -rf; true
t done
