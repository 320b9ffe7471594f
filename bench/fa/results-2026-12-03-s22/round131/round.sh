#!/bin/bash
# round 131: (a) the session-12 GEMM set's small-M rows (every third) re-measured; (b) six
# kernels that ran slower re-measured than in session 3, against their 256-B-promotion twins;
# (c) FlashDecoding at B 64 with split counts 1-32, torch's backends interleaved.
set -u
OUT=${OUT:-/tmp/out}
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"; R=$PWD; ROOT=$(cd ../.. && pwd)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $OUT/gpu.txt
tar xJf rm2.tar.xz -C /tmp
T0=$(date +%s)
D=$R/dec
ls -d $D/*.partial $D/*.combine | xargs -P 16 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "{}: build failed"'
echo "decode built $(( $(date +%s) - T0 )) s"
cd $ROOT
pairs=""
for n in b64_kv1024_sp1 b64_kv1024_sp4 b64_kv1024_sp8 b64_kv16384_sp1 b64_kv16384_sp4 b64_kv16384_sp8 b64_kv16384_sp16 b64_kv16384_sp32 b64_kv65536_sp1 b64_kv65536_sp8 b64_kv65536_sp16 b64_kv65536_sp32; do pairs="$pairs $D/$n.partial $D/$n.combine"; done
PLACEMENTS=2 timeout 200 python3 bench/fa/decode_time.py $pairs > $OUT/decode.jsonl 2> $OUT/decode.err
python3 - $OUT/decode.jsonl <<'PY' | tee $OUT/decode.txt
import json,sys,os
for l in open(sys.argv[1]):
    r=json.loads(l)
    if 'partial' not in r: continue
    n=os.path.basename(r['partial'])
    if 'times' not in r: print(n, r.get('error')); continue
    t=r['times']; tb=r['tb_per_s']
    print(f"{n:24s} B{r['B']} S{r['S']} sp{r['splits']} ours {t['ours']['median_ms']*1e3:8.1f} us ({tb['ours']:.2f} TB/s) partial {t['ours_partial']['median_ms']*1e3:8.1f} ({tb['ours_partial']:.2f}) best {r['torch_best']} {t[r['torch_best']]['median_ms']*1e3:8.1f} ({tb[r['torch_best']]:.2f}) ratio {r['speedup_vs_torch_best']:.3f} mism {r['mismatches']}")
PY
echo "decode done $(( $(date +%s) - T0 )) s"
bash $R/ab.sh $OUT/ab.txt /tmp/rm2/ab/*
echo "ab done $(( $(date +%s) - T0 )) s"
python3 $ROOT/tools/remeasure run --out /tmp/rm2/s12 --jobs 16 --deadline 170 --timeout 30 2>&1 | tail -8
mkdir -p $OUT/s12 && cp /tmp/rm2/s12/measured.jsonl $OUT/s12/
echo "total $(( $(date +%s) - T0 )) s"
