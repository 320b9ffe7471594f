#!/bin/bash
# round 170: FlashDecoding's unsplit kernel (B 64): the decode / combine / unsplit variants in
# their harnesses, sanitizers on a small unsplit one, the chained decode test, the B 64 unsplit
# picks against the SPLITS=1 pairs they replace and 6 candidates each at KV 1k/4k/16k, all with
# torch SDPA interleaved; f16 70B.gate_up M 64 under hbm_write_gbps 3555 / 2962 with torch.matmul
set -u
OUT=${OUT:-/tmp/out}
R=.dev/r170
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $OUT/gpu.txt
(meson setup .dev/build -Dgui=disabled --buildtype=release > $OUT/setup.log 2>&1 || true; timeout 200 meson compile -C .dev/build > $OUT/compile.log 2>&1) || { echo "build failed"; tail -20 $OUT/compile.log; }
CLI=$PWD/.dev/build/cli/pipethreader-cli
t "cli built"
(cd $R/g && find . -name Makefile -printf '%h\n' | xargs -P 16 -I{} sh -c 'make -s -C {} lib > {}/build.log 2>&1 || echo "BUILD FAILED {}"')
t "bundles built"
RUN_TIMEOUT=60 timeout 200 tests/gpu/run-gpu-tests.sh $CLI $R/variants-dec.txt $OUT/variants > $OUT/variants.txt 2>&1
t "variants rc $?"; grep -E "FAIL|fail|false" $OUT/variants.txt | head -20; grep -c '"correct": true' $OUT/variants/results.jsonl
V=$OUT/variants/dec_unsplit_b133_mha_kv777_d64
for tool in memcheck synccheck; do (cd $V && timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 ./harness --check-only > $OUT/san-$tool.txt 2>&1); echo "$tool rc $? $(grep -E 'ERROR SUMMARY' $OUT/san-$tool.txt | head -1)"; done | tee $OUT/san.txt
timeout 240 tests/gpu/decode-chain-test.sh $CLI > $OUT/chain.txt 2>&1
t "chain rc $?"; cat $OUT/chain.txt | tail -12
PLACEMENTS=2 timeout 260 python3 bench/fa/decode_time.py $(cat $R/g/decode_args.txt) $(cat $R/g/cand_args.txt) > $OUT/decode.jsonl 2> $OUT/decode.err
t "decode rc $?"; tail -3 $OUT/decode.err
python3 - $OUT/decode.jsonl <<'PY'
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "partial" not in r: continue
    name = r["partial"].replace(".dev/r170/g/", "")
    if "times" not in r:
        print(f"{name:<22} ERROR {r.get('error')}"); continue
    T = r["times"]; b = r["torch_best"]
    ex = "".join(f"  {k[5:]} {T[k]['median_ms']*1e3:.2f}" for k in ("ours_partial", "ours_combine") if k in T)
    print(f"{name:<22} S {r['S']:>6}  ours {T['ours']['median_ms']*1e3:9.2f} us  {b} {T[b]['median_ms']*1e3:9.2f}  ratio {r['speedup_vs_torch_best']:.3f}  mism {r['mismatches']}{ex}")
PY
DEADLINE_S=100 timeout 130 python3 bench/gemm/torch_gemm.py $R/g $R/g/timed.txt > $OUT/gemm.jsonl 2> $OUT/gemm.err
t "gemm rc $?"
python3 - $OUT/gemm.jsonl <<'PY'
import json, sys
for l in open(sys.argv[1]):
    j = json.loads(l)
    if "config" not in j: continue
    if "ours" not in j: print(j); continue
    tt = j["torch"]["median_ms"]*1e3; a1 = j["ours"]["median_ms"]*1e3; a2 = j["auto2"]["median_ms"]*1e3
    print(f"{j['config']} torch {tt:.2f}  a1(stream-K) {a1:.2f} ({tt/a1:.3f})  a2(plain) {a2:.2f} ({tt/a2:.3f})  a2/a1 {a2/a1:.4f}  {j['candidates']}")
PY
cd $OUT && rm -rf variants/*/ 2>/dev/null; true
t done
