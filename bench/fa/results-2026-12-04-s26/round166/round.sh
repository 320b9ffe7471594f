#!/bin/bash
# round 166: the final tree. FlashDecoding's decode grid (the scheduler's picks and split counts,
# the combine launched as the partial's programmatic dependent) against torch SDPA; odd chained
# shapes; every decode and combine variant of tests/codegen/variants.txt in its harness.
set -u
OUT=${OUT:-/tmp/out}
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $OUT/gpu.txt
(meson setup .dev/build -Dgui=disabled --buildtype=release > $OUT/setup.log 2>&1 || true; meson compile -C .dev/build > $OUT/compile.log 2>&1) || { echo "CLI build failed"; tail -20 $OUT/compile.log; }
CLI=$PWD/.dev/build/cli/pipethreader-cli
RUN_TIMEOUT=60 timeout 200 tests/gpu/run-gpu-tests.sh $CLI .dev/r166/variants-dec.txt $OUT/variants > $OUT/variants.txt 2>&1
echo "variants rc $?"; tail -25 $OUT/variants.txt
# odd chained shapes (partial + combine through decode_time, every element against torch)
D=.dev/r166/odd; mkdir -p $D
odd() { # name set-partial set-combine
  $CLI codegen examples/flash_decoding.json --set "$2" --target sm90a -o $D/$1.partial > /dev/null &&
  $CLI codegen examples/flash_decoding_combine.json --set "$3" --target sm90a -o $D/$1.combine > /dev/null
}
odd b3_hkv2_g8_kv1000_sp8 B=3,HKV=2,G=8,S=1000,SPLITS=8,D=128 B=3,HKV=2,G=8,SPLITS=8,D=128
odd b1_g8_kv100k_d64_sp50 B=1,HKV=8,G=8,S=100000,SPLITS=50,D=64 B=1,HKV=8,G=8,SPLITS=50,D=64
odd b5_mha_kv777_sp1 B=5,HKV=16,G=1,S=777,SPLITS=1,D=128 B=5,HKV=16,G=1,SPLITS=1,D=128
ls -d $D/*.partial $D/*.combine | xargs -P 16 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "{}: build failed"'
PLACEMENTS=1 timeout 90 python3 bench/fa/decode_time.py $D/b3_hkv2_g8_kv1000_sp8.partial $D/b3_hkv2_g8_kv1000_sp8.combine \
  $D/b1_g8_kv100k_d64_sp50.partial $D/b1_g8_kv100k_d64_sp50.combine $D/b5_mha_kv777_sp1.partial $D/b5_mha_kv777_sp1.combine > $OUT/odd.jsonl 2> $OUT/odd.err
python3 -c "
import json,sys
for l in open('$OUT/odd.jsonl'):
    r=json.loads(l)
    if 'partial' in r: print(r['partial'].split('/')[-1], 'mismatches', r.get('mismatches'), 'of', r.get('elements'), r.get('error',''))
" | tee $OUT/odd.txt
# the decode grid with the scheduler's picks
CHECK=0 PLACEMENTS=2 timeout 330 bench/fa/decode_run $CLI $OUT/grid > $OUT/grid.log 2>&1
echo "grid rc $?"
python3 - $OUT/grid/decode.jsonl <<'PY' | tee $OUT/grid.txt
import json,sys,os,math
rs=[]
for l in open(sys.argv[1]):
    r=json.loads(l)
    if 'partial' not in r: continue
    n=os.path.basename(r['partial'])
    if 'times' not in r: print(n, r.get('error')); continue
    t=r['times']; tb=r['tb_per_s']; b=r['torch_best']; ms=lambda k: t[k]['median_ms']*1e3
    rs.append(r['speedup_vs_torch_best'])
    print(f"{n:26s} B{r['B']} S{r['S']} sp{r['splits']} ours {ms('ours'):8.1f} us ({tb['ours']:.2f} TB/s) partial {ms('ours_partial'):8.1f} combine {ms('ours_combine'):5.2f} {b} {ms(b):8.1f} ({tb[b]:.2f}) ratio {r['speedup_vs_torch_best']:.3f} mism {r['mismatches']}")
if rs: print(f"geomean best-torch / ours over {len(rs)}: {math.exp(sum(map(math.log,rs))/len(rs)):.3f}")
PY
cd $OUT && tar czf variants.tgz variants --exclude='*.cubin' --exclude='harness' --exclude='*.so' 2>/dev/null; rm -rf variants; find grid -name '*.cubin' -o -name harness -o -name '*.so' | xargs rm -f; tar czf grid.tgz grid; rm -rf grid
