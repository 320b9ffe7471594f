#!/bin/sh
# record-fixtures.sh CLI OUTDIR — on the GPU machine: record the fixtures that
# tests/test_measured.c parses on CPU machines. Builds the gemm_f16 bundle (M=N=K=512, default
# sProgram) with CUPTI and the instrumented kernel, runs its harness with --trace, and writes
#   OUTDIR/gemm_f16_512.trace.bin      the raw trace buffer (codegen/trace_abi.h)
#   OUTDIR/gemm_f16_512.harness.json   the harness's JSON line (with "cupti" and the traced
#                                      launch's trace_kernel_start_ns / _end_ns)
# Copy both into tests/fixtures/ and commit them. Exit 1 if anything fails.
set -eu
cli=${1:?usage: record-fixtures.sh CLI OUTDIR}
out=${2:?usage: record-fixtures.sh CLI OUTDIR}
case $cli in /*) ;; *) cli=$(pwd)/$cli ;; esac
command -v nvcc >/dev/null 2>&1 || PATH=$PATH:/usr/local/cuda/bin
mkdir -p "$out"
out=$(cd "$out" && pwd)
b=$out/bundle-gemm_f16_512
rm -rf "$b"
"$cli" codegen gemm_f16 --set M=512,N=512,K=512 --target sm90a -o "$b"
make -C "$b" CUPTI=1 all trace >"$out/build.log" 2>&1 || { tail -n 30 "$out/build.log"; exit 1; }
(cd "$b" && ./harness --json-only --trace "$out/gemm_f16_512.trace.bin") >"$out/gemm_f16_512.harness.json"
grep -q '"correct": true' "$out/gemm_f16_512.harness.json" || { echo "the kernel was not correct"; exit 1; }
grep -q '"cupti": {' "$out/gemm_f16_512.harness.json" || { echo "no CUPTI records"; exit 1; }
grep -q '"trace_kernel_start_ns": [0-9]' "$out/gemm_f16_512.harness.json" || { echo "no traced launch in CUPTI"; exit 1; }
rm -rf "$b" "$out/build.log"
ls -l "$out/gemm_f16_512.trace.bin" "$out/gemm_f16_512.harness.json"
cat "$out/gemm_f16_512.harness.json"
echo "copy them into tests/fixtures/ and commit"
