#!/bin/bash
# round 176's bundles, made here: the unsplit / split boundary. For B 16, 24, 32 (HKV 8, G 4,
# d 128) the scheduler's pick and the other side: the unsplit kernel, and pairs with SPLITS fixed
set -eu
CLI=$1 R=$2
args=()
un() { # B S name
  local set_p="B=$1,HKV=8,G=4,S=$2,D=128"
  $CLI schedule flash_decoding_unsplit --set $set_p --target sm90a -o $R/g/$3.json > $R/g/$3.log 2>&1
  $CLI codegen flash_decoding_unsplit --set $set_p --program $R/g/$3.json --target sm90a -o $R/g/$3 > /dev/null
  args+=($R/g/$3 -)
}
pair() { # B S SPLITS name
  local set_p="B=$1,HKV=8,G=4,S=$2,D=128"
  $CLI schedule flash_decoding --set $set_p,SPLITS=$3 --target sm90a -o $R/g/$4.p.json > $R/g/$4.log 2>&1
  $CLI codegen flash_decoding --set $set_p --program $R/g/$4.p.json --target sm90a -o $R/g/$4.partial > /dev/null
  $CLI schedule flash_decoding_combine --set B=$1,HKV=8,G=4,SPLITS=$3,D=128 --target sm90a -o $R/g/$4.c.json >> $R/g/$4.log 2>&1
  $CLI codegen flash_decoding_combine --set B=$1,HKV=8,G=4,SPLITS=$3,D=128 --program $R/g/$4.c.json --target sm90a -o $R/g/$4.combine > /dev/null
  args+=($R/g/$4.partial $R/g/$4.combine)
}
for spec in "16 4096" "16 32768" "24 4096" "24 32768" "32 4096"; do
  set -- $spec; B=$1 S=$2
  $CLI schedule flash_decoding --set B=$B,HKV=8,G=4,S=$S,D=128 --target sm90a --top 1 2>&1 | grep -E "^best" | sed "s/^/B=$B S=$S pick: /" >> $R/g/picks.txt
  un $B $S b${B}_kv${S}_unsplit
  pair $B $S 1 b${B}_kv${S}_sp1
  pair $B $S 2 b${B}_kv${S}_sp2
done
echo "${args[@]}" > $R/g/args.txt
cat $R/g/picks.txt
