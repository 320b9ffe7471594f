#!/usr/bin/env bash
# round 162: the 12 GEMM picks that change when the DRAM floor counts the split-K / stream-K
# workspace (auto1: new pick, auto2: the committed model's pick), timed interleaved with
# torch.matmul in one process per configuration (bench/gemm/torch_gemm.py), every element checked
set -u
R=$OUT/r162; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
G=.dev/r162/g
(cd $G && ls -d */ | xargs -P 16 -I{} sh -c 'make -s -C {} lib > {}/build.log 2>&1 || echo "BUILD FAILED {}"')
echo "built $(( $(date +%s) - T0 )) s"
DEADLINE_S=200 timeout 230 python3 bench/gemm/torch_gemm.py $G $G/timed.txt > $R/torch.jsonl 2> $R/torch.err; echo "torch rc $? $(( $(date +%s) - T0 )) s"
tail -2 $R/torch.err
python3 - $R/torch.jsonl <<'PY'
import json,sys,math
lg=[]
for l in open(sys.argv[1]):
    j=json.loads(l)
    if 'candidates' not in j: continue
    t=j['torch']['median_ms']*1000
    new=j['ours']['median_ms']*1000; old=j['auto2']['median_ms']*1000 if 'auto2' in j else float('nan')
    print(f"{j['config']:<22} torch {t:8.2f}  new {new:8.2f} ({t/new:.3f})  old {old:8.2f} ({t/old:.3f})  new/old {new/old:.3f}  mism {j['candidates']['auto1'].get('mismatches')}/{j['candidates'].get('auto2',{}).get('mismatches')}")
    lg.append(math.log(new/old))
if lg: print('geomean new/old', round(math.exp(sum(lg)/len(lg)),4), len(lg))
PY
cp $G/timed.txt $R/
cd $R && tar czf ../r162.tgz . && cd .. && rm -rf $R
echo "done $(( $(date +%s) - T0 )) s"
