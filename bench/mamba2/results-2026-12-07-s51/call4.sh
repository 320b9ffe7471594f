#!/usr/bin/env bash
# call4.sh — on the GPU machine from the repository root (b/ and .dev/anchors carried): how the
# CUDA-core readers' stages go back, A/B at B 8, S 2048 and 4096 (H100 picks):
#   pick    — the generator's choice: with the wgmma group that consumed them (stage_hold.h)
#   fence   — PT_EXPERIMENT_NO_DEFER=1: behind a proxy fence right after each ring's reads
#   fence1  — ChunkState only, fence1.py: one fence after the step's last read, three arrivals
# each checked on every element 3 times (--check-only), then harness 3 passes interleaved, then
# the S 2048 forms against mamba_ssm in one process (ssd-vs-mamba.sh, 2 placements).
set -u
here=bench/mamba2/results-2026-12-07-s51
export PATH=$PATH:/usr/local/cuda/bin
R=$OUT/call4; mkdir -p $R; T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $R/gpu.txt
V=""
for S in 2048 4096; do V="$V $here/b/state-H100-b8-s$S $here/b/fence-state-s$S $here/b/fence1-state-s$S $here/b/scan-H100-b8-s$S $here/b/fence-scan-s$S"; done
echo $V | tr ' ' '\n' | xargs -P 16 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "{}: build failed"'
echo "built $(( $(date +%s) - T0 )) s"
for d in $V; do for k in 1 2 3; do
  echo "$(basename $d) $k $(cd $d && timeout 60 ./harness --check-only --json-only 2>&1 | tail -1 | cut -c1-120)"
done; done | tee $R/check.txt | grep -v '"correct": true'
echo "checked $(( $(date +%s) - T0 )) s: $(grep -c '"correct": true' $R/check.txt) of $(grep -c . $R/check.txt)"
bash bench/common/harness-passes.sh 3 $V | tee $R/passes.txt
echo "passes $(( $(date +%s) - T0 )) s"
mkdir -p $R/ssd
PLACEMENTS=2 bash bench/common/ssd-vs-mamba.sh $R/ssd 200 $here/b/state-H100-b8-s2048 $here/b/fence-state-s2048 $here/b/fence1-state-s2048 $here/b/scan-H100-b8-s2048 $here/b/fence-scan-s2048
echo "done $(( $(date +%s) - T0 )) s"
