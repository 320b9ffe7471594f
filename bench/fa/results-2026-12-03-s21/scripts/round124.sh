#!/bin/bash
# round 124: bandwidth probe (bench/tma/ring_probe.cu, then called bwprobe.cu); over-rings differential
# seeds + cl2 smem-deq variant; decode variants vs cuDNN (the pairs made with mkdec.sh from the
# session-start generator: every map at L2 promotion 256 B)
cd "$(dirname "$0")"; R=$PWD; OUT=${OUT:-/tmp/out}; mkdir -p $OUT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv | tee $OUT/gpu.txt
export PATH=$PATH:/usr/local/cuda/bin
( nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o bwprobe bwprobe.cu -lcuda ) 2>&1 | tail -3
ls -d diff/s* var/* dec/*.partial dec/*.combine | xargs -P 14 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "{}: build failed"' &
BPID=$!
timeout 120 ./bwprobe | tee $OUT/bwprobe.txt
wait $BPID
for d in diff/s* var/*; do
  (cd $d && timeout 120 ./harness --json-only --check-only > check.json 2> check.log; echo "$d rc=$? $(grep -o '"correct": [a-z]*' check.json | sort | uniq -c | tr '\n' ' ') $(grep -o '"mismatches": [0-9]*' check.json | head -1)")
done | tee $OUT/checks.txt
cd $R/../..
pairs=""
for n in b64_pick b64_sp2 b64_sp4 b64_n64s5 b8_pick b8_sp4 b8_n64s5 b1_pick; do pairs="$pairs $R/dec/$n.partial $R/dec/$n.combine"; done
PLACEMENTS=2 timeout 300 python3 bench/fa/decode_time.py $pairs > $OUT/decode.jsonl 2> $OUT/decode.err
# (then the same summary as round129.sh prints)
