#!/bin/bash
# round 168: the final tree's split-K cluster hand-off (st.async): every cluster variant in its
# harness, sanitizers on a tiny one, random GEMM / low-bit sPrograms, and the low-bit bench at
# M 1 and 16 (int4) against cuBLAS and torch's int4 GEMM.
set -u
OUT=${OUT:-/tmp/out}
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $OUT/gpu.txt
(meson setup .dev/build -Dgui=disabled --buildtype=release > $OUT/setup.log 2>&1 || true; timeout 150 meson compile -C .dev/build > $OUT/compile.log 2>&1) || { echo "build failed"; tail -20 $OUT/compile.log; }
CLI=$PWD/.dev/build/cli/pipethreader-cli
RUN_TIMEOUT=60 timeout 120 tests/gpu/run-gpu-tests.sh $CLI .dev/r168/variants-cl.txt $OUT/variants > $OUT/variants.txt 2>&1
echo "variants rc $?"; grep -E "true|false|FAIL|fail" $OUT/variants.txt | head -20
V=$OUT/variants/cl2_bf16_tiny_1x256x1024
for tool in memcheck racecheck synccheck; do (cd $V && timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 ./harness --check-only > $OUT/san-$tool.txt 2>&1); echo "$tool rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/san-$tool.txt | head -1)"; done | tee $OUT/san.txt
WORKLOADS="gemm_f16 gemm_bf16 gemm_w4a16 gemm_wfp4a16" SAN_EVERY=0 RUN_TIMEOUT=30 timeout 150 tests/gpu/differential.sh .dev/build 40 3000 $OUT/diff > $OUT/diff.txt 2>&1
echo "differential rc $?"; grep -E "^differential:" $OUT/diff.txt; grep -c cluster $OUT/diff/*/program.json 2>/dev/null | grep -v ":0" | wc -l
MS="1 16" FORMATS="w4a16" PLACEMENTS=1 timeout 200 bench/lowbit/run $CLI $OUT/lowbit > $OUT/lowbit.log 2>&1
echo "lowbit rc $?"; tail -16 $OUT/lowbit.log
cd $OUT && rm -rf variants diff && find lowbit -name '*.cubin' -o -name harness -o -name '*.so' | xargs rm -f 2>/dev/null; true
