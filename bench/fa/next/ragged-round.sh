#!/usr/bin/env bash
# The device round for FlashDecoding's ragged pieces (a split count that does not divide the KV
# length, the last piece shorter: graph.h; written without a GPU in session 29). Run on the GPU
# machine from the repository root with cJSON available (`source .deps/unpack.sh`), OUT set to
# a folder that comes back. PART=check runs 1 and 2, PART=time runs 3 (each inside one device
# call's 10 minutes):
#  1. the ragged variants of tests/codegen/variants.txt, every element checked against the f32
#     reference, with two divisible twins;
#  2. FlashDecoding's pair chained as a model runs it (tests/gpu/decode-chain-test.sh: two
#     ragged shapes among eight, every element of O against torch SDPA), then 32 random
#     flash_decoding draws (tests/gpu/differential.sh, a third of the multi-piece draws ragged),
#     one small one under compute-sanitizer;
#  3. bench/fa/decode_run at B 1 and 8 over KV lengths that few counts divide (4099 and 16001
#     prime, 16383 = 3 x 43 x 127, 65537 and 131071 prime) beside 16384: the scheduler's counts,
#     our pair against torch SDPA's best backend in one process.
set -u
R=$OUT/ragged; mkdir -p "$R"
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$R/gpu.txt"
timeout 240 sh -c 'meson setup .dev/build -Dgui=disabled --buildtype=release >/dev/null 2>&1; meson compile -C .dev/build' > "$R/build.log" 2>&1 || { echo "CLI build failed"; tail -20 "$R/build.log"; exit 1; }
CLI=$(pwd)/.dev/build/cli/pipethreader-cli
echo "cli $(( $(date +%s) - T0 )) s"
PART=${PART:-check}
if [ "$PART" != time ]; then
  grep -E '^dec_[a-z0-9_]*(_ragged|kv1000_sp8_odd|kv4096_sp8) ' tests/codegen/variants.txt > "$R/variants.txt"
  JOBS=16 RUN_TIMEOUT=60 timeout 240 sh tests/gpu/run-gpu-tests.sh "$CLI" "$R/variants.txt" "$R/gpu" > "$R/gpu.log" 2>&1
  echo "gpu tests rc $? $(( $(date +%s) - T0 )) s"; tail -15 "$R/gpu.log"
  timeout 180 sh tests/gpu/decode-chain-test.sh "$CLI" > "$R/chain.log" 2>&1
  echo "chain rc $? $(( $(date +%s) - T0 )) s"; tail -12 "$R/chain.log"
  WORKLOADS=flash_decoding SAN_EVERY=32 JOBS=16 RUN_JOBS=4 timeout 240 sh tests/gpu/differential.sh .dev/build 32 9000 "$R/diff" > "$R/diff.log" 2>&1
  echo "differential rc $? $(( $(date +%s) - T0 )) s"; tail -6 "$R/diff.log"
  rm -rf "$R/gpu"/*/ "$R/diff"/*/ 2>/dev/null
  echo "done $(( $(date +%s) - T0 )) s"; exit 0
fi
BATCHES="1 8" KVS="4099 16001 16383 16384 65537 131071" JOBS=16 timeout 540 bench/fa/decode_run "$CLI" "$R/decode" > "$R/decode.log" 2>&1
echo "decode rc $? $(( $(date +%s) - T0 )) s"; tail -25 "$R/decode.log"
find "$R/decode" -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} + 2>/dev/null
echo "done $(( $(date +%s) - T0 )) s"
