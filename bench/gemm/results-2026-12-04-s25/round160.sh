#!/usr/bin/env bash
# round 160: the ngroups-8 ChunkScan pick after the write-rate term (l 128, 3 stages) against
# round 152's pick (4 stages) and the heads split; bf16 8B.o M = 16, whose pick went from two
# consumer warpgroups to one: the scheduler's 4 best against torch.matmul
set -u
R=$OUT/r160; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
(meson setup .dev/build -Dgui=disabled --buildtype=release >/dev/null 2>&1; meson compile -C .dev/build > $R/build.log 2>&1; echo "cli rc $? $(( $(date +%s) - T0 )) s") &
CPID=$!
(cd .dev/r160/b && ls -d *_* | xargs -P 16 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "BUILD FAILED {}"')
ROOT=$(pwd)
cd .dev/r160
PLACEMENTS=2 timeout 120 python3 ../../bench/mamba2/ssd_time.py ../anchors-mamba2 b/newpick_grouped b/r152pick_grouped b/h2col_grouped b/newpick_grouped > $R/vs_mamba.jsonl 2> $R/vs_mamba.err
echo "grouped $(( $(date +%s) - T0 )) s"
python3 - $R/vs_mamba.jsonl <<'PY'
import json,sys
for l in open(sys.argv[1]):
    j=json.loads(l)
    if 'bundle' not in j: print(l.strip()[:200]); continue
    t=j.get('times',{})
    print(j['bundle'], j.get('error',''), round(t.get('ours',{}).get('median_ms',0),4), round(t.get('mamba_ssm',{}).get('median_ms',0),4), round(j.get('speedup_vs_mamba_ssm',0),3), j.get('check',{}).get('mismatches'), t.get('ours',{}).get('placement_medians_ms'))
PY
cd "$ROOT"
wait $CPID
ONLY="bf16-8B.o-m16" AUTO_N=4 DTYPES=bf16 MODELS=8B MS=16 SKIP_HARNESS=1 DEADLINE_S=150 timeout 200 bash bench/gemm/run .dev/build/cli/pipethreader-cli /tmp/g160 > $R/gemm.txt 2>&1; echo "gemm rc $? $(( $(date +%s) - T0 )) s"
mkdir -p $R/gemm; cp /tmp/g160/*.jsonl /tmp/g160/*.txt $R/gemm/ 2>/dev/null; cp /tmp/g160/bf16-8B.o-m16/cands.txt /tmp/g160/bf16-8B.o-m16/cands/*.json $R/gemm/ 2>/dev/null
python3 - /tmp/g160/torch.jsonl <<'PY'
import json,sys
for l in open(sys.argv[1]):
    j=json.loads(l)
    if 'candidates' not in j: continue
    t=j['torch']['median_ms']*1000
    print(j['config'],'torch',round(t,2))
    for k in sorted([k for k in j if k.startswith('auto')]+['auto1'], key=lambda s:int(s[4:])):
        m=(j['ours'] if k=='auto1' else j[k])['median_ms']*1000
        print('  ',k,'pred',j['candidates'][k]['predicted_us'],'meas',round(m,2),'torch/ours',round(t/m,3),'mism',j['candidates'][k].get('mismatches'))
PY
cd $R && tar czf ../r160.tgz . && cd .. && rm -rf $R
echo "done $(( $(date +%s) - T0 )) s"
