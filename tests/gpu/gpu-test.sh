#!/bin/sh
# gpu-test.sh CLI — meson test (suite 'gpu'): runs run-gpu-tests.sh over tests/codegen/variants.txt
# where a GPU is present; skips (77) elsewhere, and where nvcc or make is missing.
here=$(cd "$(dirname "$0")" && pwd)
if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    echo "SKIP: no GPU (nvidia-smi -L found none)"
    exit 77
fi
command -v make >/dev/null 2>&1 || { echo "SKIP: make not found"; exit 77; }
if ! command -v nvcc >/dev/null 2>&1; then
    if [ -x /usr/local/cuda/bin/nvcc ]; then
        PATH=$PATH:/usr/local/cuda/bin
        export PATH
    else
        echo "SKIP: nvcc not found"
        exit 77
    fi
fi
exec "$here/run-gpu-tests.sh" "$1" "$here/../codegen/variants.txt"
