#!/usr/bin/env bash
# The device round that asks whether ChunkScan at B 8 runs faster with more warpgroups on an SM
# (written in session 42 without device time left to run it; BENCHMARKS.md "Session 42": the
# pick is bound by its two consumer warpgroups' own chains, 165 us of its 176 with no loads,
# 0.44 instructions issued per scheduler cycle). Run on the GPU machine from the repository root
# with cJSON available (`source .deps/unpack.sh`), OUT set to a folder that comes back;
# mamba_ssm's kernels as bench/common/ssd-vs-mamba.sh finds them (../shared/anchors/mamba2-triton,
# else a carried copy in .dev/anchors).
#
# One consumer warpgroup a CTA on one head (h 1, l 64, s 64, 2-stage rings, one tile a CTA of
# 256 threads: 16384 CTAs at 8 x 2048, 71.9 KB of shared memory) as the generator writes it
# (__launch_bounds__(256, 1): 240 registers, one CTA an SM), and the same kernel.cu built for two
# and three CTAs an SM: __launch_bounds__(256, N) and the consumer's setmaxnreg lowered so that
# producer plus consumer keep the launch's registers (N 2: 128 at launch, 40 + 200; N 3: 80 at
# launch, 40 + 120; ptxas reports no spills for either). Three CTAs an SM are three consumer
# warpgroups where the pick has two, at the price of C and CB read once per head instead of
# once per head pair. Timed against the pick (h 2, two warpgroups, persistent) and mamba_ssm in
# one process, every element checked (bench/common/ssd-vs-mamba.sh: ssd_time.py, 2 placements),
# at each of SHAPES (B:S, default "8:2048 8:4096"; H 64, P 64, N 128, L 256). The sProgram has
# no field for CTAs an SM and the model assumes one: if N 3 wins, that is the feature to build
# (generator, validator, simulator).
set -u
. bench/common/round-start.sh occupancy
G=examples/mamba2_chunk_scan.json
for BS in ${SHAPES:-8:2048 8:4096}; do
IFS=: read -r Bn Sn <<<"$BS"
SET=B=$Bn,S=$Sn,H=64,P=64,N=128,L=256
B=$R/b$Bn-s$Sn
mkdir -p "$B"
"$CLI" schedule $G --set $SET --hw "$(sh bench/common/hw-model.sh)" --target sm90a -q -o "$B/pick.json" >/dev/null &&
    "$CLI" codegen $G --set $SET --program "$B/pick.json" --target sm90a -o "$B/pick" >/dev/null || { echo "pick failed"; exit 1; }
"$CLI" program $G --hw H100 --set $SET --tile h=1,l=64,s=64,n=128,wg=1 -o "$B/w1.json" &&
    "$CLI" codegen $G --set $SET --program "$B/w1.json" --target sm90a -o "$B/w1" >/dev/null || { echo "w1 failed"; exit 1; }
for n in 2 3; do
    cp -r "$B/w1" "$B/w1x$n"
    inc=$([ $n = 2 ] && echo 200 || echo 120)
    sed -i "s/__launch_bounds__(256, 1)/__launch_bounds__(256, $n)/; s/regs_increase<240>/regs_increase<$inc>/" "$B/w1x$n/kernel.cu"
    [ "$(grep -c "__launch_bounds__(256, $n)\|regs_increase<$inc>" "$B/w1x$n/kernel.cu")" = 2 ] || { echo "w1x$n: the edit did not apply"; exit 1; }
done
ls -d "$B"/*/ | xargs -P 4 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "{}: build failed"'
echo "$BS built $(( $(date +%s) - T0 )) s"
bash bench/common/ssd-vs-mamba.sh "$B" 240 "$B/pick" "$B/w1" "$B/w1x2" "$B/w1x3"
done
