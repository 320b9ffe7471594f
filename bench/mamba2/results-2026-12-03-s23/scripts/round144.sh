#!/usr/bin/env bash
# round 144: ChunkScan: the decay's direct form after the factored one (late, latecold: out of line), with alternation (altlatecold)
set -u
R=$OUT/r144; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $R/gpu.txt
cd .dev/r144
ls -d b/*_* | xargs -P 16 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "BUILD FAILED {}"'
echo "built $(( $(date +%s) - T0 )) s"
for d in b/*_8x2048; do ls -la $d/kernel.cubin | awk -v d=$d '{print d, $5}'; done | tee $R/sizes.txt
for d in b/*_8x2048 b/*_8x8192; do (cd $d && timeout 120 ./harness --check-only --json-only > check.json 2>&1); echo "$d rc $? $(grep -o '"mismatches": [0-9]*' $d/check.json)"; done | tee $R/check.txt
for pass in 1 2; do for d in b/*_8x2048 b/*_8x8192; do
  (cd $d && timeout 60 ./harness --json-only --no-check --placements 2 > t$pass.json 2>t$pass.err)
  echo "$pass $(basename $d) $(python3 -c "import json;j=json.load(open('$d/t$pass.json'));print(j.get('time_ms_median'), j.get('placement_medians_ms'))" 2>/dev/null)"
done; done | tee $R/ab.txt
echo "ab $(( $(date +%s) - T0 )) s"
true
for v in nofb latecold; do cuobjdump -sass b/${v}_8x2048/kernel.cubin > $R/$v.sass; done
echo "done $(( $(date +%s) - T0 )) s"
