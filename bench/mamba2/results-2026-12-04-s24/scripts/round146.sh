#!/usr/bin/env bash
# round 146: are the steep-decay mismatches of round 145 the decay's direct form, or cancellation
# in the sum (the kernel before session 23 on the same inputs)?
set -u
R=$OUT/r146; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
cd .dev/r145/b
ls -d old_8x2048 new_8x2048 2>/dev/null
for d in old_8x2048 new_8x2048; do make -s -C $d all > /dev/null 2>&1 || echo "BUILD FAILED $d"; done
for d in old_8x2048 new_8x2048; do for r in -30:30 -8:8 -2:2; do
  echo "== $d dA_l=$r"; (cd $d && ./harness --check-only --range dA_l=$r 2>&1 | grep -vE '^\s*$' | head -14)
done; done > $R/check.txt 2>&1
cat $R/check.txt | cut -c1-200
