#!/usr/bin/env bash
# round 106: bench/lowbit/run for fp4 (20 rows: picks of the refitted model) and int4 at M = 1
# (torch int4 now packed as torch expects: its check), sanitizers on two fragments variants, and
# 70B.down M = 1: the pick against three warpgroups with k 256.
set -u
R=/tmp/r106; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
(meson setup /tmp/b -Dgui=disabled --buildtype=release >/dev/null 2>&1 && meson compile -C /tmp/b >$R/build.log 2>&1) || { echo BUILD FAILED; tail -20 $R/build.log; }
for d in pick wg3k256; do make -s -C .dev/r106/$d all > /dev/null 2>&1 || echo "build failed $d"; done
for pass in 1 2; do for d in pick wg3k256; do echo "pass$pass $d $(cd .dev/r106/$d && ./harness --json-only 2>&1 | python3 -c 'import sys,json; j=json.loads(sys.stdin.read().strip().splitlines()[-1]); print(j["correct"], round(j["time_ms_median"]*1000,2))')"; done; done
grep -E '^(fq_w4a16_bf16_1x2048x4096_k128_sk2|fq_wfp4a16_bf16_40x1024x2048_k256) ' tests/codegen/variants.txt | while read name graph set tile edits; do
  sh tests/codegen/make-variant.sh /tmp/b/cli/pipethreader-cli /tmp/s106 $name $graph $set $tile "$edits" > /dev/null && make -s -C /tmp/s106/$name all > /dev/null 2>&1
  for tool in racecheck synccheck; do (cd /tmp/s106/$name && timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 ./harness --check-only --json-only > $R/san-$name-$tool.log 2>&1); echo "$name $tool rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/san-$name-$tool.log | tail -1)"; done
done
FORMATS=wfp4a16 timeout 240 bash bench/lowbit/run /tmp/b/cli/pipethreader-cli $R/fp4 > $R/bench-fp4.txt 2>&1; echo "fp4 bench rc $?"
FORMATS=w4a16 MS=1 timeout 120 bash bench/lowbit/run /tmp/b/cli/pipethreader-cli $R/int4m1 > $R/bench-int4-m1.txt 2>&1; echo "int4 M=1 bench rc $?"
for x in fp4 int4m1; do cp $R/$x/results.jsonl $R/results-$x.jsonl 2>/dev/null; for d in $R/$x/*/; do mkdir -p $R/programs-$x/$(basename $d); cp $d/program.json $d/schedule.txt $R/programs-$x/$(basename $d)/ 2>/dev/null; done; rm -rf $R/$x; done
tar czf $OUT/r106.tgz -C /tmp r106
cat $R/bench-fp4.txt | tail -26; cat $R/bench-int4-m1.txt | tail -10
python3 -c "
import json
for l in open('$R/results-int4m1.jsonl'):
    j=json.loads(l)
    if 'torch_int4_check' in j: print(j['bundle'], j['torch_int4_check'])
"
