#!/bin/bash
# ssd-stages-make.sh (session 35, from the repository root): .dev/exp2, the H100 ChunkState and
# ChunkScan picks with their two large rings at other depths, and five ChunkState twins built with
# the f32 convert before commit e8dceb9 (bench/next/ssd-stages-round.sh times them).
set -e
CLI=build/cli/pipethreader-cli
mk() { # graph B S name json-stages
  local g=$1 B=$2 S=$3 name=$4 st=$5 d=.dev/exp2/$4
  python3 - "$st" .dev/exp2/pick-$g-$B-$S.json /tmp/p.json <<'PY'
import json,sys
p=json.load(open(sys.argv[2])); p['stages'].update(json.loads(sys.argv[1])); json.dump(p,open(sys.argv[3],'w'))
PY
  $CLI codegen examples/mamba2_chunk_$g.json --set B=$B,S=$S,H=64,P=64,N=128,L=256 --program /tmp/p.json --target sm90a -o $d > /dev/null
}
for g in state scan; do for bs in 8:2048 64:2048 8:8192; do B=${bs%:*}; S=${bs#*:}
  $CLI schedule examples/mamba2_chunk_$g.json --set B=$B,S=$S,H=64,P=64,N=128,L=256 --target sm90a --hw H100 -o .dev/exp2/pick-$g-$B-$S.json > /dev/null 2>&1
done; done
for bs in 8:2048 64:2048; do B=${bs%:*}; S=${bs#*:}
  for xb in 4:4 6:2 3:5 2:2 3:2 4:2 5:2 7:2 3:3 6:3; do x=${xb%:*}; b=${xb#*:}
    mk state $B $S state-b${B}s$S-x${x}b$b "{\"x\":$x,\"Bm\":$b}"; done
  for cx in 4:4 2:6 4:6 6:6 6:4 3:3; do c=${cx%:*}; x=${cx#*:}
    mk scan $B $S scan-b${B}s$S-cb${c}x$x "{\"CB\":$c,\"x\":$x}"; done
done
mk state 8 8192 state-b8s8192-x4b4 '{"x":4,"Bm":4}'
mk state 8 8192 state-b8s8192-x6b2 '{"x":6,"Bm":2}'
mk state 8 8192 state-b8s8192-x3b5 '{"x":3,"Bm":5}'
mk scan 8 8192 scan-b8s8192-cb4x4 '{"CB":4,"x":4}'
mk scan 8 8192 scan-b8s8192-cb6x6 '{"CB":6,"x":6}'
# the old convert (git HEAD~0 device header before this session's change) for the state twins
for v in state-b8s2048-x4b4 state-b8s2048-x6b2 state-b64s2048-x4b4 state-b64s2048-x6b2 state-b8s8192-x4b4; do
  cp -r .dev/exp2/$v .dev/exp2/$v-oldconv; git show d4c7777:codegen/device/pt_tile.cuh > .dev/exp2/$v-oldconv/pt_tile.cuh; done
