#!/usr/bin/env bash
# round 154: ChunkState's pick as session 17's generator made it (s17gen) and with every map's L2
# promotion at 256 B (p256) against today's kernel, one process per size; then the GPU
# differential on the Mamba2 draws (heads splits, ngroups > 1 now drawn)
set -u
R=$OUT/r154; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $R/gpu.txt
(meson setup .dev/build -Dgui=disabled --buildtype=release >/dev/null 2>&1 && meson compile -C .dev/build >$R/build.log 2>&1; echo "cli built $(( $(date +%s) - T0 )) s rc $?" ) &
CPID=$!
(cd .dev/r154/b && ls -d *_* | xargs -P 16 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "BUILD FAILED {}"')
echo "bundles $(( $(date +%s) - T0 )) s"
(cd .dev/r154
PLACEMENTS=2 timeout 120 python3 ../../bench/mamba2/ssd_time.py ../anchors-mamba2 b/pick_8x8192 b/s17gen_8x8192 b/p256_8x8192 b/pick_8x8192 >> $R/vs_mamba.jsonl 2>> $R/vs_mamba.err
echo "8x8192 $(( $(date +%s) - T0 )) s"
PLACEMENTS=1 timeout 120 python3 ../../bench/mamba2/ssd_time.py ../anchors-mamba2 b/pick_64x8192 b/s17gen_64x8192 b/p256_64x8192 >> $R/vs_mamba.jsonl 2>> $R/vs_mamba.err
echo "64x8192 $(( $(date +%s) - T0 )) s"
tail -3 $R/vs_mamba.err
python3 - $R/vs_mamba.jsonl <<'PY'
import json,sys
for l in open(sys.argv[1]):
    j=json.loads(l)
    if 'bundle' not in j: print(l.strip()[:200]); continue
    t=j.get('times',{})
    print(j['bundle'], j.get('error',''), round(t.get('ours',{}).get('median_ms',0),4), round(t.get('mamba_ssm',{}).get('median_ms',0),4), round(j.get('speedup_vs_mamba_ssm',0),3), round(j.get('of_floor',0),3), j.get('check',{}).get('mismatches'), t.get('ours',{}).get('placement_medians_ms'))
PY
)
wait $CPID
WORKLOADS="mamba2_chunk_state mamba2_chunk_scan" SAN_EVERY=16 RUN_TIMEOUT=30 SAN_TIMEOUT=120 timeout 380 sh tests/gpu/differential.sh .dev/build 80 2000 /tmp/diff154 > $R/differential.txt 2>&1; echo "differential rc $?" >> $R/differential.txt
tail -25 $R/differential.txt
for f in /tmp/diff154/s*/replay.txt; do head -1 $f; done > $R/draws.txt 2>/dev/null
for d in /tmp/diff154/*/; do [ -f $d/FAILED ] && { echo "== $d"; cat $d/replay.txt 2>/dev/null | head -2; } ; done >> $R/failed.txt 2>/dev/null
cd $R && tar czf ../r154.tgz . && cd .. && rm -rf $R
echo "done $(( $(date +%s) - T0 )) s"
