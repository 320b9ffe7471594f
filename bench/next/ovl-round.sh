#!/usr/bin/env bash
# A device round (session 36): .dev/exp1 (bench/next/ovl-make.sh, carried) — the H100 Mamba2 picks
# against the same sPrograms with the CUDA-core chain an iteration ahead of its mma (-pipe),
# ChunkState also with x and Bm 2 deep. Every bundle checked (the ChunkScans also on decays steep enough
# that some warps take the tile form), timed with its harness (2 passes), then the lib-*
# copies against mamba_ssm in one process (ssd_time.py, every element checked).
set -u
R=$OUT/ovl; mkdir -p "$R"; T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$R/gpu.txt"
E=.dev/exp1
ls -d $E/*/ | xargs -P 16 -I{} sh -c 'case {} in *lib-*) t="lib kernel.cubin";; *) t=all;; esac; make -s -C {} $t > {}/build.log 2>&1 || echo "BUILD FAILED {}"'
echo "built $(( $(date +%s) - T0 )) s"
for v in $E/scan-* $E/state-*; do
  [ -x "$v/harness" ] || continue
  r=$(cd $v && timeout 60 ./harness --check-only --json-only 2>&1 | tail -1)
  echo "$(basename $v) check: $(echo "$r" | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); print(r.get("correct"), r.get("mismatches"), r.get("max_abs_err"), r.get("rel_err"))' 2>/dev/null || echo "$r" | cut -c1-200)"
  case $v in *scan*)
    r=$(cd $v && timeout 60 ./harness --check-only --json-only --cumsum dA_l=-3.5:0 2>&1 | tail -1)
    echo "$(basename $v) steep: $(echo "$r" | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); print(r.get("correct"), r.get("mismatches"), r.get("max_abs_err"), r.get("rel_err"))' 2>/dev/null || echo "$r" | cut -c1-200)";;
  esac
done | tee "$R/check.txt"
echo "checked $(( $(date +%s) - T0 )) s"
bench/common/harness-passes.sh 2 $E/scan-*/ $E/state-*/ | tee "$R/times.txt"
echo "timed $(( $(date +%s) - T0 )) s"
PLACEMENTS=2 bench/common/ssd-vs-mamba.sh "$R" 240 $E/lib-*/
echo "done $(( $(date +%s) - T0 )) s"
