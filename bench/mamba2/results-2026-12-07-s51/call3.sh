#!/usr/bin/env bash
# call3.sh — on the GPU machine from the repository root (b/ and .dev/anchors carried), the picks
# for this GPU's model and hand edits of them at B 8 (prep.sh, grid.sh):
# (1) grid A/B: the ChunkState picks at S 2048, 4096, 8192 and the ChunkScan pick at S 2048 against
#     the same bundles launched on 128 CTAs instead of 132 (their 2048, 4096, 8192 tiles, or
#     runs, then divide evenly): harness, 3 passes interleaved; then the S 2048 pairs against
#     mamba_ssm in one process (ssd-vs-mamba.sh, 2 placements, every element checked);
# (2) the 16 candidates `schedule --measure 16 --candidates` names for ChunkState and for ChunkScan
#     at B 8, S 2048 by the H100 model (b/cstate-RANK, b/cscan-RANK, RANK the model's rank): each checked on every
#     element (--check-only), then timed by its harness in 2 passes (2 placements each).
set -u
here=bench/mamba2/results-2026-12-07-s51
export PATH=$PATH:/usr/local/cuda/bin
R=$OUT/call3; mkdir -p $R; T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $R/gpu.txt
hw=H100; grep -q H200 $R/gpu.txt && hw=H200; echo "model $hw"
G="$here/b/state-$hw-b8-s2048 $here/b/gstate-$hw-b8-s2048-g128 $here/b/state-$hw-b8-s4096 $here/b/gstate-$hw-b8-s4096-g128 $here/b/state-$hw-b8-s8192 $here/b/gstate-$hw-b8-s8192-g128 $here/b/scan-$hw-b8-s2048 $here/b/gscan-$hw-b8-s2048-g128"
ls -d $G $here/b/cstate-* $here/b/cscan-* | xargs -P 16 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "{}: build failed"'
echo "built $(( $(date +%s) - T0 )) s"
for d in $G; do
  echo "$(basename $d) $(cd $d && timeout 60 ./harness --check-only --json-only 2>&1 | tail -1 | grep -o '"correct": [a-z]*')"
done | tee $R/grid-check.txt
bash bench/common/harness-passes.sh 3 $G | tee $R/grid-passes.txt
echo "grid passes $(( $(date +%s) - T0 )) s"
mkdir -p $R/ssd
PLACEMENTS=2 bash bench/common/ssd-vs-mamba.sh $R/ssd 200 $here/b/gstate-$hw-b8-s2048-g128 $here/b/state-$hw-b8-s2048 $here/b/gscan-$hw-b8-s2048-g128 $here/b/scan-$hw-b8-s2048
echo "grid ssd $(( $(date +%s) - T0 )) s"
for d in $here/b/cstate-*/ $here/b/cscan-*/; do
  echo "$(basename $d) $(cd $d && timeout 60 ./harness --check-only --json-only 2>&1 | tail -1 | grep -o '"correct": [a-z]*')"
done > $R/check.txt
echo "checked $(( $(date +%s) - T0 )) s: $(grep -c true $R/check.txt) of $(grep -c . $R/check.txt) correct"
bash bench/common/harness-passes.sh 2 $(ls -d $here/b/cstate-* $here/b/cscan-*) > $R/passes.txt
echo "done $(( $(date +%s) - T0 )) s"
