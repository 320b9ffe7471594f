#!/bin/sh
# bundles for round 151: the heads split along columns in runs of 2 with deeper rings (5, 6 stages)
C=${1:-build/cli/pipethreader-cli}
O=.dev/r151/b
for sh in 8x2048 8x8192; do B=${sh%x*}; S=${sh#*x}; set=B=$B,S=$S
  for st in 4 5 6; do
    tests/codegen/make-variant.sh $C $O h2st${st}_$sh mamba2_chunk_scan $set l=64,h=2,wg=2,wg_axis=h "{\"stages\":{\"CB\":$st,\"x\":$st,\"dt\":$st,\"dA_s\":$st},\"partition\":{\"persistent\":True,\"raster\":\"column\",\"run\":2,\"staging\":\"apart\"},\"store_role\":\"wg1\"}" > /dev/null || echo "FAILED $st $sh"
  done
done
for d in $O/*_*/; do n=$(basename $d); sh=${n#*_}; echo "$n $($C simulate mamba2_chunk_scan --set B=${sh%x*},S=${sh#*x} --program $d/program.json | head -1 | grep -o 'time [0-9.]* [um]s') smem $(grep -o 'smem [0-9]*' $d/README.md | head -1)"; done
