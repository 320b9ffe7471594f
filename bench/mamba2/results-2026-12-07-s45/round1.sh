#!/usr/bin/env bash
# Session 45, first device round (README.md here): ChunkScan with three consumer warpgroups on
# three heads (h 3: 22 head triples over 64 heads, the last one ragged) against the committed
# pick (two warpgroups on two heads), at 8 x 2048 and 8 x 4096. h3g3 / h3g4: grouped raster,
# tiles handed out by an atomic, 3 / 4 stages; h3r3: row raster in runs of 2, 3 stages (the
# scheduler's three best h 3 forms with the ragged split allowed, programs/); h3rpa: h3r3 with the
# prologue product a tile ahead. mamba_ssm
# interleaved (ssd-vs-mamba.sh, every element checked) and the harness, 3 passes (PASSES);
# KERNELS limits the h3 forms timed.
set -u
S0=$(date +%s)
. bench/common/round-start.sh r1
G=examples/mamba2_chunk_scan.json
D=bench/mamba2/results-2026-12-07-s45
W=/tmp/r1w; mkdir -p $W
HWM=$(sh bench/common/hw-model.sh)
for BS in ${SHAPES:-8:2048 8:4096}; do
IFS=: read -r Bn Sn <<<"$BS"
SET=B=$Bn,S=$Sn,H=64,P=64,N=128,L=256
B=$W/b$Bn-s$Sn; mkdir -p $B
cp $D/programs/h2-$HWM-b$Bn-s$Sn.json "$B/pick.json"  # the committed pick (session 44) on this GPU's model
K=${KERNELS:-h3g3 h3g4 h3r3 h3rpa}
for v in $K; do cp $D/programs/$v-b$Bn-s$Sn.json $B/$v.json; done
for f in pick $K; do
    "$CLI" codegen $G --set $SET --program "$B/$f.json" --target sm90a -o "$B/$f" >/dev/null || { echo "$f: codegen failed"; exit 1; }
    echo "$f $("$CLI" simulate $G --set $SET --program "$B/$f.json" --hw "$HWM" | grep predicted)"
done
ls -d "$B"/*/ | xargs -P 4 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "{}: build failed"'
grep -h "C75\|Used\|spill" $B/*/build.log $B/*/kernel.ptxas.txt 2>/dev/null | sort | uniq -c
echo "$BS built $(( $(date +%s) - T0 )) s"
bash bench/common/ssd-vs-mamba.sh "$B" 200 "$B/pick" $(printf "$B/%s " $K)
cp "$B/ssd.jsonl" "$R/ssd-b$Bn-s$Sn.jsonl"
bash bench/common/harness-passes.sh ${PASSES:-3} "$B/pick" $(printf "$B/%s " $K) | tee "$R/passes-b$Bn-s$Sn.txt"
done
echo "all done $(( $(date +%s) - S0 )) s"
# the two ragged three-head variants of tests/codegen/variants.txt through run-gpu-tests.sh
grep -E '^ssd_scan_(wgstores_heads3_ragged_h|heads3_ragged_h_row) ' tests/codegen/variants.txt > /tmp/v1.txt
RUN_TIMEOUT=60 timeout 120 sh tests/gpu/run-gpu-tests.sh "$CLI" /tmp/v1.txt /tmp/v1-out 2>&1 | tail -4 | tee $R/variants.txt
