#!/bin/sh
# bundles for round 149: the scheduler's picks with the prologue matmul's loads first on the TMA
# lane (and the kernel's once-per-tile loads in the lane's order), against the session's
# earlier picks (load.dA_l first) and round 147's heads split in runs of 2 along the columns
C=${1:-build/cli/pipethreader-cli}
O=.dev/r149/b
for sh in 8x2048 8x8192 64x8192; do B=${sh%x*}; S=${sh#*x}; set=B=$B,S=$S
  $C schedule mamba2_chunk_scan --target sm90a --set $set -o $O/newpick-$sh.json --top 6 > $O/sched-$sh.txt 2>&1
  $C codegen mamba2_chunk_scan --program $O/newpick-$sh.json --set $set --target sm90a -o $O/newpick_$sh > /dev/null
  python3 - bench/mamba2/results-2026-12-04-s24/r145/pick-$sh.json $O/l128c-$sh.json <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
for l in p["lanes"]:
    if l["name"] == "tma":
        pro = [x for x in ("load.C", "load.states") if x in l["order"]]
        l["order"] = pro + [x for x in l["order"] if x not in pro]
json.dump(p, open(sys.argv[2], "w"), indent=1)
PY
  $C codegen mamba2_chunk_scan --program $O/l128c-$sh.json --set $set --target sm90a -o $O/l128c_$sh > /dev/null
  cp -r .dev/r148/b/pick_$sh .dev/r147/b/h2col_$sh $O/
done
rm -rf $O/*/*.o $O/*/harness $O/*/*.cubin $O/*/*.so $O/*/build.log 2>/dev/null
ls $O | tr '\n' ' '
