#!/usr/bin/env bash
# A device round (session 33): the combine with its splits walked in parts (pt_combine.cuh, P
# threads to a column chunk). Needs .dev/ab written by bench/fa/parts-ab/make.sh (carried).
# On the GPU machine from the repository root, cJSON available, OUT set:
#  1. every combine and MQA decoding variant, every element against the f32 reference; the
#     chained pairs against torch SDPA (tests/gpu/decode-chain-test.sh);
#  2. the A/B: new and old combine from the same sProgram after the same partial, one process;
#  3. the combine at several tiles (bench/fa/combine-tiles).
set -u
. bench/common/round-start.sh parts
grep -E '^(dec_combine_[a-z0-9_]*|dec_mqa_[a-z0-9_]*) ' tests/codegen/variants.txt > "$R/variants.txt"
JOBS=16 RUN_TIMEOUT=60 timeout 150 sh tests/gpu/run-gpu-tests.sh "$CLI" "$R/variants.txt" "$R/gpu" > "$R/gpu.log" 2>&1
echo "gpu tests rc $? $(( $(date +%s) - T0 )) s"; grep -vE '^\S+\s+true ' "$R/gpu.log" | tail -6; grep -cE '^\S+\s+true ' "$R/gpu.log"
timeout 100 sh tests/gpu/decode-chain-test.sh "$CLI" > "$R/chain.log" 2>&1
echo "chain rc $? $(( $(date +%s) - T0 )) s"; tail -2 "$R/chain.log"
timeout 120 bench/fa/parts-ab/run.sh .dev/ab > "$R/ab.log" 2>&1
echo "a/b rc $? $(( $(date +%s) - T0 )) s"; grep -vE 'Warning|return F' "$R/ab.log" | tail -6
timeout 100 bench/fa/combine-tiles/run.sh "$CLI" "$R/tiles" > "$R/tiles.log" 2>&1
echo "tiles rc $? $(( $(date +%s) - T0 )) s"; grep -E ' us,|mismatches' "$R/tiles.log" | tail -12
cp .dev/ab/ab.jsonl "$R/" 2>/dev/null
rm -rf "$R/gpu"/*/ "$R/tiles"/*/ 2>/dev/null
echo "done $(( $(date +%s) - T0 )) s"
