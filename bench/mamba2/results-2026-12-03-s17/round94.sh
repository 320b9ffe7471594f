#!/usr/bin/env bash
# round 94: ChunkState blocked tile order with the chunk's Bm reused (prototype A/B); the
# random differential's four-warpgroup attention draws; racecheck on one
set -u
R=/tmp/r94; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $R/gpu.txt
cd .dev/r94
# builds, in parallel
ls -d b/cs_* d/* ds/x | xargs -P 16 -I{} sh -c 'make -s -C {} > {}/build.log 2>&1 || echo "BUILD FAILED {}"' > $R/builds.txt 2>&1
cat $R/builds.txt
# differential: check-only, 4 at a time
ls -d d/* | xargs -P 4 -I{} sh -c 'cd {} && timeout 60 ./harness --check-only --json-only > check.json 2>check.err; echo "{} rc $? $(grep -o "\"correct\": [a-z]*" check.json | head -1)"' > $R/diff.txt 2>&1
echo "differential: $(grep -c 'rc 0 "correct": true' $R/diff.txt) of $(ls -d d/* | wc -l) correct"; grep -v 'rc 0 "correct": true' $R/diff.txt | head
CS=/usr/local/cuda/bin/compute-sanitizer
for tool in racecheck synccheck; do (cd ds/x && timeout 120 $CS --tool $tool --error-exitcode 9 ./harness --check-only --json-only) > $R/san-$tool.log 2>&1; echo "$tool rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/san-$tool.log | tail -1)"; done
# ChunkState A/B: pass 1 checked, pass 2 timing only (large sizes), each kernel its own process
for pass in 1 2; do
  for d in b/cs_*; do
    case $pass$d in 2*8x2048*) continue;; esac
    extra=""; [ $pass = 2 ] && extra="--no-check"
    (cd $d && timeout 60 ./harness --json-only --placements 2 $extra > t$pass.json 2>t$pass.err)
    echo "$pass $(basename $d) rc $? $(python3 -c "import json;j=json.load(open('$d/t$pass.json'));print(j.get('correct'), j.get('time_ms_median'), j.get('placement_medians_ms'))" 2>/dev/null) | $(cat $d/predicted.txt)"
  done
done | tee $R/ab.txt
cp -r b/*/t*.json $R/ 2>/dev/null
for d in b/cs_*; do mkdir -p $R/json/$(basename $d); cp $d/t*.json $d/kernel.ptxas.txt $R/json/$(basename $d)/ 2>/dev/null; done
tar czf $OUT/r94.tgz -C /tmp r94
echo done
