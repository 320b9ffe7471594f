#!/bin/bash
# round 169: racecheck on the tiny split-K cluster kernel, the st.async hand-off (new) and the
# st.shared::cluster + release-arrive one (old), to tell the tool's time from a hang.
set -u
OUT=${OUT:-/tmp/out}
export PATH=$PATH:/usr/local/cuda/bin
for v in old new; do
  (cd .dev/r169/$v && ./harness --check-only > $OUT/$v-plain.txt 2>&1; echo "$v plain rc $?"
   start=$(date +%s); timeout 170 compute-sanitizer --tool racecheck --error-exitcode 9 ./harness --check-only > $OUT/$v-racecheck.txt 2>&1; echo "$v racecheck rc $? in $(( $(date +%s) - start )) s: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $OUT/$v-racecheck.txt | head -2 | tr '\n' ' ')")
done | tee $OUT/rc.txt
