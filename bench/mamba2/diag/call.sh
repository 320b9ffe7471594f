#!/usr/bin/env bash
# Where session 47's three-warpgroup ChunkScan forms go wrong (README.md here): each form of
# programs/ built for SHAPE (default 8 x 8192; h3rpa also at 8 x 4096, h3-H66 with 66 heads so
# that no head triple is ragged) and checked launch after launch by mismatch.py. Run from the
# repository root on the GPU machine after `source .deps/unpack.sh`.
set -u
. bench/common/round-start.sh diag
G=examples/mamba2_chunk_scan.json
P=bench/mamba2/diag/programs
W=/tmp/diagw; rm -rf $W; mkdir -p $W
SET=B=8,S=8192,H=64,P=64,N=128,L=256
for f in ${FORMS:-h2 h3 h3-nows h3-static h3-nonpers h3rpa}; do
    "$CLI" codegen $G --set $SET --program $P/$f.json --target sm90a -o $W/$f >/dev/null || echo "$f: codegen failed"
done
"$CLI" codegen $G --set B=8,S=8192,H=66,P=64,N=128,L=256 --program $P/h3.json --target sm90a -o $W/h3-H66 >/dev/null
"$CLI" codegen $G --set B=8,S=4096,H=64,P=64,N=128,L=256 --program $P/h3rpa.json --target sm90a -o $W/h3rpa-s4096 >/dev/null
ls -d $W/*/ | xargs -P 8 -I{} sh -c 'make -s -C {} all lib > {}/build.log 2>&1 || echo "{}: build failed"'
echo "built $(( $(date +%s) - T0 )) s"
for d in $W/*/; do
    LAUNCHES=${LAUNCHES:-6} timeout 120 python3 bench/mamba2/diag/mismatch.py $d 2>>$R/mismatch.err | tee -a $R/mismatch.jsonl
done
tail -5 $R/mismatch.err
echo "done $(( $(date +%s) - T0 )) s"
