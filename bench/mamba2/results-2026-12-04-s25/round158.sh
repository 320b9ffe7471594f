#!/usr/bin/env bash
# round 158: ChunkState with more of x in flight: x's ring 6 or 5 stages, B's (read from L2, shared
# by the chunk's heads) 2 or 3, in the pick's shared memory, against the pick (4 and 4)
set -u
R=$OUT/r158; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
(cd .dev/r158/b && ls -d *_* | xargs -P 16 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "BUILD FAILED {}"')
echo "bundles $(( $(date +%s) - T0 )) s"
ROOT=$(pwd)
cd .dev/r158
PLACEMENTS=2 timeout 120 python3 ../../bench/mamba2/ssd_time.py ../anchors-mamba2 b/pick_8x8192 b/x6b2_8x8192 b/x5b3_8x8192 b/pick_8x8192 >> $R/vs_mamba.jsonl 2>> $R/vs_mamba.err
echo "8x8192 $(( $(date +%s) - T0 )) s"
PLACEMENTS=1 timeout 120 python3 ../../bench/mamba2/ssd_time.py ../anchors-mamba2 b/pick_64x8192 b/x6b2_64x8192 b/x5b3_64x8192 >> $R/vs_mamba.jsonl 2>> $R/vs_mamba.err
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
cd "$ROOT"
(meson setup .dev/build -Dgui=disabled --buildtype=release >/dev/null 2>&1; meson compile -C .dev/build > $R/build.log 2>&1; echo "cli rc $? $(( $(date +%s) - T0 )) s")
# issue 14: the f16 M = 64 picks of Llama-3 8B and 70B against torch.matmul (cuBLAS), not re-timed
# since session 22 restored them
DTYPES=f16 MODELS="8B 70B" MS=64 SKIP_HARNESS=1 DEADLINE_S=240 timeout 300 bash bench/gemm/run .dev/build/cli/pipethreader-cli /tmp/g158 > $R/gemm.txt 2>&1; echo "gemm rc $? $(( $(date +%s) - T0 )) s"; mkdir -p $R/gemm; cp /tmp/g158/*.jsonl /tmp/g158/*.txt /tmp/g158/torch.err $R/gemm/ 2>/dev/null; for d in /tmp/g158/*/; do [ -f $d/program.json ] && cp $d/program.json $R/gemm/$(basename $d).json; done
tail -15 $R/gemm.txt
cd $R && tar czf ../r158.tgz . && cd .. && rm -rf $R
echo "done $(( $(date +%s) - T0 )) s"
