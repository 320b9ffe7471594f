#!/bin/sh
# bundles for round 153: the scheduler's ChunkScan and ChunkState picks (after exp_decay's latency
# refit), ChunkScan's previous pick (round 149's l128c), ChunkState with two heads walked along
# columns and with three heads (row / column), all runs of 2, the store by a consumer's TMA lane
C=${1:-build/cli/pipethreader-cli}
O=.dev/r153/b
S3='"stages":{"x":3,"Bm":3,"dt":3,"dA_cs":3}'; S4='"stages":{"x":4,"Bm":4,"dt":4,"dA_cs":4}'
for sh in 8x2048 8x8192 64x8192; do B=${sh%x*}; S=${sh#*x}; set=B=$B,S=$S
  $C schedule mamba2_chunk_scan --target sm90a --set $set -o $O/scanpick-$sh.json --top 1 > $O/sched-scan-$sh.txt 2>&1
  $C schedule mamba2_chunk_state --target sm90a --set $set -o $O/statepick-$sh.json --top 1 > $O/sched-state-$sh.txt 2>&1
  $C codegen mamba2_chunk_state --program $O/statepick-$sh.json --set $set --target sm90a -o $O/statepick_$sh > /dev/null
  [ $sh = 64x8192 ] || {
    $C codegen mamba2_chunk_scan --program $O/scanpick-$sh.json --set $set --target sm90a -o $O/scanpick_$sh > /dev/null
    $C codegen mamba2_chunk_scan --program bench/mamba2/results-2026-12-04-s24/r149/l128c-$sh.json --set $set --target sm90a -o $O/l128c_$sh > /dev/null; }
  mk() { tests/codegen/make-variant.sh $C $O ${1}_$sh mamba2_chunk_state $set $2 "$3" > /dev/null || echo "FAILED $1 $sh"; }
  mk st2col h=2,wg=2,wg_axis=h "{$S4,\"partition\":{\"persistent\":True,\"raster\":\"column\",\"run\":2},\"store_role\":\"wg1\"}"
  mk st3row h=3,wg=3,wg_axis=h "{$S3,\"partition\":{\"persistent\":True,\"raster\":\"row\",\"run\":2},\"store_role\":\"wg2\"}"
  mk st3col h=3,wg=3,wg_axis=h "{$S3,\"partition\":{\"persistent\":True,\"raster\":\"column\",\"run\":2},\"store_role\":\"wg2\"}"
done
