#!/usr/bin/env bash
# call2.sh — on the GPU machine, from the repository root (.dev/anchors carried): the bundles of
# prep.sh built, each checked on every element, timed by their harness (3 passes interleaved),
# then pick and fold against mamba_ssm in one process per shape (ssd-vs-mamba.sh).
set -u
here=bench/mamba2/results-2026-12-07-s50
export PATH=$PATH:/usr/local/cuda/bin
R=$OUT/call2; mkdir -p "$R"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$R/gpu.txt"
T0=$(date +%s)
ls -d $here/b/*/ | xargs -P 16 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "{}: build failed"'
echo "built $(( $(date +%s) - T0 )) s"
for d in $here/b/*/; do echo "$(basename $d) $(cd $d && timeout 60 ./harness --check-only --json-only 2>&1 | tail -1 | cut -c1-200)"; done | tee $R/check.txt
bash bench/common/harness-passes.sh 3 $here/b/pick-2048 $here/b/fold-2048 $here/b/single-2048 $here/b/foldsingle-2048 \
     $here/b/pick-4096 $here/b/fold-4096 $here/b/single-4096 $here/b/foldsingle-4096 | tee $R/passes.txt
echo "passes $(( $(date +%s) - T0 )) s"
for S in 2048 4096; do
  mkdir -p $R/ssd-$S
  bash bench/common/ssd-vs-mamba.sh $R/ssd-$S 200 $here/b/pick-$S $here/b/fold-$S $here/b/foldsingle-$S
  echo "ssd $S $(( $(date +%s) - T0 )) s"
done
