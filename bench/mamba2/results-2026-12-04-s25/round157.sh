#!/usr/bin/env bash
# round 157: the Mamba2 GPU differential of round 154 again (seeds 2000-2079), after partition
# refuses heads tiles past the head axis; sanitizer sample every 16th seed
set -u
R=$OUT/r157; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
(meson setup .dev/build -Dgui=disabled --buildtype=release >/dev/null 2>&1; meson compile -C .dev/build >$R/build.log 2>&1; echo "cli built $(( $(date +%s) - T0 )) s rc $?")
WORKLOADS="mamba2_chunk_state mamba2_chunk_scan" SAN_EVERY=16 RUN_TIMEOUT=30 SAN_TIMEOUT=150 timeout 400 sh tests/gpu/differential.sh .dev/build 80 2000 /tmp/diff157 > $R/differential.txt 2>&1; echo "differential rc $?" >> $R/differential.txt
tail -12 $R/differential.txt
for f in /tmp/diff157/s*/replay.txt; do head -1 $f; done > $R/draws.txt 2>/dev/null
cd $R && tar czf ../r157.tgz . && cd .. && rm -rf $R
echo "done $(( $(date +%s) - T0 )) s"
