#!/usr/bin/env bash
# round 103: scale loads once per group and one descriptor per stage (mode 12), plus a shuffled packed layout (13, timing only) against the generated kernels (0). Was round 102: low-bit streaming diagnostics on 70B.down M = 1 (m8 n128 k128, 2 warpgroups, split-K 2):
# stages 4/6/8/12, 3 warpgroups with 8 stages, k 256 with 6; modes 0 generated, 1 lean unpacking,
# 9 no conversion or wgmma, 10 no scale loads, 11 = 9 + 10. SASS histogram and ncu of stages 4.
set -u
R=.dev/r103
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv,noheader
ls $R | xargs -P 16 -I{} sh -c 'make -s -C '$R'/{} all > '$R'/{}/build.log 2>&1 || echo "{} build failed"'
for d in $R/*.d0 $R/*.d12; do echo -n "$d "; (cd $d && ./harness --check-only --json-only | python3 -c "import sys,json; j=json.loads(sys.stdin.read()); print(j[\"correct\"], j[\"mismatches\"])"); done
for pass in 1 2; do
  for b in st4 st6 wg3st6 wg3st6k256 m1-n4096-k4096 m1-n28672-k4096 m16-n8192-k8192 m64-n8192-k8192; do
    for m in 0 12 13; do
      d=$R/$b.d$m
      [ -d $d ] || continue
      t=$(cd $d && ./harness --no-check --json-only 2>&1 | python3 -c 'import sys,json; j=json.loads(sys.stdin.read().strip().splitlines()[-1]); print(round(j["time_ms_median"]*1000,2))' 2>&1)
      echo "pass$pass $b mode$m $t"
    done
  done
done
mkdir -p $OUT/r103
cuobjdump -sass $R/st4.d0/kernel.cubin > $OUT/r103/st4.sass
cuobjdump -sass $R/st4.d12/kernel.cubin > $OUT/r103/st4-e12.sass
for f in st4 st4-e12; do echo "== $f opcode histogram"; grep -oE '^\s+/\*[0-9a-f]{4}\*/\s+(@!?U?P[0-9T] )?[A-Z0-9_]+' $OUT/r103/$f.sass | awk '{print $NF}' | sort | uniq -c | sort -rn | head -25 | tr '\n' ' '; echo; done
