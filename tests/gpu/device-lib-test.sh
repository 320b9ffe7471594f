#!/bin/sh
# device-lib-test.sh — meson test (suite 'gpu'): builds and runs the device-library checks in
# tests/gpu/device/ (each a CUDA program that checks one device function on every element
# against a host reference). Skips (77) without a GPU or nvcc.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/require.sh"
require_gpu
require_nvcc
nvcc=$(command -v nvcc)
out=${TMPDIR:-/tmp}/pt-device-lib.$$
mkdir -p "$out"
status=0
for src in "$here"/device/*.cu; do
    name=$(basename "$src" .cu)
    if ! "$nvcc" -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I"$root/codegen/device" \
            -I"$root/codegen" "$src" -o "$out/$name"; then
        echo "FAIL: $name did not build"
        status=1
        continue
    fi
    "$out/$name" || status=1
done
rm -rf "$out"
exit $status
