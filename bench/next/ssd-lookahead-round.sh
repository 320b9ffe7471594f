#!/usr/bin/env bash
# A device round (session 35, H100): does the ChunkState lookahead effect (a producer 3-4 steps
# ahead 8-12% slower than 2) need the states' writes? .dev/exp3/state-* (carried): lookahead 2,
# 3, 4 each whole, without the TMA store, without the convert, without both (harness --no-check,
# two passes). Then .dev/exp3/lib-*: ChunkState lookahead 4 (the H100 pick) and 2, the ChunkScan
# picks, against mamba_ssm in one process (ssd_time.py, every element checked).
set -u
. bench/common/round-start.sh ssd-look
E=.dev/exp3
ls -d $E/*/ | xargs -P 16 -I{} sh -c 'case {} in *lib-*) t="lib kernel.cubin";; *) t=all;; esac; make -s -C {} $t > {}/build.log 2>&1 || echo "BUILD FAILED {}"'
echo "built $(( $(date +%s) - T0 )) s"
bench/common/harness-passes.sh 2 $E/state-*/ | tee "$R/times.txt"
echo "timed $(( $(date +%s) - T0 )) s"
PLACEMENTS=2 bench/common/ssd-vs-mamba.sh "$R" 300 $E/lib-*/
echo "done $(( $(date +%s) - T0 )) s"
