#!/usr/bin/env bash
# round 156: which heads-split ChunkState hangs: a warpgroup tile past the head axis (H 2, h 3;
# grouped HG 2, hg 3) against the same with the axis filled (HG 3, hg 3; HG 2, hg 2), and a
# ChunkScan with H 1, h 2
set -u
R=$OUT/r156; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
(cd .dev/r156 && ls -d */ | xargs -P 8 -I{} sh -c 'make -s -C {} all > {}/build.log 2>&1 || echo "BUILD FAILED {}"')
for d in .dev/r156/*/; do n=$(basename $d); (cd $d && timeout 20 ./harness --check-only --json-only) > $R/$n.txt 2>&1; echo "$n rc $? $(grep -o '"correct": [a-z]*' $R/$n.txt) $(grep -o 'mismatches[^,]*' $R/$n.txt | head -1)"; done
cd $R && tar czf ../r156.tgz . && cd .. && rm -rf $R
