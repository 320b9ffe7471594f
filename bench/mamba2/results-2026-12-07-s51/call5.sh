#!/usr/bin/env bash
# call5.sh — on the GPU machine from the repository root (b/ and .dev/anchors carried): the
# ChunkState picks of commit 6646c24's scheduler for this GPU's model (b/fstate-HW-*: on the
# H100 "release": "fence" at every shape) against mamba_ssm in one process (ssd-vs-mamba.sh,
# 2 placements at B 8, 1 at B 64), and the three "release": "fence" variants of
# tests/codegen/variants.txt (b/v/*) checked on every element.
set -u
here=bench/mamba2/results-2026-12-07-s51
export PATH=$PATH:/usr/local/cuda/bin
R=$OUT/call5; mkdir -p $R; T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $R/gpu.txt
hw=H100; grep -q H200 $R/gpu.txt && hw=H200; echo "model $hw"
ls -d $here/b/fstate-$hw-*/ $here/b/v/*/ | xargs -P 16 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "{}: build failed"'
echo "built $(( $(date +%s) - T0 )) s"
for d in $here/b/v/*/; do echo "$(basename $d) $(cd $d && timeout 60 ./harness --check-only --json-only 2>&1 | tail -1 | cut -c1-150)"; done | tee $R/variants.txt
mkdir -p $R/b8 $R/b64
PLACEMENTS=2 bash bench/common/ssd-vs-mamba.sh $R/b8 200 $here/b/fstate-$hw-b8-s2048 $here/b/fstate-$hw-b8-s4096 $here/b/fstate-$hw-b8-s8192
PLACEMENTS=1 bash bench/common/ssd-vs-mamba.sh $R/b64 200 $here/b/fstate-$hw-b64-s2048 $here/b/fstate-$hw-b64-s8192
echo "done $(( $(date +%s) - T0 )) s"
