#!/bin/bash
# round 126: L2 promotion chosen per map (128 B where a stage reads >= 256 contiguous bytes).
# Decode picks vs cuDNN; Mamba2 ChunkState/ChunkScan vs mamba_ssm and the HBM floor (not run:
# ANCHORS was not carried, so ssd_time.py found no mamba_ssm); each against its 256-B twin in the
# harness (ab.sh; the Mamba2 paths ended in a slash, so cp made each twin inside its bundle
# directory and complained, but the twin was whole and was built and timed; the round-128 ab.sh
# strips the slash).
set -u
R=/tmp/r126; mkdir -p $R; OUT=${OUT:-/tmp/out}
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $OUT/gpu.txt
(meson setup /tmp/b -Dgui=disabled --buildtype=release >/dev/null 2>&1 && meson compile -C /tmp/b >$R/build.log 2>&1) || { echo BUILD FAILED; tail -20 $R/build.log; } &
BPID=$!
D=.dev/r126/dec
ls -d $D/*.partial $D/*.combine | xargs -P 8 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "{}: build failed"'
pairs=""; for n in b64_pick b8_pick b1_pick; do pairs="$pairs $D/$n.partial $D/$n.combine"; done
PLACEMENTS=2 timeout 200 python3 bench/fa/decode_time.py $pairs > $OUT/decode.jsonl 2> $R/decode.err
wait $BPID
PLACEMENTS=2 timeout 240 bash bench/mamba2/run /tmp/b/cli/pipethreader-cli $R/mamba > $OUT/mamba.txt 2>&1; echo "mamba rc $?"; tail -9 $OUT/mamba.txt
bash .dev/r126/ab.sh $OUT/ab.txt $D/b64_pick.partial $D/b8_pick.partial $D/b1_pick.partial $(ls -d $R/mamba/*/)
