#!/usr/bin/env bash
# The device round that measures the factored decay (sProgram "decay": "factored"; written in
# session 28 without a GPU, first run in session 31: BENCHMARKS.md). Run on the GPU machine from the repository root with cJSON available
# (`source .deps/unpack.sh`), OUT set to a folder that comes back. mamba_ssm's kernels are read
# from ../shared/anchors/mamba2-triton, or from .dev/anchors where that is not on the machine
# (copy it there and carry .dev/anchors and .deps). PART=check runs 1, PART=time runs 2 (each
# well inside one device call's 10 minutes; both, the default, may not be):
#  1. every factored ChunkScan variant of tests/codegen/variants.txt and its input ranges
#     (tests/gpu/input-ranges.txt: warps in and out of the factored range, f16, a walk that
#     leaves it mid-tile) checked on every element, with the tile-form twins;
#  2. ChunkScan at 8x2048, 8x8192, 64x8192: the tile pick, the factored pick, and the tile pick
#     with only its decay flipped, each against mamba_ssm in one process (ssd_time.py);
set -u
. bench/common/round-start.sh factored
PART=${PART:-all}
# 1. correctness
if [ "$PART" != time ]; then
grep -E '^ssd_scan_(fact_|f16_small|small |heads2_run2_col_h6 )' tests/codegen/variants.txt > "$R/variants.txt"
JOBS=16 RUN_TIMEOUT=60 timeout 300 sh tests/gpu/run-gpu-tests.sh "$CLI" "$R/variants.txt" "$R/gpu" > "$R/gpu.txt.log" 2>&1
echo "gpu tests rc $? $(( $(date +%s) - T0 )) s"; tail -30 "$R/gpu.txt.log"
fi
[ "$PART" = check ] && { rm -rf "$R/gpu"/*/ 2>/dev/null; echo "done $(( $(date +%s) - T0 )) s"; exit 0; }
# 2. timing against mamba_ssm
A=$(pwd)/../shared/anchors/mamba2-triton; [ -d "$A" ] || A=$(pwd)/.dev/anchors
B=$R/b; mkdir -p "$B"
for sh in 8x2048 8x8192 64x8192; do Bn=${sh%x*}; S=${sh#*x}; set_=B=$Bn,S=$S
  timeout 120 "$CLI" schedule mamba2_chunk_scan --set $set_ --target sm90a -o "$B/tile-$sh.json" > "$B/sched-tile-$sh.txt" 2>&1
  timeout 120 "$CLI" schedule mamba2_chunk_scan --set $set_ --target sm90a --decay factored -o "$B/fact-$sh.json" > "$B/sched-fact-$sh.txt" 2>&1
  python3 - "$B/tile-$sh.json" "$B/flip-$sh.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); p["decay"] = "factored"; json.dump(p, open(sys.argv[2], "w"), indent=1)
PY
  for v in tile fact flip; do
    "$CLI" codegen mamba2_chunk_scan --set $set_ --program "$B/$v-$sh.json" --target sm90a -o "$B/${v}_$sh" > /dev/null 2>&1 || echo "codegen $v $sh failed"
  done
done
(cd "$B" && ls -d *_* | grep -v '\.' | xargs -P 16 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "BUILD FAILED {}"')
echo "bundles $(( $(date +%s) - T0 )) s"
for sh in 8x2048 8x8192 64x8192; do
  P=2; [ $sh = 64x8192 ] && P=1
  PLACEMENTS=$P timeout 240 python3 bench/mamba2/ssd_time.py "$A" "$B/tile_$sh" "$B/fact_$sh" "$B/flip_$sh" >> "$R/vs_mamba.jsonl" 2>> "$R/vs_mamba.err"
  echo "scan $sh $(( $(date +%s) - T0 )) s"
done
tail -3 "$R/vs_mamba.err"
python3 - "$R/vs_mamba.jsonl" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    j = json.loads(l)
    if 'bundle' not in j:
        print(l.strip()[:300]); continue
    t = j.get('times', {})
    print(j['bundle'], j.get('error', ''), round(t.get('ours', {}).get('median_ms', 0), 4),
          round(t.get('mamba_ssm', {}).get('median_ms', 0), 4), round(j.get('speedup_vs_mamba_ssm', 0), 3),
          round(j.get('of_floor', 0), 3), j.get('check', {}).get('mismatches'), j.get('check', {}).get('vs_mamba_ssm'))
PY
grep -h "best predicted" "$B"/sched-*.txt
rm -rf "$B"/*/ "$R/gpu"/*/ 2>/dev/null
echo "done $(( $(date +%s) - T0 )) s"
