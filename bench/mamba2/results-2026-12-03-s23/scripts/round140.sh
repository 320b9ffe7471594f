#!/usr/bin/env bash
# round 140: ChunkScan: does the loop's code size decide offset 1 (the direct-form fallback of the
# factored decay left out, timing only)? and the pick's per-sTask trace (pipethreader-cli profile)
set -u
R=$OUT/r140; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $R/gpu.txt
(meson setup /tmp/b -Dgui=disabled --buildtype=release >/dev/null 2>&1 && meson compile -C /tmp/b >$R/build.log 2>&1) &
cd .dev/r140
ls -d b/*_* | xargs -P 12 -I{} sh -c 'make -s -C {} all > {}/build.log 2>&1 || echo "BUILD FAILED {}"'
wait
echo "built $(( $(date +%s) - T0 )) s"; tail -2 $R/build.log
for d in b/*_8x2048; do ls -la $d/kernel.cubin | awk -v d=$d '{print d, $5}'; done | tee $R/sizes.txt
for d in b/*_8x2048 b/*_8x8192; do (cd $d && timeout 120 ./harness --check-only --json-only > check.json 2>&1); echo "$d rc $? $(grep -o '"mismatches": [0-9]*' $d/check.json)"; done | tee $R/check.txt
for pass in 1 2; do for d in b/*_8x2048 b/*_8x8192; do
  (cd $d && timeout 60 ./harness --json-only --no-check --placements 2 > t$pass.json 2>t$pass.err)
  echo "$pass $(basename $d) $(python3 -c "import json;j=json.load(open('$d/t$pass.json'));print(j.get('time_ms_median'), j.get('placement_medians_ms'))" 2>/dev/null)"
done; done | tee $R/ab.txt
echo "ab $(( $(date +%s) - T0 )) s"
for v in basenofb off1nofb; do (cd b/${v}_8x2048 && timeout 100 ncu --metrics smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__inst_executed.sum,gpu__time_duration.sum -k regex:pt_ -c 1 ./harness --check-only --json-only > $R/ncu-$v.txt 2>&1); grep -E "stalled|inst_exec|duration" $R/ncu-$v.txt | awk -v v=$v '{print v, $1, $NF}'; done
cd ../..
for sh in 8x2048; do B=${sh%x*}; S=${sh#*x};
  timeout 200 /tmp/b/cli/pipethreader-cli profile mamba2_chunk_scan --program .dev/r140/b/pick-$sh.json --set B=$B,S=$S -o $R/trace-pick-$sh.json > $R/profile-pick-$sh.txt 2>&1; echo "profile rc $?"
  head -80 $R/profile-pick-$sh.txt
done
echo "done $(( $(date +%s) - T0 )) s"
