#!/bin/bash
# local: the decode pairs (scheduler's picks) with a PDL combine and its no-PDL twin
set -eu
C=build/cli/pipethreader-cli
D=.dev/r165/dec
for B in 1 8 64; do for S in 1024 4096 16384 65536; do
  [ $S = 65536 ] && [ $B != 64 ] && continue
  n=b${B}_kv$S
  $C schedule examples/flash_decoding.json --set B=$B,HKV=8,G=4,S=$S,D=128 --target sm90a -o $D/$n.p.json --budget 30 > $D/$n.sched.log 2>&1
  sp=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["params"]["SPLITS"])' $D/$n.p.json)
  $C codegen examples/flash_decoding.json --set B=$B,HKV=8,G=4,S=$S,D=128 --program $D/$n.p.json --target sm90a -o $D/$n.partial > /dev/null
  $C schedule examples/flash_decoding_combine.json --set B=$B,HKV=8,G=4,SPLITS=$sp,D=128 --target sm90a -o $D/$n.c.json --budget 30 > $D/$n.csched.log 2>&1
  $C codegen examples/flash_decoding_combine.json --set B=$B,HKV=8,G=4,SPLITS=$sp,D=128 --program $D/$n.c.json --target sm90a -o $D/$n.combine > /dev/null
  rm -rf $D/$n.twin; cp -r $D/$n.combine $D/$n.twin
  sed -i 's/programmaticStreamSerializationAllowed = 1/programmaticStreamSerializationAllowed = 0/' $D/$n.twin/launch.c
  grep -q "Allowed = 0" $D/$n.twin/launch.c
  echo "$n splits $sp"
done; done
