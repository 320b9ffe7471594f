#!/usr/bin/env bash
# A device round (session 33): ldmatrix and the LOP3 moved from pt_ssd.cuh and pt_dequant.cuh
# into pt_device.cuh (the same instructions, now one place a CPU emulation can replace), so
# every Mamba2 and low-bit variant of tests/codegen/variants.txt is run again, every element
# against the f32 reference, with the combine variants (tiles of 1 and 2 rows are new); then the
# combine's time at several tiles (bench/fa/combine-tiles).
# On the GPU machine from the repository root, cJSON available, OUT set.
set -u
. bench/common/round-start.sh headers
grep -E '^(dec_combine_\S+|\S+\s+(gemm_w4a16|gemm_wfp4a16|mamba2_chunk_\S+|\S*(w4a16|wfp4a16|chunk_scan)\S*\.json))\s' tests/codegen/variants.txt > "$R/variants.txt"
echo "$(wc -l < "$R/variants.txt") variants"
JOBS=16 RUN_TIMEOUT=60 timeout 330 sh tests/gpu/run-gpu-tests.sh "$CLI" "$R/variants.txt" "$R/gpu" > "$R/gpu.log" 2>&1
echo "gpu tests rc $? $(( $(date +%s) - T0 )) s"; grep -vE '^\S+\s+true ' "$R/gpu.log" | tail -20; grep -cE '^\S+\s+true ' "$R/gpu.log"
timeout 150 bench/fa/combine-tiles/run.sh "$CLI" "$R/tiles" > "$R/tiles.log" 2>&1
echo "tiles rc $? $(( $(date +%s) - T0 )) s"; grep -v Warning "$R/tiles.log" | grep -v 'return F' | tail -14
rm -rf "$R/gpu"/*/ "$R/tiles"/*/ 2>/dev/null
echo "done $(( $(date +%s) - T0 )) s"
