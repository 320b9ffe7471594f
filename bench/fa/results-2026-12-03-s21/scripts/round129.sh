#!/bin/bash
# round 129: the FlashDecoding grid (HKV 8 x G 4, d 128, f16; the scheduler's picks and split
# counts, generated locally) with the per-map L2 promotion, against torch SDPA's backends.
set -u
OUT=${OUT:-/tmp/out}
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $OUT/gpu.txt
D=.dev/r129/dec
ls -d $D/*.partial $D/*.combine | xargs -P 16 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "{}: build failed"'
pairs=""
for kv in 16384 65536 131072 1024 4096; do for B in 1 8 64; do pairs="$pairs $D/b${B}_kv$kv.partial $D/b${B}_kv$kv.combine"; done; done
PLACEMENTS=2 timeout 300 python3 bench/fa/decode_time.py $pairs > $OUT/decode.jsonl 2> $OUT/decode.err
python3 - $OUT/decode.jsonl <<'PY' | tee $OUT/decode.txt
import json,sys,os
for l in open(sys.argv[1]):
    r=json.loads(l)
    if 'partial' not in r: continue
    n=os.path.basename(r['partial'])
    if 'times' not in r: print(n, r.get('error')); continue
    t=r['times']; tb=r['tb_per_s']
    print(f"{n:22s} B{r['B']} S{r['S']} sp{r['splits']} ours {t['ours']['median_ms']*1e3:8.1f} us ({tb['ours']:.2f} TB/s) partial {t['ours_partial']['median_ms']*1e3:8.1f} ({tb['ours_partial']:.2f}) best {r['torch_best']} {t[r['torch_best']]['median_ms']*1e3:8.1f} ({tb[r['torch_best']]:.2f}) ratio {r['speedup_vs_torch_best']:.3f} mism {r['mismatches']}")
PY
