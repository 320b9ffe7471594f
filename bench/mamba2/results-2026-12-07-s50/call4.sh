#!/usr/bin/env bash
# call4.sh — on the GPU machine from the repository root (.dev/anchors carried), everything
# generated before the call (prep in README.md): (1) the six factored16 variants (b/ssd_scan_fact16_*)
# checked on every element, also with their input ranges (tests/gpu/input-ranges.txt); (2) the
# scheduler's factored16 picks (b/pick16-*) and, at B 8, the same programs with decay factored
# (b/pick-*) against mamba_ssm in one process (ssd-vs-mamba.sh); (3) harness passes at B 8.
set -u
here=bench/mamba2/results-2026-12-07-s50
export PATH=$PATH:/usr/local/cuda/bin
R=$OUT/call4; mkdir -p $R; T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $R/gpu.txt
ls -d $here/b/*/ | xargs -P 16 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "{}: build failed"'
echo "built $(( $(date +%s) - T0 )) s"
for v in $here/b/ssd_scan_fact16_*/; do
  n=$(basename $v)
  echo "$n $(cd $v && timeout 60 ./harness --check-only --json-only 2>&1 | tail -1 | cut -c1-170)"
  grep -E "^$n " tests/gpu/input-ranges.txt | while read -r _ opts; do
    echo "$n+$opts $(cd $v && timeout 60 ./harness --check-only --json-only $opts 2>&1 | tail -1 | cut -c1-170)"
  done
done | tee $R/variants.txt | cut -c1-150
echo "variants $(( $(date +%s) - T0 )) s"
mkdir -p $R/ssd
bash bench/common/ssd-vs-mamba.sh $R/ssd ${SSD_TIMEOUT:-240} $here/b/pick-b8-s2048 $here/b/pick16-b8-s2048 $here/b/pick-b8-s4096 $here/b/pick16-b8-s4096 \
    ${SSD_MORE-$here/b/pick16-b8-s8192 $here/b/pick16-b64-s2048}
echo "ssd $(( $(date +%s) - T0 )) s"
[ $(( $(date +%s) - T0 )) -lt ${PASSES_BEFORE:-300} ] && bash bench/common/harness-passes.sh 2 $here/b/pick-b8-s2048 $here/b/pick16-b8-s2048 $here/b/pick-b8-s4096 $here/b/pick16-b8-s4096 | tee $R/passes.txt
echo "done $(( $(date +%s) - T0 )) s"
