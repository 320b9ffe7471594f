#!/bin/sh
# bundles for round 147: the l=128 pick against ChunkScan with the warpgroups on the heads
C=${1:-build/cli/pipethreader-cli}
O=.dev/r147/b
ST='"stages":{"CB":4,"x":4,"dt":4,"dA_s":4}'
for sh in 8x2048 8x8192 64x8192; do B=${sh%x*}; S=${sh#*x}; set=B=$B,S=$S
  $C schedule mamba2_chunk_scan --target sm90a --set $set -o $O/newpick-$sh.json --top 6 > $O/sched-$sh.txt 2>&1
  $C codegen mamba2_chunk_scan --program $O/newpick-$sh.json --set $set --target sm90a -o $O/newpick_$sh > /dev/null
  $C codegen mamba2_chunk_scan --program bench/mamba2/results-2026-12-04-s24/r145/pick-$sh.json --set $set --target sm90a -o $O/pick_$sh > /dev/null
  tests/codegen/make-variant.sh $C $O h2col_$sh mamba2_chunk_scan $set l=64,h=2,wg=2,wg_axis=h "{$ST,\"partition\":{\"persistent\":True,\"raster\":\"column\",\"run\":2,\"staging\":\"apart\"},\"store_role\":\"wg1\"}" > /dev/null
  tests/codegen/make-variant.sh $C $O h2grp_$sh mamba2_chunk_scan $set l=64,h=2,wg=2,wg_axis=h "{$ST,\"partition\":{\"persistent\":True,\"raster\":\"grouped\",\"group\":8,\"staging\":\"apart\"},\"store_role\":\"wg1\"}" > /dev/null
  tests/codegen/make-variant.sh $C $O h2row_$sh mamba2_chunk_scan $set l=64,h=2,wg=2,wg_axis=h "{$ST,\"partition\":{\"persistent\":True,\"raster\":\"row\",\"run\":2,\"staging\":\"apart\"},\"store_role\":\"wg1\"}" > /dev/null
  tests/codegen/make-variant.sh $C $O h2over_$sh mamba2_chunk_scan $set l=64,h=2,wg=2,wg_axis=h "{$ST,\"partition\":{\"persistent\":True,\"raster\":\"column\",\"run\":2,\"staging\":\"over_resident\"},\"store_role\":\"wg1\"}" > /dev/null
done
ls $O
