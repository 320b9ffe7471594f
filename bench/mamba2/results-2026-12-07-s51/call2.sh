#!/usr/bin/env bash
# call2.sh — on the GPU machine from the repository root (b/ carried): the random Mamba2 draws of
# prep.sh (b/draw-*, seeds 51001-51040, ChunkScan draws factored16 in about a third) built and
# run with --check-only (every output element against the f32 reference), 4 at once, 60 s each;
# the two small factored16 draws (b/small-*) under compute-sanitizer memcheck and racecheck.
set -u
here=bench/mamba2/results-2026-12-07-s51
export PATH=$PATH:/usr/local/cuda/bin
R=$OUT/call2; mkdir -p $R; T0=$(date +%s)
ls -d $here/b/draw-*/ $here/b/small-*/ | xargs -P 16 -I{} sh -c 'make -s -C {} all > {}/build.log 2>&1 || echo "{}: build failed"'
echo "built $(( $(date +%s) - T0 )) s"
ls -d $here/b/draw-*/ | xargs -P 4 -I{} sh -c 'cd {} && timeout 60 ./harness --check-only --json-only > run.log 2>&1; echo "$(basename {}) rc $? $(tail -1 run.log | cut -c1-160)"' | sort > $R/draws.txt
echo "draws $(( $(date +%s) - T0 )) s: $(grep -c '"correct": true' $R/draws.txt) of $(grep -c . $R/draws.txt) correct"
grep -v '"correct": true' $R/draws.txt
for d in $here/b/small-*/; do
  for tool in memcheck racecheck; do
    (cd $d && timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 ./harness --check-only --json-only) > $R/$(basename $d)-$tool.log 2>&1
    echo "$(basename $d) $tool rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/$(basename $d)-$tool.log | tail -1)"
  done
done
echo "done $(( $(date +%s) - T0 )) s"
