#!/usr/bin/env bash
# call3.sh — on the GPU machine from the repository root, after `source .deps/unpack.sh`
# (.dev/anchors carried): (1) the CLI built; the factored16 variants (fact16-variants.txt) with
# their input ranges through run-gpu-tests.sh; (2) the scheduler's factored16 picks (b/pick16-*)
# and, at B 8, the same programs with decay factored (b/pick-*) against mamba_ssm in one process
# (ssd-vs-mamba.sh), harness passes at B 8; (3) the GPU differential, Mamba2 draws (a third of
# them factored16 now).
set -u
here=bench/mamba2/results-2026-12-07-s50
. bench/common/round-start.sh call3
ls -d $here/b/*/ | xargs -P 16 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "{}: build failed"'
echo "built $(( $(date +%s) - T0 )) s"
RUN_TIMEOUT=60 sh tests/gpu/run-gpu-tests.sh "$CLI" $here/fact16-variants.txt /tmp/gt > $R/gpu-tests.txt 2>&1; echo "gpu tests rc $? $(( $(date +%s) - T0 )) s"; tail -14 $R/gpu-tests.txt
bash bench/common/harness-passes.sh 3 $here/b/pick-b8-s2048 $here/b/pick16-b8-s2048 $here/b/pick-b8-s4096 $here/b/pick16-b8-s4096 | tee $R/passes.txt
echo "passes $(( $(date +%s) - T0 )) s"
mkdir -p $R/ssd
bash bench/common/ssd-vs-mamba.sh $R/ssd 330 $here/b/pick-b8-s2048 $here/b/pick16-b8-s2048 $here/b/pick-b8-s4096 $here/b/pick16-b8-s4096 \
    $here/b/pick16-b8-s8192 $here/b/pick16-b64-s2048 $here/b/pick16-b64-s4096
echo "ssd $(( $(date +%s) - T0 )) s"
left=$(( 560 - ($(date +%s) - T0) ))
if [ $left -gt 60 ]; then
  WORKLOADS="mamba2_chunk_scan mamba2_chunk_state" DEADLINE_S=$(( left - 30 )) SAN_EVERY=0 RUN_TIMEOUT=30 \
    sh tests/gpu/differential.sh .dev/build 40 50001 /tmp/diff > $R/diff.txt 2>&1; echo "diff rc $?"; tail -3 $R/diff.txt
fi
echo "done $(( $(date +%s) - T0 )) s"
