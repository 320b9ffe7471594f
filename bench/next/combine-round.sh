#!/usr/bin/env bash
# The device round for session 32's combine (written without a GPU; bench/fa/combine-ab): on the
# GPU machine from the repository root with cJSON available (`source .deps/unpack.sh`), OUT set
# to a folder that comes back. One call, about 8 minutes:
#  1. every combine variant of tests/codegen/variants.txt and the MQA decoding ones, every
#     element against the f32 reference; FlashDecoding's pair chained as a model runs it
#     (tests/gpu/decode-chain-test.sh, O against torch SDPA);
#  2. the A/B: old and new combine kernels from the same sProgram, interleaved in one process
#     (bench/fa/combine-ab/run.sh);
#  3. bench/fa/decode_run with the scheduler's picks: MQA (HKV 1, G 32) at B 1 over 16k and 128k
#     (the combine's tile is now 4 x 32, 32 CTAs), and HKV 8, G 4 at B 1 and 8, KV 16384.
set -u
R=$OUT/combine; mkdir -p "$R"
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$R/gpu.txt"
timeout 240 sh -c 'meson setup .dev/build -Dgui=disabled --buildtype=release >/dev/null 2>&1; meson compile -C .dev/build' > "$R/build.log" 2>&1 || { echo "CLI build failed"; tail -20 "$R/build.log"; exit 1; }
CLI=$(pwd)/.dev/build/cli/pipethreader-cli
echo "cli $(( $(date +%s) - T0 )) s"
grep -E '^(dec_combine_[a-z0-9_]*|dec_mqa_[a-z0-9_]*) ' tests/codegen/variants.txt > "$R/variants.txt"
JOBS=16 RUN_TIMEOUT=60 timeout 200 sh tests/gpu/run-gpu-tests.sh "$CLI" "$R/variants.txt" "$R/gpu" > "$R/gpu.log" 2>&1
echo "gpu tests rc $? $(( $(date +%s) - T0 )) s"; tail -26 "$R/gpu.log"
timeout 150 sh tests/gpu/decode-chain-test.sh "$CLI" > "$R/chain.log" 2>&1
echo "chain rc $? $(( $(date +%s) - T0 )) s"; tail -12 "$R/chain.log"
timeout 150 bench/fa/combine-ab/run.sh "$CLI" "$R/ab" > "$R/ab.log" 2>&1
echo "a/b rc $? $(( $(date +%s) - T0 )) s"; tail -8 "$R/ab.log"
BATCHES="1" KVS="16384 131072" HKV=1 G=32 JOBS=16 timeout 120 bench/fa/decode_run "$CLI" "$R/decode_mqa" > "$R/decode_mqa.log" 2>&1
echo "decode mqa rc $? $(( $(date +%s) - T0 )) s"; tail -6 "$R/decode_mqa.log"
BATCHES="1 8" KVS="16384" JOBS=16 timeout 120 bench/fa/decode_run "$CLI" "$R/decode" > "$R/decode.log" 2>&1
echo "decode rc $? $(( $(date +%s) - T0 )) s"; tail -6 "$R/decode.log"
find "$R/gpu" "$R/ab" "$R/decode" "$R/decode_mqa" -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} + 2>/dev/null
echo "done $(( $(date +%s) - T0 )) s"
