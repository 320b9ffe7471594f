#!/bin/sh
# sanitize.sh CLI OUTDIR — one generated GEMM (ragged shape, persistent, two consumer
# warpgroups) under compute-sanitizer memcheck and racecheck; exit 1 on any reported error.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cli=$1 out=$2
CS=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
[ -x "$CS" ] || { echo "SKIP: compute-sanitizer not found"; exit 77; }
name=sanitize_bf16_257x1000x200_pers
"$here/../codegen/make-variant.sh" "$cli" "$out" "$name" gemm_bf16 M=257,N=1000,K=200 \
    m=128,n=256,k=64,wg=2 '{"partition":{"persistent":True},"stages":{"A":2,"B":2}}' >/dev/null || exit 1
make -s -C "$out/$name" >/dev/null 2>&1 || { echo "build failed"; exit 1; }
fails=0
for tool in memcheck racecheck; do
    (cd "$out/$name" && "$CS" --tool "$tool" --error-exitcode 9 ./harness --check-only --json-only) >"$out/$tool.log" 2>&1
    rc=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/$tool.log" | tail -1)
    if [ $rc -eq 0 ]; then echo "ok   $tool: ${summary:-clean} ($(grep -o '"correct": [a-z]*' "$out/$tool.log"))"
    else echo "FAIL $tool (exit $rc): $summary"; tail -20 "$out/$tool.log"; fails=$((fails + 1)); fi
done
[ $fails -eq 0 ]
