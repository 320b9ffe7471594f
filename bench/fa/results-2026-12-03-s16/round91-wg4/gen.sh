# 4-warpgroup (256 x 64) d64 FA experiment: the pick, and 256x64 wg4 with stages 2 and 4
set -eu
cli=build/cli/pipethreader-cli
out=.dev/w4/b
rm -rf $out; mkdir -p $out; : > $out/list.txt
for cfg in d64-c1-s512 d64-c1-s1024 d64-c1-s2048 d64-c1-s4096 d64-c1-s8192 d64-c1-s16384 d64-c0-s512 d64-c0-s1024 d64-c0-s2048 d64-c0-s4096 d64-c0-s8192 d64-c0-s16384; do
  D=${cfg#d}; D=${D%%-*}; c=${cfg#*-c}; c=${c%%-*}; S=${cfg##*-s}
  B=$((16384 / S)); H=$((2048 / D)); set_="B=$B,H=$H,S=$S,D=$D,CAUSAL=$c"
  $cli schedule flash_attention --set $set_ --target sm90a -o $out/$cfg-auto1.prog.json -q > /dev/null 2>&1
  $cli program flash_attention --set $set_ --tile m=256,n=64,wg=4 -o $out/base.json >/dev/null
  for st in 2 4; do
    python3 - $out/base.json $out/$cfg-auto$((st)).prog.json $st <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); st = int(sys.argv[3])
p['roles'] = [{'name': 'producer', 'regs': 24}] + [{'name': 'wg%d' % i, 'regs': 112} for i in range(4)]
p['partition'] = {'raster': 'grouped', 'group': 8, 'persistent': True, 'staging': 'apart'}
p['stages'] = {'K': st, 'V': st}
stores = [e for l in p['lanes'] for e in l['order'] if (e if isinstance(e, str) else e['stask']).startswith('store.')]
for l in p['lanes']:
    l['order'] = [e for e in l['order'] if e not in stores]
p['lanes'].append({'name': 'tma.wg3', 'seu': 'tma', 'role': 'wg3', 'order': stores})
json.dump(p, open(sys.argv[2], 'w'), indent=1)
PY
  done
  for r in 1 2 4; do
    pred=$($cli simulate flash_attention --set $set_ --program $out/$cfg-auto$r.prog.json --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["predicted_time_ns"])')
    $cli codegen flash_attention --set $set_ --program $out/$cfg-auto$r.prog.json --target sm90a -o $out/$cfg-auto$r >/dev/null
    echo "$cfg-auto$r $cfg $B $H $S $D $c $r $pred" >> $out/list.txt
  done
done
rm $out/base.json
