#!/usr/bin/env bash
# The smallest useful A/B for a short device call: at 8 x 2048 the committed two-head ChunkScan
# pick against the ragged three-head grouped form (session 45's programs), each checked on every
# element by its harness once, then timed by the harness (--no-check, 2 placements) in PASSES
# interleaved passes. No mamba_ssm: the ratio against it follows from session 45's.
set -u
. bench/common/round-start.sh mini
D=bench/mamba2/results-2026-12-07-s45/programs
SET=B=8,S=2048,H=64,P=64,N=128,L=256
HWM=$(sh bench/common/hw-model.sh)
W=/tmp/mini; mkdir -p $W
cp $D/h2-$HWM-b8-s2048.json $W/pick.json; cp $D/h3g3-b8-s2048.json $W/h3g3.json
for f in pick h3g3; do
    "$CLI" codegen examples/mamba2_chunk_scan.json --set $SET --program $W/$f.json --target sm90a -o $W/$f >/dev/null || exit 1
done
ls -d $W/*/ | xargs -P 2 -I{} sh -c 'make -s -C {} all > {}/build.log 2>&1 || echo "{}: build failed"'
echo "built $(( $(date +%s) - T0 )) s"
for f in pick h3g3; do echo "$f check: $(cd $W/$f && timeout 60 ./harness --check-only 2>&1 | tail -2 | tr "\n" " ")"; done
bash bench/common/harness-passes.sh ${PASSES:-3} $W/pick $W/h3g3 | tee $R/passes.txt
echo "done $(( $(date +%s) - T0 )) s"
