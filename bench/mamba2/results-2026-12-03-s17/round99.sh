#!/usr/bin/env bash
# round 99: causal attention in runs of a head's query tiles, longest first: K and V kept for
# the shorter tile (d64 causal S 512, 256-row tiles); a variant with 3 query tiles per head
set -u
R=/tmp/r99; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
cd .dev/r99
make -s -C fa_d64_causal_run3_kv_kept_s300 > $R/v-build.log 2>&1 || echo "BUILD FAILED variant"
ls -d fa/fa_* | xargs -P 8 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "BUILD FAILED {}"'
(cd fa_d64_causal_run3_kv_kept_s300 && timeout 60 ./harness --json-only > $R/variant.json 2>$R/variant.err); echo "variant rc $? $(grep -o '"correct": [a-z]*' $R/variant.json | head -1)"
PLACEMENTS=3 timeout 150 python3 ../../bench/fa/fa_time.py fa fa/list.txt > $R/fa.jsonl 2> $R/fa.err; echo "fa rc $?"
python3 - $R/fa.jsonl <<'PY'
import json,sys
for l in open(sys.argv[1]):
    j=json.loads(l)
    if 'times' not in j: continue
    for k,c in j['candidates'].items(): print(k, c['name'], 'mismatches', c.get('mismatches'))
    for k,t in j['times'].items(): print(k, round(t['median_ms']*1000,1), [round(x*1000,1) for x in t['placement_medians_ms']])
PY
tail -2 $R/fa.err
tar czf $OUT/r99.tgz -C /tmp r99
echo done
