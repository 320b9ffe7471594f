#!/usr/bin/env bash
# round 97: runs under a causal mask (ChunkScan: C and CB kept across heads; static walk):
# variants, random draws with runs (causal ones too), sanitizers; ChunkScan's new picks against
# the old ones with mamba_ssm interleaved
set -u
R=/tmp/r97; mkdir -p $R
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > $R/gpu.txt
(meson setup /tmp/b -Dgui=disabled --buildtype=release >/dev/null 2>&1 && meson compile -C /tmp/b >$R/build.log 2>&1) || { echo BUILD FAILED; tail -20 $R/build.log; }
cd .dev/r97
ls -d cs/scan-* | xargs -P 16 -I{} sh -c 'make -s -C {} lib kernel.cubin > {}/build.log 2>&1 || echo "BUILD FAILED {}"'
ls -d d/* s/* | xargs -P 16 -I{} sh -c 'make -s -C {} > {}/build.log 2>&1 || echo "BUILD FAILED {}"'
cd ../..
grep -E '^(ssd_|fa_d64_run|fa_d128_causal|fa_d128_la_pp_pers_causal|gqa_|f16_run|dec_b1)' tests/codegen/variants.txt > $R/variants-list.txt
HARNESS_ARGS="--iters 20 --rounds 1 --warmup-ms 20" timeout 200 sh tests/gpu/run-gpu-tests.sh /tmp/b/cli/pipethreader-cli $R/variants-list.txt /tmp/v97 > $R/variants.txt 2>&1; echo "variants rc $?" >> $R/variants.txt
echo "variants: $(wc -l < $R/variants-list.txt) listed"; tail -3 $R/variants.txt; grep -iE " false |fail|wrong" $R/variants.txt | head -5
cd .dev/r97
ls -d d/* | xargs -P 4 -I{} sh -c 'cd {} && timeout 60 ./harness --check-only --json-only > check.json 2>check.err; echo "{} rc $? $(grep -o "\"correct\": [a-z]*" check.json | head -1)"' > $R/diff.txt 2>&1
echo "random: $(grep -c 'rc 0 "correct": true' $R/diff.txt) of $(ls -d d/* | wc -l) correct"; grep -v 'rc 0 "correct": true' $R/diff.txt | head
CS=/usr/local/cuda/bin/compute-sanitizer
for tool in racecheck synccheck memcheck; do (cd s/san_scan && timeout 100 $CS --tool $tool --error-exitcode 9 ./harness --check-only --json-only) > $R/san-$tool.log 2>&1; echo "san_scan $tool rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/san-$tool.log | tail -1)"; done
dirs=""; for s in b8-s2048 b8-s8192; do for v in old new column4 row2; do dirs="$dirs cs/scan-$v-$s"; done; done; dirs="$dirs cs/scan-old-b64-s8192 cs/scan-new-b64-s8192"
PLACEMENTS=2 timeout 300 python3 ../../bench/mamba2/ssd_time.py ../anchors-mamba2 $dirs > $R/ssd.jsonl 2> $R/ssd.err; echo "ssd rc $?"
python3 ../r96_summary.py $R/ssd.jsonl
tail -3 $R/ssd.err
tar czf $OUT/r97.tgz -C /tmp r97
echo done
