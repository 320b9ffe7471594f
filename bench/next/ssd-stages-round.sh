#!/usr/bin/env bash
# A device round (session 35, H100): ChunkState and ChunkScan stage splits of the H100 picks
# (.dev/exp2, made by bench/next/ssd-stages-make.sh, carried; names say the x / Bm or CB / x stages) with the
# conflict-free f32 convert, five ChunkState twins with the previous convert (-oldconv), timed by
# the harness (--no-check, 2 placements) in two interleaved passes; the Mamba2 and decoding
# variants (tests/codegen/variants.txt) checked on the GPU with the new convert and input draws.
set -u
. bench/common/round-start.sh ssd-stages
E=.dev/exp2
grep -E '^(ssd_state|ssd_scan_fact|dec_)' tests/codegen/variants.txt > "$R/variants.txt"
JOBS=16 RUN_TIMEOUT=60 timeout 200 sh tests/gpu/run-gpu-tests.sh "$CLI" "$R/variants.txt" "$R/gpu" > "$R/gpu-tests.txt" 2>&1
echo "gpu tests rc $? $(( $(date +%s) - T0 )) s"; grep -E "FAIL|fail|passed|correct" "$R/gpu-tests.txt" | tail -6
rm -rf "$R/gpu"
ls -d $E/*/ | xargs -P 16 -I{} sh -c 'make -s -C {} all > {}/build.log 2>&1 || echo "BUILD FAILED {}"'
echo "built $(( $(date +%s) - T0 )) s"
for v in state-b8s2048-x4b4 state-b8s2048-x6b2 scan-b8s2048-cb4x4; do
    echo "$v check: $(cd $E/$v && timeout 60 ./harness --check-only 2>&1 | grep '^check:')"
done
bench/common/harness-passes.sh 2 $E/*/ > "$R/times.txt"
cat "$R/times.txt"
echo "done $(( $(date +%s) - T0 )) s"
