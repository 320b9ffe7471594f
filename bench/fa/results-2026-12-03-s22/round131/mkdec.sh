#!/bin/bash
# mkdec.sh B S NAME N STAGES SPLITS [extra-json]: a decode pair from the scheduler's pick edited
set -e
cli=/work/main/build/cli/pipethreader-cli
B=$1 S=$2 name=$3 n=$4 st=$5 sp=$6 extra=${7:-"{}"}
out=/work/main/.dev/r131/dec
mkdir -p $out
base=/tmp/s22/dec_b${B}_s${S}.json
[ -f $base ] || $cli schedule examples/flash_decoding.json --set B=$B,HKV=8,G=4,S=$S,D=128 --target sm90a --budget 30 -o $base >/dev/null 2>&1
python3 - $base $out/$name.p.json $n $st $sp "$extra" <<'PY'
import json,sys
p=json.load(open(sys.argv[1])); n,st,sp=int(sys.argv[3]),int(sys.argv[4]),int(sys.argv[5])
if n>0: p['tile']['n']=n
if st>0: p['stages']={'K':st,'V':st}
if sp>0: p['params']['SPLITS']=sp
for k,v in json.loads(sys.argv[6]).items():
    if isinstance(v,dict): p.setdefault(k,{}).update(v)
    else: p[k]=v
json.dump(p,open(sys.argv[2],'w'),indent=1)
PY
sp=$(python3 -c "import json;print(json.load(open('$out/$name.p.json'))['params']['SPLITS'])")
$cli codegen examples/flash_decoding.json --set B=$B,HKV=8,G=4,S=$S,D=128 --program $out/$name.p.json --target sm90a -o $out/$name.partial >/dev/null
$cli schedule examples/flash_decoding_combine.json --set B=$B,HKV=8,G=4,SPLITS=$sp,D=128 --target sm90a --budget 10 -o $out/$name.c.json >/dev/null 2>&1 || $cli program examples/flash_decoding_combine.json --set B=$B,HKV=8,G=4,SPLITS=$sp,D=128 -o $out/$name.c.json
$cli codegen examples/flash_decoding_combine.json --set B=$B,HKV=8,G=4,SPLITS=$sp,D=128 --program $out/$name.c.json --target sm90a -o $out/$name.combine >/dev/null
echo "$name: $(grep -o 'BN = [0-9]*\|STAGES_K = [0-9]*\|TILES = [0-9]*' $out/$name.partial/kernel.cu | tr '\n' ' ') splits $sp"
