#!/bin/bash
# ovl-make.sh (session 36, from the repository root): .dev/exp1, the H100 ChunkScan and ChunkState
# picks and the same sPrograms with the CUDA-core chain an iteration ahead of its mma (offset 1 on
# every consumer CUDA-core sTask: the fragment of block i+1 made while the wgmma of block i runs;
# "-pipe"); ChunkState also with its x and Bm rings 2 deep. lib-* copies are for ssd_time.py.
# bench/next/ovl-round.sh times them.
set -e
CLI=build/cli/pipethreader-cli
E=.dev/exp1; rm -rf $E; mkdir -p $E
pipe() { # in.json out.json: every consumer CUDA-core sTask of the loop at offset 1
  python3 - "$1" "$2" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
for lane in p["lanes"]:
    if lane["seu"] == "cuda_core" and lane["role"] != "producer":
        lane["order"] = [{"stask": e, "offset": 1} if isinstance(e, str) and not e.startswith(("convert.", "add.out.", "exp.e_l.", "mul.y_inter.")) else e
                         for e in lane["order"]]
json.dump(p, open(sys.argv[2], "w"), indent=1)
PY
}
for g in scan state; do for bs in 8:2048 8:4096 64:2048 8:8192; do B=${bs%:*}; S=${bs#*:}
  set_="B=$B,S=$S,H=64,P=64,N=128,L=256"
  $CLI schedule examples/mamba2_chunk_$g.json --set $set_ --target sm90a --hw H100 -o $E/pick-$g-$B-$S.json > /dev/null 2>&1
  progs="pick:$E/pick-$g-$B-$S.json"
  if [ $g = state ]; then
    python3 -c "import json,sys; p=json.load(open(sys.argv[1])); p['stages'].update({'x':2,'Bm':2}); json.dump(p,open(sys.argv[2],'w'))" $E/pick-$g-$B-$S.json $E/x2b2-$g-$B-$S.json
    progs="$progs x2b2:$E/x2b2-$g-$B-$S.json"
  fi
  for pp in $progs; do n=${pp%%:*}; f=${pp#*:}
    pipe $f ${f%.json}-pipe.json
    for v in $n:$f $n-pipe:${f%.json}-pipe.json; do nm=${v%%:*}; pf=${v#*:}
      d=$E/$g-b${B}s$S-$nm
      $CLI codegen examples/mamba2_chunk_$g.json --set $set_ --program $pf --target sm90a -o $d > /dev/null
      if [ $B = 8 ] && [ $S -le 4096 ]; then cp -r $d $E/lib-$g-b${B}s$S-$nm; fi
    done
  done
done; done
ls -d $E/*/ | wc -l
