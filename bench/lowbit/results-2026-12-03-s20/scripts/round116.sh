#!/usr/bin/env bash
# round 116: per-sTask traces of three M = 1 split-K picks (profile), and their stages-only,
# no-fix-up floors
set -u
R=.dev/r115; O=/tmp/r116; mkdir -p $O
export PATH=$PATH:/usr/local/cuda/bin
(meson setup /tmp/b -Dgui=disabled --buildtype=release >/dev/null 2>&1 && meson compile -C /tmp/b > $O/build.log 2>&1) || { echo BUILD FAILED; tail -20 $O/build.log; }
ls -d $R/*-floor/ | xargs -P 4 -I{} sh -c 'make -s -C {} all > {}/build.log 2>&1 || echo "{} build failed"'
C=/tmp/b/cli/pipethreader-cli
W=tests/codegen/graphs/gemm_w4a16_bf16_frag.json
prof() {  # name graph set
  timeout 200 $C profile $2 --set $3 --program $R/$1/program.json -o $O/$1.trace --chrome $O/$1.chrome.json > $O/$1.profile.txt 2>&1
  echo "profile $1 rc $?"; head -40 $O/$1.profile.txt
}
prof i4-8B.o-m1 $W M=1,N=4096,K=4096,G=128
prof i4-70B.o-m1 $W M=1,N=8192,K=8192,G=128
prof bf-8B.o-m1 examples/gemm_bf16.json M=1,N=4096,K=4096
for pass in 1 2; do for n in i4-8B.o-m1 i4-70B.o-m1 bf-8B.o-m1; do for v in "" -noepi -floor; do
  d=$R/$n$v
  echo "pass$pass $n$v $(cd $d && ./harness --json-only --no-check 2>&1 | python3 -c 'import sys,json; j=json.loads(sys.stdin.read().strip().splitlines()[-1]); print(round(j["time_ms_median"]*1000,2))' 2>&1 | tail -1)"
done; done; done
tar czf $OUT/r116.tgz -C /tmp r116
