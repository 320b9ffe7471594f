#!/usr/bin/env bash
# round 155: differential seed 2068 (ChunkState, ngroups 2 of 2 heads, three heads a CTA) timed
# out under compute-sanitizer in round 154: run it plainly, then under memcheck with more time
set -u
R=$OUT/r155; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
CS=/usr/local/cuda/bin/compute-sanitizer
T0=$(date +%s)
for d in san2068 full2068; do make -s -C .dev/r155/$d all > $R/$d-build.log 2>&1 || echo "BUILD FAILED $d"; done
echo "built $(( $(date +%s) - T0 )) s"
for d in san2068 full2068; do (cd .dev/r155/$d && timeout 30 ./harness --check-only --json-only) > $R/$d-plain.txt 2>&1; echo "$d plain rc $? $(grep -o '"correct": [a-z]*' $R/$d-plain.txt) $(( $(date +%s) - T0 )) s"; done
(cd .dev/r155/san2068 && timeout 100 $CS --tool memcheck --error-exitcode 9 ./harness --check-only --json-only) > $R/san-memcheck.txt 2>&1; echo "memcheck rc $? $(grep -E 'ERROR SUMMARY' $R/san-memcheck.txt | tail -1) $(( $(date +%s) - T0 )) s"
tail -5 $R/san-memcheck.txt
cd $R && tar czf ../r155.tgz . && cd .. && rm -rf $R
