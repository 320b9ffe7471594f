#!/bin/bash
# ab.sh OUTFILE DIR...: each bundle against its twin with every map's L2 promotion back at 256 B
# (the generator before this change); built, then timed alternately in the harness, 2 passes.
out=$1; shift
for d in "${@%/}"; do
  rm -rf $d.p256; cp -r $d $d.p256
  sed -i 's/CU_TENSOR_MAP_L2_PROMOTION_L2_128B/CU_TENSOR_MAP_L2_PROMOTION_L2_256B/' $d.p256/launch.c
  echo "$d $(grep -c L2_128B $d/launch.c) maps at 128B"
done
printf "%s\n" "${@%/}" | sed 'p;s/$/.p256/' | xargs -P 16 -I{} sh -c 'make -s -C {} all > {}/ab-build.log 2>&1 || echo "{} build failed"'
t() { (cd $1 && timeout 60 ./harness --json-only $2 2>&1 | python3 -c 'import sys,json; j=json.loads(sys.stdin.read().strip().splitlines()[-1]); print(j.get("correct"), j.get("mismatches"), round(j["time_ms_median"]*1000,2))' 2>&1 | tail -1); }
for pass in 1 2; do for d in "${@%/}"; do
  [ $pass = 1 ] && a= || a=--no-check
  echo "pass$pass $(basename $d) new $(t $d $a) old256 $(t $d.p256 $a)"
done; done | tee $out
