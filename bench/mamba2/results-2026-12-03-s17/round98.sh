#!/usr/bin/env bash
# round 98: the random differential over every workload with the session's final generator
set -u
R=/tmp/r98; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
(meson setup /tmp/b -Dgui=disabled --buildtype=release >/dev/null 2>&1 && meson compile -C /tmp/b >$R/build.log 2>&1) || { echo BUILD FAILED; tail -20 $R/build.log; }
SAN_EVERY=0 RUN_JOBS=6 timeout 420 sh tests/gpu/differential.sh /tmp/b 100 61000 /tmp/d98 > $R/differential.txt 2>&1; echo "differential rc $?" >> $R/differential.txt
tail -4 $R/differential.txt
grep -l '"run"' /tmp/d98/*/program.json 2>/dev/null | wc -l > $R/runs-count.txt; echo "with runs: $(cat $R/runs-count.txt)"
tar czf $OUT/r98.tgz -C /tmp r98
echo done
