#!/bin/bash
# round 165: FlashDecoding's combine launched as a programmatic dependent of the partial (PDL)
# against its twin without it, and a non-persistent combine, torch SDPA interleaved.
set -u
OUT=${OUT:-/tmp/out}
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $OUT/gpu.txt
D=.dev/r165/dec
ls -d $D/*.partial $D/*.combine $D/*.twin $D/*.cnp | xargs -P 16 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "{}: build failed"'
for b in $D/b1_kv1024.partial $D/b1_kv1024.combine $D/b1_kv1024.cnp $D/b8_kv1024.combine $D/b8_kv1024.cnp $D/b64_kv1024.combine $D/b64_kv1024.cnp; do
  (cd $b && timeout 60 ./harness --json-only --iters 20) > $b.check.json 2> $b.check.log
  echo "$(basename $b): rc $? $(grep -o '"correct": [a-z]*' $b.check.json)"
done | tee $OUT/checks.txt
t=""
for n in b1_kv1024 b1_kv4096 b1_kv16384 b8_kv1024 b8_kv4096 b8_kv16384 b64_kv1024 b64_kv4096 b64_kv16384 b64_kv65536; do t="$t $D/$n.partial $D/$n.combine $D/$n.twin"; done
TWINS=1 PLACEMENTS=2 timeout 260 python3 bench/fa/decode_time.py $t > $OUT/decode.jsonl 2> $OUT/decode.err
t=""
for n in b1_kv1024 b8_kv1024 b64_kv1024 b64_kv4096; do t="$t $D/$n.partial $D/$n.combine $D/$n.cnp"; done
TWINS=1 PLACEMENTS=2 timeout 100 python3 bench/fa/decode_time.py $t > $OUT/decode-np.jsonl 2> $OUT/decode-np.err
for f in decode decode-np; do
python3 - $OUT/$f.jsonl <<'PY' | tee $OUT/$f.txt
import json,sys,os
for l in open(sys.argv[1]):
    r=json.loads(l)
    if 'partial' not in r: continue
    n=os.path.basename(r['partial'])
    if 'times' not in r: print(n, r.get('error')); continue
    t=r['times']; ms=lambda k: t[k]['median_ms']*1e3
    b=r['torch_best']
    print(f"{n:22s} B{r['B']} S{r['S']} sp{r['splits']} ours {ms('ours'):8.2f} twin {ms('ours_twin'):8.2f} ({ms('ours')/ms('ours_twin')-1:+.1%}) partial {ms('ours_partial'):8.2f} combine {ms('ours_combine'):6.2f} {b} {ms(b):8.2f} ratio {ms(b)/ms('ours'):.3f} twin-ratio {ms(b)/ms('ours_twin'):.3f} mism {r['mismatches']}/{r.get('twin_mismatches')}")
PY
done
