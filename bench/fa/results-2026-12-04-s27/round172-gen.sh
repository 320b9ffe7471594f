#!/bin/bash
# round 172's FA d256 variants, made here: the pick (n 64, producer 40 / consumers 232), the same
# with 24 / 240, n 80 with 24 / 240, and both with ping-pong; S 8192 (B 2) and 16384 (B 1), H 8,
# non-causal, and 16384 causal. fa_time.py's list in $R/g/list.txt
set -eu
CLI=$1 R=$2
: > $R/g/list.txt
for spec in "2 8192 0" "1 16384 0" "1 16384 1"; do
  set -- $spec; B=$1 S=$2 C=$3
  cfg=d256-c$C-s$S; set_="B=$B,H=8,S=$S,D=256,CAUSAL=$C"
  mkdir -p $R/g/$cfg-c
  $CLI schedule flash_attention --set $set_ --target sm90a --measure 2 --candidates $R/g/$cfg-c > /dev/null 2>&1
  python3 - $R/g/$cfg-c <<'PY'
import copy, json, sys
d = sys.argv[1]
pick = json.load(open(f"{d}/cand-1.json"))
pp = copy.deepcopy(pick)  # ping-pong: each warpgroup's mma after the other's (as the scheduler writes it)
pp["waits"] = pp.get("waits", []) + [
    {"stask": "mma.S.wg0", "on": "mma.S.wg1", "distance": 1}, {"stask": "mma.S.wg1", "on": "mma.S.wg0", "distance": 0},
    {"stask": "mma.O.wg0", "on": "mma.O.wg1", "distance": 1}, {"stask": "mma.O.wg1", "on": "mma.O.wg0", "distance": 0}]
def regs(p, prod, cons):
    p = copy.deepcopy(p)
    for r in p["roles"]:
        r["regs"] = prod if r["name"] == "producer" else cons
    return p
def n80(p):
    p = regs(p, 24, 240); p["tile"]["n"] = 80; return p
out = {"v1": pick, "v2": regs(pick, 24, 240), "v3": n80(pick), "v4": n80(pp), "v5": pp}
for k, p in out.items():
    json.dump(p, open(f"{d}/{k}.json", "w"), indent=1)
PY
  for v in 1 2 3 4 5; do
    $CLI codegen flash_attention --set $set_ --program $R/g/$cfg-c/v$v.json --target sm90a -o $R/g/$cfg-v$v > /dev/null
    pred=$($CLI simulate flash_attention --set $set_ --program $R/g/$cfg-c/v$v.json 2>/dev/null | head -1 | awk '{print $4*1000000}')
    echo "$cfg-v$v $cfg $B 8 $S 256 $C $v $pred" >> $R/g/list.txt
  done
done
cat $R/g/list.txt
