#!/bin/sh
# bundles for round 152: Mamba2 with ngroups = 8 (8 heads per group), B 8, S 2048: the scheduler's
# picks of ChunkScan and ChunkState, and the ChunkScan heads split along columns in runs of 2
C=${1:-build/cli/pipethreader-cli}
O=.dev/r152/b
set=B=8,S=2048,G=8,HG=8
for g in mamba2_chunk_scan_grouped mamba2_chunk_state_grouped; do
  $C schedule examples/$g.json --target sm90a --set $set -o $O/pick-$g.json --top 4 > $O/sched-$g.txt 2>&1
  $C codegen examples/$g.json --program $O/pick-$g.json --set $set --target sm90a -o $O/pick_$g > /dev/null || echo "FAILED $g"
done
tests/codegen/make-variant.sh $C $O h2col_scan_grouped examples/mamba2_chunk_scan_grouped.json $set l=64,hg=2,wg=2,wg_axis=hg '{"stages":{"CB":4,"x":4,"dt":4,"dA_s":4},"partition":{"persistent":True,"raster":"column","run":2,"staging":"apart"},"store_role":"wg1"}' > /dev/null || echo "FAILED h2col"
grep -h "^  1 " $O/sched-*.txt
