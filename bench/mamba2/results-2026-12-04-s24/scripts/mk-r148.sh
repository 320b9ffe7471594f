#!/bin/sh
# bundles for round 148: causal runs handed out dynamically, against round 147's static walks
# (generated with the tree of that moment: pass_grid.c made persistent causal runs dynamic; that
# change was reverted after this round)
C=${1:-build/cli/pipethreader-cli}
O=.dev/r148/b
ST='"stages":{"CB":4,"x":4,"dt":4,"dA_s":4}'
for sh in 8x2048 8x8192 64x8192; do B=${sh%x*}; S=${sh#*x}; set=B=$B,S=$S
  $C schedule mamba2_chunk_scan --target sm90a --set $set -o $O/newpick-$sh.json --top 6 > $O/sched-$sh.txt 2>&1
  $C codegen mamba2_chunk_scan --program $O/newpick-$sh.json --set $set --target sm90a -o $O/newpick_$sh > /dev/null
  $C codegen mamba2_chunk_scan --program bench/mamba2/results-2026-12-04-s24/r145/pick-$sh.json --set $set --target sm90a -o $O/pickdyn_$sh > /dev/null
  tests/codegen/make-variant.sh $C $O h2coldyn_$sh mamba2_chunk_scan $set l=64,h=2,wg=2,wg_axis=h "{$ST,\"partition\":{\"persistent\":True,\"raster\":\"column\",\"run\":2,\"staging\":\"apart\"},\"store_role\":\"wg1\"}" > /dev/null
  tests/codegen/make-variant.sh $C $O h2rowdyn_$sh mamba2_chunk_scan $set l=64,h=2,wg=2,wg_axis=h "{$ST,\"partition\":{\"persistent\":True,\"raster\":\"row\",\"run\":2,\"staging\":\"apart\"},\"store_role\":\"wg1\"}" > /dev/null
  cp -r .dev/r147/b/pick_$sh .dev/r147/b/h2col_$sh .dev/r147/b/h2grp_$sh $O/
done
rm -rf $O/*/*.o $O/*/harness $O/*/*.cubin $O/*/*.so 2>/dev/null
ls $O
