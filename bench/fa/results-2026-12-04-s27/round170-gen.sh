#!/bin/bash
# round 170's bundles, made here: B 64 unsplit picks and the SPLITS=1 pairs they replace; the
# f16 70B.gate_up M 64 picks under hbm_write_gbps 3555 and 2962
set -eu
CLI=$1 R=$2
args=()
for S in 1024 4096 16384 65536 131072; do
  set_p="B=64,HKV=8,G=4,S=$S,D=128"
  $CLI schedule flash_decoding --set $set_p --target sm90a --budget 30 -o $R/g/u$S.json > $R/g/u$S.log 2>&1
  grep -q flash_decoding_unsplit $R/g/u$S.json || { echo "S=$S: pick is not unsplit"; }
  $CLI codegen flash_decoding_unsplit --set $set_p --program $R/g/u$S.json --target sm90a -o $R/g/un_kv$S > /dev/null
  $CLI schedule flash_decoding --set $set_p,SPLITS=1 --target sm90a --budget 30 -o $R/g/p$S.json > $R/g/p$S.log 2>&1
  $CLI codegen flash_decoding --set $set_p --program $R/g/p$S.json --target sm90a -o $R/g/pa_kv$S > /dev/null
  $CLI schedule flash_decoding_combine --set B=64,HKV=8,G=4,SPLITS=1,D=128 --target sm90a --budget 30 -o $R/g/c.json > /dev/null 2>&1
  $CLI codegen flash_decoding_combine --set B=64,HKV=8,G=4,SPLITS=1,D=128 --program $R/g/c.json --target sm90a -o $R/g/co_kv$S > /dev/null
  args+=($R/g/un_kv$S - $R/g/pa_kv$S $R/g/co_kv$S)
done
echo "${args[@]}" > $R/g/decode_args.txt
$CLI codegen gemm_f16 --set M=64,N=57344,K=8192 --program $R/a1.json --target sm90a -o $R/g/gu_a1 > /dev/null
$CLI codegen gemm_f16 --set M=64,N=57344,K=8192 --program $R/a2.json --target sm90a -o $R/g/gu_a2 > /dev/null
echo "gu_a1 f16 70B.gate_up 64 57344 8192 225.4 1 f16_70B.gate_up_M64" > $R/g/timed.txt
echo "gu_a2 f16 70B.gate_up 64 57344 8192 226.1 2 f16_70B.gate_up_M64" >> $R/g/timed.txt
