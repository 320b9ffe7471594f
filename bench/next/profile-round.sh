#!/usr/bin/env bash
# A device round (session 34): per-sTask traces of FlashDecoding partials the model predicts
# slow (few CTAs, many key blocks each: +20-48% on the H100), and one it predicts well, to see
# which pieces the model over-charges. .dev/prof holds their sProgram (carried).
set -u
. bench/common/round-start.sh prof
while read -r name set; do
    timeout 150 "$CLI" profile examples/flash_decoding.json --hw H100 --program ".dev/prof/$name.json" \
        --set "$set" -o "$R/$name.trace.json" > "$R/$name.report.txt" 2>&1
    echo "$name rc $? $(( $(date +%s) - T0 )) s"; head -60 "$R/$name.report.txt"
done <<'LIST'
split-mqa16k_sp16-partial-s34 B=1,HKV=1,G=32,D=128,S=16384,SPLITS=16
split-b1_4k_sp4-partial-s34 B=1,HKV=8,G=4,D=128,S=4096,SPLITS=4
split-mqa16k_sp128-partial-s34 B=1,HKV=1,G=32,D=128,S=16384,SPLITS=128
LIST
