#!/usr/bin/env bash
# The device round for ragged pieces (graph.h: a sequence cut into pieces whose last is
# shorter): FlashDecoding's split count that does not divide the KV length, and Mamba2 at a
# sequence that is not a whole number of chunks. Written without a GPU in session 29; run in
# session 31 (BENCHMARKS.md), all but the time part's Mamba2 timing at S 8000. Run on
# the GPU machine from the repository root with cJSON available (`source .deps/unpack.sh`), OUT
# set to a folder that comes back; mamba_ssm from ../shared/anchors/mamba2-triton or
# .dev/anchors (carry it). One device call per part:
#  PART=check  the ragged variants of tests/codegen/variants.txt (decoding and Mamba2) with
#              divisible twins, and session 30's general cases (chunks of 64, state sizes 16 and
#              32, MQA in 100 and 128 pieces with their combines, staged low-bit scales, the
#              tiny defaults fa_s1 and u_bf16_1x1x1), every element against the f32 reference;
#              FlashDecoding's pair
#              chained as a model runs it (tests/gpu/decode-chain-test.sh: two ragged shapes
#              among eight, O against torch SDPA);
#  PART=diff   32 random flash_decoding and 32 Mamba2 draws (tests/gpu/differential.sh; a third
#              of the multi-piece decoding draws and some Mamba2 ones ragged);
#  PART=time   bench/fa/decode_run at B 1 and 8 over KV lengths that few counts divide (4099
#              and 16001 prime, 16383 = 3 x 43 x 127, 65537 and 131071 prime) beside 16384, and
#              ChunkScan / ChunkState at B 8, S 8000 (31.25 chunks) against mamba_ssm, each in
#              one process with its baseline (decode_time.py, ssd_time.py); MQA (HKV 1, G 32)
#              at B 1 over 16k-128k, where the split search now reaches 128 pieces.
set -u
. bench/common/round-start.sh ragged
PART=${PART:-check}
case $PART in
check)
  grep -E '^(dec_[a-z0-9_]*(_ragged|kv1000_sp8_odd|kv4096_sp8)|ssd_[a-z0-9_]*_ragged[a-z0-9_]*|ssd_scan_small|ssd_state_small|ssd_[a-z_]*(L64|n16|n32)[a-z0-9_]*|dec_mqa_[a-z0-9_]*|dec_combine_mqa_[a-z0-9_]*|sc_[a-z0-9_]*|fa_s1|u_bf16_1x1x1) ' tests/codegen/variants.txt > "$R/variants.txt"
  JOBS=16 RUN_TIMEOUT=60 timeout 300 sh tests/gpu/run-gpu-tests.sh "$CLI" "$R/variants.txt" "$R/gpu" > "$R/gpu.log" 2>&1
  echo "gpu tests rc $? $(( $(date +%s) - T0 )) s"; tail -20 "$R/gpu.log"
  timeout 180 sh tests/gpu/decode-chain-test.sh "$CLI" > "$R/chain.log" 2>&1
  echo "chain rc $? $(( $(date +%s) - T0 )) s"; tail -12 "$R/chain.log" ;;
diff)
  for w in flash_decoding "mamba2_chunk_scan mamba2_chunk_state"; do
    WORKLOADS=$w SAN_EVERY=32 JOBS=16 RUN_JOBS=4 timeout 270 sh tests/gpu/differential.sh .dev/build 32 9000 "$R/diff" >> "$R/diff.log" 2>&1
    echo "differential ($w) rc $? $(( $(date +%s) - T0 )) s"; tail -4 "$R/diff.log"
  done ;;
time)
  BATCHES="1 8" KVS="4099 16001 16383 16384 65537 131071" JOBS=16 timeout 400 bench/fa/decode_run "$CLI" "$R/decode" > "$R/decode.log" 2>&1
  echo "decode rc $? $(( $(date +%s) - T0 )) s"; tail -16 "$R/decode.log"
  # MQA at batch 1 (one K/V head of 32 queries): the split search now reaches 128 pieces
  BATCHES="1" KVS="16384 65536 131072" HKV=1 G=32 JOBS=16 timeout 200 bench/fa/decode_run "$CLI" "$R/decode_mqa" > "$R/decode_mqa.log" 2>&1
  echo "decode mqa rc $? $(( $(date +%s) - T0 )) s"; tail -6 "$R/decode_mqa.log"
  A=$(pwd)/../shared/anchors/mamba2-triton; [ -d "$A" ] || A=$(pwd)/.dev/anchors
  B=$R/ssd; mkdir -p "$B"
  for g in mamba2_chunk_scan mamba2_chunk_state; do
    timeout 60 "$CLI" schedule $g --set B=8,S=8000 --target sm90a -o "$B/$g.json" > "$B/$g.sched.txt" 2>&1
    "$CLI" codegen $g --set B=8,S=8000 --program "$B/$g.json" --target sm90a -o "$B/${g}_8000" > /dev/null 2>&1 &&
      make -s -C "$B/${g}_8000" all lib > "$B/$g.build.log" 2>&1 || echo "bundle $g failed"
  done
  PLACEMENTS=2 timeout 150 python3 bench/mamba2/ssd_time.py "$A" "$B/mamba2_chunk_scan_8000" "$B/mamba2_chunk_state_8000" > "$R/ssd.jsonl" 2> "$R/ssd.err"
  echo "ssd rc $? $(( $(date +%s) - T0 )) s"; tail -3 "$R/ssd.err"; cut -c1-400 "$R/ssd.jsonl"
  find "$R/decode" "$R/decode_mqa" "$B" -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} + 2>/dev/null ;;
esac
rm -rf "$R/gpu"/*/ "$R/diff"/*/ 2>/dev/null
echo "done $(( $(date +%s) - T0 )) s"
