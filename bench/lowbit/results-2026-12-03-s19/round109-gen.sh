#!/usr/bin/env bash
# round 109 grid: fragments int4 bf16 at M = 1 (5 shapes) and M = 16 (70B.o): warpgroups 1-4,
# k 128/256, stages 4/6, split-K to fill ~132 CTAs; the scheduler's pick; split-K fix-up rewrites.
set -eu
CLI=/work/main/build/cli/pipethreader-cli
G=tests/codegen/graphs/gemm_w4a16_bf16_frag.json
R=/work/main/.dev/r109
cd /work/main
: > $R/predicted.txt
for s in 8B.o:4096:4096:1 8B.down:4096:14336:1 70B.o:8192:8192:1 8B.gate_up:28672:4096:1 70B.down:8192:28672:1 70B.o:8192:8192:16; do
  IFS=: read nm N K M <<<"$s"
  bm=8; [ $M -gt 8 ] && bm=16
  set_="M=$M,N=$N,K=$K,G=128"
  for cfg in 1:256:4 1:256:6 2:128:4 2:256:4 2:256:6 3:256:4 3:256:6 4:256:4; do
    IFS=: read wg bk st <<<"$cfg"
    tiles=$(( N / (64 * wg) ))
    sk=$(( (132 + tiles / 2) / tiles )); [ $sk -lt 1 ] && sk=1
    maxsk=$(( K / bk / 2 )); [ $sk -gt $maxsk ] && sk=$maxsk
    name=$nm-m$M-wg$wg-k$bk-s$st-sk$sk
    ed="{\"stages\":{\"A\":$st,\"Wq\":$st,\"Ws\":$st},\"partition\":{\"split_k\":$sk}}"
    sh tests/codegen/make-variant.sh $CLI $R $name $G $set_ "m=$bm,n=$((64*wg)),k=$bk,wg=$wg,wg_axis=n" "$ed" > $R/$name.gen.log 2>&1 || { echo "$name: $(tail -1 $R/$name.gen.log)"; rm -rf $R/$name; continue; }
    echo "$name $($CLI simulate $G --set $set_ --program $R/$name/program.json 2>&1 | sed -n 's/predicted kernel time \([0-9.]*\) us.*/\1/p')" >> $R/predicted.txt
  done
  name=$nm-m$M-pick
  mkdir -p $R/$name
  $CLI schedule $G --set $set_ --target sm90a -q -o $R/$name/program.json > $R/$name.gen.log 2>&1
  $CLI codegen $G --set $set_ --program $R/$name/program.json --target sm90a -o $R/$name >> $R/$name.gen.log 2>&1
  echo "$name $($CLI simulate $G --set $set_ --program $R/$name/program.json 2>&1 | sed -n 's/predicted kernel time \([0-9.]*\) us.*/\1/p') $(python3 -c "import json;p=json.load(open('$R/$name/program.json'));print(p['tile'],p['warpgroups'],p['stages'],p['partition'])" | tr -d ' ')" >> $R/predicted.txt
  if [ $M = 1 ] && [ $nm = 8B.o -o $nm = 8B.down -o $nm = 70B.o ]; then
    for mode in pf fx pf,fx empty floor; do
      d=$R/$nm-m$M-pick-$(echo $mode | tr , _)
      rm -rf $d; cp -r $R/$name $d
      python3 $R/patch.py $R/$name/kernel.cu $mode $d/kernel.cu
    done
  fi
done
