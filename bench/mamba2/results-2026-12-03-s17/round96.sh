#!/usr/bin/env bash
# round 96: ChunkState's new picks (runs of 2, row raster) against the old picks and l 128 with
# mamba_ssm interleaved (ssd_time.py); FA d64 non-causal S 512, the old and new pick with cuDNN
set -u
R=/tmp/r96; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $R/gpu.txt
cd .dev/r96
ls -d cs/state-* | xargs -P 16 -I{} sh -c 'make -s -C {} lib kernel.cubin > {}/build.log 2>&1 || echo "BUILD FAILED {}"'
ls -d fa/fa_* | xargs -P 16 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "BUILD FAILED {}"'
dirs=""; for s in b8-s2048 b8-s8192 b64-s8192; do for v in new old l128; do dirs="$dirs cs/state-$v-$s"; done; done
PLACEMENTS=2 timeout 400 python3 ../../bench/mamba2/ssd_time.py ../anchors-mamba2 $dirs > $R/ssd.jsonl 2> $R/ssd.err; echo "ssd rc $?"
python3 ../r96_summary.py $R/ssd.jsonl
tail -3 $R/ssd.err
PLACEMENTS=3 timeout 150 python3 ../../bench/fa/fa_time.py fa fa/list.txt > $R/fa.jsonl 2> $R/fa.err; echo "fa rc $?"
cut -c1-1500 $R/fa.jsonl; tail -3 $R/fa.err
tar czf $OUT/r96.tgz -C /tmp r96
echo done
