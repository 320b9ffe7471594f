#!/usr/bin/env bash
# A device round (ran in session 34 on an H100; rerun on an H200 for the H200 model's data): the
# combine with mul folded into its reduce (pt_combine.cuh) and
# the parts' walks without per-step tests. On the GPU machine from the repository root, cJSON
# available, OUT set; .dev/ab (bench/fa/parts-ab/make.sh, old = the tree before) and .dev/sweep
# (bench/fa/split-sweep/make.sh) carried:
#  1. every combine and MQA decoding variant against the f32 reference, the chained pairs
#     against torch SDPA;
#  2. the A/B of the combine before and after, same sProgram, same partial, one process;
#  3. the split sweep again (the combines' new times, model data);
#  4. the combine at several tiles.
set -u
. bench/common/round-start.sh fused
grep -E '^(dec_combine_[a-z0-9_]*|dec_mqa_[a-z0-9_]*) ' tests/codegen/variants.txt > "$R/variants.txt"
JOBS=16 RUN_TIMEOUT=60 timeout 150 sh tests/gpu/run-gpu-tests.sh "$CLI" "$R/variants.txt" "$R/gpu" > "$R/gpu.log" 2>&1
echo "gpu tests rc $? $(( $(date +%s) - T0 )) s"; grep -vE '^\S+\s+true ' "$R/gpu.log" | tail -6; grep -cE '^\S+\s+true ' "$R/gpu.log"
timeout 120 sh tests/gpu/decode-chain-test.sh "$CLI" > "$R/chain.log" 2>&1
echo "chain rc $? $(( $(date +%s) - T0 )) s"; tail -2 "$R/chain.log"
timeout 120 bench/fa/parts-ab/run.sh .dev/ab > "$R/ab.log" 2>&1
echo "a/b rc $? $(( $(date +%s) - T0 )) s"; grep -vE 'Warning|return F' "$R/ab.log" | tail -5
cp .dev/ab/ab.jsonl "$R/" 2>/dev/null
timeout 240 bench/fa/split-sweep/run.sh .dev/sweep > "$R/sweep.log" 2>&1
echo "sweep rc $? $(( $(date +%s) - T0 )) s"; grep -vE 'Warning|return F' "$R/sweep.log" | tail -31
cp .dev/sweep/sweep.jsonl .dev/sweep/list "$R/" 2>/dev/null
timeout 120 bench/fa/combine-tiles/run.sh "$CLI" "$R/tiles" > "$R/tiles.log" 2>&1
echo "tiles rc $? $(( $(date +%s) - T0 )) s"; grep -E ' us,|mismatches' "$R/tiles.log" | tail -12
rm -rf "$R/gpu"/*/ "$R/tiles"/*/ 2>/dev/null
echo "done $(( $(date +%s) - T0 )) s"
