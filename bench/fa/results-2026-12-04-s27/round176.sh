#!/bin/bash
# round 176: the unsplit / split boundary at B 16, 24, 32 (gen.sh): each shape's unsplit kernel
# and its SPLITS 1 and 2 pairs, torch SDPA interleaved, every element of O checked against torch;
# the B 16 unsplit kernels (128 CTAs) also against the f32 reference in their harness
set -u
OUT=${OUT:-/tmp/out}
R=.dev/r176
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $OUT/gpu.txt
(cd $R/g && find . -name Makefile -printf '%h\n' | xargs -P 16 -I{} sh -c 'make -s -C {} lib > {}/build.log 2>&1 || echo "BUILD FAILED {}"')
for b in $R/g/b16_kv4096_unsplit $R/g/b16_kv32768_unsplit; do (cd $b && make -s harness > /dev/null 2>&1 && timeout 60 ./harness --check-only 2>&1 | tail -1); done
t built
PLACEMENTS=2 timeout 200 python3 bench/fa/decode_time.py $(cat $R/g/args.txt) > $OUT/decode.jsonl 2> $OUT/decode.err
t "decode rc $?"
python3 - $OUT/decode.jsonl <<'PY'
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "partial" not in r: continue
    name = r["partial"].split("/")[-1]
    if "times" not in r: print(f"{name:<26} ERROR {r.get('error')}"); continue
    T = r["times"]; b = r["torch_best"]
    print(f"{name:<26} ours {T['ours']['median_ms']*1e3:9.2f} us  {b} {T[b]['median_ms']*1e3:9.2f}  ratio {r['speedup_vs_torch_best']:.3f}  mism {r['mismatches']}")
PY
t done
