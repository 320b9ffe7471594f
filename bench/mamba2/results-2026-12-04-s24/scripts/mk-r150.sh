#!/bin/sh
# bundles for round 150: the heads split walked along columns (round 147's h2col) and its
# neighbours: the warpgroups taking turns on the tensor cores (ping-pong), runs of 3 and 4, 3 stages
C=${1:-build/cli/pipethreader-cli}
O=.dev/r150/b
for sh in 8x2048 8x8192; do B=${sh%x*}; S=${sh#*x}; set=B=$B,S=$S
  ST='"stages":{"CB":4,"x":4,"dt":4,"dA_s":4}'
  mk() { tests/codegen/make-variant.sh $C $O ${1}_$sh mamba2_chunk_scan $set l=64,h=2,wg=2,wg_axis=h "$2" > /dev/null || echo "FAILED $1 $sh"; }
  mk h2col "{$ST,\"partition\":{\"persistent\":True,\"raster\":\"column\",\"run\":2,\"staging\":\"apart\"},\"store_role\":\"wg1\"}"
  mk h2pp "{$ST,\"partition\":{\"persistent\":True,\"raster\":\"column\",\"run\":2,\"staging\":\"apart\"},\"store_role\":\"wg1\",\"add_waits\":[[\"mma.y_intra.wg1\",\"mma.y_intra.wg0\",0],[\"mma.y_intra.wg0\",\"mma.y_intra.wg1\",1]]}"
  mk h2run4 "{$ST,\"partition\":{\"persistent\":True,\"raster\":\"column\",\"run\":4,\"staging\":\"apart\"},\"store_role\":\"wg1\"}"
  mk h2run3 "{$ST,\"partition\":{\"persistent\":True,\"raster\":\"column\",\"run\":3,\"staging\":\"apart\"},\"store_role\":\"wg1\"}"
  mk h2st3 "{\"stages\":{\"CB\":3,\"x\":3,\"dt\":3,\"dA_s\":3},\"partition\":{\"persistent\":True,\"raster\":\"column\",\"run\":2,\"staging\":\"apart\"},\"store_role\":\"wg1\"}"
done
for d in $O/*_*/; do echo "$(basename $d) $($C simulate mamba2_chunk_scan --set $(grep -o 'B=[0-9]*,S=[0-9]*' $d/README.md | head -1) --program $d/program.json 2>/dev/null | head -1 | grep -o 'time [0-9.]* [um]s')"; done
