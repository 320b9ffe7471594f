#!/bin/bash
# round 171's GQA bundles, made here: the scheduler's pick for the 5 shapes of session 3's table
set -eu
CLI=$1 R=$2
for spec in "B=1,S=2048,CAUSAL=1 b1_s2048_c1" "B=1,S=2048,CAUSAL=0 b1_s2048_c0" "B=1,S=8192,CAUSAL=1 b1_s8192_c1" "B=1,S=8192,CAUSAL=0 b1_s8192_c0" "B=4,S=4096,CAUSAL=1 b4_s4096_c1"; do
  set -- $spec
  $CLI schedule flash_attention_gqa --set $1 --target sm90a --budget 60 -o $R/g/$2.json > $R/g/$2.log 2>&1
  $CLI codegen flash_attention_gqa --set $1 --program $R/g/$2.json --target sm90a -o $R/g/gqa_$2 > /dev/null
  grep -E "^  1 " $R/g/$2.log
done
