#!/bin/bash
# round 173's bundles, made here: the 7 d128 FA-grid configurations and the 5 GQA shapes whose picks
# change when the key tile 80 is searched (new CLI: rank 1) against the previous picks (old CLI at
# the last commit: rank 2)
set -eu
NEW=$1 OLD=$2 R=$3
: > $R/g/list.txt
for spec in "16 1024 0" "8 2048 0" "2 8192 0" "16 1024 1" "8 2048 1" "4 4096 1" "2 8192 1"; do
  set -- $spec; B=$1 S=$2 C=$3; cfg=d128-c$C-s$S; set_="B=$B,H=16,S=$S,D=128,CAUSAL=$C"
  r=1
  for cli in $NEW $OLD; do
    $cli schedule flash_attention --set $set_ --target sm90a -o $R/g/$cfg-r$r.json > $R/g/$cfg-r$r.log 2>&1
    $NEW codegen flash_attention --set $set_ --program $R/g/$cfg-r$r.json --target sm90a -o $R/g/$cfg-r$r > /dev/null
    pred=$(grep -E '^  1 ' $R/g/$cfg-r$r.log | awk '{print $2*1000}')
    echo "$cfg-r$r $cfg $B 16 $S 128 $C $r $pred" >> $R/g/list.txt
    r=2
  done
done
for spec in "B=1,S=2048,CAUSAL=1 b1_s2048_c1" "B=1,S=2048,CAUSAL=0 b1_s2048_c0" "B=1,S=8192,CAUSAL=1 b1_s8192_c1" "B=1,S=8192,CAUSAL=0 b1_s8192_c0" "B=4,S=4096,CAUSAL=1 b4_s4096_c1"; do
  set -- $spec
  for v in new old; do
    cli=$NEW; [ $v = old ] && cli=$OLD
    $cli schedule flash_attention_gqa --set $1 --target sm90a -o $R/g/gqa-$v-$2.json > $R/g/gqa-$v-$2.log 2>&1
    $NEW codegen flash_attention_gqa --set $1 --program $R/g/gqa-$v-$2.json --target sm90a -o $R/g/gqa_${v}_$2 > /dev/null
  done
done
cat $R/g/list.txt
