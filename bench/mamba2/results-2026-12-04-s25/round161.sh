#!/usr/bin/env bash
# round 161: profiles (per-sTask instrumented traces, predicted against measured) of the
# ChunkScan pick at 8 x 2048 and the ChunkState pick at 8 x 8192, for the next model refit
set -u
R=$OUT/r161; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
(meson setup .dev/build -Dgui=disabled --buildtype=release >/dev/null 2>&1; meson compile -C .dev/build > $R/build.log 2>&1; echo "cli rc $? $(( $(date +%s) - T0 )) s")
C=.dev/build/cli/pipethreader-cli
timeout 150 $C profile mamba2_chunk_scan --set B=8,S=2048 --program .dev/r161/scanpick-8x2048.json -o $R/scan-8x2048.trace.json > $R/scan-8x2048.txt 2>&1; echo "scan rc $? $(( $(date +%s) - T0 )) s"
timeout 150 $C profile mamba2_chunk_state --set B=8,S=8192 --program .dev/r161/statepick-8x8192.json -o $R/state-8x8192.trace.json > $R/state-8x8192.txt 2>&1; echo "state rc $? $(( $(date +%s) - T0 )) s"
head -30 $R/scan-8x2048.txt; head -30 $R/state-8x8192.txt
cd $R && tar czf ../r161.tgz . && cd .. && rm -rf $R
