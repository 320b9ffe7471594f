#!/bin/bash
# round 130: re-measure the stored model datasets with today's generator
set -u
cd "$(dirname "$0")"
R=$PWD; ROOT=$(cd ../.. && pwd)
tar xJf rm.tar.xz -C /tmp
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader | tee $OUT/gpu.txt
T0=$(date +%s)
for spec in s21:70 s19:80 s19g:70 s3:250; do
  d=${spec%%:*}; dl=${spec##*:}
  echo "== $d $(date +%s)"
  python3 $ROOT/tools/remeasure run --out /tmp/rm/$d --jobs 16 --deadline $dl --timeout 40 2>&1 | tail -15
  mkdir -p $OUT/$d && cp /tmp/rm/$d/measured.jsonl $OUT/$d/ 2>/dev/null
done
echo "total $(( $(date +%s) - T0 )) s"
