#!/usr/bin/env bash
# round 159: f16 70B.o and 8B.qkv at M = 64: the scheduler's 8 best candidates (--measure 8
# --candidates) each checked and timed against torch.matmul interleaved
set -u
R=$OUT/r159; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
(meson setup .dev/build -Dgui=disabled --buildtype=release >/dev/null 2>&1; meson compile -C .dev/build > $R/build.log 2>&1; echo "cli rc $? $(( $(date +%s) - T0 )) s")
ONLY="f16-70B.o-m64 f16-8B.qkv-m64" AUTO_N=8 DTYPES=f16 MODELS="8B 70B" MS=64 SKIP_HARNESS=1 DEADLINE_S=300 timeout 360 bash bench/gemm/run .dev/build/cli/pipethreader-cli /tmp/g159 > $R/gemm.txt 2>&1; echo "gemm rc $? $(( $(date +%s) - T0 )) s"
mkdir -p $R/gemm; cp /tmp/g159/*.jsonl /tmp/g159/*.txt /tmp/g159/torch.err $R/gemm/ 2>/dev/null; cp -r /tmp/g159/*/cands* $R/gemm/ 2>/dev/null
for c in f16-70B.o-m64 f16-8B.qkv-m64; do mkdir -p $R/gemm/$c; cp /tmp/g159/$c/cands.txt /tmp/g159/$c/cands/*.json $R/gemm/$c/ 2>/dev/null; done
python3 - /tmp/g159/torch.jsonl <<'PY'
import json,sys
for l in open(sys.argv[1]):
    j=json.loads(l)
    print({k: (round(v,4) if isinstance(v,float) else v) for k,v in j.items() if not isinstance(v,(dict,list))})
PY
tail -12 $R/gemm.txt
cd $R && tar czf ../r159.tgz . && cd .. && rm -rf $R
echo "done $(( $(date +%s) - T0 )) s"
