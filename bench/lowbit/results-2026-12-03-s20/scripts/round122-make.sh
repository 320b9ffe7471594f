#!/usr/bin/env bash
# round 119 bundles: per configuration the scheduler's pick (split-K may go through a cluster),
# the same program with the workspace reduction ("ws") where the pick uses a cluster, and the
# pick of a model without clusters ("old"), where it differs
set -eu
C=build/cli/pipethreader-cli
R=.dev/r122
NOCL=/tmp/s20/H200-nocl.json
gen() {  # name graph set
  local n=$1 g=$2 s=$3 d=$R/$1
  rm -rf $d $d-ws $d-old; mkdir -p $d
  $C schedule $g --set $s --target sm90a -q -o $d/program.json > $d/schedule.txt
  grep -q '"split_k_reduce": "cluster"' $d/program.json || { rm -rf $d; echo "$n: no cluster pick"; return; }
  $C codegen $g --set $s --program $d/program.json --target sm90a -o $d > /dev/null
  mkdir -p $d-ws; sed 's/, "split_k_reduce": "cluster"//' $d/program.json > $d-ws/program.json
  $C codegen $g --set $s --program $d-ws/program.json --target sm90a -o $d-ws > /dev/null
  mkdir -p $d-old
  $C schedule $g --set $s --hw $NOCL --target sm90a -q -o $d-old/program.json > $d-old/schedule.txt
  if cmp -s $d-old/program.json $d-ws/program.json; then rm -rf $d-old; else
    $C codegen $g --set $s --program $d-old/program.json --target sm90a -o $d-old > /dev/null; fi
  echo "$n $(grep -m1 'best predicted' $d/schedule.txt | cut -c1-40) old: $(grep -m1 'best predicted' $d-old/schedule.txt 2>/dev/null | cut -c1-40)"
}
W=tests/codegen/graphs/gemm_w4a16_bf16_frag.json
F=tests/codegen/graphs/gemm_wfp4a16_bf16_frag.json
B=examples/gemm_bf16.json
for s in 8B.o:4096:4096 8B.gate_up:28672:4096 8B.down:4096:14336 70B.o:8192:8192 70B.down:8192:28672; do
  IFS=: read -r nm N K <<<"$s"
  gen i4-$nm-m64 $W M=64,N=$N,K=$K,G=128

done
for s in 8B.qkv:6144:4096 8B.o:4096:4096 8B.gate_up:28672:4096 8B.down:4096:14336 70B.qkv:10240:8192 70B.o:8192:8192 70B.gate_up:57344:8192 70B.down:8192:28672; do
  IFS=: read -r nm N K <<<"$s"
  gen bf-$nm-m64 $B M=64,N=$N,K=$K
done
