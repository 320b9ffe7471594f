#!/usr/bin/env bash
# round 123 (session 20): compute-sanitizer racecheck on three small kernels that reduce split-K
# through a cluster: slots beside the buffers (bf16 M = 1; int4 fragments, 4 chunks) and over
# the leader's rings (bf16 M = 64); the three run at once
set -u
export PATH=$PATH:/usr/local/cuda/bin
ls -d .dev/r123/*/ | xargs -P 8 -I{} sh -c 'make -s -C {} all > {}/build.log 2>&1 || echo "{} build failed"'
for d in .dev/r123/*/; do
  (cd $d && ./harness --check-only --json-only | tail -1 | cut -c1-100)
  (cd $d && timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 ./harness --check-only --json-only > san-racecheck.out 2>&1; echo "$(basename $d) racecheck rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|hazard' san-racecheck.out | tail -2 | tr '\n' ' ')") &
done
wait
