#!/bin/sh
# test_harness_host.sh CLI [NVCC] — the bundle harness's host code without a GPU: it is built
# with OpenMP (as the bundle's Makefile builds it) and run on 1 and 3 threads; the seeded inputs
# must be byte-identical across thread counts and equal to the stream earlier bundles drew (the
# sha256 below was taken from the sequential generator), compare() must count every
# mismatch and notice a NaN, and --range must draw in its range and refuse bad values. Skips
# (77) without nvcc's toolkit (cuda.h, the driver stub).
set -u
cli=$1
NVCC=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cuda-root.sh"
[ -n "$NVCC" ] || NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$NVCC" ] || { echo "SKIP: nvcc not found"; exit 77; }
cuda=$(cuda_root "$NVCC")
[ -f "$cuda/lib64/stubs/libcuda.so" ] || { echo "SKIP: no driver stub in $cuda/lib64/stubs"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cli" codegen gemm_bf16 --set M=257,N=1000,K=200 --target sm90a -o "$tmp/b" >/dev/null || exit 1
cp "$here/harness_host_check.c" "$tmp/b/"
ln -s "$cuda/lib64/stubs/libcuda.so" "$tmp/libcuda.so.1"
cc -std=c11 -O2 -fopenmp -Wall -Wextra -Werror -I"$tmp/b" -I"$cuda/include" \
    -o "$tmp/check" "$tmp/b/harness_host_check.c" -L"$cuda/lib64/stubs" -lcuda -lm || exit 1
fails=0
LD_LIBRARY_PATH=$tmp OMP_NUM_THREADS=1 "$tmp/check" >"$tmp/one.bin" || exit 1
LD_LIBRARY_PATH=$tmp OMP_NUM_THREADS=3 "$tmp/check" >"$tmp/three.bin" || exit 1
if cmp -s "$tmp/one.bin" "$tmp/three.bin"; then echo "ok   inputs identical on 1 and 3 threads"
else echo "FAIL inputs differ between 1 and 3 threads"; fails=1; fi
want=a72370684ac827299c3dd90032d8b75299d861fbd4230f24e7054fe027da8279
got=$(sha256sum "$tmp/one.bin" | cut -c1-64)
if [ "$got" = "$want" ]; then echo "ok   inputs are the seeded stream of earlier bundles"
else echo "FAIL inputs changed: sha256 $got, expected $want"; fails=1; fi
got=$(LD_LIBRARY_PATH=$tmp OMP_NUM_THREADS=3 "$tmp/check" compare)
if [ "$got" = "8 1000 0 1.000" ]; then echo "ok   compare counts 8 mismatches, not finite"
else echo "FAIL compare: got '$got', expected '8 1000 0 1.000'"; fails=1; fi
got=$(LD_LIBRARY_PATH=$tmp "$tmp/check" range 2>/dev/null)
echo "$got" | sed 's/^/     range: /'
if [ "$(echo "$got" | grep -c '^ok ')" -eq 12 ]; then echo "ok   --range draws in range and refuses bad values; --cumsum sums rows; a decay exponent falls"
else echo "FAIL --range/--cumsum: expected 12 ok lines"; fails=1; fi
exit $fails
