#!/usr/bin/env bash
# call1.sh — on the GPU machine from the repository root (b/ and .dev/anchors carried): the
# scheduler's picks for this GPU's model (b/state-HW-*, b/scan-HW-*, made by prep.sh) against
# mamba_ssm in one process (ssd-vs-mamba.sh: CUDA graphs, rotated inputs, interleaved, every
# element checked; ChunkState's row says its fraction of the HBM floor, the floor being its bytes
# over the copy bandwidth measured in the same process). 2 placements at B 8, 1 at B 64.
set -u
here=bench/mamba2/results-2026-12-07-s51
export PATH=$PATH:/usr/local/cuda/bin
R=$OUT/call1; mkdir -p $R; T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $R/gpu.txt
hw=H100; grep -q H200 $R/gpu.txt && hw=H200; echo "model $hw"
ls -d $here/b/state-$hw-*/ $here/b/scan-$hw-*/ | xargs -P 16 -I{} sh -c 'make -s -C {} lib kernel.cubin > {}/build.log 2>&1 || echo "{}: build failed"'
echo "built $(( $(date +%s) - T0 )) s"
mkdir -p $R/b8 $R/b64
PLACEMENTS=2 bash bench/common/ssd-vs-mamba.sh $R/b8 240 $here/b/state-$hw-b8-s2048 $here/b/state-$hw-b8-s4096 $here/b/state-$hw-b8-s8192 $here/b/scan-$hw-b8-s2048
echo "b8 $(( $(date +%s) - T0 )) s"
PLACEMENTS=1 bash bench/common/ssd-vs-mamba.sh $R/b64 240 $here/b/state-$hw-b64-s2048 $here/b/state-$hw-b64-s8192 $here/b/scan-$hw-b64-s8192
echo "done $(( $(date +%s) - T0 )) s"
