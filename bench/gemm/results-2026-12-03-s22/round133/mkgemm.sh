#!/bin/bash
# mkgemm.sh: candidate bundles for three bf16 M=64 GEMMs: the scheduler's top 8 and hand-made deep-ring ones
set -e
cli=/work/main/build/cli/pipethreader-cli
O=/work/main/.dev/r133/gemm; rm -rf $O; mkdir -p $O; : > $O/list.txt
hand() { # cfg M N K name json
  python3 - /tmp/base-$1.json $O/$1-$5.json "$6" <<'PY'
import json,sys
p=json.load(open(sys.argv[1])); p.update(json.loads(sys.argv[3])); p.pop('params',None); json.dump(p,open(sys.argv[2],'w'),indent=1)
PY
}
for spec in "bf16-70B.qkv-m64 64 10240 8192" "bf16-8B.qkv-m64 64 6144 4096" "bf16-70B.o-m64 64 8192 8192"; do
  set -- $spec; cfg=$1 M=$2 N=$3 K=$4; set_="M=$M,N=$N,K=$K"
  $cli schedule gemm_bf16 --set $set_ --target sm90a -o /tmp/base-$cfg.json -q >/dev/null 2>&1
  rm -rf /tmp/cands-$cfg; $cli schedule gemm_bf16 --set $set_ --target sm90a --measure 8 --candidates /tmp/cands-$cfg -q > /tmp/cands-$cfg.txt 2>/dev/null
  while read -r rank pred desc; do cp /tmp/cands-$cfg/cand-$rank.json $O/$cfg-auto$rank.json; done < <(grep -E '^[0-9]+ ' /tmp/cands-$cfg.txt)
  P='"partition":{"raster":"row","group":8,"persistent":false}'
  hand $cfg $M $N $K h-n128k64s8 '{"tile":{"m":64,"n":128,"k":64},"stages":{"A":8,"B":8},'"$P"'}'
  hand $cfg $M $N $K h-n112k64s9 '{"tile":{"m":64,"n":112,"k":64},"stages":{"A":9,"B":9},'"$P"'}'
  hand $cfg $M $N $K h-n64k64s12 '{"tile":{"m":64,"n":64,"k":64},"stages":{"A":12,"B":12},'"$P"'}'
  hand $cfg $M $N $K h-n64k64s6 '{"tile":{"m":64,"n":64,"k":64},"stages":{"A":6,"B":6},'"$P"'}'
  hand $cfg $M $N $K h-n64k128s6 '{"tile":{"m":64,"n":64,"k":128},"stages":{"A":6,"B":6},'"$P"'}'
  hand $cfg $M $N $K h-n128k64s8sk2 '{"tile":{"m":64,"n":128,"k":64},"stages":{"A":8,"B":8},"partition":{"raster":"row","group":8,"persistent":false,"split_k":2}}'
  hand $cfg $M $N $K h-n64k64s12sk2 '{"tile":{"m":64,"n":64,"k":64},"stages":{"A":12,"B":12},"partition":{"raster":"row","group":8,"persistent":false,"split_k":2}}'
  r=1
  for p in $O/$cfg-auto*.json $O/$cfg-h-*.json; do
    n=$(basename $p .json)
    if $cli codegen gemm_bf16 --set $set_ --program $p --target sm90a -o $O/$n > $O/$n.codegen.txt 2>&1; then
      pred=$($cli simulate gemm_bf16 --set $set_ --program $p -o /tmp/t.json 2>&1 | grep -o 'predicted kernel time [0-9.]*' | awk '{print $4}')
      case $n in *-auto1) rk=1 ;; *) r=$((r+1)); rk=$r ;; esac
      echo "$n bf16 ${cfg#bf16-} $M $N $K $pred $rk $cfg" >> $O/list.txt
      echo "$n $pred $(grep -o 'split_k.:[0-9]*\|"stages": {[^}]*}' $p | head -2 | tr '\n' ' ')"
    else echo "$n: codegen failed: $(tail -1 $O/$n.codegen.txt)"; fi
  done
done
